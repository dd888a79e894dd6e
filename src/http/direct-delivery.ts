import type { ExecutionResult } from 'graphql';
import type { Delivery, DeliveryStream, DirectWriter, SubscriptionLifetime } from '../graphql/pipeline';
import { PARKED, type Parked } from '../infra/handover';

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
 * Results are pulled from the stream with callbacks rather than an async loop. Once the stream is
 * caught up it parks (see infra/handover.ts): from then on each live event's result arrives through
 * the writer by a plain call, and an idle subscription holds no pending promise of its own, only
 * graphql-ws's wait on `next()`.
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
export function deliverDirectly(stream: DeliveryStream, target: DirectTarget): AsyncGenerator<never> {
  const { lifetime } = target;
  const prefix = `{"id":${JSON.stringify(target.id)},"type":"next","payload":`;
  let inFlight = 0;
  /** A pull is under way (its result not yet handled). */
  let pulling = false;
  /** Waiting for frames to leave before the next pull. */
  let draining = false;
  /**
   * The stream woke us while the pull that gives its PARKED was still on its way: that PARKED is
   * then already over, and the pull after it must follow at once.
   */
  let wokenEarly = false;
  let finished = false;

  const done: IteratorReturnResult<undefined> = { done: true, value: undefined };
  let settle!: { resolve(result: IteratorResult<never>): void; reject(error: unknown): void };
  const over = new Promise<IteratorResult<never>>((resolve, reject) => (settle = { resolve, reject }));

  /** Ends the delivery once: the stream is closed (whatever it holds is released), then graphql-ws hears of the end. */
  const finish = (failure?: { error: unknown }) => {
    if (finished) return;
    finished = true;
    draining = false;
    stream.return(undefined).then(
      () => (failure ? settle.reject(failure.error) : settle.resolve(done)),
      (error: unknown) => settle.reject(failure ? failure.error : error),
    );
  };
  const send = (result: ExecutionResult) => {
    if (lifetime.ended) return;
    inFlight++;
    target.write(`${prefix}${target.payload(result)}}`, written);
  };
  const written = () => {
    inFlight--;
    if (draining && inFlight < MAX_FRAMES_IN_FLIGHT) {
      draining = false;
      pull();
    }
  };
  const writer: DirectWriter = {
    canTake: (pending) => !lifetime.ended && inFlight + pending < MAX_FRAMES_IN_FLIGHT,
    deliver: send,
    fail: (error) => finish({ error }),
    wake: () => {
      if (pulling) wokenEarly = true;
      else pull();
    },
  };
  const next = stream.handOver?.(writer) ?? (() => stream.next());

  /** Takes the stream's next item, unless the subscription ended or too many frames have not left yet. */
  function pull(): void {
    if (finished || pulling) return;
    if (lifetime.ended) {
      finish();
      return;
    }
    if (inFlight >= MAX_FRAMES_IN_FLIGHT) {
      draining = true;
      return;
    }
    pulling = true;
    next().then(taken, (error: unknown) => {
      pulling = false;
      finish({ error });
    });
  }
  function taken(item: IteratorResult<Delivery | Parked, undefined>): void {
    pulling = false;
    if (item.done || lifetime.ended) {
      finish();
      return;
    }
    // Parked: the stream hands its live events to `writer` until it wakes us (or did already).
    if (item.value === PARKED) {
      if (!wokenEarly) return;
      wokenEarly = false;
    } else {
      send(item.value.result);
    }
    pull();
  }
  // A subscription that ends while parked or waiting for its frames to leave stops at once; one
  // that ends during a pull stops when the pull returns.
  lifetime.onEnd(() => {
    if (!pulling) finish();
  });
  pull();

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
