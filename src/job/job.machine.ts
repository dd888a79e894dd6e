import { entities, type EntityItem, JOB_STATES, type JobErrorItem, STEP_STATES } from '../common/entities';
import { enumObject } from '../infra/dynamo/entity';

/** A job's statuses, from the declaration (entities.ts); which moves are allowed is decided in job.decider.ts. */
export const JobStatus = enumObject(JOB_STATES);
export type JobStatus = (typeof JobStatus)[keyof typeof JobStatus];

/** A step attempt's statuses, from the declaration (entities.ts); PAUSED awaits a person's review. */
export const StepStatus = enumObject(STEP_STATES);
export type StepStatus = (typeof StepStatus)[keyof typeof StepStatus];

/** A work item's statuses, from the declaration (entities.ts). CANCELLED: its job was cancelled before it finished. */
export const ItemStatus = enumObject(entities.WorkItem.states);
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

/** The statuses after which a job never changes again, so its event stream is over (`retryJob` runs a FAILED one again). */
export const FINAL = new Set<JobStatus>([JobStatus.COMPLETED, JobStatus.CANCELLED]);

/** Why a unit's attempt ended: its code, its message and how many attempts came before it (the declared JobError). */
export type JobError = JobErrorItem;

/**
 * One attempt of one step, as the decisions see it: the declared Step's values (entities.ts), less
 * what its stored row adds (its key, its job's id and kind, the index flag derived at each write).
 */
export type StepState = Omit<
  EntityItem<'Step'>,
  'PK' | 'SK' | 'entityType' | 'expiresAt' | 'searchSlots' | 'quotaCounted' | 'jobId' | 'kind' | 'current' | 'updatedAt'
> & { updatedAt?: string };

/**
 * What a command does to the unit it names, with its arguments: one list for a step's attempt and a
 * work item alike. `leaseUntil` is when the worker's hold runs out unless it reports again (start,
 * claim and progress take or renew it); `attempt`, when a worker names it, must be the unit's
 * current attempt (a worker whose lease was taken over is refused).
 */
export type JobAction =
  | { kind: 'start'; leaseUntil?: string }
  /** With `pooled`, the attempt is a pool worker's: it counts in its tenant's pool load while it runs. */
  | { kind: 'claim'; leaseUntil?: string; pooled?: boolean }
  | {
      kind: 'progress';
      progress: number;
      attempt?: number | null;
      leaseUntil?: string;
      /** What was measured (a step's). */
      metrics?: Record<string, unknown> | null;
      /** Where the work stands (an item's), kept so that a later attempt resumes from it. */
      checkpoint?: Record<string, unknown>;
    }
  | {
      kind: 'complete';
      attempt?: number | null;
      /** What the unit produced, checked against its stage's declared outputs. */
      outputs?: Record<string, unknown> | null;
      artifacts?: string[];
      metrics?: Record<string, unknown> | null;
      /** The stage pauses for review when it completes (declared kinds, see job.kinds.ts). */
      review?: boolean;
    }
  | { kind: 'fail'; attempt?: number | null; code: string; message: string }
  | { kind: 'pause'; attempt?: number | null }
  /** The worker releases the attempt it holds, unfinished: a new attempt waits, claimable at once and not counted. */
  | { kind: 'handBack'; attempt?: number | null }
  | { kind: 'approve' }
  | { kind: 'reject'; reason: string }
  | { kind: 'cancel' }
  /** A failed job (no unit) or a failed item runs again; with `errorCode`, only an item whose last error has that code. */
  | { kind: 'retry'; errorCode?: string };

/**
 * A command on a job: what it does, and the unit it names (none for the job's own commands, cancel
 * and retry): a step's current attempt is sequence 0 of its stage, a work item its sequence (from 1).
 */
export interface JobCommand {
  unit?: { stage: string; sequence: number };
  action: JobAction;
}

/** The command `action` on step `stage` (its current attempt, sequence 0). */
export const onStep = (stage: string, action: JobAction): JobCommand => ({ unit: { stage, sequence: 0 }, action });

/** The planned steps in order, and each step's first attempt, for a new job. */
export function initialSteps(plan: EntityItem<'Job'>['plan']): StepState[] {
  return plan.map(({ name, order }) => ({ name, order, attempt: 1, status: StepStatus.PENDING, progress: 0 }));
}

/** Where a command may run (`job`, `step`) and where it moves the job and the step it names. */
interface CommandDeclaration {
  job: readonly JobStatus[];
  /** Named in INVALID_TRANSITION; a completion may finish the job instead. */
  to: JobStatus;
  /** The statuses of the named step's current attempt it is accepted in (a claim decides by the lease). */
  step?: readonly StepStatus[];
  stepTo?: StepStatus;
  /** The mutation a client sends it with, named in the hints of INVALID_TRANSITION (commandsHint). */
  field: string;
}

/**
 * The commands on a job and its steps, declared as data; decide refuses a command outside them
 * with INVALID_TRANSITION and does the rest of its effect. test/unit/job-machine.test.ts holds every
 * move here to the machines declared with the entities, and every write is held to them at commit.
 */
const J = JobStatus;
const S = StepStatus;
export const JOB_COMMANDS: Record<JobAction['kind'], CommandDeclaration> = {
  start: { field: 'startStep', job: [J.QUEUED, J.RUNNING], to: J.RUNNING, step: [S.PENDING], stepTo: S.RUNNING },
  claim: { field: 'claimWork', job: [J.QUEUED, J.RUNNING], to: J.RUNNING, stepTo: S.RUNNING },
  progress: { field: 'reportStepProgress', job: [J.RUNNING], to: J.RUNNING, step: [S.RUNNING], stepTo: S.RUNNING },
  complete: { field: 'completeStep', job: [J.RUNNING], to: J.RUNNING, step: [S.RUNNING], stepTo: S.COMPLETED },
  fail: { field: 'failStep', job: [J.RUNNING], to: J.RUNNING, step: [S.RUNNING], stepTo: S.FAILED },
  pause: { field: 'pauseStepForReview', job: [J.RUNNING], to: J.PAUSED, step: [S.RUNNING], stepTo: S.PAUSED },
  handBack: { field: 'handBackStep', job: [J.RUNNING], to: J.RUNNING, step: [S.RUNNING], stepTo: S.HANDED_BACK },
  approve: { field: 'approveStep', job: [J.PAUSED], to: J.RUNNING, step: [S.PAUSED], stepTo: S.COMPLETED },
  reject: { field: 'rejectStep', job: [J.PAUSED], to: J.FAILED, step: [S.PAUSED], stepTo: S.FAILED },
  cancel: { field: 'cancelJob', job: [J.QUEUED, J.RUNNING, J.PAUSED], to: J.CANCELLED },
  retry: { field: 'retryJob', job: [J.FAILED], to: J.RUNNING },
};

/** The mutations accepting a job in `status` or a step attempt in `step`, for INVALID_TRANSITION's hint (so it never drifts). */
export function commandsHint(status: JobStatus, step?: StepStatus): string {
  const accepting = Object.values(JOB_COMMANDS).filter((c) => (step === undefined ? c.job.includes(status) : c.step?.includes(step)));
  const what = step === undefined ? `A job ${status}` : `A step attempt ${step}`;
  if (accepting.length === 0) return `${what} accepts nothing more.`;
  return `${what} accepts ${accepting.map((c) => c.field).join(', ')}.`;
}
