import { startRedis } from '../support/redis';
import { msUntil, startOwnDynamo, type OwnDynamo } from '../support/outage';
import { rowsOfTenant, startPostgresOfServer } from '../support/postgres';
import { sample, scrape } from '../support/prometheus';
import { startTestServer, type TestServer } from '../support/server';
import { registerFixture, stopOnPurpose } from '../support/fixtures';

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
 * Polls /readyz until it answers `status`, within READINESS_WITHIN_MS; resolves with that answer
 * and how long it took. The answer is the one that had the status: a later probe runs its checks
 * anew (at once with READINESS_CACHE_MS 0), and on a busy machine one of them can time out again.
 */
async function readyzUntil(server: TestServer, status: number, what: string) {
  let answer: Awaited<ReturnType<typeof readyz>> | undefined;
  const ms = await msUntil(async () => (answer = await readyz(server)).status === status, READINESS_WITHIN_MS, what);
  return { ...answer!, ms };
}

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
    const { body } = await readyzUntil(server, 200, 'readiness 200 after the start');
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
    await server.resetCalls();
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
    const { ms: toDown, ...down } = await readyzUntil(server, 503, 'readiness 503 after SIGSTOP');
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
    const { ms: toDown, ...down } = await readyzUntil(server, 503, 'readiness 503 after SIGKILL');
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
    const server = await startTestServer({ env: { REDIS_URL: redis.url, READINESS_CACHE_MS: '0' } });
    // Awaited, not read once: right after the start a check slower than READINESS_TIMEOUT_MS (1 s;
    // DynamoDB's GetItem on a busy machine) counts as down, and readiness is 503 for that.
    const up = await readyzUntil(server, 200, 'readiness 200 after the start');
    expect(up.body.checks.redis).toEqual({ status: 'ok', latencyMs: expect.any(Number) });
    await stopOnPurpose(redis);
    const { ms } = await readyzUntil(server, 503, 'readiness 503 without Redis');
    expect((await readyz(server)).body.checks.redis.status).toBe('down');
    console.log(`Redis stopped: readiness 503 after ${ms} ms`);
  });
});

describe('readiness on PostgreSQL, and a PostgreSQL crash and restart under writers', () => {
  it('reports the store and the LISTEN connection, answers SERVICE_UNAVAILABLE (never INTERNAL) while PostgreSQL is down, loses no acknowledged write, makes none twice, and counts LISTEN and NOTIFY', async () => {
    // A cluster of this test's own: the run's shared one serves other files and cannot be stopped
    // for one. Its commits are acknowledged once their WAL is written, as on a real deployment.
    const { env, cluster } = await startPostgresOfServer({ durableCommits: true });
    const server = await startTestServer({ store: 'postgres', env: { ...env, READINESS_CACHE_MS: '0' } });
    const token = await server.token('pg-restart');
    const counted = async (command: string, outcome: string) =>
      sample((await scrape(new URL('/metrics', server.url).toString())).exposition, 'artissist_postgres_calls_total', { command, outcome });
    expect((await readyzUntil(server, 200, 'readiness 200 on PostgreSQL')).body.checks).toEqual({
      postgres: { status: 'ok', latencyMs: expect.any(Number) },
      postgresListen: { status: 'ok', latencyMs: expect.any(Number) },
      s3: { status: 'ok', latencyMs: expect.any(Number) },
      shutdown: { status: 'ok' },
    });

    // Four writers, each creating projects one after another with titles of their own, until told
    // to stop. A write answered with data is acknowledged; any other answer is kept by its code.
    const acknowledged = new Set<string>();
    const attempted = new Set<string>();
    const codes: string[] = [];
    let writing = true;
    let down = false;
    const whileDown: string[] = [];
    const writers = Array.from({ length: 4 }, async (_, w) => {
      for (let i = 0; writing; i++) {
        const title = `w${w}-${i}`;
        attempted.add(title);
        const res = await server.raw({ query: `mutation { createProject(input: { title: "${title}" }) { projectId } }` }, token);
        if (res.body.data?.createProject?.projectId) {
          acknowledged.add(title);
          continue;
        }
        const code = res.body.errors?.[0]?.extensions?.code ?? `HTTP ${res.status}`;
        codes.push(code);
        if (down) whileDown.push(code);
        // A client's pause before its retry (Retry-After says 5 s; a test's client is impatient).
        await new Promise((r) => setTimeout(r, 50));
      }
    });
    const acknowledgedBy = (n: number, what: string) => msUntil(async () => acknowledged.size >= n, 20_000, what);
    // However the test ends, the writers stop before the server does.
    registerFixture('the writers', async () => {
      writing = false;
      await Promise.allSettled(writers);
    });
    await acknowledgedBy(20, 'writes acknowledged before the crash');

    await cluster.crash();
    // Started again below; should the test fail before, the registry starts it so that its database can be dropped.
    const startAgain = registerFixture('PostgreSQL started again', () => cluster.start());
    down = true;
    await msUntil(async () => (await readyz(server)).status === 503, READINESS_WITHIN_MS, 'readiness 503 with PostgreSQL down');
    const report = (await readyz(server)).body;
    expect(report.checks.postgres.status).toBe('down');
    expect(report.checks.postgresListen.status).toBe('down');
    await msUntil(async () => whileDown.length >= 4, 20_000, 'writes refused while PostgreSQL is down');
    // Every LISTEN connection attempt while down failed, and was counted.
    await msUntil(async () => (await counted('LISTEN', 'unreachable')) >= 1, 20_000, 'a failed LISTEN counted');
    down = false;

    await startAgain();
    const before = acknowledged.size;
    await msUntil(async () => (await readyz(server)).status === 200, READINESS_WITHIN_MS, 'readiness 200 after the restart');
    await acknowledgedBy(before + 20, 'writes acknowledged after the restart');
    writing = false;
    await Promise.all(writers);

    // The server told each refusal as an outage: SERVICE_UNAVAILABLE, never INTERNAL.
    expect(codes.length).toBeGreaterThanOrEqual(4);
    expect(codes.filter((code) => code !== 'SERVICE_UNAVAILABLE')).toEqual([]);
    // Every acknowledged write is stored, once; a refused one (its answer may have been lost with the
    // connection) is stored at most once; nothing else is stored.
    const titles = (await rowsOfTenant(env.DATABASE_URL, 'pg-restart')).filter((row) => row.table === 'projects').map((row) => row.title);
    expect(titles.length).toBe(new Set(titles).size);
    expect(titles.filter((title) => !attempted.has(String(title)))).toEqual([]);
    expect([...acknowledged].filter((title) => !titles.includes(title))).toEqual([]);
    // The LISTEN connection came back (a second LISTEN), and events went out by NOTIFY.
    expect(await counted('LISTEN', 'ok')).toBeGreaterThanOrEqual(2);
    expect(await counted('NOTIFY', 'ok')).toBeGreaterThan(0);
    console.log(
      `PostgreSQL crash under 4 writers: ${acknowledged.size} writes acknowledged (all stored once), ${codes.length} refused with SERVICE_UNAVAILABLE, ${titles.length - acknowledged.size} of them stored`,
    );
  }, 90_000);
});
