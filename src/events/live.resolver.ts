import { Args, Authorized, Extensions, Resolver, Root, Subscription } from 'type-graphql';
import { argsType } from '../common/model-types';
import { attr } from '../infra/dynamo/entity';
import { ActivityEvent } from '../activity/activity.type';
import { feature, type FeatureDeps } from '../common/feature';
import { Context } from '../context';
import { JobEvent } from '../job/job.type';
import { Live, type LiveOptions } from './live';
import type { JobMessage } from './stream-messages';
import { keyAttr } from '../common/args';
import { WorkSignals, workSignalHubOf } from './work-signals';
import { WorkSignalResolver } from './work-signals.resolver';

// The live streams add themselves to ctx.repos here, so that the context imports nothing from events.
declare module '../context' {
  interface Repositories {
    live: Live;
  }
}

/**
 * The field extension that names a subscription's resume argument: the Int argument that takes
 * "the position of the last message you received". A transport with resumption of its own (SSE's
 * Last-Event-ID) sets that argument from it, so the stream resumes exactly as if the client had
 * passed the position itself.
 */
export const RESUME_ARGUMENT = 'resumeArgument';

/**
 * The field extension that names a subscription's cursor argument, beside RESUME_ARGUMENT: the
 * String argument that takes the cursor of the last message received, where the stream is sharded
 * and a message's resume point is a cursor rather than a position (the tenant's jobStatusChanges).
 * SSE sets it from a Last-Event-ID that is a cursor.
 */
export const RESUME_CURSOR_ARGUMENT = 'resumeCursorArgument';

/**
 * The subscriptions. They live with the events they stream, above the features, so that no
 * feature depends on how events are published; each field returns its event as it is, because
 * the stream (replay, then live from the EventBus) already made it.
 */
/** The caller's live streams from a subscription's context, which type-graphql hands over untyped. */
function liveOf(context: unknown, system = false): Live {
  if (!(context instanceof Context)) throw new Error('A subscription ran without the request context.');
  // The server's own jobs are in the system partition, which only operators reach (Context.reposOf).
  return context.reposOf(system).live;
}

/** Where a positioned stream resumes: the position of the last message a client received. */
const resumeAfter = attr.int({ description: 'A position this stream gave you: resume after it.' });

/** The server's own jobs are in the system partition, which only operators reach (Context.reposOf). */
const systemJobs = (whose: string) => attr.boolean({ description: `True for ${whose}: operators only, FORBIDDEN otherwise.` });

/*
 * Each subscription's arguments, declared as attributes (see argsType): its `subscribe` reads them,
 * and the field resolver, which returns the event the stream made, takes them only so the schema has them.
 */
const JobProgressArgs = argsType('JobProgressArgs', {
  jobId: keyAttr('jobId'),
  afterSeq: attr.int({
    description:
      "The seq of the last event you received: every later one is sent, none missed or repeated. Omitted: from the job's current seq.",
  }),
  system: systemJobs('one of the server’s own jobs (a migration’s, see the migrations query)'),
});
type JobProgressArgs = InstanceType<typeof JobProgressArgs>;

const JobStatusChangesArgs = argsType('JobStatusChangesArgs', {
  projectId: attr.id({ description: "Only this project's jobs; all of the tenant's when omitted." }),
  after: attr.int({
    description:
      "A position this stream gave you: resume after it. For all the tenant's jobs (no projectId) resume with afterCursor instead: there an after below the stream's last position is exact only if it is from before the stream was sharded, and otherwise gets HISTORY_LOST.",
  }),
  afterCursor: attr.string({
    description:
      "All the tenant's jobs only (no projectId): the cursor of the last message you received; every change after it is sent, none missed or repeated.",
  }),
  system: systemJobs('the status changes of the server’s own jobs (migrations, archiving)'),
});
type JobStatusChangesArgs = InstanceType<typeof JobStatusChangesArgs>;

