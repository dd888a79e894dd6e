import { once } from 'node:events';
import { connect } from 'node:net';
import { ApolloServer } from '@apollo/server';
import { testEndpoint } from '../support/dynamo';
import { captureLogs } from '../support/logs';
import { sample, scrape } from '../support/prometheus';
import { startTestServer, type TestServer } from '../support/server';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy';
import { eventually } from '../support/ws';

/*
 * GraphQL POSTs to exactly /graphql take their own route (src/http/graphql-post.ts): a request
 * that will certainly run is executed through the operation pipeline and written the way Apollo
 * Server writes a result; anything else is handed to Apollo. Every other request (a query string,
 * a trailing slash) goes through Express and Apollo as before. Here each request is sent both
 * ways, to the same server, and the two answers must be the same: status, every header but Date,
 * and the body byte for byte. The request id is fixed by the caller so that bodies can be
 * compared. Apollo's own entry point is spied on (not replaced) to show which requests the route
 * answered itself.
 */

const APOLLO_WAY = '?via=apollo';

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

async function send(url: string, body: string, headers: Record<string, string>): Promise<Answer> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
  const answer: Answer = { status: res.status, headers: {}, body: await res.text() };
  res.headers.forEach((value, name) => {
    if (name !== 'date') answer.headers[name] = value;
  });
  return answer;
}

/** Ids a mutation makes are new each time; they are replaced so two runs of one mutation compare. */
const withoutNewIds = (answer: Answer): Answer => ({
  ...answer,
  body: answer.body.replace(/proj_[0-9A-HJKMNP-TV-Z]{26}/g, 'proj_…'),
  headers: { ...answer.headers, 'content-length': 'compared as the body' },
});

