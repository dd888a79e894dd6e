import type { BoundTenant } from '../common/bound-tenant';
import { entities } from '../common/entities';
import type { QuerySpec } from '../infra/dynamo/store';

/** A project's activity, newest first. */
export const projectActivity = (tenant: BoundTenant, projectId: string): QuerySpec =>
  tenant.of(entities.ProjectEvent).prefixOf({ projectId }, true);

/** The tenant's own activity (changes of no project), newest first. */
export const tenantActivity = (tenant: BoundTenant): QuerySpec => tenant.of(entities.TenantEvent).prefixOf({}, true);
