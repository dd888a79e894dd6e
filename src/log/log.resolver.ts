import { entities } from '../common/entities';
import { Arg, Args, Authorized, Ctx, FieldResolver, ID, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import { Asset } from '../asset/asset.type';
import { Role } from '../auth/principal';
import { feature } from '../common/feature';
import { pageRequest, ProjectPageArgs } from '../common/pagination';
import { idempotencyKeyArg } from '../common/idempotency';
import type { Context } from '../context';
import {
  AttributionStatus,
  CreateLogInput,
  Log,
  LogConnection,
  LogRef,
  LogsByAttributionArgs,
  MaterialUsage,
  UpdateLogExtractionInput,
} from './log.type';
import { LogRepository } from './log.repository';
import { expectedVersionArg } from '../common/args';

// This feature adds its repository to ctx.repos itself, so that the context imports no feature (see src/context.ts).
declare module '../context' {
  interface Repositories {
    logs: LogRepository;
  }
}

const optionalVersion = { nullable: true, description: 'When given, CONFLICT unless the log is at this version.' };

@Resolver(() => Log)
export class LogResolver {
  @Authorized()
  @Query(() => Log, { nullable: true, description: 'One log of a project; null when your tenant has none by that id.' })
  log(@Args() { projectId, logId }: LogRef, @Ctx() ctx: Context) {
    return ctx.repos.logs.get(projectId, logId);
  }

  @Authorized()
  @Query(() => [Log], { description: "A project's logs, oldest first: one page (first 20 by default). logsConnection pages on." })
  async logs(@Args() args: ProjectPageArgs, @Ctx() ctx: Context) {
    return (await ctx.repos.logs.list(args.projectId, pageRequest(args))).nodes;
  }

  @Authorized()
  @Query(() => LogConnection, { description: "A project's logs, oldest first, with a cursor for the next page." })
  logsConnection(@Args() args: ProjectPageArgs, @Ctx() ctx: Context) {
    return ctx.repos.logs.list(args.projectId, pageRequest(args));
  }

  @Authorized()
  @Query(() => LogConnection, { description: 'Logs by attribution status across projects, newest first.' })
  logsByAttribution(@Args() args: LogsByAttributionArgs, @Ctx() ctx: Context) {
    return ctx.repos.logs.listByAttribution(args.status, pageRequest(args));
  }

  @Authorized()
  @Query(() => MaterialUsage, { description: 'Which logs used a material (case-insensitive) and the minutes they add up to.' })
  materialUsage(
    @Arg('material', { description: 'The material, in any case and spacing (normalized before the lookup).' }) material: string,
    @Ctx() ctx: Context,
  ) {
    return ctx.repos.logs.materialUsage(material);
  }

  @Authorized(Role.EDITOR)
  @Mutation(() => Log, { description: 'Logs work on a project; its materials become findable with materialUsage.' })
  createLog(
    @Arg('projectId', () => ID, { description: "The project's id." }) projectId: string,
    @Arg('input', () => CreateLogInput, { description: 'What the new one is made of.' }) input: typeof entities.Log.createInput,
    @Arg('idempotencyKey', () => String, idempotencyKeyArg) idempotencyKey: string | null,
    @Ctx() ctx: Context,
  ) {
    return ctx.repos.logs.create(projectId, input, idempotencyKey);
  }

  @Authorized(Role.EDITOR)
  @Mutation(() => Log, { description: 'Replaces extraction results; material usage follows in the same write.' })
  updateLogExtraction(
    @Args() { projectId, logId }: LogRef,
    @Arg('expectedVersion', () => Int, expectedVersionArg) expectedVersion: number,
    @Arg('input', () => UpdateLogExtractionInput, { description: 'The fields to change; an omitted field is kept.' })
    input: typeof entities.Log.updateInput,
    @Ctx() ctx: Context,
  ) {
    return ctx.repos.logs.updateExtraction(projectId, logId, expectedVersion, input);
  }

  @Authorized(Role.EDITOR)
  @Mutation(() => Log, { description: `Confirms the attribution (${entities.Log.describeTransitions()}).` })
  confirmLogAttribution(
    @Args() { projectId, logId }: LogRef,
    @Arg('expectedVersion', () => Int, optionalVersion) expectedVersion: number | null,
    @Ctx() ctx: Context,
  ) {
    return ctx.repos.logs.setAttribution(projectId, logId, AttributionStatus.CONFIRMED, expectedVersion);
  }

  @Authorized(Role.EDITOR)
  @Mutation(() => Log, { description: `Rejects the attribution (${entities.Log.describeTransitions()}).` })
  rejectLogAttribution(
    @Args() { projectId, logId }: LogRef,
    @Arg('expectedVersion', () => Int, optionalVersion) expectedVersion: number | null,
    @Ctx() ctx: Context,
  ) {
    return ctx.repos.logs.setAttribution(projectId, logId, AttributionStatus.REJECTED, expectedVersion);
  }

  @FieldResolver(() => [Asset], { description: 'Assets linked to this log (one batched read for all logs of a request).' })
  assets(@Root() log: Log, @Ctx() ctx: Context) {
    return ctx.repos.assets.getMany(log.projectId, log.assetIds ?? []);
  }
}

/** This feature's resolvers and repositories (see src/features.ts). */
export const logFeature = feature({
  resolvers: [LogResolver],
  repositories: (scope, { projects }) => ({ logs: new LogRepository(scope, projects, entities.Log) }),
  nodes: { Log: { type: Log, load: (repos, v) => repos.logs.get(v.projectId, v.logId) } },
});
