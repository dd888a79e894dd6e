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

describe('list reads ask for what the query reads', () => {
  let whole: TestServer;
  let server: TestServer;
  let proxy: TcpProxy;
  let token: string;
  let projectId: string;
  const logIds: string[] = [];

  const run = async (on: TestServer, query: string, variables: Record<string, unknown> = {}, as = token) => {
    const { status, body } = await on.raw({ query, variables }, as);
    return { status, text: JSON.stringify(body), body };
  };

  beforeAll(async () => {
    whole = await startTestServer({ projectReads: false });
    proxy = await startTcpProxy(testEndpoint());
    server = await startTestServer({ env: { TABLE_NAME: whole.config.tableName, DYNAMODB_ENDPOINT: proxy.url } });
    token = await server.token('proj');
    const created = await run(server, 'mutation { createProject(input: { title: "Projections" }) { projectId } }');
    projectId = created.body.data.createProject.projectId;
    for (let i = 0; i < 3; i++) {
      const log = await run(server, 'mutation($p: ID!, $i: CreateLogInput!) { createLog(projectId: $p, input: $i) { logId } }', {
        p: projectId,
        i: { rawText: `glaze ${i}`, materials: ['oil', `pigment ${i}`], timeSpentMinutes: 20 + i, tags: ['t'] },
      });
      logIds.push(log.body.data.createLog.logId);
    }
    await run(server, 'mutation($p: ID!, $i: CreateAssetInput!) { createAsset(projectId: $p, input: $i) { assetId } }', {
      p: projectId,
      i: { type: 'IMAGE', s3Key: 'tenants/proj/glaze.png', linkedLogId: logIds[0] },
    });
  });

  it('asks DynamoDB for the attributes the fields read, the keys and the version, and nothing more', async () => {
    const from = proxy.sent.length;
    const compiledRuns = server.app.pipeline.queries.counts.runs;
    // Twice: the second run is graphql-jit's compiled query (src/graphql/compiled-queries.ts), whose resolve info is its own.
    for (const _ of [1, 2]) {
      const answer = await run(server, 'query($p: ID!) { logs(projectId: $p, first: 50) { logId timeSpentMinutes } }', { p: projectId });
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
      `query($p: ID!) { logsConnection(projectId: $p) { edges { cursor node { __typename id assets { assetId } } } nodes { rawText } pageInfo { endCursor } } }`,
      { p: projectId },
    );
    expect(queriesOf(proxy, next, '#LOG#').map(projectedOf)).toEqual([
      ['PK', 'SK', 'assetIds', 'entityType', 'expiresAt', 'logId', 'projectId', 'rawText', 'version'],
    ]);
  });

  it('answers a query that asks for more after one that asked for fewer, in the same request, with all it asks for', async () => {
    const query = `query($p: ID!) {
      few: logs(projectId: $p) { logId }
      more: logs(projectId: $p) { logId rawText materials tags timeSpentMinutes mediaRefs version createdAt assets { assetId linkedLog { rawText } } }
      connection: logsConnection(projectId: $p, first: 2) { nodes { logId } }
      fuller: logsConnection(projectId: $p, first: 2) { edges { node { ...Full } } pageInfo { hasNextPage } }
      project(projectId: $p) { logs { logId } assets { assetId linkedLog { logId } } again: logs { ...Full } }
    }
    fragment Full on Log { logId rawText materials id }`;
    const from = proxy.sent.length;
    const projected = await run(server, query, { p: projectId });
    expect(projected.body.errors).toBeUndefined();
    expect(projected.body.data.more.map((l: { rawText: string }) => l.rawText)).toEqual(['glaze 0', 'glaze 1', 'glaze 2']);
    expect(projected.body.data.project.again.map((l: { materials: string[] }) => l.materials[1])).toEqual([
      'pigment 0',
      'pigment 1',
      'pigment 2',
    ]);
    expect(projected.body.data.fuller.edges[1].node.rawText).toBe('glaze 1');
    // Each selection was its own read (the request's page cache keys pages by projection too).
    expect(queriesOf(proxy, from, '#LOG#').length).toBeGreaterThanOrEqual(4);
    const wholeAnswer = await run(whole, query, { p: projectId });
    expect(projected.text).toBe(wholeAnswer.text);
  });

  it('keeps the tenant key prefix: another tenant reads nothing of this one, and its cursors are refused there', async () => {
    const other = await server.token('proj-other', [Role.EDITOR]);
    const list =
      'query($p: ID!, $after: String) { logsConnection(projectId: $p, first: 1, after: $after) { nodes { logId rawText } pageInfo { endCursor } } }';
    const own = await run(server, list, { p: projectId });
    expect(own.body.data.logsConnection.nodes).toEqual([{ logId: logIds[0], rawText: 'glaze 0' }]);
    const from = proxy.sent.length;
    const foreign = await run(server, list, { p: projectId }, other);
    expect(foreign.body.data.logsConnection.nodes).toEqual([]);
    expect(queriesOf(proxy, from, '#LOG#').map((q) => q.ExpressionAttributeValues[':pk'])).toEqual([{ S: 'TENANT#proj-other' }]);
    const replayed = await server.raw(
      { query: list, variables: { p: projectId, after: own.body.data.logsConnection.pageInfo.endCursor } },
      other,
    );
    expect(codeOf(replayed.body)).toBe('BAD_USER_INPUT');
    // The cursor of a projected page pages on in its own tenant.
    const second = await run(server, list, { p: projectId, after: own.body.data.logsConnection.pageInfo.endCursor });
    expect(second.body.data.logsConnection.nodes).toEqual([{ logId: logIds[1], rawText: 'glaze 1' }]);
  });
});
