import { createSourceEventStream, execute, getOperationAST, type DocumentNode, type ExecutionArgs, type ExecutionResult } from 'graphql';
import type { Principal } from '../auth/principal';
import { Context } from '../context';
import { runWithBudget } from '../infra/deadline';
import { numberByIdentity } from '../infra/identity';
import { type DirectConsumer, HAND_OVER, handsOver, type HandsOver, PARKED, type Parked, type Puller } from '../infra/handover';
import { inSpan, SpanKind, startLinkedSpan, traceparentOfEvent, tracingActive } from '../infra/tracing';
import { logger } from '../logger';

/** What a subscription needs from the transport that carries it: whether it ended, and a way to hear when it does. */
export interface SubscriptionLifetime {
  readonly ended: boolean;
  /**
   * True once it ended because its peer vanished: a socket closed without a close frame (1006) or
   * dropped by the keep-alive, an SSE response cut by its peer. Set before its cleanups run.
   */
  readonly abrupt?: boolean;
  onEnd(cleanup: EndListener): void;
  end(): void;
}

/**
 * What a lifetime calls once it ends: a function, or an object whose `lifetimeEnded` it calls. An
 * object is held as it is, where `object.method.bind(object)` would be one more function (48
 * bytes) that every idle subscription holds for its life.
 */
export type EndListener = (() => void) | { lifetimeEnded(): void };

/** Calls `listener` (see EndListener); a throw is logged as a failed cleanup of `what`, never passed on. */
export function callEndListener(listener: EndListener, what: string): void {
  try {
    if (typeof listener === 'function') listener();
    else listener.lifetimeEnded();
  } catch (err) {
    logger.warn({ err }, `${what} cleanup failed`);
  }
}

/** One result of a subscription and the source event it was executed for. */
export interface Delivery {
  result: ExecutionResult;
  event: unknown;
}

/**
 * Where a handed-over subscription's results go (see DeliveryStream.handOver): the transport's
 * side, which writes each result as a frame.
 */
export interface DirectWriter {
  /** True when the transport can take `pending` more results at once (besides the frames it has in flight). */
  canTake(pending: number): boolean;
  /** The subscription's next result, in order. */
  deliver(result: ExecutionResult): void;
  /** Executing an event failed: the subscription ends with `error`, as when a pull throws. */
  fail(error: unknown): void;
  /** Results now come from pulls again, until the next PARKED. */
  wake(): void;
}

/**
 * A subscription's results. When its source stream can hand its live events over (see
 * infra/handover.ts), `handOver` gives what to pull from instead of `next`: it gives PARKED
 * once the subscriber is caught up, after which each live event's result, executed once per share
 * key and event, is handed to the writer by a plain call, in order.
 */
export type DeliveryStream = AsyncGenerator<Delivery, undefined> & {
  handOver?(writer: DirectWriter): Puller<Delivery | Parked, undefined>;
};

/**
 * One event's result for the handed-over subscribers of one share key, and who waits for it.
 * Results of one key are handed on in the order their events arrived (see `directBatch`).
 */
interface DirectBatch {
  waiters: Array<{ handedOn(batch: DirectBatch): void }> | null;
  result?: ExecutionResult;
  error?: unknown;
  failed: boolean;
}

/** Execution arguments of one subscription, plus what its shared per-event execution needs. */
export interface SubscriptionArgs extends ExecutionArgs {
  lifetime: SubscriptionLifetime;
  /** The subscriber, for the source stream (auth, tenant); events are executed without the individual user. */
  principal: Principal | null;
}

/**
 * The shared subscription execution part of the operation pipeline (OperationPipeline.stream):
 * each event is executed once per share key with a fresh context, its result shared by every
 * subscriber of that key, its `next` payload serialized once, and handed to caught-up
 * subscribers by the hand-over (see infra/handover.ts) in event order per key.
 */
