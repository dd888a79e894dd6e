import type { AnyModel, PutValues } from '../infra/dynamo/entity';
import { event, StreamEvent, type Item, type UnitWrite } from '../infra/dynamo/write';
import { entities } from './entities';
import { newUlid } from './ids';
import type { Scope } from './scope';

/*
 * Activity events: the audit trail of every change, written in the change's own unit of work.
 * They live here, below the features, because the generic write path (mutate.ts) records one for
 * every change it commits.
 */

/** What an event is about: an entity's type and id, and the project whose stream it goes to. */
export interface EventSubject {
  type: string;
  id: string;
  /** Without one the event goes to the tenant's stream. */
  projectId?: string;
}

export interface EventSpec {
  /** `<entity>.<verb>`, e.g. `project.created`, `log.attribution_confirmed`. */
  action: string;
  /** Derived from the entity written when the write path knows it (see subjectOf). */
  subject?: EventSubject;
  /** A small summary of the new state (never the whole item). */
  data?: Record<string, unknown>;
  /**
   * A record of a read (a download URL handed out) rather than a change: it goes to the tenant's
   * stream even when it names a project, so it takes no position in the project's stream and no
   * subscription receives it; the timeline and the tenant's activity show it.
   */
  audit?: boolean;
}

/**
 * The subject of a change of `item`: the model's type, the item's own id (the last value of its
 * key template; the tenant's id for the tenant) and its project: its parent project, or the project
 * it links to (an inspiration's `linkedProjectId`).
 */
export function subjectOf(model: AnyModel, item: Readonly<Record<string, unknown>>): EventSubject {
  const project = item.projectId ?? item.linkedProjectId;
  return {
    type: model.type,
    id: String(item[model.idField] ?? item.tenantId),
    ...(typeof project === 'string' ? { projectId: project } : {}),
  };
}

/**
 * The event write for a change, to be committed in the same unit of work as the change itself, so
 * a committed change always has its event and an event never describes a change that did not
 * commit. A project's events are appended to its positioned activity stream (see streams.ts);
 * the tenant's own events, which no subscription follows, are keyed by their ULID. Events expire
 * after the retention window. Throws (a programming error) when the spec has no subject.
 */
export function activityEvent(scope: Scope, spec: EventSpec): UnitWrite {
  const { subject } = spec;
  if (!subject) throw new Error(`Event ${spec.action} names no subject.`);
  const ulid = newUlid();
  const at = scope.now();
  // Typed as the event entities declare them (a project's stream adds `position`, the tenant's `ulid`).
  const attributes: Omit<PutValues<typeof entities.TenantEvent>, 'ulid'> = {
    stream: spec.audit ? 'audit' : 'activity',
    eventId: `evt_${ulid}`,
    tenantId: scope.tenant.id,
    projectId: subject.projectId,
    actor: scope.actor,
    action: spec.action,
    subjectType: subject.type,
    subjectId: subject.id,
    data: spec.data,
    at: at.toISOString(),
    expiresAt: Math.floor(at.getTime() / 1000) + scope.eventRetentionDays * 86_400,
  };
  const { projectId } = subject;
  if (projectId && !spec.audit) return scope.tenant.projectActivity(projectId).append((position) => ({ ...attributes, position }));
  return event({ ...scope.tenant.of(entities.TenantEvent).toItem({ ...attributes, ulid }), ...attributes });
}

/** The streams whose events make the tenant's audit trail, which the tenant's retention governs. */
const TRAIL_STREAMS: ReadonlySet<unknown> = new Set(['activity', 'audit']);

/** True when the unit holds an event of the audit trail (a change's or a read's activity event). */
export function hasTrailEvents(writes: readonly UnitWrite[]): boolean {
  // A stream event's item is built from its position; any position shows which stream it is of.
  return writes.some((w) => TRAIL_STREAMS.has(w instanceof StreamEvent ? w.make(0).stream : w.isEvent ? w.item?.stream : undefined));
}

/**
 * The unit with its trail events kept `days` days from their time instead of the server's
 * default, or forever for 0 (no TTL attribute): the tenant's `activityRetentionDays`, applied at
 * commit so that every writer of events gets it without knowing about it.
 */
export function withTrailRetention(writes: readonly UnitWrite[], days: number): UnitWrite[] {
  const retain = <I extends Item>(item: I): I => {
    if (!TRAIL_STREAMS.has(item.stream)) return item;
    return days === 0
      ? { ...item, expiresAt: undefined }
      : { ...item, expiresAt: Math.floor(Date.parse(String(item.at)) / 1000) + days * 86_400 };
  };
  return writes.map((w) =>
    w instanceof StreamEvent ? new StreamEvent(w.head, (position) => retain(w.make(position))) : w.isEvent ? w.mapItem(retain) : w,
  );
}

/** The record of a download URL handed out: who was given a URL for which object, for how long, and when. */
export function downloadEvent(scope: Scope, s3Key: string, expiresInSeconds: number): UnitWrite {
  const projectId = /^tenants\/[^/]+\/projects\/(proj_[0-9A-Za-z]+)\//.exec(s3Key)?.[1];
  return activityEvent(scope, {
    action: 'file.download_url_issued',
    subject: { type: 'File', id: s3Key, ...(projectId ? { projectId } : {}) },
    audit: true,
    data: { s3Key, expiresInSeconds },
  });
}
