import { Node } from '../common/node.type';
import { ArgsType, Field, ID, InputType, ObjectType, registerEnumType } from 'type-graphql';
import { Versioned } from '../common/versioned.type';
import { Connection, PageArgs } from '../common/pagination';
import { LocalDate } from '../common/scalars';

export enum MilestoneStatus {
  PENDING = 'pending',
  IN_PROGRESS = 'in_progress',
  COMPLETE = 'complete',
}
registerEnumType(MilestoneStatus, { name: 'MilestoneStatus', description: 'pending → in_progress → complete' });

@ObjectType({ simpleResolvers: true, implements: Node, description: 'A milestone of a project: name, due date, criteria and status.' })
export class Milestone extends Versioned {
  @Field(() => ID)
  milestoneId!: string;

  @Field(() => ID)
  projectId!: string;

  @Field()
  name!: string;

  @Field(() => LocalDate, { nullable: true })
  due?: string;

  @Field(() => [String], { description: 'Success criteria.' })
  criteria!: string[];

  @Field(() => MilestoneStatus)
  status!: MilestoneStatus;
}

@ObjectType({ simpleResolvers: true })
export class MilestoneConnection extends Connection(Milestone) {}

@InputType()
export class CreateMilestoneInput {
  @Field()
  name!: string;

  @Field(() => LocalDate, { nullable: true })
  due?: string | null;

  @Field(() => [String], { nullable: true })
  criteria?: string[] | null;
}

@InputType({ description: 'Fields to change; an omitted field is kept, a null clears it.' })
export class UpdateMilestoneInput {
  @Field(() => String, { nullable: true })
  name?: string | null;

  @Field(() => LocalDate, { nullable: true })
  due?: string | null;

  @Field(() => [String], { nullable: true })
  criteria?: string[] | null;
}

@ArgsType()
export class MilestoneRef {
  @Field(() => ID)
  projectId!: string;

  @Field(() => ID)
  milestoneId!: string;
}

@ArgsType()
export class MilestonesArgs extends PageArgs {
  @Field(() => ID)
  projectId!: string;
}
