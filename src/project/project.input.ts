import { ArgsType, Field, Float, ID, InputType, Int } from 'type-graphql';
import { PageArgs } from '../common/pagination';
import { JSONObject, LocalDate } from '../common/scalars';
import { ProjectStatus } from './project.type';

@InputType({ description: 'A project\'s budget: an amount in a currency.' })
export class BudgetInput {
  @Field(() => Float)
  amount!: number;

  @Field()
  currency!: string;
}

@InputType({ description: 'A new project; it starts in planning at version 1.' })
export class CreateProjectInput {
  @Field()
  title!: string;

  @Field(() => String, { nullable: true })
  medium?: string | null;

  @Field(() => String, { nullable: true })
  client?: string | null;

  @Field(() => LocalDate, { nullable: true })
  deadline?: string | null;

  @Field(() => BudgetInput, { nullable: true })
  budget?: BudgetInput | null;

  @Field(() => JSONObject, { nullable: true })
  customFields?: Record<string, unknown> | null;
}

@InputType({ description: 'Fields to change; an omitted field is kept, a null clears it.' })
export class UpdateProjectInput {
  @Field(() => String, { nullable: true })
  title?: string | null;

  @Field(() => String, { nullable: true })
  medium?: string | null;

  @Field(() => String, { nullable: true })
  client?: string | null;

  @Field(() => LocalDate, { nullable: true })
  deadline?: string | null;

  @Field(() => BudgetInput, { nullable: true })
  budget?: BudgetInput | null;

  @Field(() => JSONObject, { nullable: true })
  customFields?: Record<string, unknown> | null;
}

@ArgsType()
export class ProjectsArgs extends PageArgs {
  @Field(() => ProjectStatus, { nullable: true, description: 'Only projects in this status, newest first.' })
  status?: ProjectStatus | null;

  @Field(() => String, { nullable: true, description: 'Only projects whose title starts with this (case-insensitive), by title.' })
  titlePrefix?: string | null;

  @Field(() => Boolean, { defaultValue: false, description: 'List archived projects instead of active ones.' })
  archived!: boolean;
}

@ArgsType()
export class ProjectsAcrossTenantsArgs extends PageArgs {
  @Field(() => ProjectStatus)
  status!: ProjectStatus;

  @Field(() => Boolean, { defaultValue: false, description: 'List archived projects instead of active ones.' })
  archived!: boolean;
}

@ArgsType()
export class ProjectVersionArgs {
  @Field(() => ID)
  projectId!: string;

  @Field(() => Int, { nullable: true, description: 'When given, the change fails with CONFLICT unless the project is at this version.' })
  expectedVersion?: number | null;
}