export class SharedSubscriptions {
  /** The share groups of the subscriptions running now, by share key (see `joinShareGroup`). */
  private readonly shareGroups = new Map<string, ShareGroup>();
  /** Results of executing one event for one share key (see `subscribe`). */
  private readonly sharedResults = new WeakMap<object, Map<string, Promise<ExecutionResult>>>();
  /** The same for handed-over subscribers, with who waits (see `directBatch`). */
  private readonly directBatches = new WeakMap<object, Map<string, DirectBatch>>();
  /** Per share key, the hand-on of its newest batch: a key's results are handed on in event order. */
  private readonly directTails = new Map<string, Promise<void>>();
  /** The `next` payload of each shared result without errors, serialized once (see `sharedPayload`). */
  private readonly sharedPayloads = new WeakMap<ExecutionResult, Buffer>();
  /** How many times an event was executed for subscribers (once per event and share key); tests read it. */
  sharedExecutions = 0;
  /** How many times a shared result was serialized (once per event and share key); tests read it. */
  sharedSerializations = 0;
  /**
   * Subscription results handed to a caught-up subscriber by the hand-over, and results pulled
   * (acknowledgements, replays, gaps, and every result of a transport that does not hand over);
   * tests read them to show which path delivered.
   */
  readonly results = { handedOver: 0, pulled: 0 };

  /**
   * `newContext` makes the context each event is executed with (never a subscriber's own);
   * `budgetMs` bounds each execution's waiting on DynamoDB and S3, as a request's (REQUEST_BUDGET_MS).
   */
  constructor(
    private readonly newContext: (principal: Principal | null) => Context,
    private readonly budgetMs: number,
  ) {}

  /**
   * Runs a subscription. The source stream (the field's `subscribe`: authorization, replay, the
   * bus listener) runs with the subscriber's own context. Each event is then executed once per
   * share key — the document, variables, operation name, tenant and roles — and the result is
   * shared by every subscriber with that key: one execution per event, not one per subscriber.
   *
   * Sharing is only sound if a payload cannot depend on the individual user. That is enforced,
   * not assumed: events are executed with a context whose principal carries the tenant and roles
   * but no user id, created fresh for each event (so loaders never serve stale data). When the
   * lifetime ends, the source is returned at once and no further result is handed on.
   *
   * Each result is handed on with the source event it was executed for, so that a transport can
   * label a message with the event's stream position (see positionOfDelivered in
   * events/replay.ts). Returns an ExecutionResult with errors, and starts nothing, when the source
   * stream cannot be created (the field's `subscribe` threw).
   */
  async stream(args: SubscriptionArgs): Promise<DeliveryStream | ExecutionResult> {
    const { lifetime, principal } = args;
    const operationName = tracingActive() ? (getOperationAST(args.document, args.operationName)?.name?.value ?? '') : '';
    const spanAttributes = { 'graphql.operation.type': 'subscription', 'graphql.operation.name': operationName };
    // With tracing on, starting the subscription (its authorization, the stream's head and replay
    // reads) is one trace, rather than a root span per DynamoDB call; nothing HTTP wraps a socket's operation.
    // The field's `subscribe` may need to know later how its transport ended (a bound worker's workSignals).
    if (args.contextValue instanceof Context) args.contextValue.lifetime = lifetime;
    const source = await inSpan('subscription start', { kind: SpanKind.SERVER, attributes: spanAttributes }, async () =>
      createSourceEventStream(args),
    );
    // The subscriber's repositories served the source stream, which keeps what it needs: events
    // are executed with a fresh context each (see executeShared).
    if (args.contextValue instanceof Context) args.contextValue.release();
    if (!isAsyncIterable(source)) return source;
    const iterator = source[Symbol.asyncIterator]();
    const group = this.joinShareGroup(args, principal, spanAttributes);
    const deliveries = handsOver(iterator)
      ? new HandedOverDeliveries(iterator, lifetime, group, this.results)
      : new SubscriptionDeliveries(iterator, lifetime, group, this.results);
    // The object itself rather than a closure or a bound method: it is held for the subscription's life.
    lifetime.onEnd(deliveries);
    return deliveries;
  }

