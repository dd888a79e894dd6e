import type { ExecutionResult } from 'graphql';
import type { Delivery, DeliveryStream, DirectWriter, SubscriptionLifetime } from '../graphql/shared-subscriptions';
import { PARKED, type Parked, type Puller } from '../infra/handover';

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
 * delivery's state (see DirectDeliveryRun), the stream and the listener that feeds it.
 */
export function deliverDirectly(stream: DeliveryStream, delivery: DirectDelivery): void {
  new DirectDeliveryRun(stream, delivery).start();
}

/**
 * One subscription's direct delivery, and the writer its stream hands live results to. One object
 * with its methods on the prototype rather than a closure per step, since every idle subscriber
 * holds it for as long as it is subscribed: thousands of them wait on a busy topic.
 */
class DirectDeliveryRun implements DirectWriter {
  private inFlight = 0;
  /** A pull is under way (its result not yet handled). */
  private pulling = false;
  /** Waiting for frames to leave before the next pull. */
  private draining = false;
  /**
   * The stream woke us while the pull that gives its PARKED was still on its way: that PARKED is
   * then already over, and the pull after it must follow at once.
   */
  private wokenEarly = false;
  private finished = false;
  /** Called back by the transport once a frame has left; made once, not per frame. */
  private readonly written: () => void;
  /** What it pulls from: the stream's hand-over, or its `next` for a stream that cannot hand over. */
  private readonly source: Puller<Delivery | Parked, undefined>;

  constructor(
    private readonly stream: DeliveryStream,
    private readonly delivery: DirectDelivery,
  ) {
    this.written = this.frameLeft.bind(this);
    this.source = stream.handOver?.(this) ?? { pull: () => stream.next() };
  }

  start(): void {
    // A subscription that ends while parked or waiting for its frames to leave stops at once; one
    // that ends during a pull stops when the pull returns.
    this.delivery.target.onEnd(this);
    this.pull();
  }

  canTake(pending: number): boolean {
    return !this.delivery.target.ended && this.inFlight + pending < MAX_FRAMES_IN_FLIGHT;
  }

  deliver(result: ExecutionResult): void {
    const { target } = this.delivery;
    if (target.ended) return;
    this.inFlight++;
    target.next(this.delivery.payload(result), this.written);
  }

  fail(error: unknown): void {
    this.finish({ error });
  }

  wake(): void {
    if (this.pulling) this.wokenEarly = true;
    else this.pull();
  }

  /** The operation ended (see EndListener). */
  lifetimeEnded(): void {
    if (!this.pulling) this.finish();
  }

  private frameLeft(): void {
    this.inFlight--;
    if (this.draining && this.inFlight < MAX_FRAMES_IN_FLIGHT) {
      this.draining = false;
      this.pull();
    }
  }

  /** Ends the delivery once: the stream is closed (whatever it holds is released), then the operation hears of the end. */
  private finish(failure?: { error: unknown }): void {
    if (this.finished) return;
    this.finished = true;
    this.draining = false;
    const { delivery } = this;
    this.stream.return(undefined).then(
      () => delivery.finished(failure),
      (error: unknown) => delivery.finished(failure ?? { error }),
    );
  }

  /** Takes the stream's next item, unless the subscription ended or too many frames have not left yet. */
  private pull(): void {
    if (this.finished || this.pulling) return;
    if (this.delivery.target.ended) {
      this.finish();
      return;
    }
    if (this.inFlight >= MAX_FRAMES_IN_FLIGHT) {
      this.draining = true;
      return;
    }
    this.pulling = true;
    this.source.pull().then(
      (item) => this.taken(item),
      (error: unknown) => {
        this.pulling = false;
        this.finish({ error });
      },
    );
  }

  private taken(item: IteratorResult<Delivery | Parked, undefined>): void {
    this.pulling = false;
    if (item.done || this.delivery.target.ended) {
      this.finish();
      return;
    }
    // Parked: the stream hands its live events to this writer until it wakes us (or did already).
    if (item.value === PARKED) {
      if (!this.wokenEarly) return;
      this.wokenEarly = false;
    } else {
      this.deliver(item.value.result);
    }
    this.pull();
  }
}