describe.each([
  ['development', { NODE_ENV: 'test' }],
  ['production', { NODE_ENV: 'production', S3_BUCKET: 'unused', S3_ENDPOINT: 'http://127.0.0.1:9' }],
])('GraphQL POSTs on their own route answer as Apollo Server does (%s)', (_mode, env) => {
  let server: TestServer;
  let token: string;
  let projectId: string;
  const apolloCalls = jest.spyOn(ApolloServer.prototype, 'executeHTTPGraphQLRequest');

  beforeAll(async () => {
    server = await startTestServer({ env });
    token = await server.token('post-route');
    const created = await server.raw({ query: 'mutation { createProject(input: { title: "Route" }) { projectId } }' }, token);
    projectId = created.body.data.createProject.projectId;
    await server.raw(
      { query: `mutation { createLog(projectId: "${projectId}", input: { materials: ["oil"], timeSpentMinutes: 5 }) { logId } }` },
      token,
    );
  });
  afterEach(() => apolloCalls.mockClear());

  /** Sends `body` both ways and returns the two answers and how many times each way reached Apollo's entry point. */
  async function bothWays(body: unknown, headers: Record<string, string> = {}) {
    const text = typeof body === 'string' ? body : JSON.stringify(body);
    const fixed = { 'x-request-id': 'same-request-id', ...headers };
    apolloCalls.mockClear();
    const route = await send(server.url, text, fixed);
    const routeReachedApollo = apolloCalls.mock.calls.length;
    const apollo = await send(server.url + APOLLO_WAY, text, fixed);
    return { route, apollo, routeReachedApollo, apolloWayReachedApollo: apolloCalls.mock.calls.length - routeReachedApollo };
  }

  const logsQuery = 'query GetProjectLogs($projectId: ID!) { logs(projectId: $projectId) { logId materials timeSpentMinutes } }';

  it('answers a query that runs itself, as Apollo does, under every media type Apollo offers', async () => {
    for (const accept of [
      undefined,
      '*/*',
      'application/json',
      'application/graphql-response+json',
      'application/graphql-response+json, application/json;q=0.9',
    ]) {
      const { route, apollo, routeReachedApollo } = await bothWays(
        { query: logsQuery, variables: { projectId } },
        { authorization: `Bearer ${token}`, ...(accept ? { accept } : {}) },
      );
      expect(routeReachedApollo).toBe(0);
      expect(route).toEqual(apollo);
      expect(JSON.parse(route.body).data.logs).toHaveLength(1);
    }
  });

  it('answers errors raised while running (with their codes, the 401 of UNAUTHENTICATED, masking) as Apollo does', async () => {
    const cases: [string, Record<string, unknown>, string | undefined][] = [
      ['no token', { query: logsQuery, variables: { projectId } }, undefined],
      ['a malformed id', { query: logsQuery, variables: { projectId: 'not-an-id' } }, token],
      [
        'another tenant’s id',
        { query: 'query { log(projectId: "proj_00000000000000000000000000", logId: "log_00000000000000000000000000") { logId } }' },
        token,
      ],
    ];
    for (const [what, body, bearer] of cases) {
      const { route, apollo, routeReachedApollo } = await bothWays(body, bearer ? { authorization: `Bearer ${bearer}` } : {});
      expect({ what, routeReachedApollo }).toEqual({ what, routeReachedApollo: 0 });
      expect({ what, route }).toEqual({ what, route: apollo });
    }
  });

  it('runs a mutation once and answers it as Apollo does', async () => {
    const body = {
      query: 'mutation Make($t: String!) { createProject(input: { title: $t }) { projectId title } }',
      variables: { t: 'Twice' },
    };
    const { route, apollo, routeReachedApollo } = await bothWays(body, { authorization: `Bearer ${token}` });
    expect(routeReachedApollo).toBe(0);
    expect(withoutNewIds(route)).toEqual(withoutNewIds(apollo));
    // Two projects, one for each way: the route ran the mutation exactly once.
    const listed = await server.raw({ query: '{ projects(first: 100) { nodes { title } } }' }, token);
    expect(listed.body.data.projects.nodes.filter((p: { title: string }) => p.title === 'Twice')).toHaveLength(2);
  });

  it('leaves every request it does not run itself to Apollo, which answers it as before', async () => {
    const cases: [string, unknown, Record<string, string>][] = [
      ['a syntax error', { query: '{ logs(' }, {}],
      ['an unknown field', { query: '{ nope }' }, {}],
      ['an unknown operation name', { query: logsQuery, operationName: 'Other', variables: { projectId } }, {}],
      ['a missing variable', { query: logsQuery }, {}],
      ['variables as a string', { query: logsQuery, variables: JSON.stringify({ projectId }) }, {}],
      ['variables as an array', { query: logsQuery, variables: [projectId] }, {}],
      ['extensions as an array', { query: '{ __typename }', extensions: [] }, {}],
      ['no query', { variables: {} }, {}],
      ['a batch', [{ query: '{ __typename }' }], {}],
      ['a persisted query hash', { extensions: { persistedQuery: { version: 1, sha256Hash: 'a'.repeat(64) } } }, {}],
      ['a subscription', { query: 'subscription { jobProgress(jobId: "job_00000000000000000000000000") { actor } }' }, {}],
      ['an Accept it cannot meet', { query: '{ __typename }' }, { accept: 'text/plain' }],
      ['a malformed token', { query: '{ __typename }' }, { authorization: 'Bearer not.a.token' }],
    ];
    for (const [what, body, headers] of cases) {
      const { route, apollo, routeReachedApollo } = await bothWays(body, { authorization: `Bearer ${token}`, ...headers });
      expect({ what, routeReachedApollo }).toEqual({ what, routeReachedApollo: 1 });
      expect({ what, route }).toEqual({ what, route: apollo });
      // A subscription is refused before it runs, both ways alike (not executed into a null field).
      if (what === 'a subscription') {
        const { data, errors } = JSON.parse(route.body);
        expect({ data, codes: errors.map((e: { extensions: { code: string } }) => e.extensions.code) }).toEqual({
          data: undefined,
          codes: ['SUBSCRIPTION_NEEDS_STREAM'],
        });
      }
    }
  });

  it('answers an introspection query as Apollo does: run where introspection is on, refused by Apollo where it is off', async () => {
    const { route, apollo, routeReachedApollo } = await bothWays(
      { query: '{ __schema { queryType { name } } }' },
      { authorization: `Bearer ${token}` },
    );
    expect(route).toEqual(apollo);
    expect(routeReachedApollo).toBe(server.config.introspection ? 0 : 1);
    const { data, errors } = JSON.parse(route.body);
    if (server.config.introspection) expect(data.__schema.queryType.name).toBe('Query');
    else expect(errors.map((e: { extensions: { code: string } }) => e.extensions.code)).toEqual(['GRAPHQL_VALIDATION_FAILED']);
  });

  it('answers a body it cannot read as the Express route does', async () => {
    // The route reads a plain JSON body itself (src/http/json-body.ts), the Express route with
    // body-parser: text that is not a JSON object or array, and a body past the limit.
    for (const body of ['{"query": ', 'x'.repeat(server.config.limits.bodyLimitBytes + 1), ' 5', 'null', '"text"']) {
      const { route, apollo, routeReachedApollo, apolloWayReachedApollo } = await bothWays(body);
      expect([routeReachedApollo, apolloWayReachedApollo]).toEqual([0, 0]);
      expect(route).toEqual(apollo);
      expect(route.status).toBeGreaterThanOrEqual(400);
      expect(route.status).toBeLessThan(500);
    }
  });

  it('reads a JSON body as body-parser does: empty, after whitespace or a byte order mark, an array, each charset and encoding', async () => {
    const query = JSON.stringify({ query: '{ __typename }' });
    const cases: Array<[string, Record<string, string>]> = [
      ['', {}],
      ['\uFEFF', {}],
      ['[]', {}],
      [` \r\n\t${query}`, {}],
      [`\uFEFF${query}`, {}],
      [query, { 'content-type': 'application/json; charset=utf-8' }],
      [query, { 'content-type': 'APPLICATION/JSON' }],
      [query, { 'content-type': 'application/json; charset=latin1' }],
      [query, { 'content-type': 'text/plain' }],
      [query, { 'content-encoding': 'gzip' }],
      [query, { 'content-encoding': 'identity' }],
    ];
    for (const [body, headers] of cases) {
      const { route, apollo } = await bothWays(body, headers);
      expect({ body, headers, answer: route }).toEqual({ body, headers, answer: apollo });
    }
  });
});

