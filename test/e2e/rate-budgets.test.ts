import { Role } from '../../src/auth/principal';
import { flood, paced, READ, startRatedInstances, token, type RatedInstances } from '../support/rates';
import { settledOf, subscribe, wsClient } from '../support/ws';

/*
 * Per-tenant rate budgets over every transport and for workers, across two instances and Redis:
 * counts of refusals and answers, no latency bound, so this file runs beside others (the latency
 * one is tenant-rates.test, which runs alone).
 */
describe('per-tenant rate budgets on WebSocket and SSE, and for workers', () => {
  let rated: RatedInstances;

  beforeAll(async () => {
    rated = await startRatedInstances({
      'rate-c': { requestsPerSecond: 1 },
      'rate-w': { requestsPerSecond: 20, workerRequestsPerSecond: 20 },
      'rate-s': { requestsPerSecond: 20, userRequestsPerSecond: 20 },
    });
  }, 120_000);

  it('refuses a WebSocket operation past the budget with an error message and keeps the socket open; SSE answers 429 with Retry-After', async () => {
    const c = await token('rate-c', 'c-user');
    // Not lazy: the connection is opened once and kept, so a second connection would show as a close.
    const client = wsClient(rated.one.url, c, { lazy: false });
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
    await rated.windowEnded('tenant', 'rate-c');
    const next = subscribe(client, '{ viewer { tenantId } }');
    await next.done;
    expect(next.errors).toEqual([]);
    expect(next.received).toEqual([{ tenantId: 'rate-c' }]);
    expect(closed).toBe(0);

    // GraphQL over SSE, three at once: at least one 429 with Retry-After and the code.
    const sse = await Promise.all(
      [1, 2, 3].map(async () => {
        const res = await fetch(rated.two.url, {
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

  it("takes a burst of subscribes arriving together at both instances in a few Redis calls, and admits one budget's worth across them", async () => {
    const BUDGET = 20;
    const PER_SOCKET = 20;
    const bearer = await token('rate-s', 's-user');
    // Two sockets on each instance, connected before the burst, so the burst is subscribes alone.
    const clients = [rated.one.url, rated.one.url, rated.two.url, rated.two.url].map((url) => wsClient(url, bearer, { lazy: false }));
    await Promise.all(clients.map((c) => new Promise((resolve) => c.on('connected', resolve))));
    const scriptsBefore = await rated.scriptCalls();
    const burst = clients.flatMap((c) =>
      Array.from({ length: PER_SOCKET }, () => subscribe(c, 'subscription { jobStatusChanges { type position } }')),
    );
    // Each either is acknowledged (SUBSCRIBED) or ends with its refusal.
    const outcomes = await Promise.all(burst.map((s) => Promise.race([s.ack.then(() => 'subscribed'), s.done.then(() => 'refused')])));
    const scripts = (await rated.scriptCalls()) - scriptsBefore;
    const admitted = outcomes.filter((o) => o === 'subscribed').length;
    const refusals = burst.flatMap((s) => s.errors).flat() as Array<{ extensions?: Record<string, unknown> }>;
    console.log(`${burst.length} subscribes at once: ${admitted} admitted, ${scripts} Redis calls`);
    expect(refusals.length).toBe(burst.length - admitted);
    for (const error of refusals) expect(error.extensions).toMatchObject({ code: 'RATE_LIMITED', budget: 'tenant', limit: BUDGET });
    // One count for both instances: the budget a window, two windows at most while the burst is
    // taken. Counts of their own (or a turn's draws admitted together past the count) would admit more.
    expect(admitted).toBeGreaterThanOrEqual(BUDGET);
    expect(admitted).toBeLessThanOrEqual(2 * BUDGET);
    // Drawn one at a time, the burst took one call for each subscribe's tenant budget and two more
    // for each admitted one (its user's and its cost budget): 120 here at least. Drawn a turn at a
    // time, each instance takes the subscribes of one turn in one call a budget.
    expect(scripts).toBeLessThanOrEqual(burst.length / 4);
  }, 60_000);

  it("gives workers' claims a budget of their own: a worker flood does not throttle frontend reads, and the other way round", async () => {
    const editor = await token('rate-w', 'w-editor');
    const workers = await Promise.all([1, 2].map((n) => token('rate-w', `w-worker-${n}`, [Role.WORKER])));
    const CLAIM = 'mutation { claimWork { job { jobId } } }';

    const workersFlooded = flood(rated.urls, workers, CLAIM, 200, 3);
    const [workerFlood, reads] = await Promise.all([workersFlooded, paced(rated.urls, editor, READ, 200, settledOf(workersFlooded))]);
    expect(workerFlood.filter((a) => a.status === 429).length).toBeGreaterThan(0);
    expect(workerFlood.filter((a) => a.status !== 429 && (a.status !== 200 || a.code))).toEqual([]);
    expect(reads.filter((a) => a.status !== 200 || a.code)).toEqual([]);

    // The worker budget's window that the flood exhausted ends first (what its Retry-After points
    // to), so the claims below start on a budget of their own that nothing else draws on.
    expect(workerFlood.filter((a) => a.status === 429).every((a) => Number(a.retryAfter) >= 1)).toBe(true);
    await rated.windowEnded('worker', 'rate-w');
    const readsFlooded = flood(rated.urls, [editor], READ, 200, 3);
    const [readFlood, claims] = await Promise.all([readsFlooded, paced(rated.urls, workers[0], CLAIM, 200, settledOf(readsFlooded))]);
    expect(readFlood.filter((a) => a.status === 429).length).toBeGreaterThan(0);
    expect(claims.filter((a) => a.status !== 200 || a.code)).toEqual([]);
    expect(claims.length).toBeGreaterThan(5);
  }, 60_000);
});
