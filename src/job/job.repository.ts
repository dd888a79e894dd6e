import { SYSTEM_TENANT } from '../auth/principal';
import { logger } from '../logger';
import { activityEvent } from '../common/activity-event';
import { assertId, isValidTenantId } from '../common/ids';
import { Stale } from '../common/mutate';
import { entities, type EntityItem } from '../common/entities';
import type { Scope } from '../common/scope';
import { boundedJson, maxItems, requireText } from '../common/validate';
import { isPlainObject } from '../guards';
import { AppError, badInput, conflict, invalidTransition, notFound } from '../errors';
import type { PageRequest, QuerySpec, Store } from '../infra/dynamo/store';
import { EntityRepository } from '../common/repository';
import type { PlanLimits, PlanName } from '../config';
import { del, type Item } from '../infra/dynamo/write';
import { pickDeclared } from '../infra/dynamo/entity';
import { checkFields, wholeNumber } from '../common/fields';
import { idempotent, type IdempotentRequest } from '../common/idempotency';
import { declaredKind, fanOutOf } from './job.kinds';
import { CLAIM_RACES, checkDeclared, JobAggregate, jobQueueId } from './job.aggregate';
import { ClaimShards } from '../infra/claim-shards';
import { changingTooFast, decideOnce, oneDecisionType } from '../infra/dynamo/committer';
import { HeldUntil, type PoolScheduler, poolSchedulerOf } from './job.pool';
import { DeadLetters } from './job.dead-letters';
import type { ProjectRepository } from '../project/project.repository';
import { jobWithSteps, stepHistory, opsJobsByStatus } from './job.keys';
import { deletesReleasing, type StepLike } from './job.writes';
import { JobStatus, TERMINAL, type JobCommand, type StepState } from './job.machine';
import type { CreateJobInput } from './job.type';

/** The most items createJob takes (more: addWorkItems after it). */
const MAX_ITEMS_AT_CREATE = 50;
/** What a pool claim gets for a tenant at its running limit (PoolShare.maxRunning): nothing now. */
const AT_LIMIT = 'AT_LIMIT';
/** A unit a worker's claim took: a step attempt (`item` null) or a work item, with its job as the claim left it. */
export type Claim = {
  job: ReturnType<JobRepository['decided']>;
  step: ReturnType<typeof toStep<StepLike>>;
  item: EntityItem<'WorkItem'> | null;
};
/** How many callers each shared read of claim candidates has served in this process, so the next caller's turn is 0, 1, 2 … */
const turns = new WeakMap<readonly object[], number>();
function takeTurn(candidates: readonly object[]): number {
  const turn = turns.get(candidates) ?? 0;
  turns.set(candidates, turn + 1);
  return turn;
}

/** How many claimable steps one claimWork reads and tries, oldest first. */
const CLAIM_CANDIDATES = 20;
/** Partition rows deleted with the job (beside it, its event and JobSettle entry: 100 writes a transaction); the rest by the sweep. */
const DELETE_FIRST = 87;

/** A job's deletion (JobRepository.delete), one decision in the job's queue of the committer; a lost race reads and decides again. */
const JOB_DELETION = oneDecisionType<{ job: Item | null; steps: StepLike[]; page: Item[]; settle?: EntityItem<'JobSettle'> }>(
  changingTooFast('Job'),
);
/** The most step attempts the history reads (20 steps of up to 10 attempts, and retries); past it the read is refused, not cut. */
const MAX_STEP_HISTORY = 1000;
const STEP_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,47}$/;
/** The job's own fields a createJob request gives as they are, checked against their declaration (its bounds). */
const GIVEN = pickDeclared(entities.Job.attributes, ['projectId', 'kind', 'priority', 'provider', 'correlationId', 'seed', 'modelVersion']);

/**
 * A createJob request as the idempotent creates take it (common/idempotency.ts): every argument but
 * the key, absent and null alike (a retry may spell an omitted field as null); for a derived key,
 * what makes two jobs the same, and `reuse: false`, which asks for a new run, not an earlier job.
 */
