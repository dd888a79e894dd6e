import { keySchemas, type Key } from '../infra/dynamo/table';
import type { Item, Store } from '../infra/dynamo/store';
import { isServiceUnavailable } from '../infra/dependency';
import type { EventBus } from '../infra/pubsub';
import { OUTBOX_SHARDS, outboxPartition } from '../infra/dynamo/write';
import { inLinkedSpan, SpanKind, untraced } from '../infra/tracing';
import { logger } from '../logger';
import { payloadOf, topicsFor } from './topics';

/** At most this many events leave the outbox in one call (DynamoDB's limit of a transaction). */
const REMOVALS_PER_CALL = 100;

export interface OutboxOptions {
  /** How often the sweeper looks for events left unpublished. */
  sweepIntervalMs: number;
  /** How old an unpublished event must be before the sweeper takes it (the writer publishes first). */
  graceMs: number;
  /**
   * Test hook: when it returns true for an event, the writer's publish fails as if the process had
   * died between commit and publish, and only the sweeper can deliver it.
   */
  failPublish?: (event: Item) => boolean;
  /** Called once per event handed to the bus (metrics: artissist_events_published_total). */
  onPublished?: () => void;
}

/**
 * A DynamoDB or Redis outage is already counted and summarized where the call failed (see
 * dependency.ts and pubsub.ts: the OutageLog and artissist_*_calls_total); anything else is worth a
 * line. The event stays in the outbox either way, for the sweeper.
 */
const logUnlessOutage = (message: string, fields: object) => (err: unknown) => {
  if (!isServiceUnavailable(err)) logger.warn({ err, ...fields }, message);
};

/**
 * Publishes committed events. The writer calls `afterCommit`; the sweeper publishes whatever a
 * crash between commit and publish left behind. Delivery is at least once: subscribers drop
 * duplicates by sequence or id.
 */
export class Outbox {
  private timer?: NodeJS.Timeout;
  private sweeping?: Promise<number>;
  /** Published events waiting to leave the outbox, and the removal under way (see leaveOutbox). */
  private readonly waiting: { key: Key; resolve: () => void; reject: (error: unknown) => void }[] = [];
  private removing?: Promise<void>;
  /** The writers' publications under way (afterCommit), which stop() waits for. */
  private readonly publishing = new Set<Promise<void>>();

  constructor(
    private readonly store: Store,
    private readonly bus: EventBus,
    private readonly options: OutboxOptions,
  ) {}

  /**
   * Hands the event to the bus and, only once the bus has taken it, takes it out of the outbox. A
   * bus that refuses (Redis unreachable: SERVICE_UNAVAILABLE) leaves the event in the outbox for
   * the sweeper.
   */
  private async publish(event: Item): Promise<void> {
    await Promise.all(topicsFor(event).map((topic) => this.bus.publish(topic, payloadOf(event))));
    this.options.onPublished?.();
    await this.leaveOutbox({ PK: event.PK, SK: event.SK });
  }

  /**
   * Takes a published event out of the outbox index; settles when that removal is made (or
   * rejects with what it failed with: the sweeper publishes the event again later). A removal
   * asked for while another is under way waits for it and then goes with every other one asked
   * for meanwhile, in one call (Store.removeAttributesOfEach): a quiet process removes each event
   * at once with one UpdateItem, a busy one (a group commit publishes its events together) makes
   * one call for many instead of one for each.
   */
  private leaveOutbox(key: Key): Promise<void> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ key, resolve, reject });
      this.removing ??= this.removeWaiting();
    });
  }

  private async removeWaiting(): Promise<void> {
    while (this.waiting.length > 0) {
      const batch = this.waiting.splice(0, REMOVALS_PER_CALL);
      try {
        await this.store.removeAttributesOfEach(
          batch.map((removal) => removal.key),
          [keySchemas.OUTBOX.pk, keySchemas.OUTBOX.sk],
        );
        for (const removal of batch) removal.resolve();
      } catch (error) {
        for (const removal of batch) removal.reject(error);
      }
    }
    this.removing = undefined;
  }

  /** Publishes events just committed. Never throws: what fails here, the sweeper delivers. */
  afterCommit(events: Item[]): void {
    for (const event of events) {
      if (this.options.failPublish?.(event)) continue;
      const publishing = this.publish(event)
        .catch(logUnlessOutage('publish failed; the sweeper will retry', { eventId: event.eventId }))
        .finally(() => this.publishing.delete(publishing));
      this.publishing.add(publishing);
    }
  }

  /**
   * Publishes every event older than the grace period that is still in the outbox, each stream's
   * in position order; returns how many. It stops at the first event the bus refuses, so that a
   * stream's later events do not overtake it: they all wait for the next sweep.
   */
  sweep(): Promise<number> {
    this.sweeping ??= (async () => {
      const cutoff = new Date(Date.now() - this.options.graceMs).toISOString();
      const stale: Item[] = [];
      for (let shard = 0; shard < OUTBOX_SHARDS; shard++) {
        stale.push(...(await this.store.queryFirst({ index: 'OUTBOX', pk: outboxPartition(shard), skBefore: cutoff }, 500)));
      }
      stale.sort((a, b) => (a.PK < b.PK ? -1 : a.PK > b.PK ? 1 : (a.position ?? 0) - (b.position ?? 0)));
      let count = 0;
      for (const event of stale) {
        // A late publication belongs to the change that wrote the event: its span links to that trace.
        await inLinkedSpan(
          'outbox publish',
          event.traceparent,
          { kind: SpanKind.PRODUCER, attributes: { 'event.id': event.eventId } },
          () => this.publish(event),
        );
        count++;
      }
      return count;
    })().finally(() => (this.sweeping = undefined));
    return this.sweeping;
  }

  /** Publications, removals waiting and removals under way this outbox holds (zero once all have ended; tests count it). */
  get held(): number {
    return this.publishing.size + this.waiting.length + (this.removing ? 1 : 0);
  }

  start(): void {
    this.timer = setInterval(() => {
      // A poll is not traced: one that finds nothing, which is nearly every one, would otherwise
      // start a trace of its queries every OUTBOX_SWEEP_MS on every instance.
      untraced(() => this.sweep()).catch(logUnlessOutage('outbox sweep failed', {}));
    }, this.options.sweepIntervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.sweeping?.catch(() => 0);
    // Each publication's failure is logged where it happens (afterCommit); here only their ends are awaited.
    await Promise.all(this.publishing);
    await this.removing;
  }
}
