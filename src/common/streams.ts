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
export interface PositionedStream {
  /** The key of the head item, whose `position` is the stream's last position (no item: 0). */
  head: Key;
  /** The stored events with a position in (after, until], in position order. */
  after(after: number, until?: number): QuerySpec;
  /** An event for this stream, placed at commit; `make` builds the item's attributes, not its key. */
  append(make: (position: number) => Item & { eventId: string; at: string }): StreamEvent;
}

const LAST_POSITION = 999_999_999_999;

function positioned(pk: string, headSk: string, eventSk: (position: number) => string): PositionedStream {
  return {
    head: { PK: pk, SK: headSk },
    after: (after, until = LAST_POSITION) => ({ pk, skBetween: [eventSk(after + 1), eventSk(until)] }),
    append: (make) => streamEvent({ PK: pk, SK: headSk }, (position) => ({ ...make(position), PK: pk, SK: eventSk(position) })),
  };
}

export const streams = {
  /** A project's activity: every change of the project and its children. */
  projectActivity: (tenantId: string, projectId: string): PositionedStream =>
    positioned(
      entities.ProjectEvent.key.pkOf(tenantId, { projectId }),
      entities.ProjectEventsHead.key.keyOf(tenantId, { projectId }).SK,
      (position) => entities.ProjectEvent.key.keyOf(tenantId, { projectId, position }).SK,
    ),
  /** The status changes of a project's jobs. */
  projectJobStatus: (tenantId: string, projectId: string): PositionedStream =>
    positioned(
      entities.ProjectJobStatusEvent.key.pkOf(tenantId, { projectId }),
      entities.ProjectJobStatusHead.key.keyOf(tenantId, { projectId }).SK,
      (position) => entities.ProjectJobStatusEvent.key.keyOf(tenantId, { projectId, position }).SK,
    ),
  /** The status changes of all the tenant's jobs. */
  tenantJobStatus: (tenantId: string): PositionedStream =>
    positioned(
      entities.TenantJobStatusEvent.key.pkOf(tenantId, {}),
      entities.TenantJobStatusHead.key.keyOf(tenantId, {}).SK,
      (position) => entities.TenantJobStatusEvent.key.keyOf(tenantId, { position }).SK,
    ),
};
