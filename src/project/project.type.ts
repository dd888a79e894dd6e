import { Node } from '../common/node.type';
import { Field, Float, ID, ObjectType } from 'type-graphql';
import { entities } from '../common/entities';
import { enumOf } from '../common/model-types';
import { Versioned } from '../common/versioned.type';
import { Connection } from '../common/pagination';
import { DateTime, JSONObject, LocalDate } from '../common/scalars';

/** A project's statuses and their GraphQL enum, from the declaration's status machine. */
export const ProjectStatus = enumOf(entities.Project, 'status', entities.Project.states);
export type ProjectStatus = (typeof ProjectStatus)[keyof typeof ProjectStatus];

@ObjectType({ simpleResolvers: true, description: "A project's budget: an amount in a currency." })
export class Budget {
  @Field(() => Float, { description: 'The amount, in the currency below.' })
  amount!: number;

  @Field({ description: 'ISO 4217 code, e.g. EUR.' })
  currency!: string;
}

@ObjectType({
  simpleResolvers: true,
  implements: Node,
  description: "An artist's project: the parent of its brief, milestones, logs and assets.",
})
export class Project extends Versioned {
  @Field(() => ID, { description: "The project's id (proj_…)." })
  projectId!: string;

  /** Set on the projects of projectsAcrossTenants; otherwise the caller's own tenant (see ProjectResolver.tenantId). */
  tenantId?: string;

  @Field({ description: "The project's title." })
  title!: string;

  @Field(() => String, { nullable: true, description: 'Art medium: oil, digital, …' })
  medium?: string;

  @Field(() => ProjectStatus, { description: 'Planning, production or complete: see ProjectStatus for the transitions.' })
  status!: ProjectStatus;

  @Field(() => String, { nullable: true, description: 'Who the work is for.' })
  client?: string;

  @Field(() => LocalDate, { nullable: true, description: 'The day it is due.' })
  deadline?: string;

  @Field(() => Budget, { nullable: true, description: "The project's budget." })
  budget?: Budget;

  @Field(() => JSONObject, { nullable: true, description: 'Fields of your own, as a JSON object.' })
  customFields?: Record<string, unknown>;

  @Field(() => Boolean, { description: 'True once archived: it is then listed only with projects(archived: true).' })
  archived!: boolean;

  @Field(() => DateTime, { nullable: true, description: 'When it was archived.' })
  archivedAt?: string;

  @Field(() => String, { description: 'Who created it.' })
  createdBy!: string;
}

@ObjectType({ simpleResolvers: true, description: 'A page of projects, with the cursor to the next page.' })
export class ProjectConnection extends Connection(Project) {}