  /** The share groups held now (see `joinShareGroup`); tests count them to show that each is let go. */
  shareGroupCount(): number {
    return this.shareGroups.size;
  }

  /** Share keys whose newest batch is not yet handed on (see `directBatch`); tests count them to show that each is let go. */
  batchTailCount(): number {
    return this.directTails.size;
  }

  /**
   * The share group of a new subscriber: the subscribers with its share key — the document (by
   * identity: the cache hands every subscriber of one query the same one), variables, operation
   * name, tenant and roles — hold one group with what executing an event for them needs, rather
   * than each a copy. Only that is kept for the subscription's life, not the subscriber's context.
   * The group goes once its last subscriber has ended (see SubscriptionDeliveries.close).
   */
  private joinShareGroup(args: SubscriptionArgs, principal: Principal | null, spanAttributes: Record<string, string>): ShareGroup {
    const roles = principal ? [...principal.roles].sort() : [];
    const shareKey = [
      JSON.stringify(args.variableValues ?? null),
      args.operationName ?? '',
      principal ? `${principal.tenantId}\u0000${roles.join(',')}` : '',
    ].join('\u0000');
    const key = `${documentKey(args.document)}\u0000${shareKey}`;
    // Spans name the operation only while tracing is on, so subscribers from before and after it started differ.
    const groupKey = `${key}\u0000${spanAttributes['graphql.operation.name']}`;
    let group = this.shareGroups.get(groupKey);
    if (!group) {
      const shared: Principal | null = principal && { userId: '', tenantId: principal.tenantId, roles };
      const shareArgs: ExecutionArgs = {
        schema: args.schema,
        document: args.document,
        operationName: args.operationName,
        variableValues: args.variableValues,
      };
      const groups = this.shareGroups;
      const made: ShareGroup = {
        spanAttributes,
        subscribers: 0,
        run: (event) => this.executeShared(shareArgs, key, shared, event),
        batch: (event) => this.directBatch(shareArgs, key, shared, event, spanAttributes),
        leave() {
          if (--made.subscribers === 0 && groups.get(groupKey) === made) groups.delete(groupKey);
        },
      };
      group = made;
      groups.set(groupKey, group);
    }
    group.subscribers++;
    return group;
  }

  /**
   * The batch of handed-over subscribers for one event and share key, made (and its execution
   * started) by the first of them. The batch is handed on after the key's previous batch, so that
   * every subscriber of the key gets its results in the order the events arrived, whatever order
   * their executions finish in. The bus calls every listener of an event in one synchronous loop,
   * so all of an event's subscribers join its batch before it is handed on.
   */
  private directBatch(
    args: ExecutionArgs,
    key: string,
    principal: Principal | null,
    event: unknown,
    spanAttributes: Record<string, string>,
  ): DirectBatch {
    const byKey = typeof event === 'object' && event !== null ? this.directBatches.get(event) : undefined;
    const existing = byKey?.get(key);
    if (existing?.waiters) return existing;
    const batch: DirectBatch = { waiters: [], failed: false };
    if (typeof event === 'object' && event !== null) {
      if (byKey) byKey.set(key, batch);
      else this.directBatches.set(event, new Map([[key, batch]]));
    }
    // With tracing on, executing an event for the handed-over subscribers of a key is one span
    // linked to the trace of the change that wrote the event.
    const span = startLinkedSpan('subscription delivery', traceparentOfEvent(event), {
      kind: SpanKind.CONSUMER,
      attributes: spanAttributes,
    });
    const run = () => this.executeShared(args, key, principal, event);
    const result = span ? span.run(run) : run();
    const handOn = () => {
      span?.end();
      const waiters = batch.waiters ?? [];
      batch.waiters = null;
      for (const waiter of waiters) {
        try {
          waiter.handedOn(batch);
        } catch (err) {
          // One subscriber's transport failing must not keep the others' results back.
          logger.warn({ err }, 'handing a subscription result on failed');
        }
      }
    };
    const previous = this.directTails.get(key);
    const executed = result.then(
      (value) => {
        batch.result = value;
      },
      (error: unknown) => {
        batch.failed = true;
        batch.error = error;
      },
    );
    const tail: Promise<void> = (previous ? Promise.all([previous, executed]) : executed).then(() => {
      handOn();
      if (this.directTails.get(key) === tail) this.directTails.delete(key);
    });
    this.directTails.set(key, tail);
    return batch;
  }

