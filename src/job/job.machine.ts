import { type EntityItem, JOB_STATES, type ReuseSourceItem, STEP_STATES } from '../common/entities';
import { badInput, invalidTransition } from '../errors';
import { enumObject } from '../infra/dynamo/entity';
import {
  type AttemptError,
  checkProgress,
  countedAttempts,
  deadlineOf,
  hasAttemptsLeft,
  heldHint,
  jobProgress,
  leaseWithin,
  refuseCancelled,
  refuseTimedOut,
  requireAttempt as requireHeld,
  retryAt,
  takeoverOf,
  VERBS,
} from './job.attempts';
import type { StepPolicy } from './job.kinds';

export { attemptEndedError, cancelledJob } from './job.attempts';

/** A job's statuses, from the declaration (entities.ts); which moves are allowed is decided below. */
export const JobStatus = enumObject(JOB_STATES);
export type JobStatus = (typeof JobStatus)[keyof typeof JobStatus];

/** A step attempt's statuses, from the declaration (entities.ts); PAUSED awaits a person's review. */
export const StepStatus = enumObject(STEP_STATES);
export type StepStatus = (typeof StepStatus)[keyof typeof StepStatus];

/** A work item's statuses (declared with the entity, entities.ts). CANCELLED: its job was cancelled before it finished. */
export const ItemStatus = {
  PENDING: 'PENDING',
  RUNNING: 'RUNNING',
  COMPLETED: 'COMPLETED',
  FAILED: 'FAILED',
  CANCELLED: 'CANCELLED',
} as const;
export type ItemStatus = (typeof ItemStatus)[keyof typeof ItemStatus];

/**
 * What a job event says happened, each with what the API's JobEventType says of it: the one list
 * of the stored event types (the enum below is made from it). The GraphQL enum adds the messages a
 * job stream makes itself, which are no events of the job (src/events/stream-messages.ts).
 */
export const JOB_EVENT_TYPES = {
  JOB_CREATED: 'The job was created, QUEUED with its plan.',
  STEP_STARTED: 'A worker started a step attempt; the job is RUNNING.',
  STEP_PROGRESS: "A worker reported a step's progress (and metrics).",
  STEP_COMPLETED: 'A step attempt completed with its artifacts; the next step waits, or the job COMPLETED.',
  STEP_FAILED: "A step attempt failed; another attempt waits, or the job FAILED (see the job's error).",
  STEP_PAUSED: "A step paused for a person's review; the job is PAUSED until approveStep or rejectStep.",
  STEP_APPROVED: 'A person approved the paused step; it completed.',
  STEP_REJECTED: 'A person rejected the paused step; the job FAILED.',
  JOB_CANCELLED: 'The job was cancelled; its waiting steps were SKIPPED.',
  JOB_RETRIED: 'A FAILED job runs again, with a new attempt of the failed step.',
  STEP_RECLAIMED:
    "A worker claimed a step whose holder stopped reporting: the old attempt failed with LEASE_EXPIRED; the event's step is the new attempt.",
  ITEMS_ADDED: "Work items were added to a fan-out stage (the job's itemCounts say how many).",
  ITEM_STARTED: 'A worker claimed a work item; the event’s item is its attempt.',
  ITEM_PROGRESS: "A worker reported a work item's progress.",
  ITEM_COMPLETED: 'A work item completed with its outputs; the stage completes when every item is done.',
  ITEM_FAILED: 'A work item failed past its attempts; the stage fails by its policy.',
  ITEM_ATTEMPT_FAILED:
    "A work item's attempt failed with attempts left (its worker failed it, or, in a stage with a retry backoff, its lease or its time ran out): the item is PENDING for its next attempt, claimable from its availableAt (the event's item; its error says why). Not counted as failed.",
  ITEM_RECLAIMED:
    "A work item's holder stopped reporting past its lease (error LEASE_EXPIRED) or its attempt's time ran out (ATTEMPT_TIMED_OUT): in a stage without a retry backoff, the claimer took it over at once as a new attempt.",
  ITEM_RETRIED:
    'A failed work item was reopened as a new attempt (retryWorkItem, replayDeadLetters), and its stage with it when it had failed.',
  // The reuse of stored outputs is src/job/job.reuse.ts.
  ITEMS_REUSED:
    "Work items just added completed at once from the stored outputs of the tenant's completed items with the same content key (a stage declared reusable, see jobKinds); `reused` names each item and its source. No worker sees them.",
  STEP_HANDED_BACK:
    "The worker holding a step attempt handed it back unfinished (handBackStep, a stopping worker): the event's step is the new attempt, PENDING and claimable at once, with no backoff; the handed-back attempt (HANDED_BACK) is not counted against the job's attempts.",
  ITEM_HANDED_BACK:
    "The worker holding a work item's attempt handed it back unfinished (handBackWorkItem, a stopping worker): the item is PENDING for its next attempt, claimable at once, with no backoff; the handed-back attempt is not counted against its attempts (its maxAttempt moved on by one).",
  STEP_REUSED:
    "The job's current step completed at once from the stored outputs of the tenant's completed step with the same content key (a stage declared reusable, see jobKinds); `reused` names the source. No worker sees it.",
} as const;

