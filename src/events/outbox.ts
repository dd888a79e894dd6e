import { keySchemas } from '../infra/dynamo/table';
import type { Item, Store } from '../infra/dynamo/store';
import { isServiceUnavailable } from '../infra/dependency';
import type { EventBus } from '../infra/pubsub';
import { OUTBOX_SHARDS, outboxPartition } from '../infra/dynamo/write';
import { inLinkedSpan, SpanKind, untraced } from '../infra/tracing';
import { logger } from '../logger';
import { payloadOf, topicsFor } from './topics';

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
    await this.store.removeAttributes({ PK: event.PK, SK: event.SK }, [keySchemas.OUTBOX.pk, keySchemas.OUTBOX.sk]);
  }

  /** Publishes events just committed. Never throws: what fails here, the sweeper delivers. */
  afterCommit(events: Item[]): void {
    for (const event of events) {
      if (this.options.failPublish?.(event)) continue;
      this.publish(event).catch(logUnlessOutage('publish failed; the sweeper will retry', { eventId: event.eventId }));
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
  }
}
