import { createHash } from 'node:crypto';
import { activityEvent } from '../common/activity-event';
import { assertId } from '../common/ids';
import { retryWhileStale, Stale } from '../common/mutate';
import { entities, type EntityItem } from '../common/entities';
import { validateS3Key } from '../common/s3-key';
import type { Scope } from '../common/scope';
import { streams } from '../common/streams';
import { boundedJson, maxItems, optionalText, requireText } from '../common/validate';
import { AppError, badInput, ErrorCode, notFound } from '../errors';
import type { PageRequest } from '../infra/dynamo/store';
import { event, type UnitWrite, type Write } from '../infra/dynamo/write';
import type { ProjectRepository } from '../project/project.repository';
import {
  jobEventsAfter,
  jobsByStatus,
  jobsOfProject,
  jobsOfUser,
  jobWithSteps,
  OPS_SHARDS,
  opsJobsByStatus,
  stepsAwaitingReview,
} from './job.keys';
import {
  decide,
  initialSteps,
  JobEventType,
  JobStatus,
  TERMINAL,
  type JobAction,
  type JobState,
  type Outcome,
  type PlannedStep,
  type StepState,
} from './job.machine';
import { type CreateJobInput, isJobEvent, type JobEvent } from './job.type';

/** A finished job is kept this long, then expires. */
const FINISHED_JOB_TTL_DAYS = 90;
/** Idempotency records expire after this long (the seeds ask for 24–72 hours). */
const IDEMPOTENCY_TTL_HOURS = 48;
const STEP_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,47}$/;
const CLIENT_KEY = /^[A-Za-z0-9_.:-]{1,128}$/;

/** Thrown when the idempotency record exists: the request duplicates an earlier one. */
class Duplicate extends Error {
  constructor(readonly jobId: string) {
    super('duplicate');
  }
}

/** JSON with keys sorted at every level, so equal inputs hash equally. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.entries(value)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`)
      .join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/** The idempotency key of a creation: the client's, or one derived from what makes jobs equal. */
export function deriveIdempotencyKey(
  input: Pick<CreateJobInput, 'projectId' | 'kind' | 'inputs' | 'seed' | 'modelVersion' | 'idempotencyKey'>,
): string {
  if (input.idempotencyKey != null) {
    if (!CLIENT_KEY.test(input.idempotencyKey)) throw badInput('idempotencyKey takes 1–128 letters, digits and _ . : -', 'idempotencyKey');
    return `client:${input.idempotencyKey}`;
  }
  const material = canonical({
    projectId: input.projectId,
    kind: input.kind,
    inputs: input.inputs ?? null,
    seed: input.seed ?? null,
    modelVersion: input.modelVersion ?? null,
  });
  return `derived:${createHash('sha256').update(material).digest('base64url')}`;
}

/**
 * The job as an event carries it: every field of the Job type as this change left it, so a
 * client's cache can take the whole object (`inputs`, which can be large, is left out and read
 * when a client asks for it, see JobResolver.inputs).
 */
function snapshotOf(job: JobItem): Record<string, unknown> {
  const { entityType, jobId, projectId, kind, plan, status, currentStep, progress, completedSteps, failedSteps, maxAttempts } = job;
  const { provider, correlationId, error, createdBy, createdAt, updatedAt, startedAt, finishedAt, version } = job;
  return {
    ...{ entityType, jobId, projectId, kind, plan, status, currentStep, progress, completedSteps, failedSteps, maxAttempts },
    ...{ provider, correlationId, error, createdBy, createdAt, updatedAt, startedAt, finishedAt, version, seq: version },
    inputsLeftOut: true,
  };
}

type JobItem = EntityItem<'Job'>;
/** A step attempt as stored, or as just decided (before it has a key). */
type StepLike = StepState & { jobId: string };

const toStep = <S extends StepLike>(item: S) => ({ ...item, artifacts: item.artifacts ?? [] });
const toJob = (item: JobItem, steps?: StepLike[]) => ({ ...item, seq: item.version, steps: steps?.map(toStep) });

/** The step fields of a stored step attempt, without its key and index attributes. */
function stepStateOf(item: StepState): StepState {
  const { name, order, attempt, status, progress, artifacts, metrics, error, approvedBy, decidedAt, startedAt, finishedAt } = item;
  return { name, order, attempt, status, progress, artifacts, metrics, error, approvedBy, decidedAt, startedAt, finishedAt };
}

