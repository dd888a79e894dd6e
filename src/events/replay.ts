import { type DirectConsumer, HAND_OVER, type HandsOver, PARKED, type Parked, type Puller } from '../infra/handover';
import { CATCH_UP, type Listener, type Listening } from '../infra/pubsub';

/**
 * Replay-then-live delivery for one subscription to a positioned stream: events numbered 1, 2, 3 …
 * in commit order without gaps (a job's seq, or a stream position allocated at commit, see
 * StreamEvent). Because the numbering has no gaps, "everything after position n" is exact: a
 * client that resubscribes with the position of the last message it received gets every event
 * it has not seen, once, in order.
 *
 * The live listener is made first; once it is in effect the stream's head is read (`start`), so
 * every event after the head arrives live and every event up to it is in the store. (While the bus
 * has no connection the listener counts as in effect at once: the CATCH_UP it gets once the bus is
 * back and its subscription confirmed reads from the store whatever was committed meanwhile, see
 * EventBus.listen.) Then:
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
  live: (listener: Listener) => Listening;
  /**
   * Where the stream stands, known once the listener is in effect (see Live): the client's
   * position (null to start at the head) and the head. Left pending forever if the stream is
   * returned instead. Called once, by the stream, which holds the answer only while it uses it:
   * the options are held for the subscription's life, a settled promise with its value (96
   * bytes) need not be.
   */
  takeStart(): Promise<StreamStart>;
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
const deliveredPositions = new WeakMap<object, number | string>();

/**
 * The position to resume after once `event` was received: set for every event that a
 * replay-then-live stream delivered (stored, live, or its acknowledgement, history-lost and resync
 * messages), a cursor (a text) for a sharded stream's (see markDelivered); undefined for anything else.
 */
export function positionOfDelivered(event: unknown): number | string | undefined {
  return typeof event === 'object' && event !== null ? deliveredPositions.get(event) : undefined;
}

/**
 * Notes where a stream that merges several replay-then-live streams (a sharded stream, see
 * Live) stands after `event`: its cursor, for positionOfDelivered; `resume` for its resync message
 * (see asksToResume). Returns the event.
 */
