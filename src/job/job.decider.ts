/*
 * The job aggregate's decider: every decision on a job, its step attempts and its work items, pure
 * (no IO: the committer's side, reads and writes, is job.aggregate.ts over src/infra/dynamo/committer.ts).
 * - decide: a command takes the group's state (JobGroup, immutable) to the next, recording its events;
 * - evolve: what an event does to the job, its steps and its items (JobGroup.record keeps that fold);
 * - react: what follows by itself in the same group: a stage opens (openStage, openReached) and
 *   settles (settleStage), and reusable work completes from a live record (reuseStep, reuseAdded).
 * The rules an attempt follows (leases, deadlines, backoff, takeover, refusals) are written once,
 * in UnitDecision, for steps and items alike; the machines they keep are declared with the entities.
 */

import { AppError, attemptTimedOut, badInput, ErrorCode, invalidTransition, notFound, quotaExceeded, wrongAttempt } from '../errors';
import { attemptEndsAt, entities, type EntityItem, type ItemCountsItem, MAX_STAGE_ITEMS } from '../common/entities';
import type { UnitWrite } from '../infra/dynamo/write';
import {
  type AttemptRef,
  backoffSeconds,
  type FanOutDeclaration,
  fanOutOf,
  type RetryBackoff,
  stepPolicyOf,
  type StepPolicy,
} from './job.kinds';
import { contentKey, liveRecord, type ReusedWork, type ReuseRecordItem, reuseOf, sourceOf, takesReuse } from './job.reuse';
import {
  ItemStatus,
  type JobAction,
  JobEventType,
  JobStatus,
  type JobError,
  type StepState,
  StepStatus,
  TERMINAL,
  JOB_COMMANDS,
  commandsHint,
  type JobCommand,
  onStep,
} from './job.machine';
import { countsOf, expiresAtOf, type JobItem, type StepLike, type WorkItemItem } from './job.writes';

type StepItem = EntityItem<'Step'>;

/** The ISO time `seconds` after the ISO time `at`, to the millisecond. */
const later = (at: string, seconds: number): string => new Date(Date.parse(at) + Math.round(seconds * 1000)).toISOString();

/** When a lease taken or renewed at `at` runs out without another report: `leaseSeconds` (JOB_LEASE_SECONDS) later. */
export const leaseUntilOf = (at: string, leaseSeconds: number): string => later(at, leaseSeconds);

/** A lease never outlasts its attempt's time: a report past it renews nothing. */
const leaseWithin = (leaseUntil: string, timesOutAt: string | undefined): string =>
  timesOutAt !== undefined && timesOutAt < leaseUntil ? timesOutAt : leaseUntil;

/** When the next attempt after failed attempt `ref.attempt` may start: `at` plus its stage's backoff (at once without one). */
export const retryAt = (backoff: RetryBackoff | undefined, ref: AttemptRef, at: string): string => later(at, backoffSeconds(backoff, ref));

/** Throws BAD_USER_INPUT (field `progress`) unless `progress` is between 0 and 1. */
export function checkProgress(progress: number): void {
  if (!(progress >= 0 && progress <= 1)) throw badInput('progress must be between 0 and 1.', 'progress');
}

/**
 * A job's progress from 0 to 1: its completed steps plus the share `current` of the step it is on,
 * over its planned steps; kept to four decimals, so stored and compared values agree.
 */
function jobProgress(job: { completedSteps: number; plan: readonly unknown[] }, current = 0): number {
  return Math.round(Math.min(1, (job.completedSteps + current) / job.plan.length) * 10_000) / 10_000;
}

/** What an action on a unit is called in an error message ("Cannot report progress on item 3 …"): its kind unless named here. */
const VERBS: { [K in JobAction['kind']]?: string } = { progress: 'report progress on', pause: 'pause for review', handBack: 'hand back' };
const verb = (kind: JobAction['kind']): string => VERBS[kind] ?? kind;

/**
 * Throws JOB_CANCELLED when the job was cancelled: no worker's action on its steps or items
 * succeeds, and the worker can tell "stop, the job is gone" from a transition it got wrong.
 */
function refuseCancelled(job: JobItem): void {
  if (job.status !== JobStatus.CANCELLED) return;
  const at = job.finishedAt;
  throw new AppError(
    ErrorCode.JOB_CANCELLED,
    `Job ${job.jobId} was cancelled${at ? ` at ${at}` : ''}; stop working on it and drop its work.`,
    { jobId: job.jobId, cancelledAt: at ?? null },
  );
}

/** The actions a worker takes on a unit it claims and holds: a step's attempt (sequence 0) or a work item alike. */
type WorkKind = 'claim' | 'progress' | 'complete' | 'fail' | 'handBack';
const WORK_KINDS: ReadonlySet<JobAction['kind']> = new Set<WorkKind>(['claim', 'progress', 'complete', 'fail', 'handBack']);

/** Every action a worker takes on a step (on the unit it holds, starting and pausing it): each gets JOB_CANCELLED on a cancelled job. */
const WORKER_ACTIONS = new Set<JobAction['kind']>([...WORK_KINDS, 'start', 'pause']);

type ActionOf<K extends JobAction['kind']> = Extract<JobAction, { kind: K }>;

const isWork = (action: JobAction): action is ActionOf<WorkKind> => WORK_KINDS.has(action.kind);

/**
 * One decision on a unit of work in the making, a step's current attempt (StepDecision) or a work
 * item (ItemDecision), over the group as the command found it: the rules of an attempt, once for
 * both. Each side says how its unit starts, renews, completes, waits for its next attempt, fails
 * for good and is handed back; when each happens is decided once, for both, by WORK_HANDLERS.
 */
abstract class UnitDecision<K extends JobAction['kind']> {
  readonly job: JobItem;
  readonly at: string;
  /** When an attempt starting now runs out of time (none without an attempt timeout). */
  readonly deadline: string | undefined;

  constructor(
    readonly group: JobGroup,
    readonly action: ActionOf<K>,
    readonly actor: string,
    /** Its stage's attempt timeout and retry backoff (a fan-out stage declares its items'). */
    readonly policy: StepPolicy,
  ) {
    this.job = group.job;
    this.at = group.at;
    this.deadline = policy.attemptTimeoutSeconds ? later(group.at, policy.attemptTimeoutSeconds) : undefined;
  }

  /** The unit, for messages: "Step render of job", "Item 3 of stage frames of job". */
  abstract get what(): string;
  /** Its current attempt. */
  abstract get unit(): StepState | WorkItemItem;
  /** The attempts it may take (one more for each handed back). */
  abstract get maxAttempts(): number;
  /** Refuses a claim of a unit whose stage the job is not at. */
  abstract requireClaimable(): void;
  /** Refuses an action on a unit its worker does not hold RUNNING (moving it `to`). */
  abstract requireHeld(to: string): void;
  /** A waiting unit starts for the claimer (once its backoff is over). */
  abstract start(claim: ActionOf<'claim'>): JobGroup;
  abstract renew(report: ActionOf<'progress'>): JobGroup;
  abstract complete(done: ActionOf<'complete'>): JobGroup;
  /** The attempt ended with `error` and attempts left: the next one waits, or the claimer (`claim`) holds it at once. */
  abstract retryLater(error: JobError, claim?: ActionOf<'claim'>): JobGroup;
  abstract failForGood(error: JobError): JobGroup;
  /** See JobAction's handBack: a step keeps the count in `handedBack`, an item moves its own last attempt, `maxAttempt`, on by one. */
  abstract handBack(): JobGroup;