function stateOf(item: JobItem): JobState {
  const { status, plan, attempts, currentStep, progress, completedSteps, failedSteps, maxAttempts, error, startedAt, finishedAt } = item;
  return {
    status,
    plan,
    attempts,
    currentStep: currentStep ?? null,
    progress,
    completedSteps,
    failedSteps,
    maxAttempts,
    error,
    startedAt,
    finishedAt,
  };
}

const byOrder = (a: StepState, b: StepState) => a.order - b.order || a.attempt - b.attempt;

/**
 * Pipeline jobs. Every change moves the job's version by one and writes the job, the step
 * attempts it touches and the event with seq = new version in one transaction conditioned on
 * the version read, so a job's stream is ordered and gapless and two writers serialize.
 */
export class JobRepository {
  constructor(
    private readonly scope: Scope,
    private readonly projects: ProjectRepository,
  ) {}

  /** The job item and its step attempts, read together (one query, strongly consistent). */
  private async read(jobId: string) {
    assertId(jobId, 'job', 'jobId');
    const items = await this.scope.store.queryAll(jobWithSteps(this.scope.tenantId, jobId), 1000);
    const job = items.find((item) => entities.Job.is(item));
    if (!entities.Job.is(job)) return null;
    const steps = items.filter((item) => entities.Step.is(item)).sort(byOrder);
    return { job, steps };
  }

  /** The job with all its step attempts, or null when this tenant has no such job. */
  async get(jobId: string) {
    const found = await this.read(jobId);
    return found ? toJob(found.job, found.steps) : null;
  }

  async steps(jobId: string) {
    return (await this.read(jobId))?.steps.map(toStep) ?? [];
  }

  private async list(spec: ReturnType<typeof jobsByStatus>, page: PageRequest) {
    const result = entities.Job.pageOf(await this.scope.page(spec, page));
    return { nodes: result.nodes.map((item) => toJob(item)), pageInfo: result.pageInfo };
  }

  /** A project's jobs, newest first. */
  ofProject(projectId: string, page: PageRequest) {
    return this.list(jobsOfProject(this.scope.tenantId, assertId(projectId, 'proj', 'projectId')), page);
  }

  /** The tenant's jobs in one status, most recently changed first. */
  byStatus(status: JobStatus, page: PageRequest) {
    return this.list(jobsByStatus(this.scope.tenantId, status), page);
  }

  /** The caller's own jobs, newest first. */
  mine(page: PageRequest) {
    return this.list(jobsOfUser(this.scope.tenantId, this.scope.actor), page);
  }

  /** Step attempts paused for a person's review, most recent first. */
  async awaitingReview(page: PageRequest) {
    const result = entities.Step.pageOf(await this.scope.page(stepsAwaitingReview(this.scope.tenantId), page));
    return { nodes: result.nodes.map(toStep), pageInfo: result.pageInfo };
  }

  /**
   * Jobs in one status across all tenants (admins only; the resolver checks the role): one query
   * per shard of GSI3, merged newest first.
   */
  async acrossTenants(status: JobStatus, page: PageRequest) {
    const merged = await this.scope.store.queryMerged(
      this.scope.tenantId,
      `ops:${status}`,
      (before) => Array.from({ length: OPS_SHARDS }, (_, shard) => opsJobsByStatus(status, shard, before)),
      entities.Job.sortAttributeOf('acrossTenants'),
      page,
    );
    const result = entities.Job.pageOf(merged);
    return { nodes: result.nodes.map((item) => toJob(item)), pageInfo: result.pageInfo };
  }

  /** A job's stored events with seq in (after, until], in order. */
  async eventsAfter(jobId: string, after: number, until?: number): Promise<JobEvent[]> {
    const items = await this.scope.store.queryAll(jobEventsAfter(this.scope.tenantId, jobId, after, until), 100_000);
    return items.filter(isJobEvent);
  }

