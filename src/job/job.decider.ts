/*
 * The job aggregate's decider: every decision on a job, its step attempts and its work items, pure
 * (no IO: the committer's side, reads and writes, is job.aggregate.ts over src/infra/dynamo/committer.ts).
 *
 * - decide: `decide(group, command)`, a command naming its unit as (stage, sequence), a step's
 *   current attempt being sequence 0: a step's (or the job's) command runs its handler in
 *   STEP_HANDLERS over a StepDecision, an item's in ITEM_HANDLERS over an ItemDecision, and a
 *   worker's actions on either the one rule in WORK_HANDLERS. Each is a function from the group's
 *   state (JobGroup, immutable) to the next, which records the events it makes;
 * - evolve: `evolve(view, event)`, what an event does to the job, its steps and its items: the
 *   state a group's commit saves is the state it read with its events folded in (JobGroup.record
 *   keeps that fold as it goes);
 * - react: what follows by itself from a decision, in the same group: a stage opens when the job
 *   reaches it (openStage, openReached), settles when its items are done or too many failed
 *   (settleStage, finishStage), and a step or an item with a live reuse record completes from it
 *   (reuseStep, reuseAdded).
 * The rules an attempt follows (leases, deadlines, backoff, takeover, refusals) are job.attempts.ts,
 * shared by steps and items; the machines they keep are declared with the entities.
 */

import { quotaExceeded, badInput, invalidTransition, notFound } from '../errors';
import { entities, type EntityItem, type ItemCountsItem, MAX_STAGE_ITEMS } from '../common/entities';
import {
  checkProgress,
  deadlineOf,
  hasAttemptsLeft,
  heldHint,
  type HeldAttempt,
  jobProgress,
  leaseWithin,
  refuseCancelled,
  refuseTimedOut,
  requireAttempt,
  retryAt,
  takeoverOf,
  VERBS,
  requireAttempt as requireHeld,
} from './job.attempts';
import type { UnitWrite } from '../infra/dynamo/write';
import { type FanOutDeclaration, fanOutOf, stepPolicyOf, type StepPolicy } from './job.kinds';
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
  type CommandDeclaration,
  JOB_COMMANDS,
  commandsHint,
  type JobCommand,
  onStep,
} from './job.machine';
import { countsOf, expiresAtOf, type StepLike } from './job.writes';

type JobItem = EntityItem<'Job'>;
export type WorkItemItem = EntityItem<'WorkItem'>;
type StepItem = EntityItem<'Step'>;

/** The actions a worker takes on a step: on a cancelled job each gets JOB_CANCELLED. */
const WORKER_ACTIONS = new Set<JobAction['kind']>(['start', 'claim', 'progress', 'complete', 'fail', 'pause', 'handBack']);

/** The actions a worker takes on a unit it claims and holds: a step's attempt (sequence 0) or a work item alike. */
type WorkKind = 'claim' | 'progress' | 'complete' | 'fail' | 'handBack';

/** The action of kind `K`, with its arguments. */
type ActionOf<K extends JobAction['kind']> = Extract<JobAction, { kind: K }>;

/**
 * One unit of work as a worker's action on it sees it: a step's current attempt (StepDecision) or
 * a work item (ItemDecision). Each side says how its unit starts, renews, completes, waits for its
 * next attempt, fails for good and is handed back, each returning the group it leaves; when each
 * happens is decided once, for both, by WORK_HANDLERS.
 */
interface Work {
  /** The unit, for messages: "Step render of job", "Item 3 of stage frames of job". */
  readonly what: string;
  readonly jobId: string;
  readonly at: string;
  /** Its stage's attempt timeout in seconds (none without one). */
  readonly limit: number | undefined;
  /** Its current attempt. */
  readonly unit: HeldAttempt;
  /** The attempts it may take (one more for each handed back). */
  readonly maxAttempts: number;
  /** Whether its stage declares a retry backoff (a lapsed attempt's next one then waits for it). */
  readonly backoff: boolean;
  /** Refuses a claim of a unit whose stage the job is not at. */
  requireClaimable(): void;
  /** Refuses an action on a unit its worker does not hold RUNNING (moving it `to`). */
  requireHeld(to: string): void;
  refuse(to: string, allowed: string[], hint?: string): never;
  /** A waiting unit starts for the claimer (once its backoff is over). */
  start(claim: ActionOf<'claim'>): JobGroup;
  renew(report: ActionOf<'progress'>): JobGroup;
  complete(done: ActionOf<'complete'>): JobGroup;
  /** The attempt ended with `error` and attempts left: the next one waits, or the claimer (`claim`) holds it at once. */
  retryLater(error: JobError, claim?: ActionOf<'claim'>): JobGroup;
  failForGood(error: JobError): JobGroup;
  handBack(): JobGroup;
}

/**
 * The rules of a worker's actions, written once for steps and items: when a claim starts a unit,
 * takes a lapsed one over, lets it wait for its backoff or fails it; what a report, a completion,
 * a failure and a hand-back need of the unit and its attempt.
 */
