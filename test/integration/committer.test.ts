import { AppError, ErrorCode } from '../../src/errors';
import { CursorCodec } from '../../src/infra/cursor';
import { runWithBudget } from '../../src/infra/deadline';
import {
  type AggregateIO,
  type AggregateType,
  type CommitStore,
  Committer,
  type DecisionState,
  maxBackoffMs,
  Stale,
} from '../../src/infra/dynamo/committer';
import { DynamoStore, type Store, type TransactOutcome } from '../../src/infra/dynamo/store';
import { put, streamEvent, type Write } from '../../src/infra/dynamo/write';
import { freshTable, type TestTable } from '../support/dynamo';

/** A counter aggregate: its value, the version it was read at, and the commands decided on it since (each appends an event). */
class Counter implements DecisionState {
  constructor(
    readonly value: number,
    readonly version: number,
    readonly added: readonly string[] = [],
  ) {}
  get size(): number {
    return 1 + 2 * this.added.length;
  }
}

const counterKey = (id: string) => ({ PK: 'TENANT#c', SK: `COUNTER#${id}` });
const headKey = (id: string) => ({ PK: `TENANT#c#COUNTER#${id}`, SK: 'HEAD' });

/** A counter type with its own stats, keeping drained states as `keep` says. */
function counterType(keep?: { ms: number; max: number; maxWeight?: number }, maxRounds = 8): AggregateType<Counter> {
  return {
    maxCommands: 10,
    maxWrites: 90,
    maxRounds,
    rereads: true,
    keepCarried: keep && { ms: keep.ms, max: keep.max, weigh: (s) => s.value, maxWeight: keep.maxWeight ?? 1000 },
    tooBusy: (id) => new AppError(ErrorCode.CONFLICT, `busy ${id}`),
    stats: { batches: 0, intents: 0, conflicts: 0, committed: 0 },
  };
}

/** The counter `id` of `store`'s table: read by key, written conditioned on its version, each command's event on its stream. */
function counterIO(
  store: CommitStore & Pick<Store, 'get'>,
  id: string,
  type: AggregateType<Counter>,
  loads: boolean[] = [],
): AggregateIO<Counter> {
  return {
    type,
    load: async (_refs, carried) => {
      loads.push(carried !== undefined);
      if (carried) return new Counter(carried.value, carried.version);
      const row = await store.get(counterKey(id));
      return new Counter(Number(row?.value ?? 0), Number(row?.version ?? 0));
    },
    units: (state) => {
      const stored = put({ ...counterKey(id), value: state.value, version: state.version + 1 });
      const events = state.added.map((by) =>
        streamEvent(headKey(id), (position) => ({
          PK: headKey(id).PK,
          SK: `EVENT#${String(position).padStart(6, '0')}`,
          eventId: `${id}-${by}`,
          at: new Date().toISOString(),
          by,
        })),
      );
      const write = state.version === 0 ? stored.ifNew(() => new Stale()) : stored.ifVersion(state.version, () => new Stale());
      return [{ writes: [write, ...events], hooks: { invalidate: () => {} } }];
    },
    carry: (state) => new Counter(state.value, state.version + 1),
  };
}

const add = (c: Committer, io: AggregateIO<Counter>, id: string, by: string) =>
  c.submit(id, io, [], (s) => {
    const state = new Counter(s.value + 1, s.version, [...s.added, by]);
    return { state, value: state.value };
  });

/** Adds one and waits until the counter's queue drained (a command resolves a moment before its queue's loop ends). */
async function addAndDrain(c: Committer, io: AggregateIO<Counter>, id: string, by = 'x'): Promise<number> {
  const value = await add(c, io, id, by);
  while (c.stats().queues > 0) await new Promise((r) => setImmediate(r));
  return value;
}

