import { Arg, Args, Authorized, Ctx, ID, Int, Mutation, Query, Resolver } from 'type-graphql';
import { Role } from '../auth/principal';
import { feature } from '../common/feature';
import type { Context } from '../context';
import {
  CreateMilestoneInput,
  Milestone,
  MilestoneConnection,
  MilestoneRef,
  MilestonesArgs,
  MilestoneStatus,
  UpdateMilestoneInput,
} from './milestone.type';
import { MilestoneRepository } from './milestone.repository';

// This feature adds its repository to ctx.repos itself, so that the context imports no feature (see src/context.ts).
declare module '../context' {
  interface Repositories {
    milestones: MilestoneRepository;
  }
}

const optionalVersion = { nullable: true, description: 'When given, CONFLICT unless the milestone is at this version.' };

@Resolver(() => Milestone)
export class MilestoneResolver {
  @Authorized()
  @Query(() => Milestone, { nullable: true })
  milestone(@Args() { projectId, milestoneId }: MilestoneRef, @Ctx() ctx: Context) {
    return ctx.repos.milestones.get(projectId, milestoneId);
  }

  @Authorized()
  @Query(() => MilestoneConnection)
  milestones(@Args() { projectId, first, after }: MilestonesArgs, @Ctx() ctx: Context) {
    return ctx.repos.milestones.list(projectId, { first, after });
  }

  @Authorized(Role.EDITOR)
  @Mutation(() => Milestone)
  createMilestone(@Arg('projectId', () => ID) projectId: string, @Arg('input') input: CreateMilestoneInput, @Ctx() ctx: Context) {
    return ctx.repos.milestones.create(projectId, input);
  }

  @Authorized(Role.EDITOR)
  @Mutation(() => Milestone)
  updateMilestone(
    @Args() { projectId, milestoneId }: MilestoneRef,
    @Arg('expectedVersion', () => Int) expectedVersion: number,
    @Arg('input') input: UpdateMilestoneInput,
    @Ctx() ctx: Context,
  ) {
    return ctx.repos.milestones.update(projectId, milestoneId, expectedVersion, input);
  }

  @Authorized(Role.EDITOR)
  @Mutation(() => Milestone, { description: 'pending → in_progress → complete.' })
  setMilestoneStatus(
    @Args() { projectId, milestoneId }: MilestoneRef,
    @Arg('status', () => MilestoneStatus) status: MilestoneStatus,
    @Arg('expectedVersion', () => Int, optionalVersion) expectedVersion: number | null,
    @Ctx() ctx: Context,
  ) {
    return ctx.repos.milestones.setStatus(projectId, milestoneId, status, expectedVersion);
  }

  @Authorized(Role.EDITOR)
  @Mutation(() => Milestone, { description: 'Deletes the milestone and returns it as it was.' })
  deleteMilestone(
    @Args() { projectId, milestoneId }: MilestoneRef,
    @Arg('expectedVersion', () => Int, optionalVersion) expectedVersion: number | null,
    @Ctx() ctx: Context,
  ) {
    return ctx.repos.milestones.delete(projectId, milestoneId, expectedVersion);
  }
}

/** This feature's resolvers and repositories (see src/features.ts). */
export const milestoneFeature = feature({
  resolvers: [MilestoneResolver],
  repositories: (scope, { projects }) => ({ milestones: new MilestoneRepository(scope, projects) }),
  nodes: { Milestone: { type: Milestone, load: (repos, v) => repos.milestones.get(v.projectId, v.milestoneId) } },
});