function createRequestOf(input: CreateJobInput): IdempotentRequest {
  const { idempotencyKey, projectId, kind, inputs, seed, modelVersion, reuse } = input;
  const given = Object.fromEntries(Object.entries(input).filter(([name, value]) => value != null && name !== 'idempotencyKey'));
  const derivedFrom = { projectId, kind, inputs: inputs ?? null, seed: seed ?? null, modelVersion: modelVersion ?? null };
  return {
    key: idempotencyKey,
    operation: 'createJob',
    input: given,
    derivedFrom: reuse === false ? { ...derivedFrom, reuse } : derivedFrom,
  };
}

/** A job that failed or was cancelled (or was deleted) gives its key up: the next request makes a new job. */
const keyReleased = (job: JobItem | null) => job === null || job.status === JobStatus.FAILED || job.status === JobStatus.CANCELLED;

type JobItem = EntityItem<'Job'>;

const toStep = <S extends StepLike>(item: S) => ({ ...item, artifacts: item.artifacts ?? [] });
const toJob = (item: JobItem, steps?: StepLike[]) => ({ ...item, seq: item.version, steps: steps?.map(toStep) });

const byOrder = (a: StepState, b: StepState) => a.order - b.order || a.attempt - b.attempt;

/** A unit a worker holds, as claims and reports name it: a step (no sequence) or a work item. */
export interface HeldUnitRef {
  tenantId: string;
  jobId: string;
  stage: string;
  sequence?: number;
  /** Undefined in a report on a step that names no attempt: every attempt of the step. */
  attempt?: number;
}

/** A unit a claim took, at its attempt, with a pool worker's lease on it (its way to the tenant later; none for a tenant-bound worker). */
export type HeldUnit = HeldUnitRef & { attempt: number; lease?: string | null };

/** Who hears of the workers' claims and of the reports that end what they hold (src/events/work-signals.ts). */
export interface ClaimObserver {
  claimed(worker: string, found: boolean): void;
  /** Process `workerId` of `worker` took `unit`; `repos` reaches its tenant later, as a report would, to hand it back if it is lost. */
  held?(worker: string, workerId: string, unit: HeldUnit, repos: () => Promise<{ jobs: JobRepository }>): void;
  /** A report ended `unit`'s attempt (completed, failed, handed back, paused), naming the worker's process if it says `workerId`. */
  released?(unit: HeldUnitRef, worker: string, workerId?: string): void;
}

const claimObservers = new WeakMap<Store, ClaimObserver>();

/** A worker as its claims name it, for observeClaims: its tenant (or pool) and its token's subject. */
export const claimerOf = (scope: Pick<Scope, 'tenant' | 'actor'>): string => `${scope.tenant.id}\u0000${scope.actor}`;

/**
 * Tells `observer` (one a store) of the claims and reports `store` serves, so that pushed signals deal
 * new work to idle workers first (src/events/work-signals.ts registers: jobs know nothing of events).
 */
export function observeClaims(store: Store, observer: ClaimObserver): void {
  claimObservers.set(store, observer);
}

/**
 * Pipeline jobs. Every change moves the job's version by one and writes the job, the step
 * attempts it touches and the event with seq = new version in one transaction conditioned on
 * the version read, so a job's stream is ordered and gapless and two writers serialize.
 */
export class JobRepository extends EntityRepository<typeof entities.Job> {
  /** The work items of fan-out stages (job.aggregate.ts). */
  readonly items: JobAggregate;
  /** Work items failed past their attempts: listed and replayed (job.dead-letters.ts). */
  readonly deadLetters: DeadLetters;

  constructor(
    scope: Scope,
    private readonly projects: ProjectRepository,
    /** How long a worker holds a step without reporting (see Config.jobLeaseSeconds). */
    leaseSeconds = 60,
    /** What each plan allows (Config.plans): the items a job may hold. */
    plans?: Record<PlanName, PlanLimits>,
  ) {
    super(scope, entities.Job);
    this.items = new JobAggregate(scope, leaseSeconds, plans);
    this.deadLetters = new DeadLetters(scope, this.items);
  }

