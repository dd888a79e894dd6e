import { startTestServer, type TestServer } from '../support/server';
import { wsClient } from '../support/ws';

/*
 * Client mistakes over HTTP (issue 32) get a 4xx under application/graphql-response+json (200
 * under application/json, as every request error does by the GraphQL-over-HTTP spec), a stable
 * code that is not INTERNAL, and a message that says what was wrong and what is allowed.
 */

const RESPONSE_JSON = 'application/graphql-response+json';
const JOB_PROGRESS = 'subscription Watch { jobProgress(jobId: "job_00000000000000000000000000") { seq type } }';

describe('client mistakes over HTTP', () => {
  let server: TestServer;
  let token: string;
  beforeAll(async () => {
    server = await startTestServer();
    token = await server.token('mistakes');
  });

  /** A GET of /graphql with `params` in its query string. */
  async function get(params: Record<string, string>, accept?: string) {
    const url = new URL(server.url);
    for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
    const res = await fetch(url, { headers: { authorization: `Bearer ${token}`, ...(accept ? { accept } : {}) } });
    const body: any = await res.json();
    return { status: res.status, contentType: res.headers.get('content-type'), allow: res.headers.get('allow'), body };
  }

  it('answers a path nothing is served at with a JSON 404 that names /graphql, not Express\'s "Cannot GET /" page', async () => {
    // `/` is where a newcomer's browser goes first; the others are guesses at GraphiQL's address.
    for (const [method, path] of [
      ['GET', '/'],
      ['GET', '/graphiql'],
      ['POST', '/api/graphql'],
    ] as const) {
      const res = await fetch(new URL(path, server.url), { method, headers: { accept: 'text/html' } });
      const answer = { method, path, status: res.status, type: res.headers.get('content-type') };
      expect(answer).toEqual({ method, path, status: 404, type: 'application/json; charset=utf-8' });
      const body: any = await res.json();
      expect(body.errors).toEqual([
        {
          message: `Nothing is served at ${path}. GraphQL is at /graphql (open it in a browser for GraphiQL; the job board is at /jobs).`,
          extensions: { code: 'NOT_FOUND' },
        },
      ]);
    }
  });

  it('refuses a JSON body whose bytes are not UTF-8 with a 400 that says so, on every route that reads one, and runs nothing', async () => {
    // A Latin-1 "é" (0xE9) inside a title: decoded, it became U+FFFD and the project was made with a
    // title its client never sent.
    const body = Buffer.concat([
      Buffer.from('{"query":"mutation($t: String!) { createProject(input: { title: $t }) { projectId } }","variables":{"t":"caf'),
      Buffer.from([0xe9]),
      Buffer.from('"}}'),
    ]);
    const before = await server.raw({ query: '{ projects(first: 100) { nodes { projectId } } }' }, token);
    // The route's own reader (a plain request), body-parser (a Content-Encoding sends it there), SSE.
    for (const headers of [{}, { 'content-encoding': 'identity' }, { accept: 'text/event-stream' }] as Record<string, string>[]) {
      const res = await fetch(server.url, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers },
        body,
      });
      const answer: any = { headers, status: res.status, body: await res.json() };
      expect(answer).toMatchObject({ headers, status: 400, body: { errors: [{ extensions: { code: 'BAD_REQUEST' } }] } });
      expect(answer.body.errors[0].message).toMatch(/not valid UTF-8/);
    }
    const after = await server.raw({ query: '{ projects(first: 100) { nodes { projectId } } }' }, token);
    expect(after.body.data.projects.nodes).toEqual(before.body.data.projects.nodes);
  });

  it('refuses a subscription sent as a plain HTTP request, by POST or GET, before it runs, naming WebSocket and SSE', async () => {
    const expectRefused = (body: { data?: unknown; errors: Array<{ message: string; extensions: Record<string, unknown> }> }) => {
      // Nothing ran: no data at all, not a null field.
      expect(body.data).toBeUndefined();
      expect(body.errors).toHaveLength(1);
      expect(body.errors[0].extensions.code).toBe('SUBSCRIPTION_NEEDS_STREAM');
      expect(body.errors[0].message).toMatch(/WebSocket \(graphql-ws/);
      expect(body.errors[0].message).toMatch(/SSE .*Accept: text\/event-stream/);
    };
    const posted = await server.raw({ query: JOB_PROGRESS }, token, { accept: RESPONSE_JSON });
    expect(posted.status).toBe(400);
    expectRefused(posted.body);
    // Under application/json a request error is a 200, as for a query that does not validate.
    const plain = await server.raw({ query: JOB_PROGRESS }, token);
    expect(plain.status).toBe(200);
    expectRefused(plain.body);

    const got = await get({ query: JOB_PROGRESS }, RESPONSE_JSON);
    expect(got).toMatchObject({ status: 400, allow: null });
    expect(got.contentType).toMatch(/^application\/graphql-response\+json/);
    expectRefused(got.body);
    // A mutation by GET keeps Apollo's 405 with Allow: POST, which is the way to send it.
    const mutation = await get({ query: 'mutation { createProject(input: { title: "x" }) { projectId } }' }, RESPONSE_JSON);
    expect(mutation).toMatchObject({ status: 405, allow: 'POST' });
  });

  it('answers a query over the cost limit as a validation error, without "Syntax Error", with the limit and the cost', async () => {
    // Within the page bound of 100, but 100 projects with 100 logs each is far over the cost limit.
    const query = '{ projects(first: 100) { nodes { logs(first: 100) { logId materials } } } }';
    const res = await server.raw({ query }, token, { accept: RESPONSE_JSON });
    expect(res.status).toBe(400);
    const [error] = res.body.errors;
    expect(error.extensions).toMatchObject({ code: 'GRAPHQL_VALIDATION_FAILED', limit: 'cost', max: server.config.limits.maxCost });
    expect(error.extensions.found).toBeGreaterThan(server.config.limits.maxCost);
    expect(error.message).not.toMatch(/Syntax Error/);
    expect(error.message).toMatch(new RegExp(`cost limit of ${server.config.limits.maxCost} exceeded`, 'i'));
    expect(error.message).toMatch(/first/);
    // A fractional cost (a project's title weighs 2 + 1.5) is reported as the number it is.
    const fractional = await server.raw({ query: query.replace('} } } }', '} } } project(projectId: "proj_x") { title } }') }, token);
    expect(fractional.body.errors[0].extensions).toMatchObject({ limit: 'cost', found: error.extensions.found + 3.5 });
  });

  it('refuses a number the table cannot store with BAD_USER_INPUT naming the field and the number, over HTTP and WebSocket, writing nothing', async () => {
    const made = await server.raw({ query: 'mutation { createProject(input: { title: "Numbers" }) { projectId } }' }, token);
    const projectId = made.body.data.createProject.projectId;
    const refusal = (field: string, value: number) => [
      expect.objectContaining({
        message: expect.stringContaining(`${field} holds the number ${value}, which cannot be stored`),
        extensions: expect.objectContaining({ code: 'BAD_USER_INPUT', field, reason: 'NUMBER_OUT_OF_RANGE', value }),
      }),
    ];
    // DynamoDB's marshaller refused the first (past 2^53) and DynamoDB the second (below 1e-130), as INTERNAL.
    const createJob =
      'mutation($p: ID!, $v: JSON) { createJob(input: { projectId: $p, kind: "FREE", steps: ["a"], inputs: $v }) { jobId } }';
    for (const value of [1e20, 5e-324]) {
      const res = await server.raw({ query: createJob, variables: { p: projectId, v: { size: [1, value] } } }, token);
      expect(res.body.errors).toEqual(refusal('inputs', value));
    }
    const client = wsClient(server.url, token);
    const answer = await new Promise<any>((resolve, reject) => {
      const query = 'mutation($c: JSONObject) { createProject(input: { title: "More numbers", customFields: $c }) { projectId } }';
      client.subscribe({ query, variables: { c: { n: -1e300 } } }, { next: resolve, error: reject, complete: () => {} });
    });
    expect(answer.errors).toEqual(refusal('customFields', -1e300));
    // Inside a declared object (a budget's amount), and a field name the table refuses or the SDK misreads.
    const budget = await server.raw(
      { query: 'mutation { createProject(input: { title: "More numbers", budget: { amount: 1e308, currency: "USD" } }) { projectId } }' },
      token,
    );
    expect(budget.body.errors).toEqual(refusal('budget', 1e308));
    for (const name of ['', 'constructor', '__proto__']) {
      const log = await server.raw(
        {
          query: 'mutation($p: ID!, $e: JSONObject) { createLog(projectId: $p, input: { rawText: "x", extracted: $e }) { logId } }',
          variables: JSON.parse(`{"p": ${JSON.stringify(projectId)}, "e": {"colour": {${JSON.stringify(name)}: {"a": 1}}}}`),
        },
        token,
      );
      expect(log.body.errors).toEqual([
        expect.objectContaining({
          extensions: expect.objectContaining({ code: 'BAD_USER_INPUT', field: 'extracted', reason: 'JSON_KEY_NOT_STORABLE', key: name }),
        }),
      ]);
    }
    expect((await server.raw({ query: `{ logs(projectId: "${projectId}") { logId } }` }, token)).body.data.logs).toEqual([]);
    const listed = await server.raw(
      { query: `{ jobs(projectId: "${projectId}") { nodes { jobId } } projects(first: 100) { nodes { title } } }` },
      token,
    );
    expect(listed.body.data.jobs.nodes).toEqual([]);
    expect(listed.body.data.projects.nodes.map((p: { title: string }) => p.title)).not.toContain('More numbers');
  });

  it('refuses a titlePrefix longer than any title with BAD_USER_INPUT, where the index refused its key as INTERNAL', async () => {
    for (const prefix of ['a'.repeat(201), '\u{1F600}'.repeat(300)]) {
      const res = await server.raw(
        { query: 'query($t: String) { projects(titlePrefix: $t) { nodes { projectId } } }', variables: { t: prefix } },
        token,
      );
      expect(res.body.errors).toEqual([
        expect.objectContaining({ extensions: expect.objectContaining({ code: 'BAD_USER_INPUT', field: 'titlePrefix' }) }),
      ]);
    }
    const longest = await server.raw(
      { query: 'query($t: String) { projects(titlePrefix: $t) { nodes { projectId } } }', variables: { t: 'a'.repeat(200) } },
      token,
    );
    expect(longest.body).toEqual({ data: { projects: { nodes: [] } } });
  });

  it('answers a document over the token limit naming the limit, its setting and what to do, over HTTP and WebSocket', async () => {
    const query = `{ ${Array.from({ length: 300 }, (_, n) => `a${n}: project(projectId: "p") { title }`).join(' ')} }`;
    const expected = {
      message: `The document has more than ${server.config.limits.maxTokens} tokens, the limit (MAX_TOKENS): every name, brace, alias and value counts. Send fewer fields or aliases, or split the query.`,
      extensions: expect.objectContaining({ code: 'GRAPHQL_PARSE_FAILED', limit: 'tokens', max: server.config.limits.maxTokens }),
    };
    const res = await server.raw({ query }, token, { accept: RESPONSE_JSON });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([expect.objectContaining(expected)]);
    const client = wsClient(server.url, token);
    const errors = await new Promise<unknown>((resolve) => {
      client.subscribe({ query }, { next: () => resolve('data'), error: resolve, complete: () => resolve('complete') });
    });
    expect(errors).toEqual([expect.objectContaining(expected)]);
  });

  it('answers a page size out of 1–100 written in the query as the same value in a variable is answered, before the cost limit', async () => {
    const byVariable = await server.raw(
      { query: 'query($n: Int) { projects(first: $n) { nodes { projectId } } }', variables: { n: 100000 } },
      token,
    );
    const variableMessage = byVariable.body.errors[0].message;
    expect(variableMessage).toBe('first must be between 1 and 100, got 100000.');

    const inline = await server.raw({ query: '{ projects(first: 100000) { nodes { projectId title } } }' }, token, {
      accept: RESPONSE_JSON,
    });
    expect(inline.status).toBe(400);
    // One error, the page size's: the cost it would have had is beside the point.
    expect(inline.body.errors).toHaveLength(1);
    expect(inline.body.errors[0]).toMatchObject({
      message: variableMessage,
      extensions: { code: 'GRAPHQL_VALIDATION_FAILED', field: 'first' },
    });
    const backward = await server.raw({ query: '{ projects(last: 0) { nodes { projectId } } }' }, token);
    expect(backward.body.errors[0].message).toBe('last must be between 1 and 100, got 0.');
  });
});
