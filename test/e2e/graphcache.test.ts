import { Client, fetchExchange, subscriptionExchange } from '@urql/core';
import { cacheExchange as graphcacheExchange } from '@urql/exchange-graphcache';
import { ProjectScreenDocument } from '../../src/client/gql/graphql';
import { Role, startTestServer, type TestServer } from '../support/server';
import { restoredAfter } from '../support/fixtures';
import { wsClient } from '../support/ws';
import { waitFor } from '../support/wait';

/*
 * A frontend's project screen with urql as it comes: `new Client` with its default fetch (queries
 * sent by GET), Graphcache with no configuration at all, and subscriptions through
 * subscriptionExchange over a real graphql-ws client. Graphcache warns (outside production) about
 * every object it cannot key and every field it misses; the test captures console.warn, which is
 * where those warnings go when no logger is configured, and expects none. The screen reads every
 * connection through edges, so the Cursor Connections shape is exercised as a client reads it.
 */

const SCREEN = `
  query GraphcacheScreen($projectId: ID!) {
    project(projectId: $projectId) {
      id projectId title status
      milestones { id milestoneId name status }
      logs { id logId rawText timeSpentMinutes }
      assets { id assetId type status versions { id version status } }
    }
    logsConnection(projectId: $projectId, first: 10) {
      edges { cursor node { id logId rawText } }
      pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
    }
    jobs(projectId: $projectId) {
      edges { cursor node { id jobId status progress currentStep steps { id name status progress } } }
      pageInfo { hasNextPage endCursor }
    }
    activity(projectId: $projectId, first: 50) {
      edges { cursor node { id eventId action subjectType subjectNodeId position at } }
      pageInfo { hasNextPage endCursor }
    }
  }
`;

const WATCH = `
  subscription GraphcacheJob($jobId: ID!) {
    jobProgress(jobId: $jobId) { id type position job { id status progress currentStep } step { id name status progress } }
  }
`;

interface Screen {
  project: { title: string; milestones: { name: string }[]; logs: { rawText: string }[]; assets: { assetId: string }[] };
  logsConnection: { edges: { cursor: string; node: { logId: string } }[]; pageInfo: { hasNextPage: boolean; startCursor: string } };
  jobs: { edges: { node: { id: string; status: string; progress: number; steps: { id: string; name: string; status: string }[] } }[] };
  activity: { edges: { node: { id: string; action: string } }[] };
}

