import { RateBudgets } from '../../src/infra/rate-limits';

/*
 * The arithmetic of a turn's draws taken as one call (RateBudgets.takeTurn), on the in-process
 * counts (no REDIS_URL): each draw gets the answer it would have got alone, in the order drawn.
 * Across instances and Redis it is held by test/e2e/rate-budgets.test.ts.
 */
describe('rate budgets: the draws of one turn taken together', () => {
  it('admits exactly the budget of draws made in one turn, in the order they were drawn, and refuses the rest with the window left', async () => {
    const budgets = new RateBudgets({});
    const answers = await Promise.all(
      Array.from({ length: 7 }, () => budgets.draw([{ budget: 'tenant', key: 'turn-a', points: 4, cost: 1 }])),
    );
    expect(answers.map((a) => a === null)).toEqual([true, true, true, true, false, false, false]);
    for (const refusal of answers.slice(4)) {
      expect(refusal).toMatchObject({ budget: 'tenant', points: 4 });
      expect(refusal?.retryAfterMs).toBeGreaterThan(0);
      expect(refusal?.retryAfterMs).toBeLessThanOrEqual(1000);
    }
  });

  it('weighs each draw by its cost, keeps owners apart, and gives back what the other budgets took for a refused request', async () => {
    const budgets = new RateBudgets({});
    const request = (user: string, cost: number) =>
      budgets.draw([
        { budget: 'tenant', key: 'turn-b', points: 100, cost: 1 },
        { budget: 'user', key: `turn-b:${user}`, points: 100, cost: 1 },
        { budget: 'cost', key: 'turn-b', points: 10, cost },
      ]);
    // One turn: costs 1, 4, 4, 4 against 10: the fourth is over (13). A refused draw still counts in
    // its window, as one consumed alone does (rate-limiter-flexible counts it), so a fifth of 1 in
    // the same turn is refused too (14), as it would have been one call at a time.
    const answers = await Promise.all([request('u2', 1), request('u1', 4), request('u2', 4), request('u1', 4), request('u2', 1)]);
    expect(answers.map((a) => a?.budget ?? null)).toEqual([null, null, null, 'cost', 'cost']);
    // The refused request's tenant and user draws were given back: of u1's budget of 100, 99 are left.
    const next = await Promise.all(
      Array.from({ length: 99 }, () => budgets.draw([{ budget: 'user', key: 'turn-b:u1', points: 100, cost: 1 }])),
    );
    expect(next.every((a) => a === null)).toBe(true);
    expect(await budgets.draw([{ budget: 'user', key: 'turn-b:u1', points: 100, cost: 1 }])).toMatchObject({ budget: 'user' });
  });

  it('leases a large budget ahead of its draws and still admits exactly the budget, one draw at a time and in bursts', async () => {
    // 256 a second: a lease is at most 2 points. Drawn one at a time, each draw in a turn of its
    // own, the leases are used up as they come, so exactly the budget is admitted in the window.
    const budgets = new RateBudgets({});
    const one = { budget: 'tenant', key: 'lease-a', points: 256, cost: 1 };
    const answers: Array<unknown> = [];
    for (let i = 0; i < 270; i++) answers.push(await budgets.draw([one]));
    expect(answers.slice(0, 256).every((a) => a === null)).toBe(true);
    for (const refusal of answers.slice(256)) expect(refusal).toMatchObject({ budget: 'tenant', points: 256 });
    // Bursts of 5 draws of cost 3 (15 points each) against 256, each draw's cost more than a
    // lease's 2 points, so what a lease has left goes to the next call: 17 bursts fit (255), and
    // nothing after them.
    const costly = { budget: 'cost', key: 'lease-b', points: 256, cost: 3 };
    const admitted: boolean[] = [];
    for (let burst = 0; burst < 20; burst++) {
      const turn = await Promise.all(Array.from({ length: 5 }, () => budgets.draw([costly])));
      admitted.push(...turn.map((a) => a === null));
    }
    expect(admitted.filter(Boolean).length).toBe(85);
    expect(admitted.slice(0, 85).every(Boolean)).toBe(true);
  });
});
