import { auditServer } from 'graphql-http';
import { CreateJobDocument, CreateProjectDocument, StartStepDocument } from '../../src/client/gql/graphql';
import { JSON_INPUT_LIMITS, VARIABLES_MAX_DEPTH } from '../../src/common/json-limits';
import { captureLogs } from '../support/logs';
import { dataOf, Role, startTestServer, type TestServer } from '../support/server';
import { waitFor } from '../support/wait';

const JSON_TYPE = 'application/json';
const GRAPHQL_RESPONSE_TYPE = 'application/graphql-response+json';

/** A JSON object nested `depth` levels deep, written as text so that no recursive stringify is needed. */
function nestedJson(depth: number): string {
  return `${'{"a":'.repeat(depth - 1)}{"leaf":"deep secret"}${'}'.repeat(depth - 1)}`;
}

/** The same as a GraphQL input literal. */
function nestedLiteral(depth: number): string {
  return `${'{ a: '.repeat(depth - 1)}{ leaf: "deep" }${' }'.repeat(depth - 1)}`;
}

interface Answer {
  status: number;
  headers: Headers;
  body: any;
}

/** POSTs a raw body (text or a value to stringify) and returns the status, headers and parsed body. */
async function post(
  server: TestServer,
  body: unknown,
  options: { token?: string; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const res = await fetch(server.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
      ...options.headers,
    },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // Not JSON: the test looks at the text.
  }
  return { status: res.status, headers: res.headers, body: parsed };
}

/**
 * The log line of request `requestId`, awaited for at most two seconds: it may be written after the
 * client has its answer.
 */
const logLine = (logs: ReturnType<typeof captureLogs>, requestId: string | null) =>
  waitFor(async () => logs.entries().find((e) => e.requestId === requestId), `the log line of request ${requestId}`, {
    ms: 2000,
    everyMs: 20,
  });

