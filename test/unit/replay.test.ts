import { replayThenLive, type ReplayOptions, type StreamStart } from '../../src/events/replay';
import { callListener, type Listener } from '../../src/infra/bus-core';
import { CATCH_UP } from '../../src/infra/pubsub';
import { JOB_STATUS_SHARDS } from '../../src/common/streams';
import { MergedShards } from '../../src/events/live';
import { decodeCursor } from '../../src/events/shard-cursor';
import type { JobMessage } from '../../src/events/stream-messages';

interface E {
  seq: number;
  kind?: 'ack' | 'lost' | 'resync';
}

/** A live source the test pushes into, like a bus listener. */
function liveSource() {
  let push: ((payload: object) => void) | undefined;
  const early: object[] = [];
  let closed = false;
  return {
    live: (listener: Listener) => {
      push = (payload) => callListener(listener, payload);
      for (const item of early.splice(0)) push(item);
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

/**
 * Lets a pull the test started run until it parks, waiting for a live event, so that what the test
 * pushes next wakes a parked pull (the path a running stream takes). Nothing outside the stream
 * shows that it parked, but its steps are promise continuations only, with no I/O or timer among
 * them, so every one of them has run before a timer fires: the wait is a scenario's moment, not a
 * guess at how long something takes.
 */
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

/** Positions as the client sees them: control messages marked by their kind. */
const shown = (events: E[]) => events.map((e) => (e.kind ? `${e.kind}@${e.seq}` : e.seq));

describe('replayThenLive', () => {
  let store: E[];
  /** The position after which each page read started. */
  let reads: number[];
  beforeEach(() => {
    store = Array.from({ length: 10 }, (_, i) => ({ seq: i + 1 }));
    reads = [];
  });
  const stream = (source: ReturnType<typeof liveSource>, start: StreamStart, extra: Partial<ReplayOptions<E>> = {}) =>
    replayThenLive<E>({
      live: source.live,
      takeStart: () => Promise.resolve(start),
      readPage: async (after, limit) => {
        reads.push(after);
        return store.filter((e) => e.seq > after).slice(0, limit);
      },
      positionOf: (e) => e.seq,
      accept: (payload): payload is E => typeof payload === 'object' && payload !== null && 'seq' in payload,
      acknowledge: (seq) => ({ seq, kind: 'ack' }),
      historyLost: (seq) => ({ seq, kind: 'lost' }),
      resync: (seq) => ({ seq, kind: 'resync' }),
      maxBuffer: 100,
      ...extra,
    });

  it('acknowledges first with the position it starts from, replays after it, then live, dropping what replay already sent', async () => {
    const source = liveSource();
    const it = stream(source, { from: 6, head: 10 });
    // Published while the replay runs: 9 and 10 again (already stored), then 11.
    source.push({ seq: 9 }, { seq: 10 }, { seq: 11 });
    expect(shown(await take(it, 6))).toEqual(['ack@6', 7, 8, 9, 10, 11]);
    await it.return!();
    expect(source.closed).toBe(true);
  });

  it('acknowledges the head when started without a position, and sends nothing up to it', async () => {
    const source = liveSource();
    const it = stream(source, { from: null, head: 10 });
    source.push({ seq: 10 }, { seq: 11 });
    expect(shown(await take(it, 2))).toEqual(['ack@10', 11]);
    await it.return!();
  });

  it('fills a gap from the store when live events arrive out of order', async () => {
    const source = liveSource();
    const it = stream(source, { from: 3, head: 10 });
    expect(shown(await take(it, 8))).toEqual(['ack@3', 4, 5, 6, 7, 8, 9, 10]);
    store.push({ seq: 11 }, { seq: 12 }, { seq: 13 });
    // 13's publish overtakes 11's and 12's.
    source.push({ seq: 13 }, { seq: 11 }, { seq: 12 });
    expect(shown(await take(it, 3))).toEqual([11, 12, 13]);
    await it.return!();
  });

  it('reads what it missed from the store when the bus says it reconnected (CATCH_UP)', async () => {
    const source = liveSource();
    const it = stream(source, { from: null, head: 10 });
    expect(shown(await take(it, 1))).toEqual(['ack@10']);
    // 11 and 12 were published while the bus was down: only the store has them.
    store.push({ seq: 11 }, { seq: 12 });
    const next = take(it, 2);
    await tick();
    source.push(CATCH_UP);
    expect(shown(await next)).toEqual([11, 12]);
    await it.return!();
  });

  it('sends one history-lost message and no partial replay when the event after the position has expired', async () => {
    const source = liveSource();
    store = store.filter((e) => e.seq > 4);
    const it = stream(source, { from: 2, head: 10 });
    source.push({ seq: 11 });
    expect(shown(await take(it, 3))).toEqual(['ack@10', 'lost@10', 11]);
    await it.return!();
  });

  it('replays a page at a time as the client takes it, whatever the gap', async () => {
    store = Array.from({ length: 1000 }, (_, i) => ({ seq: i + 1 }));
    const source = liveSource();
    const it = stream(source, { from: 0, head: 1000 }, { pageSize: 100 });
    expect(shown(await take(it, 51))).toEqual(['ack@0', ...Array.from({ length: 50 }, (_, i) => i + 1)]);
    // Half a page taken: one page read, nothing more held.
    expect(reads).toEqual([0]);
    const rest = await take(it, 950);
    expect(rest.map((e) => e.seq)).toEqual(Array.from({ length: 950 }, (_, i) => i + 51));
    expect(reads).toEqual([0, 100, 200, 300, 400, 500, 600, 700, 800, 900]);
    source.push({ seq: 1001 });
    expect(shown(await take(it, 1))).toEqual([1001]);
    await it.return!();
  });

  it('sends history lost, not a replay or an error, to a client further behind than the replay bound', async () => {
    store = Array.from({ length: 1000 }, (_, i) => ({ seq: i + 1 }));
    const source = liveSource();
    const it = stream(source, { from: 10, head: 1000 }, { maxReplay: 500 });
    source.push({ seq: 1001 });
    expect(shown(await take(it, 3))).toEqual(['ack@1000', 'lost@1000', 1001]);
    expect(reads).toEqual([]);
    await it.return!();
  });

  it('reads a short shared page again, fresh, when it ends before the head', async () => {
    const source = liveSource();
    const fresh: boolean[] = [];
    // The shared read started before 9 and 10 were committed; a fresh one sees them.
    const it = stream(
      source,
      { from: 5, head: 10 },
      {
        readPage: async (after, limit, isFresh) => {
          fresh.push(isFresh);
          return store.filter((e) => e.seq > after && (isFresh || e.seq <= 8)).slice(0, limit);
        },
      },
    );
    expect(shown(await take(it, 6))).toEqual(['ack@5', 6, 7, 8, 9, 10]);
    expect(fresh).toEqual([false, true]);
    await it.return!();
  });

  it('reports history lost when nothing after the position is stored any more', async () => {
    const source = liveSource();
    store = [];
    const it = stream(source, { from: 3, head: 10, finished: true });
    expect(shown(await take(it, 10))).toEqual(['ack@10', 'lost@10']);
  });

  it('ends with an explicit RESYNC naming the last delivered position when a slow consumer overflows the buffer', async () => {
    const source = liveSource();
    const it = stream(source, { from: null, head: 0 }, { maxBuffer: 5 });
    source.push({ seq: 1 });
    expect(shown(await take(it, 2))).toEqual(['ack@0', 1]);
    // The consumer stops pulling while 20 events arrive.
    for (let seq = 2; seq <= 21; seq++) source.push({ seq });
    // The event that overflowed the buffer stopped the listener at once, before any pull.
    expect(source.closed).toBe(true);
    const rest = await take(it, 100);
    expect(shown(rest)).toEqual([2, 3, 4, 5, 6, 'resync@6']);
    expect(source.closed).toBe(true);
  });

  it('ends after a final event, in the replay or live, and closes the listener', async () => {
    const source = liveSource();
    const finalInReplay = stream(source, { from: 7, head: 10 }, { isFinal: (e) => e.seq === 9 });
    expect(shown(await take(finalInReplay, 10))).toEqual(['ack@7', 8, 9]);
    expect(source.closed).toBe(true);

    const live = liveSource();
    store.push({ seq: 11 }, { seq: 12 });
    const finalLive = stream(live, { from: 10, head: 10 }, { isFinal: (e) => e.seq === 12 });
    const taken = take(finalLive, 10);
    await tick();
    live.push({ seq: 11 }, { seq: 12 }, { seq: 13 });
    expect(shown(await taken)).toEqual(['ack@10', 11, 12]);
    expect(live.closed).toBe(true);
  });

  it('replays and ends once caught up when nothing can follow the head', async () => {
    const source = liveSource();
    const finished = stream(source, { from: 8, head: 10, finished: true });
    expect(shown(await take(finished, 10))).toEqual(['ack@8', 9, 10]);
    expect((await finished.next()).done).toBe(true);
    expect(source.closed).toBe(true);
  });
});

describe("MergedShards (the tenant's job status stream, sharded)", () => {
  type Message = Pick<JobMessage, 'jobId' | 'seq' | 'position' | 'type'>;
  const ack = (position: number): Message => ({ jobId: '', seq: 0, position, type: 'SUBSCRIBED' });
  const lost = (position: number): Message => ({ jobId: '', seq: 0, position, type: 'HISTORY_LOST' });
  const change = (jobId: string, seq: number, position: number): Message => ({ jobId, seq, position, type: 'STEP_STARTED' });

  /** A shard's stream: its messages in order, then a wait for `release` (live, nothing more), or a throw. */
  function shard(messages: Message[], end?: Error) {
    let returned = false;
    let release!: () => void;
    const waiting = new Promise<void>((r) => (release = r));
    const iterator: AsyncIterator<JobMessage> = {
      next: async () => {
        const message = messages.shift();
        if (message) return { done: false, value: message as JobMessage };
        if (end) throw end;
        await waiting;
        return { done: true, value: undefined };
      },
      return: async () => {
        returned = true;
        release();
        return { done: true, value: undefined };
      },
    };
    return { iterator, returned: () => returned };
  }
  const cursorOf = (message: JobMessage) => decodeCursor(message.cursor ?? '', 'cursor');

  it('acknowledges once at every shard’s position, says a lost history once, and passes each shard’s changes on in its order', async () => {
    const shards = [
      shard([ack(3), change('a', 4, 4), change('a', 5, 5)]),
      // Shard 1's history is lost: acknowledged at its head (7), past the client's 2.
      shard([ack(7), lost(7), change('b', 2, 8)]),
      ...Array.from({ length: JOB_STATUS_SHARDS - 2 }, () => shard([ack(0)])),
    ];
    const from = [3, 2, ...Array.from({ length: JOB_STATUS_SHARDS - 2 }, () => 0)];
    const merged = new MergedShards(
      shards.map((s) => s.iterator),
      from,
      false,
      'T',
    );
    const got: JobMessage[] = [];
    for (let i = 0; i < 5; i++) got.push((await merged.next()).value as JobMessage);
    expect(got.map((m) => [m.type, m.position])).toEqual([
      ['SUBSCRIBED', 10],
      ['HISTORY_LOST', 10],
      expect.anything(),
      expect.anything(),
      expect.anything(),
    ]);
    expect(cursorOf(got[0]).slice(0, 2)).toEqual([3, 7]);
    // The changes: each shard's in its order, the position one more each, the cursor where each shard stands.
    const changes = got.slice(2);
    expect(changes.map((m) => m.position)).toEqual([11, 12, 13]);
    expect(changes.filter((m) => m.jobId === 'a').map((m) => m.seq)).toEqual([4, 5]);
    expect(cursorOf(changes[2]).slice(0, 2)).toEqual([5, 8]);
    await merged.return();
    expect(shards.every((s) => s.returned())).toBe(true);
  });

  it('lets every shard go and passes the error on when one shard’s read fails', async () => {
    const failure = new Error('read failed');
    const shards = [shard([ack(0)], failure), ...Array.from({ length: JOB_STATUS_SHARDS - 1 }, () => shard([ack(0)]))];
    const merged = new MergedShards(
      shards.map((s) => s.iterator),
      shards.map(() => null),
      false,
      'T',
    );
    expect((await merged.next()).value).toMatchObject({ type: 'SUBSCRIBED', position: 0 });
    await expect(merged.next()).rejects.toBe(failure);
    expect(shards.every((s) => s.returned())).toBe(true);
    expect((await merged.next()).done).toBe(true);
  });
});