/** The event types, by name: `JobEventType.STEP_STARTED`. */
export const JobEventType = enumObject(Object.keys(JOB_EVENT_TYPES).filter((type): type is JobEventType => type in JOB_EVENT_TYPES));
export type JobEventType = keyof typeof JOB_EVENT_TYPES;

export const TERMINAL = new Set<JobStatus>([JobStatus.COMPLETED, JobStatus.FAILED, JobStatus.CANCELLED]);

/**
 * The statuses after which a job never changes again, so its event stream is over. FAILED is
 * not among them: `retryJob` runs a failed job again.
 */
export const FINAL = new Set<JobStatus>([JobStatus.COMPLETED, JobStatus.CANCELLED]);

export type JobError = AttemptError;

export interface PlannedStep {
  name: string;
  order: number;
}

/** The part of a job that transitions decide on and change. */
export interface JobState {
  status: JobStatus;
  plan: PlannedStep[];
  /** The current attempt of each planned step. */
  attempts: Record<string, number>;
  currentStep: string | null;
  progress: number;
  completedSteps: number;
  failedSteps: number;
  maxAttempts: number;
  error?: JobError | null;
  startedAt?: string | null;
  finishedAt?: string | null;
}

/** One attempt of one step. */
export interface StepState {
  name: string;
  order: number;
  attempt: number;
  status: StepStatus;
  progress: number;
  artifacts?: string[];
  metrics?: Record<string, unknown>;
  outputs?: Record<string, unknown>;
  error?: JobError | null;
  approvedBy?: string;
  decidedAt?: string;
  startedAt?: string;
  finishedAt?: string;
  updatedAt?: string;
  /** Who holds the attempt, and until when without a report (its lease). */
  worker?: string;
  leaseExpiresAt?: string;
  /** The completed step whose stored outputs this attempt took (job.reuse.ts). */
  reusedFrom?: ReuseSourceItem;
  /** When a running attempt's time is up (its stage's attempt timeout), whatever its renewals. */
  timesOutAt?: string;
  /** When a waiting attempt may start, after its stage's retry backoff. */
  waitsUntil?: string;
  /** The running attempt was claimed by a pool worker (it counts in its tenant's pool load). */
  pooled?: boolean;
  /** How many earlier attempts their workers handed back: not counted against the job's maxAttempts (countedAttempts). */
  handedBack?: number;
}

/**
 * A worker's action on a step. `leaseUntil` is when the worker's hold on the step runs out unless
 * it reports again (start, claim and progress take or renew it); `attempt`, when a worker names
 * it, must be the step's current attempt (a worker whose lease was taken over is refused).
 */
export type JobAction =
  | { kind: 'start'; step: string; leaseUntil?: string }
  | { kind: 'claim'; step: string; leaseUntil?: string }
  | {
      kind: 'progress';
      step: string;
      progress: number;
      metrics?: Record<string, unknown> | null;
      leaseUntil?: string;
      attempt?: number | null;
    }
  | {
      kind: 'complete';
      step: string;
      artifacts: string[];
      metrics?: Record<string, unknown> | null;
      /** What the step produced, checked against its stage's declared outputs. */
      outputs?: Record<string, unknown> | null;
      /** The stage pauses for review when it completes (declared kinds, see job.kinds.ts). */
      review?: boolean;
      attempt?: number | null;
    }
  | { kind: 'fail'; step: string; code: string; message: string; attempt?: number | null }
  | { kind: 'pause'; step: string; attempt?: number | null }
  /** The worker releases the attempt it holds, unfinished: a new attempt waits, claimable at once and not counted. */
  | { kind: 'handBack'; step: string; attempt?: number | null }
  | { kind: 'approve'; step: string }
  | { kind: 'reject'; step: string; reason: string }
  | { kind: 'cancel' }
  | { kind: 'retry' };