  get tenantId(): string {
    return this.scope.tenant.id;
  }

  /**
   * Where the job's stream stands (seq, status, project), read strongly consistently and shared with
   * concurrent callers (Scope.shared), so a burst of subscribes to one job reads it a few times, not once each.
   */
  async head(jobId: string): Promise<{ seq: number; status: JobItem['status']; projectId: string } | null> {
    const item = await this.scope.shared.get(this.keys.keyOf({ jobId: assertId(jobId, 'job', 'jobId') }));
    return entities.Job.is(item) ? { seq: item.version, status: item.status, projectId: item.projectId } : null;
  }

  /** The job with all its step attempts, read together in one strongly consistent query. No decision reads it (see JobAggregate.load). */
  async get(jobId: string) {
    assertId(jobId, 'job', 'jobId');
    const items = await this.scope.store.queryAll(jobWithSteps(this.scope.tenant, jobId), MAX_STEP_HISTORY + 1);
    const job = entities.Job.itemsOf(items)[0];
    return job ? toJob(job, entities.Step.itemsOf(items).sort(byOrder)) : null;
  }

  /** Every attempt of every step, in plan order (the `steps` field): it pages through the step rows alone, strongly consistent. */
  async steps(jobId: string) {
    assertId(jobId, 'job', 'jobId');
    const rows = await this.scope.store.queryAll(stepHistory(this.scope.tenant, jobId), MAX_STEP_HISTORY);
    return entities.Step.itemsOf(rows).sort(byOrder).map(toStep);
  }

  /** The job as a decision left it: its `steps` are read when asked for, by this repository (for a pool worker, its lease's tenant's). */
  private decided(job: JobItem) {
    return { ...toJob(job), readSteps: () => this.steps(job.jobId) };
  }

  private async list(spec: QuerySpec, page: PageRequest) {
    return (await this.page(spec, page)).map((item) => toJob(item));
  }

  ofProject(projectId: string, page: PageRequest) {
    return this.list(this.keys.query('byProject', { projectId: assertId(projectId, 'proj', 'projectId') }, { descending: true }), page);
  }

  byStatus(status: JobStatus, page: PageRequest) {
    return this.list(this.keys.query('byStatus', { status }, { descending: true }), page);
  }

  mine(page: PageRequest) {
    return this.list(this.keys.query('byCreator', { createdBy: this.scope.actor }, { descending: true }), page);
  }

  async awaitingReview(page: PageRequest) {
    const spec = this.scope.tenant.of(entities.Step).query('awaitingReview', { status: 'PAUSED' }, { descending: true });
    return entities.Step.pageOf(await this.scope.page(spec, page)).map(toStep);
  }

  /** Across all tenants (operators only: the resolver checks the role), the shards of GSI3 read merged. */
  async acrossTenants(status: JobStatus, page: PageRequest) {
    return entities.Job.pageOf(await this.scope.page(opsJobsByStatus(status), page)).map((item) => toJob(item));
  }

