import { startRedis } from '../support/redis';
import { msUntil, startOwnDynamo, type OwnDynamo } from '../support/outage';
import { startTestServer, type TestServer } from '../support/server';
import { stopOnPurpose } from '../support/fixtures';

/*
 * Readiness and outages against real parts: a DynamoDB Local of this file's own (own port, own
 * data folder) that the tests freeze (SIGSTOP of its java process), kill (SIGKILL) and restart on
 * the same port; the real server over HTTP on 127.0.0.1.
 */

/*
 * Bounds in this file leave room for a busy 2-core machine: readiness follows DynamoDB within
 * READINESS_TIMEOUT_MS + READINESS_CACHE_MS (here about 4 s) on a quiet one, and the measured figures
 * are printed; the tests allow READINESS_WITHIN_MS. A frozen DynamoDB's attempts are long
 * (ATTEMPT_MS, 4 of them without a budget: 12 s and more), so a query cut by the 2 s budget is
 * told apart from one that waited on the SDK's retries by a loose bound (BUDGET_MS + 5 s).
 */
const BUDGET_MS = 2000;
const ATTEMPT_MS = 3000;
const READINESS_WITHIN_MS = 15_000;

const readyz = async (server: TestServer) => {
  const res = await fetch(new URL('/readyz', server.url));
  return { status: res.status, body: (await res.json()) as any };
};
const healthz = async (server: TestServer) => (await fetch(new URL('/healthz', server.url))).status;

/**
 * Writes succeed (again) once the database answers; resolves with the project written. A DynamoDB
 * Local just started or restarted (a cold JVM) on a busy machine can miss a first write's 2 s
 * deadline; the server then says so with SERVICE_UNAVAILABLE and a retry time, which is what a
 * client acts on, so the client here does the same, within a bounded window, and no other answer
 * is accepted.
 */
async function writesResume(server: TestServer, token: string, title: string): Promise<string> {
  const codes: string[] = [];
  let projectId = '';
  await msUntil(
    async () => {
      const res = await server.raw({ query: `mutation { createProject(input: { title: "${title}" }) { projectId } }` }, token);
      projectId = res.body.data?.createProject?.projectId;
      if (projectId) return true;
      codes.push(res.body.errors?.[0]?.extensions?.code);
      return false;
    },
    20_000,
    `a write after the database answered (${codes.join(', ')})`,
  );
  expect(codes.filter((code) => code !== 'SERVICE_UNAVAILABLE')).toEqual([]);
  return projectId;
}