const WORK_HANDLERS: { [K in WorkKind]: (d: Work, action: ActionOf<K>) => JobGroup } = {
  claim(d, claim) {
    d.requireClaimable();
    const { unit } = d;
    if (unit.status === ItemStatus.PENDING) return d.start(claim);
    // A running attempt can be taken over once its lease or its time runs out, whichever is first.
    const takeover = takeoverOf(unit, d.at, { maxAttempts: d.maxAttempts, backoff: d.backoff, timeoutSeconds: d.limit });
    if (unit.status !== ItemStatus.RUNNING || takeover.kind === 'held')
      return d.refuse('claimed', [ItemStatus.PENDING, 'RUNNING with its lease or its time run out'], heldHint(unit, takeover.ends));
    if (takeover.kind === 'fail') return d.failForGood(takeover.error);
    // With a retry backoff the next attempt waits for it, like one its worker failed: the claimer
    // holds none of it. Without one the claimer holds the new attempt at once.
    return d.retryLater(takeover.error, takeover.kind === 'takeOver' ? claim : undefined);
  },
  progress(d, report) {
    checkProgress(report.progress);
    d.requireHeld(ItemStatus.RUNNING);
    // An attempt whose time is up is not renewed: its holder is told to stop, and the unit stays
    // claimable, so the next claim takes it over.
    refuseTimedOut(d.what, d.jobId, d.unit, d.at, d.limit);
    return d.renew(report);
  },
  complete(d, done) {
    d.requireHeld(ItemStatus.COMPLETED);
    return d.complete(done);
  },
  fail(d, { code, message }) {
    d.requireHeld(ItemStatus.FAILED);
    const error: JobError = { code, message, retryCount: d.unit.attempt - 1 };
    return hasAttemptsLeft(d.unit.attempt, d.maxAttempts) ? d.retryLater(error) : d.failForGood(error);
  },
  handBack(d) {
    d.requireHeld(ItemStatus.PENDING);
    // An attempt whose time is up is over already: the next claim takes it over as it would.
    refuseTimedOut(d.what, d.jobId, d.unit, d.at, d.limit);
    return d.handBack();
  },
};

/**
 * One decision on a job and its steps, in the making: the rules its commands share (the job and
 * step statuses each accepts, the attempt a worker names, an attempt's start, failure and the
 * job's advance), over the group as the command found it; each returns the group it leaves (`moved`).
 */
class StepDecision<K extends JobAction['kind']> implements Work {
  readonly command: CommandDeclaration;
  readonly limit: number | undefined;
  /** When an attempt starting now runs out of time (none without an attempt timeout). */
  readonly deadline: string | undefined;

  constructor(
    readonly group: JobGroup,
    /** The step the command names (none for the job's own commands). */
    readonly stage: string | undefined,
    readonly action: ActionOf<K>,
    readonly actor: string,
    /** The named step's stage policy: how long its attempts run and how long a failed one waits. */
    readonly policy: StepPolicy,
  ) {
    this.command = JOB_COMMANDS[action.kind];
    this.limit = policy.attemptTimeoutSeconds;
    this.deadline = deadlineOf(group.at, this.limit);
  }

  get job(): JobItem {
    return this.group.job;
  }

  get jobId(): string {
    return this.group.job.jobId;
  }

  get at(): string {
    return this.group.at;
  }

  /** The group with the job's `change`, the step attempts written and the event `type` (about `step`). */
  moved(change: Partial<JobItem>, steps: StepState[], type: JobEventType, step?: StepState, reused?: ReusedWork[]): JobGroup {
    const { jobId } = this;
    return this.group.record({ actor: this.actor, type, job: change, steps: steps.map((s) => ({ ...s, jobId })), step, reused });
  }

  /** The job must be in a status the command accepts; a worker's command on a cancelled job gets JOB_CANCELLED. */
  requireJob(): void {
    const { job, action, command } = this;
    if (WORKER_ACTIONS.has(action.kind)) refuseCancelled(job, this.jobId);
    if (!command.job.includes(job.status)) {
      throw invalidTransition('Job', this.jobId, job.status, command.to, {
        action: VERBS[action.kind],
        allowed: [...command.job],
        hint: commandsHint(job.status),
      });
    }
  }

  /** The current attempt of the step named `name`, or BAD_USER_INPUT naming the job's steps. */
  stepOf(name: string): StepState {
    const step = this.group.steps.get(name);
    if (!step)
      throw badInput(
        `Job ${this.jobId} has no step named "${name}"; its steps are ${this.job.plan.map((p) => p.name).join(', ')}.`,
        'stepName',
      );
    return step;
  }

  /**
   * The current attempt of the step the command names, checked as the command requires: the job's
   * status, the attempt the worker names (`held`: a worker's report on the attempt it holds), and
   * the step's status.
   */
  namedStep(held: boolean): StepState {
    this.requireJob();
    const step = this.unit;
    if (held) this.requireAttempt(step);
    this.requireStep(step);
    return step;
  }

  /** The step's attempt must be in a status the command accepts. */
  requireStep(step: StepState): void {
    const allowed = this.command.step ?? [];
    if (!allowed.includes(step.status)) {
      throw invalidTransition(`Step ${step.name} of job`, this.jobId, step.status, this.command.stepTo ?? step.status, {
        action: VERBS[this.action.kind],
        allowed: [...allowed],
        hint: commandsHint(this.job.status, step.status),
      });
    }
  }

  /** A worker that names an attempt must hold the current one (job.attempts.ts requireAttempt). */
  requireAttempt(step: StepState): void {
    const named = 'attempt' in this.action ? this.action.attempt : undefined;
    requireHeld(`Step ${step.name} of job`, this.jobId, this.action.kind, 'step', step.attempt, named);
  }