describe('GraphQL over HTTP', () => {
  let server: TestServer;
  let token: string;

  beforeAll(async () => {
    server = await startTestServer();
    token = await server.token('semantics');
  });

  it('passes graphql-http’s audit of the spec with no MUST or SHOULD failure', async () => {
    // The audit is a well-behaved client: it sends a valid token, as every real client does.
    const results = await auditServer({
      url: server.url,
      fetchFn: (input: string | URL | Request, init: RequestInit = {}) => {
        const headers = new Headers(init.headers);
        headers.set('authorization', `Bearer ${token}`);
        return fetch(input, { ...init, headers });
      },
    });
    expect(results.length).toBeGreaterThan(50);
    const failures = results.filter((r) => r.status !== 'ok');
    const required = failures.filter((r) => !r.name.startsWith('MAY')).map((r) => `${r.id} ${r.name}: ${'reason' in r ? r.reason : ''}`);
    expect(required).toEqual([]);
    // CSRF prevention is off by default (bearer tokens only), so even the optional GET behaviours pass.
    expect(failures.map((r) => r.name)).toEqual([]);
  });

  // Each class of request error, its code, and the status the spec asks for under each media type.
  const cases: Array<{ what: string; code: string; body: () => unknown; json: number; graphqlResponse: number; token?: () => string }> = [
    {
      what: 'a syntax error',
      code: 'GRAPHQL_PARSE_FAILED',
      body: () => ({ query: '{ viewer { tenantId ' }),
      json: 200,
      graphqlResponse: 400,
    },
    {
      what: 'a document over the token limit',
      code: 'GRAPHQL_PARSE_FAILED',
      body: () => ({ query: `{ viewer { ${'tenantId '.repeat(1200)} } }` }),
      json: 200,
      graphqlResponse: 400,
    },
    {
      what: 'an unknown field',
      code: 'GRAPHQL_VALIDATION_FAILED',
      body: () => ({ query: '{ viewer { nope } }' }),
      json: 200,
      graphqlResponse: 400,
    },
    {
      what: 'a query over the depth limit',
      code: 'GRAPHQL_VALIDATION_FAILED',
      body: () => ({ query: '{ projects { nodes { logs { assets { linkedLog { assets { linkedLog { logId } } } } } } } }' }),
      json: 200,
      graphqlResponse: 400,
    },
    {
      what: 'a missing required variable',
      code: 'BAD_USER_INPUT',
      body: () => ({ query: 'query($id: ID!) { project(projectId: $id) { title } }' }),
      json: 200,
      graphqlResponse: 400,
    },
    {
      what: 'a variable of the wrong type',
      code: 'BAD_USER_INPUT',
      body: () => ({ query: 'query($n: Int) { projects(first: $n) { nodes { title } } }', variables: { n: 'many' } }),
      json: 200,
      graphqlResponse: 400,
    },
    {
      what: 'variables nested 10,000 levels deep',
      code: 'BAD_USER_INPUT',
      body: () =>
        `{"query":"mutation($i: CreateProjectInput!) { createProject(input: $i) { projectId } }","variables":{"i":${nestedJson(10_000)}}}`,
      json: 200,
      graphqlResponse: 400,
    },
    {
      what: 'a bad token',
      code: 'UNAUTHENTICATED',
      body: () => ({ query: '{ viewer { tenantId } }' }),
      token: () => 'not.a.jwt',
      json: 401,
      graphqlResponse: 401,
    },
  ];

  for (const c of cases) {
    it(`answers ${c.what} with ${c.code}: ${c.json} under ${JSON_TYPE}, ${c.graphqlResponse} under ${GRAPHQL_RESPONSE_TYPE}`, async () => {
      for (const [accept, status] of [
        [JSON_TYPE, c.json],
        [GRAPHQL_RESPONSE_TYPE, c.graphqlResponse],
        [undefined, c.json],
      ] as const) {
        const res = await post(server, c.body(), { token: c.token?.() ?? token, headers: accept ? { accept } : {} });
        expect({ accept, status: res.status }).toEqual({ accept, status });
        expect(res.headers.get('content-type')).toContain(accept ?? JSON_TYPE);
        expect(res.body.data).toBeUndefined();
        expect(res.body.errors[0].extensions.code).toBe(c.code);
      }
    });
  }

  it('answers a request without a token with UNAUTHENTICATED and 401 under both media types', async () => {
    for (const accept of [JSON_TYPE, GRAPHQL_RESPONSE_TYPE]) {
      const res = await post(server, { query: '{ viewer { tenantId } }' }, { headers: { accept } });
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ data: null, errors: [{ extensions: { code: 'UNAUTHENTICATED' } }] });
    }
  });

  it('answers a field error (the operation ran) with 200 under both media types', async () => {
    for (const accept of [JSON_TYPE, GRAPHQL_RESPONSE_TYPE]) {
      const res = await post(
        server,
        { query: 'mutation { createProject(input: { title: "" }) { projectId } }' },
        { token, headers: { accept } },
      );
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ data: null, errors: [{ extensions: { code: 'BAD_USER_INPUT', field: 'title' } }] });
    }
  });

  it('answers other client mistakes with 4xx, never 5xx', async () => {
    const batched = await post(server, [{ query: '{ viewer { tenantId } }' }, { query: '{ viewer { tenantId } }' }], { token });
    expect(batched.status).toBe(400);
    const noQuery = await post(server, { variables: {} }, { token });
    expect(noQuery.status).toBe(400);
    const notJson = await post(server, '{"query": ', { token });
    expect(notJson.status).toBe(400);
    expect(notJson.body.errors[0].extensions.code).toBe('BAD_REQUEST');
    const latin1 = await post(server, '{"query":"{ viewer { tenantId } }"}', {
      token,
      headers: { 'content-type': 'application/json; charset=latin1' },
    });
    expect(latin1.status).toBe(415);
    expect(latin1.body.errors[0].extensions.code).toBe('BAD_REQUEST');
    const plain = await post(server, '{"query":"{ viewer { tenantId } }"}', { token, headers: { 'content-type': 'text/plain' } });
    expect(plain.status).toBe(400);
    const unacceptable = await post(server, { query: '{ viewer { tenantId } }' }, { token, headers: { accept: 'text/csv' } });
    expect(unacceptable.status).toBe(406);
    const mutationByGet = await fetch(
      `${server.url}?query=${encodeURIComponent('mutation { createProject(input: { title: "x" }) { projectId } }')}`,
      {
        headers: { authorization: `Bearer ${token}`, 'apollo-require-preflight': 'true' },
      },
    );
    expect(mutationByGet.status).toBe(405);
  });
});