describe('readiness and dependency outages', () => {
  let dynamo: OwnDynamo;
  let server: TestServer;
  // The server's test clock runs this far ahead of the wall clock: moving it ages readiness's cached result.
  let clockAhead = 0;
  let token: string;

  beforeAll(async () => {
    dynamo = await startOwnDynamo();
    server = await startTestServer({
      now: () => new Date(Date.now() + clockAhead),
      env: {
        DYNAMODB_ENDPOINT: dynamo.endpoint,
        REQUEST_BUDGET_MS: String(BUDGET_MS),
        DYNAMODB_TIMEOUT_MS: String(ATTEMPT_MS),
        // A check's limit of 3 s, not 1: on a loaded machine a live DynamoDB Local's answer can take
        // over a second, and the 200 probes' one shared check would then count it as down. A frozen
        // one still times out, 3 s in.
        READINESS_TIMEOUT_MS: '3000',
      },
    });
    token = await server.token('outage');
  }, 90_000);

  it('reports each check with its state and latency, and /healthz is plain liveness', async () => {
    // Right after the start a check slower than READINESS_TIMEOUT_MS (a busy machine) counts as down.
    await msUntil(async () => (await readyz(server)).status === 200, READINESS_WITHIN_MS, 'readiness 200 after the start');
    const { status, body } = await readyz(server);
    expect(status).toBe(200);
    expect(body).toEqual({
      status: 'ok',
      checks: {
        dynamodb: { status: 'ok', latencyMs: expect.any(Number) },
        s3: { status: 'ok', latencyMs: expect.any(Number) },
        shutdown: { status: 'ok' },
      },
      checkedAt: expect.any(String),
    });
    expect(await healthz(server)).toBe(200);
  });

  it('shares one check among 200 concurrent probes: at most a couple of DynamoDB calls', async () => {
    clockAhead += 1100; // the cached result expires
    server.app.calls.reset();
    const started = Date.now();
    const answers = await Promise.all(Array.from({ length: 200 }, () => readyz(server)));
    const stormMs = Date.now() - started;
    expect(answers.every((a) => a.status === 200)).toBe(true);
    // The readiness check's call; the outbox sweeper's Query calls run meanwhile and are not counted.
    const calls = server.app.calls.byCommand.get('GetItemCommand') ?? 0;
    console.log(`probe storm: 200 concurrent probes in ${stormMs} ms made ${calls} readiness GetItem call(s)`);
    expect(calls).toBeGreaterThanOrEqual(1);
    // One check per READINESS_CACHE_MS (1 s) however many probes: 1 or 2 unless the storm itself lasts longer.
    expect(calls).toBeLessThanOrEqual(Math.max(2, 1 + Math.ceil(stormMs / 1000)));
  });

  it('with DynamoDB frozen: 503, queries fail within the request budget with SERVICE_UNAVAILABLE and 503 + Retry-After, and 200 again after thawing', async () => {
    const projectId = await writesResume(server, token, 'Before the freeze');
    dynamo.freeze();
    const toDown = await msUntil(async () => (await readyz(server)).status === 503, READINESS_WITHIN_MS, 'readiness 503 after SIGSTOP');
    const down = await readyz(server);
    expect(down.body.status).toBe('unavailable');
    expect(down.body.checks.dynamodb).toEqual({ status: 'down', latencyMs: expect.any(Number), error: 'timeout' });
    expect(await healthz(server)).toBe(200);

    const started = Date.now();
    const res = await fetch(server.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ query: 'query Frozen($p: ID!) { project(projectId: $p) { title } }', variables: { p: projectId } }),
    });
    const text = await res.text();
    const elapsed = Date.now() - started;
    console.log(`frozen DynamoDB: readiness 503 after ${toDown} ms; a query failed after ${elapsed} ms (budget ${BUDGET_MS} ms)`);
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('5');
    const body = JSON.parse(text);
    expect(body.errors[0].extensions.code).toBe('SERVICE_UNAVAILABLE');
    expect(body.errors[0].extensions.retryAfterSeconds).toBe(5);
    expect(elapsed).toBeLessThan(BUDGET_MS + 5000);
    // Nothing about where DynamoDB is or what the SDK said.
    const port = new URL(dynamo.endpoint).port;
    expect(text).not.toContain(port);
    expect(text).not.toMatch(/127\.0\.0\.1|ECONN|Timeout|socket|aws|dynamo/i);
    dynamo.thaw();
    const toUp = await msUntil(async () => (await readyz(server)).status === 200, READINESS_WITHIN_MS, 'readiness 200 after SIGCONT');
    console.log(`frozen DynamoDB: readiness 200 ${toUp} ms after SIGCONT`);
    await writesResume(server, token, 'After the thaw');
  });

  it('with DynamoDB killed: 503 and SERVICE_UNAVAILABLE at once; 200 again once it answers on the same port', async () => {
    dynamo.kill();
    const toDown = await msUntil(async () => (await readyz(server)).status === 503, READINESS_WITHIN_MS, 'readiness 503 after SIGKILL');
    const down = await readyz(server);
    expect(down.body.checks.dynamodb).toEqual({ status: 'down', latencyMs: expect.any(Number), error: 'unreachable' });
    const started = Date.now();
    const res = await server.raw({ query: 'mutation { createProject(input: { title: "while down" }) { projectId } }' }, token);
    const elapsed = Date.now() - started;
    expect(res.status).toBe(503);
    expect(res.body.errors[0].extensions.code).toBe('SERVICE_UNAVAILABLE');
    expect(JSON.stringify(res.body)).not.toMatch(/ECONNREFUSED|127\.0\.0\.1/);

    await dynamo.restart();
    const answered = Date.now();
    const toUp = await msUntil(async () => (await readyz(server)).status === 200, READINESS_WITHIN_MS, 'readiness 200 after restart');
    console.log(
      `killed DynamoDB: readiness 503 after ${toDown} ms; a mutation failed after ${elapsed} ms; readiness 200 ${Date.now() - answered} ms (poll ${toUp} ms) after it answered again`,
    );
    await writesResume(server, token, 'After the restart');
  }, 90_000);
});

describe('readiness with Redis', () => {
  it('checks Redis when REDIS_URL is set, and is 503 while it is gone', async () => {
    const redis = await startRedis();
    let server: TestServer | undefined;
    server = await startTestServer({ env: { REDIS_URL: redis.url, READINESS_CACHE_MS: '0' } });
    const up = await readyz(server);
    expect(up.status).toBe(200);
    expect(up.body.checks.redis).toEqual({ status: 'ok', latencyMs: expect.any(Number) });
    await stopOnPurpose(redis);
    const ms = await msUntil(async () => (await readyz(server!)).status === 503, READINESS_WITHIN_MS, 'readiness 503 without Redis');
    expect((await readyz(server)).body.checks.redis.status).toBe('down');
    console.log(`Redis stopped: readiness 503 after ${ms} ms`);
  });
});
