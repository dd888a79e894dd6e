import type { ActivityRepository } from '../activity/activity.repository';
import { type ActivityEvent, isActivityEvent } from '../activity/activity.type';
import { assertId } from '../common/ids';
import type { Scope } from '../common/scope';
import { streams, type PositionedStream } from '../common/streams';
import { badInput, notFound } from '../errors';
import type { Metrics } from '../infra/metrics';
import type { EventBus } from '../infra/pubsub';
import { HEAD_POSITION } from '../infra/dynamo/write';
import { FINAL, JobEventType } from '../job/job.machine';
import type { JobRepository } from '../job/job.repository';
import { isJobEvent, type JobEvent } from '../job/job.type';
import type { ProjectRepository } from '../project/project.repository';
import { replayThenLive, type ReplayObserver, type ReplayOptions, type StreamStart } from './replay';
import { topics } from './topics';

/** Throws BAD_USER_INPUT unless `position` is null or a position (0 or more). */
function checkPosition(position: number | null, argument: string): void {
  if (position !== null && (!Number.isInteger(position) || position < 0)) {
    throw badInput(`${argument} must be a position of 0 or more, got ${position}.`, argument);
  }
}

/**
 * Control messages (acknowledgement, history lost) made in the current turn of the event loop, by
 * stream, type and position. A burst of subscribes to one stream shares its head read (see
 * SharedItemReads), so its subscribers are acknowledged together, in the turn that read ends in, at
 * one position. They then get one message object, as the subscribers of a live event do, and the
 * pipeline executes and serializes it once per share key rather than once per subscriber. Nothing
 * in these messages is particular to a subscriber: everything follows from the stream and the
 * position, and their `at` is the moment the first of them was made, within the same turn.
 */
class SharedInTurn<V> {
  private readonly values = new Map<string, V>();

  get(key: string, make: () => V): V {
    let value = this.values.get(key);
    if (value === undefined) {
      // Forgotten once the turn ends, so a later subscriber gets a message of its own moment.
      if (this.values.size === 0) setImmediate(() => this.values.clear());
      value = make();
      this.values.set(key, value);
    }
    return value;
  }
}

const jobControls = new SharedInTurn<JobEvent>();
const activityControls = new SharedInTurn<ActivityEvent>();

/** What a subscription to one stream needs besides the bus (see Live.open). */
type StreamSpec<E> = Omit<ReplayOptions<E>, 'live' | 'start' | 'maxBuffer' | 'maxReplay' | 'observer'> & {
  topic: string;
  /** The position the client resumes from (null: from now) and the argument it came in, for errors. */
  from: number | null;
  argument: string;
  /** The stream's head, read once the listener is in effect; throws NOT_FOUND for a missing subject. */
  head(): Promise<Omit<StreamStart, 'from'>>;
};

/**
 * The subscriptions of one caller. Topics are built from the caller's tenant (from the token),
 * and the subject is checked to exist in that tenant first, so a subscription to another
 * tenant's job or project fails with NOT_FOUND and receives nothing.
 *
 * Every stream is positioned (see replay.ts): its first message acknowledges the position it
 * starts from, every message carries the position to resume from, and a position older than the
 * stored history gets one history-lost message instead of a partial replay.
 */
export class Live {
  private readonly bus: EventBus;
  private readonly maxBuffer: number;
  private readonly maxReplay?: number;
  private readonly observer?: ReplayObserver;

  constructor(
    private readonly scope: Scope,
    options: { bus: EventBus; maxBuffer: number; maxReplay?: number; metrics?: Metrics },
    private readonly jobs: JobRepository,
    private readonly projects: ProjectRepository,
    private readonly activity: ActivityRepository,
  ) {
    this.bus = options.bus;
    this.maxBuffer = options.maxBuffer;
    this.maxReplay = options.maxReplay;
    const { metrics } = options;
    if (metrics) {
      this.observer = {
        replayed: () => metrics.eventsReplayed.inc(),
        resync: () => metrics.resyncsSent.inc(),
        historyLost: () => metrics.historyLostSent.inc(),
      };
    }
  }

  /**
   * Opens one stream: listens first, then reads the head, so that no event falls between the
   * two; a position ahead of the head is the client's mistake (BAD_USER_INPUT), since a position
   * is only ever handed out for an event that committed.
   */
  private async open<E>(spec: StreamSpec<E>): Promise<AsyncIterable<E>> {
    let begin!: (start: StreamStart) => void;
    const stream = replayThenLive<E>({
      ...spec,
      live: (push) => this.bus.listen(spec.topic, push),
      start: new Promise((resolve) => (begin = resolve)),
      maxBuffer: this.maxBuffer,
      maxReplay: this.maxReplay,
      observer: this.observer,
    });
    try {
      await stream.ready;
      const head = await spec.head();
      if (spec.from !== null && spec.from > head.head) {
        throw badInput(`${spec.argument} ${spec.from} is ahead of the stream, whose last position is ${head.head}.`, spec.argument);
      }
      begin({ from: spec.from, ...head });
      return stream;
    } catch (error) {
      await stream.return?.();
      throw error;
    }
  }

  /** The head and the stored events of a positioned stream, as events of its type (`accept` says which items are). */
  private reader<E>(stream: PositionedStream, accept: (item: unknown) => item is E) {
    return {
      head: async () => ({ head: Number((await this.scope.shared.get(stream.head))?.[HEAD_POSITION] ?? 0) }),
      readPage: async (after: number, limit: number, fresh: boolean) => {
        const spec = stream.after(after);
        const items = fresh ? await this.scope.store.queryFirst(spec, limit) : await this.scope.shared.page(spec, limit);
        return items.filter((item): item is typeof item & E => accept(item));
      },
      accept,
    };
  }