  /** A waiting attempt starts only once its retry backoff is over. */
  requireReady(step: StepState): void {
    if (step.waitsUntil && step.waitsUntil > this.at) {
      throw invalidTransition(`Step ${step.name} of job`, this.jobId, `${step.status} until ${step.waitsUntil}`, StepStatus.RUNNING, {
        action: VERBS[this.action.kind],
        allowed: [`${StepStatus.PENDING} once its backoff is over`],
        hint: `Attempt ${step.attempt} waits for its stage's retry backoff: it can start at ${step.waitsUntil}.`,
      });
    }
  }

  /** The worker's lease until `leaseUntil`, never past the attempt's time (none without a lease). */
  lease(leaseUntil: string | undefined, timesOutAt: string | undefined): Partial<StepState> {
    return leaseUntil ? { worker: this.actor, leaseExpiresAt: leaseWithin(leaseUntil, timesOutAt) } : {};
  }

  /**
   * What an attempt starting now (started or claimed) is: running, its lease, and its time from
   * now; a pool worker's (`pooled`) counts in its tenant's pool load while it runs.
   */
  begin(by: { leaseUntil?: string; pooled?: boolean }): Partial<StepState> {
    const { deadline } = this;
    return {
      status: StepStatus.RUNNING,
      progress: 0,
      startedAt: this.at,
      waitsUntil: undefined,
      timesOutAt: deadline,
      ...this.lease(by.leaseUntil, deadline),
      ...(by.pooled ? { pooled: true } : {}),
    };
  }

  /** The step starts now for its worker: the job runs, at this step. */
  startAttempt(step: StepState, by: { leaseUntil?: string; pooled?: boolean }): JobGroup {
    const started: StepState = { ...step, ...this.begin(by) };
    const change = { status: JobStatus.RUNNING, currentStep: step.name, startedAt: this.job.startedAt ?? this.at };
    return this.moved(change, [started], JobEventType.STEP_STARTED, started);
  }

  // The step's side of a worker's action (Work, for WORK_HANDLERS): its unit is the current
  // attempt of the step the command names.

  get unit(): StepState {
    return this.stepOf(this.stage ?? '');
  }

  get what(): string {
    return `Step ${this.unit.name} of job`;
  }

  /** The job's attempts, and one more for each attempt of the step handed back (not counted: countedAttempts). */
  get maxAttempts(): number {
    return this.job.maxAttempts + (this.unit.handedBack ?? 0);
  }

  get backoff(): boolean {
    return !!this.policy.retryBackoff;
  }

  /** A claim names the job's current step, in a job that runs (or waits to). */
  requireClaimable(): void {
    this.requireJob();
    const step = this.unit;
    const current = this.job.currentStep ?? this.job.plan[0]?.name;
    if (step.name !== current) throw invalidTransition(`Step ${step.name} of job`, this.jobId, `waiting for ${current}`, 'claimed');
  }

  /** The job, the attempt the worker names and the step's status must be those the command accepts. */
  requireHeld(): void {
    this.namedStep(true);
  }

  refuse(to: string, allowed: string[], hint?: string): never {
    throw invalidTransition(this.what, this.jobId, this.unit.status, to, { action: VERBS[this.action.kind], allowed, hint });
  }

