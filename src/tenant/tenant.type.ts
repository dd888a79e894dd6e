import type { PlanLimits as ConfiguredPlanLimits } from '../config';
import { attr } from '../infra/dynamo/entity';
import { Field, Float, InputType, Int } from 'type-graphql';
import { entities, type EntityItem } from '../common/entities';
import { attributeEnum, registerApiType, shapeObjectType } from '../common/model-types';
import { Role } from '../auth/principal';

/*
 * The tenant's own type and inputs come from its declaration (src/common/entities.ts); these are
 * the views particular to it: the caller, and a plan's limits and usage.
 */

/** A tenant's plan and its GraphQL enum, from the declaration. */
export const Plan = attributeEnum(entities.Tenant, 'plan', entities.Tenant.attributes.plan);
export type Plan = EntityItem<'Tenant'>['plan'];
// The caller's roles are the auth layer's enum.
registerApiType('Role', Role);

export const Viewer = shapeObjectType({
  name: 'Viewer',
  description: 'The caller, as the verified token says.',
  fields: {
    userId: attr.id({ required: true, description: "The token's subject." }),
    tenantId: attr.id({ required: true, description: "The token's tenant: every read and write is in it." }),
    roles: attr.json<Role[]>()({ required: true, apiType: '[Role]', description: "The token's roles." }),
  },
});
export type Viewer = InstanceType<typeof Viewer>;

export const PlanLimits = shapeObjectType({
  name: 'PlanLimits',
  description: "What a tenant's plan allows, with an admin's overrides for the tenant applied.",
  fields: {
    requestsPerSecond: attr.int({ required: true, description: 'Operations a second of the whole tenant (not its workers’).' }),
    userRequestsPerSecond: attr.int({ required: true, description: 'Operations a second of one user.' }),
    costPerSecond: attr.int({ required: true, description: 'Query cost a second of the whole tenant.' }),
    workerRequestsPerSecond: attr.int({ required: true, description: 'Workers’ claims and reports a second.' }),
    projects: attr.int({ required: true, description: 'Projects the tenant may work on (archived ones do not count).' }),
    storedBytes: attr.float({ required: true, description: 'Bytes of confirmed files the tenant may store.' }),
    runningJobs: attr.int({ required: true, description: 'Jobs not yet finished (queued, running or paused) the tenant may hold.' }),
    itemsPerJob: attr.int({ required: true, description: 'Work items one job may hold over all its fan-out stages.' }),
  },
});
/** A plan's limits, as the server's configuration holds them. */
export type PlanLimits = ConfiguredPlanLimits;

export const QuotaUsage = shapeObjectType({
  name: 'QuotaUsage',
  description: 'How much of one quota a tenant uses.',
  fields: {
    quota: attr.string({ required: true, description: 'The quota: projects, storedBytes or runningJobs.' }),
    used: attr.float({ required: true, description: 'What the tenant uses now, as its counter holds it exactly.' }),
    limit: attr.float({ required: true, description: 'What its plan allows.' }),
  },
});
export type QuotaUsage = InstanceType<typeof QuotaUsage>;

export const TenantUsage = shapeObjectType({
  name: 'TenantUsage',
  description: "A tenant's plan, its limits, and its usage of each quota (admins only).",
  fields: {
    tenantId: attr.id({ required: true, description: 'The tenant.' }),
    plan: attr.json<Plan>()({ required: true, apiType: 'Plan', description: 'The plan it is on.' }),
    limits: attr.json<PlanLimits>()({
      required: true,
      apiType: 'PlanLimits',
      description: 'What the plan allows it, with its own overrides.',
    }),
    quotas: attr.json<QuotaUsage[]>()({ required: true, apiType: '[QuotaUsage]', description: 'Each quota: used against the limit.' }),
  },
});
export type TenantUsage = InstanceType<typeof TenantUsage>;

@InputType({ description: "Overrides of a plan's limits for one tenant; an omitted or null limit is the plan's." })
export class PlanLimitsInput {
  @Field(() => Int, { nullable: true, description: 'Operations a second of the whole tenant.' })
  requestsPerSecond?: number | null;

  @Field(() => Int, { nullable: true, description: 'Operations a second of one user.' })
  userRequestsPerSecond?: number | null;

  @Field(() => Int, { nullable: true, description: 'Query cost a second.' })
  costPerSecond?: number | null;

  @Field(() => Int, { nullable: true, description: 'Workers’ claims and reports a second.' })
  workerRequestsPerSecond?: number | null;

  @Field(() => Int, { nullable: true, description: 'Projects.' })
  projects?: number | null;

  @Field(() => Float, { nullable: true, description: 'Bytes of stored files.' })
  storedBytes?: number | null;

  @Field(() => Int, { nullable: true, description: 'Jobs not yet finished.' })
  runningJobs?: number | null;
  @Field(() => Int, { nullable: true, description: 'Work items per job.' })
  itemsPerJob?: number | null;
}
