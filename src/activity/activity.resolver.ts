import { Args, Authorized, Ctx, Query, Resolver } from 'type-graphql';
import { feature } from '../common/feature';
import type { Context } from '../context';
import { ActivityArgs, ActivityConnection } from './activity.type';
import { ActivityRepository } from './activity.repository';

// This feature adds its repository to ctx.repos itself, so that the context imports no feature (see src/context.ts).
declare module '../context' {
  interface Repositories {
    activity: ActivityRepository;
  }
}

@Resolver()
export class ActivityResolver {
  @Authorized()
  @Query(() => ActivityConnection, { description: 'Committed changes, newest first.' })
  activity(@Args() { projectId, first, after }: ActivityArgs, @Ctx() ctx: Context) {
    return ctx.repos.activity.list(projectId, { first, after });
  }
}

/** This feature's resolvers and repositories (see src/features.ts). */
export const activityFeature = feature({
  resolvers: [ActivityResolver],
  repositories: (scope) => ({ activity: new ActivityRepository(scope) }),
});