  start(claim: ActionOf<'claim'>): JobGroup {
    this.requireReady(this.unit);
    return this.startAttempt(this.unit, claim);
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

  /**
   * The attempt failed with `error`, with attempts left: a new attempt follows and the job keeps
   * running, waiting to be started (after its stage's backoff), or already held by the worker that
   * claimed the step (`claim`: STEP_RECLAIMED, whose event shows the new attempt).
   */
  retryLater(error: JobError, claim?: ActionOf<'claim'>): JobGroup {
    const { job } = this;
    const step = this.unit;
    const failed: StepState = { ...step, status: StepStatus.FAILED, error, finishedAt: this.at };
    const change = { error, attempts: { ...job.attempts, [step.name]: step.attempt + 1 }, progress: jobProgress(job) };
    const again = nextAttempt(step, { handedBack: step.handedBack, ...(claim ? this.begin(claim) : this.backoffAfter(step)) });
    return claim
      ? this.moved(change, [failed, again], JobEventType.STEP_RECLAIMED, again)
      : this.moved(change, [failed, again], JobEventType.STEP_FAILED, failed);
  }

  /** The attempt failed past the job's attempts: the job fails with it. */
  failForGood(error: JobError): JobGroup {
    return this.failJob({ ...this.unit, status: StepStatus.FAILED, error, finishedAt: this.at }, error);
  }

  /**
   * The holder releases its attempt unfinished: a new attempt waits, claimable at once (no
   * backoff), and the released one is not counted (countedAttempts).
   */
  handBack(): JobGroup {
    const step = this.unit;
    const released: StepState = { ...step, status: StepStatus.HANDED_BACK, finishedAt: this.at };
    const again = nextAttempt(step, { handedBack: (step.handedBack ?? 0) + 1 });
    const change = { attempts: { ...this.job.attempts, [step.name]: again.attempt }, progress: jobProgress(this.job) };
    return this.moved(change, [released, again], JobEventType.STEP_HANDED_BACK, again);
  }

  /** What the attempt after failed `step` waits for: its stage's backoff (nothing without one). */
  backoffAfter(step: StepState): Partial<StepState> {
    const until = retryAt(this.policy.retryBackoff, { jobId: this.jobId, stage: step.name, sequence: 0, attempt: step.attempt }, this.at);
    return until > this.at ? { waitsUntil: until } : {};
  }

  /** The job fails with `error`, at its failed (or rejected) step; `type` is the event that says so. */
  failJob(failed: StepState, error: JobError, type: JobEventType = JobEventType.STEP_FAILED): JobGroup {
    const change = { status: JobStatus.FAILED, failedSteps: this.job.failedSteps + 1, error, finishedAt: this.at };
    return this.moved(change, [failed], type, failed);
  }

  /**
   * A step finished successfully (event `type`, with `also` on the job and the `reused` sources):
   * the job advances to the next one, or completes. The change writes the finished attempt and the
   * next step's current attempt, which the job has reached (written as it is, so that it becomes
   * claimable: see Step.current).
   */
  advance(done: StepState, type: JobEventType, also: Partial<JobItem> = {}, reused?: ReusedWork[]): JobGroup {
    const { job } = this;
    const completedSteps = job.completedSteps + 1;
    const following = job.plan.filter((p) => p.order > done.order).sort((a, b) => a.order - b.order)[0];
    if (!following) {
      const finished = { completedSteps, error: undefined, status: JobStatus.COMPLETED, currentStep: undefined, progress: 1 };
      return this.moved({ ...also, ...finished, finishedAt: this.at }, [done], type, done, reused);
    }
    const reached = this.group.steps.get(following.name);
    const progress = jobProgress({ completedSteps, plan: job.plan });
    const change = { ...also, completedSteps, error: undefined, status: JobStatus.RUNNING, currentStep: following.name, progress };
    return this.moved(change, reached ? [done, reached] : [done], type, done, reused);
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

/** What each command on a step (or on the job) does, given the decision's shared rules (StepDecision). */
const STEP_HANDLERS: { [K in JobAction['kind']]: (d: StepDecision<K>) => JobGroup } = {
  start(d) {
    d.requireJob();
    const step = d.unit;
    d.requireStep(step);
    const expected = d.job.currentStep ?? d.job.plan[0]?.name;
    if (step.name !== expected) throw invalidTransition(`Step ${step.name} of job`, d.jobId, `waiting for ${expected}`, StepStatus.RUNNING);
    d.requireReady(step);
    return d.startAttempt(step, d.action);
  },
  claim: (d) => WORK_HANDLERS.claim(d, d.action),
  progress: (d) => WORK_HANDLERS.progress(d, d.action),
  complete: (d) => WORK_HANDLERS.complete(d, d.action),
  fail: (d) => WORK_HANDLERS.fail(d, d.action),
  handBack: (d) => WORK_HANDLERS.handBack(d, d.action),
  pause(d) {
    const step = d.namedStep(true);
    const paused: StepState = { ...step, status: StepStatus.PAUSED };
    return d.moved({ status: JobStatus.PAUSED }, [paused], JobEventType.STEP_PAUSED, paused);
  },
  approve(d) {
    const step = d.namedStep(false);
    const { actor, at } = d;
    const approved: StepState = { ...step, status: StepStatus.COMPLETED, progress: 1, approvedBy: actor, decidedAt: at, finishedAt: at };
    return d.advance(approved, JobEventType.STEP_APPROVED);
  },
  reject(d) {
    const step = d.namedStep(false);
    const { actor, at } = d;
    const error = { code: 'REJECTED', message: d.action.reason, retryCount: step.attempt - 1 };
    const rejected: StepState = { ...step, status: StepStatus.FAILED, error, approvedBy: actor, decidedAt: at, finishedAt: at };
    return d.failJob(rejected, error, JobEventType.STEP_REJECTED);
  },
  cancel(d) {
    d.requireJob();
    // Its waiting steps are skipped; a running or paused one is written as it is, so that it stops
    // being its job's current attempt (and leaves the claimable indexes: see Step.current).
    const steps = [...d.group.steps.values()].flatMap((s) =>
      s.status === StepStatus.PENDING
        ? [{ ...s, status: StepStatus.SKIPPED }]
        : s.status === StepStatus.RUNNING || s.status === StepStatus.PAUSED
          ? [s]
          : [],
    );
    return d.moved({ status: JobStatus.CANCELLED, finishedAt: d.at }, steps, JobEventType.JOB_CANCELLED);
  },
  retry(d) {
    d.requireJob();
    const failed = d.stepOf(d.job.currentStep ?? d.job.plan[0].name);
    const retry = nextAttempt(failed);
    const change = {
      status: JobStatus.RUNNING,
      attempts: { ...d.job.attempts, [failed.name]: retry.attempt },
      failedSteps: Math.max(0, d.job.failedSteps - 1),
      finishedAt: undefined,
      error: undefined,
    };
    return d.moved(change, [retry], JobEventType.JOB_RETRIED, retry);
  },
};

/** The kinds of action a work item takes (ITEM_HANDLERS). */
type ItemKind = 'claim' | 'progress' | 'complete' | 'fail' | 'handBack' | 'retry';
const ITEM_KINDS: ReadonlySet<JobAction['kind']> = new Set<ItemKind>(['claim', 'progress', 'complete', 'fail', 'handBack', 'retry']);
/** An action on a work item. */
type ItemAction = ActionOf<ItemKind>;
const isItemAction = (action: JobAction): action is ItemAction => ITEM_KINDS.has(action.kind);

/**
 * Decides `command` on the group and records what it does: the unit's new state, the job's change
 * and its event, and what follows by itself (a stage opened or settled, the job moved on). A
 * command naming a work item (sequence from 1) is decided by ITEM_HANDLERS, any other (a step's
 * attempt, sequence 0, or the job) by STEP_HANDLERS; a worker's actions on either by WORK_HANDLERS.
 * `policy` is the named step's stage policy (its declaration's by default). Pure: returns the group
 * it leaves; throws BAD_USER_INPUT, NOT_FOUND, JOB_CANCELLED, INVALID_TRANSITION (naming from and
 * to) or ATTEMPT_TIMED_OUT, and a refused command leaves the group as it was.
 */
export function decide(group: JobGroup, { unit, action }: JobCommand, actor: string, policy?: StepPolicy): JobGroup {
  if (unit && unit.sequence > 0) {
    if (!isItemAction(action)) throw badInput(`A work item takes ${[...ITEM_KINDS].join(', ')}; not ${action.kind}.`, 'action');
    return handleItem(action.kind, new ItemDecision(group, unit.stage, unit.sequence, action, actor));
  }
  const named = unit?.stage ?? group.job.currentStep ?? '';
  return handle(action.kind, new StepDecision(group, unit?.stage, action, actor, policy ?? stepPolicyOf(group.job, named)));
}

/** Runs the handler of command `kind` (typed per command: TypeScript's correlated union pattern, no assertion). */
function handle<K extends JobAction['kind']>(kind: K, d: StepDecision<K>): JobGroup {
  const handler: (d: StepDecision<K>) => JobGroup = STEP_HANDLERS[kind];
  return handler(d);
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
 * The job aggregate's evolve: `view` with one event applied (the job as the event left it, and
 * the steps and items it wrote). Pure. Every change a decision makes is recorded by an event, so
 * the state a group's commit saves is its read state with its events folded in (JobGroup keeps
 * that fold incrementally; the decisions' property test holds every decision to this function).
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
  /** The current attempt of each step as read, by name. */
  steps: ReadonlyMap<string, StepLike>;
  /** The stored rows of those attempts (one a planned step; earlier attempts are not read). */
  storedSteps: readonly StepItem[];
  /** The items read, by itemId: each one's write is conditioned on the version it was read at. */
  items: ReadonlyMap<string, WorkItemItem>;
  at: string;
  /**
   * The reuse records read, by content key (see job.reuse.ts): those of the job's waiting
   * reusable steps, or those of the items a command adds. Records are only ever added, so what
   * was read before the decision still holds inside it.
   */
  reuseRecords?: ReadonlyMap<string, ReuseRecordItem>;
  /** True for a job being created (createJob): its commit puts the job only if new, and writes every step. */
  creating?: boolean;
  /** The tenant's pool load as read (only for a group with a pool claim). */
  pool?: { running: number; limit?: number };
  /** The job's claimable items as read for the group's claims (itemIds, oldest first), each also read by key into `items`. */
  claimable?: readonly string[];
}

/** One change as a decision states it, before the group records it (see JobGroup.record). */
export interface Change {
  actor: string;
  /** The event of the job's stream; none for a change no subscriber is told of (see BatchEvent). */
  type?: JobEventType;
  /** What moves on the job with the event. */
  job?: Partial<JobItem>;
  steps?: StepLike[];
  items?: WorkItemItem[];
  /** What the event is about: the step attempt and the item it names. */
  step?: StepState;
  item?: WorkItemItem;
  reused?: ReusedWork[];
}

/**
 * The state a group of commands decides on, immutable: what it read (`read`), the events its
 * decisions made so far, and the job, steps and items as those events leave them (evolve, kept
 * incrementally: the items and step attempts the events wrote over those read). A decision is a
 * function from one group to the next; a command that throws leaves the group it was given as it
 * was, so a refused command changes nothing. `writes` are the other rows the decisions' commit
 * carries (activity, review and reuse records, an asset, the settle sweep's checkpoint).
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
    if (this.changedItems.size === 0) return this.read.items;
    return new Map([...this.read.items, ...this.changedItems]);
  }

  /** The step attempts written, in the order of their first write. */
  get changedSteps(): StepLike[] {
    return [...this.stepWrites.values()];
  }

  /**
   * Records `change`: the job moves (its version by one, for an event), the steps and items it
   * wrote are stamped and take their places, and the event is appended. Every move is held to the
   * machines declared with the entities here, where it is recorded: throws INVALID_TRANSITION
   * for one outside them.
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
    const event: BatchEvent = {
      job,
      previous,
      type: change.type,
      actor: change.actor,
      step: change.step,
      item: named ?? change.item,
      reused: change.reused,
      wrote: { steps: change.steps ?? [], items },
    };
    return new JobGroup(this.read, job, [...this.events, event], changedItems, steps, stepWrites, this.writes);
  }

  /** Records the job's creation (JOB_CREATED, at its first version) with the steps and items written for it. */
  created(actor: string, steps: StepLike[], items: WorkItemItem[]): JobGroup {
    const recorded = this.record({ actor, steps, items });
    const event = { ...recorded.events[0], previous: null, type: JobEventType.JOB_CREATED };
    return new JobGroup(this.read, this.job, [event], recorded.changedItems, recorded.steps, recorded.stepWrites, this.writes);
  }

  /** The group with `writes` added to its commit. */
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
  const itemCounts = { ...job.itemCounts, [stage]: { ...counts, total: counts.total + inputs.length } };
  return group.record({ actor, type: JobEventType.ITEMS_ADDED, job: { itemCounts, progress: progressOf(job, itemCounts) }, items });
}

/** The job's progress: its finished steps plus the share of the current fan-out stage's items done. */
function progressOf(job: JobItem, itemCounts: Record<string, ItemCountsItem> | undefined): number {
  const current = job.currentStep;
  const counts = current ? itemCounts?.[current] : undefined;
  return jobProgress(job, counts && counts.total > 0 ? (counts.completed + counts.failed) / counts.total : 0);
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
  const started = { ...step, status: StepStatus.RUNNING, startedAt: group.at, progress: 0 };
  const opened = group.record({
    actor,
    type: JobEventType.STEP_STARTED,
    job: { status: JobStatus.RUNNING, startedAt: job.startedAt ?? group.at },
    steps: [started],
    step: started,
  });
  // A stage without items, or whose items were all done before it opened (reused when added),
  // completes at once.
  const counts = countsOf(opened.job, stage);
  return counts.completed + counts.failed === counts.total ? settleStage(opened, stage, actor) : opened;
}

/** A stage all of whose items are done (and not failed past its policy) completes, and the job goes on. */
function finishStage(group: JobGroup, stage: string, actor: string): JobGroup {
  const counts = countsOf(group.job, stage);
  const outputs = { items: counts.total, completed: counts.completed, failed: counts.failed };
  return openReached(decide(group, onStep(stage, { kind: 'complete', outputs }), actor), actor);
}

/**
 * When the job has just moved on to a fan-out stage, that stage opens in the same group (its
 * step runs, STEP_STARTED), so no later write is needed to start it; a stage without items
 * completes at once and the job moves on again.
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
 * in one event, so it is never claimable. The job then goes on as after any completion.
 */
export function reuseStep(group: JobGroup, stage: string, actor: string): JobGroup {
  const { job } = group;
  if (!reuseOf(job, stage) || !takesReuse(job) || !atStage(job, stage)) return group;
  const step = group.steps.get(stage);
  if (!step || step.status !== StepStatus.PENDING) return group;
  const record = group.reuseRecords.get(contentKey(job, stage));
  if (!liveRecord(record, group.at)) return group;
  const from = sourceOf(record);
  const produced = { artifacts: record.artifacts ?? [], metrics: record.metrics, outputs: record.outputs };
  const d = new StepDecision(group, stage, { kind: 'complete', ...produced }, actor, {});
  // Started and completed by the job's machine in one event, never claimable; the job runs from
  // now if it had not started, and goes on as after any completion.
  const done: StepState = {
    ...step,
    ...d.begin({}),
    ...produced,
    status: StepStatus.COMPLETED,
    progress: 1,
    finishedAt: group.at,
    reusedFrom: from,
  };
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
  const itemCounts = { ...job.itemCounts, [stage]: { ...counts, completed: counts.completed + reused.length } };
  const change = { itemCounts, progress: progressOf(job, itemCounts) };
  return settleStage(group.record({ actor, type: JobEventType.ITEMS_REUSED, job: change, items, reused }), stage, actor);
}

/** True when the stage's failed items are past its failure policy. */
function pastPolicy(fanOut: FanOutDeclaration, counts: ItemCountsItem): boolean {
  const policy = fanOut.failurePolicy;
  if (!policy || (policy.maxFailed === undefined && policy.maxFailedPercent === undefined)) return counts.failed > 0;
  if (policy.maxFailed !== undefined && counts.failed > policy.maxFailed) return true;
  return policy.maxFailedPercent !== undefined && counts.total > 0 && (counts.failed * 100) / counts.total > policy.maxFailedPercent;
}

function policyText(fanOut: FanOutDeclaration): string {
  const policy = fanOut.failurePolicy;
  if (policy?.maxFailed !== undefined) return `more than ${policy.maxFailed} may not fail`;
  if (policy?.maxFailedPercent !== undefined) return `more than ${policy.maxFailedPercent}% may not fail`;
  return 'none may fail';
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
    const failed = { ...step, status: StepStatus.FAILED, error, finishedAt: group.at };
    return group.record({
      actor,
      type: JobEventType.STEP_FAILED,
      job: { status: JobStatus.FAILED, failedSteps: job.failedSteps + 1, error, finishedAt: group.at },
      steps: [failed],
      step: failed,
    });
  }
  return counts.completed + counts.failed === counts.total ? finishStage(group, stage, actor) : group;
}

