import { Args, Authorized, Ctx, Query, Resolver } from 'type-graphql';
import type { Context } from '../context';
import { ActivityArgs, ActivityConnection } from './activity.type';

@Resolver()
export class ActivityResolver {
  @Authorized()
  @Query(() => ActivityConnection, { description: 'Committed changes, newest first.' })
  activity(@Args() { projectId, first, after }: ActivityArgs, @Ctx() ctx: Context) {
    return ctx.repos.activity.list(projectId, { first, after });
  }
}
