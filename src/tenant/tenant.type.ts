import { Node } from '../common/node.type';
import { Field, ID, InputType, ObjectType } from 'type-graphql';
import { entities } from '../common/entities';
import { enumOf } from '../common/model-types';
import { Role } from '../auth/principal';
import { Versioned } from '../common/versioned.type';

/** A tenant's plans and their GraphQL enum, from the declaration. */
export const Plan = enumOf(entities.Tenant, 'plan', entities.Tenant.attributes.plan.values, 'Plan');
export type Plan = (typeof Plan)[keyof typeof Plan];

@ObjectType({ simpleResolvers: true, implements: Node, description: 'A studio: everything it owns lives in its own partition.' })
export class Tenant extends Versioned {
  @Field(() => ID)
  tenantId!: string;

  @Field()
  name!: string;

  @Field(() => Plan)
  plan!: Plan;
}

@ObjectType({ simpleResolvers: true, description: 'The caller, as the verified token says.' })
export class Viewer {
  @Field(() => ID)
  userId!: string;

  @Field(() => ID)
  tenantId!: string;

  @Field(() => [Role])
  roles!: Role[];
}

@InputType()
export class CreateTenantInput {
  @Field()
  name!: string;

  @Field(() => Plan, { nullable: true, description: 'Only admins may choose a plan other than FREE.' })
  plan?: Plan | null;
}

@InputType()
export class UpdateTenantInput {
  @Field(() => String, { nullable: true })
  name?: string | null;

  @Field(() => Plan, { nullable: true, description: 'Admins only.' })
  plan?: Plan | null;
}