  /** INVALID_TRANSITION naming the unit, its status (or `from`), the target `to` and the statuses allowed. */
  refuse(to: string, allowed: readonly string[], hint?: string, from: string = this.unit.status): never {
    throw invalidTransition(this.what, this.job.jobId, from, to, { action: verb(this.action.kind), allowed, hint });
  }

  /** The worker's lease until `leaseUntil`, never past the attempt's time (none without a lease). */
  lease(leaseUntil: string | undefined, timesOutAt: string | undefined): { worker?: string; leaseExpiresAt?: string } {
    return leaseUntil ? { worker: this.actor, leaseExpiresAt: leaseWithin(leaseUntil, timesOutAt) } : {};
  }

  /** An attempt starting now: running, its lease, its time; a pool worker's (`pooled`) counts in its tenant's pool load. */
  starting(by: { leaseUntil?: string; pooled?: boolean }) {
    const { deadline } = this;
    const running = { status: ItemStatus.RUNNING, progress: 0, startedAt: this.at, timesOutAt: deadline };
    return { ...running, ...this.lease(by.leaseUntil, deadline), pooled: by.pooled || undefined };
  }

  /**
   * A worker that names an attempt (a step's caller may leave it out) must hold the current one: one
   * whose lease was taken over (or that never was) is refused, naming the attempt that runs now.
   * `waiting` says when a unit that waits (PENDING, after a failed attempt) may be claimed again.
   */
  requireAttempt(kind: 'step' | 'item', waiting?: { availableAt?: string }): void {
    const named = 'attempt' in this.action ? this.action.attempt : undefined;
    const { what, unit } = this;
    if (named != null && named !== unit.attempt)
      throw wrongAttempt(what, this.job.jobId, verb(this.action.kind), kind, unit.attempt, named, waiting);
  }

  /**
   * Throws ATTEMPT_TIMED_OUT when the held attempt's time is up: a report on it renews nothing,
   * its holder is told to stop, and the unit stays claimable, so the next claim takes it over.
   */
  refuseTimedOut(): void {
    const { unit } = this;
    if (unit.timesOutAt !== undefined && unit.timesOutAt <= this.at)
      throw attemptTimedOut(this.what, this.job.jobId, unit.attempt, unit.timesOutAt, this.policy.attemptTimeoutSeconds);
  }

  /** When the next attempt of unit (`stage`, `sequence`), whose current one failed now, may start: after its stage's backoff. */
  nextAvailableAt(stage: string, sequence: number): string {
    return retryAt(this.policy.retryBackoff, { jobId: this.job.jobId, stage, sequence, attempt: this.unit.attempt }, this.at);
  }

  /**
   * Why a running attempt that ended at `ends`, the earlier of its lease's end and its time's, is
   * over: its time ran out (ATTEMPT_TIMED_OUT; a lease never outlasts the time, so when both ended
   * at once it was the time), or its holder stopped reporting (LEASE_EXPIRED).
   */
  endedError(ends: string): JobError {
    const { unit } = this;
    const worker = unit.worker ?? 'unknown';
    const retryCount = unit.attempt - 1;
    return ends === unit.timesOutAt
      ? {
          code: 'ATTEMPT_TIMED_OUT',
          message: `Attempt ${unit.attempt} of worker ${worker} ran out of time at ${ends}: its stage allows ${this.policy.attemptTimeoutSeconds ?? '?'} s an attempt, whatever its reports.`,
          retryCount,
        }
      : { code: 'LEASE_EXPIRED', message: `Worker ${worker} stopped reporting; its lease ran out at ${unit.leaseExpiresAt}.`, retryCount };
  }
}

/** The rules of a worker's actions, written once for steps and items (see UnitDecision). */
const WORK_HANDLERS: { [K in WorkKind]: (d: UnitDecision<K>) => JobGroup } = {
  claim(d) {
    d.requireClaimable();
    const { unit } = d;
    if (unit.status === ItemStatus.PENDING) return d.start(d.action);
    // A running attempt can be taken over once its lease or its time runs out, whichever is first.
    const ends = attemptEndsAt(unit);
    if (unit.status !== ItemStatus.RUNNING || !ends || ends > d.at) {
      const hint = ends && (ends === unit.timesOutAt ? `Its attempt runs until ${ends}.` : `Its lease runs until ${ends}.`);
      return d.refuse('claimed', [ItemStatus.PENDING, 'RUNNING with its lease or its time run out'], hint);
    }
    const error = d.endedError(ends);
    if (unit.attempt >= d.maxAttempts) return d.failForGood(error);
    // With a retry backoff the next attempt waits for it, like one its worker failed: the claimer
    // holds none of it. Without one the claimer holds the new attempt at once.
    return d.retryLater(error, d.policy.retryBackoff ? undefined : d.action);
  },
  progress(d) {
    checkProgress(d.action.progress);
    d.requireHeld(ItemStatus.RUNNING);
    // An attempt whose time is up is not renewed: its holder is told to stop.
    d.refuseTimedOut();
    return d.renew(d.action);
  },
  complete(d) {
    d.requireHeld(ItemStatus.COMPLETED);
    return d.complete(d.action);
  },
  fail(d) {
    d.requireHeld(ItemStatus.FAILED);
    const { code, message } = d.action;
    const error: JobError = { code, message, retryCount: d.unit.attempt - 1 };
    return d.unit.attempt < d.maxAttempts ? d.retryLater(error) : d.failForGood(error);
  },
  handBack(d) {
    d.requireHeld(ItemStatus.PENDING);
    // An attempt whose time is up is over already: the next claim takes it over as it would.
    d.refuseTimedOut();
    return d.handBack();
  },
};

/**
 * One decision on a job and its steps, in the making: the rules their commands share; a worker's
 * action's unit is the current attempt of the step the command names.
 */
class StepDecision<K extends JobAction['kind']> extends UnitDecision<K> {
  constructor(
    group: JobGroup,
    /** The step the command names (none for the job's own commands). */
    readonly stage: string | undefined,
    action: ActionOf<K>,
    actor: string,
    policy: StepPolicy,
  ) {
    super(group, action, actor, policy);
  }

  /** The group with the job's `change`, the step attempts written and the event `type` (about `step`). */
  moved(change: Partial<JobItem>, steps: StepState[], type: JobEventType, step?: StepState, reused?: ReusedWork[]): JobGroup {
    const { jobId } = this.job;
    return this.group.record({ actor: this.actor, type, job: change, steps: steps.map((s) => ({ ...s, jobId })), step, reused });
  }

  /** The job must be in a status the command accepts; a worker's command on a cancelled job gets JOB_CANCELLED. */
  requireJob(): void {
    const { job, action } = this;
    const command = JOB_COMMANDS[action.kind];
    if (WORKER_ACTIONS.has(action.kind)) refuseCancelled(job);
    if (!command.job.includes(job.status)) {
      throw invalidTransition('Job', job.jobId, job.status, command.to, {
        action: verb(action.kind),
        allowed: command.job,
        hint: commandsHint(job.status),
      });
    }
  }

