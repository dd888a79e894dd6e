import type { ExecutionResult } from 'graphql';
import type { Delivery, SubscriptionLifetime } from '../graphql/pipeline';

/**
 * Frames a subscription may have written and not yet seen leave before it stops taking events
 * from its stream. While it waits, events pile up in the stream's own bounded buffer, which ends
 * the stream with RESYNC when it overflows (SUBSCRIPTION_BUFFER), as for any slow consumer.
 */
export const MAX_FRAMES_IN_FLIGHT = 64;

/** Where one subscription's frames go (see deliverDirectly). */
export interface DirectTarget {
  /** The client's id of the operation, spliced into every frame. */
  id: string;
  /** Writes a frame without waiting; `written` is called once it has left or was dropped. */
  write(data: string, written: () => void): void;
  /** The operation; no frame is written once it has ended. */
  lifetime: SubscriptionLifetime;
  /** The `next` payload's JSON for a result: the bytes shared by its share key, or the subscriber's own. */
  payload(result: ExecutionResult): string;
}

/**
 * Delivers a subscription's results straight to its socket, and hands graphql-ws an iterable it
 * only waits on.
 *
 * graphql-ws runs `for await (const result of subscribe(args))` per operation and, per result, an
 * `onNext` hook, a JSON.stringify of the whole envelope and an awaited send. Here each result's
 * frame is the payload bytes its share key serialized once (OperationPipeline.sharedPayload) with
 * the operation's id spliced in front, written at once; the subscriber waits only when
 * MAX_FRAMES_IN_FLIGHT of its frames have not left yet.
 *
 * What this relies on in graphql-ws 6 (src/server.ts, `case MessageType.Subscribe`; tested in
 * test/unit/direct-delivery.test.ts and by the protocol tests in test/e2e):
 * - it awaits `next()` of the returned iterable once and sends `complete` when that resolves done
 *   (unless the client completed the operation first), or `error` with the message when it rejects;
 *   so every frame written here precedes graphql-ws's last message for the id;
 * - a client's `complete`, or the socket's close, calls `return()`, which here ends the operation
 *   and resolves the waiting `next()`;
 * - nothing else of the operation passes through graphql-ws, so its `onNext` hook is not called
 *   for subscription results (errors are formatted by `payload`).
 */
export function deliverDirectly(stream: AsyncGenerator<Delivery>, target: DirectTarget): AsyncGenerator<never> {
  const { lifetime } = target;
  const prefix = `{"id":${JSON.stringify(target.id)},"type":"next","payload":`;
  let inFlight = 0;
  let drained: (() => void) | undefined;
  const wakeUp = () => {
    const resume = drained;
    drained = undefined;
    resume?.();
  };
  const written = () => {
    inFlight--;
    if (inFlight < MAX_FRAMES_IN_FLIGHT) wakeUp();
  };
  // A subscription waiting for its frames to leave stops at once when it ends.
  lifetime.onEnd(wakeUp);

  async function pump(): Promise<void> {
    try {
      for (;;) {
        if (inFlight >= MAX_FRAMES_IN_FLIGHT && !lifetime.ended) await new Promise<void>((resolve) => (drained = resolve));
        if (lifetime.ended) return;
        const next = await stream.next();
        if (next.done || lifetime.ended) return;
        inFlight++;
        target.write(`${prefix}${target.payload(next.value.result)}}`, written);
      }
    } finally {
      // The stream may be suspended at a result not written (the operation ended meanwhile): close it.
      await stream.return(undefined);
    }
  }

  const done: IteratorReturnResult<undefined> = { done: true, value: undefined };
  let settle!: { resolve(result: IteratorResult<never>): void; reject(error: unknown): void };
  const over = new Promise<IteratorResult<never>>((resolve, reject) => (settle = { resolve, reject }));
  pump().then(
    () => settle.resolve(done),
    (error: unknown) => settle.reject(error),
  );

  const parked: AsyncGenerator<never> = {
    next: () => over,
    async return() {
      lifetime.end();
      settle.resolve(done);
      return done;
    },
    async throw(error?: unknown) {
      lifetime.end();
      settle.resolve(done);
      throw error;
    },
    [Symbol.asyncIterator]() {
      return parked;
    },
  };
  return parked;
}
