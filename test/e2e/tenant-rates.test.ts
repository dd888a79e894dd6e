/**
 * @alone Runs while no other file runs (test/support/turns.ts): it holds a busy tenant's latency
 * against a quiet one's, which another file's load on the same cores would bend.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import { signDevToken } from '../../src/auth/jwt';
import { Role } from '../../src/auth/principal';
import { testEndpoint } from '../support/dynamo';
import { gqlAt, startInstance, type Instance } from '../support/instances';
import { startRedis, type RedisServer } from '../support/redis';
import { fixture } from '../support/fixtures';
import { TEST_SECRET } from '../support/server';
import { eventually, metricValue, settledOf, subscribe, wsClient } from '../support/ws';

/*
 * Per-tenant rate budgets held across instances: two server processes share DynamoDB and Redis,
 * and each tenant's budget is one count in Redis. The flood is open-loop (sent on a clock, not
 * after answers) and bounded in count and time; the figures it measures are printed.
 */

const secret = new TextEncoder().encode(TEST_SECRET);
const token = (tenantId: string, sub: string, roles: Role[] = [Role.EDITOR]) => signDevToken(secret, { sub, tenantId, roles });

/** A's budget: operations a second, across both instances. */
const A_RATE = 10;
/** The flood: ten times A's budget, for this long. */
const FLOOD_SECONDS = 8;
/** The tolerances: the admitted rate within ±10 % of the budget, B's p50 within 1.5× its quiet run. */
const RATE_TOLERANCE = 0.1;
const LATENCY_FACTOR = 1.5;

const READ = '{ projects(first: 10) { nodes { projectId title } } }';

interface Answer {
  status: number;
  retryAfter: string | null;
  code?: string;
  sentAt: number;
  ms: number;
}

