import { AggregateCommitter, type AggregateIO, type DecisionState, Stale } from '../../src/infra/dynamo/aggregate';

/** A counter aggregate: its state is a number and the version it was read at. */
class Counter implements DecisionState<Counter> {
  constructor(
    public value: number,
    public readonly version: number,
  ) {}
  fork(): Counter {
    return new Counter(this.value, this.version);
  }
  adopt(other: Counter): void {
    this.value = other.value;
  }
  get size(): number {
    return 1;
  }
}

/** One stored counter per id, with the reads and commits made, and whether each read was given a carried state. */
function storedCounters() {
  const stored = new Map<string, { value: number; version: number }>();
  const loads: Array<{ id: string; carried: boolean }> = [];
  const io = (id: string): AggregateIO<Counter> => ({
    load: async (_refs, carried) => {
      loads.push({ id, carried: carried !== undefined });
      if (carried) return new Counter(carried.value, carried.version);
      const row = stored.get(id) ?? { value: 0, version: 0 };
      return new Counter(row.value, row.version);
    },
    commit: async (state) => {
      const row = stored.get(id) ?? { value: 0, version: 0 };
      if (row.version !== state.version) throw new Stale();
      stored.set(id, { value: state.value, version: state.version + 1 });
      return true;
    },
    carry: (state) => new Counter(state.value, state.version + 1),
  });
  return { stored, loads, io };
}

/** A committer keeping drained states for `ms`, `max` of them, each weighing its counter's value, `maxWeight` together. */
const committer = (keep?: { ms: number; max: number; maxWeight?: number }) =>
  new AggregateCommitter<Counter>(
    {
      maxCommands: 10,
      maxWrites: 10,
      maxRounds: 5,
      keepCarried: keep && { ms: keep.ms, max: keep.max, weigh: (s) => s.value, maxWeight: keep.maxWeight ?? 1000 },
    },
    (id) => new Error(`busy ${id}`),
  );
/**
 * Adds one to counter `id` and resolves once its queue drained: a command resolves when its group
 * committed, a moment before its queue's loop ends, and a command sent in that moment joins the
 * running queue (the state it carries) rather than a drained one.
 */
async function add(c: AggregateCommitter<Counter>, io: AggregateIO<Counter>, id: string): Promise<number> {
  const value = await c.submit(id, io, [], (s) => {
    s.value += 1;
    return s.value;
  });
  while (c.openQueues > 0) await new Promise((r) => setImmediate(r));
  return value;
}

describe('AggregateCommitter: a drained aggregate’s carried state', () => {
  afterEach(() => jest.useRealTimers());

  it('serves the aggregate’s next command after its queue drained, within the time kept, and is then dropped', async () => {
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
    const { loads, io, stored } = storedCounters();
    const c = committer({ ms: 1000, max: 8 });
    expect(await add(c, io('a'), 'a')).toBe(1);
    expect(c.openQueues).toBe(0);
    expect(c.keptStates).toBe(1);
    expect(await add(c, io('a'), 'a')).toBe(2);
    expect(loads.map((l) => l.carried)).toEqual([false, true]);
    // Past the time kept, the next command reads the aggregate again.
    jest.advanceTimersByTime(1001);
    expect(await add(c, io('a'), 'a')).toBe(3);
    expect(loads.map((l) => l.carried)).toEqual([false, true, false]);
    expect(stored.get('a')).toEqual({ value: 3, version: 3 });
  });

  it('keeps states for `max` aggregates at most, the most recently drained, and release drops them all', async () => {
    const { loads, io } = storedCounters();
    const c = committer({ ms: 60_000, max: 2 });
    for (const id of ['a', 'b', 'c']) await add(c, io(id), id);
    expect(c.keptStates).toBe(2);
    await add(c, io('a'), 'a');
    await add(c, io('c'), 'c');
    expect(loads.slice(3)).toEqual([
      { id: 'a', carried: false },
      { id: 'c', carried: true },
    ]);
    c.release();
    expect(c.keptStates).toBe(0);
    await add(c, io('c'), 'c');
    expect(loads.at(-1)).toEqual({ id: 'c', carried: false });
  });

  it('keeps states weighing `maxWeight` at most together, dropping the least recently drained, and none heavier alone', async () => {
    const { loads, io } = storedCounters();
    const c = committer({ ms: 60_000, max: 8, maxWeight: 3 });
    // a and b weigh 1 each; then a weighs 2: b and a together weigh 3.
    for (const id of ['a', 'b', 'a']) await add(c, io(id), id);
    expect(c.keptStates).toBe(2);
    // c weighs 1: the least recently kept (b) goes to stay within 3.
    await add(c, io('c'), 'c');
    expect(c.keptStates).toBe(2);
    // b was dropped (read afresh; it weighs 2 now), then b weighs 3 (c goes), then 4: heavier
    // than all may weigh, so it is not kept at all.
    for (let n = 0; n < 4; n++) await add(c, io('b'), 'b');
    expect(loads.slice(-4).map((l) => l.carried)).toEqual([false, true, true, false]);
    expect(c.keptStates).toBe(0);
  });

  it('decides again on a read when the kept state is stale (another writer moved the aggregate)', async () => {
    const { loads, io, stored } = storedCounters();
    const c = committer({ ms: 60_000, max: 2 });
    await add(c, io('a'), 'a');
    // Another instance commits meanwhile.
    stored.set('a', { value: 10, version: 1 + 1 });
    expect(await add(c, io('a'), 'a')).toBe(11);
    expect(loads.map((l) => l.carried)).toEqual([false, true, false]);
    expect(c.stats.conflicts).toBe(1);
  });

  it('keeps nothing without keepCarried', async () => {
    const { loads, io } = storedCounters();
    const c = committer();
    await add(c, io('a'), 'a');
    await add(c, io('a'), 'a');
    expect(c.keptStates).toBe(0);
    expect(loads.map((l) => l.carried)).toEqual([false, false]);
  });
});
