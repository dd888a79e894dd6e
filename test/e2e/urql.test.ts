import { cacheExchange, Client, type ClientOptions, fetchExchange } from '@urql/core';
import { cacheExchange as graphcacheExchange } from '@urql/exchange-graphcache';
import {
  CreateJobDocument,
  CreateLogDocument,
  CreateProjectDocument,
  ProjectScreenDocument,
  StartStepDocument,
} from '../../src/client/gql/graphql';
import { dataOf, Role, startTestServer, type TestServer } from '../support/server';
import { restoredAfter } from '../support/fixtures';

/*
 * urql as a frontend developer gets it: `new Client` with its default exchanges, which send
 * queries as GET (preferGetMethod 'within-url-limit'), and Graphcache with no configuration.
 * Both run the project screen query (src/client/operations/screens.graphql) over real HTTP.
 */

describe('urql with its defaults', () => {
  let server: TestServer;
  let token: string;
  let projectId: string;
  /** The HTTP method of every request urql sent. */
  const methods: string[] = [];

  const client = (exchanges: ClientOptions['exchanges']) =>
    new Client({
      url: server.url,
      exchanges,
      fetchOptions: { headers: { authorization: `Bearer ${token}` } },
      fetch: (input, init) => {
        methods.push(init?.method ?? 'GET');
        return fetch(input, init);
      },
    });

  beforeAll(async () => {
    server = await startTestServer();
    token = await server.token('urql', [Role.EDITOR]);
    const worker = await server.token('urql', [Role.WORKER]);
    projectId = dataOf(await server.request(CreateProjectDocument, { input: { title: 'Screen' } }, token)).createProject.projectId;
    dataOf(await server.request(CreateLogDocument, { projectId, input: { materials: ['ink'], timeSpentMinutes: 10 } }, token));
    const { body } = await server.raw(
      {
        query: 'mutation($projectId: ID!) { createMilestone(projectId: $projectId, input: { name: "Sketch" }) { milestoneId } }',
        variables: { projectId },
      },
      token,
    );
    dataOf(body as { data?: unknown });
    const { jobId } = dataOf(
      await server.request(CreateJobDocument, { input: { projectId, kind: 'K', steps: ['a', 'b'] } }, token),
    ).createJob;
    dataOf(await server.request(StartStepDocument, { jobId, stepName: 'a' }, worker));
  });
  beforeEach(() => methods.splice(0));

  it('runs the project screen with the default client, its query sent by GET', async () => {
    const urql = client([cacheExchange, fetchExchange]);
    const result = await urql.query(ProjectScreenDocument, { projectId }).toPromise();
    expect(result.error).toBeUndefined();
    expect(methods).toEqual(['GET']);
    expect(result.data?.project).toMatchObject({ projectId, title: 'Screen' });
    expect(result.data?.project?.milestones.map((m) => m.name)).toEqual(['Sketch']);
    expect(result.data?.project?.logs.map((l) => l.materials)).toEqual([['ink']]);
    expect(result.data?.jobs.nodes[0].steps.map((s) => [s.name, s.status])).toEqual([
      ['a', 'RUNNING'],
      ['b', 'PENDING'],
    ]);
    // The document cache answers the same query without a request.
    const again = await urql.query(ProjectScreenDocument, { projectId }, { requestPolicy: 'cache-only' }).toPromise();
    expect(again.operation.context.meta?.cacheOutcome).toBe('hit');
    expect(again.data).toEqual(result.data);
    expect(methods).toEqual(['GET']);
  });

  it('runs it with Graphcache and no configuration: every entity normalized, a cache-only re-read hits', async () => {
    const warnings: string[] = [];
    restoredAfter(
      jest.spyOn(console, 'warn').mockImplementation((...args: unknown[]) => {
        warnings.push(args.map(String).join(' '));
      }),
    );
    const urql = client([graphcacheExchange(), fetchExchange]);
    const result = await urql.query(ProjectScreenDocument, { projectId }).toPromise();
    expect(result.error).toBeUndefined();
    expect(methods).toEqual(['GET']);
    const again = await urql.query(ProjectScreenDocument, { projectId }, { requestPolicy: 'cache-only' }).toPromise();
    expect(again.operation.context.meta?.cacheOutcome).toBe('hit');
    expect(again.data).toEqual(result.data);
    expect(methods).toEqual(['GET']);
    // Graphcache warns (outside production) about any entity it cannot key and any field it misses.
    expect(warnings).toEqual([]);
    // The control: a selection without the id is warned about, so the silence above means something.
    const unkeyed = await urql
      .query(
        'query Unkeyed($projectId: ID!) { project(projectId: $projectId) { title } }',
        { projectId },
        { requestPolicy: 'network-only' },
      )
      .toPromise();
    expect(unkeyed.error).toBeUndefined();
    expect(warnings.join('\n')).toMatch(/Invalid key/);
  });
});
