import { ArgsType, Field, ID, Int } from 'type-graphql';
import { ForwardPageArgs, PageArgs } from '../common/pagination';
import { ProjectStatus } from './project.type';

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
