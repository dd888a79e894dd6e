import type { PlanLimits as ConfiguredPlanLimits } from '../config';
import { PLAN_LIMITS, TENANT_USAGE } from '../common/quota';
import { entities, type EntityItem } from '../common/entities';
import { attributeEnum, registerApiType, shapeInputType, shapeObjectType } from '../common/model-types';
import { Role, VIEWER } from '../auth/principal';

/*
 * The tenant's own type and inputs come from its declaration (src/common/entities.ts); these are
 * the views particular to it: the caller, and a plan's limits and usage.
 */

/** A tenant's plan and its GraphQL enum, from the declaration. */
export const Plan = attributeEnum(entities.Tenant, 'plan', entities.Tenant.attributes.plan);
export type Plan = EntityItem<'Tenant'>['plan'];
// The caller's roles are the auth layer's enum.
registerApiType('Role', Role);

export const Viewer = shapeObjectType(VIEWER);
export type Viewer = InstanceType<typeof Viewer>;

/** A plan's limits as the API shows them, from their declaration (PLAN_LIMITS, src/common/quota.ts). */
export const PlanLimits = shapeObjectType(PLAN_LIMITS);
/** An operator's overrides of a plan's limits: any omitted or null limit is the plan's. */
export const PlanLimitsInput = shapeInputType(PLAN_LIMITS, { partial: true });
export type PlanLimitsInput = InstanceType<typeof PlanLimitsInput>;
/** A plan's limits, as the server's configuration holds them. */
export type PlanLimits = ConfiguredPlanLimits;

/** A tenant's plan, limits and usage (a tenant's own admin, or an operator), from its declaration (TENANT_USAGE, src/common/quota.ts). */
export const TenantUsage = shapeObjectType(TENANT_USAGE);
export type TenantUsage = InstanceType<typeof TenantUsage>;
