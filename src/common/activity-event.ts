import type { AnyModel } from '../infra/dynamo/entity';
import { event, type Item, type UnitWrite } from '../infra/dynamo/write';
import { entities } from './entities';
import { newUlid } from './ids';
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
}

/**
 * The subject of a change of `item`: the model's type, the item's own id (the last value of its
 * key template; the tenant's id for the tenant) and its project: its parent project, or the project
 * it links to (an inspiration's `linkedProjectId`).
 */
export function subjectOf(model: AnyModel, item: Item): EventSubject {
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
  const attributes = {
    stream: 'activity',
    eventId: `evt_${ulid}`,
    tenantId: scope.tenantId,
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
  if (projectId) return streams.projectActivity(scope.tenantId, projectId).append((position) => ({ ...attributes, position }));
  return event({ ...entities.TenantEvent.toItem(scope.tenantId, { ...attributes, ulid }), ...attributes });
}
