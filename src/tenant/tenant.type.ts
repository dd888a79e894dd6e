import { Node } from '../common/node.type';
import { Field, ID, InputType, ObjectType, registerEnumType } from 'type-graphql';
import { Role } from '../auth/principal';
import { Versioned } from '../common/versioned.type';

export enum Plan {
  FREE = 'free',
  STUDIO = 'studio',
  ENTERPRISE = 'enterprise',
}
registerEnumType(Plan, { name: 'Plan' });

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
