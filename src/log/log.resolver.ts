import { entities } from '../common/entities';
import { Arg, Args, Authorized, type ClassType, Ctx, Int, Mutation, Query, Resolver } from 'type-graphql';
import { Role } from '../auth/principal';
import { feature } from '../common/feature';
import { standardResolver } from '../common/standard-resolver';
import { pageRequest, ProjectPageArgs } from '../common/pagination';
import { Selected, type Selection } from '../common/projection';
import type { Context } from '../context';
import { projectChildrenResolver } from '../project/project-child.feature';
import { AttributionStatus, Log, LogConnection, LogRef, LogsByAttributionArgs, MaterialUsage, UpdateLogExtractionInput } from './log.type';
import { LogRepository } from './log.repository';

// This feature adds its repository to ctx.repos itself, so that the context imports no feature (see src/context.ts).
declare module '../context' {
  interface Repositories {
    logs: LogRepository;
  }
}

const optionalVersion = { nullable: true, description: 'When given, CONFLICT unless the log is at this version.' };

/** Log's query of one, create and update (see standard-resolver.ts); an update replaces what extraction found. */
const LogStandard = standardResolver(entities.Log, {
  one: (ctx, [projectId, logId]) => ctx.repos.logs.get(projectId, logId),
  create: (ctx, [projectId], input, key) => ctx.repos.logs.create(projectId, input, key),
  update: (ctx, [projectId, logId], version, input) => ctx.repos.logs.updateExtraction(projectId, logId, version, input),
  names: { update: 'updateLogExtraction' },
  inputs: { update: UpdateLogExtractionInput },
});

@Resolver(() => Log)
export class LogResolver {
  @Authorized()
  @Query(() => [Log], { description: "A project's logs, oldest first: one page (first 20 by default). logsConnection pages on." })
  async logs(@Args(() => ProjectPageArgs) args: ProjectPageArgs, @Ctx() ctx: Context, @Selected() selection: Selection | undefined) {
    return (await ctx.repos.logs.list(args.projectId, pageRequest(args), selection)).nodes;
  }

  @Authorized()
  @Query(() => LogConnection, { description: "A project's logs, oldest first, with a cursor for the next page." })
  logsConnection(@Args(() => ProjectPageArgs) args: ProjectPageArgs, @Ctx() ctx: Context, @Selected() selection: Selection | undefined) {
    return ctx.repos.logs.list(args.projectId, pageRequest(args), selection);
  }

  @Authorized()
  @Query(() => LogConnection, { description: 'Logs by attribution status across projects, newest first.' })
  logsByAttribution(
    @Args(() => LogsByAttributionArgs) args: LogsByAttributionArgs,
    @Ctx() ctx: Context,
    @Selected() selection: Selection | undefined,
  ) {
    return ctx.repos.logs.listByAttribution(args.status, pageRequest(args), selection);
  }

  @Authorized()
  @Query(() => MaterialUsage, { description: 'Which logs used a material (case-insensitive) and the minutes they add up to.' })
  materialUsage(
    @Arg('material', { description: 'The material, in any case and spacing (normalized before the lookup).' }) material: string,
    @Ctx() ctx: Context,
  ) {
    return ctx.repos.logs.materialUsage(material);
  }
}

/**
 * The mutation `name` that moves a log's attribution to `status` (`verb` says so in its
 * description): confirmLogAttribution and rejectLogAttribution differ in nothing else.
 */
function attributionMove(name: string, verb: string, status: AttributionStatus): ClassType {
  @Resolver(() => Log)
  class AttributionMove {
    @Authorized(Role.EDITOR)
    @Mutation(() => Log, { name, description: `${verb} the attribution (${entities.Log.describeTransitions()}).` })
    move(
      @Args(() => LogRef) { projectId, logId }: LogRef,
      @Arg('expectedVersion', () => Int, optionalVersion) expectedVersion: number | null,
      @Ctx() ctx: Context,
    ) {
      return ctx.repos.logs.setAttribution(projectId, logId, status, expectedVersion);
    }
  }
  Object.defineProperty(AttributionMove, 'name', { value: `${name}Resolver` });
  return AttributionMove;
}

/** This feature's resolvers and repositories (see src/features.ts). */
export const logFeature = feature({
  resolvers: [
    LogStandard,
    LogResolver,
    projectChildrenResolver('logs', Log, (ctx) => ctx.repos.logs, 'The first logs, oldest first; page with Query.logsConnection.'),
    attributionMove('confirmLogAttribution', 'Confirms', AttributionStatus.CONFIRMED),
    attributionMove('rejectLogAttribution', 'Rejects', AttributionStatus.REJECTED),
  ],
  repositories: (scope, { projects }) => ({ logs: new LogRepository(scope, projects, entities.Log) }),
  nodes: { Log: { type: Log, load: (repos, v) => repos.logs.get(v.projectId, v.logId) } },
});