  /** The current attempt of the step named `name`, or BAD_USER_INPUT naming the job's steps. */
  stepOf(name: string): StepState {
    const step = this.group.steps.get(name);
    if (step) return step;
    const steps = this.job.plan.map((p) => p.name).join(', ');
    throw badInput(`Job ${this.job.jobId} has no step named "${name}"; its steps are ${steps}.`, 'stepName');
  }

  /**
   * The current attempt of the step the command names, checked as the command requires: the job's
   * status, the attempt the worker names (if any) and the step's status.
   */
  namedStep(): StepState {
    this.requireJob();
    this.requireAttempt('step');
    this.requireStep();
    return this.unit;
  }

  requireStep(): void {
    const { step: allowed = [], stepTo } = JOB_COMMANDS[this.action.kind];
    const { status } = this.unit;
    if (!allowed.includes(status)) this.refuse(stepTo ?? status, allowed, commandsHint(this.job.status, status));
  }

  /** A waiting attempt starts only once its retry backoff is over. */
  requireReady(): void {
    const { waitsUntil, status, attempt } = this.unit;
    if (waitsUntil && waitsUntil > this.at) {
      const hint = `Attempt ${attempt} waits for its stage's retry backoff: it can start at ${waitsUntil}.`;
      this.refuse(StepStatus.RUNNING, [`${StepStatus.PENDING} once its backoff is over`], hint, `${status} until ${waitsUntil}`);
    }
  }

  /** A step's attempt starting now (see starting), no longer waiting for a backoff. */
  begin(by: { leaseUntil?: string; pooled?: boolean }): Partial<StepState> {
    return { ...this.starting(by), waitsUntil: undefined };
  }

  /** The step starts now for its worker: the job runs, at this step. */
  startAttempt(by: { leaseUntil?: string; pooled?: boolean }): JobGroup {
    const started: StepState = { ...this.unit, ...this.begin(by) };
    const change = { status: JobStatus.RUNNING, currentStep: started.name, startedAt: this.job.startedAt ?? this.at };
    return this.moved(change, [started], JobEventType.STEP_STARTED, started);
  }

  get unit(): StepState {
    return this.stepOf(this.stage ?? '');
  }

  get what(): string {
    return `Step ${this.unit.name} of job`;
  }

  /** The job's attempts, and one more for each attempt of the step handed back (not counted). */
  get maxAttempts(): number {
    return this.job.maxAttempts + (this.unit.handedBack ?? 0);
  }

  /** A claim names the job's current step, in a job that runs (or waits to). */
  requireClaimable(): void {
    this.requireJob();
    this.requireCurrent('claimed');
  }

  /** Only the step the job is at (its first, before it started) can start: the others wait for it. */
  requireCurrent(to: string): void {
    const { name } = this.unit;
    const current = this.job.currentStep ?? this.job.plan[0]?.name;
    if (name !== current) throw invalidTransition(`Step ${name} of job`, this.job.jobId, `waiting for ${current}`, to);
  }

  requireHeld(): void {
    this.namedStep();
  }

  start(by: { leaseUntil?: string; pooled?: boolean }): JobGroup {
    this.requireReady();
    return this.startAttempt(by);
  }

  /** A report renews the reporter's lease, up to the attempt's time, and moves the job's progress. */
  renew(report: ActionOf<'progress'>): JobGroup {
    const step = this.unit;
    const updated: StepState = {
      ...step,
      progress: report.progress,
      metrics: report.metrics ?? step.metrics,
      ...this.lease(report.leaseUntil, step.timesOutAt),
    };
    return this.moved({ progress: jobProgress(this.job, report.progress) }, [updated], JobEventType.STEP_PROGRESS, updated);
  }

  /** The step completes with what it produced, or pauses with it for a person's review (a stage declared for review). */
  complete(done: ActionOf<'complete'>): JobGroup {
    const step = this.unit;
    const produced = { artifacts: done.artifacts ?? [], metrics: done.metrics ?? step.metrics, outputs: done.outputs ?? step.outputs };
    if (done.review) {
      const paused: StepState = { ...step, ...produced, status: StepStatus.PAUSED, progress: 1 };
      return this.moved({ status: JobStatus.PAUSED }, [paused], JobEventType.STEP_PAUSED, paused);
    }
    const completed: StepState = { ...step, ...produced, status: StepStatus.COMPLETED, progress: 1, finishedAt: this.at };
    return this.advance(completed, JobEventType.STEP_COMPLETED);
  }

  /** The new attempt after one that failed: waiting for its backoff, or held by the claimer (STEP_RECLAIMED shows it). */
  retryLater(error: JobError, claim?: ActionOf<'claim'>): JobGroup {
    const { job } = this;
    const step = this.unit;
    const failed: StepState = { ...step, status: StepStatus.FAILED, error, finishedAt: this.at };
    const change = { error, attempts: { ...job.attempts, [step.name]: step.attempt + 1 }, progress: jobProgress(job) };
    // Without a claim the new attempt waits for its stage's backoff (at once without one).
    const until = this.nextAvailableAt(step.name, 0);
    const starts = claim ? this.begin(claim) : until > this.at ? { waitsUntil: until } : {};
    const again = nextAttempt(step, { handedBack: step.handedBack, ...starts });
    return this.moved(change, [failed, again], claim ? JobEventType.STEP_RECLAIMED : JobEventType.STEP_FAILED, claim ? again : failed);
  }

  /** The attempt failed past the job's attempts: the job fails with it. */
  failForGood(error: JobError): JobGroup {
    return this.failJob({ ...this.unit, status: StepStatus.FAILED, error, finishedAt: this.at }, error);
  }

  handBack(): JobGroup {
    const step = this.unit;
    const released: StepState = { ...step, status: StepStatus.HANDED_BACK, finishedAt: this.at };
    const again = nextAttempt(step, { handedBack: (step.handedBack ?? 0) + 1 });
    const change = { attempts: { ...this.job.attempts, [step.name]: again.attempt }, progress: jobProgress(this.job) };
    return this.moved(change, [released, again], JobEventType.STEP_HANDED_BACK, again);
  }

  /** The job fails with `error`, at its failed (or rejected) step; `type` is the event that says so. */
  failJob(failed: StepState, error: JobError, type: JobEventType = JobEventType.STEP_FAILED): JobGroup {
    const change = { status: JobStatus.FAILED, failedSteps: this.job.failedSteps + 1, error, finishedAt: this.at };
    return this.moved(change, [failed], type, failed);
  }

  /**
   * A step finished (event `type`, with `also` on the job): the job advances to the next step, or
   * completes. The next step's current attempt is written as it is, so that it becomes claimable
   * (see Step.current).
   */
  advance(done: StepState, type: JobEventType, also: Partial<JobItem> = {}, reused?: ReusedWork[]): JobGroup {
    const { job } = this;
    const completedSteps = job.completedSteps + 1;
    const following = job.plan.filter((p) => p.order > done.order).sort((a, b) => a.order - b.order)[0];
    const reached = following && this.group.steps.get(following.name);
    const change = following
      ? { status: JobStatus.RUNNING, currentStep: following.name, progress: jobProgress({ completedSteps, plan: job.plan }) }
      : { status: JobStatus.COMPLETED, currentStep: undefined, progress: 1, finishedAt: this.at };
    return this.moved({ ...also, completedSteps, error: undefined, ...change }, reached ? [done, reached] : [done], type, done, reused);
  }
}