  /**
   * The JSON of a subscription result as graphql-transport-ws's `next` payload, in UTF-8,
   * serialized and encoded once per result: every subscriber of one share key is handed the same
   * result object (see `stream`), so they all get the same bytes, which each subscriber's frame
   * copies rather than encoding the text again. Undefined for a result with errors, whose
   * formatting carries each subscriber's own request id.
   */
  sharedPayload(result: ExecutionResult): Buffer | undefined {
    if (result.errors) return undefined;
    let json = this.sharedPayloads.get(result);
    if (json === undefined) {
      this.sharedSerializations++;
      json = Buffer.from(JSON.stringify(result));
      this.sharedPayloads.set(result, json);
    }
    return json;
  }

  private executeShared(args: ExecutionArgs, key: string, principal: Principal | null, event: unknown): Promise<ExecutionResult> {
    const executeOnce = () => {
      this.sharedExecutions++;
      // Within a budget like a request's, so that an execution always settles in bounded time: a
      // share key's later batches wait for it (see directBatch).
      return runWithBudget(this.budgetMs, async () => execute({ ...args, rootValue: event, contextValue: this.newContext(principal) }));
    };
    // The bus hands every subscriber of a topic the same event object, which keys the shared results.
    if (typeof event !== 'object' || event === null) return executeOnce();
    let byKey = this.sharedResults.get(event);
    if (!byKey) this.sharedResults.set(event, (byKey = new Map()));
    let result = byKey.get(key);
    if (!result) byKey.set(key, (result = executeOnce()));
    return result;
  }
}

/**
 * The subscribers of one share key (see OperationPipeline.joinShareGroup): how an event is executed
 * for them, pulled (`run`) or for the handed-over ones (`batch`), shared by all of them.
 */
interface ShareGroup {
  spanAttributes: Record<string, string>;
  subscribers: number;
  run(event: unknown): Promise<ExecutionResult>;
  batch(event: unknown): DirectBatch;
  /** One subscriber has ended; the last one takes the group away. */
  leave(): void;
}

const DONE: IteratorReturnResult<undefined> = Object.freeze({ done: true, value: undefined });
const PARKED_ITEM: IteratorYieldResult<Parked> = Object.freeze({ done: false, value: PARKED });

/**
 * One subscription's results (see OperationPipeline.stream): each event its source gives is
 * executed for its share group and handed on with the event. A class rather than closures, and no
 * async generator: an idle subscriber holds this object for its whole life, and each event of each
 * subscriber passes through it, where a generator's suspension costs more than one awaited call.
 */
class SubscriptionDeliveries implements DeliveryStream {
  constructor(
    protected readonly iterator: AsyncIterator<unknown>,
    protected readonly lifetime: SubscriptionLifetime,
    protected readonly group: ShareGroup,
    protected readonly results: { handedOver: number; pulled: number },
  ) {}

  /** The lifetime ended: the source is returned at once and the share group left. */
  lifetimeEnded(): void {
    void this.iterator.return?.();
    this.group.leave();
  }

  /** Ends the subscription (which closes it, see OperationPipeline.stream). */
  protected finish(): IteratorReturnResult<undefined> {
    this.lifetime.end();
    return DONE;
  }