/**
 * One decision on a work item, in the making: the rules its actions share (the refusal naming the
 * item, the stage being live, the stage's attempt time and backoff, the counters and how an
 * attempt ends), over the group as the action found it. Each handler returns the group its action
 * leaves.
 */
class ItemDecision<K extends ItemAction['kind']> implements Work {
  readonly what: string;
  readonly fanOut: FanOutDeclaration;
  readonly item: WorkItemItem;
  readonly counts: ItemCountsItem;
  /** The job is at this stage and runs (or waits to): its items can be worked on. */
  readonly stageLive: boolean;
  readonly limit: number | undefined;
  /** When an attempt starting now runs out of time (none without an attempt timeout). */
  readonly deadline: string | undefined;

  constructor(
    readonly group: JobGroup,
    readonly stage: string,
    readonly sequence: number,
    readonly action: Extract<ItemAction, { kind: K }>,
    readonly actor: string,
  ) {
    const { job } = group;
    this.fanOut = fanOutOrThrow(job, stage);
    // Once a cancellation committed, nothing a worker sends about the job succeeds (whichever item
    // it names), and it is told so with a code of its own, so it can drop the work instead of
    // reading a transition error.
    refuseCancelled(job, job.jobId);
    const item = group.item(itemId(stage, sequence));
    if (!item) throw notFound('WorkItem', `${job.jobId}/${stage}/${sequence}`);
    this.item = item;
    this.what = `Item ${sequence} of stage ${stage} of job`;
    const waiting = item.status === ItemStatus.PENDING ? { availableAt: item.availableAt } : undefined;
    requireAttempt(this.what, job.jobId, action.kind, 'item', item.attempt, 'attempt' in action ? action.attempt : undefined, waiting);
    this.stageLive = atStage(job, stage);
    this.limit = this.fanOut.attemptTimeoutSeconds;
    this.deadline = deadlineOf(group.at, this.limit);
    this.counts = countsOf(job, stage);
  }

