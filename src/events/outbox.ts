import { keySchemas, type Key } from '../infra/dynamo/table';
import type { Item, Store } from '../infra/dynamo/store';
import { isServiceUnavailable } from '../infra/dependency';
import type { EventBus } from '../infra/pubsub';
import { OUTBOX_ENTRY, OUTBOX_SHARDS, outboxPartition } from '../infra/dynamo/write';
import { inLinkedSpan, SpanKind, untraced } from '../infra/tracing';
import { logger } from '../logger';
import { payloadOf, topicsFor } from './topics';
import { workSignalsOf } from './work-signals';

/** At most this many events leave the outbox in one call (DynamoDB's limit of a transaction). */
const REMOVALS_PER_CALL = 100;

/**
 * The outbox shards a periodic sweep reads when the last one found nothing: a window that moves on
 * by this many each time, so every shard is read once every OUTBOX_SHARDS / SWEEP_WINDOW sweeps,
 * and an idle instance queries the table as often as it did with 4 shards (each Query of an empty
 * shard costs a read unit and DynamoDB Local's CPU). A sweep that found something reads every
 * shard the next time: a backlog (after a Redis outage) is on every shard at once.
 */
const SWEEP_WINDOW = 4;

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

/** True for a value that is an item's key (an outbox entry names its events by key). */
function isKey(value: unknown): value is Key {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof Reflect.get(value, 'PK') === 'string' &&
    typeof Reflect.get(value, 'SK') === 'string'
  );
}

/**
 * Publishes committed events. The writer calls `afterCommit`; the sweeper publishes whatever a
 * crash between commit and publish left behind. Delivery is at least once: subscribers drop
 * duplicates by sequence or id.
 */
export class Outbox {
  private timer?: NodeJS.Timeout;
  private sweeping?: Promise<number>;
  /** The first shard of the next periodic sweep's window, and whether it reads all shards instead (see SWEEP_WINDOW). */
  private window = 0;
  private sweepAll = true;
  /** Published events (or a commit's one entry) waiting to leave the outbox, and the removal under way (see leaveOutbox). */
  private readonly waiting: { key: Key; entry: boolean; resolve: () => void; reject: (error: unknown) => void }[] = [];
  private removing?: Promise<void>;
  /** The writers' publications under way (afterCommit), which stop() waits for. */
  private readonly publishing = new Set<Promise<void>>();

  constructor(
    private readonly store: Store,
    private readonly bus: EventBus,
    private readonly options: OutboxOptions,
  ) {}

  /**
   * Hands the event to the bus, on every topic it belongs to, and the work signals it makes to
   * theirs (work-signals.ts); rejects when the bus refuses any, so the event stays in the outbox.
   */
  private async deliver(event: Item): Promise<void> {
    const signals = workSignalsOf(event).flatMap(({ topics, signal }) => topics.map((topic) => this.bus.publish(topic, signal)));
    await Promise.all([...topicsFor(event).map((topic) => this.bus.publish(topic, payloadOf(event))), ...signals]);
    this.options.onPublished?.();
  }

  /**
   * Hands the event to the bus and, only once the bus has taken it, takes it out of the outbox. A
   * bus that refuses (Redis unreachable: SERVICE_UNAVAILABLE) leaves the event in the outbox for
   * the sweeper.
   */
  private async publish(event: Item): Promise<void> {
    await this.deliver(event);
    await this.leaveOutbox({ PK: event.PK, SK: event.SK }, false);
  }

