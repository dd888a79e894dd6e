import { Field, Float, ID, InputType, Int, ObjectType } from 'type-graphql';
import { entities, type EntityItem } from '../common/entities';
import { attributeEnum } from '../common/model-types';
import { Role } from '../auth/principal';

/*
 * The tenant's own type and inputs come from its declaration (src/common/entities.ts); these are
 * the views particular to it: the caller, and a plan's limits and usage.
 */

/** A tenant's plan and its GraphQL enum, from the declaration. */
export const Plan = attributeEnum(entities.Tenant, 'plan', entities.Tenant.attributes.plan);
export type Plan = EntityItem<'Tenant'>['plan'];

@ObjectType({ simpleResolvers: true, description: 'The caller, as the verified token says.' })
export class Viewer {
  @Field(() => ID, { description: "The token's subject." })
  userId!: string;

  @Field(() => ID, { description: "The token's tenant: every read and write is in it." })
  tenantId!: string;

  @Field(() => [Role], { description: "The token's roles." })
  roles!: Role[];
}

@ObjectType({ simpleResolvers: true, description: "What a tenant's plan allows, with an admin's overrides for the tenant applied." })
export class PlanLimits {
  @Field(() => Int, { description: 'Operations a second of the whole tenant (not its workers’).' })
  requestsPerSecond!: number;

  @Field(() => Int, { description: 'Operations a second of one user.' })
  userRequestsPerSecond!: number;

  @Field(() => Int, { description: 'Query cost a second of the whole tenant.' })
  costPerSecond!: number;

  @Field(() => Int, { description: 'Workers’ claims and reports a second.' })
  workerRequestsPerSecond!: number;

  @Field(() => Int, { description: 'Projects the tenant may work on (archived ones do not count).' })
  projects!: number;

  @Field(() => Float, { description: 'Bytes of confirmed files the tenant may store.' })
  storedBytes!: number;

  @Field(() => Int, { description: 'Jobs not yet finished (queued, running or paused) the tenant may hold.' })
  runningJobs!: number;
  @Field(() => Int, { description: 'Work items one job may hold over all its fan-out stages.' })
  itemsPerJob!: number;
}

@ObjectType({ simpleResolvers: true, description: 'How much of one quota a tenant uses.' })
export class QuotaUsage {
  @Field({ description: 'The quota: projects, storedBytes or runningJobs.' })
  quota!: string;

  @Field(() => Float, { description: 'What the tenant uses now, as its counter holds it exactly.' })
  used!: number;

  @Field(() => Float, { description: 'What its plan allows.' })
  limit!: number;
}

@ObjectType({ simpleResolvers: true, description: "A tenant's plan, its limits, and its usage of each quota (admins only)." })
export class TenantUsage {
  @Field(() => ID, { description: 'The tenant.' })
  tenantId!: string;

  @Field(() => Plan, { description: 'The plan it is on.' })
  plan!: Plan;

  @Field(() => PlanLimits, { description: 'What the plan allows it, with its own overrides.' })
  limits!: PlanLimits;

  @Field(() => [QuotaUsage], { description: 'Each quota: used against the limit.' })
  quotas!: QuotaUsage[];
}

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
