import { entities } from '../common/entities';
import { argsType, connectionOf, shapeObjectType } from '../common/model-types';
import { ForwardPageArgs, PageArgs } from '../common/pagination';
import { attr } from '../infra/dynamo/entity';
import { hasFields } from '../common/validate';

/**
 * An activity event as the API shows it: the attributes a project's and the tenant's own events
 * are declared with (src/common/entities.ts), and the id a resync names for older clients.
 */
export const ActivityEvent = shapeObjectType({
  name: 'ActivityEvent',
  description: 'A committed change: who did what to which entity, and when.',
  fields: {
    ...entities.ProjectEvent.attributes,
    resumeAfter: attr.id({
      deprecationReason: 'Resubscribe with after set to position instead.',
      description:
        'Only on action "subscription.resync": the eventId of the last event delivered, for clients that resume with afterEventId.',
    }),
  },
});
export type ActivityEvent = InstanceType<typeof ActivityEvent>;

export const ActivityConnection = connectionOf(
  ActivityEvent,
  'A page of activity events, with the cursor to the next page.',
  'ActivityConnection',
);

export const ActivityArgs = argsType(
  'ActivityArgs',
  {
    projectId: attr.id({
      description:
        "A project's activity; without it, the tenant's own: the tenant, unlinked inspiration, and the download URLs handed out (file.download_url_issued).",
    }),
  },
  PageArgs,
);
export type ActivityArgs = InstanceType<typeof ActivityArgs>;

/** Several actions are merged from one query each, so the timeline pages forward only. */
export const TimelineArgs = argsType(
  'TimelineArgs',
  {
    from: attr.json<Date>()({ apiType: 'DateTime', description: 'Events at or after this instant.' }),
    to: attr.json<Date>()({ apiType: 'DateTime', description: 'Events before this instant.' }),
    types: attr.strings({
      description:
        'Only these actions (e.g. log.created, asset.upload_confirmed, step.approved), at most 10. One action is one query a page; several are one query each, merged.',
    }),
  },
  ForwardPageArgs,
);
export type TimelineArgs = InstanceType<typeof TimelineArgs>;

/** True for an activity event as stored and published: what the activity stream checks before it sends one. */
export function isActivityEvent(value: unknown): value is ActivityEvent {
  return hasFields(value, { action: 'string', subjectType: 'string' });
}