describe('urql with its defaults and Graphcache with no configuration', () => {
  let server: TestServer;
  let token: string;
  let worker: string;
  let projectId: string;
  let jobId: string;
  const methods: string[] = [];
  const warnings: string[] = [];

  const gql = async (query: string, variables: Record<string, unknown>, as = token) => {
    const { body } = await server.raw({ query, variables }, as);
    if (body.errors) throw new Error(JSON.stringify(body.errors));
    return body.data;
  };

  beforeAll(async () => {
    restoredAfter(jest.spyOn(console, 'warn')).mockImplementation((...args: unknown[]) => {
      warnings.push(args.map(String).join(' '));
    });
    server = await startTestServer();
    token = await server.token('gcache', [Role.EDITOR]);
    worker = await server.token('gcache', [Role.WORKER]);
    projectId = (await gql('mutation { createProject(input: { title: "Screen" }) { projectId } }', {})).createProject.projectId;
    const p = { projectId };
    await gql('mutation($projectId: ID!) { createMilestone(projectId: $projectId, input: { name: "Sketch" }) { id } }', p);
    for (const text of ['first', 'second', 'third']) {
      await gql('mutation($projectId: ID!, $t: String) { createLog(projectId: $projectId, input: { rawText: $t }) { id } }', {
        ...p,
        t: text,
      });
    }
    await gql(
      'mutation($projectId: ID!) { createAsset(projectId: $projectId, input: { type: IMAGE, s3Key: "tenants/gcache/a.png" }) { id } }',
      p,
    );
    jobId = (
      await gql('mutation($projectId: ID!) { createJob(input: { projectId: $projectId, kind: "K", steps: ["a", "b"] }) { jobId } }', p)
    ).createJob.jobId;
  });

  it('runs the project screen and a jobProgress subscription: no warning, cache-only re-reads hit, the cached job follows the events', async () => {
    // graphql-ws's own retries, as an app using it has them.
    const ws = wsClient(server.url, token, { retryAttempts: 5 });
    const urql = new Client({
      url: server.url,
      exchanges: [
        graphcacheExchange(),
        fetchExchange,
        subscriptionExchange({
          forwardSubscription: (request) => ({
            subscribe: (sink) => ({ unsubscribe: ws.subscribe({ ...request, query: request.query ?? '' }, sink) }),
          }),
        }),
      ],
      fetchOptions: { headers: { authorization: `Bearer ${token}` } },
      fetch: (input, init) => {
        methods.push(init?.method ?? 'GET');
        return fetch(input, init);
      },
    });
    const first = await urql.query(SCREEN, { projectId }).toPromise();
    expect(first.error).toBeUndefined();
    expect(methods).toEqual(['GET']);
    const screen: Screen = first.data;
    expect(screen.project.milestones.map((m) => m.name)).toEqual(['Sketch']);
    expect(screen.project.logs.map((l) => l.rawText)).toEqual(['first', 'second', 'third']);
    expect(screen.project.assets).toHaveLength(1);
    expect(screen.logsConnection.edges.map((e) => e.cursor)).toEqual([expect.any(String), expect.any(String), expect.any(String)]);
    expect(screen.logsConnection.pageInfo).toMatchObject({ hasNextPage: false, startCursor: screen.logsConnection.edges[0].cursor });
    expect(screen.jobs.edges[0].node.steps.map((s) => [s.name, s.status])).toEqual([
      ['a', 'PENDING'],
      ['b', 'PENDING'],
    ]);
    expect(screen.activity.edges.map((e) => e.node.action)).toEqual(expect.arrayContaining(['log.created', 'milestone.created']));

    // The example screen of src/client/operations shares the cache without a warning.
    expect((await urql.query(ProjectScreenDocument, { projectId }).toPromise()).error).toBeUndefined();

    const again = await urql.query(SCREEN, { projectId }, { requestPolicy: 'cache-only' }).toPromise();
    expect(again.operation.context.meta?.cacheOutcome).toBe('hit');
    expect(again.data).toEqual(first.data);
    expect(methods).toEqual(['GET', 'GET']);

    // Follow the job while a worker runs it; every event's job and step update the cached ones.
    const types: string[] = [];
    const finished = new Promise<void>((resolve, reject) => {
      const { unsubscribe } = urql.subscription(WATCH, { jobId }).subscribe((result) => {
        if (result.error) reject(result.error);
        const event = result.data?.jobProgress;
        if (!event) return;
        types.push(event.type);
        if (event.job?.status === 'COMPLETED') {
          unsubscribe();
          resolve();
        }
      });
    });
    // The first message (SUBSCRIBED) says the subscription is in effect; wait for it before the worker starts.
    await waitFor(async () => types.includes('SUBSCRIBED'), 'the SUBSCRIBED acknowledgement', { ms: 20_000, everyMs: 20 });
    const step = (name: string, op: string, extra = '') =>
      gql(`mutation($jobId: ID!) { ${op}(jobId: $jobId, stepName: "${name}"${extra}) { id } }`, { jobId }, worker);
    await step('a', 'startStep');
    await step('a', 'reportStepProgress', ', progress: 0.5');
    await step('a', 'completeStep');
    await step('b', 'startStep');
    await step('b', 'completeStep');
    await finished;
    expect(types).toEqual(['SUBSCRIBED', 'STEP_STARTED', 'STEP_PROGRESS', 'STEP_COMPLETED', 'STEP_STARTED', 'STEP_COMPLETED']);

    // The screen read from the cache alone now shows the job as the events left it.
    const after = await urql.query(SCREEN, { projectId }, { requestPolicy: 'cache-only' }).toPromise();
    expect(after.operation.context.meta?.cacheOutcome).toBe('hit');
    const job = (after.data as Screen).jobs.edges[0].node;
    expect(job).toMatchObject({ status: 'COMPLETED', progress: 1 });
    expect(job.steps.map((s) => [s.name, s.status])).toEqual([
      ['a', 'COMPLETED'],
      ['b', 'COMPLETED'],
    ]);
    expect(methods).toEqual(['GET', 'GET']);
    expect(warnings).toEqual([]);

    // The control: Graphcache does warn about an object selected without its id, so the silence means something.
    await urql.query('query Unkeyed($jobId: ID!) { job(jobId: $jobId) { status } }', { jobId }).toPromise();
    expect(warnings.join('\n')).toMatch(/Invalid key/);
  });
});
