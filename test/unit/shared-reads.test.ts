import { budgetLeft, runWithBudget } from '../../src/infra/deadline';
import { SharedItemReads, SharedReads } from '../../src/infra/shared-reads';

/** A store whose reads the test finishes by hand: each read returns the value current when it started. */
function manualStore() {
  let value = 0;
  const inFlight: Array<() => void> = [];
  let reads = 0;
  return {
    set: (v: number) => (value = v),
    get reads() {
      return reads;
    },
    read: () => {
      reads++;
      const seen = value;
      return new Promise<number>((resolve) => inFlight.push(() => resolve(seen)));
    },
    finishAll() {
      for (const finish of inFlight.splice(0)) finish();
    },
    get inFlight() {
      return inFlight.length;
    },
  };
}

const tick = () => new Promise((r) => setImmediate(r));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('SharedReads', () => {
  it('serves callers of one turn with one read, and never hands a caller a read that started before it asked', async () => {
    const store = manualStore();
    const shared = new SharedReads<number>(0);
    store.set(1);
    const first = Array.from({ length: 100 }, () => shared.read('k', store.read));
    await tick();
    expect(store.reads).toBe(1);
    // The value changes after the read started: a later caller must not get the old read.
    store.set(2);
    const late = Array.from({ length: 100 }, () => shared.read('k', store.read));
    await tick();
    // One read in flight per key: the late callers wait for the next one.
    expect(store.reads).toBe(1);
    store.finishAll();
    expect(new Set(await Promise.all(first))).toEqual(new Set([1]));
    await tick();
    expect(store.reads).toBe(2);
    store.finishAll();
    expect(new Set(await Promise.all(late))).toEqual(new Set([2]));
    expect(shared.pending).toBe(0);
  });

  it("runs a read within the latest of its callers' budgets, and outside any when one caller has none", async () => {
    const shared = new SharedReads<number | undefined>(0);
    // What the read sees of its budget: the first caller's 50 ms must not bound it.
    const read = async () => budgetLeft();
    const short = runWithBudget(50, () => shared.read('k', read));
    const long = runWithBudget(60_000, () => shared.read('k', read));
    const seen = await short;
    expect(await long).toBe(seen);
    expect(seen).toBeGreaterThan(50_000);
    const bounded = runWithBudget(50, () => shared.read('k2', read));
    const unbounded = shared.read('k2', read);
    expect(await bounded).toBeUndefined();
    expect(await unbounded).toBeUndefined();
  });

  it('keeps different keys apart and shares a failure with the callers of its read only', async () => {
    const shared = new SharedReads<string>(0);
    const a = shared.read('a', async () => 'A');
    const b = shared.read('b', async () => {
      throw new Error('down');
    });
    const b2 = shared.read('b', async () => 'never read');
    expect(await a).toBe('A');
    await expect(b).rejects.toThrow('down');
    await expect(b2).rejects.toThrow('down');
    expect(shared.reads).toBe(2);
    expect(await shared.read('b', async () => 'up')).toBe('up');
  });

  it('starts reads of one key at least the interval apart, so a long burst costs one read per interval', async () => {
    const shared = new SharedReads<number>(50);
    const results: Promise<number>[] = [];
    const started = performance.now();
    // Callers keep coming for 300 ms, one every 2 ms, each read answering at once.
    while (performance.now() - started < 300) {
      results.push(shared.read('k', async () => 1));
      await sleep(2);
    }
    await Promise.all(results);
    const elapsed = performance.now() - started;
    expect(results.length).toBeGreaterThan(20);
    // At most one read per 50 ms of the burst, plus the first.
    expect(shared.reads).toBeLessThanOrEqual(Math.ceil(elapsed / 50) + 1);
  });

  it("shares a query among the callers asking for it at once (claimWork's read of a claimable index), each query apart", async () => {
    const asked: string[] = [];
    const store = {
      get: async () => null,
      queryFirst: async (spec: object, n: number) => {
        asked.push(JSON.stringify(spec));
        return [{ spec, n }];
      },
    };
    const reads = new SharedItemReads<object>(store);
    const ofA = { index: 'claimable', pk: 'TENANT#a' };
    const ofB = { index: 'claimable', pk: 'TENANT#b' };
    const answers = await Promise.all([...Array.from({ length: 30 }, () => reads.query(ofA, 20)), reads.query(ofB, 20)]);
    expect(asked).toEqual([JSON.stringify(ofA), JSON.stringify(ofB)]);
    expect(answers.at(-1)).toEqual([{ spec: ofB, n: 20 }]);
    expect(new Set(answers.slice(0, 30).map((a) => JSON.stringify(a)))).toEqual(new Set([JSON.stringify([{ spec: ofA, n: 20 }])]));
    // A caller after those reads ended gets a read of its own.
    await reads.query(ofA, 20);
    expect(asked).toHaveLength(3);
    expect(reads.pending).toBe(0);
    // Callers whose bound by time would differ share one read of `spec`, sent as `atStart` makes it when the read starts.
    const bounded = (at: string) => () => ({ ...ofA, skBefore: at });
    await Promise.all([reads.query(ofA, 20, bounded('first')), reads.query(ofA, 20, bounded('second'))]);
    expect(asked.slice(3)).toEqual([JSON.stringify({ ...ofA, skBefore: 'first' })]);
  });
});
