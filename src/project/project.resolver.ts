import { Arg, Args, Authorized, Ctx, FieldResolver, ID, Mutation, Query, Resolver, Root } from 'type-graphql';
import { Role } from '../auth/principal';
import { feature } from '../common/feature';
import { standardResolver } from '../common/standard-resolver';
import { modelTypes } from '../common/model-types';
import { Reads, Selected, type Selection } from '../common/projection';
import type { Context } from '../context';
import { ProjectsAcrossTenantsArgs, ProjectsArgs, ProjectVersionArgs } from './project.input';
import { Project, ProjectConnection, ProjectStatus } from './project.type';
import { ProjectRepository } from './project.repository';
import { ChildRepositories } from './project-child.repository';
import { entities } from '../common/entities';

// This feature adds its repository to ctx.repos itself, so that the context imports no feature (see src/context.ts).
declare module '../context' {
  interface Repositories {
    projects: ProjectRepository;
    /** The standard repositories of project children (see project-child.feature.ts). */
    children: ChildRepositories;
  }
}

/** Project's query of one, create and update (see standard-resolver.ts); its status moves by setProjectStatus below. */
const ProjectStandard = standardResolver(entities.Project, {
  one: (ctx, [projectId]) => ctx.repos.projects.get(projectId),
  create: (ctx, _parent, input, key) => ctx.repos.projects.create(input, key),
  update: (ctx, [projectId], version, input) => ctx.repos.projects.update(projectId, version, input),
});

@Resolver(() => Project)
export class ProjectResolver {
  @Authorized()
  @Query(() => ProjectConnection, { description: 'By title (or title prefix), or by status newest first.' })
  projects(
    @Args(() => ProjectsArgs) { first, after, last, before, ...filter }: ProjectsArgs,
    @Ctx() ctx: Context,
    @Selected() selection: Selection | undefined,
  ) {
    return ctx.repos.projects.list(filter, { first, after, last, before }, selection);
  }

  @Authorized(Role.EDITOR)
  @Mutation(() => Project, { description: `Moves the project along: ${entities.Project.describeTransitions()}.` })
  setProjectStatus(
    @Args(() => ProjectVersionArgs) { projectId, expectedVersion }: ProjectVersionArgs,
    @Arg('status', () => ProjectStatus, {
      description: 'The status to move to; the status machine must allow the move (else INVALID_TRANSITION).',
    })
    status: ProjectStatus,
    @Ctx() ctx: Context,
  ) {
    return ctx.repos.projects.setStatus(projectId, status, expectedVersion);
  }

  @Authorized(Role.EDITOR)
  @Mutation(() => Project, { description: 'Moves the project out of the default lists; it stays readable.' })
  archiveProject(@Args(() => ProjectVersionArgs) { projectId, expectedVersion }: ProjectVersionArgs, @Ctx() ctx: Context) {
    return ctx.repos.projects.archive(projectId, expectedVersion);
  }

  @Authorized(Role.OPERATOR)
  @Query(() => ProjectConnection, {
    description:
      'Operators only: projects in one status across all tenants, most recently changed first (one query per index shard a page).',
  })
  projectsAcrossTenants(
    @Args(() => ProjectsAcrossTenantsArgs) { status, archived, first, after }: ProjectsAcrossTenantsArgs,
    @Ctx() ctx: Context,
  ) {
    return ctx.system().repos.projects.acrossTenants(status, archived, { first, after });
  }

  @FieldResolver(() => ID, { description: 'The tenant the project belongs to.' })
  @Reads('tenantId')
  tenantId(@Root() project: Project, @Ctx() ctx: Context): string {
    return project.tenantId ?? ctx.principal?.tenantId ?? '';
  }

  // Project.brief reads the project's id, which every read of a project carries.
  @FieldResolver(() => modelTypes(entities.Brief).type, { nullable: true, description: 'The latest brief version.' })
  @Reads()
  brief(@Root() project: Project, @Ctx() ctx: Context) {
    return ctx.repos.briefs.latest(project.projectId);
  }
}

/** This feature's resolvers and repositories (see src/features.ts). */
export const projectFeature = feature({
  // Project.logs and Project.assets are added by the log and asset features, so that the project knows none of its children.
  resolvers: [ProjectStandard, ProjectResolver],
  repositories: (scope) => {
    const projects = new ProjectRepository(scope, entities.Project);
    return { projects, children: new ChildRepositories(scope, projects) };
  },
  nodes: { Project: { type: Project, load: (repos, v) => repos.projects.get(v.projectId) } },
});
