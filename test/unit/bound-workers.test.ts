import { BoundWorkers, type HandBack } from '../../src/events/bound-workers';
import type { HeldUnit } from '../../src/job/job.repository';
import { waitFor } from '../support/wait';

/*
 * A server that stops while it hands back a lost worker's units waits for those hand-backs (at
 * most as long as it is told), before the store and the outbox they go through are stopped. The
 * hand-back here is a function the test answers when it chooses: a stop that falls inside the few
 * milliseconds of a real hand-back's read and transaction cannot be timed with the real parts, so
 * the command is stood in for, and only the registry's own accounting is under test (the real
 * hand-back is worker-push.test.ts's).
 */
describe('bound workers at shutdown', () => {
  const unit = (sequence: number): HeldUnit => ({ tenantId: 't', jobId: 'job_1', stage: 'process', sequence, attempt: 1 });

  /** A registry whose worker `w` lost its connection holding `units`, each handed back through `handBack` once the grace (5 ms) ran out. */
  async function lostWorker(handBack: HandBack, units: HeldUnit[]) {
    const workers = new BoundWorkers();
    workers.graceMs = 5;
    workers.joined('w');
    for (const u of units) expect(workers.hold('w', u, handBack)).toBe(true);
    workers.left('w', true);
    await waitFor(async () => workers.handingBack === units.length, 'the hand-backs under way', { everyMs: 2 });
    return workers;
  }

  it('waits for the hand-backs under way, and holds nothing once they are answered', async () => {
    let answer!: () => void;
    const answered = new Promise<void>((resolve) => {
      answer = resolve;
    });
    const workers = await lostWorker(async () => {
      await answered;
      return true;
    }, [unit(1)]);
    // The worker's record is gone; its hand-back is what the registry still holds.
    expect({ count: workers.count, held: workers.held, handingBack: workers.handingBack }).toEqual({ count: 1, held: 0, handingBack: 1 });
    let closed: number | undefined;
    const closing = workers.close(60_000).then((left) => {
      closed = left;
    });
    // The window is the assertion: close() must not settle while the hand-back goes unanswered, and
    // nothing but its answer could end the wait, so no event marks the end of the window.
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(closed).toBeUndefined();
    answer();
    await closing;
    expect(closed).toBe(0);
    expect(workers.count).toBe(0);
  });

  it('waits no longer than it is told: a hand-back still unanswered is counted, and still held until it is', async () => {
    let answer!: () => void;
    const answered = new Promise<void>((resolve) => {
      answer = resolve;
    });
    const workers = await lostWorker(async () => {
      await answered;
      return true;
    }, [unit(1), unit(2)]);
    const started = performance.now();
    expect(await workers.close(50)).toBe(2);
    expect(performance.now() - started).toBeGreaterThanOrEqual(45);
    expect(workers.count).toBe(2);
    answer();
    await waitFor(async () => workers.count === 0, 'the hand-backs answered', { everyMs: 2 });
  });

  it('answers at once when no hand-back is under way', async () => {
    const workers = new BoundWorkers();
    workers.joined('w');
    expect(workers.hold('w', unit(1), async () => true)).toBe(true);
    expect(await workers.close(60_000)).toBe(0);
    expect({ count: workers.count, held: workers.held }).toEqual({ count: 0, held: 0 });
  });
});
