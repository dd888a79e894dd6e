import { type AnyModel, type PutValues, shardOf } from '../infra/dynamo/entity';
import type { QuerySpec } from '../infra/dynamo/store';
import { streamEvent, type Item, type StreamEvent } from '../infra/dynamo/write';
import { entities } from './entities';
import type { Key } from './keys';

/**
 * The positioned event streams: a project's activity, a project's job status changes and the
 * tenant's job status changes. Each is one partition with a head item (the last position) and
 * its events keyed by position, so "the events after position n" is one key-range query, and a
 * position never names two events (see StreamEvent for how positions are allocated at commit).
 * A job's own stream needs none of this: its events are numbered by the job's version.
 */
export interface PositionedStream<E extends object = object> {
  /** The key of the head item, whose `position` is the stream's last position (no item: 0). */
  head: Key;
  /** The stored events with a position in (after, until], in position order. */
  after(after: number, until?: number): QuerySpec;
  /**
   * An event for this stream, placed at commit; `make` builds the item's attributes, not its key,
   * as the stream's event entity declares them (an attribute it does not declare is a type error).
   */
  append(make: (position: number) => E & { eventId: string; at: string }): StreamEvent;
}

/** What an event of `M` gives its stream's `append`: its declared attributes, those that name the stream and its position optional (the stream fills them in). */
type Appended<M extends AnyModel, Filled extends string> = Omit<PutValues<M>, Filled | 'position'> &
  Partial<Pick<PutValues<M>, Extract<Filled | 'position', keyof PutValues<M>>>>;

const LAST_POSITION = 999_999_999_999;

/** The event and head entities of one kind of stream, with the values that name one stream of it. */
interface StreamModels<V> {
  // The attributes' type is checked where `append` is called (PositionedStream's E), their names here.
  event: { keyOf(tenantId: string, values: V & { position: number }): Key; itemChecked(tenantId: string, item: object): Item };
  head: { keyOf(tenantId: string, values: V): Key };
}

function positioned<E extends object, V extends object>(tenantId: string, models: StreamModels<V>, values: V): PositionedStream<E> {
  const head = models.head.keyOf(tenantId, values);
  const eventKey = (position: number) => models.event.keyOf(tenantId, { ...values, position });
  return {
    head,
    after: (after, until = LAST_POSITION) => ({ pk: head.PK, skBetween: [eventKey(after + 1).SK, eventKey(until).SK] }),
    append: (make) =>
      streamEvent(head, (position) => {
        const attributes = make(position);
        return {
          ...models.event.itemChecked(tenantId, { ...values, ...attributes, position }),
          eventId: attributes.eventId,
          at: attributes.at,
        };
      }),
  };
}

/** The attributes of an event of each stream, as `append` takes them. */
export type ProjectActivityEvent = Appended<(typeof entities)['ProjectEvent'], 'projectId'>;
export type ProjectJobStatusEvent = Appended<(typeof entities)['ProjectJobStatusEvent'], 'projectId'>;
export type TenantJobStatusEvent = Appended<(typeof entities)['TenantJobStatusEvent'], never>;

/**
 * How many shards the tenant's job status stream is split into: each is a stream of its own (a
 * head and its events in one partition), so a tenant's status changes spread over this many
 * partitions, each of which takes about 166 changes a second at DynamoDB's 1,000 write units a key
 * (docs/scaling.md, "Status heads"): 16 carry about 2,650 a second, the goal being 2,000.
 * Changing it moves jobs between shards, which breaks the order of a job's changes across the
 * change and every cursor handed out: it is declared here, not configured.
 */
export const JOB_STATUS_SHARDS = 16;

/**
 * The shard of the tenant's job status stream that every change of `jobId` goes to (FNV-1a of
 * the id, modulo JOB_STATUS_SHARDS), so a job's changes keep their order within one stream.
 */
export function jobStatusShard(jobId: string): number {
  return shardOf(jobId, JOB_STATUS_SHARDS);
}

export const streams = {
  /** A project's activity: every change of the project and its children. */
  projectActivity: (tenantId: string, projectId: string): PositionedStream<ProjectActivityEvent> =>
    positioned<ProjectActivityEvent, { projectId: string }>(
      tenantId,
      { event: entities.ProjectEvent, head: entities.ProjectEventsHead },
      { projectId },
    ),
  /** The status changes of a project's jobs. */
  projectJobStatus: (tenantId: string, projectId: string): PositionedStream<ProjectJobStatusEvent> =>
    positioned<ProjectJobStatusEvent, { projectId: string }>(
      tenantId,
      { event: entities.ProjectJobStatusEvent, head: entities.ProjectJobStatusHead },
      { projectId },
    ),
  /**
   * One shard of the status changes of all the tenant's jobs (see JOB_STATUS_SHARDS): shard 0 is
   * the one stream of before, under its key, so the history written before the sharding is shard
   * 0's and needs no migration; shards 1 and up started empty.
   */
  tenantJobStatus: (tenantId: string, shard: number): PositionedStream<TenantJobStatusEvent> =>
    shard === 0
      ? positioned<TenantJobStatusEvent, object>(tenantId, { event: entities.TenantJobStatusEvent, head: entities.TenantJobStatusHead }, {})
      : positioned<TenantJobStatusEvent, { shard: number }>(
          tenantId,
          { event: entities.TenantJobStatusShardEvent, head: entities.TenantJobStatusShardHead },
          { shard },
        ),
};
