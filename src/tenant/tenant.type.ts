import { Node } from '../common/node.type';
import { Field, Float, ID, InputType, Int, ObjectType } from 'type-graphql';
import { entities } from '../common/entities';
import { enumOf } from '../common/model-types';
import { Role } from '../auth/principal';
import { Versioned } from '../common/versioned.type';

/** A tenant's plans and their GraphQL enum, from the declaration. */
export const Plan = enumOf(entities.Tenant, 'plan', entities.Tenant.attributes.plan.values, 'Plan', {
  free: 'The free plan.',
  studio: 'The plan for a studio.',
  enterprise: 'The plan for several studios of one organization.',
});
export type Plan = (typeof Plan)[keyof typeof Plan];

@ObjectType({ simpleResolvers: true, implements: Node, description: 'A studio: everything it owns lives in its own partition.' })
export class Tenant extends Versioned {
  @Field(() => ID, { description: "The tenant's id, as tokens name it." })
  tenantId!: string;

  @Field({ description: "The studio's name." })
  name!: string;

  @Field(() => Plan, { description: 'The plan the studio is on.' })
  plan!: Plan;

  @Field(() => Int, {
    nullable: true,
    description: 'Readable versions each asset keeps; adding one past it archives the oldest. Null: every version, up to the limit of 100.',
  })
  keepAssetVersions?: number;

  @Field(() => Int, {
    nullable: true,
    description: 'Days the activity trail is kept. Null: the server’s default (EVENT_RETENTION_DAYS); 0: forever.',
  })
  activityRetentionDays?: number;
}

@ObjectType({ simpleResolvers: true, description: 'The caller, as the verified token says.' })
export class Viewer {
  @Field(() => ID, { description: "The token's subject." })
  userId!: string;

  @Field(() => ID, { description: "The token's tenant: every read and write is in it." })
  tenantId!: string;

  @Field(() => [Role], { description: "The token's roles." })
  roles!: Role[];
}

@InputType({ description: 'Settings of a new tenant (studio); it is the one your token names.' })
export class CreateTenantInput {
  @Field({ description: "The studio's name." })
  name!: string;

  @Field(() => Plan, { nullable: true, description: 'Only admins may choose a plan other than FREE.' })
  plan?: Plan | null;
}

@InputType({ description: "The tenant's settings to change; an omitted field is kept." })
export class UpdateTenantInput {
  @Field(() => String, { nullable: true, description: "The studio's name." })
  name?: string | null;

  @Field(() => Plan, { nullable: true, description: 'Admins only.' })
  plan?: Plan | null;

  @Field(() => Int, {
    nullable: true,
    description: '1 to 100; null keeps every version (up to 100). Applies from the next confirmed version.',
  })
  keepAssetVersions?: number | null;

  @Field(() => Int, {
    nullable: true,
    description:
      'Days to keep activity events, 1 to 36500, or 0 to keep them forever; null: the server’s default. Applies to events written from now on.',
  })
  activityRetentionDays?: number | null;
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