export function markDelivered<E extends object>(event: E, cursor: string, resume = false): E {
  deliveredPositions.set(event, cursor);
  if (resume) resumeRequests.add(event);
  return event;
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

/**
 * The buffer of every stream with no live event waiting: one empty array, frozen so that a push
 * to it fails loudly, rather than an array of its own (32 bytes) on every idle subscriber.
 */
const NO_EVENTS: never[] = [];
Object.freeze(NO_EVENTS);

/**
 * A replay-then-live stream (see ReplayOptions). Its state is this one object, with its methods on
 * the prototype, because an idle subscriber holds it for as long as it is subscribed: thousands of
 * them wait on a busy topic. Its items come from an async generator while it replays, fills a gap
 * or drains its buffer; once caught up with a consumer to hand over to, the generator ends with
 * PARKED rather than suspending, and a new one starts at the next pull (see `pull`), so a parked
 * subscriber holds no generator, no promise and no closure besides its bus listener.
 */
class ReplayThenLive<E> implements ReplayStream<E> {
  private readonly listening: Listening;
  /** Live events waiting to be pulled; NO_EVENTS while there are none (see NO_EVENTS). */
  private buffer: E[] = NO_EVENTS;
  private overflowed = false;
  private ended = false;
  private catchUp = false;
  /** The final event was handed on (or the stream must end once caught up): nothing follows. */
  private finished = false;
  /** Resolves the wait of a generator with no consumer to hand over to (see `steady`). */
  private wake: (() => void) | undefined;
  /** The position of the last event handed on (pulled or taken), and that event. */
  private last = 0;
  private lastEvent: E | undefined;
  /** The consumer live events are handed over to, once one asked (see infra/handover.ts). */
  private direct: DirectConsumer<E> | undefined;
  /** True while the stream is parked and live events go to `direct.take`. */
  private handedOver = false;
  /** The generator of the items now, if any; none before the first pull and while parked. */
  private generator: AsyncGenerator<E | Parked, Parked | undefined> | undefined;
  /** The first pull has started the generator: later generators start at the steady loop. */
  private begun = false;

  constructor(private readonly options: ReplayOptions<E>) {
    // Listen from the start, so nothing published during the replay is lost.
    // The stream is its own listener (its onLive), rather than a function bound to it.
    this.listening = options.live(this);
  }

  /** Resolves once the live listener is in effect. */
  get ready(): Promise<void> {
    return this.listening.ready;
  }

  /** The bus listener: every live event of the topic, in the order the bus has them. */
  onLive(payload: object): void {
    const { options } = this;
    if (this.overflowed || this.ended) return;
    if (payload === CATCH_UP) {
      this.catchUp = true;
    } else {
      if (!options.accept(payload)) return;
      if (this.handedOver) {
        // The steady state of a caught-up subscriber: the next event in order goes straight to
        // the consumer. Anything else (a gap, the final event, a consumer that cannot take it)
        // goes through the buffer and a pull, as before the hand-over.
        const position = options.positionOf(payload);
        if (position <= this.last) return;
        const direct = this.direct;
        if (position === this.last + 1 && !this.isFinal(payload) && direct?.canTake()) {
          this.last = position;
          this.lastEvent = payload;
          direct.take(payload);
          return;
        }
      }
      if (this.buffer.length >= options.maxBuffer) {
        // Stop listening at once: the client resumes from the store after the resync.
        this.overflowed = true;
        this.listening.close();
      } else {
        if (this.buffer === NO_EVENTS) this.buffer = [];
        this.buffer.push(payload);
      }
    }
    if (this.handedOver) {
      // Ends a hand-over: the consumer pulls again, and a new generator goes on from the PARKED.
      this.handedOver = false;
      this.direct?.wake();
    } else {
      this.wake?.();
    }
  }

  private isFinal(event: E): boolean {
    return this.options.isFinal?.(event) ?? false;
  }

  /** The next item: from the generator under way, or a new one (the first, or one after a PARKED). */
  async pull(): Promise<IteratorResult<E | Parked>> {
    if (!this.generator) {
      // Ended while parked (or after its last item): nothing more comes.
      if (this.ended) return { done: true, value: undefined };
      this.handedOver = false;
      this.generator = this.run(!this.begun);
      this.begun = true;
    }
    const generator = this.generator;
    const item = await generator.next();
    if (!item.done) return item;
    if (this.generator === generator) this.generator = undefined;
    return item.value === PARKED ? { done: false, value: PARKED } : { done: true, value: undefined };
  }

  /**
   * The stream's items from where it stands: from the start (`first`: the acknowledgement and the
   * replay), or at the steady loop. Returns PARKED, without closing anything, when it hands its live
   * events over; any other end (done, thrown, returned) closes the stream.
   */
  private async *run(first: boolean): AsyncGenerator<E | Parked, Parked | undefined> {
    let parked = false;
    try {
      if (first) {
        yield* this.begin();
        if (this.finished) return undefined;
      }
      const result = yield* this.steady();
      parked = result === PARKED;
      return result;
    } finally {
      if (!parked) this.close();
    }
  }

  /** The acknowledgement and, for a resume, the stored events after the client's position. */
  private async *begin(): AsyncGenerator<E> {
    const { options } = this;
    await this.listening.ready;
    const start = await options.takeStart();
    const pageSize = options.pageSize ?? REPLAY_PAGE;
    const maxReplay = options.maxReplay ?? REPLAY_MAX_EVENTS;
    this.last = start.from ?? start.head;
    const resumed = start.from !== null && start.from < start.head;
    if (resumed && start.head - (start.from ?? 0) > maxReplay) {
      // Too far behind to replay: the client re-queries the state instead (see REPLAY_MAX_EVENTS).
      this.last = start.head;
      yield positioned(options.acknowledge(this.last), this.last);
      options.observer?.historyLost?.();
      yield positioned(options.historyLost(this.last), this.last);
    } else if (resumed) {
      const first = await this.page(start.head);
      if (first.length === 0 || options.positionOf(first[0]) !== this.last + 1) {
        // The event right after the client's position expired: a replay would have a hole.
        this.last = start.head;
        yield positioned(options.acknowledge(this.last), this.last);
        options.observer?.historyLost?.();
        yield positioned(options.historyLost(this.last), this.last);
      } else {
        yield positioned(options.acknowledge(this.last), this.last);
        const before = this.last;
        yield* this.inOrder(first, true);
        if (this.last > before && first.length === pageSize) yield* this.stored(Number.POSITIVE_INFINITY, start.head);
      }
    } else {
      yield positioned(options.acknowledge(this.last), this.last);
    }
    if (start.finished && this.last >= start.head) this.finished = true;
  }

  /**
   * The live events, strictly in order, from the buffer: a live event that skips ahead (publishes
   * from several writers can arrive out of order, or one can be lost while the bus was down) makes
   * the missing ones be read from the store first, and an event at or below the last position is a
   * duplicate and dropped. After the bus reconnected (CATCH_UP), the store is read for what was
   * missed. Returns PARKED once caught up with a consumer to hand over to, undefined when the
   * stream ends.
   */
  private async *steady(): AsyncGenerator<E, Parked | undefined> {
    const { options } = this;
    for (;;) {
      if (this.catchUp) {
        this.catchUp = false;
        // What was published while the bus was down is newer than any read under way: read it fresh.
        yield* this.stored(Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY);
        if (this.finished) return undefined;
      }
      while (this.buffer.length > 0) {
        const event = this.buffer.shift()!;
        const position = options.positionOf(event);
        if (position <= this.last) continue;
        // A live event ahead of the next expected one: what lies between is in the store, since
        // positions are taken in commit order.
        if (position > this.last + 1) {
          yield* this.stored(position - 1, position - 1);
          if (this.finished) return undefined;
          // The store had it already, or still lacks what comes before it (it arrives live then).
          if (position !== this.last + 1) continue;
        }
        // The next event in order, yielded here rather than through inOrder: this is every live
        // event of every subscriber, and a nested generator per event costs each of them.
        this.last = position;
        this.lastEvent = event;
        yield positioned(event, position);
        if (this.isFinal(event)) return undefined;
      }
      // Drained: an array that grew (17 slots at its first push) is not kept for an idle life.
      this.buffer = NO_EVENTS;
      if (this.overflowed) {
        options.observer?.resync();
        const resync = options.resync(this.last, this.lastEvent);
        if (typeof resync === 'object' && resync !== null) resumeRequests.add(resync);
        yield positioned(resync, this.last);
        return undefined;
      }
      if (this.ended) return undefined;
      if (this.catchUp) continue;
      if (this.direct) {
        // Caught up: hand the live events over until something needs a pull (see infra/handover.ts).
        this.handedOver = true;
        return PARKED;
      }
      await new Promise<void>((resolve) => (this.wake = resolve));
      this.wake = undefined;
    }
  }

  /** The events of `events` that follow `last` without a gap, each once; stops at a gap or the final event. */
  private *inOrder(events: E[], replayed: boolean): Generator<E> {
    const { options } = this;
    for (const event of events) {
      const position = options.positionOf(event);
      if (position <= this.last) continue;
      if (position > this.last + 1) return;
      this.last = position;
      this.lastEvent = event;
      if (replayed) options.observer?.replayed();
      yield positioned(event, position);
      if (this.isFinal(event)) {
        this.finished = true;
        return;
      }
    }
  }

  /**
   * A page of stored events after `last`. A short page from a shared read (which may have
   * started before events up to `atLeast` were committed) is read again, fresh.
   */
  private async page(atLeast: number): Promise<E[]> {
    const { options } = this;
    const pageSize = options.pageSize ?? REPLAY_PAGE;
    const events = await options.readPage(this.last, pageSize, false);
    const end = events.length ? options.positionOf(events[events.length - 1]) : this.last;
    return events.length < pageSize && end < atLeast ? options.readPage(this.last, pageSize, true) : events;
  }

  /**
   * Sends the stored events after `last`, a page at a time as the client takes them, up to
   * `until` (or as far as the store goes). Stops at a gap (what follows arrives live), the final
   * event or the end of the stored events.
   */
  private async *stored(until: number, atLeast: number): AsyncGenerator<E> {
    const pageSize = this.options.pageSize ?? REPLAY_PAGE;
    while (!this.finished && this.last < until) {
      const events = await this.page(atLeast);
      const before = this.last;
      yield* this.inOrder(events, true);
      if (this.last === before || events.length < pageSize) return;
    }
  }

  /** Ends the stream: no live event is taken from now on, and the listener and the buffer are let go. */
  private close(): void {
    this.ended = true;
    this.handedOver = false;
    this.buffer = NO_EVENTS;
    this.listening.close();
  }

  /** The stream's items for a consumer that did not ask for the hand-over, which never sees PARKED. */
  private narrow(item: IteratorResult<E | Parked>): IteratorResult<E> {
    if (item.done) return { done: true, value: undefined };
    if (item.value === PARKED) throw new Error('A replay stream parked without a consumer to hand over to.');
    return { done: false, value: item.value };
  }

  async next(): Promise<IteratorResult<E>> {
    return this.narrow(await this.pull());
  }

  [HAND_OVER](consumer: DirectConsumer<E>): Puller<E | Parked> {
    this.direct = consumer;
    return this;
  }

  async return(): Promise<IteratorResult<E>> {
    this.close();
    this.wake?.();
    const generator = this.generator;
    if (!generator) return { done: true, value: undefined };
    const item = await generator.return(undefined);
    return item.done ? { done: true, value: undefined } : this.narrow(item);
  }

  async throw(error?: unknown): Promise<IteratorResult<E>> {
    this.close();
    this.wake?.();
    const generator = this.generator;
    if (!generator) throw error;
    const item = await generator.throw(error);
    return item.done ? { done: true, value: undefined } : this.narrow(item);
  }

  [Symbol.asyncIterator](): this {
    return this;
  }
}

export function replayThenLive<E>(options: ReplayOptions<E>): ReplayStream<E> {
  return new ReplayThenLive(options);
}
