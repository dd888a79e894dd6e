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
 */
export interface ReplayOptions<E> {
  mode: 'sequence' | 'id';
  live: { events: AsyncIterator<unknown>; ready: () => Promise<void> };
  /** The position a client passed (a seq, or an event id); null to start from now. */
  after: number | string | null;
  /** Stored events after `after` (and, in sequence mode, up to `until`), in order. */
  readAfter(after: number | string, until?: number): Promise<E[]>;
  positionOf(event: E): number | string;
  /** Keeps only the live payloads this subscription wants (all of them when omitted). */
  accept?(payload: unknown): payload is E;
  resync(resumeAfter: number | string | null): E;
  maxBuffer: number;
}

export function replayThenLive<E>(options: ReplayOptions<E>): AsyncIterableIterator<E> {
  const { live, mode, positionOf } = options;
  const buffer: E[] = [];
  let overflowed = false;
  let ended = false;
  let wake: (() => void) | undefined;
  const seen = new Set<string | number>();

  // Pull live events into the buffer from the start, so nothing published during replay is lost.
  const pump = (async () => {
    try {
      for (;;) {
        const next = await live.events.next();
        if (next.done) break;
        if (options.accept && !options.accept(next.value)) continue;
        if (buffer.length >= options.maxBuffer) {
          overflowed = true;
          // Stop listening at once: the client resumes from the store after the resync.
          await live.events.return?.();
          break;
        }
        buffer.push(next.value as E);
        wake?.();
      }
    } finally {
      ended = true;
      wake?.();
    }
  })();

  async function* run(): AsyncGenerator<E> {
    try {
      yield* deliver();
    } finally {
      await live.events.return?.();
    }
  }

  async function* deliver(): AsyncGenerator<E> {
    let last: number | string | null = options.after;
    const fresh = (event: E) => {
      const position = positionOf(event);
      if (mode === 'sequence') return last === null || (position as number) > (last as number);
      if (seen.has(position)) return false;
      seen.add(position);
      if (seen.size > 10_000) seen.delete(seen.values().next().value as string | number);
      return true;
    };
    await live.ready();
    if (options.after !== null) {
      for (const event of await options.readAfter(options.after)) {
        if (!fresh(event)) continue;
        last = positionOf(event);
        yield event;
      }
    }
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
            yield missing;
          }
        }
        last = position;
        yield event;
      }
      if (overflowed) {
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
    await live.events.return?.();
    await pump.catch(() => {});
  };
  return {
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