export interface Outcome {
  job: JobState;
  /** Step attempts to write: changed ones and new ones. */
  steps: StepState[];
  type: JobEventType;
  /** The step the event is about, as it is now. */
  step?: StepState;
}

/** The planned steps in order, and each step's first attempt, for a new job. */
export function initialSteps(plan: PlannedStep[]): StepState[] {
  return plan.map(({ name, order }) => ({ name, order, attempt: 1, status: StepStatus.PENDING, progress: 0 }));
}

/** Where a command may run and where it moves the job and the step it names. */
export interface CommandDeclaration {
  /** The job statuses it is accepted in. */
  job: readonly JobStatus[];
  /** The job status it moves to (named in INVALID_TRANSITION; a completion may finish the job instead). */
  to: JobStatus;
  /** The statuses of the named step's current attempt it is accepted in (a claim decides by the lease). */
  step?: readonly StepStatus[];
  /** The status it moves that attempt to. */
  stepTo?: StepStatus;
}

/**
 * The commands on a job and its steps, declared as data: in which job status and step status each
 * is accepted and where it moves them. decide refuses a command outside them with
 * INVALID_TRANSITION (from, to and the statuses allowed); what a command does beyond the move is
 * its effect in decide. test/unit/job-machine.test.ts holds every move here to the machines
 * declared with the entities (src/common/entities.ts), and every write is held to those machines
 * again at commit.
 */
export const JOB_COMMANDS: Record<JobAction['kind'], CommandDeclaration> = {
  start: { job: [JobStatus.QUEUED, JobStatus.RUNNING], to: JobStatus.RUNNING, step: [StepStatus.PENDING], stepTo: StepStatus.RUNNING },
  claim: { job: [JobStatus.QUEUED, JobStatus.RUNNING], to: JobStatus.RUNNING, stepTo: StepStatus.RUNNING },
  progress: { job: [JobStatus.RUNNING], to: JobStatus.RUNNING, step: [StepStatus.RUNNING], stepTo: StepStatus.RUNNING },
  complete: { job: [JobStatus.RUNNING], to: JobStatus.RUNNING, step: [StepStatus.RUNNING], stepTo: StepStatus.COMPLETED },
  fail: { job: [JobStatus.RUNNING], to: JobStatus.RUNNING, step: [StepStatus.RUNNING], stepTo: StepStatus.FAILED },
  pause: { job: [JobStatus.RUNNING], to: JobStatus.PAUSED, step: [StepStatus.RUNNING], stepTo: StepStatus.PAUSED },
  handBack: { job: [JobStatus.RUNNING], to: JobStatus.RUNNING, step: [StepStatus.RUNNING], stepTo: StepStatus.HANDED_BACK },
  approve: { job: [JobStatus.PAUSED], to: JobStatus.RUNNING, step: [StepStatus.PAUSED], stepTo: StepStatus.COMPLETED },
  reject: { job: [JobStatus.PAUSED], to: JobStatus.FAILED, step: [StepStatus.PAUSED], stepTo: StepStatus.FAILED },
  cancel: { job: [JobStatus.QUEUED, JobStatus.RUNNING, JobStatus.PAUSED], to: JobStatus.CANCELLED },
  retry: { job: [JobStatus.FAILED], to: JobStatus.RUNNING },
};

/** The actions a worker takes on a step: on a cancelled job each gets JOB_CANCELLED. */
const WORKER_ACTIONS = new Set<JobAction['kind']>(['start', 'claim', 'progress', 'complete', 'fail', 'pause', 'handBack']);

/** What a caller can do with a job in each status, for INVALID_TRANSITION messages. */
const JOB_HINTS: Partial<Record<JobStatus, string>> = {
  [JobStatus.QUEUED]: 'Its first step has not started: start it with startStep.',
  [JobStatus.RUNNING]:
    'A worker can report progress on its current step, complete, fail or pause it (pauseStepForReview); only a paused step can be approved or rejected.',
  [JobStatus.PAUSED]: 'A step waits for review: approve it with approveStep or reject it with rejectStep (see stepsAwaitingReview).',
  [JobStatus.COMPLETED]: 'It has finished; nothing can change it any more.',
  [JobStatus.FAILED]: 'retryJob runs it again from its failed step.',
  [JobStatus.CANCELLED]: 'It was cancelled; nothing can change it any more.',
};

