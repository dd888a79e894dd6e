import { replayThenLive } from '../../src/events/replay';

interface E {
  seq: number;
  id?: string;
  resync?: boolean;
}

/** A live source the test pushes into, like a bus listener. */
function liveSource() {
  let push: ((payload: object) => void) | undefined;
  const early: object[] = [];
  let closed = false;
  return {
    live: (listener: (payload: object) => void) => {
      push = listener;
      for (const item of early.splice(0)) listener(item);
      return { ready: Promise.resolve(), close: () => void (closed = true) };
    },
    push: (...items: object[]) => {
      for (const item of items) {
        if (closed) continue;
        if (push) push(item);
        else early.push(item);
      }
    },
    get closed() {
      return closed;
    },
  };
}

const tick = () => new Promise((r) => setTimeout(r, 5));

async function take<T>(iterator: AsyncIterator<T>, n: number): Promise<T[]> {
  const out: T[] = [];
  while (out.length < n) {
    const next = await iterator.next();
    if (next.done) break;
    out.push(next.value);
  }
  return out;
}

describe('replayThenLive', () => {
  const store: E[] = Array.from({ length: 10 }, (_, i) => ({ seq: i + 1 }));
  const readAfter = async (after: number | string, until = Infinity) => store.filter((e) => e.seq > (after as number) && e.seq <= until);

  it('replays stored events after the position, then live ones, dropping what replay already sent', async () => {
    const source = liveSource();
    const it = replayThenLive<E>({
      mode: 'sequence',
      live: source.live,
      after: 6,
      readAfter,
      positionOf: (e) => e.seq,
      resync: (s) => ({ seq: s as number, resync: true }),
      maxBuffer: 100,
    });
    // Published while the replay runs: 9 and 10 again (already stored), then 11.
    source.push({ seq: 9 }, { seq: 10 }, { seq: 11 });
    expect((await take(it, 5)).map((e) => e.seq)).toEqual([7, 8, 9, 10, 11]);
    await it.return!();
    expect(source.closed).toBe(true);
  });

  it('fills a gap from the store when live events arrive out of order', async () => {
    const source = liveSource();
    const it = replayThenLive<E>({
      mode: 'sequence',
      live: source.live,
      after: 3,
      readAfter,
      positionOf: (e) => e.seq,
      resync: (s) => ({ seq: s as number }),
      maxBuffer: 100,
    });
    const first = await take(it, 7);
    expect(first.map((e) => e.seq)).toEqual([4, 5, 6, 7, 8, 9, 10]);
    store.push({ seq: 11 }, { seq: 12 }, { seq: 13 });
    // 13's publish overtakes 11's and 12's.
    source.push({ seq: 13 }, { seq: 11 }, { seq: 12 });
    expect((await take(it, 3)).map((e) => e.seq)).toEqual([11, 12, 13]);
    store.splice(10);
    await it.return!();
  });

  it('ends with an explicit RESYNC naming the last delivered position when a slow consumer overflows the buffer', async () => {
    const source = liveSource();
    const it = replayThenLive<E>({
      mode: 'sequence',
      live: source.live,
      after: null,
      readAfter,
      positionOf: (e) => e.seq,
      resync: (s) => ({ seq: -1, resync: true, id: String(s) }),
      maxBuffer: 5,
    });
    source.push({ seq: 1 });
    expect((await take(it, 1)).map((e) => e.seq)).toEqual([1]);
    // The consumer stops pulling while 20 events arrive.
    for (let seq = 2; seq <= 21; seq++) source.push({ seq });
    await tick();
    const rest = await take(it, 100);
    expect(rest.slice(0, 5).map((e) => e.seq)).toEqual([2, 3, 4, 5, 6]);
    expect(rest[5]).toEqual({ seq: -1, resync: true, id: '6' });
    expect(rest).toHaveLength(6);
    expect(source.closed).toBe(true);
  });

  it('drops duplicate ids in id mode (at-least-once delivery)', async () => {
    const source = liveSource();
    const stored = [
      { seq: 0, id: 'b' },
      { seq: 0, id: 'c' },
    ];
    const it = replayThenLive<E>({
      mode: 'id',
      live: source.live,
      after: 'a',
      readAfter: async () => stored,
      positionOf: (e) => e.id!,
      resync: () => ({ seq: -1 }),
      maxBuffer: 10,
    });
    source.push({ seq: 0, id: 'c' }, { seq: 0, id: 'd' }, { seq: 0, id: 'd' }, { seq: 0, id: 'e' });
    expect((await take(it, 4)).map((e) => e.id)).toEqual(['b', 'c', 'd', 'e']);
    await it.return!();
  });

  it('ends after a final event, in the replay or live, and closes the listener', async () => {
    const source = liveSource();
    const finalInReplay = replayThenLive<E>({
      mode: 'sequence',
      live: source.live,
      after: 7,
      readAfter,
      positionOf: (e) => e.seq,
      isFinal: (e) => e.seq === 9,
      maxBuffer: 10,
      resync: () => ({ seq: 0, resync: true }),
    });
    expect((await take(finalInReplay, 10)).map((e) => e.seq)).toEqual([8, 9]);
    expect(source.closed).toBe(true);

    const live = liveSource();
    const finalLive = replayThenLive<E>({
      mode: 'sequence',
      live: live.live,
      after: 10,
      readAfter,
      positionOf: (e) => e.seq,
      isFinal: (e) => e.seq === 12,
      maxBuffer: 10,
      resync: () => ({ seq: 0, resync: true }),
    });
    const taken = take(finalLive, 10);
    await tick();
    live.push({ seq: 11 }, { seq: 12 }, { seq: 13 });
    expect((await taken).map((e) => e.seq)).toEqual([11, 12]);
    expect(live.closed).toBe(true);
  });

  it('replays and ends without listening when no live event can come', async () => {
    const finished = replayThenLive<E>({
      mode: 'sequence',
      live: null,
      after: 8,
      readAfter,
      positionOf: (e) => e.seq,
      maxBuffer: 10,
      resync: () => ({ seq: 0, resync: true }),
    });
    expect((await take(finished, 10)).map((e) => e.seq)).toEqual([9, 10]);
    expect((await finished.next()).done).toBe(true);
  });
});