  /**
   * The events of one change: the job's own (seq = the job's new version, which is also its
   * position in the job's stream) and, when the status changed, one each in the project's and the
   * tenant's job status streams, placed at commit after their heads (see streams.ts).
   */
  private eventWrites(job: JobItem, previous: JobItem | null, outcome: Pick<Outcome, 'type' | 'step'>, at: string): UnitWrite[] {
    const seq = job.version;
    const { status } = job;
    const statusChanged = !previous || previous.status !== status;
    const attributes = {
      eventId: `${job.jobId}:${seq}`,
      tenantId: this.scope.tenantId,
      jobId: job.jobId,
      projectId: job.projectId,
      seq,
      prevSeq: seq - 1,
      type: outcome.type,
      actor: this.scope.actor,
      at,
      job: snapshotOf(job),
      step: outcome.step ? { ...outcome.step, jobId: job.jobId } : undefined,
      statusChanged,
      expiresAt: Math.floor(Date.parse(at) / 1000) + this.scope.eventRetentionDays * 86_400,
    };
    const writes: UnitWrite[] = [
      event({ ...entities.JobEvent.toItem(this.scope.tenantId, { ...attributes, stream: 'job', position: seq }), ...attributes }),
    ];
    if (statusChanged) {
      writes.push(
        streams.projectJobStatus(this.scope.tenantId, job.projectId).append(() => ({ ...attributes, stream: 'projectJobs' })),
        streams.tenantJobStatus(this.scope.tenantId).append(() => ({ ...attributes, stream: 'tenantJobs' })),
      );
    }
    return writes;
  }

  private stepWrite(jobId: string, step: StepState, at: string): Write {
    // Built from the step's own fields only; the model derives its key and index attributes.
    return entities.Step.put(this.scope.tenantId, { ...stepStateOf(step), jobId, updatedAt: at });
  }

  /**
   * Creates a job with its planned steps, or returns the job an earlier identical request made:
   * the idempotency record is written with the job, only if absent (or expired), so concurrent
   * duplicates create exactly one job and all of them get it.
   */
  async create(input: CreateJobInput) {
    const projectId = assertId(input.projectId, 'proj', 'projectId');
    const kind = requireText(input.kind, 'kind', 100);
    maxItems(input.steps, 'steps', 20);
    if (input.steps.length === 0) throw badInput('A job needs at least one step.', 'steps');
    for (const name of input.steps)
      if (!STEP_NAME.test(name))
        throw badInput(`Step name "${name}" must be 1–48 letters, digits and _ . - (starting with a letter or digit).`, 'steps');
    if (new Set(input.steps).size !== input.steps.length) throw badInput('Step names must be unique within a job.', 'steps');
    const maxAttempts = input.maxAttempts ?? 3;
    if (!Number.isInteger(maxAttempts) || maxAttempts < 1 || maxAttempts > 10)
      throw badInput('maxAttempts must be between 1 and 10.', 'maxAttempts');
    boundedJson(input.inputs, 'inputs');
    const idempotency = { key: deriveIdempotencyKey(input) };
    const key = entities.Idempotency.keyOf(this.scope.tenantId, idempotency);

    const earlier = await this.scope.store.get(key);
    if (entities.Idempotency.is(earlier)) return this.existing(earlier.jobId);

    const jobId = this.scope.newId('job');
    const at = this.scope.now().toISOString();
    const nowSeconds = Math.floor(Date.parse(at) / 1000);
    const plan: PlannedStep[] = input.steps.map((name, i) => ({ name, order: i + 1 }));
    const job = entities.Job.toItem(this.scope.tenantId, {
      jobId,
      projectId,
      status: JobStatus.QUEUED,
      createdAt: at,
      updatedAt: at,
      createdBy: this.scope.actor,
      kind,
      plan,
      attempts: Object.fromEntries(plan.map((p) => [p.name, 1])),
      currentStep: plan[0].name,
      progress: 0,
      completedSteps: 0,
      failedSteps: 0,
      maxAttempts,
      inputs: input.inputs ?? undefined,
      provider: optionalText(input.provider, 'provider', 100) ?? undefined,
      correlationId: optionalText(input.correlationId, 'correlationId', 200) ?? undefined,
      idempotencyKey: key.PK,
      version: 1,
    });
    if (!entities.Job.is(job)) throw new Error('A job item was made as another type.');
    const steps = initialSteps(plan);
    try {
      await this.scope.commit([
        entities.Idempotency.put(this.scope.tenantId, {
          ...idempotency,
          jobId,
          createdAt: at,
          expiresAt: nowSeconds + IDEMPOTENCY_TTL_HOURS * 3600,
        }).ifNewOrExpired(nowSeconds, (current) =>
          current ? new Duplicate(current.jobId) : new AppError(ErrorCode.CONFLICT, 'A duplicate request is being processed; try again.'),
        ),
        entities.Job.put(this.scope.tenantId, job).ifNew(),
        ...steps.map((step) => this.stepWrite(jobId, step, at)),
        this.projects.activeProjectCheck(projectId),
        ...this.eventWrites(job, null, { type: JobEventType.JOB_CREATED }, at),
      ]);
    } catch (error) {
      if (error instanceof Duplicate) return this.existing(error.jobId);
      throw error;
    }
    return toJob(
      job,
      steps.map((s) => ({ ...s, jobId })),
    );
  }