/** What a caller can do with a step in each status, for INVALID_TRANSITION messages. */
const STEP_HINTS: Partial<Record<StepStatus, string>> = {
  [StepStatus.PENDING]: 'It has not started: start it with startStep.',
  [StepStatus.RUNNING]:
    'It is running: report progress, complete it, fail it or pause it for review (pauseStepForReview); only a paused step can be approved or rejected.',
  [StepStatus.PAUSED]: 'It waits for review: approve it with approveStep or reject it with rejectStep.',
  [StepStatus.COMPLETED]: 'It has finished.',
  [StepStatus.FAILED]: 'This attempt failed; a new attempt waits to be started, or retryJob runs the failed job again.',
  [StepStatus.SKIPPED]: 'It was skipped when the job was cancelled.',
  [StepStatus.HANDED_BACK]: 'Its worker handed it back; the next attempt waits to be claimed.',
};

/** What a step decision knows besides the job and its steps: when, who, which job, and the step's stage policy. */
export interface DecisionContext {
  now: string;
  actor: string;
  jobId: string;
  policy?: StepPolicy;
}

/**
 * One decision on a job and its steps, in the making: the rules its commands share (the job and
 * step statuses each accepts, the attempt a worker names, an attempt's start, failure and the
 * job's advance), over the job as read (`job`) and the job as the decision leaves it (`next`).
 */
class StepDecision<K extends JobAction['kind']> {
  readonly next: JobState;
  readonly command: CommandDeclaration;
  readonly limit: number | undefined;
  /** When an attempt starting now runs out of time (none without an attempt timeout). */
  readonly deadline: string | undefined;

  constructor(
    readonly job: JobState,
    readonly steps: ReadonlyMap<string, StepState>,
    readonly action: Extract<JobAction, { kind: K }>,
    readonly ctx: DecisionContext,
  ) {
    this.next = { ...job };
    this.command = JOB_COMMANDS[action.kind];
    this.limit = ctx.policy?.attemptTimeoutSeconds;
    this.deadline = deadlineOf(ctx.now, this.limit);
  }

  /** The job must be in a status the command accepts; a worker's command on a cancelled job gets JOB_CANCELLED. */
  requireJob(): void {
    const { job, action, command, ctx } = this;
    if (WORKER_ACTIONS.has(action.kind)) refuseCancelled(job, ctx.jobId);
    if (!command.job.includes(job.status)) {
      throw invalidTransition('Job', ctx.jobId, job.status, command.to, {
        action: VERBS[action.kind],
        allowed: [...command.job],
        hint: JOB_HINTS[job.status],
      });
    }
  }