describe('JSON-scalar input limits', () => {
  let server: TestServer;
  let token: string;
  const createProject = 'mutation($i: CreateProjectInput!) { createProject(input: $i) { projectId customFields } }';

  beforeAll(async () => {
    server = await startTestServer();
    token = await server.token('json-limits');
  });

  it(`keeps a value nested ${JSON_INPUT_LIMITS.maxDepth} levels deep`, async () => {
    const customFields = JSON.parse(nestedJson(JSON_INPUT_LIMITS.maxDepth));
    const res = await post(server, { query: createProject, variables: { i: { title: 'deep enough', customFields } } }, { token });
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.createProject.customFields).toEqual(customFields);
  });

  it.each([JSON_INPUT_LIMITS.maxDepth + 1, 32, VARIABLES_MAX_DEPTH - 2])(
    'refuses customFields nested %i levels (in variables) with BAD_USER_INPUT naming it and the limit',
    async (depth) => {
      const res = await post(
        server,
        `{"query":"${createProject}","variables":{"i":{"title":"too deep","customFields":${nestedJson(depth)}}}}`,
        { token },
      );
      expect(res.status).toBe(200);
      expect(res.body.errors).toHaveLength(1);
      expect(res.body.errors[0].extensions).toMatchObject({
        code: 'BAD_USER_INPUT',
        field: 'customFields',
        reason: 'JSON_TOO_DEEP',
        limit: JSON_INPUT_LIMITS.maxDepth,
      });
      expect(res.body.errors[0].message).toBe(
        `customFields is nested more than ${JSON_INPUT_LIMITS.maxDepth} levels deep; at most ${JSON_INPUT_LIMITS.maxDepth} levels are allowed.`,
      );
    },
  );

  it('refuses an over-deep inline literal the same way', async () => {
    const res = await post(
      server,
      { query: `mutation { createProject(input: { title: "literal", customFields: ${nestedLiteral(40)} }) { projectId } }` },
      { token },
    );
    expect(res.body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'customFields', reason: 'JSON_TOO_DEEP' });
  });

  it('refuses an oversized value, naming the argument and the byte limit', async () => {
    const customFields = { notes: 'x'.repeat(JSON_INPUT_LIMITS.maxBytes) };
    const res = await post(server, { query: createProject, variables: { i: { title: 'too big', customFields } } }, { token });
    expect(res.body.errors[0].extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      field: 'customFields',
      reason: 'JSON_TOO_LARGE',
      limit: JSON_INPUT_LIMITS.maxBytes,
    });
    expect(res.body.errors[0].message).toContain(`${JSON_INPUT_LIMITS.maxBytes} bytes`);
  });

  it('refuses over-deep metrics of reportStepProgress before the job is touched', async () => {
    const worker = await server.token('json-limits', [Role.WORKER], 'gpu');
    const projectId = dataOf(await server.request(CreateProjectDocument, { input: { title: 'jobs' } }, token)).createProject.projectId;
    const job = dataOf(
      await server.request(CreateJobDocument, { input: { projectId, kind: 'PHOTO_EDIT', steps: ['edit'] } }, token),
    ).createJob;
    dataOf(await server.request(StartStepDocument, { jobId: job.jobId, stepName: 'edit' }, worker));
    const query =
      'mutation($j: ID!, $m: JSONObject) { reportStepProgress(jobId: $j, stepName: "edit", progress: 0.5, metrics: $m) { seq } }';
    const res = await post(server, `{"query":${JSON.stringify(query)},"variables":{"j":"${job.jobId}","m":${nestedJson(33)}}}`, {
      token: worker,
    });
    expect(res.body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'metrics', reason: 'JSON_TOO_DEEP' });
    // The refused report left no trace: the job is still at the version startStep gave it.
    const after = await post(server, { query: `{ job(jobId: "${job.jobId}") { seq progress } }` }, { token });
    expect(after.body.data.job).toEqual({ seq: job.seq + 1, progress: 0 });
  });

  it('refuses variables nested 10,000 levels deep without a stack overflow, a stack trace or an error line, and keeps serving', async () => {
    const logs = captureLogs();
    const res = await post(server, `{"query":"${createProject}","variables":{"i":${nestedJson(10_000)}}}`, { token });
    expect(res.status).toBe(200);
    expect(res.body.errors).toEqual([
      {
        message: `Variable "$i" is nested more than ${VARIABLES_MAX_DEPTH} levels deep; at most ${VARIABLES_MAX_DEPTH} levels are allowed.`,
        extensions: {
          code: 'BAD_USER_INPUT',
          variable: 'i',
          reason: 'JSON_TOO_DEEP',
          limit: VARIABLES_MAX_DEPTH,
          requestId: res.headers.get('x-request-id'),
        },
      },
    ]);
    const line = await logLine(logs, res.headers.get('x-request-id'));
    expect(line).toMatchObject({ level: 30, outcome: 'BAD_USER_INPUT', status: 200 });
    expect(logs.entries().filter((e) => Number(e.level) >= 40)).toEqual([]);
    expect(logs.lines.join('')).not.toMatch(/stack|deep secret|\n\s+at /);
    const still = await post(server, { query: '{ viewer { tenantId } }' }, { token });
    expect(still.body).toEqual({ data: { viewer: { tenantId: 'json-limits' } } });
  });
});