/** One GraphQL POST; the status, Retry-After, first error code, and when it was sent and how long it took. */
async function post(url: string, bearer: string, query: string): Promise<Answer> {
  const sentAt = performance.now();
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${bearer}` },
    body: JSON.stringify({ query }),
    signal: AbortSignal.timeout(30_000),
  });
  const body = (await res.json()) as { errors?: Array<{ extensions?: { code?: string } }> };
  return {
    status: res.status,
    retryAfter: res.headers.get('retry-after'),
    code: body.errors?.[0]?.extensions?.code,
    sentAt,
    ms: performance.now() - sentAt,
  };
}

/**
 * The flood's client, run in a process of its own so that sending and answering hundreds of
 * requests a second does not slow the event loop of the test process, which measures B's latency.
 * It sends `perSecond` requests a second for `seconds`, open-loop (in ticks of 50 ms, whatever the
 * answers), alternating between the URLs and bearers, and prints every answer as JSON.
 */
const FLOOD_CLIENT = `
const [urls, bearers, query, perSecond, seconds] = JSON.parse(process.argv[1]);
const post = async (url, bearer) => {
  const sentAt = performance.now();
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer ' + bearer },
    body: JSON.stringify({ query }),
    signal: AbortSignal.timeout(30000),
  });
  const body = await res.json();
  return { status: res.status, retryAfter: res.headers.get('retry-after'), code: body.errors?.[0]?.extensions?.code, sentAt, ms: performance.now() - sentAt, url };
};
const sent = [];
const started = performance.now();
for (let tick = 0; tick < seconds * 20; tick++) {
  const wait = started + tick * 50 - performance.now();
  if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  for (let i = 0; i < perSecond / 20; i++) {
    const n = sent.length;
    sent.push(post(urls[n % urls.length], bearers[n % bearers.length]));
  }
}
process.stdout.write(JSON.stringify(await Promise.all(sent)));
`;

interface FloodAnswer extends Answer {
  url: string;
}

/** Runs FLOOD_CLIENT in a child process; resolves with its answers (in the order sent). */
function flood(urls: string[], bearers: string[], query: string, perSecond: number, seconds: number): Promise<FloodAnswer[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--input-type=module', '-e', FLOOD_CLIENT, JSON.stringify([urls, bearers, query, perSecond, seconds])],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    let err = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (err += c));
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`the flood client exited with ${code}: ${err}`)),
    );
  });
}

/** A client at a normal pace: one request every `gapMs` (after the previous answer), alternating between `urls`, until `until()`. */
async function paced(urls: string[], bearer: string, query: string, gapMs: number, until: () => boolean): Promise<Answer[]> {
  const answers: Answer[] = [];
  while (!until()) {
    answers.push(await post(urls[answers.length % urls.length], bearer, query));
    await new Promise((r) => setTimeout(r, gapMs));
  }
  return answers;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};

describe('per-tenant rate budgets across two instances and Redis', () => {
  let redis: RedisServer;
  let one: Instance;
  let two: Instance;
  let urls: string[];
  /** A client of the instances' Redis, to see when a budget's window has ended. */
  let counts: Redis;

  /**
   * Resolves once the window of `budget` for `key` has ended: its count (rate-limiter-flexible's
   * key, `artissist:rate:<budget>:<key>`) has expired from Redis. This is what Retry-After tells a
   * client to wait for, awaited as a condition instead of slept for.
   */
  const windowEnded = (budget: string, key: string) =>
    eventually(
      () => counts.exists(`artissist:rate:${budget}:${key}`),
      (n) => n === 0,
      5_000,
    );

  beforeAll(async () => {
    redis = await startRedis();
    counts = fixture('Redis client', new Redis(redis.url), (r) => r.disconnect());
    const env = { DYNAMODB_ENDPOINT: testEndpoint(), TABLE_NAME: `t_${randomUUID().slice(0, 8)}`, REDIS_URL: redis.url };
    // Started at once: each makes the shared table if it is missing, and a second CreateTable is answered as done.
    [one, two] = await Promise.all([startInstance(env), startInstance(env)]);
    urls = [one.url, two.url];
    // The plans are set before any of these tenants sends anything, so no instance holds an older one.
    const admin = await token('ops', 'admin', [Role.ADMIN]);
    const setPlan = 'mutation($t: ID!, $l: PlanLimitsInput) { setTenantPlan(tenantId: $t, plan: FREE, limits: $l) { plan } }';
    for (const [tenantId, limits] of [
      ['rate-a', { requestsPerSecond: A_RATE, userRequestsPerSecond: A_RATE }],
      ['rate-c', { requestsPerSecond: 1 }],
      ['rate-w', { requestsPerSecond: 20, workerRequestsPerSecond: 20 }],
    ] as const) {
      expect((await gqlAt(one.url, admin, setPlan, { t: tenantId, l: limits })).errors).toBeUndefined();
    }
  }, 120_000);

  it("holds A's flood at A's budget across both instances with 429 and Retry-After, while B sees no error and no slowdown", async () => {
    const b = await token('rate-b', 'b-user');
    // A floods from four users, so the tenant's budget (not one user's) is what holds it.
    const aUsers = await Promise.all([1, 2, 3, 4].map((n) => token('rate-a', `a-user-${n}`)));
    // B's quiet runs just before and just after the flood (so a machine that slows down or speeds
    // up meanwhile moves the quiet figure too), and the same pace while A floods.
    for (const url of urls) expect((await post(url, b, READ)).status).toBe(200);
    const quietFor = async (ms: number) => {
      const ends = performance.now() + ms;
      return paced(urls, b, READ, 50, () => performance.now() > ends);
    };
    const before = await quietFor(2_000);
    const flooded = flood(urls, aUsers, READ, 10 * A_RATE, FLOOD_SECONDS);
    const [floodAnswers, busy] = await Promise.all([flooded, paced(urls, b, READ, 50, settledOf(flooded))]);
    const after = await quietFor(2_000);

    // A: everything past its budget is 429 with Retry-After and its own code; nothing else fails.
    const admitted = floodAnswers.filter((a) => a.status === 200 && !a.code);
    const limited = floodAnswers.filter((a) => a.status === 429);
    expect(admitted.length + limited.length).toBe(floodAnswers.length);
    expect(limited.length).toBeGreaterThan(floodAnswers.length / 2);
    for (const a of limited) {
      expect(a.code).toBe('RATE_LIMITED');
      expect(Number(a.retryAfter)).toBeGreaterThanOrEqual(1);
    }
    // The admitted rate: the budget's windows are one second long, each starting with the first
    // request after the last one ended, so admissions come in one burst a window. Measured from the
    // second window's first admission to the last window's first, over the windows in between: a
    // rate over whole windows, whatever the requests' latency and the flood's edges. (The first
    // window starts late by the first read of A's plan, which its first requests wait for.)
    const sentAdmitted = admitted.map((a) => a.sentAt).sort((x, y) => x - y);
    const windowStarts = sentAdmitted.filter((t, i) => i === 0 || t - sentAdmitted[i - 1] > 500);
    const [from, to] = [windowStarts[1], windowStarts[windowStarts.length - 1]];
    const rate = sentAdmitted.filter((t) => t >= from && t < to).length / ((to - from) / 1000);
    const overall = admitted.length / FLOOD_SECONDS;
    expect(windowStarts.length).toBeGreaterThanOrEqual(FLOOD_SECONDS - 1);
    expect(rate).toBeGreaterThanOrEqual(A_RATE * (1 - RATE_TOLERANCE));
    expect(rate).toBeLessThanOrEqual(A_RATE * (1 + RATE_TOLERANCE));
    // Both instances admitted some of it: the budget is one count across them, not one each.
    expect(new Set(admitted.map((a) => a.url)).size).toBe(2);
    // Counted by plan and budget (bounded labels), never by tenant id, on the instances that refused.
    const counted = await Promise.all(urls.map((url) => metricValue(url, 'artissist_tenant_throttled_total{plan="free",budget="tenant"}')));
    expect(counted[0] + counted[1]).toBe(limited.length);

    // B: no error, and its median latency within the tolerance of its quiet run.
    expect(busy.filter((a) => a.status !== 200 || a.code)).toEqual([]);
    // B's quiet p50 is the slower of the two quiet runs around the flood: on two cores that other
    // test files share, the machine's own pace drifts by more than the flood's effect, and the
    // slower run bounds what the machine alone did to B meanwhile.
    const quietP50 = Math.max(median(before.map((a) => a.ms)), median(after.map((a) => a.ms)));
    const busyP50 = median(busy.map((a) => a.ms));
    console.log(
      `A admitted ${rate.toFixed(1)}/s in whole windows (${overall.toFixed(1)}/s over the flood; budget ${A_RATE}/s, sent ${10 * A_RATE}/s; ${limited.length} of ${floodAnswers.length} got 429); B p50 ${quietP50.toFixed(1)} ms quiet, ${busyP50.toFixed(1)} ms under the flood (${(busyP50 / quietP50).toFixed(2)}x, ${busy.length} requests)`,
    );
    expect(busyP50).toBeLessThanOrEqual(quietP50 * LATENCY_FACTOR);
  }, 120_000);

  it('refuses a WebSocket operation past the budget with an error message and keeps the socket open; SSE answers 429 with Retry-After', async () => {
    const c = await token('rate-c', 'c-user');
    // Not lazy: the connection is opened once and kept, so a second connection would show as a close.
    const client = wsClient(one.url, c, { lazy: false });
    let closed = 0;
    client.on('closed', () => closed++);
    // Three at once against a budget of one a second: at least one is refused.
    const burst = [1, 2, 3].map(() => subscribe(client, '{ viewer { tenantId } }'));
    await Promise.all(burst.map((s) => s.done));
    // graphql-ws hands an `error` message's errors to the sink as one array.
    const refused = burst.flatMap((s) => s.errors).flat() as Array<{ message: string; extensions?: Record<string, unknown> }>;
    expect(refused.length).toBeGreaterThanOrEqual(1);
    for (const error of refused) expect(error.extensions).toMatchObject({ code: 'RATE_LIMITED', budget: 'tenant', limit: 1 });
    const wait = Number(refused[0].extensions?.retryAfterSeconds);
    expect(wait).toBeGreaterThanOrEqual(1);

    // The socket stayed open: once the window Retry-After points to has ended, the next operation
    // runs on the same connection.
    await windowEnded('tenant', 'rate-c');
    const next = subscribe(client, '{ viewer { tenantId } }');
    await next.done;
    expect(next.errors).toEqual([]);
    expect(next.received).toEqual([{ tenantId: 'rate-c' }]);
    expect(closed).toBe(0);

    // GraphQL over SSE, three at once: at least one 429 with Retry-After and the code.
    const sse = await Promise.all(
      [1, 2, 3].map(async () => {
        const res = await fetch(two.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'text/event-stream', authorization: `Bearer ${c}` },
          body: JSON.stringify({ query: '{ viewer { tenantId } }' }),
          signal: AbortSignal.timeout(30_000),
        });
        const text = await res.text();
        return { status: res.status, retryAfter: res.headers.get('retry-after'), text };
      }),
    );
    const tooMany = sse.filter((r) => r.status === 429);
    expect(tooMany.length).toBeGreaterThanOrEqual(1);
    for (const r of tooMany) {
      expect(Number(r.retryAfter)).toBeGreaterThanOrEqual(1);
      expect(JSON.parse(r.text).errors[0].extensions.code).toBe('RATE_LIMITED');
    }
    expect(sse.filter((r) => r.status !== 429).every((r) => r.status === 200)).toBe(true);
  }, 60_000);

  it("gives workers' claims a budget of their own: a worker flood does not throttle frontend reads, and the other way round", async () => {
    const editor = await token('rate-w', 'w-editor');
    const workers = await Promise.all([1, 2].map((n) => token('rate-w', `w-worker-${n}`, [Role.WORKER])));
    const CLAIM = 'mutation { claimWork { job { jobId } } }';

    const workersFlooded = flood(urls, workers, CLAIM, 200, 3);
    const [workerFlood, reads] = await Promise.all([workersFlooded, paced(urls, editor, READ, 200, settledOf(workersFlooded))]);
    expect(workerFlood.filter((a) => a.status === 429).length).toBeGreaterThan(0);
    expect(workerFlood.filter((a) => a.status !== 429 && (a.status !== 200 || a.code))).toEqual([]);
    expect(reads.filter((a) => a.status !== 200 || a.code)).toEqual([]);

    // The worker budget's window that the flood exhausted ends first (what its Retry-After points
    // to), so the claims below start on a budget of their own that nothing else draws on.
    expect(workerFlood.filter((a) => a.status === 429).every((a) => Number(a.retryAfter) >= 1)).toBe(true);
    await windowEnded('worker', 'rate-w');
    const readsFlooded = flood(urls, [editor], READ, 200, 3);
    const [readFlood, claims] = await Promise.all([readsFlooded, paced(urls, workers[0], CLAIM, 200, settledOf(readsFlooded))]);
    expect(readFlood.filter((a) => a.status === 429).length).toBeGreaterThan(0);
    expect(claims.filter((a) => a.status !== 200 || a.code)).toEqual([]);
    expect(claims.length).toBeGreaterThan(5);
  }, 60_000);
});
