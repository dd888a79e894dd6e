import { CATCH_UP, type Listening } from '../infra/pubsub';

/**
 * Replay-then-live delivery for one subscription to a positioned stream: events numbered 1, 2, 3 …
 * in commit order without gaps (a job's seq, or a stream position allocated at commit, see
 * StreamEvent). Because the numbering has no gaps, "everything after position n" is exact: a
 * client that resubscribes with the position of the last message it received gets every event
 * it has not seen, once, in order.
 *
 * The live listener is made first; once it is in effect the stream's head is read (`start`), so
 * every event after the head arrives live and every event up to it is in the store. Then:
 * 1. the acknowledgement (`acknowledge`): the first message, with the position the subscription
 *    starts from;
 * 2. when the client named a position, the stored events after it; if the store no longer holds
 *    the event right after it (expired), one `historyLost` message instead, and nothing replayed;
 * 3. the live events, strictly in order: a live event that skips ahead (publishes from several
 *    writers can arrive out of order, or one can be lost while the bus was down) makes the missing
 *    ones be read from the store first, and an event at or below the last position is a duplicate
 *    and dropped. After the bus reconnected (CATCH_UP), the store is read for what was missed.
 *
 * The buffer is bounded. When a slow consumer lets it overflow, the stream ends with an explicit
 * resync message naming the position to resume from, instead of silently dropping events.
 *
 * The stream also ends after an event that `isFinal` recognizes (a finished job's last event),
 * and once caught up when `start` says nothing can follow. However it ends, or when the consumer
 * returns it, the live listener is closed and the buffer dropped.
 */
export interface ReplayOptions<E> {
  /** Starts listening to live events (see EventBus.listen). */
  live: (push: (payload: object) => void) => Listening;
  /**
   * Where the stream stands, known once the listener is in effect (see Live): the client's
   * position (null to start at the head) and the head. Left pending forever if the stream is
   * returned instead.
   */
  start: Promise<StreamStart>;
  /** Stored events with a position in (after, until], in order. */
  readAfter(after: number, until?: number): Promise<E[]>;
  positionOf(event: E): number;
  /** Keeps only the live payloads this subscription wants, and says they are events of its type. */
  accept(payload: unknown): payload is E;
  /** The first message: the subscription is in effect from `position` on. */
  acknowledge(position: number): E;
  /** The client's position is older than the stored history; the stream goes on after `position`. */
  historyLost(position: number): E;
  /** The last message of a stream whose buffer overflowed; the client resumes after `position`. */
  resync(position: number, lastEvent: E | undefined): E;
  /** True for the stream's last event: the stream ends once it is delivered. */
  isFinal?(event: E): boolean;
  /** Told of each stored event sent, each resync and each history lost (metrics). */
  observer?: ReplayObserver;
  maxBuffer: number;
}

export interface StreamStart {
  /** The position the client resumed from; null to start at the head. Never above the head. */
  from: number | null;
  /** The stream's last position once the listener was in effect. */
  head: number;
  /** True when no event can follow the head (a finished job): the stream ends once caught up. */
  finished?: boolean;
}

export interface ReplayObserver {
  replayed(): void;
  resync(): void;
  historyLost?(): void;
}

/** A replay-then-live stream; `ready` resolves once its live listener is in effect. */
export type ReplayStream<E> = AsyncIterableIterator<E> & { ready: Promise<void> };

/**
 * The position of each event a replay-then-live stream handed out, so a transport can label what it
 * sends with the position to resume from (the SSE `id`). Kept by identity and weakly: an event
 * published once belongs to exactly one stream, so it has exactly one position, and control events
 * (acknowledgement, history lost, resync) are fresh objects per subscriber.
 */
const deliveredPositions = new WeakMap<object, number>();

/**
 * The position to resume after once `event` was received: set for every event that a
 * replay-then-live stream delivered (stored, live, or its acknowledgement, history-lost and resync
 * messages); undefined for anything else.
 */
export function positionOfDelivered(event: unknown): number | undefined {
  return typeof event === 'object' && event !== null ? deliveredPositions.get(event) : undefined;
}

/** The resync messages handed out: each ends its stream and asks the client to resume after its position. */
const resumeRequests = new WeakSet<object>();