describe('request ids and the request log line', () => {
  let server: TestServer;
  let token: string;

  beforeAll(async () => {
    server = await startTestServer();
    token = await server.token('logging');
  });

  it('returns the caller’s x-request-id in the header and in every error', async () => {
    const res = await post(
      server,
      { query: '{ viewer { nope } viewer { alsoNope } }' },
      { token, headers: { 'x-request-id': 'req-123.abc:7' } },
    );
    expect(res.headers.get('x-request-id')).toBe('req-123.abc:7');
    expect(res.body.errors.length).toBeGreaterThan(1);
    for (const error of res.body.errors) expect(error.extensions.requestId).toBe('req-123.abc:7');
  });

  it('replaces a missing, too long or unsafe x-request-id with a generated one', async () => {
    const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
    const seen = new Set<string>();
    for (const header of [undefined, 'x'.repeat(129), 'evil\tid', 'a b', 'id"}{']) {
      const res = await post(
        server,
        { query: '{ viewer { tenantId } }' },
        { token, headers: header === undefined ? {} : { 'x-request-id': header } },
      );
      expect(res.status).toBe(200);
      const id = res.headers.get('x-request-id')!;
      expect(id).toMatch(uuid);
      seen.add(id);
    }
    expect(seen.size).toBe(5);
  });

  it('puts the request id on errors from every stage: body, Apollo’s checks, context, parse, execution', async () => {
    const id = (res: Answer) => res.headers.get('x-request-id');
    const answers = [
      await post(server, '{"query": ', { token }),
      await post(server, [{ query: '{ viewer { tenantId } }' }], { token }),
      await post(server, { query: '{ viewer { tenantId } }' }, { token: 'not.a.jwt' }),
      await post(server, { query: '{' }, { token }),
      await post(server, { query: 'mutation { createProject(input: { title: "" }) { projectId } }' }, { token }),
    ];
    for (const res of answers) {
      expect(id(res)).toBeTruthy();
      expect(res.body.errors[0].extensions.requestId).toBe(id(res));
    }
  });

  it('logs one line per request at info with id, operation, duration, outcome and status, and no variables or query text', async () => {
    const logs = captureLogs();
    const longName = `Create${'Very'.repeat(30)}LongName`;
    const query = `mutation ${longName}($i: CreateProjectInput!) { createProject(input: $i) { projectId } }`;
    const ok = await post(
      server,
      { query, variables: { i: { title: 'TOP-SECRET-TITLE', medium: 'private medium' } } },
      { token, headers: { 'x-request-id': 'log-ok' } },
    );
    expect(ok.body.errors).toBeUndefined();
    const failed = await post(
      server,
      { query: 'query Broken { viewer { nope } }', variables: { secret: 'TOP-SECRET-VARIABLE' } },
      { token, headers: { 'x-request-id': 'log-failed', accept: GRAPHQL_RESPONSE_TYPE } },
    );
    expect(failed.status).toBe(400);

    const line = await logLine(logs, 'log-ok');
    expect(Object.keys(line).sort()).toEqual([
      'durationMs',
      'level',
      'msg',
      'operationName',
      'operationType',
      'outcome',
      'requestId',
      'status',
      'time',
    ]);
    expect(line).toMatchObject({
      level: 30,
      msg: 'graphql request',
      operationType: 'mutation',
      operationName: longName.slice(0, 64),
      outcome: 'OK',
      status: 200,
    });
    expect(typeof line.durationMs).toBe('number');
    expect(line.durationMs as number).toBeGreaterThanOrEqual(0);

    const failedLine = await logLine(logs, 'log-failed');
    expect(failedLine).toMatchObject({
      operationType: 'query',
      operationName: 'Broken',
      outcome: 'GRAPHQL_VALIDATION_FAILED',
      status: 400,
    });

    // Exactly one line each, and nothing the caller wrote (variables, query text) in any line.
    expect(logs.entries().filter((e) => e.requestId === 'log-ok')).toHaveLength(1);
    expect(logs.entries().filter((e) => e.requestId === 'log-failed')).toHaveLength(1);
    expect(logs.lines.join('')).not.toMatch(/TOP-SECRET|private medium|createProject|nope/);
  });

  it('logs a request whose body could not be read, with its status', async () => {
    const logs = captureLogs();
    const res = await post(server, '{"query": ', { token, headers: { 'x-request-id': 'log-bad-body' } });
    expect(res.status).toBe(400);
    const line = await logLine(logs, 'log-bad-body');
    expect(line).toMatchObject({ operationType: null, operationName: null, outcome: 'BAD_REQUEST', status: 400 });
  });
});

