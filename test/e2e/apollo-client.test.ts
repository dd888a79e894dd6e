import { ApolloClient, ApolloLink, gql, HttpLink, InMemoryCache } from '@apollo/client';
import { GraphQLWsLink } from '@apollo/client/link/subscriptions';
import { createClient } from 'graphql-ws';
import { Role } from '../../src/auth/principal';
import { ProjectScreenDocument } from '../../src/client/gql/graphql';
import { startTestServer, type TestServer } from '../support/server';
import { fixture, stoppedAfter } from '../support/fixtures';
import { wsClient } from '../support/ws';
import { waitFor } from '../support/wait';

/*
 * The server as a frontend uses it: Apollo Client 4 with its default InMemoryCache and no
 * typePolicies, queries over HTTP and subscriptions over GraphQLWsLink. Every entity type must be
 * normalized by __typename and id, a mutation's result must update what an earlier query cached,
 * and a job event must update the cached job.
 */
describe('Apollo Client with its default cache', () => {
  let server: TestServer;
  let token: string;
  let client: ApolloClient;
  let ws: ReturnType<typeof createClient>;

  beforeAll(async () => {
    server = await startTestServer();
    token = await server.token('apollo', [Role.EDITOR, Role.WORKER]);
    // graphql-ws's own retries, as an app using it has them.
    ws = wsClient(server.url, token, { retryAttempts: 5 });
    const isSubscription = ({ query }: ApolloLink.Operation) =>
      query.definitions.some((d) => d.kind === 'OperationDefinition' && d.operation === 'subscription');
    client = new ApolloClient({
      link: ApolloLink.split(
        isSubscription,
        new GraphQLWsLink(ws),
        new HttpLink({ uri: server.url, headers: { authorization: `Bearer ${token}` } }),
      ),
      cache: new InMemoryCache(),
    });
    stoppedAfter('Apollo client', client);
  });

  const mutate = async (mutation: string, variables: Record<string, unknown> = {}) =>
    // biome-ignore lint/suspicious/noExplicitAny: the test reads what each mutation selected.
    (await client.mutate<any>({ mutation: gql(mutation), variables })).data;

  it('normalizes every entity type, and a mutation updates the entity an earlier query cached', async () => {
    const { createProject } = await mutate('mutation { createProject(input: { title: "Cached" }) { id projectId version } }');
    const projectId = createProject.projectId;
    const p = `projectId: "${projectId}"`;
    await mutate(`mutation { createBriefVersion(${p}, input: { requirements: ["r"], deliverables: [], changelogEntry: "c" }) { id } }`);
    await mutate(`mutation { createMilestone(${p}, input: { name: "m" }) { id } }`);
    const { createLog } = await mutate(`mutation { createLog(${p}, input: { rawText: "l" }) { id logId } }`);
    await mutate(
      `mutation { createAsset(${p}, input: { type: IMAGE, s3Key: "tenants/apollo/a.jpg", linkedLogId: "${createLog.logId}" }) { id } }`,
    );
    await mutate('mutation { createInspiration(input: { type: TEXT, text: "i" }) { id } }');
    await mutate(`mutation { createJob(input: { ${p}, kind: "K", steps: ["render"] }) { id } }`);

    // The example operation of a project screen (src/client/operations/screens.graphql): every entity type.
    const { data } = await client.query({ query: ProjectScreenDocument, variables: { projectId } });
    if (!data?.project) throw new Error('no project');
    const entities: Array<[string, { id: string }]> = [
      ['Tenant', data.tenant],
      ['Project', data.project],
      ['Brief', data.project.brief!],
      ['Milestone', data.project.milestones[0]],
      ['Log', data.project.logs[0]],
      ['Asset', data.project.logs[0].assets[0]],
      ['Inspiration', data.inspirations.nodes[0]],
      ['Job', data.jobs.nodes[0]],
      ['Step', data.jobs.nodes[0].steps[0]],
    ];
    const cached = client.cache.extract() as Record<string, unknown>;
    const normalized = entities.filter(([typename, entity]) => {
      const ref = client.cache.identify({ __typename: typename, id: entity.id });
      return ref !== undefined && ref in cached;
    });
    console.log(`Apollo Client InMemoryCache normalized ${normalized.length} of ${entities.length} entity types`);
    expect(normalized.map(([typename]) => typename)).toEqual(entities.map(([typename]) => typename));

    // updateProject returns the project with its id: the cached query shows version 2 without a refetch.
    await mutate(
      `mutation { updateProject(projectId: "${projectId}", expectedVersion: 1, input: { title: "Renamed" }) { id title version } }`,
    );
    const again = client.readQuery({ query: ProjectScreenDocument, variables: { projectId } });
    expect(again?.project).toMatchObject({ title: 'Renamed', version: 2 });
  });

  it('updates the cached job from a jobProgress event', async () => {
    const { createProject } = await mutate('mutation { createProject(input: { title: "Live cache" }) { id projectId } }');
    const { createJob } = await mutate(
      `mutation { createJob(input: { projectId: "${createProject.projectId}", kind: "K", steps: ["render"] }) { id jobId status progress } }`,
    );
    const jobQuery = gql('query($jobId: ID!) { job(jobId: $jobId) { id status progress } }');
    // biome-ignore lint/suspicious/noExplicitAny: the test reads what the query selected.
    await client.query<any>({ query: jobQuery, variables: { jobId: createJob.jobId } });

    const events: string[] = [];
    const subscription = client
      .subscribe({
        query: gql('subscription($jobId: ID!) { jobProgress(jobId: $jobId) { type position job { id status progress } } }'),
        variables: { jobId: createJob.jobId },
      })
      .subscribe({ next: (result) => events.push((result.data as { jobProgress: { type: string } }).jobProgress.type) });
    fixture('Apollo subscription', subscription, (s) => s.unsubscribe());
    // The acknowledgement says the subscription is in effect: what is written now will arrive.
    await waitFor(async () => events.includes('SUBSCRIBED'), 'the SUBSCRIBED acknowledgement', { ms: 10_000, everyMs: 20 });
    await mutate(`mutation { startStep(jobId: "${createJob.jobId}", stepName: "render") { seq } }`);
    await waitFor(async () => events.includes('STEP_STARTED'), 'the STEP_STARTED event', { ms: 10_000, everyMs: 20 });
    // The event's job carried the same id: the cached job query now says RUNNING, without a refetch.
    const cachedJob = client.readQuery<{ job: { status: string } }>({ query: jobQuery, variables: { jobId: createJob.jobId } });
    expect(cachedJob?.job.status).toBe('RUNNING');
  });
});