/**
 * True for a stream's resync message: the stream ends after it, and the client is to subscribe
 * again after its position (a transport that reconnects by itself, SSE, ends the response without
 * `complete` so that the client does).
 */
export function asksToResume(event: unknown): boolean {
  return typeof event === 'object' && event !== null && resumeRequests.has(event);
}

/** Notes `event`'s position (see positionOfDelivered) and hands it on. */
function positioned<E>(event: E, position: number): E {
  if (typeof event === 'object' && event !== null) deliveredPositions.set(event, position);
  return event;
}

export function replayThenLive<E>(options: ReplayOptions<E>): ReplayStream<E> {
  const { positionOf } = options;
  const buffer: E[] = [];
  let overflowed = false;
  let ended = false;
  let catchUp = false;
  let wake: (() => void) | undefined;
  const isFinal = options.isFinal ?? (() => false);

  // Listen from the start, so nothing published during the replay is lost.
  const live: Listening = options.live((payload) => {
    if (overflowed || ended) return;
    if (payload === CATCH_UP) {
      catchUp = true;
    } else {
      if (!options.accept(payload)) return;
      if (buffer.length >= options.maxBuffer) {
        // Stop listening at once: the client resumes from the store after the resync.
        overflowed = true;
        live.close();
      } else {
        buffer.push(payload);
      }
    }
    wake?.();
  });

  async function* run(): AsyncGenerator<E> {
    try {
      yield* deliver();
    } finally {
      ended = true;
      live.close();
    }
  }

  async function* deliver(): AsyncGenerator<E> {
    await live.ready;
    const start = await options.start;
    let last = start.from ?? start.head;
    let lastEvent: E | undefined;
    let done = false;

    /** The events of `events` that follow `last` without a gap, each once; stops at a gap or the final event. */
    function* inOrder(events: E[], replayed: boolean): Generator<E> {
      for (const event of events) {
        const position = positionOf(event);
        if (position <= last) continue;
        if (position > last + 1) return;
        last = position;
        lastEvent = event;
        if (replayed) options.observer?.replayed();
        yield positioned(event, position);
        if (isFinal(event)) {
          done = true;
          return;
        }
      }
    }

    let stored: E[] = [];
    if (start.from !== null && start.from < start.head) {
      stored = await options.readAfter(start.from);
      if (stored.length === 0 || positionOf(stored[0]) !== start.from + 1) {
        // The event right after the client's position expired: a replay would have a hole.
        last = start.head;
        yield positioned(options.acknowledge(last), last);
        options.observer?.historyLost?.();
        yield positioned(options.historyLost(last), last);
      } else {
        yield positioned(options.acknowledge(last), last);
      }
    } else {
      yield positioned(options.acknowledge(last), last);
    }
    yield* inOrder(stored, true);
    if (done || (start.finished && last >= start.head)) return;

    for (;;) {
      if (catchUp) {
        catchUp = false;
        yield* inOrder(await options.readAfter(last), true);
        if (done) return;
      }
      while (buffer.length > 0) {
        const event = buffer.shift()!;
        const position = positionOf(event);
        if (position <= last) continue;
        // A live event ahead of the next expected one: what lies between is in the store, since
        // positions are taken in commit order.
        if (position > last + 1) yield* inOrder(await options.readAfter(last, position - 1), true);
        if (done) return;
        yield* inOrder([event], false);
        if (done) return;
      }
      if (overflowed) {
        options.observer?.resync();
        const resync = options.resync(last, lastEvent);
        if (typeof resync === 'object' && resync !== null) resumeRequests.add(resync);
        yield positioned(resync, last);
        return;
      }
      if (ended) return;
      if (catchUp) continue;
      await new Promise<void>((resolve) => (wake = resolve));
      wake = undefined;
    }
  }

  const generator = run();
  const stop = async () => {
    ended = true;
    live.close();
    wake?.();
  };
  return {
    ready: live.ready,
    next: () => generator.next(),
    async return(value?: unknown) {
      await stop();
      return generator.return(value);
    },
    async throw(error?: unknown) {
      await stop();
      return generator.throw(error);
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}
