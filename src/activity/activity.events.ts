import { newUlid } from '../common/ids';
import type { Scope } from '../common/scope';
import { outboxAttributes } from '../events/outbox';
import type { TxWrite } from '../infra/dynamo/store';
import { eventSk, projectEventsPk, tenantEventsPk } from './activity.keys';

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
 * The event item for a change, to be written in the same transaction as the change itself, so a
 * committed change always has its event and an event never describes a change that did not
 * commit. Events expire after the retention window.
 */
export function eventWrite(scope: Scope, spec: EventSpec): TxWrite {
  const ulid = newUlid();
  const at = scope.now();
  const eventId = `evt_${ulid}`;
  return {
    Put: {
      TableName: '',
      Item: {
        ...outboxAttributes(eventId, at.toISOString()),
        stream: 'activity',
        PK: spec.projectId ? projectEventsPk(scope.tenantId, spec.projectId) : tenantEventsPk(scope.tenantId),
        SK: eventSk(ulid),
        entityType: 'Event',
        eventId,
        tenantId: scope.tenantId,
        projectId: spec.projectId,
        actor: scope.actor,
        action: spec.action,
        subjectType: spec.entityType,
        subjectId: spec.entityId,
        data: spec.data,
        at: at.toISOString(),
        expiresAt: Math.floor(at.getTime() / 1000) + scope.eventRetentionDays * 86_400,
      },
      ConditionExpression: 'attribute_not_exists(PK)',
    },
  };
}
