import type { PlanLimits as ConfiguredPlanLimits } from '../config';
import { type Attribute, attr, pickAttributes, type ShapeDeclaration, type ShapeValues } from '../infra/dynamo/entity';
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

/**
 * A plan's limits as the API shows them (PlanLimits) and as an admin overrides them for one tenant
 * (PlanLimitsInput): a field for each limit the configuration holds (config.ts, which cannot import
 * the declarations), so a limit added there and not here is a type error.
 */
const PLAN_LIMITS = {
  name: 'PlanLimits',
  description: "What a tenant's plan allows, with an admin's overrides for the tenant applied.",
  inputDescription: "Overrides of a plan's limits for one tenant; an omitted or null limit is the plan's.",
  fields: {
    requestsPerSecond: attr.int({
      required: true,
      description: 'Operations a second of the whole tenant (not its workers’).',
      createDescription: 'Operations a second of the whole tenant.',
    }),
    userRequestsPerSecond: attr.int({ required: true, description: 'Operations a second of one user.' }),
    costPerSecond: attr.int({
      required: true,
      description: 'Query cost a second of the whole tenant.',
      createDescription: 'Query cost a second.',
    }),
    workerRequestsPerSecond: attr.int({ required: true, description: 'Workers’ claims and reports a second.' }),
    projects: attr.int({
      required: true,
      description: 'Projects the tenant may work on (archived ones do not count).',
      createDescription: 'Projects.',
    }),
    storedBytes: attr.float({
      required: true,
      description: 'Bytes of confirmed files the tenant may store.',
      createDescription: 'Bytes of stored files.',
    }),
    runningJobs: attr.int({
      required: true,
      description: 'Jobs not yet finished (queued, running or paused) the tenant may hold.',
      createDescription: 'Jobs not yet finished.',
    }),
    itemsPerJob: attr.int({
      required: true,
      description: 'Work items one job may hold over all its fan-out stages.',
      createDescription: 'Work items per job.',
    }),
  },
} as const satisfies ShapeDeclaration<Record<keyof ConfiguredPlanLimits, Attribute>>;

export const PlanLimits = shapeObjectType(PLAN_LIMITS);
/** An admin's overrides of a plan's limits: any omitted or null limit is the plan's. */
export const PlanLimitsInput = shapeInputType(PLAN_LIMITS, { partial: true });
export type PlanLimitsInput = InstanceType<typeof PlanLimitsInput>;
/** A plan's limits, as the server's configuration holds them. */
export type PlanLimits = ConfiguredPlanLimits;

/** How much of one quota a tenant uses: an entry of TenantUsage's quotas. */
const QUOTA_USAGE = {
  name: 'QuotaUsage',
  description: 'How much of one quota a tenant uses.',
  fields: {
    quota: attr.string({ required: true, description: 'The quota: projects, storedBytes or runningJobs.' }),
    used: attr.float({ required: true, description: 'What the tenant uses now, as its counter holds it exactly.' }),
    limit: attr.float({ required: true, description: 'What its plan allows.' }),
  },
} as const;
export type QuotaUsage = ShapeValues<typeof QUOTA_USAGE>;

export const TenantUsage = shapeObjectType({
  name: 'TenantUsage',
  description: "A tenant's plan, its limits, and its usage of each quota (admins only).",
  fields: {
    // The tenant's own attributes, as its declaration has them, in this view's words.
    ...pickAttributes(entities.Tenant.attributes, { tenantId: 'The tenant.', plan: 'The plan it is on.' }),
    limits: attr.objectOf(PLAN_LIMITS)({ required: true, description: 'What the plan allows it, with its own overrides.' }),
    quotas: attr.listOf(QUOTA_USAGE)({ required: true, description: 'Each quota: used against the limit.' }),
  },
});
export type TenantUsage = InstanceType<typeof TenantUsage>;