  /**
   * A tenant's worker's claimWork: one query of the claimable index finds the candidates, oldest first;
   * each claim is a transition conditioned on the job's version, so of workers asking at once each
   * step goes to exactly one. A lease run out past the step's attempts fails the job; the search goes on.
   */
  async claimWork(kind?: string | null, stage?: string | null) {
    if (stage != null && kind == null) throw badInput('claimWork needs the kind of the stage it names.', 'kind');
    const index = stage != null ? 'claimableOfStage' : kind != null ? 'claimableOfKind' : 'claimable';
    const values = {
      ...(kind != null ? { kind: requireText(kind, 'kind', 100) } : {}),
      ...(stage != null ? { name: requireText(stage, 'stage', 48), stage } : {}),
    };
    // Steps and fan-out jobs' JobWork entries share the index, so one query finds both. A fan-out
    // stage's waiting step is opened, not handed out (its items are the work), and the index read again.
    // Single steps are spread over the index's shards by job: one shard is read at a time, the oldest
    // work's (ClaimShards). A fan-out stage's entries are all in shard 0, so a claim of one reads it alone.
    const { shards: spread, ...whole } = this.scope.tenant.of(entities.Step).query(index, values);
    const fanOutStage = kind != null && stage != null && fanOutOf({ kind, declared: true }, stage) !== undefined;
    const shards = new ClaimShards(this.scope.store, fanOutStage ? whole : { ...whole, shards: spread }, (candidate) =>
      entities.Step.is(candidate),
    );
    for (let pass = 0; pass < 3; ) {
      // Workers asking at once share one read, started after each asked: it takes the keys (led by the
      // time the work became claimable) up to its start (`#` < `$`), so the workers' clocks do not split it.
      // This caller's ask bounds what it learns of the shards (ClaimShards): the read's start is later.
      const bound = () => `${this.scope.now().toISOString()}$`;
      const spec = shards.next();
      const asked = bound();
      const read = await this.scope.shared.query(spec, CLAIM_CANDIDATES, () => ({ ...spec, skBefore: bound() }));
      // Each caller a read serves starts one candidate further on (takeTurn), so workers asking at once spread
      // over the work in its order, not racing for the first (a random start handed later jobs' work out first).
      const turn = takeTurn(read);
      const candidates = shards.candidates(read, CLAIM_CANDIDATES, asked, turn);
      const start = candidates.length === 0 ? 0 : turn % candidates.length;
      let opened = false;
      for (const candidate of [...candidates.slice(start), ...candidates.slice(0, start)]) {
        // Anything else the index lists is not work: an item written before items were claimed through
        // their job's JobWork entry is index drift, which a migration rewrites (src/common/drift.ts).
        if (!entities.Step.is(candidate) && !entities.JobWork.is(candidate)) continue;
        const step = entities.Step.is(candidate) ? candidate : undefined;
        try {
          if (step && fanOutOf({ kind: step.kind ?? '', declared: true }, step.name)) {
            const job = await this.items.open(step.jobId, step.name);
            opened ||= job.currentStep === step.name;
            continue;
          }
          // A step is claimed itself; a job at a fan-out stage (its JobWork entry) offers its claimable items, oldest first.
          const claimed = await this.claim(candidate.jobId, step?.name, false);
          if (claimed && claimed !== AT_LIMIT && !(claimed instanceof HeldUntil)) return claimed;
        } catch (error) {
          // Another worker took it first, or its job moved on or was cancelled: try the next one.
          if (error instanceof AppError && CLAIM_RACES.has(error.code)) continue;
          throw error;
        }
      }
      // An opened stage's entry is in the shard just read: read it again. Else the next shard, if any.
      if (opened) pass++;
      else if (!shards.moveOn()) break;
    }
    return null;
  }

  /**
   * Operators only (the resolver checks the role). The limit holds at once (every claim's transaction
   * checks it); the weight is used by this process at once, by others within a few seconds (PoolScheduler).
   */
  async setPoolShare(tenantId: string, weight: number, maxRunning: number | null) {
    if (!isValidTenantId(tenantId)) throw badInput('tenantId is not a valid tenant id.', 'tenantId');
    if (!Number.isInteger(weight) || weight < 1 || weight > 1000)
      throw badInput('weight must be a whole number from 1 to 1,000.', 'weight');
    if (maxRunning != null && !(Number.isInteger(maxRunning) && maxRunning >= 1))
      throw badInput('maxRunning must be a whole number from 1, or null for no limit.', 'maxRunning');
    const at = this.scope.now().toISOString();
    await this.scope.store.transact([
      entities.PoolShare.put(tenantId, { weight, maxRunning: maxRunning ?? undefined, version: 1, createdAt: at, updatedAt: at }),
    ]);
    this.poolScheduler().forgetShare(tenantId);
    return { tenantId, weight, maxRunning };
  }

