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