  /** The current attempt of the step named `name`, or BAD_USER_INPUT naming the job's steps. */
  stepOf(name: string): StepState {
    const step = this.steps.get(name);
    if (!step)
      throw badInput(
        `Job ${this.ctx.jobId} has no step named "${name}"; its steps are ${this.job.plan.map((p) => p.name).join(', ')}.`,
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
    const step = this.stepOf('step' in this.action ? this.action.step : '');
    if (held) this.requireAttempt(step);
    this.requireStep(step);
    return step;
  }

  /** The step's attempt must be in a status the command accepts. */
  requireStep(step: StepState): void {
    const allowed = this.command.step ?? [];
    if (!allowed.includes(step.status)) {
      throw invalidTransition(`Step ${step.name} of job`, this.ctx.jobId, step.status, this.command.stepTo ?? step.status, {
        action: VERBS[this.action.kind],
        allowed: [...allowed],
        hint: STEP_HINTS[step.status],
      });
    }
  }

  /** A worker that names an attempt must hold the current one (job.attempts.ts requireAttempt). */
  requireAttempt(step: StepState): void {
    const named = 'attempt' in this.action ? this.action.attempt : undefined;
    requireHeld(`Step ${step.name} of job`, this.ctx.jobId, this.action.kind, 'step', step.attempt, named);
  }

  /** A waiting attempt starts only once its retry backoff is over. */
  requireReady(step: StepState): void {
    if (step.waitsUntil && step.waitsUntil > this.ctx.now) {
      throw invalidTransition(`Step ${step.name} of job`, this.ctx.jobId, `${step.status} until ${step.waitsUntil}`, StepStatus.RUNNING, {
        action: VERBS[this.action.kind],
        allowed: [`${StepStatus.PENDING} once its backoff is over`],
        hint: `Attempt ${step.attempt} waits for its stage's retry backoff: it can start at ${step.waitsUntil}.`,
      });
    }
  }

  /** The worker's lease until `leaseUntil`, never past the attempt's time (none without a lease). */
  lease(leaseUntil: string | undefined, timesOutAt: string | undefined): Partial<StepState> {
    return leaseUntil ? { worker: this.ctx.actor, leaseExpiresAt: leaseWithin(leaseUntil, timesOutAt) } : {};
  }

  /** What an attempt starting now (started or claimed) is: running, its lease, and its time from now. */
  begin(leaseUntil: string | undefined): Partial<StepState> {
    const { ctx, deadline } = this;
    return {
      status: StepStatus.RUNNING,
      progress: 0,
      startedAt: ctx.now,
      waitsUntil: undefined,
      timesOutAt: deadline,
      ...this.lease(leaseUntil, deadline),
    };
  }

  /** The step starts now for its worker: the job runs, at this step. */
  start(step: StepState, leaseUntil: string | undefined): Outcome {
    const started: StepState = { ...step, ...this.begin(leaseUntil) };
    this.next.status = JobStatus.RUNNING;
    this.next.currentStep = step.name;
    this.next.startedAt = this.job.startedAt ?? this.ctx.now;
    return { job: this.next, steps: [started], step: started, type: JobEventType.STEP_STARTED };
  }

  /** What the attempt after failed attempt `attempt` waits for: its stage's backoff (nothing without one). */
  backoffAfter(name: string, attempt: number): Partial<StepState> {
    const { ctx } = this;
    const until = retryAt(ctx.policy?.retryBackoff, { jobId: ctx.jobId, stage: name, sequence: 0, attempt }, ctx.now);
    return until > ctx.now ? { waitsUntil: until } : {};
  }

  /**
   * An attempt failed with `error`. While attempts remain a new attempt follows and the job keeps
   * running: waiting to be started, or, with `takenOver`, already held by the worker that claimed
   * the step (STEP_RECLAIMED, whose event shows the new attempt). Past its attempts the job fails.
   */
  failAttempt(step: StepState, error: JobError, takenOver?: Partial<StepState>): Outcome {
    const { job, next, ctx } = this;
    const failed: StepState = { ...step, status: StepStatus.FAILED, error, finishedAt: ctx.now };
    next.error = error;
    if (hasAttemptsLeft(countedAttempts(step.attempt, step.handedBack), job.maxAttempts)) {
      next.attempts = { ...job.attempts, [step.name]: step.attempt + 1 };
      const again: StepState = {
        name: step.name,
        order: step.order,
        attempt: step.attempt + 1,
        status: StepStatus.PENDING,
        progress: 0,
        handedBack: step.handedBack,
        ...(takenOver ?? this.backoffAfter(step.name, step.attempt)),
      };
      next.progress = jobProgress(job);
      return takenOver
        ? { job: next, steps: [failed, again], step: again, type: JobEventType.STEP_RECLAIMED }
        : { job: next, steps: [failed, again], step: failed, type: JobEventType.STEP_FAILED };
    }
    return this.failJob(failed, error);
  }

  /** The job fails with `error`, at its failed (or rejected) step; `type` is the event that says so. */
  failJob(failed: StepState, error: JobError, type: JobEventType = JobEventType.STEP_FAILED): Outcome {
    this.next.status = JobStatus.FAILED;
    this.next.failedSteps = this.job.failedSteps + 1;
    this.next.error = error;
    this.next.finishedAt = this.ctx.now;
    return { job: this.next, steps: [failed], step: failed, type };
  }

  /**
   * A step finished successfully: the job advances to the next one, or completes. Returns the step
   * attempts the change writes: the finished one, and the next step's current attempt, which the
   * job has reached (written as it is, so that it becomes claimable: see Step.current).
   */
  advance(done: StepState): StepState[] {
    const { job, next, ctx } = this;
    next.completedSteps = job.completedSteps + 1;
    const following = job.plan.filter((p) => p.order > done.order).sort((a, b) => a.order - b.order)[0];
    next.error = null;
    if (following) {
      next.status = JobStatus.RUNNING;
      next.currentStep = following.name;
      next.progress = jobProgress(next);
      const reached = this.steps.get(following.name);
      return reached ? [done, reached] : [done];
    }
    next.status = JobStatus.COMPLETED;
    next.currentStep = null;
    next.progress = 1;
    next.finishedAt = ctx.now;
    return [done];
  }
}

/** What each command does, given the decision's shared rules (StepDecision). */
const STEP_HANDLERS: { [K in JobAction['kind']]: (d: StepDecision<K>) => Outcome } = {
  start(d) {
    d.requireJob();
    const step = d.stepOf(d.action.step);
    d.requireStep(step);
    const expected = d.job.currentStep ?? d.job.plan[0]?.name;
    if (step.name !== expected)
      throw invalidTransition(`Step ${step.name} of job`, d.ctx.jobId, `waiting for ${expected}`, StepStatus.RUNNING);
    d.requireReady(step);
    return d.start(step, d.action.leaseUntil);
  },
  claim(d) {
    // A waiting current step is started for the claimer; a running one whose lease ran out is
    // taken over as a new attempt (the old one failed with LEASE_EXPIRED), or fails the job
    // when it has no attempts left. Anything else is not claimable.
    d.requireJob();
    const step = d.stepOf(d.action.step);
    const current = d.job.currentStep ?? d.job.plan[0]?.name;
    if (step.name !== current) throw invalidTransition(`Step ${step.name} of job`, d.ctx.jobId, `waiting for ${current}`, 'claimed');
    if (step.status === StepStatus.PENDING) {
      d.requireReady(step);
      return d.start(step, d.action.leaseUntil);
    }
    // A running attempt can be taken over once its lease or its time runs out, whichever is first.
    const rules = {
      maxAttempts: d.job.maxAttempts + (step.handedBack ?? 0),
      backoff: !!d.ctx.policy?.retryBackoff,
      timeoutSeconds: d.limit,
    };
    const takeover = takeoverOf(step, d.ctx.now, rules);
    if (step.status !== StepStatus.RUNNING || takeover.kind === 'held') {
      throw invalidTransition(`Step ${step.name} of job`, d.ctx.jobId, step.status, 'claimed', {
        action: 'claim',
        allowed: [StepStatus.PENDING, 'RUNNING with its lease or its time run out'],
        hint: heldHint(step, takeover.ends),
      });
    }
    // With a retry backoff the next attempt waits for it, like one its worker failed: the
    // claimer holds none of it. Without one the claimer holds the new attempt at once.
    return d.failAttempt(step, takeover.error, takeover.kind === 'takeOver' ? d.begin(d.action.leaseUntil) : undefined);
  },
  progress(d) {
    checkProgress(d.action.progress);
    const step = d.namedStep(true);
    refuseTimedOut(`Step ${step.name} of job`, d.ctx.jobId, step, d.ctx.now, d.limit);
    // A report renews the reporter's lease, up to the attempt's time.
    const updated: StepState = {
      ...step,
      progress: d.action.progress,
      metrics: d.action.metrics ?? step.metrics,
      ...d.lease(d.action.leaseUntil, step.timesOutAt),
    };
    d.next.progress = jobProgress(d.job, d.action.progress);
    return { job: d.next, steps: [updated], step: updated, type: JobEventType.STEP_PROGRESS };
  },
  complete(d) {
    const { action } = d;
    const step = d.namedStep(true);
    const produced = { artifacts: action.artifacts, metrics: action.metrics ?? step.metrics, outputs: action.outputs ?? step.outputs };
    if (action.review) {
      // A stage declared for review keeps what it produced and waits for a person's decision.
      const paused: StepState = { ...step, ...produced, status: StepStatus.PAUSED, progress: 1 };
      d.next.status = JobStatus.PAUSED;
      return { job: d.next, steps: [paused], step: paused, type: JobEventType.STEP_PAUSED };
    }
    const done: StepState = { ...step, ...produced, status: StepStatus.COMPLETED, progress: 1, finishedAt: d.ctx.now };
    return { job: d.next, steps: d.advance(done), step: done, type: JobEventType.STEP_COMPLETED };
  },
  fail(d) {
    const step = d.namedStep(true);
    return d.failAttempt(step, { code: d.action.code, message: d.action.message, retryCount: step.attempt - 1 });
  },
  pause(d) {
    const step = d.namedStep(true);
    const paused: StepState = { ...step, status: StepStatus.PAUSED };
    d.next.status = JobStatus.PAUSED;
    return { job: d.next, steps: [paused], step: paused, type: JobEventType.STEP_PAUSED };
  },
  handBack(d) {
    // The holder releases its attempt unfinished: a new attempt waits, claimable at once (no
    // backoff), and the released one is not counted (countedAttempts). A report on the released
    // attempt is then refused like any on an attempt that is over.
    const step = d.namedStep(true);
    refuseTimedOut(`Step ${step.name} of job`, d.ctx.jobId, step, d.ctx.now, d.limit);
    const released: StepState = { ...step, status: StepStatus.HANDED_BACK, finishedAt: d.ctx.now };
    const again: StepState = {
      name: step.name,
      order: step.order,
      attempt: step.attempt + 1,
      status: StepStatus.PENDING,
      progress: 0,
      handedBack: (step.handedBack ?? 0) + 1,
    };
    d.next.attempts = { ...d.job.attempts, [step.name]: again.attempt };
    d.next.progress = jobProgress(d.job);
    return { job: d.next, steps: [released, again], step: again, type: JobEventType.STEP_HANDED_BACK };
  },
  approve(d) {
    const step = d.namedStep(false);
    const { actor, now } = d.ctx;
    const approved: StepState = { ...step, status: StepStatus.COMPLETED, progress: 1, approvedBy: actor, decidedAt: now, finishedAt: now };
    return { job: d.next, steps: d.advance(approved), step: approved, type: JobEventType.STEP_APPROVED };
  },
  reject(d) {
    const step = d.namedStep(false);
    const { actor, now } = d.ctx;
    const error = { code: 'REJECTED', message: d.action.reason, retryCount: step.attempt - 1 };
    const rejected: StepState = { ...step, status: StepStatus.FAILED, error, approvedBy: actor, decidedAt: now, finishedAt: now };
    return d.failJob(rejected, error, JobEventType.STEP_REJECTED);
  },
  cancel(d) {
    d.requireJob();
    d.next.status = JobStatus.CANCELLED;
    d.next.finishedAt = d.ctx.now;
    // Its waiting steps are skipped; a running or paused one is written as it is, so that it stops
    // being its job's current attempt (and leaves the claimable indexes: see Step.current).
    const steps = [...d.steps.values()].flatMap((s) =>
      s.status === StepStatus.PENDING
        ? [{ ...s, status: StepStatus.SKIPPED }]
        : s.status === StepStatus.RUNNING || s.status === StepStatus.PAUSED
          ? [s]
          : [],
    );
    return { job: d.next, steps, type: JobEventType.JOB_CANCELLED };
  },
  retry(d) {
    d.requireJob();
    const failed = d.stepOf(d.job.currentStep ?? d.job.plan[0].name);
    const attempt = failed.attempt + 1;
    const retry: StepState = { name: failed.name, order: failed.order, attempt, status: StepStatus.PENDING, progress: 0 };
    Object.assign(d.next, {
      status: JobStatus.RUNNING,
      attempts: { ...d.job.attempts, [failed.name]: attempt },
      failedSteps: Math.max(0, d.job.failedSteps - 1),
      finishedAt: null,
      error: null,
    });
    return { job: d.next, steps: [retry], step: retry, type: JobEventType.JOB_RETRIED };
  },
};

/**
 * Decides what an action does to a job and its steps. Pure: it reads `job` and `steps` (the
 * current attempt of each step, by name) and returns the new state, or throws INVALID_TRANSITION
 * (naming from and to) or BAD_USER_INPUT. The caller writes the outcome in one transaction
 * conditioned on the job's version, so the decision holds.
 */
export function decide(job: JobState, steps: ReadonlyMap<string, StepState>, action: JobAction, ctx: DecisionContext): Outcome {
  return handle(action.kind, new StepDecision(job, steps, action, ctx));
}

/** Runs the handler of command `kind` (typed per command: TypeScript's correlated union pattern, no assertion). */
function handle<K extends JobAction['kind']>(kind: K, d: StepDecision<K>): Outcome {
  const handler: (d: StepDecision<K>) => Outcome = STEP_HANDLERS[kind];
  return handler(d);
}

/** A stored job's state, as the machine decides on it. */
export function stateOf(item: EntityItem<'Job'>): JobState {
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
