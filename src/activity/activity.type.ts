import { ArgsType, Field, ID, Int, ObjectType } from 'type-graphql';
import { Connection, ForwardPageArgs, PageArgs } from '../common/pagination';
import { DateTime, JSONObject } from '../common/scalars';

@ObjectType({ simpleResolvers: true, description: 'A committed change: who did what to which entity, and when.' })
export class ActivityEvent {
  @Field(() => ID, { description: "The event's own id (a ULID); resume subscriptions by position instead." })
  eventId!: string;

  @Field({
    description:
      '<entity>.<verb>, e.g. log.created. A subscription also sends subscription.started (always its first message), subscription.history_lost and subscription.resync.',
  })
  action!: string;

  @Field({ description: 'The type of what changed: Project, Log, Asset, Milestone, Brief …' })
  subjectType!: string;

  @Field(() => ID, { description: 'The id of what changed (projectId, logId, assetId …), as its own id field holds it.' })
  subjectId!: string;

  @Field(() => ID, { nullable: true, description: 'The project it happened in; null for the tenant’s own events.' })
  projectId?: string;

  @Field(() => ID, { description: 'Who made the change: the user id from their token.' })
  actor!: string;

  @Field(() => DateTime, { description: 'When the change was committed.' })
  at!: string;

  @Field(() => JSONObject, { nullable: true, description: 'Details of the change, as JSON.' })
  data?: Record<string, unknown>;

  @Field(() => Int, {
    nullable: true,
    description:
      'Where this event stands in its project’s activity stream (1, 2, 3 … in commit order, without gaps): resubscribe to projectActivity with after set to the position of the last message you received, of any action, to get every event you have not seen. Null for the tenant’s own events, which no subscription follows.',
  })
  position?: number | null;

  @Field(() => ID, {
    nullable: true,
    deprecationReason: 'Resubscribe with after set to position instead.',
    description:
      'Only on action "subscription.resync": the eventId of the last event delivered, for clients that resume with afterEventId.',
  })
  resumeAfter?: string | null;
}

@ObjectType({ simpleResolvers: true, description: 'A page of activity events, with the cursor to the next page.' })
export class ActivityConnection extends Connection(ActivityEvent) {}

@ArgsType()
export class ActivityArgs extends PageArgs {
  @Field(() => ID, {
    nullable: true,
    description:
      "A project's activity; without it, the tenant's own: the tenant, unlinked inspiration, and the download URLs handed out (file.download_url_issued).",
  })
  projectId?: string | null;
}

/** Several actions are merged from one query each, so the timeline pages forward only. */
@ArgsType()
export class TimelineArgs extends ForwardPageArgs {
  @Field(() => DateTime, { nullable: true, description: 'Events at or after this instant.' })
  from?: Date | null;

  @Field(() => DateTime, { nullable: true, description: 'Events before this instant.' })
  to?: Date | null;

  @Field(() => [String], {
    nullable: true,
    description:
      'Only these actions (e.g. log.created, asset.upload_confirmed, step.approved), at most 10. One action is one query a page; several are one query each, merged.',
  })
  types?: string[] | null;
}

/** True for an activity event as stored and published: what the activity stream checks before it sends one. */
export function isActivityEvent(value: unknown): value is ActivityEvent {
  return (
    typeof value === 'object' &&
    value !== null &&
    'action' in value &&
    typeof value.action === 'string' &&
    'subjectType' in value &&
    typeof value.subjectType === 'string'
  );
}
