/**
 * The hand-over between a live stream and the consumer that delivers it, for the live path's
 * steady state: a subscriber that is caught up is handed each next live event by a plain call
 * from the bus listener, instead of pulling it through a chain of async iterators.
 *
 * A stream that supports it has a `[HAND_OVER]` method. A consumer that calls it gets an object
 * whose `pull` it uses instead of the stream's `next` (an object, often the stream itself, rather
 * than a bound function: every idle subscriber holds it for its life). `pull` gives the stream's items in order, as
 * `next` would, except that when the stream is caught up it gives PARKED: from then on the
 * stream calls `take` with each live event that comes next in order, until something needs a pull
 * (a gap to read from the store, the final event, a catch-up after a bus outage, an overflow, or
 * `canTake` saying no), when it calls `wake` once. The consumer then pulls again, and nothing
 * reaches `take` until the next PARKED. `take` and `wake` may come before the pull that gives
 * PARKED has resolved: the stream parks when it yields, not when the consumer sees it, so a
 * consumer must remember a wake that overtook its PARKED (see direct-delivery.ts).
 *
 * A parked subscriber holds no pending promise and no suspended async function between events:
 * the replay stream's generator ends when it gives PARKED, and a new one starts at the pull after
 * the wake (see events/replay.ts), so what is left is the stream's state object and its listener.
 */

/** What `pull` gives while the stream hands its live events over through `take`. */
export const PARKED: unique symbol = Symbol('parked');
export type Parked = typeof PARKED;

/** The consumer's side of the hand-over. */
export interface DirectConsumer<E> {
  /** False while the consumer cannot take another event at once (frames still in flight). */
  canTake(): boolean;
  /** The next event in order; called synchronously from the bus listener. */
  take(event: E): void;
  /** Something needs a pull: pull until the next PARKED. Called once per PARKED. */
  wake(): void;
}

export const HAND_OVER: unique symbol = Symbol('hand over');

/** What a consumer pulls from once a stream handed over (see this module's comment). */
export interface Puller<T, R = unknown> {
  pull(): Promise<IteratorResult<T, R>>;
}

/** A stream that can hand its live events over (see this module's comment). */
export interface HandsOver<E> {
  [HAND_OVER](consumer: DirectConsumer<E>): Puller<E | Parked>;
}

/** True when `value` is a stream that can hand its live events over. */
export function handsOver(value: unknown): value is HandsOver<unknown> {
  return typeof value === 'object' && value !== null && HAND_OVER in value;
}