describe('error responses in production', () => {
  let server: TestServer;
  let token: string;

  beforeAll(async () => {
    // Production refuses the embedded S3; these tests touch no file, so a bucket that is never reached will do.
    server = await startTestServer({ env: { NODE_ENV: 'production', S3_BUCKET: 'unused', S3_ENDPOINT: 'http://127.0.0.1:9' } });
    token = await server.token('prod-errors');
  });

  it('carries no stack trace for any class of error', async () => {
    const answers = [
      await post(server, { query: '{' }, { token }),
      await post(server, { query: '{ viewer { nope } }' }, { token }),
      await post(server, { query: 'query($id: ID!) { project(projectId: $id) { title } }' }, { token }),
      await post(server, { query: '{ viewer { tenantId } }' }, { token: 'not.a.jwt' }),
      await post(server, '{"query": ', { token }),
      await post(server, { query: 'mutation { createProject(input: { title: "" }) { projectId } }' }, { token }),
      await post(
        server,
        `{"query":"mutation($i: CreateProjectInput!) { createProject(input: $i) { projectId } }","variables":{"i":${nestedJson(5000)}}}`,
        { token },
      ),
    ];
    for (const res of answers) {
      expect(res.status).toBeLessThan(500);
      expect(res.body.errors.length).toBeGreaterThan(0);
      for (const error of res.body.errors) expect(error.extensions.stacktrace).toBeUndefined();
      expect(JSON.stringify(res.body)).not.toMatch(/\bat .*\.(js|ts):\d+/);
    }
  });
});
