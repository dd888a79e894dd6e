import { testEndpoint } from '../support/dynamo';
import { codeOf, Role, startTestServer, type TestServer } from '../support/server';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy';

/*
 * A list read asks DynamoDB only for the attributes its query's fields read (src/common/projection.ts).
 * Two servers share one table: `server` projects its reads, and its DynamoDB calls pass a TCP
 * proxy that keeps what they send; `whole` reads whole items (projectReads: false), as every read
 * did before. Their answers are compared byte for byte.
 */

/** The Query requests sent through `proxy` since `from` whose key condition names `skPrefix`, as sent. */
function queriesOf(proxy: TcpProxy, from: number, skPrefix: string): Array<Record<string, any>> {
  return proxy.sent
    .slice(from)
    .filter((chunk) => chunk.includes('"KeyConditionExpression"') && chunk.includes(skPrefix))
    .map((chunk) => JSON.parse(chunk.slice(chunk.indexOf('{'))));
}

/** The attribute names a Query asks for (every one when it has no projection). */
const projectedOf = (query: Record<string, any>): string[] | 'all' =>
  query.ProjectionExpression
    ? String(query.ProjectionExpression)
        .split(', ')
        .map((name) => query.ExpressionAttributeNames[name])
        .sort()
    : 'all';

/** One GraphQL request to `on` as `token`; its status, its body, and the body's JSON as sent. */
async function run(on: TestServer, token: string, query: string, variables: Record<string, unknown> = {}) {
  const { status, body } = await on.raw({ query, variables }, token);
  return { status, text: JSON.stringify(body), body };
}

/** A project of tenant `proj` with three logs and an asset linked to the first, written through `server`; its id and the logs' ids. */
async function seed(server: TestServer, token: string): Promise<{ projectId: string; logIds: string[] }> {
  const created = await run(server, token, 'mutation { createProject(input: { title: "Projections" }) { projectId } }');
  const projectId: string = created.body.data.createProject.projectId;
  const logIds: string[] = [];
  for (let i = 0; i < 3; i++) {
    const log = await run(server, token, 'mutation($p: ID!, $i: CreateLogInput!) { createLog(projectId: $p, input: $i) { logId } }', {
      p: projectId,
      i: { rawText: `glaze ${i}`, materials: ['oil', `pigment ${i}`], timeSpentMinutes: 20 + i, tags: ['t'] },
    });
    logIds.push(log.body.data.createLog.logId);
  }
  await run(server, token, 'mutation($p: ID!, $i: CreateAssetInput!) { createAsset(projectId: $p, input: $i) { assetId } }', {
    p: projectId,
    i: { type: 'IMAGE', s3Key: 'tenants/proj/glaze.png', linkedLogId: logIds[0] },
  });
  return { projectId, logIds };
}

/** Selections of one request that ask for more after fewer, over lists, connections and a project's nested lists. */
const MORE_AFTER_FEWER = `query($p: ID!) {
  few: logs(projectId: $p) { logId }
  more: logs(projectId: $p) { logId rawText materials tags timeSpentMinutes mediaRefs version createdAt assets { assetId linkedLog { rawText } } }
  connection: logsConnection(projectId: $p, first: 2) { nodes { logId } }
  fuller: logsConnection(projectId: $p, first: 2) { edges { node { ...Full } } pageInfo { hasNextPage } }
  project(projectId: $p) { logs { logId } assets { assetId linkedLog { logId } } again: logs { ...Full } }
}
fragment Full on Log { logId rawText materials id }`;

/** MORE_AFTER_FEWER through `server` answers all it asks for, byte for byte as `whole` (reads of whole items) answers it. */
async function expectMoreAfterFewer(server: TestServer, whole: TestServer, token: string, projectId: string) {
  const projected = await run(server, token, MORE_AFTER_FEWER, { p: projectId });
  expect(projected.body.errors).toBeUndefined();
  expect(projected.body.data.more.map((l: { rawText: string }) => l.rawText)).toEqual(['glaze 0', 'glaze 1', 'glaze 2']);
  expect(projected.body.data.project.again.map((l: { materials: string[] }) => l.materials[1])).toEqual([
    'pigment 0',
    'pigment 1',
    'pigment 2',
  ]);
  expect(projected.body.data.fuller.edges[1].node.rawText).toBe('glaze 1');
  const wholeAnswer = await run(whole, token, MORE_AFTER_FEWER, { p: projectId });
  expect(projected.text).toBe(wholeAnswer.text);
}

