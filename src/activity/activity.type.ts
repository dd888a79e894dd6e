import { ArgsType, Field, ID, ObjectType } from 'type-graphql';
import { Connection, PageArgs } from '../common/pagination';
import { DateTime, JSONObject } from '../common/scalars';

@ObjectType({ simpleResolvers: true, description: 'A committed change: who did what to which entity, and when.' })
export class ActivityEvent {
  @Field(() => ID)
  eventId!: string;

  @Field({ description: '<entity>.<verb>, e.g. log.created.' })
  action!: string;

  @Field()
  subjectType!: string;

  @Field(() => ID)
  subjectId!: string;

  @Field(() => ID, { nullable: true })
  projectId?: string;

  @Field(() => ID)
  actor!: string;

  @Field(() => DateTime)
  at!: string;

  @Field(() => JSONObject, { nullable: true })
  data?: Record<string, unknown>;

  @Field(() => ID, { nullable: true, description: 'Only on action "subscription.resync": resubscribe with afterEventId set to this.' })
  resumeAfter?: string | null;
}

@ObjectType({ simpleResolvers: true })
export class ActivityConnection extends Connection(ActivityEvent) {}

@ArgsType()
export class ActivityArgs extends PageArgs {
  @Field(() => ID, { nullable: true, description: "A project's activity; without it, the tenant's own (tenant and unlinked inspiration)." })
  projectId?: string | null;
}