const ProjectActivityArgs = argsType('ProjectActivityArgs', {
  projectId: keyAttr('projectId'),
  after: resumeAfter,
  afterEventId: attr.id({
    deprecationReason: 'Use after with the position of the last message instead.',
    description: 'Resume after this stored event (found by reading the retained stream); history lost when it is no longer stored.',
  }),
});
type ProjectActivityArgs = InstanceType<typeof ProjectActivityArgs>;

@Resolver()
export class LiveResolver {
  @Authorized()
  @Extensions({ [RESUME_ARGUMENT]: 'afterSeq' })
  @Subscription(() => JobEvent, {
    description:
      'A job’s events (steps and status), in seq order. The first message is SUBSCRIBED with the seq the subscription starts from. Pass afterSeq (e.g. the seq of the job query, or the position of the last message you received) to receive every event after it first. ' +
      'The subscription completes after the job’s final event (COMPLETED or CANCELLED); a job that has finished already gets the events after afterSeq, then completes. ' +
      'FAILED does not complete it, because retryJob can run the job again: complete it yourself when you stop watching.',
    subscribe: ({ args, context }) => liveOf(context, args.system === true).jobProgress(args.jobId, args.afterSeq ?? null),
  })
  jobProgress(@Root() event: JobMessage, @Args(() => JobProgressArgs) _args: JobProgressArgs): JobMessage {
    return event;
  }

  @Authorized()
  @Extensions({ [RESUME_ARGUMENT]: 'after', [RESUME_CURSOR_ARGUMENT]: 'afterCursor' })
  @Subscription(() => JobEvent, {
    description:
      'Status changes of the jobs of one project, or of all the tenant’s jobs when projectId is omitted. The first message is SUBSCRIBED with the position the subscription starts from; pass after (the position of the last message you received) to receive every change after it first. ' +
      'All the tenant’s jobs are one stream per shard, merged: a job’s changes come in order, changes of different jobs in no set order, and every message carries a cursor; resume with afterCursor set to the last one you received.',
    subscribe: ({ args, context }) =>
      liveOf(context, args.system === true).jobStatusChanges(args.projectId ?? null, args.after ?? null, args.afterCursor ?? null),
  })
  jobStatusChanges(@Root() event: JobMessage, @Args(() => JobStatusChangesArgs) _args: JobStatusChangesArgs): JobMessage {
    return event;
  }

  @Authorized()
  @Extensions({ [RESUME_ARGUMENT]: 'after' })
  @Subscription(() => ActivityEvent, {
    description:
      'A project’s activity (logs, assets, milestones, briefs…). The first message is subscription.started with the position the subscription starts from; pass after (the position of the last message you received) to receive every stored event after it first.',
    subscribe: ({ args, context }) => liveOf(context).projectActivity(args.projectId, args.after ?? null, args.afterEventId ?? null),
  })
  projectActivity(@Root() event: ActivityEvent, @Args(() => ProjectActivityArgs) _args: ProjectActivityArgs): ActivityEvent {
    return event;
  }
}

/** The live streams' options of each server (its FeatureDeps), one object for all its callers (see Live). */
const liveOptions = new WeakMap<FeatureDeps, LiveOptions>();

function liveOptionsOf(deps: FeatureDeps): LiveOptions {
  let options = liveOptions.get(deps);
  if (!options) {
    options = { bus: deps.bus, maxBuffer: deps.subscriptionBuffer, maxReplay: deps.replayMaxEvents, metrics: deps.metrics };
    liveOptions.set(deps, options);
  }
  return options;
}

/** The subscriptions and the live streams behind them (see src/features.ts); they use the job, project and activity repositories. */
export const liveFeature = feature({
  resolvers: [LiveResolver, WorkSignalResolver],
  repositories: (scope, { jobs, projects, activity }, deps) => ({
    live: new Live(scope, liveOptionsOf(deps), jobs, projects, activity),
    workSignals: new WorkSignals(scope, workSignalHubOf(deps.bus), deps.jobLeaseSeconds),
  }),
});
