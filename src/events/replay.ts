import type { Listening } from '../infra/pubsub';

/**
 * Replay-then-live delivery for one subscription. The live subscription is made first; then the
 * stored events after the client's position are sent; then the live ones buffered meanwhile and
 * after, with duplicates dropped. A client that resubscribes with the last position it saw gets
 * every event once, in order.
 *
 * Two kinds of stream:
 * - `sequence` (a job's events, numbered 1, 2, 3 … without gaps): events are delivered strictly
 *   in order; a live event that skips ahead (two writers' publishes can arrive out of order) makes
 *   the missing ones be read from the store first.
 * - `id` (project activity, ordered by time): duplicates are dropped by id.
 *
 * The buffer is bounded. When a slow consumer lets it overflow, the stream ends with an explicit
 * resync event naming the position to resume from, instead of silently dropping events.
 *
 * The stream also ends after an event that `isFinal` recognizes (a finished job's last event),
 * and, when `live` is null because nothing more can happen, once the replay is sent. However it
 * ends, or when the consumer returns it, the live listener is closed and the buffer dropped.
 */
export interface ReplayOptions<E> {
  mode: 'sequence' | 'id';
  /** Starts listening to live events (see EventBus.listen); null when no event can come any more. */
  live: ((push: (payload: object) => void) => Listening) | null;
  /** The position a client passed (a seq, or an event id); null to start from now. */
  after: number | string | null;
  /**
   * Where the stream starts when that is only known once the listener is in effect (see
   * Live.jobProgress): `after` is the position, and stored events after it are read only when
   * `replay` is true. Overrides `after`. Left pending forever if the stream is returned instead.
   */
  start?: Promise<{ after: number | string | null; replay: boolean }>;
  /** Stored events after `after` (and, in sequence mode, up to `until`), in order. */
  readAfter(after: number | string, until?: number): Promise<E[]>;
  positionOf(event: E): number | string;
  /** Keeps only the live payloads this subscription wants (all of them when omitted). */
  accept?(payload: unknown): payload is E;
  resync(resumeAfter: number | string | null): E;
  /** True for the stream's last event: the stream ends once it is delivered. */
  isFinal?(event: E): boolean;
  /** Told of each stored event sent and each resync (the metrics `events_replayed_total`, `subscription_resyncs_total`). */
  observer?: ReplayObserver;
  maxBuffer: number;
}

export interface ReplayObserver {
  replayed(): void;
  resync(): void;
}

const NOT_LISTENING: Listening = { ready: Promise.resolve(), close: () => {} };

/** A replay-then-live stream; `ready` resolves once its live listener is in effect. */
export type ReplayStream<E> = AsyncIterableIterator<E> & { ready: Promise<void> };

export function replayThenLive<E>(options: ReplayOptions<E>): ReplayStream<E> {
  const { mode, positionOf } = options;
  const buffer: E[] = [];
  let overflowed = false;
  let ended = false;
  let wake: (() => void) | undefined;
  const seen = new Set<string | number>();
  const isFinal = options.isFinal ?? (() => false);

  // Listen from the start, so nothing published during the replay is lost.
  const live: Listening =
    options.live?.((payload) => {
      if (overflowed || ended) return;
      if (options.accept && !options.accept(payload)) return;
      if (buffer.length >= options.maxBuffer) {
        // Stop listening at once: the client resumes from the store after the resync.
        overflowed = true;
        live.close();
      } else {
        buffer.push(payload as unknown as E);
      }
      wake?.();
    }) ?? NOT_LISTENING;

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
    const start = options.start ? await options.start : { after: options.after, replay: options.after !== null };
    let last: number | string | null = start.after;
    const fresh = (event: E) => {
      const position = positionOf(event);
      if (mode === 'sequence') return last === null || (position as number) > (last as number);
      if (seen.has(position)) return false;
      seen.add(position);
      if (seen.size > 10_000) seen.delete(seen.values().next().value as string | number);
      return true;
    };
    if (start.replay && start.after !== null) {
      for (const event of await options.readAfter(start.after)) {
        if (!fresh(event)) continue;
        last = positionOf(event);
        options.observer?.replayed();
        yield event;
        if (isFinal(event)) return;
      }
    }
    if (!options.live) return;
    for (;;) {
      while (buffer.length > 0) {
        const event = buffer.shift()!;
        if (!fresh(event)) continue;
        const position = positionOf(event);
        // A live event ahead of the next expected one: fetch what lies between from the store.
        if (mode === 'sequence' && last !== null && (position as number) > (last as number) + 1) {
          for (const missing of await options.readAfter(last, (position as number) - 1)) {
            if (!fresh(missing)) continue;
            last = positionOf(missing);
            options.observer?.replayed();
            yield missing;
            if (isFinal(missing)) return;
          }
        }
        last = position;
        yield event;
        if (isFinal(event)) return;
      }
      if (overflowed) {
        options.observer?.resync();
        yield options.resync(last);
        return;
      }
      if (ended) return;
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
      return generator.return(value as E);
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