  /** Executes a pulled event (or ends) for this subscriber. */
  protected async deliver(item: IteratorResult<unknown>): Promise<IteratorResult<Delivery, undefined>> {
    if (item.done || this.lifetime.ended) return this.finish();
    const event = item.value;
    const { group } = this;
    // With tracing on, delivering an event to this subscriber (executing it) is a span linked to
    // the trace of the change that wrote the event; undefined otherwise.
    const delivery = startLinkedSpan('subscription delivery', traceparentOfEvent(event), {
      kind: SpanKind.CONSUMER,
      attributes: group.spanAttributes,
    });
    try {
      const result = await (delivery ? delivery.run(() => group.run(event)) : group.run(event));
      if (this.lifetime.ended) return this.finish();
      this.results.pulled++;
      return { done: false, value: { result, event } };
    } catch (error) {
      this.finish();
      throw error;
    } finally {
      delivery?.end();
    }
  }

  /** Pulls the source's next item; a throw ends the subscription and is passed on. */
  async next(): Promise<IteratorResult<Delivery, undefined>> {
    if (this.lifetime.ended) return this.finish();
    let item: IteratorResult<unknown>;
    try {
      item = await this.iterator.next();
    } catch (error) {
      this.finish();
      throw error;
    }
    return this.deliver(item);
  }

  async return(): Promise<IteratorResult<Delivery, undefined>> {
    return this.finish();
  }

  async throw(error?: unknown): Promise<IteratorResult<Delivery, undefined>> {
    this.finish();
    throw error;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }
}

/**
 * The results of a subscription whose source can hand its live events over (see
 * infra/handover.ts). It is also the consumer it gives its source: each live event joins the batch
 * of its event and share key, and its result is handed to the writer once the batch is executed
 * and every earlier batch of the key was handed on. A wake-up waits until this subscriber's batches
 * are all handed on, so that pulled results never overtake them.
 */
class HandedOverDeliveries extends SubscriptionDeliveries implements DirectConsumer<unknown> {
  private writer: DirectWriter | undefined;
  private pullSource: Puller<unknown> | undefined;
  private pending = 0;
  private wakeWanted = false;

  constructor(
    private readonly source: AsyncIterator<unknown> & HandsOver<unknown>,
    lifetime: SubscriptionLifetime,
    group: ShareGroup,
    results: { handedOver: number; pulled: number },
  ) {
    super(source, lifetime, group, results);
  }

  handOver(writer: DirectWriter): Puller<Delivery | Parked, undefined> {
    this.writer = writer;
    this.pullSource = this.source[HAND_OVER](this);
    return this;
  }

  /** The pull of the hand-over: the source's next item, PARKED passed on as it is. */
  async pull(): Promise<IteratorResult<Delivery | Parked, undefined>> {
    const pullSource = this.pullSource;
    if (this.lifetime.ended || !pullSource) return this.finish();
    let item: IteratorResult<unknown>;
    try {
      item = await pullSource.pull();
    } catch (error) {
      this.finish();
      throw error;
    }
    return !item.done && item.value === PARKED ? PARKED_ITEM : this.deliver(item);
  }

  canTake(): boolean {
    return !this.lifetime.ended && (this.writer?.canTake(this.pending) ?? false);
  }

  take(event: unknown): void {
    this.pending++;
    // Each batch it joins calls it back (handedOn) once the batch is handed on.
    if (this.writer) this.group.batch(event).waiters?.push(this);
  }

  wake(): void {
    if (this.pending === 0) this.writer?.wake();
    else this.wakeWanted = true;
  }

  /** A batch this subscriber joined was handed on: its result goes to the writer. */
  handedOn(batch: DirectBatch): void {
    this.pending--;
    this.results.handedOver++;
    const { writer } = this;
    if (!this.lifetime.ended) {
      if (batch.failed) writer?.fail(batch.error);
      else if (batch.result) writer?.deliver(batch.result);
    }
    if (this.pending === 0 && this.wakeWanted) {
      this.wakeWanted = false;
      writer?.wake();
    }
  }
}

/** A short stable name per parsed document, for share keys (documents come from the cache, so they repeat). */
const documentKey = numberByIdentity<DocumentNode>();

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return typeof value === 'object' && value !== null && Symbol.asyncIterator in value;
}