describe('the committer', () => {
  let table: TestTable;
  let n = 0;
  /** A fresh counter id for each use, so tests share the table but not their counters. */
  const fresh = () => `k${++n}`;

  beforeAll(async () => {
    table = await freshTable();
  });

  describe('two instances deciding on one aggregate at once', () => {
    it('lose and repeat no event: every command committed once, the stream gapless, the value exact', async () => {
      const id = fresh();
      // A second instance: its own store client and committer on the same table.
      const other = new DynamoStore(table.dynamo.doc, table.tableName, new CursorCodec('test-cursor-secret'));
      const here = new Committer(table.store);
      const there = new Committer(other);
      const type = counterType(undefined, 16);
      const sent = Array.from({ length: 60 }, (_, i) =>
        i % 2 === 0 ? add(here, counterIO(table.store, id, type), id, `a${i}`) : add(there, counterIO(other, id, type), id, `b${i}`),
      );
      const values = await Promise.all(sent);
      expect(new Set(values).size).toBe(60);
      expect(Math.max(...values)).toBe(60);
      const events = await table.store.queryAll({ pk: headKey(id).PK, skPrefix: 'EVENT#' });
      expect(events.map((e) => e.position)).toEqual(Array.from({ length: 60 }, (_, i) => i + 1));
      expect(events.map((e) => String(e.by)).sort()).toEqual(Array.from({ length: 60 }, (_, i) => `${i % 2 === 0 ? 'a' : 'b'}${i}`).sort());
      expect((await table.store.get(counterKey(id)))?.value).toBe(60);
      // Both instances grouped their commands: far fewer transactions than commands.
      expect(type.stats.batches).toBeLessThan(60);
      expect(here.stats()).toMatchObject({ queues: 0, waiting: 0, turns: 0 });
      expect(there.stats()).toMatchObject({ queues: 0, waiting: 0, turns: 0 });
    });
  });

  describe('its retry bound', () => {
    /**
     * A store whose every transaction is cancelled as conflicting: a fault DynamoDB Local cannot be
     * made to give on demand, so it is injected here. Its reads find nothing and take no time, so
     * the rounds' own sleeps are all the time a command takes.
     */
    function alwaysConflicting(): CommitStore & Pick<Store, 'get'> & { sent: number } {
      const faulty = {
        sent: 0,
        get: async () => null,
        batchGet: async (keys: readonly { PK: string; SK: string }[]) => keys.map(() => null),
        transactOnce: async (): Promise<TransactOutcome> => {
          faulty.sent++;
          return { reason: 'conflict', error: new Error('TransactionConflict') };
        },
      };
      return faulty;
    }

    it('answers the type’s tooBusy after exactly maxRounds transactions, within the stated worst case', async () => {
      const faulty = alwaysConflicting();
      const type = counterType(undefined, 8);
      const id = fresh();
      const started = performance.now();
      await expect(add(new Committer(faulty), counterIO(faulty, id, type), id, 'x')).rejects.toMatchObject({
        extensions: { code: 'CONFLICT' },
        message: `busy ${id}`,
      });
      const elapsed = performance.now() - started;
      expect(faulty.sent).toBe(8);
      // The sleeps are at most maxBackoffMs(8); the rest is each round's timer firing late on a busy machine.
      expect(elapsed).toBeLessThanOrEqual(maxBackoffMs(8) + 8 * 50);
      expect(type.stats.conflicts).toBe(8);
    });

    it('stops at its request budget’s end, whatever rounds are left', async () => {
      const faulty = alwaysConflicting();
      const type = counterType(undefined, 10_000);
      const id = fresh();
      const started = performance.now();
      await expect(runWithBudget(300, () => add(new Committer(faulty), counterIO(faulty, id, type), id, 'x'))).rejects.toMatchObject({
        extensions: { code: 'CONFLICT' },
      });
      // It never sleeps past the budget's end; the slack is timers firing late on a busy machine.
      expect(performance.now() - started).toBeLessThanOrEqual(300 + 150);
      expect(faulty.sent).toBeGreaterThan(1);
    });

    it('states a worst case that grows with the rounds and is capped per round', () => {
      expect(maxBackoffMs(1)).toBe(0);
      expect(maxBackoffMs(16)).toBeGreaterThan(maxBackoffMs(8));
      // The figures the committer's comment states.
      expect(maxBackoffMs(16)).toBe(2622);
      expect(maxBackoffMs(18)).toBe(3072);
    });
  });

  describe('a plain entity’s change decided on its group’s read (decideUnit)', () => {
    const itemKey = (id: string) => ({ PK: 'TENANT#c', SK: `ITEM#${id}` });
    const hooks = { invalidate: () => {} };
    /** Adds one to item `id`'s count on whatever version the group read, conditioned on it (Stale when it moved). */
    const increment = (c: Committer, id: string, decisions: { n: number }) =>
      c.decideUnit(
        headKey(id),
        [itemKey(id)],
        ([item]) => {
          decisions.n++;
          const version = Number(item?.version ?? 0);
          const next = put({ ...itemKey(id), count: Number(item?.count ?? 0) + 1, version: version + 1 });
          return {
            writes: [version === 0 ? next.ifNew(() => new Stale()) : next.ifVersion(version, () => new Stale())],
            value: Number(item?.count ?? 0) + 1,
          };
        },
        hooks,
      );

    it('reads and decides again when another instance moved the item: of 40 increments from two instances none lost or repeated', async () => {
      const id = fresh();
      const other = new DynamoStore(table.dynamo.doc, table.tableName, new CursorCodec('test-cursor-secret'));
      const here = new Committer(table.store);
      const there = new Committer(other);
      const decisions = { n: 0 };
      const values = await Promise.all(Array.from({ length: 40 }, (_, i) => increment(i % 2 === 0 ? here : there, id, decisions)));
      expect([...values].sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
      expect((await table.store.get(itemKey(id)))?.count).toBe(40);
      // Each instance's queue took its increments of the one item a group at a time (two in one
      // transaction would write it twice), and the two instances raced: decided again, never lost.
      expect(decisions.n).toBeGreaterThan(40);
      expect(here.stats()).toMatchObject({ queues: 0, waiting: 0, turns: 0 });
      expect(there.stats()).toMatchObject({ queues: 0, waiting: 0, turns: 0 });
    });

    it('answers CONTENDED after exactly the stream queue’s 18 rounds when the item moves before every commit, within the stated worst case', async () => {
      // A store whose item has always moved by the time the transaction reaches it: a race no
      // real writer can be timed to win every round, so its failed condition is injected here.
      const moving = {
        sent: 0,
        batchGet: async (keys: readonly { PK: string; SK: string }[]) => keys.map((key) => ({ ...key, count: 1, version: 1 })),
        transactOnce: async (writes: readonly Write[]): Promise<TransactOutcome> => {
          moving.sent++;
          const failed = writes.find((w) => w.conditional);
          throw failed?.onConditionFailed?.({ PK: 'TENANT#c', SK: 'ITEM#moved', version: 2 }) ?? new Error('no condition');
        },
      };
      const decisions = { n: 0 };
      const started = performance.now();
      await expect(increment(new Committer(moving), fresh(), decisions)).rejects.toMatchObject({ extensions: { code: 'CONTENDED' } });
      expect(moving.sent).toBe(18);
      expect(decisions.n).toBe(18);
      expect(performance.now() - started).toBeLessThanOrEqual(maxBackoffMs(18) + 18 * 50);
    });
  });

  describe('a drained aggregate’s carried state', () => {
    /** A committer whose kept states age by a clock the test moves. */
    function withClock() {
      const clock = { now: 0 };
      return { clock, committer: new Committer(table.store, () => clock.now) };
    }

    it('serves the aggregate’s next command after its queue drained, within the time kept, and is then dropped', async () => {
      const { clock, committer: c } = withClock();
      const type = counterType({ ms: 1000, max: 8 });
      const loads: boolean[] = [];
      const id = fresh();
      const io = counterIO(table.store, id, type, loads);
      expect(await addAndDrain(c, io, id)).toBe(1);
      expect(c.keptStates).toBe(1);
      expect(await addAndDrain(c, io, id)).toBe(2);
      expect(loads).toEqual([false, true]);
      // Past the time kept, the next command reads the aggregate again.
      clock.now += 1001;
      expect(await addAndDrain(c, io, id)).toBe(3);
      expect(loads).toEqual([false, true, false]);
      expect(await table.store.get(counterKey(id))).toMatchObject({ value: 3, version: 3 });
    });

    it('keeps states for `max` aggregates at most, the most recently drained, and release drops them all', async () => {
      const { committer: c } = withClock();
      const type = counterType({ ms: 60_000, max: 2 });
      const loads = new Map<string, boolean[]>();
      const ids = [fresh(), fresh(), fresh()];
      const io = (id: string) => counterIO(table.store, id, type, loads.get(id) ?? loads.set(id, []).get(id));
      for (const id of ids) await addAndDrain(c, io(id), id);
      expect(c.keptStates).toBe(2);
      await addAndDrain(c, io(ids[0]), ids[0]);
      await addAndDrain(c, io(ids[2]), ids[2]);
      expect(loads.get(ids[0])).toEqual([false, false]);
      expect(loads.get(ids[2])).toEqual([false, true]);
      c.release();
      expect(c.keptStates).toBe(0);
      await addAndDrain(c, io(ids[2]), ids[2]);
      expect(loads.get(ids[2])?.at(-1)).toBe(false);
    });

    it('keeps states weighing `maxWeight` at most together, dropping the least recently drained, and none heavier alone', async () => {
      const { committer: c } = withClock();
      const type = counterType({ ms: 60_000, max: 8, maxWeight: 3 });
      const loads: boolean[] = [];
      const [a, b, cc] = [fresh(), fresh(), fresh()];
      const io = (id: string) => counterIO(table.store, id, type, id === b ? loads : []);
      // a and b weigh 1 each; then a weighs 2: b and a together weigh 3.
      for (const id of [a, b, a]) await addAndDrain(c, io(id), id);
      expect(c.keptStates).toBe(2);
      // c weighs 1: the least recently kept (b) goes to stay within 3.
      await addAndDrain(c, io(cc), cc);
      expect(c.keptStates).toBe(2);
      // b was dropped (read afresh; it weighs 2 now), then b weighs 3 (c goes), then 4: heavier
      // than all may weigh, so it is not kept at all.
      for (let i = 0; i < 4; i++) await addAndDrain(c, io(b), b);
      expect(loads.slice(-4)).toEqual([false, true, true, false]);
      expect(c.keptStates).toBe(0);
    });

    it('decides again on a read when the kept state is stale (another writer moved the aggregate)', async () => {
      const { committer: c } = withClock();
      const type = counterType({ ms: 60_000, max: 2 });
      const loads: boolean[] = [];
      const id = fresh();
      const io = counterIO(table.store, id, type, loads);
      await addAndDrain(c, io, id);
      // Another instance commits meanwhile.
      await table.store.transact([put({ ...counterKey(id), value: 10, version: 2 }).ifVersion(1)]);
      expect(await addAndDrain(c, io, id)).toBe(11);
      expect(loads).toEqual([false, true, false]);
      expect(type.stats.conflicts).toBe(1);
    });

    it('keeps nothing without keepCarried', async () => {
      const { committer: c } = withClock();
      const type = counterType();
      const loads: boolean[] = [];
      const id = fresh();
      const io = counterIO(table.store, id, type, loads);
      await addAndDrain(c, io, id);
      await addAndDrain(c, io, id);
      expect(c.keptStates).toBe(0);
      expect(loads).toEqual([false, false]);
    });
  });
});