  /**
   * A job's events in seq order; with `afterSeq`, every stored event after it first. The stream
   * ends after the event that finishes the job (COMPLETED or CANCELLED); a job that has finished
   * already gets the stored events after `afterSeq`, if any, and the stream ends. FAILED does not
   * end it, because `retryJob` can run the job again.
   */
  async jobProgress(jobId: string, afterSeq: number | null): Promise<AsyncIterable<JobEvent>> {
    assertId(jobId, 'job', 'jobId');
    checkPosition(afterSeq, 'afterSeq');
    // Only this is kept for the subscription's life, not the job and its steps.
    let projectId = '';
    const control = (type: JobEventType, position: number, extra: Partial<JobEvent> = {}): JobEvent => ({
      eventId: `${jobId}:${type.toLowerCase()}:${position}`,
      jobId,
      projectId,
      seq: position,
      prevSeq: position,
      position,
      type,
      actor: 'server',
      at: new Date().toISOString(),
      ...extra,
    });
    const topic = topics.job(this.scope.tenantId, jobId);
    const shared = (type: JobEventType, position: number) =>
      jobControls.get(`${topic}\u0000${type}\u0000${position}`, () => control(type, position));
    return this.open<JobEvent>({
      topic,
      from: afterSeq,
      argument: 'afterSeq',
      // The job as read once the listener is in effect: an event committed after the read arrives
      // live, one committed before it is part of the job, so its seq is the head.
      head: async () => {
        const job = await this.jobs.head(jobId);
        if (!job) throw notFound('Job', jobId);
        projectId = job.projectId;
        return { head: job.seq, finished: FINAL.has(job.status) };
      },
      readPage: (after, limit, fresh) => this.jobs.eventsPage(jobId, after, limit, fresh),
      accept: isJobEvent,
      positionOf: (event) => event.seq,
      isFinal: (event) => event.job !== undefined && FINAL.has(event.job.status),
      acknowledge: (position) => shared(JobEventType.SUBSCRIBED, position),
      historyLost: (position) => shared(JobEventType.HISTORY_LOST, position),
      resync: (position) => control(JobEventType.RESYNC, position, { resumeAfterSeq: position }),
    });
  }

  /** Status changes of the jobs of one project, or of the whole tenant; with `after`, stored ones after it first. */
  async jobStatusChanges(projectId: string | null, after: number | null): Promise<AsyncIterable<JobEvent>> {
    if (projectId !== null) assertId(projectId, 'proj', 'projectId');
    checkPosition(after, 'after');
    if (projectId && !(await this.projects.exists(projectId))) throw notFound('Project', projectId);
    const { tenantId } = this.scope;
    const stream = projectId ? streams.projectJobStatus(tenantId, projectId) : streams.tenantJobStatus(tenantId);
    const control = (type: JobEventType, position: number): JobEvent => ({
      eventId: `${projectId ?? 'tenant'}:jobs:${type.toLowerCase()}:${position}`,
      jobId: '',
      projectId: projectId ?? '',
      seq: 0,
      prevSeq: 0,
      position,
      type,
      actor: 'server',
      at: new Date().toISOString(),
    });
    const topic = projectId ? topics.projectJobs(tenantId, projectId) : topics.tenantJobs(tenantId);
    const shared = (type: JobEventType, position: number) =>
      jobControls.get(`${topic}\u0000${type}\u0000${position}`, () => control(type, position));
    return this.open<JobEvent>({
      topic,
      from: after,
      argument: 'after',
      ...this.reader(stream, isJobEvent),
      positionOf: (event) => event.position,
      acknowledge: (position) => shared(JobEventType.SUBSCRIBED, position),
      historyLost: (position) => shared(JobEventType.HISTORY_LOST, position),
      resync: (position) => ({ ...control(JobEventType.RESYNC, position), resumeAfterSeq: position }),
    });
  }

  /**
   * A project's activity (logs, assets, milestones, briefs…); with `after` (or the older
   * `afterEventId`), every stored event after it first.
   */
  async projectActivity(projectId: string, after: number | null, afterEventId: string | null): Promise<AsyncIterable<ActivityEvent>> {
    assertId(projectId, 'proj', 'projectId');
    checkPosition(after, 'after');
    if (!(await this.projects.exists(projectId))) throw notFound('Project', projectId);
    if (afterEventId !== null) {
      assertId(afterEventId, 'evt', 'afterEventId');
      // An event no longer stored resumes from before the first position, which no stored event
      // follows without a gap: the replay reports history lost instead of replaying the rest.
      if (after === null) after = (await this.activity.positionOfEvent(projectId, afterEventId)) ?? -1;
    }
    const control = (action: string, position: number, extra: Partial<ActivityEvent> = {}): ActivityEvent => ({
      eventId: `${projectId}:${action}:${position}`,
      action,
      subjectType: 'Subscription',
      subjectId: projectId,
      projectId,
      actor: 'server',
      at: new Date().toISOString(),
      position,
      ...extra,
    });
    const topic = topics.projectActivity(this.scope.tenantId, projectId);
    const shared = (action: string, position: number) =>
      activityControls.get(`${topic}\u0000${action}\u0000${position}`, () => control(action, position));
    return this.open<ActivityEvent>({
      topic,
      from: after,
      argument: 'after',
      ...this.reader(streams.projectActivity(this.scope.tenantId, projectId), isActivityEvent),
      positionOf: (event) => event.position ?? 0,
      acknowledge: (position) => shared('subscription.started', position),
      historyLost: (position) => shared('subscription.history_lost', position),
      resync: (position, last) => control('subscription.resync', position, { resumeAfter: last?.eventId ?? afterEventId }),
    });
  }
}