  get jobId(): string {
    return this.group.job.jobId;
  }

  get at(): string {
    return this.group.at;
  }

  /** INVALID_TRANSITION naming the item, its status, the target and the statuses allowed. */
  refuse(to: string, allowed: string[], hint?: string): never {
    throw invalidTransition(this.what, this.jobId, this.item.status, to, { action: VERBS[this.action.kind], allowed, hint });
  }

  /** The action needs the item RUNNING in a live stage. */
  requireHeld(to: string): void {
    if (this.item.status !== ItemStatus.RUNNING || !this.stageLive) this.refuse(to, [ItemStatus.RUNNING]);
  }

  // The item's side of a worker's action (Work, for WORK_HANDLERS).

  get unit(): WorkItemItem {
    return this.item;
  }

  /** The item's own last attempt (a hand-back moves it on by one). */
  get maxAttempts(): number {
    return this.item.maxAttempt;
  }

  get backoff(): boolean {
    return !!this.fanOut.retryBackoff;
  }

  /** Its items are claimable only while the job runs (or waits to run) their stage. */
  requireClaimable(): void {
    const { job } = this.group;
    if (!this.stageLive)
      throw invalidTransition(`Stage ${this.stage} of job`, this.jobId, `${job.status} at ${job.currentStep ?? 'no stage'}`, 'claimed', {
        action: 'claim',
        allowed: [`RUNNING at ${this.stage}`],
        hint: 'Its items are claimable only while the job runs that stage.',
      });
  }

