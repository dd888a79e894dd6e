import { Args, Authorized, Ctx, FieldResolver, ID, Query, Resolver, Root } from 'type-graphql';
import { globalIdOf, isNodeType, NODE_TYPES, ObjectIdResolver } from '../common/global-id';
import { feature } from '../common/feature';
import { pageRequest } from '../common/pagination';
import type { Context } from '../context';
import { ActivityArgs, ActivityConnection, ActivityEvent, TimelineArgs } from './activity.type';
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
  activity(@Args(() => ActivityArgs) args: ActivityArgs, @Ctx() ctx: Context) {
    return ctx.repos.activity.list(args.projectId, pageRequest(args));
  }

  @Authorized()
  @Query(() => ActivityConnection, {
    description:
      "The tenant's activity across all its projects (and its own changes), newest first, within [from, to) and optionally of some actions.",
  })
  timeline(@Args(() => TimelineArgs) { from, to, types, first, after }: TimelineArgs, @Ctx() ctx: Context) {
    return ctx.repos.activity.timeline({ from, to, types }, { first, after });
  }
}

/**
 * The subject's global id (see src/common/global-id.ts), from what the event recorded: the
 * subject's type and id, and its project for a project's children. Null for subjects that are no
 * Node (a subscription's own messages) and for events that do not say enough.
 */
export function subjectNodeId(event: ActivityEvent): string | null {
  const type = event.subjectType;
  if (!isNodeType(type)) return null;
  if (type === 'Brief') {
    // A brief's subject is `<projectId>/v<padded version>`.
    const match = /^(proj_[0-9A-Z]+)\/v0*(\d+)$/.exec(event.subjectId);
    return match ? globalIdOf('Brief', { projectId: match[1], version: Number(match[2]) }) : null;
  }
  const [idField] = (NODE_TYPES.get(type) ?? []).slice(-1);
  return globalIdOf(type, { projectId: event.projectId, [idField]: event.subjectId });
}

@Resolver(() => ActivityEvent)
export class ActivityEventResolver extends ObjectIdResolver(
  ActivityEvent,
  'Unique across all types and stable (made from eventId), so a client cache keys the event by it; no Node, so node(id:) does not read it.',
  (event) => [event.eventId],
) {
  @FieldResolver(() => ID, {
    nullable: true,
    description:
      'The global id of the entity the event is about (its Node id, with subjectType as its __typename), so a client can update or evict it in its cache.',
  })
  subjectNodeId(@Root() event: ActivityEvent): string | null {
    return subjectNodeId(event);
  }
}

/** This feature's resolvers and repositories (see src/features.ts). */
export const activityFeature = feature({
  resolvers: [ActivityResolver, ActivityEventResolver],
  repositories: (scope) => ({ activity: new ActivityRepository(scope) }),
});
