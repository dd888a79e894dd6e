import type { ExecutionResult } from 'graphql';
import type { Delivery, DeliveryStream, DirectWriter, SubscriptionLifetime } from '../graphql/shared-subscriptions';
import { PARKED, type Parked } from '../infra/handover';

/**
 * Frames a subscription may have written and not yet seen leave before it stops taking events
 * from its stream. While it waits, events pile up in the stream's own bounded buffer, which ends
 * the stream with RESYNC when it overflows (SUBSCRIPTION_BUFFER), as for any slow consumer.
 */
export const MAX_FRAMES_IN_FLIGHT = 64;

/** Where one subscription's frames go (see deliverDirectly): its Operation in ws-transport.ts. */
export interface DirectTarget extends SubscriptionLifetime {
  /** Writes a `next` frame with `payload` (JSON in UTF-8) without waiting; `written` is called once it has left or was dropped. */
  next(payload: Uint8Array, written: () => void): void;
}

export interface DirectDelivery {
  /** The operation the frames belong to; no frame is written once it has ended. */
  target: DirectTarget;
  /** The `next` payload's JSON for a result, in UTF-8: the bytes shared by its share key, or the subscriber's own. */
  payload(result: ExecutionResult): Uint8Array;
  /**
   * The stream is over and released: it ran out or the operation ended (`failure` undefined), or
   * pulling from it or executing an event threw (`failure.error`). Called exactly once.
   */
  finished(failure?: { error: unknown }): void;
}

/**
 * Delivers a subscription's results straight to its socket: each result's frame is the payload
 * bytes its share key serialized once (OperationPipeline.sharedPayload) with the operation's id
 * spliced in front, written at once; the subscriber waits only when MAX_FRAMES_IN_FLIGHT of its
 * frames have not left yet.
 *
 * Results are pulled from the stream with callbacks rather than an async loop. Once the stream is
 * caught up it parks (see infra/handover.ts): from then on each live event's result arrives through
 * the writer by a plain call, and an idle subscription holds no pending promise at all, only this
 * closure's state, the stream and the listener that feeds it.
 */
export function deliverDirectly(stream: DeliveryStream, delivery: DirectDelivery): void {
  const { target } = delivery;
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

  /** Ends the delivery once: the stream is closed (whatever it holds is released), then the operation hears of the end. */
  const finish = (failure?: { error: unknown }) => {
    if (finished) return;
    finished = true;
    draining = false;
    stream.return(undefined).then(
      () => delivery.finished(failure),
      (error: unknown) => delivery.finished(failure ?? { error }),
    );
  };
  const send = (result: ExecutionResult) => {
    if (target.ended) return;
    inFlight++;
    target.next(delivery.payload(result), written);
  };
  const written = () => {
    inFlight--;
    if (draining && inFlight < MAX_FRAMES_IN_FLIGHT) {
      draining = false;
      pull();
    }
  };
  const writer: DirectWriter = {
    canTake: (pending) => !target.ended && inFlight + pending < MAX_FRAMES_IN_FLIGHT,
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
    if (target.ended) {
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
    if (item.done || target.ended) {
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
  target.onEnd(() => {
    if (!pulling) finish();
  });
  pull();
}