describe('list reads ask for what the query reads', () => {
  let whole: TestServer;
  let server: TestServer;
  let proxy: TcpProxy;
  let token: string;
  let projectId: string;
  let logIds: string[];

  beforeAll(async () => {
    whole = await startTestServer({ projectReads: false });
    proxy = await startTcpProxy(testEndpoint());
    server = await startTestServer({ env: { TABLE_NAME: whole.config.tableName, DYNAMODB_ENDPOINT: proxy.url } });
    token = await server.token('proj');
    ({ projectId, logIds } = await seed(server, token));
  });

  it('asks DynamoDB for the attributes the fields read, the keys and the version, and nothing more', async () => {
    const from = proxy.sent.length;
    const compiledRuns = server.app.pipeline.queries.counts.runs;
    // Twice: the second run is graphql-jit's compiled query (src/graphql/compiled-queries.ts), whose resolve info is its own.
    for (const _ of [1, 2]) {
      const answer = await run(server, token, 'query($p: ID!) { logs(projectId: $p, first: 50) { logId timeSpentMinutes } }', {
        p: projectId,
      });
      expect(answer.body.data.logs.map((l: { timeSpentMinutes: number }) => l.timeSpentMinutes)).toEqual([20, 21, 22]);
    }
    expect(server.app.pipeline.queries.counts.runs - compiledRuns).toBe(1);
    const queries = queriesOf(proxy, from, '#LOG#');
    expect(queries.map(projectedOf)).toEqual([
      ['PK', 'SK', 'entityType', 'expiresAt', 'logId', 'projectId', 'timeSpentMinutes', 'version'],
      ['PK', 'SK', 'entityType', 'expiresAt', 'logId', 'projectId', 'timeSpentMinutes', 'version'],
    ]);
    // The key condition is the caller's tenant's partition, as in every read.
    expect(queries.map((query) => query.ExpressionAttributeValues[':pk'])).toEqual([{ S: 'TENANT#proj' }, { S: 'TENANT#proj' }]);

    // A connection's items are its nodes and its edges' nodes; a field resolver reads what it declares (Log.assets: assetIds).
    const next = proxy.sent.length;
    await run(
      server,
      token,
      `query($p: ID!) { logsConnection(projectId: $p) { edges { cursor node { __typename id assets { assetId } } } nodes { rawText } pageInfo { endCursor } } }`,
      { p: projectId },
    );
    expect(queriesOf(proxy, next, '#LOG#').map(projectedOf)).toEqual([
      ['PK', 'SK', 'assetIds', 'entityType', 'expiresAt', 'logId', 'projectId', 'rawText', 'version'],
    ]);
  });

  it('answers a query that asks for more after one that asked for fewer, in the same request, with all it asks for', async () => {
    const from = proxy.sent.length;
    await expectMoreAfterFewer(server, whole, token, projectId);
    // Each selection was its own read (the request's page cache keys pages by projection too).
    expect(queriesOf(proxy, from, '#LOG#').length).toBeGreaterThanOrEqual(4);
  });

  it('keeps the tenant key prefix: another tenant reads nothing of this one, and its cursors are refused there', async () => {
    const other = await server.token('proj-other', [Role.EDITOR]);
    const list =
      'query($p: ID!, $after: String) { logsConnection(projectId: $p, first: 1, after: $after) { nodes { logId rawText } pageInfo { endCursor } } }';
    const own = await run(server, token, list, { p: projectId });
    expect(own.body.data.logsConnection.nodes).toEqual([{ logId: logIds[0], rawText: 'glaze 0' }]);
    const from = proxy.sent.length;
    const foreign = await run(server, other, list, { p: projectId });
    expect(foreign.body.data.logsConnection.nodes).toEqual([]);
    expect(queriesOf(proxy, from, '#LOG#').map((q) => q.ExpressionAttributeValues[':pk'])).toEqual([{ S: 'TENANT#proj-other' }]);
    const replayed = await server.raw(
      { query: list, variables: { p: projectId, after: own.body.data.logsConnection.pageInfo.endCursor } },
      other,
    );
    expect(codeOf(replayed.body)).toBe('BAD_USER_INPUT');
    // The cursor of a projected page pages on in its own tenant.
    const second = await run(server, token, list, { p: projectId, after: own.body.data.logsConnection.pageInfo.endCursor });
    expect(second.body.data.logsConnection.nodes).toEqual([{ logId: logIds[1], rawText: 'glaze 1' }]);
  });
});

describe('list reads on PostgreSQL read the columns the query reads', () => {
  it('answers a query that asks for more after one that asked for fewer with all it asks for, as reads of whole rows answer it', async () => {
    const whole = await startTestServer({ store: 'postgres', projectReads: false });
    const server = await startTestServer({ store: 'postgres', env: { DATABASE_URL: whole.config.postgres?.url ?? '' } });
    const token = await server.token('proj');
    const { projectId } = await seed(server, token);
    await expectMoreAfterFewer(server, whole, token, projectId);
    // Lists by an index (projects by status, by title), whose rows are read of the columns the query
    // and the index's key need: the same answer as whole rows give, fewer fields before more.
    await run(
      server,
      token,
      'mutation { createProject(input: { title: "Projections two", budget: { amount: 5, currency: "EUR" } }) { projectId } }',
    );
    const lists = `{
      few: projects(status: PLANNING) { nodes { projectId } }
      more: projects(status: PLANNING) { nodes { projectId title status budget { amount currency } deadline version createdAt } }
      byTitle: projects(titlePrefix: "projections t") { nodes { projectId title } }
      page: projects(status: PLANNING, first: 1) { nodes { title } pageInfo { hasNextPage } }
    }`;
    const projected = await run(server, token, lists);
    expect(projected.body.errors).toBeUndefined();
    expect(projected.body.data.more.nodes.map((p: { title: string }) => p.title)).toEqual(['Projections two', 'Projections']);
    expect(projected.body.data.more.nodes[0].budget).toEqual({ amount: 5, currency: 'EUR' });
    expect(projected.body.data.byTitle.nodes.map((p: { title: string }) => p.title)).toEqual(['Projections two']);
    expect(projected.text).toBe((await run(whole, token, lists)).text);
    // A cursor of a projected index page pages on (cursors are sealed afresh each time, so compared by what they lead to).
    const next = `query($a: String) { projects(status: PLANNING, first: 1, after: $a) { nodes { title } pageInfo { hasNextPage endCursor } } }`;
    const first = await run(server, token, next, { a: null });
    const second = await run(server, token, next, { a: first.body.data.projects.pageInfo.endCursor });
    expect(second.body.data.projects).toMatchObject({ nodes: [{ title: 'Projections' }], pageInfo: { hasNextPage: false } });
  });
});