/** The step's attempt after `step`'s, waiting (PENDING) unless `changes` start it. */
const nextAttempt = (step: StepState, changes: Partial<StepState> = {}): StepState => ({
  name: step.name,
  order: step.order,
  attempt: step.attempt + 1,
  status: StepStatus.PENDING,
  progress: 0,
  ...changes,
});

/** A failed job runs again at `again`, the new attempt of its failed step (retryJob; an item retried in a stage failed by its policy). */
const runAgain = (job: JobItem, again: StepState): Partial<JobItem> => ({
  status: JobStatus.RUNNING,
  attempts: { ...job.attempts, [again.name]: again.attempt },
  failedSteps: Math.max(0, job.failedSteps - 1),
  finishedAt: undefined,
  error: undefined,
});

/** The job's and a step's own commands (not a worker's action on the unit it holds). */
type StepKind = Exclude<JobAction['kind'], WorkKind>;

/** What each command on a step (or on the job) does, given the decision's shared rules (StepDecision). */
const STEP_HANDLERS: { [K in StepKind]: (d: StepDecision<K>) => JobGroup } = {
  start(d) {
    d.requireJob();
    d.requireStep();
    d.requireCurrent(StepStatus.RUNNING);
    return d.start(d.action);
  },
  pause(d) {
    const step = d.namedStep();
    const paused: StepState = { ...step, status: StepStatus.PAUSED };
    return d.moved({ status: JobStatus.PAUSED }, [paused], JobEventType.STEP_PAUSED, paused);
  },
  approve(d) {
    const step = d.namedStep();
    const approved = { ...step, status: StepStatus.COMPLETED, progress: 1, approvedBy: d.actor, decidedAt: d.at, finishedAt: d.at };
    return d.advance(approved, JobEventType.STEP_APPROVED);
  },
  reject(d) {
    const step = d.namedStep();
    const error = { code: 'REJECTED', message: d.action.reason, retryCount: step.attempt - 1 };
    const rejected = { ...step, status: StepStatus.FAILED, error, approvedBy: d.actor, decidedAt: d.at, finishedAt: d.at };
    return d.failJob(rejected, error, JobEventType.STEP_REJECTED);
  },
  cancel(d) {
    d.requireJob();
    // Its waiting steps are skipped; a running or paused one is written as it is, so that it stops
    // being its job's current attempt (and leaves the claimable indexes: see Step.current), but no
    // longer counts in its tenant's pool load: no report of its worker is accepted now to end it.
    const steps = [...d.group.steps.values()]
      .filter((s) => s.status === StepStatus.PENDING || s.status === StepStatus.RUNNING || s.status === StepStatus.PAUSED)
      .map((s) => (s.status === StepStatus.PENDING ? { ...s, status: StepStatus.SKIPPED } : { ...s, pooled: undefined }));
    return d.moved({ status: JobStatus.CANCELLED, finishedAt: d.at }, steps, JobEventType.JOB_CANCELLED);
  },
  retry(d) {
    d.requireJob();
    const retry = nextAttempt(d.stepOf(d.job.currentStep ?? d.job.plan[0].name));
    return d.moved(runAgain(d.job, retry), [retry], JobEventType.JOB_RETRIED, retry);
  },
};

/** Runs the handler of command `kind` (typed per command: TypeScript's correlated union pattern, no assertion). */
const handle = <K extends StepKind>(kind: K, d: StepDecision<K>): JobGroup => STEP_HANDLERS[kind](d);
/** Runs the rule of a worker's action `kind` on the unit it holds, a step's attempt or an item alike. */
const work = <K extends WorkKind>(kind: K, d: UnitDecision<K>): JobGroup => WORK_HANDLERS[kind](d);

/** One decision on a work item, in the making: the rules its actions share (the stage being live, the counters). */
class ItemDecision<K extends JobAction['kind']> extends UnitDecision<K> {
  declare readonly policy: FanOutDeclaration;
  readonly what: string;
  readonly unit: WorkItemItem;
  readonly counts: ItemCountsItem;
  /** The job is at this stage and runs (or waits to): its items can be worked on. */
  readonly stageLive: boolean;

  constructor(
    group: JobGroup,
    readonly stage: string,
    readonly sequence: number,
    action: ActionOf<K>,
    actor: string,
  ) {
    super(group, action, actor, fanOutOrThrow(group.job, stage));
    // Whichever item a worker names, nothing it sends about a cancelled job succeeds.
    refuseCancelled(group.job);
    this.unit = itemOf(group, stage, sequence);
    this.what = `Item ${sequence} of stage ${stage} of job`;
    const { status, availableAt } = this.unit;
    this.requireAttempt('item', status === ItemStatus.PENDING ? { availableAt } : undefined);
    this.stageLive = atStage(group.job, stage);
    this.counts = countsOf(group.job, stage);
  }

  /** The action needs the item RUNNING in a live stage. */
  requireHeld(to: string): void {
    this.requireStageLive(to);
    if (this.unit.status !== ItemStatus.RUNNING) this.refuse(to, [ItemStatus.RUNNING]);
  }

  /** The item's own last attempt (a hand-back moves it on by one). */
  get maxAttempts(): number {
    return this.unit.maxAttempt;
  }

  /** Its items are claimable only while the job runs (or waits to run) their stage. */
  requireClaimable(): void {
    this.requireStageLive('claimed');
  }

  /**
   * Its items are claimed and worked on only while the job runs (or waits to run) their stage: after
   * it failed (its policy) or the job moved on, a worker still holding one is told so, and to drop it.
   */
  requireStageLive(to: string): void {
    const { job, stage, action } = this;
    if (this.stageLive) return;
    const claim = action.kind === 'claim';
    throw invalidTransition(`Stage ${stage} of job`, job.jobId, `${job.status} at ${job.currentStep ?? 'no stage'}`, to, {
      action: claim ? 'claim' : `${verb(action.kind)} an item of`,
      allowed: [`RUNNING at ${stage}`],
      hint: claim
        ? 'Its items are claimable only while the job runs that stage.'
        : `Its items are worked on only while the job runs that stage${job.status === JobStatus.FAILED ? ', and the job failed (see its error)' : ''}: drop this item's work.`,
    });
  }

  /** The item's next version running for the claimer (see starting): its worker, and no lease a taken-over attempt held. */
  private held(claim: ActionOf<'claim'>): WorkItemItem {
    return this.next({ leaseExpiresAt: undefined, ...this.starting(claim), worker: this.actor });
  }

  /** A waiting item starts for the claimer, only once its backoff is over, whatever an index read lagging behind said. */
  start(claim: ActionOf<'claim'>): JobGroup {
    const waitsUntil = this.unit.availableAt ?? this.unit.createdAt;
    if (waitsUntil > this.at)
      return this.refuse('claimed', [`${ItemStatus.PENDING} past its backoff`], `It waits for its retry backoff until ${waitsUntil}.`);
    return this.record(this.withCounts({ running: this.counts.running + 1 }), JobEventType.ITEM_STARTED, this.held(claim));
  }