  /** Who holds a new attempt: the claimer, with its lease never past the attempt's time, a pool worker's counting in its tenant's pool load. */
  private holder(claim: ActionOf<'claim'>): Partial<WorkItemItem> {
    const leaseExpiresAt = claim.leaseUntil && leaseWithin(claim.leaseUntil, this.deadline);
    return { worker: this.actor, leaseExpiresAt, timesOutAt: this.deadline, pooled: claim.pooled || undefined };
  }

  /** A waiting item starts for the claimer, only once its backoff is over, whatever an index read lagging behind said. */
  start(claim: ActionOf<'claim'>): JobGroup {
    const waitsUntil = this.item.availableAt ?? this.item.createdAt;
    if (waitsUntil > this.at)
      return this.refuse('claimed', [`${ItemStatus.PENDING} past its backoff`], `It waits for its retry backoff until ${waitsUntil}.`);
    const started = this.next({ status: ItemStatus.RUNNING, progress: 0, startedAt: this.at, ...this.holder(claim) });
    return this.record(this.withCounts({ running: this.counts.running + 1 }), JobEventType.ITEM_STARTED, started);
  }

  /** A report renews the reporter's lease, up to the attempt's time, and keeps its checkpoint. */
  renew(report: ActionOf<'progress'>): JobGroup {
    const { item } = this;
    const updated = this.next({
      progress: report.progress,
      ...(report.checkpoint !== undefined ? { checkpoint: report.checkpoint } : {}),
      ...(report.leaseUntil ? { leaseExpiresAt: leaseWithin(report.leaseUntil, item.timesOutAt) } : {}),
    });
    return this.record({}, JobEventType.ITEM_PROGRESS, updated);
  }

  complete(done: ActionOf<'complete'>): JobGroup {
    return this.finish(ItemStatus.COMPLETED, { progress: 1, outputs: done.outputs ?? undefined }, JobEventType.ITEM_COMPLETED);
  }

  /** The attempt ended with attempts left: the item waits for its next one (after the stage's backoff), or the claimer holds it at once. */
  retryLater(error: JobError, claim?: ActionOf<'claim'>): JobGroup {
    if (!claim) return this.waitForNext(error);
    const again = this.next({
      attempt: this.item.attempt + 1,
      status: ItemStatus.RUNNING,
      progress: 0,
      error,
      startedAt: this.at,
      ...this.holder(claim),
    });
    return this.record(this.withCounts({}), JobEventType.ITEM_RECLAIMED, again);
  }

