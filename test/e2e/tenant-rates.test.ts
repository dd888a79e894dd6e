/**
 * @alone Runs while no other file runs (test/support/turns.ts): it holds a busy tenant's latency
 * against a quiet one's, which another file's load on the same cores would bend.
 * @longSetup Two server instances and Redis in its beforeAll: it starts before the other `@alone`
 * files, so that they run beside it (test/support/sequencer.js).
 */
import { flood, paced, post, READ, startRatedInstances, token } from '../support/rates';
import { metricValue, settledOf } from '../support/ws';

/*
 * A tenant's rate budget held across two instances and Redis while it floods, and what that does to
 * another tenant's latency. The budgets' other behaviours (over WebSocket and SSE, workers' own
 * budget) are in rate-budgets.test, which can run beside other files.
 */

/** A's budget: operations a second, across both instances. */
const A_RATE = 10;
/** The flood: ten times A's budget, for this long. */
const FLOOD_SECONDS = 8;
/** The tolerances: the admitted rate within ±10 % of the budget, B's p50 within 1.5× its quiet run. */
const RATE_TOLERANCE = 0.1;
const LATENCY_FACTOR = 1.5;

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};

describe('per-tenant rate budgets across two instances and Redis', () => {
  let urls: string[];

  beforeAll(async () => {
    ({ urls } = await startRatedInstances({ 'rate-a': { requestsPerSecond: A_RATE, userRequestsPerSecond: A_RATE } }));
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
});