  /** A report renews the reporter's lease, up to the attempt's time, and keeps its checkpoint. */
  renew(report: ActionOf<'progress'>): JobGroup {
    const updated = this.next({
      progress: report.progress,
      ...(report.checkpoint !== undefined ? { checkpoint: report.checkpoint } : {}),
      ...(report.leaseUntil ? { leaseExpiresAt: leaseWithin(report.leaseUntil, this.unit.timesOutAt) } : {}),
    });
    return this.record({}, JobEventType.ITEM_PROGRESS, updated);
  }

  complete(done: ActionOf<'complete'>): JobGroup {
    return this.finish(ItemStatus.COMPLETED, { progress: 1, outputs: done.outputs ?? undefined }, JobEventType.ITEM_COMPLETED);
  }

  /** The item waits, PENDING, for its next attempt (after the stage's backoff), or the claimer holds it at once. */
  retryLater(error: JobError, claim?: ActionOf<'claim'>): JobGroup {
    if (!claim) {
      const waiting = this.waiting({ error, availableAt: this.nextAvailableAt(this.stage, this.sequence) });
      return this.record(this.withCounts({ running: this.counts.running - 1 }), JobEventType.ITEM_ATTEMPT_FAILED, waiting);
    }
    const again = { ...this.held(claim), attempt: this.unit.attempt + 1, error };
    return this.record(this.withCounts({}), JobEventType.ITEM_RECLAIMED, again);
  }

  handBack(): JobGroup {
    // It keeps its place among the waiting items (claims take the oldest first): a stopping worker's
    // unit is taken next, not after every item that waited behind it when it was claimed. That
    // place is never in the future: start() claims no item before its availableAt.
    const waiting = this.waiting({ maxAttempt: this.unit.maxAttempt + 1, availableAt: this.unit.availableAt ?? this.unit.createdAt });
    return this.record(this.withCounts({ running: this.counts.running - 1 }), JobEventType.ITEM_HANDED_BACK, waiting);
  }

  /** See countsMoved. */
  withCounts(change: Partial<ItemCountsItem>): Partial<JobItem> {
    return countsMoved(this.job, this.stage, change);
  }

  next(changes: Partial<WorkItemItem>): WorkItemItem {
    return { ...this.unit, ...changes, version: this.unit.version + 1 };
  }

  /** The item waiting (PENDING) for its next attempt, held by no one, with `changes` (when it is claimable, its error). */
  waiting(changes: Partial<WorkItemItem>): WorkItemItem {
    const free = { worker: undefined, leaseExpiresAt: undefined, timesOutAt: undefined };
    return this.next({ status: ItemStatus.PENDING, attempt: this.unit.attempt + 1, progress: 0, ...free, ...changes });
  }

  /** The group with the job's change and the event `type` about `item` (and `step`). */
  record(job: Partial<JobItem>, type: JobEventType, item: WorkItemItem, step?: StepLike): JobGroup {
    return this.group.record({ actor: this.actor, type, job, items: [item], item, ...(step ? { steps: [step], step } : {}) });
  }

  /** The running item finishes for good (COMPLETED or FAILED): its new state, counted, its event, and the stage settled by its policy. */
  finish(status: typeof ItemStatus.COMPLETED | typeof ItemStatus.FAILED, changes: Partial<WorkItemItem>, event: JobEventType): JobGroup {
    const { counts } = this;
    const finished = this.next({ ...changes, status, finishedAt: this.at, leaseExpiresAt: undefined, timesOutAt: undefined });
    const counted = status === ItemStatus.COMPLETED ? { completed: counts.completed + 1 } : { failed: counts.failed + 1 };
    return settleStage(this.record(this.withCounts({ running: counts.running - 1, ...counted }), event, finished), this.stage, this.actor);
  }

  /** The running item fails past its attempts. */
  failForGood(error: JobError): JobGroup {
    return this.finish(ItemStatus.FAILED, { error }, JobEventType.ITEM_FAILED);
  }
}

/**
 * A failed item (retryWorkItem, replayDeadLetters; with `errorCode`, only one whose last error has
 * that code) reopens as a new attempt, and its stage with it when the stage failed by its policy.
 */
function retryItem(d: ItemDecision<'retry'>): JobGroup {
  const { group, job, unit: item, stage, action } = d;
  if (item.status !== ItemStatus.FAILED) d.refuse(ItemStatus.PENDING, [ItemStatus.FAILED]);
  if (action.errorCode !== undefined && item.error?.code !== action.errorCode)
    d.refuse(ItemStatus.PENDING, [`${ItemStatus.FAILED} with ${action.errorCode}`], `Its last error is ${item.error?.code ?? 'none'}.`);
  const step = group.steps.get(stage);
  const stageFailed = job.status === JobStatus.FAILED && job.currentStep === stage && step?.status === StepStatus.FAILED;
  if (!stageFailed && !(d.stageLive && step?.status === StepStatus.RUNNING)) {
    throw invalidTransition(`Stage ${stage} of job`, d.job.jobId, step?.status ?? 'over', 'reopened', {
      action: 'retry an item of',
      allowed: [StepStatus.RUNNING, StepStatus.FAILED],
      hint: 'Only an item of the stage the job is running, or of the stage it failed in, can be retried.',
    });
  }
  const maxAttempt = item.attempt + (d.policy.attempts ?? job.maxAttempts);
  const reopened = d.waiting({ maxAttempt, finishedAt: undefined, availableAt: d.at });
  const counted = d.withCounts({ failed: d.counts.failed - 1 });
  if (!stageFailed || !step) return d.record(counted, JobEventType.ITEM_RETRIED, reopened);
  // The stage failed by its policy: it reopens as a new attempt of its step, and the job runs again.
  const running = nextAttempt(step, { status: StepStatus.RUNNING, startedAt: d.at });
  return d.record({ ...counted, ...runAgain(job, running) }, JobEventType.ITEM_RETRIED, reopened, { ...running, jobId: d.job.jobId });
}

/**
 * Decides `command` on the group and records what it does: the unit's new state, the job's change
 * and its event, and what follows by itself (a stage opened or settled, the job moved on). `policy`
 * is the named step's stage policy (its declaration's by default). Throws BAD_USER_INPUT,
 * NOT_FOUND, JOB_CANCELLED, INVALID_TRANSITION or ATTEMPT_TIMED_OUT, leaving the group as it was.
 */
export function decide(group: JobGroup, { unit, action }: JobCommand, actor: string, policy?: StepPolicy): JobGroup {
  if (unit && unit.sequence > 0) {
    const { stage, sequence } = unit;
    if (action.kind === 'retry') return retryItem(new ItemDecision<'retry'>(group, stage, sequence, action, actor));
    if (!isWork(action)) throw badInput(`A work item takes ${[...WORK_KINDS, 'retry'].join(', ')}; not ${action.kind}.`, 'action');
    // A stage whose items are claimed before it was opened (a crash in between) opens now, and the claim is decided on it.
    const opened = action.kind === 'claim' ? openStage(group, stage, actor) : group;
    return work(action.kind, new ItemDecision<WorkKind>(opened, stage, sequence, action, actor));
  }
  const stepPolicy = policy ?? stepPolicyOf(group.job, unit?.stage ?? group.job.currentStep ?? '');
  if (isWork(action)) return work(action.kind, new StepDecision<WorkKind>(group, unit?.stage, action, actor, stepPolicy));
  return handle(action.kind, new StepDecision<StepKind>(group, unit?.stage, action, actor, stepPolicy));
}

