import { type Head, type HeadEvents, KnownHeads } from '../../src/events/known-heads';
import { CATCH_UP, createEventBus, type EventBus } from '../../src/infra/pubsub';

/** A stream's events as the bus carries them: `seq` is the position; `done` marks one after which the subject may go. */
interface TestEvent {
  seq: number;
  done?: boolean;
}

const isEvent = (payload: unknown): payload is TestEvent =>
  typeof payload === 'object' && payload !== null && typeof Reflect.get(payload, 'seq') === 'number';

function streamOf(topic: string): HeadEvents {
  return {
    topic,
    livePosition: (payload) => (isEvent(payload) ? payload.seq : undefined),
    makesRemovable: (payload) => isEvent(payload) && payload.done === true,
  };
}

/** The stored head the reads answer with, and how many reads were made. */
function store(head: number) {
  const state = { head, removable: false, reads: 0 };
  return {
    state,
    read: async (): Promise<Head> => {
      state.reads++;
      return { head: state.head, finished: false, removable: state.removable };
    },
  };
}

/** Commits one event: the store's head moves, then the bus carries it (as a writer does). */
async function commit(bus: EventBus, topic: string, db: ReturnType<typeof store>, event: TestEvent) {
  db.state.head = Math.max(db.state.head, event.seq);
  await bus.publish(topic, event);
}

describe('KnownHeads', () => {
  const topic = 'JOB:t1:job_1';
  const events = streamOf(topic);

  it('serves a burst of subscribes from one read, moved on by the live events', async () => {
    const bus = createEventBus();
    const heads = new KnownHeads(bus);
    const db = store(5);
    expect(await heads.headOf(events, null, db.read)).toMatchObject({ head: 5 });
    const burst = await Promise.all(Array.from({ length: 100 }, () => heads.headOf(events, null, db.read)));
    expect(burst.map((h) => h.head)).toEqual(Array(100).fill(5));
    expect(db.state.reads).toBe(1);
    await commit(bus, topic, db, { seq: 6 });
    await commit(bus, topic, db, { seq: 7 });
    expect((await heads.headOf(events, null, db.read)).head).toBe(7);
    // A client resuming at or below the known head needs no read either.
    expect((await heads.headOf(events, 7, db.read)).head).toBe(7);
    expect(db.state.reads).toBe(1);
    expect(heads.served).toBe(102);
    // The known head's listener is the server's own, not a subscriber's: the gauge leaves it out.
    expect(bus.listenerCount()).toBe(0);
    await bus.close();
  });

  it('lets a known head go, its listener and the sweep timer with it, once no subscribe asked for it for a while', async () => {
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
    try {
      const bus = createEventBus();
      const heads = new KnownHeads(bus);
      const db = store(5);
      await heads.headOf(events, null, db.read);
      expect(heads.kept).toBe(1);
      expect(heads.sweeping).toBe(true);
      // Past the idle time (10 s) the sweep closes its listener: a live event then moves nothing,
      // and the next subscribe reads.
      jest.advanceTimersByTime(20_000);
      expect(heads.kept).toBe(0);
      expect(heads.sweeping).toBe(false);
      await heads.headOf(events, null, db.read);
      expect(db.state.reads).toBe(2);
      await bus.close();
    } finally {
      jest.useRealTimers();
    }
  });

  it('makes the subscribes that come while the first read is under way wait for it rather than read', async () => {
    const bus = createEventBus();
    const heads = new KnownHeads(bus);
    const db = store(3);
    const all = await Promise.all(Array.from({ length: 50 }, () => heads.headOf(events, null, db.read)));
    expect(all.map((h) => h.head)).toEqual(Array(50).fill(3));
    expect(db.state.reads).toBe(1);
    await bus.close();
  });

  it('reads again while an event arrived ahead of a gap, and serves again once the gap is filled', async () => {
    const bus = createEventBus();
    const heads = new KnownHeads(bus);
    const db = store(1);
    await heads.headOf(events, null, db.read);
    // Event 3 arrives before event 2 (publishes from two writers): a new listener would never get 3.
    db.state.head = 3;
    await bus.publish(topic, { seq: 3 });
    expect((await heads.headOf(events, null, db.read)).head).toBe(3);
    expect(db.state.reads).toBe(2);
    // The read moved the head past the gap: served again.
    expect((await heads.headOf(events, null, db.read)).head).toBe(3);
    expect(db.state.reads).toBe(2);
    // Once the late event arrives it changes nothing: it is at or below the head.
    await bus.publish(topic, { seq: 2 });
    expect((await heads.headOf(events, null, db.read)).head).toBe(3);
    expect(db.state.reads).toBe(2);
    await bus.close();
  });

  it('checks a position above the known head against a read, which may know more', async () => {
    const bus = createEventBus();
    const heads = new KnownHeads(bus);
    const db = store(4);
    await heads.headOf(events, null, db.read);
    // Committed, and its publish not yet relayed: the client has seq 5 from the mutation's answer.
    db.state.head = 5;
    expect((await heads.headOf(events, 5, db.read)).head).toBe(5);
    expect(db.state.reads).toBe(2);
    await bus.close();
  });

  it('reads again after the bus reconnected (CATCH_UP), after an event that lets the subject be removed, and past its age', async () => {
    const bus = createEventBus();
    const heads = new KnownHeads(bus);
    const db = store(2);
    await heads.headOf(events, null, db.read);
    // The in-process bus never reconnects; Redis hands every listener CATCH_UP when it does.
    await bus.publish(topic, CATCH_UP);
    await heads.headOf(events, null, db.read);
    expect(db.state.reads).toBe(2);
    // A job that failed may be deleted: only a read says whether it still exists.
    db.state.removable = true;
    await commit(bus, topic, db, { seq: 3, done: true });
    await heads.headOf(events, null, db.read);
    await heads.headOf(events, null, db.read);
    expect(db.state.reads).toBe(4);
    await bus.close();

    const aged = new KnownHeads(createEventBus(), 0);
    const other = store(1);
    await aged.headOf(events, null, other.read);
    await aged.headOf(events, null, other.read);
    expect(other.state.reads).toBe(2);
  });

  it('keeps the heads of topics apart', async () => {
    const bus = createEventBus();
    const heads = new KnownHeads(bus);
    const mine = store(9);
    const theirs = store(1);
    await heads.headOf(events, null, mine.read);
    expect((await heads.headOf(streamOf('JOB:t2:job_1'), null, theirs.read)).head).toBe(1);
    expect(theirs.state.reads).toBe(1);
    await bus.close();
  });

  it('gives the read failure to its caller, and lets those who waited for it read for themselves', async () => {
    const bus = createEventBus();
    const heads = new KnownHeads(bus);
    let reads = 0;
    const failing = async (): Promise<Head> => {
      reads++;
      throw new Error('read failed');
    };
    const results = await Promise.allSettled([heads.headOf(events, null, failing), heads.headOf(events, null, failing)]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(reads).toBe(2);
    await bus.close();
  });
});
