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

@ObjectType({ simpleResolvers: true, description: 'A project\'s budget: an amount in a currency.' })
export class Budget {
  @Field(() => Float)
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
  @Field(() => ID)
  projectId!: string;

  /** Set on the projects of projectsAcrossTenants; otherwise the caller's own tenant (see ProjectResolver.tenantId). */
  tenantId?: string;

  @Field()
  title!: string;

  @Field(() => String, { nullable: true, description: 'Art medium: oil, digital, …' })
  medium?: string;

  @Field(() => ProjectStatus)
  status!: ProjectStatus;

  @Field(() => String, { nullable: true })
  client?: string;

  @Field(() => LocalDate, { nullable: true })
  deadline?: string;

  @Field(() => Budget, { nullable: true })
  budget?: Budget;

  @Field(() => JSONObject, { nullable: true })
  customFields?: Record<string, unknown>;

  @Field(() => Boolean)
  archived!: boolean;

  @Field(() => DateTime, { nullable: true })
  archivedAt?: string;

  @Field(() => String)
  createdBy!: string;
}

@ObjectType({ simpleResolvers: true, description: 'A page of projects, with the cursor to the next page.' })
export class ProjectConnection extends Connection(Project) {}