/**
 * One record a group's decisions make: the job as the change left it, what the change was about,
 * and the step attempts and items it wrote. With a `type` it is an event of the job's stream (the
 * job's version moves by one and the event takes it); without one it is a change no subscriber is
 * told of (the settle sweep's expiry and cancellation of a finished job's items, a legacy item's
 * rewrite), which moves neither.
 */
export interface BatchEvent {
  job: JobItem;
  /** The job before the change; null for its creation (JOB_CREATED). */
  previous: JobItem | null;
  type?: JobEventType;
  /** What the event is about: the step attempt and the item it names. */
  step?: StepState;
  item?: WorkItemItem;
  reused?: ReusedWork[];
  actor: string;
  /** The step attempts and items the change wrote, in order (what `evolve` applies); the stored event names only `step` and `item`. */
  wrote: { steps: StepLike[]; items: WorkItemItem[] };
}

/** The job aggregate as its events leave it: the job, the current attempt of each step, the items. */
export interface JobView {
  job: JobItem;
  steps: ReadonlyMap<string, StepLike>;
  items: ReadonlyMap<string, WorkItemItem>;
}

/**
 * `view` with one event applied (the job as the event left it, and the steps and items it wrote).
 * Every change a decision makes is recorded by an event, so the state a group's commit saves is its
 * read state with its events folded in (JobGroup keeps that fold incrementally; the decisions'
 * property test holds every decision to this function).
 */
export function evolve(view: JobView, event: BatchEvent): JobView {
  const steps = new Map(view.steps);
  for (const step of event.wrote.steps) steps.set(step.name, step);
  const items = new Map(view.items);
  for (const item of event.wrote.items) items.set(itemId(item.stage, item.sequence), item);
  return { job: event.job, steps, items };
}

/** What a group read, fixed for all its decisions: its commit is conditioned on it. */
export interface GroupRead {
  /** The job as read: the commit is conditioned on its version. */
  job: JobItem;
  /** The current attempt of each step, by name. */
  steps: ReadonlyMap<string, StepLike>;
  /** The stored rows of those attempts (one a planned step; earlier attempts are not read). */
  storedSteps: readonly StepItem[];
  /** The items read, by itemId: each one's write is conditioned on the version it was read at. */
  items: ReadonlyMap<string, WorkItemItem>;
  at: string;
  /** The reuse records of the job's waiting reusable steps or of the items a command adds, by content key (see job.reuse.ts). */
  reuseRecords?: ReadonlyMap<string, ReuseRecordItem>;
  /** True for a job being created (createJob): its commit puts the job only if new, and writes every step. */
  creating?: boolean;
  /** The tenant's pool load as read (only for a group with a pool claim). */
  pool?: { running: number; limit?: number };
  /** The job's claimable items as read for the group's claims (itemIds, oldest first), each also read by key into `items`. */
  claimable?: readonly string[];
}

/** One change as a decision states it, before the group records it (see JobGroup.record): the job's change and the rows it writes. */
type Change = Pick<BatchEvent, 'actor' | 'type' | 'step' | 'item' | 'reused'> & {
  job?: Partial<JobItem>;
  steps?: StepLike[];
  items?: WorkItemItem[];
};

/**
 * The state a group of commands decides on, immutable: what it read, the events its decisions made
 * so far, and the job, steps and items as those events leave them (evolve, kept incrementally). A
 * command that throws leaves the group it was given as it was, so a refused command changes nothing.
 * `writes` are the other rows the commit carries (activity, review and reuse records, an asset, the
 * settle sweep's checkpoint).
 */
export class JobGroup {
  private constructor(
    readonly read: GroupRead,
    readonly job: JobItem,
    readonly events: readonly BatchEvent[],
    /** The items written, by itemId (the last write of each). */
    readonly changedItems: ReadonlyMap<string, WorkItemItem>,
    /** The current attempt of each step, by name, as read and as written since. */
    readonly steps: ReadonlyMap<string, StepLike>,
    /** The step attempts written, by name and attempt (the last write of each). */
    private readonly stepWrites: ReadonlyMap<string, StepLike>,
    readonly writes: readonly UnitWrite[],
  ) {}

  /** The group that decides on what `read` holds, before any decision. */
  static of(read: GroupRead): JobGroup {
    return new JobGroup(read, read.job, [], new Map(), read.steps, new Map(), []);
  }

  get at(): string {
    return this.read.at;
  }

  get reuseRecords(): ReadonlyMap<string, ReuseRecordItem> {
    return this.read.reuseRecords ?? new Map();
  }

  /** The item `id` as the group's events leave it (undefined when neither read nor written). */
  item(id: string): WorkItemItem | undefined {
    return this.changedItems.get(id) ?? this.read.items.get(id);
  }

  /** Every item read or written, as the events leave it. */
  get items(): ReadonlyMap<string, WorkItemItem> {
    return this.changedItems.size === 0 ? this.read.items : new Map([...this.read.items, ...this.changedItems]);
  }

  /** The step attempts written, in the order of their first write. */
  get changedSteps(): StepLike[] {
    return [...this.stepWrites.values()];
  }

  /**
   * Records `change`: the job moves (its version by one, for an event), the steps and items it wrote
   * are stamped and take their places, and the event is appended. Every move is held here to the
   * machines declared with the entities: throws INVALID_TRANSITION for one outside them.
   */
  record(change: Change): JobGroup {
    const previous = this.job;
    let job = change.type === undefined ? previous : { ...previous, ...change.job, version: previous.version + 1, updatedAt: this.at };
    if (job.status !== previous.status) {
      entities.Job.assertTransition(previous.jobId, previous.status, job.status);
      // A finished job expires; one that runs again does not.
      job = { ...job, expiresAt: expiresAtOf(job.status, this.at) };
    }
    const items = (change.items ?? []).map((item) => ({ ...item, updatedAt: this.at }));
    const changedItems = new Map(this.changedItems);
    for (const item of items) {
      const key = itemId(item.stage, item.sequence);
      const before = changedItems.get(key) ?? this.read.items.get(key);
      if (before && before.status !== item.status) entities.WorkItem.assertTransition(key, before.status, item.status);
      changedItems.set(key, item);
    }
    const steps = new Map(this.steps);
    const stepWrites = new Map(this.stepWrites);
    for (const step of change.steps ?? []) {
      // A new attempt moves from the machine's first status.
      const before = steps.get(step.name);
      const from = before?.attempt === step.attempt ? before.status : StepStatus.PENDING;
      if (from !== step.status) entities.Step.assertTransition(`${step.name}#${step.attempt}`, from, step.status);
      steps.set(step.name, step);
      stepWrites.set(`${step.name}#${step.attempt}`, step);
    }
    // The event names its item as written (stamped), whichever copy the decision passed.
    const named = change.item && [...items].reverse().find((i) => i.stage === change.item?.stage && i.sequence === change.item.sequence);
    const { type, actor, step, reused } = change;
    const event = { job, previous, type, actor, step, item: named ?? change.item, reused, wrote: { steps: change.steps ?? [], items } };
    return new JobGroup(this.read, job, [...this.events, event], changedItems, steps, stepWrites, this.writes);
  }

