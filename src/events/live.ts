import type { ActivityRepository } from '../activity/activity.repository';
import type { ActivityEvent } from '../activity/activity.type';
import { assertId } from '../common/ids';
import type { Scope } from '../common/scope';
import { notFound } from '../errors';
import type { EventBus } from '../infra/pubsub';
import { FINAL, JobEventType } from '../job/job.machine';
import type { JobRepository } from '../job/job.repository';
import type { JobEvent } from '../job/job.type';
import type { ProjectRepository } from '../project/project.repository';
import type { Metrics } from '../infra/metrics';
import { replayThenLive, type ReplayObserver } from './replay';
import { topics } from './topics';

/**
 * The subscriptions of one caller. Topics are built from the caller's tenant (from the token),
 * and the subject is checked to exist in that tenant first, so a subscription to another
 * tenant's job or project fails with NOT_FOUND and receives nothing.
 */
export class Live {
  private readonly bus: EventBus;
  private readonly maxBuffer: number;
  private readonly observer?: ReplayObserver;

  constructor(
    private readonly scope: Scope,
    options: { bus: EventBus; maxBuffer: number; metrics?: Metrics },
    private readonly jobs: JobRepository,
    private readonly projects: ProjectRepository,
    private readonly activity: ActivityRepository,
  ) {
    this.bus = options.bus;
    this.maxBuffer = options.maxBuffer;
    const { metrics } = options;
    if (metrics) this.observer = { replayed: () => metrics.eventsReplayed.inc(), resync: () => metrics.resyncsSent.inc() };
  }

  /**
   * A job's events in seq order; with `afterSeq`, every stored event after it first. The stream
   * ends after the event that finishes the job (COMPLETED or CANCELLED); a job that has finished
   * already gets the stored events after `afterSeq`, if any, and the stream ends. FAILED does not
   * end it, because `retryJob` can run the job again.
   */
  async jobProgress(jobId: string, afterSeq: number | null): Promise<AsyncIterable<JobEvent>> {
    // Listen first, then read the job: an event committed after the read arrives live, one
    // committed before it is part of the job as read, so a stream without afterSeq can start at
    // the job's seq with no gap (its last event included) and without reading events.
    let projectId = '';
    let begin!: (start: { after: number; replay: boolean }) => void;
    const stream = replayThenLive<JobEvent>({
      mode: 'sequence',
      live: (push) => this.bus.listen(topics.job(this.scope.tenantId, jobId), push),
      isFinal: (event) => event.job !== undefined && FINAL.has(event.job.status),
      after: afterSeq,
      start: new Promise((resolve) => (begin = resolve)),
      readAfter: (after, until) => this.jobs.eventsAfter(jobId, after as number, until),
      positionOf: (event) => event.seq,
      maxBuffer: this.maxBuffer,
      observer: this.observer,
      resync: (last) => ({
        eventId: `${jobId}:resync:${last}`,
        jobId,
        projectId,
        seq: (last as number) ?? 0,
        prevSeq: (last as number) ?? 0,
        type: JobEventType.RESYNC,
        actor: 'server',
        at: new Date().toISOString(),
        resumeAfterSeq: (last as number) ?? 0,
      }),
    });
    try {
      await stream.ready;
      const job = await this.jobs.get(jobId);
      if (!job) throw notFound('Job', jobId);
      // Only this is kept for the subscription's life, not the job and its steps.
      projectId = job.projectId;
      if (FINAL.has(job.status) && (afterSeq === null || afterSeq >= job.seq)) {
        // Finished, and nothing the client has not seen: the stream is over at once.
        await stream.return?.();
        return (async function* () {})();
      }
      begin(afterSeq === null ? { after: job.seq, replay: false } : { after: afterSeq, replay: true });
      return stream;
    } catch (error) {
      await stream.return?.();
      throw error;
    }
  }

  /** Status changes of the jobs of one project, or of the whole tenant. Live only. */
  async jobStatusChanges(projectId: string | null): Promise<AsyncIterable<JobEvent>> {
    if (projectId && !(await this.projects.get(projectId))) throw notFound('Project', projectId);
    const topic = projectId ? topics.projectJobs(this.scope.tenantId, projectId) : topics.tenantJobs(this.scope.tenantId);
    return replayThenLive<JobEvent>({
      mode: 'id',
      live: (push) => this.bus.listen(topic, push),
      after: null,
      readAfter: async () => [],
      positionOf: (event) => event.eventId,
      maxBuffer: this.maxBuffer,
      observer: this.observer,
      resync: () => ({
        eventId: 'resync',
        jobId: '',
        projectId: projectId ?? '',
        seq: 0,
        prevSeq: 0,
        type: JobEventType.RESYNC,
        actor: 'server',
        at: new Date().toISOString(),
      }),
    });
  }

  /** A project's activity (logs, assets, milestones, briefs…); with `afterEventId`, stored events after it first. */
  async projectActivity(projectId: string, afterEventId: string | null): Promise<AsyncIterable<ActivityEvent>> {
    assertId(projectId, 'proj', 'projectId');
    if (!(await this.projects.get(projectId))) throw notFound('Project', projectId);
    if (afterEventId !== null) assertId(afterEventId, 'evt', 'afterEventId');
    return replayThenLive<ActivityEvent>({
      mode: 'id',
      live: (push) => this.bus.listen(topics.projectActivity(this.scope.tenantId, projectId), push),
      after: afterEventId,
      readAfter: (after) => this.activity.eventsAfter(projectId, after as string),
      positionOf: (event) => event.eventId,
      maxBuffer: this.maxBuffer,
      observer: this.observer,
      resync: (last) => ({
        eventId: `resync:${last ?? ''}`,
        action: 'subscription.resync',
        subjectType: 'Subscription',
        subjectId: projectId,
        projectId,
        actor: 'server',
        at: new Date().toISOString(),
        resumeAfter: (last as string) ?? null,
      }),
    });
  }
}
