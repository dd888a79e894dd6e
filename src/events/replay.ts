import { type DirectConsumer, HAND_OVER, type HandsOver, PARKED, type Parked } from '../infra/handover';
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
 * 2. when the client named a position, the stored events after it, read a page at a time as the
 *    client takes them (so a subscription holds one page, whatever its gap); if the store no
 *    longer holds the event right after it (expired), or the client is more than `maxReplay`
 *    events behind, one `historyLost` message instead, and nothing replayed;
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
  /**
   * One page of the stored events: those with a position above `after`, in order, at most
   * `limit`. Without `fresh` the page may come from a read of the same page that was already
   * under way (concurrent resumes of one stream share their reads), so it may lack events
   * committed since; with `fresh` the read starts after this call. A short page read without
   * `fresh` is read again with it before the replay relies on its end.
   */
  readPage(after: number, limit: number, fresh: boolean): Promise<E[]>;
  /** Events read from the store at a time (default REPLAY_PAGE): a replay holds at most one page. */
  pageSize?: number;
  /**
   * The longest replay (default REPLAY_MAX_EVENTS): a client more events than this behind its
   * stream's head gets history lost instead, and re-queries the state.
   */
  maxReplay?: number;
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

/** Stored events read at a time by a replay; a subscription holds at most this many of them. */
export const REPLAY_PAGE = 100;
/**
 * The most events a resume replays. A client further behind its stream's head than this gets the
 * history-lost message (re-query the state, then read on from its position), as if the history
 * had expired: replaying more would keep it, and the store, busy for longer than re-reading the
 * state takes. Configurable per server with REPLAY_MAX_EVENTS.
 */
export const REPLAY_MAX_EVENTS = 100_000;

/**
 * A replay-then-live stream; `ready` resolves once its live listener is in effect. Its live events
 * can be handed over to a consumer once it is caught up (see infra/handover.ts).
 */
export type ReplayStream<E> = AsyncIterableIterator<E> & HandsOver<E> & { ready: Promise<void> };