describe('the GraphQL POST route, when its client goes away mid-request', () => {
  let proxy: TcpProxy;
  let server: TestServer;
  beforeAll(async () => {
    // DynamoDB through a proxy the test can stall, so the query is still running when the client leaves;
    // a short budget ends the stalled query soon after.
    proxy = await startTcpProxy(testEndpoint());
    server = await startTestServer({ env: { DYNAMODB_ENDPOINT: proxy.url, REQUEST_BUDGET_MS: '1500', DYNAMODB_TIMEOUT_MS: '1000' } });
  });

  it('logs and counts it once as cut, fails nothing after, and keeps serving', async () => {
    const token = await server.token('post-route-cut');
    const metricsUrl = new URL('/metrics', server.url).toString();
    const cut = { http_request_method: 'POST', http_route: '/graphql', http_response_status_code: 'cut' };
    const before = sample((await scrape(metricsUrl)).exposition, 'artissist_http_server_request_duration_seconds_count', cut);
    // DynamoDB calls ended by a request's budget: only requests run under one (the server's sweeps
    // have none, so theirs end as timeouts), so this counts the query below ending.
    const budgetEnded = async () =>
      (await scrape(metricsUrl)).exposition.samples
        .filter((s) => s.name === 'artissist_dynamodb_calls_total' && s.labels.outcome === 'deadline')
        .reduce((sum, s) => sum + s.value, 0);
    const endedBefore = await budgetEnded();
    const logs = captureLogs();
    proxy.hold();
    const abort = new AbortController();
    const request = fetch(server.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ query: 'query Left { projects { nodes { title } } }' }),
      signal: abort.signal,
    }).catch(() => 'aborted');
    // The query waits on the stalled DynamoDB when the client leaves (a call about its tenant: the
    // server's own sweeps may hang on the proxy before the query has arrived).
    await proxy.stalled('TENANT#post-route-cut');
    abort.abort();
    expect(await request).toBe('aborted');
    const requestLines = () => logs.entries().filter((l) => l.msg === 'graphql request');
    const lines = await eventually(requestLines, (found) => found.length > 0, 5000);
    expect(lines[0]).toMatchObject({ operationName: 'Left', outcome: 'CONNECTION_CLOSED' });
    expect(lines[0]).not.toHaveProperty('status');
    // The query itself ends within its budget, long after the client left: its DynamoDB call ends
    // by the budget (counted), and its failure then goes through the route. One more request
    // through the route runs after that, so once it is answered the ended query has done all it
    // would do: still one line (the record is finished once), and nothing on the route failed.
    await eventually(budgetEnded, (n) => n > endedBefore, 10_000);
    expect((await server.raw({ query: 'query After { __typename }' }, token)).body).toEqual({ data: { __typename: 'Query' } });
    expect(requestLines().map((l) => [l.operationName, l.outcome])).toEqual([
      ['Left', 'CONNECTION_CLOSED'],
      ['After', 'OK'],
    ]);
    expect(logs.entries().filter((l) => l.msg === 'request failed')).toEqual([]);
    const after = sample((await scrape(metricsUrl)).exposition, 'artissist_http_server_request_duration_seconds_count', cut);
    expect(after - before).toBe(1);
    // The process and the route carry on.
    expect((await server.raw({ query: '{ __typename }' }, token)).body).toEqual({ data: { __typename: 'Query' } });
  });
  it('drops a plain JSON body its client cuts off halfway: counted once as cut, nothing failed, and the route keeps serving', async () => {
    const token = await server.token('post-route-cut');
    const metricsUrl = new URL('/metrics', server.url).toString();
    const cut = { http_request_method: 'POST', http_route: '/graphql', http_response_status_code: 'cut' };
    const cutCount = async () => sample((await scrape(metricsUrl)).exposition, 'artissist_http_server_request_duration_seconds_count', cut);
    const before = await cutCount();
    const logs = captureLogs();
    // A plain request (application/json, a Content-Length within the limit) whose client sends half
    // its body and goes: the route's own body reader takes it, and must let go of it.
    const { port } = new URL(server.url);
    const socket = connect(Number(port), '127.0.0.1');
    await once(socket, 'connect');
    const body = JSON.stringify({ query: '{ __typename }' });
    socket.write(
      `POST /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\ncontent-type: application/json\r\nauthorization: Bearer ${token}\r\ncontent-length: ${body.length}\r\n\r\n${body.slice(0, 5)}`,
    );
    await new Promise((r) => setImmediate(r));
    socket.destroy();
    expect(await eventually(cutCount, (n) => n > before, 5000)).toBe(before + 1);
    expect((await server.raw({ query: '{ __typename }' }, token)).body).toEqual({ data: { __typename: 'Query' } });
    expect(logs.entries().filter((l) => l.msg === 'request failed')).toEqual([]);
  });
});