  /** The pool scheduler of this process and table (job.pool.ts). */
  poolScheduler(): PoolScheduler {
    return poolSchedulerOf(this.scope.store, this.scope.now);
  }

  /**
   * A worker's claim in job `jobId`, of its single step `stage` or of its next item (JobAggregate.claim
   * says how, and how a pool worker's is held to its tenant's limit). AT_LIMIT when the tenant is at
   * that limit; HeldUntil when the index listed the step before its lease's end; null when nothing
   * is claimable now otherwise (taken first, in its backoff, or the job moved on or is gone).
   */
  async claim(jobId: string, stage: string | undefined, pooled: boolean): Promise<Claim | HeldUntil | typeof AT_LIMIT | null> {
    try {
      const claimed = await this.items.claim(assertId(jobId, 'job', 'jobId'), stage, pooled);
      if (claimed.heldUntil) return new HeldUntil(claimed.heldUntil);
      if (claimed.atLimit) return AT_LIMIT;
      const { job, step, item } = claimed;
      return step ? { job: this.decided(job), step: toStep({ ...step, jobId }), item: item ?? null } : null;
    } catch (error) {
      if (error instanceof AppError && CLAIM_RACES.has(error.code)) return null;
      throw error;
    }
  }

  /**
   * Creates a job, or returns the one an earlier identical request made, through the idempotent
   * creates' one path (common/idempotency.ts): the key (createRequestOf) is recorded in the job's own
   * transaction, so concurrent duplicates create exactly one job and all of them get it.
   */
  async create(input: CreateJobInput) {
    const request = this.checkedCreate(input);
    // The plan's itemsPerJob (none needed without items) is read beside the key's record: one round trip
    // fewer. JobAggregate.created awaits it; its failure is also taken at once (else an unhandled
    // rejection while the record is read) and logged below for a request answered with an earlier job.
    const allowed = request.items.length > 0 ? this.items.itemsAllowed() : undefined;
    const allowedFailure = allowed?.then(() => undefined).catch((error: unknown) => error);
    let made: Awaited<ReturnType<JobAggregate['created']>> | undefined;
    const job = await idempotent(
      this.scope,
      entities.Job,
      createRequestOf(input),
      async (remember) => {
        const created = await this.items.created(this.newJob(input, request), request.itemStage?.name, request.items, allowed);
        await this.scope.commit([
          // The key's record first, so that when a duplicate request committed first, its failure is the one reported.
          ...(remember ? [remember(created.job)] : []),
          ...created.writes,
          // The server's own jobs belong to no project (their projectId only names the system's).
          ...(request.system ? [] : [this.projects.activeProjectCheck(request.fields.projectId)]),
        ]);
        // Only once committed: a duplicate that lost to another request is answered with that request's job.
        made = created;
        return created.job;
      },
      keyReleased,
    );
    // An earlier request's job is returned as it is now; a new one as this request made it (a
    // first stage that fans out opened in its commit: STEP_STARTED, or completed without items).
    if (made) return toJob(made.job, made.steps);
    const failure = await allowedFailure;
    if (failure !== undefined)
      logger.warn(
        { err: failure, code: 'PLAN_READ_FAILED' },
        "createJob's read of the plan's itemsPerJob failed; the request was answered with an earlier job, which needs none",
      );
    return toJob(job);
  }

