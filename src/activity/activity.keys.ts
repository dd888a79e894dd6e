import { entities } from '../common/entities';
import type { QuerySpec } from '../infra/dynamo/store';

export { projectEventsPk, tenantEventsPk } from '../common/activity-event';

/** A project's activity, newest first. */
export const projectActivity = (tenantId: string, projectId: string): QuerySpec =>
  entities.ProjectEvent.key.prefixOf(tenantId, { projectId }, true);

/** The tenant's own activity (changes of no project), newest first. */
export const tenantActivity = (tenantId: string): QuerySpec => entities.TenantEvent.key.prefixOf(tenantId, {}, true);
