import { ArgsType, Field, Float, ID, InputType, Int } from 'type-graphql';
import { ForwardPageArgs, PageArgs } from '../common/pagination';
import { JSONObject, LocalDate } from '../common/scalars';
import { ProjectStatus } from './project.type';

@InputType({ description: "A project's budget: an amount in a currency." })
export class BudgetInput {
  @Field(() => Float, { description: 'The amount, in the currency below.' })
  amount!: number;

  @Field({ description: 'An ISO 4217 code such as EUR or USD.' })
  currency!: string;
}

@InputType({ description: 'A new project; it starts in planning at version 1.' })
export class CreateProjectInput {
  @Field({ description: "The project's title; projects(titlePrefix:) finds it." })
  title!: string;

  @Field(() => String, { nullable: true, description: 'The medium: oil, watercolour, 3D, music video …' })
  medium?: string | null;

  @Field(() => String, { nullable: true, description: 'Who the work is for.' })
  client?: string | null;

  @Field(() => LocalDate, { nullable: true, description: 'The day it is due.' })
  deadline?: string | null;

  @Field(() => BudgetInput, { nullable: true, description: "The project's budget." })
  budget?: BudgetInput | null;

  @Field(() => JSONObject, { nullable: true, description: 'Any fields of your own, as a JSON object.' })
  customFields?: Record<string, unknown> | null;
}

@InputType({ description: 'Fields to change; an omitted field is kept, a null clears it.' })
export class UpdateProjectInput {
  @Field(() => String, { nullable: true, description: "The project's title." })
  title?: string | null;

  @Field(() => String, { nullable: true, description: 'The medium.' })
  medium?: string | null;

  @Field(() => String, { nullable: true, description: 'Who the work is for.' })
  client?: string | null;

  @Field(() => LocalDate, { nullable: true, description: 'The day it is due.' })
  deadline?: string | null;

  @Field(() => BudgetInput, { nullable: true, description: "The project's budget." })
  budget?: BudgetInput | null;

  @Field(() => JSONObject, { nullable: true, description: 'Fields of your own, as a JSON object.' })
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

/** Across tenants the list is merged from the shards of an index, so it pages forward only. */
@ArgsType()
export class ProjectsAcrossTenantsArgs extends ForwardPageArgs {
  @Field(() => ProjectStatus, { description: 'The status to list.' })
  status!: ProjectStatus;

  @Field(() => Boolean, { defaultValue: false, description: 'List archived projects instead of active ones.' })
  archived!: boolean;
}

@ArgsType()
export class ProjectVersionArgs {
  @Field(() => ID, { description: "The project's id." })
  projectId!: string;

  @Field(() => Int, { nullable: true, description: 'When given, the change fails with CONFLICT unless the project is at this version.' })
  expectedVersion?: number | null;
}