  /** What createJob's `input` asks for, checked before anything is read: BAD_USER_INPUT naming the field at fault. */
  private checkedCreate(input: CreateJobInput) {
    const fields = checkFields(GIVEN, input, { mode: 'create', tenant: this.scope.tenant });
    const { kind } = fields;
    // A declared kind's stages apply when the request names no steps; a request that names its
    // steps keeps the free-form plan it was written for, before kinds were declared.
    const ofKind = declaredKind(kind);
    const declared = input.steps == null ? ofKind : undefined;
    if (input.steps == null && !declared)
      throw badInput(`${kind} is not a declared kind (see jobKinds), so the job needs its steps.`, 'steps');
    const system = this.scope.tenant.id === SYSTEM_TENANT;
    if (ofKind?.system && !system) throw badInput(`${kind} jobs are run by the server itself; no tenant creates one.`, 'kind');
    const stepNames = declared ? declared.stages.map((stage) => stage.name) : this.freeSteps(input.steps);
    const maxAttempts = wholeNumber(entities.Job.attributes.maxAttempts, input.maxAttempts ?? declared?.maxAttempts ?? 3, 'maxAttempts');
    if (declared && input.inputs != null && !isPlainObject(input.inputs))
      throw badInput(`A ${kind} job's inputs must be an object.`, 'inputs');
    const inputs = declared
      ? checkDeclared(this.scope.tenant, declared.inputs, input.inputs ?? {}, 'inputs.')
      : boundedJson(input.inputs, 'inputs');
    // Items given at creation go to the kind's first fan-out stage.
    const itemStage = declared?.stages.find((stage) => stage.fanOut);
    if (input.items != null && !itemStage) throw badInput(`A ${kind} job has no fan-out stage to take items.`, 'items');
    if (input.items != null && input.items.length > MAX_ITEMS_AT_CREATE)
      throw badInput(`createJob takes at most ${MAX_ITEMS_AT_CREATE} items; add more with addWorkItems.`, 'items');
    const items = input.items != null && itemStage?.fanOut ? this.items.checkInputs(itemStage.fanOut, input.items) : [];
    return { fields: { ...fields, maxAttempts }, declared, system, stepNames, inputs, itemStage, items };
  }

  /** The new job `input` asks for, as checked (checkedCreate): QUEUED at its first step, with a new id, made now. */
  private newJob(input: CreateJobInput, request: ReturnType<JobRepository['checkedCreate']>) {
    const { itemStage, items } = request;
    const at = this.scope.now().toISOString();
    const plan = request.stepNames.map((name, n) => ({ name, order: n + 1 }));
    return this.scope.tenant.of(entities.Job).toItem({
      ...request.fields,
      jobId: this.scope.newId('job'),
      status: JobStatus.QUEUED,
      createdAt: at,
      updatedAt: at,
      createdBy: this.scope.actor,
      plan,
      attempts: Object.fromEntries(plan.map((p) => [p.name, 1])),
      currentStep: plan[0].name,
      progress: 0,
      completedSteps: 0,
      failedSteps: 0,
      inputs: request.inputs ?? undefined,
      declared: request.declared ? true : undefined,
      itemCounts:
        itemStage && items.length ? { [itemStage.name]: { total: items.length, running: 0, completed: 0, failed: 0 } } : undefined,
      reuse: input.reuse === false ? false : undefined,
      version: 1,
    });
  }

  /** A free-form kind's steps, as the client names them. */
  private freeSteps(named: string[] | null | undefined): string[] {
    if (!named || named.length === 0) throw badInput('A job of an undeclared kind needs at least one step.', 'steps');
    maxItems(named, 'steps', 20);
    for (const name of named)
      if (!STEP_NAME.test(name))
        throw badInput(`Step name "${name}" must be 1–48 letters, digits and _ . - (starting with a letter or digit).`, 'steps');
    if (new Set(named).size !== named.length) throw badInput('Step names must be unique within a job.', 'steps');
    return named;
  }