  /**
   * The next attempt waits, claimable at once (no backoff), and the released one is not counted:
   * the item's last attempt moves on with it (job.attempts.ts countedAttempts).
   */
  handBack(): JobGroup {
    // It keeps its place among the waiting items (claims take the oldest first): a stopping worker's
    // unit is taken next, not after every item that waited behind it when it was claimed. That
    // place is never in the future: start() claims no item before its availableAt.
    const waiting = this.waiting({ maxAttempt: this.item.maxAttempt + 1, availableAt: this.item.availableAt ?? this.item.createdAt });
    return this.record(this.withCounts({ running: this.counts.running - 1 }), JobEventType.ITEM_HANDED_BACK, waiting);
  }

  /** The job's counters of the stage with `change`, and its progress with them. */
  withCounts(change: Partial<ItemCountsItem>): Partial<JobItem> {
    const itemCounts = { ...this.group.job.itemCounts, [this.stage]: { ...this.counts, ...change } };
    return { itemCounts, progress: progressOf(this.group.job, itemCounts) };
  }

  /** The item's next version with `changes`. */
  next(changes: Partial<WorkItemItem>): WorkItemItem {
    return { ...this.item, ...changes, version: this.item.version + 1 };
  }

  /** The item waiting (PENDING) for its next attempt, held by no one, with `changes` (when it is claimable, its error). */
  waiting(changes: Partial<WorkItemItem>): WorkItemItem {
    const free = { worker: undefined, leaseExpiresAt: undefined, timesOutAt: undefined };
    return this.next({ status: ItemStatus.PENDING, attempt: this.item.attempt + 1, progress: 0, ...free, ...changes });
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

  /** The running item's attempt ended with attempts left: it waits, PENDING, for the next one, claimable after the stage's backoff. */
  waitForNext(error: JobError): JobGroup {
    const { item } = this;
    const unit = { jobId: this.jobId, stage: this.stage, sequence: this.sequence, attempt: item.attempt };
    const waiting = this.waiting({ error, availableAt: retryAt(this.fanOut.retryBackoff, unit, this.at) });
    return this.record(this.withCounts({ running: this.counts.running - 1 }), JobEventType.ITEM_ATTEMPT_FAILED, waiting);
  }
}

/** What each worker's (or person's) action on an item does, given the decision's shared rules (ItemDecision). */
const ITEM_HANDLERS: { [K in ItemAction['kind']]: (d: ItemDecision<K>) => JobGroup } = {
  claim(d) {
    const { group, stage, action } = d;
    // A stage whose items are claimed before it was opened (a crash in between) opens now, and the claim is decided on it.
    if (d.stageLive && group.steps.get(stage)?.status === StepStatus.PENDING) {
      const opened = openStage(group, stage, d.actor);
      if (opened !== group) return ITEM_HANDLERS.claim(new ItemDecision(opened, stage, d.sequence, action, d.actor));
    }
    return WORK_HANDLERS.claim(d, action);
  },
  progress: (d) => WORK_HANDLERS.progress(d, d.action),
  complete: (d) => WORK_HANDLERS.complete(d, d.action),
  fail: (d) => WORK_HANDLERS.fail(d, d.action),
  handBack: (d) => WORK_HANDLERS.handBack(d, d.action),
  retry(d) {
    const { group, item, stage, action } = d;
    const { job } = group;
    if (item.status !== ItemStatus.FAILED) d.refuse(ItemStatus.PENDING, [ItemStatus.FAILED]);
    if (action.errorCode !== undefined && item.error?.code !== action.errorCode)
      d.refuse(ItemStatus.PENDING, [`${ItemStatus.FAILED} with ${action.errorCode}`], `Its last error is ${item.error?.code ?? 'none'}.`);
    const step = group.steps.get(stage);
    const stageFailed = job.status === JobStatus.FAILED && job.currentStep === stage && step?.status === StepStatus.FAILED;
    if (!stageFailed && !(d.stageLive && step?.status === StepStatus.RUNNING)) {
      throw invalidTransition(`Stage ${stage} of job`, d.jobId, step?.status ?? 'over', 'reopened', {
        action: 'retry an item of',
        allowed: [StepStatus.RUNNING, StepStatus.FAILED],
        hint: 'Only an item of the stage the job is running, or of the stage it failed in, can be retried.',
      });
    }
    const maxAttempt = item.attempt + (d.fanOut.attempts ?? job.maxAttempts);
    const reopened = d.waiting({ maxAttempt, finishedAt: undefined, availableAt: d.at });
    const counted = d.withCounts({ failed: d.counts.failed - 1 });
    if (!stageFailed || !step) return d.record(counted, JobEventType.ITEM_RETRIED, reopened);
    // The stage failed by its policy: it reopens as a new attempt of its step, and the job runs again.
    const attempt = step.attempt + 1;
    const running = { name: stage, order: step.order, attempt, status: StepStatus.RUNNING, progress: 0, startedAt: d.at, jobId: d.jobId };
    const reopenedJob = {
      ...counted,
      status: JobStatus.RUNNING,
      attempts: { ...job.attempts, [stage]: attempt },
      failedSteps: Math.max(0, job.failedSteps - 1),
      error: undefined,
      finishedAt: undefined,
    };
    return d.record(reopenedJob, JobEventType.ITEM_RETRIED, reopened, running);
  },
};

/** Runs the handler of action `kind` (typed per action: TypeScript's correlated union pattern, no assertion). */
function handleItem<K extends ItemAction['kind']>(kind: K, d: ItemDecision<K>): JobGroup {
  const handler: (d: ItemDecision<K>) => JobGroup = ITEM_HANDLERS[kind];
  return handler(d);
}