  private async existing(jobId: string) {
    const job = await this.get(jobId);
    if (!job) throw notFound('Job', jobId);
    return job;
  }

  /**
   * A review decision (approve, reject) is also in the tenant's activity trail, with who decided,
   * on which step, and the comment, in the same transaction as the decision itself.
   */
  private reviewEvents(job: JobItem, action: JobAction, comment: string | null | undefined): UnitWrite[] {
    if (action.kind !== 'approve' && action.kind !== 'reject') return [];
    const decision = action.kind === 'approve' ? 'approved' : 'rejected';
    return [
      activityEvent(this.scope, {
        action: `step.${decision}`,
        subject: { type: entities.Job.type, id: job.jobId, projectId: job.projectId },
        data: { jobId: job.jobId, step: action.step, decision, comment: action.kind === 'reject' ? action.reason : (comment ?? undefined) },
      }),
    ];
  }

  /**
   * Applies a worker's or a person's action. Judged on the job as read; written only if the job
   * is still at that version. Losing a race re-reads and re-judges, so of N identical actions one
   * succeeds and the others get INVALID_TRANSITION. Throws NOT_FOUND for an unknown job.
   */
  async act(jobId: string, action: JobAction, review: { comment?: string | null } = {}) {
    if ('artifacts' in action) {
      maxItems(action.artifacts, 'artifacts', 50);
      for (const key of action.artifacts) validateS3Key(key, this.scope.tenantId, 'artifacts');
    }
    if ('metrics' in action) boundedJson(action.metrics, 'metrics');
    return retryWhileStale(async (mayRetry) => {
      const found = await this.read(jobId);
      if (!found) throw notFound('Job', jobId);
      const { job, steps } = found;
      const current = new Map<string, StepState>();
      for (const step of steps) if (job.attempts[step.name] === step.attempt) current.set(step.name, stepStateOf(step));
      const at = this.scope.now().toISOString();
      const outcome = decide(stateOf(job), current, action, { now: at, actor: this.scope.actor, jobId });
      const next = {
        ...job,
        ...outcome.job,
        // The machine clears with null; the item leaves a cleared attribute out.
        currentStep: outcome.job.currentStep ?? undefined,
        error: outcome.job.error ?? undefined,
        startedAt: outcome.job.startedAt ?? undefined,
        finishedAt: outcome.job.finishedAt ?? undefined,
        version: job.version + 1,
        updatedAt: at,
        expiresAt: TERMINAL.has(outcome.job.status) ? Math.floor(Date.parse(at) / 1000) + FINISHED_JOB_TTL_DAYS * 86_400 : undefined,
      };
      // A lost race re-reads and re-judges: the worker's action is decided on fresh state.
      await this.scope.commit([
        entities.Job.put(this.scope.tenantId, next).ifVersion(job.version, (now) =>
          !now
            ? notFound('Job', jobId)
            : mayRetry
              ? new Stale()
              : new AppError(ErrorCode.CONFLICT, `Job ${jobId} is changing too fast; try again.`),
        ),
        ...outcome.steps.map((step) => this.stepWrite(jobId, step, at)),
        ...this.eventWrites(next, job, outcome, at),
        ...this.reviewEvents(next, action, review.comment),
      ]);
      const id = (s: StepState) => `${s.order}:${s.name}:${s.attempt}`;
      const written = new Map(outcome.steps.map((s) => [id(s), { ...s, jobId }]));
      const merged: StepLike[] = steps.map((s) => written.get(id(s)) ?? s);
      for (const [key, s] of written) if (!steps.some((old) => id(old) === key)) merged.push(s);
      return toJob(next, merged.sort(byOrder));
    });
  }
}