/**
 * The position of each event a replay-then-live stream handed out, so a transport can label what it
 * sends with the position to resume from (the SSE `id`). Kept by identity and weakly: an event
 * published once belongs to exactly one stream, so it has exactly one position; a control event is
 * either fresh per subscriber (resync) or shared only by subscribers of one stream at one position
 * (the acknowledgement and history lost of a burst, see Live), so it too has exactly one position.
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
  /** The position of the last event handed on (pulled or taken), and that event. */
  let last = 0;
  let lastEvent: E | undefined;
  /** The consumer live events are handed over to, once one asked (see infra/handover.ts). */
  let direct: DirectConsumer<E> | undefined;
  /** True while the generator is parked and live events go to `direct.take`. */
  let handedOver = false;

  /** Ends a hand-over: the consumer pulls again, and the generator goes on from its PARKED. */
  const wakeConsumer = () => {
    handedOver = false;
    direct?.wake();
  };

  // Listen from the start, so nothing published during the replay is lost.
  const live: Listening = options.live((payload) => {
    if (overflowed || ended) return;
    if (payload === CATCH_UP) {
      catchUp = true;
    } else {
      if (!options.accept(payload)) return;
      if (handedOver) {
        // The steady state of a caught-up subscriber: the next event in order goes straight to
        // the consumer. Anything else (a gap, the final event, a consumer that cannot take it)
        // goes through the buffer and a pull, as before the hand-over.
        const position = positionOf(payload);
        if (position <= last) return;
        if (position === last + 1 && !isFinal(payload) && direct?.canTake()) {
          last = position;
          lastEvent = payload;
          direct.take(payload);
          return;
        }
      }
      if (buffer.length >= options.maxBuffer) {
        // Stop listening at once: the client resumes from the store after the resync.
        overflowed = true;
        live.close();
      } else {
        buffer.push(payload);
      }
    }
    if (handedOver) wakeConsumer();
    else wake?.();
  });

  // One generator with its cleanup, not one delegating to another: every event of every subscriber passes here.
  async function* run(): AsyncGenerator<E | Parked> {
    try {
      await live.ready;
      const start = await options.start;
      const pageSize = options.pageSize ?? REPLAY_PAGE;
      const maxReplay = options.maxReplay ?? REPLAY_MAX_EVENTS;
      last = start.from ?? start.head;
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

      /**
       * A page of stored events after `last`. A short page from a shared read (which may have
       * started before events up to `atLeast` were committed) is read again, fresh.
       */
      async function page(atLeast: number): Promise<E[]> {
        const events = await options.readPage(last, pageSize, false);
        const end = events.length ? positionOf(events[events.length - 1]) : last;
        return events.length < pageSize && end < atLeast ? options.readPage(last, pageSize, true) : events;
      }

      /**
       * Sends the stored events after `last`, a page at a time as the client takes them, up to
       * `until` (or as far as the store goes). Stops at a gap (what follows arrives live), the final
       * event or the end of the stored events.
       */
      async function* stored(until: number, atLeast: number): AsyncGenerator<E> {
        while (!done && last < until) {
          const events = await page(atLeast);
          const before = last;
          yield* inOrder(events, true);
          if (last === before || events.length < pageSize) return;
        }
      }

      const resumed = start.from !== null && start.from < start.head;
      if (resumed && start.head - (start.from ?? 0) > maxReplay) {
        // Too far behind to replay: the client re-queries the state instead (see REPLAY_MAX_EVENTS).
        last = start.head;
        yield positioned(options.acknowledge(last), last);
        options.observer?.historyLost?.();
        yield positioned(options.historyLost(last), last);
      } else if (resumed) {
        const first = await page(start.head);
        if (first.length === 0 || positionOf(first[0]) !== last + 1) {
          // The event right after the client's position expired: a replay would have a hole.
          last = start.head;
          yield positioned(options.acknowledge(last), last);
          options.observer?.historyLost?.();
          yield positioned(options.historyLost(last), last);
        } else {
          yield positioned(options.acknowledge(last), last);
          const before = last;
          yield* inOrder(first, true);
          if (last > before && first.length === pageSize) yield* stored(Number.POSITIVE_INFINITY, start.head);
        }
      } else {
        yield positioned(options.acknowledge(last), last);
      }
      if (done || (start.finished && last >= start.head)) return;

      for (;;) {
        if (catchUp) {
          catchUp = false;
          // What was published while the bus was down is newer than any read under way: read it fresh.
          yield* stored(Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY);
          if (done) return;
        }
        while (buffer.length > 0) {
          const event = buffer.shift()!;
          const position = positionOf(event);
          if (position <= last) continue;
          // A live event ahead of the next expected one: what lies between is in the store, since
          // positions are taken in commit order.
          if (position > last + 1) {
            yield* stored(position - 1, position - 1);
            if (done) return;
            // The store had it already, or still lacks what comes before it (it arrives live then).
            if (position !== last + 1) continue;
          }
          // The next event in order, yielded here rather than through inOrder: this is every live
          // event of every subscriber, and a nested generator per event costs each of them.
          last = position;
          lastEvent = event;
          yield positioned(event, position);
          if (isFinal(event)) return;
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
        if (direct) {
          // Caught up: hand the live events over until something needs a pull (see infra/handover.ts).
          handedOver = true;
          yield PARKED;
          handedOver = false;
          continue;
        }
        await new Promise<void>((resolve) => (wake = resolve));
        wake = undefined;
      }
    } finally {
      ended = true;
      handedOver = false;
      live.close();
    }
  }

  const generator = run();
  const stop = async () => {
    ended = true;
    handedOver = false;
    live.close();
    wake?.();
  };
  /** The stream's items for a consumer that did not ask for the hand-over, which never sees PARKED. */
  const narrow = (item: IteratorResult<E | Parked>): IteratorResult<E> => {
    if (item.done) return { done: true, value: undefined };
    if (item.value === PARKED) throw new Error('A replay stream parked without a consumer to hand over to.');
    return { done: false, value: item.value };
  };
  const next = async (): Promise<IteratorResult<E>> => narrow(await generator.next());
  return {
    ready: live.ready,
    next,
    [HAND_OVER](consumer: DirectConsumer<E>) {
      direct = consumer;
      return () => generator.next();
    },
    async return(value?: unknown) {
      await stop();
      return narrow(await generator.return(value));
    },
    async throw(error?: unknown) {
      await stop();
      return narrow(await generator.throw(error));
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}