  /** Records the job's creation (JOB_CREATED, at its first version) with the steps and items written for it. */
  created(actor: string, steps: StepLike[], items: WorkItemItem[]): JobGroup {
    const recorded = this.record({ actor, steps, items });
    const event = { ...recorded.events[0], previous: null, type: JobEventType.JOB_CREATED };
    return new JobGroup(this.read, this.job, [event], recorded.changedItems, recorded.steps, recorded.stepWrites, this.writes);
  }

  withWrites(...writes: UnitWrite[]): JobGroup {
    return new JobGroup(this.read, this.job, this.events, this.changedItems, this.steps, this.stepWrites, [...this.writes, ...writes]);
  }

  /** The group with more reuse records to decide with (those of items a command adds, read before the group). */
  withRecords(records: ReadonlyMap<string, ReuseRecordItem>): JobGroup {
    const read = { ...this.read, reuseRecords: new Map([...this.reuseRecords, ...records]) };
    return new JobGroup(read, this.job, this.events, this.changedItems, this.steps, this.stepWrites, this.writes);
  }

  /**
   * How many items and steps this group's changes start (+) or end (-) running under a pool
   * worker's claim: derived from the units as read and as written, so every way an attempt ends counts.
   */
  poolDelta(): number {
    const held = (unit: { status: string; pooled?: boolean } | undefined) =>
      unit?.status === ItemStatus.RUNNING && unit.pooled === true ? 1 : 0;
    let delta = 0;
    for (const [key, item] of this.changedItems) delta += held(item) - held(this.read.items.get(key));
    // A step attempt counts likewise: the one as read is the step's current attempt, if it is this one.
    for (const step of this.stepWrites.values()) {
      const read = this.read.steps.get(step.name);
      delta += held(step) - held(read?.attempt === step.attempt ? read : undefined);
    }
    return delta;
  }

  /** The tenant's count of work running under pool claims as this group's changes leave it (read for a pool claim only). */
  poolLoad(): number {
    return (this.read.pool?.running ?? 0) + this.poolDelta();
  }

  /**
   * The writes this group would commit, counted from above: the job, its JobWork and JobSettle
   * entries, items, steps, one row an event (five when its status changed: the event and an
   * event and a head in each status stream), other writes (two each: an activity event has a
   * head), and the current step attempts that take a finished job's expiry (the earlier ones take
   * it from the settle sweep, job.settle.ts).
   */
  get size(): number {
    let events = 0;
    for (const e of this.events) if (e.type !== undefined) events += e.previous?.status === e.job.status ? 1 : 5;
    const expiring = TERMINAL.has(this.job.status) ? this.read.storedSteps.length : 0;
    return 3 + this.changedItems.size + this.stepWrites.size + events + this.writes.length * 2 + expiring;
  }
}

export const itemId = (stage: string, sequence: number) => `${stage}#${sequence}`;

/** Item `sequence` of `stage` as `group`'s events leave it; NOT_FOUND when the group neither read nor wrote it. */
export function itemOf(group: JobGroup, stage: string, sequence: number): WorkItemItem {
  const item = group.item(itemId(stage, sequence));
  if (!item) throw notFound('WorkItem', `${group.job.jobId}/${stage}/${sequence}`);
  return item;
}

/** The settle sweep's stop on a job: it is no longer finished, or its JobSettle entry is not the one the sweep holds. */
export class SettleStopped extends Error {
  constructor() {
    super('The job is no longer being settled.');
  }
}
/** QUOTA_EXCEEDED (itemsPerJob) when `adding` items to the `holding` a job has would pass `limit`. */
export function refuseOverItems(holding: number, adding: number, limit: number): void {
  if (adding > 0 && holding + adding > limit) throw quotaExceeded('itemsPerJob', limit, adding);
}

/** The work items a job holds over all its fan-out stages. */
export const itemTotal = (job: Pick<JobItem, 'itemCounts'>) => Object.values(job.itemCounts ?? {}).reduce((sum, c) => sum + c.total, 0);

/** The fan-out declaration of `stage` of `job`, or BAD_USER_INPUT naming `stage`. */
export function fanOutOrThrow(job: { kind: string; declared?: boolean; jobId: string }, stage: string): FanOutDeclaration {
  const fanOut = fanOutOf(job, stage);
  if (!fanOut) throw badInput(`Stage "${stage}" of job ${job.jobId} is not a fan-out stage (see jobKinds).`, 'stage');
  return fanOut;
}

function stageOrder(job: JobItem, stage: string): number {
  return job.plan.find((p) => p.name === stage)?.order ?? 0;
}

/** A new item of `stage` of `job`: waiting for its first attempt, claimable at once. */
export function newItem(
  job: JobItem,
  stage: string,
  sequence: number,
  inputs: Record<string, unknown>,
  actor: string,
  at: string,
): WorkItemItem {
  return {
    PK: '',
    SK: '',
    entityType: entities.WorkItem.type,
    jobId: job.jobId,
    stage,
    sequence,
    kind: job.kind,
    status: ItemStatus.PENDING,
    attempt: 1,
    maxAttempt: fanOutOf(job, stage)?.attempts ?? job.maxAttempts,
    progress: 0,
    inputs,
    availableAt: at,
    version: 1,
    createdAt: at,
    updatedAt: at,
    createdBy: actor,
  };
}

/**
 * Adds `inputs` as new items of fan-out `stage` (ITEMS_ADDED with the job's new counters); throws
 * BAD_USER_INPUT past a stage's MAX_STAGE_ITEMS and INVALID_TRANSITION once the stage is over.
 */
export function addItems(group: JobGroup, stage: string, inputs: Record<string, unknown>[], actor: string): JobGroup {
  const { job } = group;
  fanOutOrThrow(job, stage);
  if (TERMINAL.has(job.status))
    throw invalidTransition('Job', job.jobId, job.status, 'items added', { action: 'add items to', allowed: [], hint: 'It has finished.' });
  const step = group.steps.get(stage);
  const currentOrder = stageOrder(job, job.currentStep ?? '');
  if (stageOrder(job, stage) < currentOrder || !step || (step.status !== StepStatus.PENDING && step.status !== StepStatus.RUNNING)) {
    throw invalidTransition(`Stage ${stage} of job`, job.jobId, step?.status ?? 'over', 'items added', {
      action: 'add items to',
      allowed: [StepStatus.PENDING, StepStatus.RUNNING],
      hint: 'Items can be added to a fan-out stage until it has finished.',
    });
  }
  const counts = countsOf(job, stage);
  if (counts.total + inputs.length > MAX_STAGE_ITEMS)
    throw badInput(`A stage holds at most ${MAX_STAGE_ITEMS} items; stage ${stage} has ${counts.total}.`, 'items');
  const items = inputs.map((input, i) => newItem(job, stage, counts.total + i + 1, input, actor, group.at));
  const change = countsMoved(job, stage, { total: counts.total + inputs.length });
  return group.record({ actor, type: JobEventType.ITEMS_ADDED, job: change, items });
}