  /**
   * Takes a published event (or, with `entry`, a commit's one outbox entry: see withOneOutboxEntry)
   * out of the outbox; settles when that removal is made (or rejects with what it failed with: the
   * sweeper publishes the events again later). A removal asked for while another is under way
   * waits for it and then goes with every other one asked for meanwhile, in one call
   * (Store.removeAttributesOfEach; entries are deleted, Store.deleteEach): a quiet process
   * removes each at once with one call, a busy one makes one call for many instead of one each.
   */
  private leaveOutbox(key: Key, entry: boolean): Promise<void> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ key, entry, resolve, reject });
      this.removing ??= this.removeWaiting();
    });
  }

  private async removeWaiting(): Promise<void> {
    while (this.waiting.length > 0) {
      const batch = this.waiting.splice(0, REMOVALS_PER_CALL);
      const events = batch.filter((removal) => !removal.entry).map((removal) => removal.key);
      const entries = batch.filter((removal) => removal.entry).map((removal) => removal.key);
      try {
        await Promise.all([
          events.length > 0 ? this.store.removeAttributesOfEach(events, [keySchemas.OUTBOX.pk, keySchemas.OUTBOX.sk]) : undefined,
          entries.length > 0 ? this.store.deleteEach(entries) : undefined,
        ]);
        for (const removal of batch) removal.resolve();
      } catch (error) {
        for (const removal of batch) removal.reject(error);
      }
    }
    this.removing = undefined;
  }

  private track(publishing: Promise<void>): void {
    const tracked = publishing.finally(() => this.publishing.delete(tracked));
    this.publishing.add(tracked);
  }

  /**
   * Publishes events just committed; with `entry` (the one outbox entry that stands for all of
   * them), takes that entry out once every one of them was published. Never throws: what fails
   * here, the sweeper delivers (all the entry's events, when one of them failed).
   */
  afterCommit(events: Item[], entry?: Key): void {
    if (!entry) {
      for (const event of events) {
        if (this.options.failPublish?.(event)) continue;
        this.track(this.publish(event).catch(logUnlessOutage('publish failed; the sweeper will retry', { eventId: event.eventId })));
      }
      return;
    }
    const delivered = events.map((event) =>
      this.options.failPublish?.(event)
        ? Promise.resolve(false)
        : this.deliver(event).then(
            () => true,
            (error: unknown) => {
              logUnlessOutage('publish failed; the sweeper will retry', { eventId: event.eventId })(error);
              return false;
            },
          ),
    );
    this.track(
      Promise.all(delivered)
        .then(async (published) => {
          if (published.every(Boolean)) await this.leaveOutbox(entry, true);
        })
        .catch(
          logUnlessOutage('taking published events out of the outbox failed; the sweeper will publish them again', { entry: entry.SK }),
        ),
    );
  }

  /**
   * Publishes every event older than the grace period that is still in the outbox, each stream's
   * in position order; returns how many. An entry that stands for a commit's events (see
   * withOneOutboxEntry) is taken out once the last of them was published; events it names that are
   * gone (archived) are passed over. It stops at the first event the bus refuses, so that a
   * stream's later events do not overtake it: they all wait for the next sweep. `shards`: the
   * outbox shards to read (all of them unless the periodic sweep says otherwise, see SWEEP_WINDOW).
   */
  sweep(shards: readonly number[] = Array.from({ length: OUTBOX_SHARDS }, (_, shard) => shard)): Promise<number> {
    this.sweeping ??= (async () => {
      const cutoff = new Date(Date.now() - this.options.graceMs).toISOString();
      // The shards in parallel: a sweep takes one Query's time, however many shards it reads.
      const read = await Promise.all(
        shards.map((shard) => this.store.queryFirst({ index: 'OUTBOX', pk: outboxPartition(shard), skBefore: cutoff }, 500)),
      );
      const rows: Item[] = read.flat();
      const stale = rows.filter((row) => row.entityType !== OUTBOX_ENTRY);
      // The events each entry stands for, read by key; each remembers its entry and how many of the entry's events are left.
      const owners = new Map<Item, { key: Key; left: number }>();
      const entries = rows
        .filter((row) => row.entityType === OUTBOX_ENTRY)
        .map((row) => ({
          key: { PK: row.PK, SK: row.SK },
          named: Array.isArray(row.outboxEvents) ? row.outboxEvents.filter(isKey) : [],
        }));
      // Every entry's events in one read (BatchGetItem, 100 keys a call), in the order named.
      const found = await this.store.batchGet(entries.flatMap((entry) => entry.named));
      let at = 0;
      for (const entry of entries) {
        const events = found.slice(at, (at += entry.named.length)).filter((event) => event !== null);
        const owner = { key: entry.key, left: events.length };
        if (events.length === 0) await this.leaveOutbox(owner.key, true);
        for (const event of events) owners.set(event, owner);
        stale.push(...events);
      }
      stale.sort((a, b) => (a.PK < b.PK ? -1 : a.PK > b.PK ? 1 : Number(a.position ?? 0) - Number(b.position ?? 0)));
      let count = 0;
      for (const event of stale) {
        const owner = owners.get(event);
        // A late publication belongs to the change that wrote the event: its span links to that trace.
        await inLinkedSpan(
          'outbox publish',
          event.traceparent,
          { kind: SpanKind.PRODUCER, attributes: { 'event.id': event.eventId } },
          async () => {
            if (!owner) return this.publish(event);
            await this.deliver(event);
            if (--owner.left === 0) await this.leaveOutbox(owner.key, true);
          },
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

  /** One sweep of the timer's: every shard, or the next window of them (see SWEEP_WINDOW). */
  private async periodicSweep(): Promise<number> {
    if (this.sweeping) return this.sweeping;
    const all = this.sweepAll;
    const shards = all
      ? undefined
      : Array.from({ length: Math.min(SWEEP_WINDOW, OUTBOX_SHARDS) }, (_, i) => (this.window + i) % OUTBOX_SHARDS);
    if (!all) this.window = (this.window + SWEEP_WINDOW) % OUTBOX_SHARDS;
    // A failed sweep reads every shard next time too.
    this.sweepAll = true;
    const found = await this.sweep(shards);
    this.sweepAll = found > 0;
    return found;
  }

  start(): void {
    this.timer = setInterval(() => {
      // A poll is not traced: one that finds nothing, which is nearly every one, would otherwise
      // start a trace of its queries every OUTBOX_SWEEP_MS on every instance.
      untraced(() => this.periodicSweep()).catch(logUnlessOutage('outbox sweep failed', {}));
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
