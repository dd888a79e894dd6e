import { event, type UnitWrite } from '../infra/dynamo/write';
import { newUlid } from './ids';
import { entities } from './entities';
import type { Scope } from './scope';
import { streams } from './streams';

/*
 * Activity events: the audit trail of every change, written in the change's own unit of work.
 * They live here, below the features, because the generic write path (mutate.ts) records one for
 * every change it commits.
 */

/** A project's activity stream, newest last in key order. */
export const projectEventsPk = (tenantId: string, projectId: string) => entities.ProjectEvent.key.pkOf(tenantId, { projectId });

/** The tenant's own activity stream, for changes that belong to no project (tenant, inspiration). */
export const tenantEventsPk = (tenantId: string) => entities.TenantEvent.key.pkOf(tenantId, {});

export const eventSk = (ulid: string) => entities.TenantEvent.key.keyOf('', { ulid }).SK;

export const EVENT_SK_PREFIX = eventSk('');

export interface EventSpec {
  /** `<entity>.<verb>`, e.g. `project.created`, `log.attribution_confirmed`. */
  action: string;
  entityType: string;
  entityId: string;
  /** The project the change belongs to; without one the event goes to the tenant's stream. */
  projectId?: string;
  /** A small summary of the new state (never the whole item). */
  data?: Record<string, unknown>;
}

/**
 * The event write for a change, to be committed in the same unit of work as the change itself, so
 * a committed change always has its event and an event never describes a change that did not
 * commit. A project's events are appended to its positioned activity stream (see streams.ts);
 * the tenant's own events, which no subscription follows, are keyed by their ULID. Events expire
 * after the retention window.
 */
export function activityEvent(scope: Scope, spec: EventSpec): UnitWrite {
  const ulid = newUlid();
  const at = scope.now();
  const attributes = {
    entityType: 'Event',
    stream: 'activity',
    eventId: `evt_${ulid}`,
    tenantId: scope.tenantId,
    projectId: spec.projectId,
    actor: scope.actor,
    action: spec.action,
    subjectType: spec.entityType,
    subjectId: spec.entityId,
    data: spec.data,
    at: at.toISOString(),
    expiresAt: Math.floor(at.getTime() / 1000) + scope.eventRetentionDays * 86_400,
  };
  if (spec.projectId) return streams.projectActivity(scope.tenantId, spec.projectId).append(() => attributes);
  return event({ ...attributes, PK: tenantEventsPk(scope.tenantId), SK: eventSk(ulid) });
}