/**
 * The job's change when the item counters of `stage` move by `change`: the counters, and its progress
 * with them (its finished steps plus the share of the current fan-out stage's items done).
 */
function countsMoved(job: JobItem, stage: string, change: Partial<ItemCountsItem>): Partial<JobItem> {
  const itemCounts = { ...job.itemCounts, [stage]: { ...countsOf(job, stage), ...change } };
  const current: ItemCountsItem | undefined = job.currentStep ? itemCounts[job.currentStep] : undefined;
  return { itemCounts, progress: jobProgress(job, current?.total ? (current.completed + current.failed) / current.total : 0) };
}

/** The job is at `stage` and runs, or waits to: the stage's work can open, be claimed and be reported on. */
const atStage = (job: Pick<JobItem, 'currentStep' | 'status'>, stage: string): boolean =>
  job.currentStep === stage && (job.status === JobStatus.QUEUED || job.status === JobStatus.RUNNING);

/** Opens the stage when the job has reached it and its step still waits (STEP_STARTED); the group as it was otherwise. */
export function openStage(group: JobGroup, stage: string, actor: string): JobGroup {
  const { job } = group;
  if (!atStage(job, stage)) return group;
  const step = group.steps.get(stage);
  if (!step || step.status !== StepStatus.PENDING) return group;
  // Started by the job's machine, as a worker starts a step, but held by no one (its items are the work).
  const opened = new StepDecision(group, stage, { kind: 'start' }, actor, {}).startAttempt({});
  // A stage without items, or whose items were all done before it opened (reused when added), completes at once.
  const counts = countsOf(opened.job, stage);
  return counts.completed + counts.failed === counts.total ? settleStage(opened, stage, actor) : opened;
}

/**
 * The stage the job has just moved on to opens in the same group, so no later write is needed to
 * start it: a fan-out stage's step runs (openStage), a reusable step may complete at once (reuseStep).
 */
export function openReached(group: JobGroup, actor: string): JobGroup {
  const next = group.job.currentStep;
  if (!next) return group;
  return fanOutOf(group.job, next) ? openStage(group, next, actor) : reuseStep(group, next, actor);
}

/**
 * The job's current step, when its stage is reusable, it waits, and a live record with its
 * content key was read with the group (GroupRead.reuseRecords), completes at once from the
 * record's outputs (STEP_REUSED, naming the source): started and completed by the job's machine,
 * in one event, so it is never claimable. The job runs from now if it had not started, and goes
 * on as after any completion.
 */
function reuseStep(group: JobGroup, stage: string, actor: string): JobGroup {
  const { job } = group;
  if (!reuseOf(job, stage) || !takesReuse(job) || !atStage(job, stage)) return group;
  const step = group.steps.get(stage);
  if (!step || step.status !== StepStatus.PENDING) return group;
  const record = group.reuseRecords.get(contentKey(job, stage));
  if (!liveRecord(record, group.at)) return group;
  const from = sourceOf(record);
  const produced = { artifacts: record.artifacts ?? [], metrics: record.metrics, outputs: record.outputs };
  const d = new StepDecision(group, stage, { kind: 'complete', ...produced }, actor, {});
  const done = { ...step, ...d.begin({}), ...produced, status: StepStatus.COMPLETED, progress: 1, finishedAt: group.at, reusedFrom: from };
  return openReached(d.advance(done, JobEventType.STEP_REUSED, { startedAt: job.startedAt ?? group.at }, [{ stage, from }]), actor);
}

/**
 * The items of `stage` from sequence `first` on, just added in this group, that have a live
 * record among the group's reuse records complete at once from its outputs: counted as completed,
 * one ITEMS_REUSED event naming each item's source, never claimable. A stage that is running
 * then settles (it completes when these were its last items).
 */
export function reuseAdded(group: JobGroup, stage: string, first: number, actor: string): JobGroup {
  const { job } = group;
  if (!reuseOf(job, stage) || !takesReuse(job) || group.reuseRecords.size === 0) return group;
  const counts = countsOf(job, stage);
  const reused: ReusedWork[] = [];
  const items: WorkItemItem[] = [];
  for (let sequence = first; sequence <= counts.total; sequence++) {
    const item = group.item(itemId(stage, sequence));
    const record = item ? group.reuseRecords.get(contentKey(job, stage, item.inputs)) : undefined;
    if (!item || item.status !== ItemStatus.PENDING || !liveRecord(record, group.at)) continue;
    const from = sourceOf(record);
    items.push({ ...item, status: ItemStatus.COMPLETED, progress: 1, outputs: record.outputs, reusedFrom: from, finishedAt: group.at });
    reused.push({ stage, sequence, from });
  }
  if (reused.length === 0) return group;
  const change = countsMoved(job, stage, { completed: counts.completed + reused.length });
  return settleStage(group.record({ actor, type: JobEventType.ITEMS_REUSED, job: change, items, reused }), stage, actor);
}

/** True when the stage's failed items are past its failure policy. */
function pastPolicy(fanOut: FanOutDeclaration, counts: ItemCountsItem): boolean {
  const policy = fanOut.failurePolicy;
  if (!policy || (policy.maxFailed === undefined && policy.maxFailedPercent === undefined)) return counts.failed > 0;
  if (policy.maxFailed !== undefined && counts.failed > policy.maxFailed) return true;
  return policy.maxFailedPercent !== undefined && counts.total > 0 && (counts.failed * 100) / counts.total > policy.maxFailedPercent;
}

/** The stage's failure policy in words, each bound it declares (pastPolicy fails the stage past either). */
function policyText(fanOut: FanOutDeclaration): string {
  const { maxFailed, maxFailedPercent } = fanOut.failurePolicy ?? {};
  const bounds = [
    maxFailed !== undefined ? `${maxFailed}` : undefined,
    maxFailedPercent !== undefined ? `${maxFailedPercent}%` : undefined,
  ];
  const declared = bounds.filter((bound) => bound !== undefined);
  return declared.length === 0 ? 'none may fail' : `more than ${declared.join(' or ')} may not fail`;
}

/** After an item finished or failed: the stage fails by its policy, completes when all are done, or goes on. */
function settleStage(group: JobGroup, stage: string, actor: string): JobGroup {
  const { job } = group;
  if (job.currentStep !== stage || job.status !== JobStatus.RUNNING) return group;
  const fanOut = fanOutOrThrow(job, stage);
  const counts = countsOf(job, stage);
  const step = group.steps.get(stage);
  if (!step || step.status !== StepStatus.RUNNING) return group;
  if (pastPolicy(fanOut, counts)) {
    const error: JobError = {
      code: 'ITEMS_FAILED',
      message: `${counts.failed} of ${counts.total} items of stage ${stage} failed (${policyText(fanOut)}); retryWorkItem reopens the stage.`,
      retryCount: step.attempt - 1,
    };
    // The stage's step fails for good, as one past its attempts does, and the job with it.
    return new StepDecision(group, stage, { kind: 'fail', ...error }, actor, {}).failForGood(error);
  }
  if (counts.completed + counts.failed !== counts.total) return group;
  // Every item is done, and not too many failed: the stage completes, and the job goes on.
  const outputs = { items: counts.total, completed: counts.completed, failed: counts.failed };
  return openReached(decide(group, onStep(stage, { kind: 'complete', outputs }), actor), actor);
}