  /**
   * Deletes a finished job and its partition. The job's item goes, on the version read and with its
   * event, in one transaction with the first page of its other rows: then the job is gone for every
   * reader (its rows are only read through it). A partition that does not fit (a 10,000-item stage
   * leaves over 30,000 rows) gets a JobSettle entry marked `deleting`, and the sweep deletes the rest.
   */
  async delete(jobId: string, expectedVersion?: number | null) {
    assertId(jobId, 'job', 'jobId');
    const { scope, keys } = this;
    const settleKey = scope.tenant.of(entities.JobSettle).keyOf({ jobId });
    // In the job's queue, so it waits for the job's other commands. The step history is read beside
    // the rest for the answer, the job as it was (its rows are gone once the deletion commits).
    const queue = jobQueueId(scope.tenant, jobId);
    const read = async () => {
      const [job, steps, page, settle] = await Promise.all([
        scope.store.get(keys.keyOf({ jobId })),
        this.steps(jobId),
        scope.store.queryFirst({ pk: keys.pkOf({ jobId }) }, DELETE_FIRST + 2),
        scope.store.get(settleKey),
      ]);
      return { job, steps, page, settle: entities.JobSettle.found(settle) ?? undefined };
    };
    return decideOnce(scope.store, queue, JOB_DELETION, scope.commitHooks(), read, ({ job, steps, page, settle }) => {
      if (!entities.Job.is(job)) throw notFound('Job', jobId);
      if (expectedVersion != null && job.version !== expectedVersion) throw conflict('Job', jobId, expectedVersion, job.version);
      if (!TERMINAL.has(job.status)) {
        throw invalidTransition('Job', jobId, job.status, 'deleted', {
          action: 'delete',
          allowed: [...TERMINAL],
          hint: 'Cancel it first (cancelJob), or let it finish.',
        });
      }
      // The first page of the partition: rows other than the job's own and its JobSettle entry
      // (written apart: a transaction names each key once) go with the job when all of them fit.
      const others = page.filter((row) => row.SK !== settleKey.SK && !entities.Job.is(row));
      const fits = page.length < DELETE_FIRST + 2 && others.length <= DELETE_FIRST;
      // Its JobSettle entry goes with it, or marks it `deleting` for the sweep. A settle sweep may
      // move the entry meanwhile: the deletion is then read and decided again.
      const moved = () => new Stale();
      const at = scope.now().toISOString();
      const entry = fits
        ? del(settleKey)
        : scope.tenant.of(entities.JobSettle).put({
            jobId,
            jobExpiresAt: job.expiresAt ?? Math.floor(Date.parse(at) / 1000),
            deleting: true,
            version: (settle?.version ?? 0) + 1,
            createdAt: settle?.createdAt ?? at,
            updatedAt: at,
          });
      const writes = [
        keys
          .delete({ jobId })
          .ifVersion(job.version, (now) =>
            !now
              ? notFound('Job', jobId)
              : expectedVersion == null
                ? new Stale()
                : conflict('Job', jobId, job.version, entities.Job.is(now) ? now.version : undefined),
          ),
        activityEvent(scope, {
          action: 'job.deleted',
          subject: { type: entities.Job.type, id: jobId, projectId: job.projectId },
          data: { kind: job.kind, status: job.status },
        }),
        ...(settle ? [entry.ifVersion(settle.version, moved)] : fits ? [] : [entry.ifNew(moved)]),
        ...deletesReleasing(scope.tenant.of(entities.PoolLoad).keyOf({}), others.slice(0, DELETE_FIRST), moved),
      ];
      return { writes, value: toJob(job, steps) };
    });
  }

  /** Runs a worker's or a person's command on a job (JobAggregate.run): the job as it left it. */
  async act(jobId: string, command: JobCommand, review: { comment?: string | null } = {}) {
    return this.decided((await this.items.run(jobId, command, review)).job);
  }

  // Tell the claims' observer (observeClaims) of this worker's claims and reports: see ClaimObserver.
  noteClaim(found: boolean): void {
    claimObservers.get(this.scope.store)?.claimed(claimerOf(this.scope), found);
  }
  noteHeld(workerId: string, unit: HeldUnit, repos: () => Promise<{ jobs: JobRepository }>): void {
    claimObservers.get(this.scope.store)?.held?.(claimerOf(this.scope), workerId, unit, repos);
  }
  noteReleased(unit: HeldUnitRef, workerId?: string): void {
    claimObservers.get(this.scope.store)?.released?.(unit, claimerOf(this.scope), workerId);
  }
}
