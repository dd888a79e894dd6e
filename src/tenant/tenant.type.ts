import { Node } from '../common/node.type';
import { Field, ID, InputType, Int, ObjectType } from 'type-graphql';
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
