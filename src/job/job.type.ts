import { Node } from '../common/node.type';
import { ArgsType, Field, Float, ID, InputType, Int, ObjectType, registerEnumType } from 'type-graphql';
import { Connection, ForwardPageArgs, PageArgs } from '../common/pagination';
import { DateTime, JSONObject, JSONValue } from '../common/scalars';
import { Versioned } from '../common/versioned.type';
import { JobEventType, JobStatus, StepStatus } from './job.machine';
import { ItemStatus } from './job.machine';
import { entities } from '../common/entities';
import { registerEnumOf } from '../common/model-types';

// The statuses and their transitions come from the declared machines (src/common/entities.ts).
registerEnumOf(entities.Job, 'status', JobStatus, 'JobStatus');
registerEnumOf(entities.Step, 'status', StepStatus, 'StepStatus');
registerEnumType(JobEventType, {
  name: 'JobEventType',
  description: 'What a jobProgress or jobStatusChanges message says happened.',
  valuesConfig: {
    JOB_CREATED: { description: 'The job was created, QUEUED with its plan.' },
    STEP_STARTED: { description: 'A worker started a step attempt; the job is RUNNING.' },
    STEP_PROGRESS: { description: "A worker reported a step's progress (and metrics)." },
    STEP_COMPLETED: { description: 'A step attempt completed with its artifacts; the next step waits, or the job COMPLETED.' },
    STEP_FAILED: { description: "A step attempt failed; another attempt waits, or the job FAILED (see the job's error)." },
    STEP_PAUSED: { description: "A step paused for a person's review; the job is PAUSED until approveStep or rejectStep." },
    STEP_APPROVED: { description: 'A person approved the paused step; it completed.' },
    STEP_REJECTED: { description: 'A person rejected the paused step; the job FAILED.' },
    JOB_CANCELLED: { description: 'The job was cancelled; its waiting steps were SKIPPED.' },
    JOB_RETRIED: { description: 'A FAILED job runs again, with a new attempt of the failed step.' },
    STEP_RECLAIMED: {
      description:
        "A worker claimed a step whose holder stopped reporting: the old attempt failed with LEASE_EXPIRED; the event's step is the new attempt.",
    },
    ITEMS_ADDED: { description: "Work items were added to a fan-out stage (the job's itemCounts say how many)." },
    ITEM_STARTED: { description: 'A worker claimed a work item; the event’s item is its attempt.' },
    ITEM_PROGRESS: { description: "A worker reported a work item's progress." },
    ITEM_COMPLETED: { description: 'A work item completed with its outputs; the stage completes when every item is done.' },
    ITEM_FAILED: { description: 'A work item failed past its attempts; the stage fails by its policy.' },
    ITEM_ATTEMPT_FAILED: {
      description:
        "A work item's attempt failed with attempts left (its worker failed it, or, in a stage with a retry backoff, its lease or its time ran out): the item is PENDING for its next attempt, claimable from its availableAt (the event's item; its error says why). Not counted as failed.",
    },
    ITEM_RECLAIMED: {
      description:
        "A work item's holder stopped reporting past its lease (error LEASE_EXPIRED) or its attempt's time ran out (ATTEMPT_TIMED_OUT): in a stage without a retry backoff, the claimer took it over at once as a new attempt.",
    },
    ITEM_RETRIED: {
      description:
        'A failed work item was reopened as a new attempt (retryWorkItem, replayDeadLetters), and its stage with it when it had failed.',
    },
    ITEMS_REUSED: {
      description:
        "Work items just added completed at once from the stored outputs of the tenant's completed items with the same content key (a stage declared reusable, see jobKinds); `reused` names each item and its source. No worker sees them.",
    },
    STEP_REUSED: {
      description:
        "The job's current step completed at once from the stored outputs of the tenant's completed step with the same content key (a stage declared reusable, see jobKinds); `reused` names the source. No worker sees it.",
    },
    RESYNC: { description: 'Not stored: this slow subscriber missed events; resubscribe after this position.' },
    SUBSCRIBED: { description: 'Not stored: the first message of every subscription; its position is where it starts.' },
    HISTORY_LOST: {
      description:
        'Not stored: the resume position is older than the stored history; nothing is replayed: re-query, then read on from here.',
    },
  },
});
registerEnumType(ItemStatus, {
  name: 'WorkItemStatus',
  description: `A work item's status: ${entities.WorkItem.describeTransitions()}.`,
  valuesConfig: {
    PENDING: { description: 'Waiting for a worker to claim it (again, after a failed or expired attempt).' },
    RUNNING: { description: 'Held by a worker under a lease that its progress reports renew.' },
    COMPLETED: { description: 'Done, with its outputs (final).' },
    FAILED: { description: 'Failed past its attempts; retryWorkItem reopens it.' },
    CANCELLED: { description: 'Its job was cancelled before it finished (final).' },
  },
});

@ObjectType({ simpleResolvers: true, description: 'Why a job or step failed: a stable code, a message and how many attempts were made.' })
export class JobError {
  @Field({ description: 'A stable code, such as LEASE_EXPIRED or the one a worker reported.' })
  code!: string;

  @Field({ description: 'What went wrong, in words.' })
  message!: string;

  @Field(() => Int, { description: 'Retries made before this error.' })
  retryCount!: number;
}

@ObjectType({
  simpleResolvers: true,
  description: 'The completed step or work item whose stored outputs were reused (a stage declared reusable, see jobKinds).',
})
export class ReuseSource {
  @Field(() => ID, { description: 'The job that ran it.' })
  jobId!: string;

  @Field({ description: 'Its stage.' })
  stage!: string;

  @Field(() => Int, { nullable: true, description: "The item's sequence; null for a step." })
  sequence?: number;

  @Field(() => DateTime, { description: 'When it completed (its outputs are reusable for the stage’s declared hours from then).' })
  completedAt!: string;
}

@ObjectType({ simpleResolvers: true, description: 'A step or work item that completed from stored outputs, and where they came from.' })
export class ReusedWork {
  @Field({ description: 'The stage of the step or item that completed.' })
  stage!: string;

  @Field(() => Int, { nullable: true, description: "The item's sequence; null for a step." })
  sequence?: number;

  @Field(() => ReuseSource, { description: 'Whose outputs it took.' })
  from!: ReuseSource;
}

@ObjectType({ simpleResolvers: true, description: "One step of a job's plan, in the order the steps run." })
export class PlannedStep {
  @Field({ description: "The step's name." })
  name!: string;

  @Field(() => Int, { description: 'Its place in the plan, from 1.' })
  order!: number;
}

@ObjectType({
  simpleResolvers: true,
  implements: Node,
  description: 'One attempt of one pipeline step. A retry is a new attempt; earlier ones stay readable.',
})
export class Step {
  @Field(() => ID, { description: 'The job it belongs to.' })
  jobId!: string;

  @Field({ description: "The step's name, as in the job's plan." })
  name!: string;

  @Field(() => Int, { description: "Its place in the job's plan, from 1." })
  order!: number;

  @Field(() => Int, { description: 'Which attempt of the step this is, from 1.' })
  attempt!: number;

  @Field(() => StepStatus, { description: 'Where this attempt is: see StepStatus for the transitions.' })
  status!: StepStatus;

  @Field(() => Float, { description: 'From 0 to 1, as the worker reports it.' })
  progress!: number;

  @Field(() => [String], { description: 'S3 object keys of what the step produced.' })
  artifacts!: string[];

  @Field(() => JSONObject, { nullable: true, description: 'What the worker measured (GPU seconds …), as JSON.' })
  metrics?: Record<string, unknown>;

  @Field(() => JSONObject, { nullable: true, description: "What the step produced, as its stage's declared outputs (see jobKinds)." })
  outputs?: Record<string, unknown>;

  @Field(() => JobError, { nullable: true, description: 'Why this attempt failed; null unless it FAILED.' })
  error?: JobError;

  @Field(() => String, { nullable: true, description: 'The worker that started or claimed this attempt.' })
  worker?: string;

  @Field(() => DateTime, {
    nullable: true,
    description: 'Until when the worker holds this attempt without reporting; after it, claimWork hands the step to another worker.',
  })
  leaseExpiresAt?: string;

  @Field(() => DateTime, {
    nullable: true,
    description:
      "When this running attempt's time is up (its stage's attemptTimeoutSeconds after it started), whatever its progress reports renew; null without an attempt timeout.",
  })
  timesOutAt?: string;

  @Field(() => DateTime, {
    nullable: true,
    description: "When this waiting attempt may start: after its stage's retry backoff; null when it may start at once.",
  })
  waitsUntil?: string;

  @Field(() => ID, { nullable: true, description: 'Who approved or rejected the step after review.' })
  approvedBy?: string;

  @Field(() => DateTime, { nullable: true, description: 'When a person approved or rejected it.' })
  decidedAt?: string;

  @Field(() => DateTime, { nullable: true, description: 'When this attempt started.' })
  startedAt?: string;

  @Field(() => DateTime, { nullable: true, description: 'When this attempt completed or failed.' })
  finishedAt?: string;

  @Field(() => ReuseSource, {
    nullable: true,
    description: 'Set when this attempt took the stored outputs of a completed step instead of running.',
  })
  reusedFrom?: ReuseSource;
}

@ObjectType({
  simpleResolvers: true,
  implements: Node,
  description: 'A pipeline job: ordered steps, status, progress and its own event stream.',
})
export class Job extends Versioned {
  @Field(() => ID, { description: "The job's id (job_…)." })
  jobId!: string;

  @Field(() => ID, { description: 'The project it works for.' })
  projectId!: string;

  @Field(() => Int, { nullable: true, description: 'From 0 (lowest) to 9 (highest); null: the default, 5.' })
  priority?: number;

  @Field({ description: 'Free text, e.g. 3D_CHARACTER, MUSIC_VIDEO, PHOTO_EDIT.' })
  kind!: string;

  @Field(() => [PlannedStep], { description: 'Its steps in order.' })
  plan!: PlannedStep[];

  @Field(() => JobStatus, { description: 'Where the job is: see JobStatus for the transitions.' })
  status!: JobStatus;

  @Field(() => String, { nullable: true, description: 'The step running or waiting now; null once the job has finished.' })
  currentStep?: string | null;

  @Field(() => Float, { description: '0 to 1.' })
  progress!: number;

  @Field(() => Int, { description: 'How many steps have completed.' })
  completedSteps!: number;

  @Field(() => Int, { description: 'How many step attempts have failed.' })
  failedSteps!: number;

  @Field(() => Int, { description: 'How many attempts each step gets before the job fails.' })
  maxAttempts!: number;

  @Field(() => JSONValue, { nullable: true, description: 'The inputs it was created with.' })
  inputs?: unknown;

  @Field(() => String, { nullable: true, description: 'Who runs the pipeline, as given to createJob.' })
  provider?: string;

  @Field(() => String, { nullable: true, description: 'Your own id for the run, as given to createJob.' })
  correlationId?: string;

  @Field(() => String, { nullable: true, description: 'The seed the run uses, as given to createJob.' })
  seed?: string;

  @Field(() => String, { nullable: true, description: 'The model version the run uses, as given to createJob.' })
  modelVersion?: string;

  /** False when it asked not to reuse stored outputs (see JobResolver.reuse). */
  reuse?: boolean;

  @Field(() => JobError, { nullable: true, description: 'Why the job failed; null unless it is FAILED.' })
  error?: JobError | null;

  @Field(() => String, { description: 'Who created it.' })
  createdBy!: string;

  @Field(() => DateTime, { nullable: true, description: 'When its first step started.' })
  startedAt?: string | null;

  @Field(() => DateTime, { nullable: true, description: 'When it COMPLETED, FAILED or was CANCELLED.' })
  finishedAt?: string | null;

  @Field(() => Int, { description: 'The seq of the latest event: subscribe to jobProgress with afterSeq set to it to miss nothing.' })
  seq!: number;

  /** Epoch seconds; set 90 days after the job finishes. */
  expiresAt?: number;

  /** The counters of each fan-out stage's items, by stage. */
  itemCounts?: Record<string, { total: number; running: number; completed: number; failed: number }>;

  /** True when its plan came from its declared kind. */
  declared?: boolean;

  /** The step attempts, when read with the job. */
  steps?: Step[];

  /**
   * Reads the step attempts from the partition the job was decided in, when they were not read
   * with it (a mutation's answer): the `steps` field calls it only when a client asks for them.
   */
  readSteps?: () => Promise<Step[]>;
}

@ObjectType({ simpleResolvers: true, description: 'A page of jobs, with the cursor to the next page.' })
export class JobConnection extends Connection(Job) {}

@ObjectType({ simpleResolvers: true, description: 'Exact counters of work items, kept in the transaction of every item change.' })
export class ItemCounts {
  @Field(() => String, { nullable: true, description: 'The fan-out stage counted; null for the totals over all stages.' })
  stage?: string | null;

  @Field(() => Int, { description: 'Items in all.' })
  total!: number;

  @Field(() => Int, { description: 'Waiting to be claimed (total − running − completed − failed).' })
  pending!: number;

  @Field(() => Int, { description: 'Held by a worker now.' })
  running!: number;

  @Field(() => Int, { description: 'Completed with their outputs.' })
  completed!: number;

  @Field(() => Int, { description: 'Failed past their attempts.' })
  failed!: number;
}

@ObjectType({
  simpleResolvers: true,
  description:
    'One work item of a fan-out stage: typed inputs (see jobKinds), outputs, status, current attempt, lease and error. Items run in parallel on any number of workers.',
})
export class WorkItem {
  @Field(() => ID, { description: 'The job it belongs to.' })
  jobId!: string;

  @Field({ description: 'The fan-out stage it belongs to (a stage name of the job kind).' })
  stage!: string;

  @Field(() => Int, { description: 'Its place in the stage, from 1.' })
  sequence!: number;

  @Field(() => ItemStatus, { description: 'Where it stands: PENDING, RUNNING, COMPLETED, FAILED or CANCELLED.' })
  status!: ItemStatus;

  @Field(() => Int, { description: 'The current attempt, from 1; report on the item with it.' })
  attempt!: number;

  @Field(() => Int, { description: 'The last attempt it may make before it fails.' })
  maxAttempt!: number;

  @Field(() => Float, { description: 'Its current attempt’s progress, 0 to 1.' })
  progress!: number;

  @Field(() => JSONObject, { description: "Its typed inputs (the stage's item inputs, see jobKinds)." })
  inputs!: Record<string, unknown>;

  @Field(() => JSONObject, { nullable: true, description: "What it produced, as the stage's item outputs; null until it completes." })
  outputs?: Record<string, unknown>;

  @Field(() => JobError, { nullable: true, description: 'Why its last attempt failed (LEASE_EXPIRED when its worker stopped reporting).' })
  error?: JobError;

  @Field(() => String, { nullable: true, description: 'The worker that holds (or last held) it.' })
  worker?: string;

  @Field(() => DateTime, { nullable: true, description: 'Until when its worker holds it without reporting.' })
  leaseExpiresAt?: string;

  @Field(() => DateTime, { nullable: true, description: 'When its current attempt started.' })
  startedAt?: string;

  @Field(() => DateTime, { nullable: true, description: 'When it COMPLETED or FAILED for good.' })
  finishedAt?: string;

  @Field(() => DateTime, {
    nullable: true,
    description:
      "When its running attempt's time is up (the stage's attemptTimeoutSeconds after the claim), whatever its progress reports renew; null without an attempt timeout or while not running.",
  })
  timesOutAt?: string;
  @Field(() => ReuseSource, { nullable: true, description: 'Set when it took the stored outputs of a completed item instead of running.' })
  reusedFrom?: ReuseSource;

  @Field(() => Int, { description: 'Increments on every change of the item.' })
  version!: number;

  @Field(() => ID, {
    nullable: true,
    description: 'Its tenant: set on deadLettersAcrossTenants (admins); null elsewhere, where it is yours.',
  })
  tenantId?: string;

  /** When a waiting item may be claimed (WorkItemResolver.availableAt says it only for PENDING). */
  availableAt?: string;
  createdAt?: string;
}

@ObjectType({ simpleResolvers: true, description: "A page of a job's work items, with the cursors to read on." })
export class WorkItemConnection extends Connection(WorkItem) {}

@ObjectType({
  simpleResolvers: true,
  description:
    "A scene of a MUSIC_VIDEO job as seed 001 describes it: one item of its render-scenes stage, typed, with presigned URLs for its files. sceneId links it to the project's Scene when the item names one.",
})
export class JobScene {
  /** The job the scene belongs to: part of its id. */
  jobId!: string;

  @Field(() => Int, { description: 'The scene’s place in the video, from 1 (its item’s sequence).' })
  sequence!: number;

  @Field(() => ID, { nullable: true, description: "The project's Scene this item renders, when it names one." })
  sceneId?: string;

  @Field({ description: 'pending → processing → completed | failed' })
  status!: string;

  @Field(() => String, { nullable: true, description: 'What the scene shows.' })
  prompt?: string;

  @Field(() => String, { nullable: true, description: 'What the scene must not show.' })
  negativePrompt?: string;

  @Field(() => Float, { nullable: true, description: 'Its length in seconds.' })
  durationSeconds?: number;

  @Field(() => [String], { description: 'S3 keys of its reference images, in order.' })
  referenceImages!: string[];

  @Field(() => String, { nullable: true, description: 'S3 key of its slice of the backing track.' })
  audioClip?: string;

  @Field(() => String, { nullable: true, description: 'S3 key of the rendered clip, once completed.' })
  videoClip?: string;

  @Field({ description: 'True when the clip is lip-synced to the audio clip.' })
  needsLipSync!: boolean;

  @Field(() => String, { nullable: true, description: 'S3 key of the lip-synced clip, once completed (lip-synced scenes only).' })
  lipSyncedClip?: string;

  @Field(() => Int, { description: 'Attempts made before the current one.' })
  retryCount!: number;

  @Field(() => String, { nullable: true, description: 'Why its last attempt failed.' })
  errorMessage?: string;
}

@ObjectType({ simpleResolvers: true, description: 'A page of step attempts, with the cursor to the next page.' })
export class StepConnection extends Connection(Step) {}

@ObjectType({ simpleResolvers: true, description: 'One change of a job. seq is gapless per job: 1, 2, 3 …; prevSeq = seq − 1.' })
export class JobEvent {
  @Field(() => ID, { description: "The event's own id; resume by seq instead." })
  eventId!: string;

  @Field(() => ID, { description: 'The job it belongs to.' })
  jobId!: string;

  @Field(() => ID, { description: "The job's project." })
  projectId!: string;

  @Field(() => Int, { description: "The event's position in the job's stream (the job's version after it): resume with afterSeq." })
  seq!: number;

  @Field(() => Int, { description: 'seq − 1: the position just before this event.' })
  prevSeq!: number;

  @Field(() => JobEventType, { description: 'What happened.' })
  type!: JobEventType;

  @Field(() => ID, { description: 'Who caused it: a worker, a person, or the server.' })
  actor!: string;

  @Field(() => DateTime, { description: 'When it was committed.' })
  at!: string;

  @Field(() => Job, {
    nullable: true,
    description:
      'The job as this event left it, with its id, so a client cache updates the job it holds (null on SUBSCRIBED, HISTORY_LOST and RESYNC).',
  })
  job?: Job;

  @Field(() => Step, { nullable: true, description: 'The step attempt the event changed, with its id.' })
  step?: Step;

  @Field(() => WorkItem, { nullable: true, description: 'The work item the event changed (ITEM_* events), as the change left it.' })
  item?: WorkItem;

  @Field(() => [ReusedWork], {
    nullable: true,
    description: 'ITEMS_REUSED and STEP_REUSED: what completed from stored outputs, and whose outputs each took.',
  })
  reused?: ReusedWork[];

  @Field(() => Int, {
    description:
      'Where this message stands in the stream that delivered it: the seq in jobProgress, the stream’s own position (1, 2, 3 … in commit order, without gaps) in jobStatusChanges. Resubscribe with afterSeq (jobProgress) or after (jobStatusChanges) set to the position of the last message you received, of any type, to get every event you have not seen.',
  })
  position!: number;

  @Field(() => Int, { nullable: true, description: 'RESYNC only: resubscribe with afterSeq set to this (the same as position).' })
  resumeAfterSeq?: number | null;
}

@InputType({ description: 'A pipeline run: its project, kind, inputs and (for a free-form plan) steps; idempotent.' })
export class CreateJobInput {
  @Field(() => ID, { description: 'The project the job works for.' })
  projectId!: string;

  @Field({ description: 'The pipeline: a declared kind (3D_CHARACTER, MUSIC_VIDEO, PHOTO_EDIT; see jobKinds) or free text with steps.' })
  kind!: string;

  @Field(() => [String], {
    nullable: true,
    description:
      'The ordered step names, e.g. ["text-to-image", "refine", "3d", "retopo", "rig", "anim", "export"]. A declared kind (see jobKinds) has its own stages: omit them.',
  })
  steps?: string[] | null;

  @Field(() => JSONValue, {
    nullable: true,
    description: "The pipeline's inputs: checked against the kind's declared fields when it is declared (see jobKinds).",
  })
  inputs?: unknown;

  @Field(() => String, { nullable: true, description: 'Who runs the pipeline (a provider name), for your records.' })
  provider?: string | null;

  @Field(() => String, { nullable: true, description: 'Your own id for the run, echoed on the job (for tracing across your systems).' })
  correlationId?: string | null;

  @Field(() => String, { nullable: true, description: 'Seed and model version take part in the derived idempotency key.' })
  seed?: string | null;

  @Field(() => String, { nullable: true, description: 'The model version the run uses; part of the derived idempotency key.' })
  modelVersion?: string | null;

  @Field(() => Int, {
    nullable: true,
    description: 'From 0 (lowest) to 9 (highest), default 5: a shared worker pool hands out your higher-priority jobs’ work first.',
  })
  priority?: number | null;
  @Field(() => Boolean, {
    nullable: true,
    description:
      'False: run every step and item, even those whose stage is declared reusable and whose stored outputs match (see jobKinds); its own completions are still recorded. Default true. A job that asks not to reuse does not get an earlier job with the same derived idempotency key back either.',
  })
  reuse?: boolean | null;

  @Field(() => String, {
    nullable: true,
    description:
      'Retries with the same key and the same arguments within 48 hours return the first job; the key with other arguments is refused with IDEMPOTENCY_KEY_REUSED. Derived from project, kind, inputs, seed and model version when omitted.',
  })
  idempotencyKey?: string | null;

  @Field(() => Int, { nullable: true, description: 'Attempts per step before the job fails (default 3).' })
  maxAttempts?: number | null;

  @Field(() => [JSONObject], {
    nullable: true,
    description:
      "Work items of the kind's first fan-out stage, each its typed inputs (see jobKinds); at most 50 here, more with addWorkItems.",
  })
  items?: Record<string, unknown>[] | null;
}

@ArgsType()
export class StepRef {
  @Field(() => ID, { description: "The job's id." })
  jobId!: string;

  @Field({ description: "The step's name, as in the job's plan." })
  stepName!: string;
}

/** A worker's report on a step it holds: the step, the attempt it holds, and a pool worker's lease on it. */
@ArgsType()
export class HeldStepRef extends StepRef {
  @Field(() => Int, {
    nullable: true,
    description: 'The attempt you hold (see claimWork): a report for an attempt that is over is refused.',
  })
  attempt?: number | null;

  @Field(() => String, { nullable: true, description: 'A pool worker: the lease claimWork handed it for this step.' })
  lease?: string | null;
}

@ArgsType()
export class ProjectJobsArgs extends PageArgs {
  @Field(() => ID, { description: "The project's id." })
  projectId!: string;
}

@ArgsType()
export class JobsByStatusArgs extends PageArgs {
  @Field(() => JobStatus, { description: 'The status to list.' })
  status!: JobStatus;

  @Field(() => Boolean, {
    nullable: true,
    description: 'True to list the server’s own jobs (migrations, archiving: the system partition): admins only, FORBIDDEN otherwise.',
  })
  system?: boolean | null;
}

/** Across tenants the list is merged from the shards of an index, so it pages forward only. */
@ArgsType()
export class JobsAcrossTenantsArgs extends ForwardPageArgs {
  @Field(() => JobStatus, { description: 'The status to list.' })
  status!: JobStatus;
}

/**
 * True for a job event as stored and published (a job's own stream or a job status stream): what
 * the live streams check every payload and every stored item against before they send it.
 */
export function isJobEvent(value: unknown): value is JobEvent {
  return (
    typeof value === 'object' &&
    value !== null &&
    'jobId' in value &&
    'seq' in value &&
    typeof value.seq === 'number' &&
    'type' in value &&
    typeof value.type === 'string'
  );
}

@ObjectType({ simpleResolvers: true, description: 'A field of a declared input or output.' })
export class JobField {
  @Field({ description: "The field's name in inputs or outputs." })
  name!: string;

  @Field({ description: 'string, int, float, boolean, date, dateTime, json, strings or enum.' })
  type!: string;

  @Field({ description: 'True when it must be given.' })
  required!: boolean;

  @Field({ description: 'True when the value is an S3 object key, which must lie under your tenant prefix (tenants/<tenantId>/).' })
  s3Key!: boolean;

  @Field(() => String, { nullable: true, description: 'What the field holds.' })
  description?: string;
}

@ObjectType({ simpleResolvers: true, description: 'One stage of a declared pipeline: a step of its jobs.' })
export class JobStage {
  @Field({ description: 'The step name that startStep and completeStep take.' })
  name!: string;

  @Field({ description: 'What a client shows while the stage runs (Job.phase).' })
  phase!: string;

  @Field({ description: 'Completing it pauses it for review; approveStep completes it.' })
  review!: boolean;

  @Field(() => [JobField], { description: "The fields completeStep's outputs must give." })
  outputs!: JobField[];

  @Field(() => FanOutStage, { nullable: true, description: 'Set for a fan-out stage: its work items instead of one step.' })
  fanOut?: FanOutStage | null;

  @Field(() => String, {
    nullable: true,
    description: 'Completing the stage creates an asset of this type in the job’s project (its file is the output assetFile names).',
  })
  assetType?: string | null;

  @Field(() => String, { nullable: true, description: 'The S3-key output that becomes the asset’s file (with assetType).' })
  assetFile?: string | null;

  @Field(() => Int, {
    nullable: true,
    description:
      'Set when its work is reusable: a step (or, for a fan-out stage, an item) whose key fields, seed and model version match a completed one of your tenant within this many hours completes at once from its outputs.',
  })
  reuseTtlHours?: number | null;

  @Field(() => [String], {
    nullable: true,
    description:
      "The input fields whose values make a reusable stage's key (the job's for a step, each item's for a fan-out stage); null: all of them.",
  })
  reuseKeyFields?: string[] | null;

  @Field(() => Int, {
    nullable: true,
    description: "A single-step stage's attempt timeout in seconds (a fan-out stage's is its fanOut's); null: none.",
  })
  attemptTimeoutSeconds?: number | null;

  @Field(() => RetryBackoff, {
    nullable: true,
    description:
      "A single-step stage's retry backoff (a fan-out stage's is its fanOut's); null: a failed attempt's successor may start at once.",
  })
  retryBackoff?: RetryBackoff | null;
}

@ObjectType({ simpleResolvers: true, description: 'The work items of a fan-out stage: their fields, attempts and failure policy.' })
export class FanOutStage {
  @Field(() => [JobField], { description: 'The fields of each item’s inputs.' })
  itemInputs!: JobField[];

  @Field(() => [JobField], { description: "The fields completeWorkItem's outputs must give." })
  itemOutputs!: JobField[];

  @Field(() => Int, { nullable: true, description: "Attempts per item (default: the job's maxAttempts)." })
  attempts?: number | null;

  @Field(() => Int, { nullable: true, description: 'The stage fails when more than this many items fail.' })
  maxFailed?: number | null;

  @Field(() => Float, { nullable: true, description: 'The stage fails when more than this share (percent) of its items fail.' })
  maxFailedPercent?: number | null;

  @Field({ description: 'True when the first failed item fails the stage (no maxFailed nor maxFailedPercent).' })
  strict!: boolean;

  @Field(() => Float, {
    nullable: true,
    description:
      'Seconds one attempt of an item may run, whatever its progress reports renew; past it the next claim takes the item over (ATTEMPT_TIMED_OUT). Null: only the lease limits an attempt.',
  })
  attemptTimeoutSeconds?: number | null;

  @Field(() => RetryBackoff, {
    nullable: true,
    description: 'How long a failed attempt waits before its item is claimable again; null: at once.',
  })
  retryBackoff?: RetryBackoff | null;
}

@ObjectType({
  simpleResolvers: true,
  description:
    'A retry backoff: after attempt n fails, the item waits min(maxSeconds, initialSeconds × factor^(n−1)) seconds, less up to `jitter` of that (a share fixed by the job, stage, sequence and attempt).',
})
export class RetryBackoff {
  @Field(() => Float, { description: 'The wait after the first failed attempt (before jitter).' })
  initialSeconds!: number;

  @Field(() => Float, { description: 'Each further failed attempt waits this many times longer.' })
  factor!: number;

  @Field(() => Float, { description: 'The longest wait (before jitter).' })
  maxSeconds!: number;

  @Field(() => Float, { description: 'The largest share (0 to 1) taken off a wait, so items that failed together come back spread out.' })
  jitter!: number;
}

@ObjectType({
  simpleResolvers: true,
  description: 'A pipeline the server knows: createJob with this kind takes its stages and checks its inputs.',
})
export class JobKind {
  @Field({ description: 'The kind to pass to createJob.' })
  name!: string;

  @Field({ description: 'What the pipeline makes.' })
  description!: string;

  @Field(() => [JobField], { description: "The fields of createJob's inputs." })
  inputs!: JobField[];

  @Field(() => [JobStage], { description: 'Its stages, in order.' })
  stages!: JobStage[];
}

@ObjectType({
  simpleResolvers: true,
  description:
    'Work claimed by a worker: a step, or a work item of a fan-out stage (then step is the stage). Report on it with its attempt.',
})
export class ClaimedWork {
  @Field(() => Job, { description: 'The job the step belongs to, as the claim left it.' })
  job!: Job;

  @Field(() => Step, {
    description:
      'The attempt you now hold (its leaseExpiresAt says until when without a report), or the fan-out stage of the item you hold.',
  })
  step!: Step;

  @Field(() => WorkItem, { nullable: true, description: 'The work item you now hold, with its attempt; null when you hold a step.' })
  item?: WorkItem | null;

  @Field(() => ID, { description: 'The tenant whose work this is (a pool worker serves many; a tenant-bound worker, its own).' })
  tenantId!: string;

  @Field(() => String, {
    nullable: true,
    description:
      'Pool workers only: the lease on this item. Pass it unchanged with every report on it (reportWorkItemProgress, completeWorkItem, failWorkItem); it is the only thing that lets a pool worker touch the tenant’s data. Null for a tenant-bound worker.',
  })
  lease?: string | null;
}

@ArgsType()
export class WorkItemRef {
  @Field(() => ID, { description: 'The job of the item.' })
  jobId!: string;

  @Field({ description: 'The fan-out stage of the item.' })
  stage!: string;

  @Field(() => Int, { description: 'The item’s sequence in its stage.' })
  sequence!: number;

  @Field(() => Int, { description: 'The attempt you hold (see claimWork): a report for an attempt that is over is refused.' })
  attempt!: number;

  @Field(() => String, {
    nullable: true,
    description:
      'Pool workers: the lease claimWork handed out with this item, unchanged (required for them; ignored for tenant-bound workers).',
  })
  lease?: string | null;
}

@ArgsType()
export class DeadLettersArgs extends PageArgs {
  @Field({ description: 'The declared job kind.' })
  kind!: string;

  @Field({ description: 'Its fan-out stage.' })
  stage!: string;

  @Field(() => String, {
    nullable: true,
    description: 'Only items whose last error has this code (e.g. ATTEMPT_TIMED_OUT); newest first then.',
  })
  errorCode?: string | null;
}

@ArgsType()
export class DeadLettersAcrossTenantsArgs extends ForwardPageArgs {
  @Field({ description: 'The declared job kind.' })
  kind!: string;

  @Field({ description: 'Its fan-out stage.' })
  stage!: string;

  @Field(() => String, { nullable: true, description: 'Only items whose last error has this code; newest first then.' })
  errorCode?: string | null;
}

@InputType({ description: 'Which dead letters (work items FAILED past their attempts) replayDeadLetters reopens.' })
export class DeadLetterFilter {
  @Field({ description: 'The declared job kind.' })
  kind!: string;

  @Field(() => String, { nullable: true, description: 'Only this fan-out stage of it; every fan-out stage of the kind when omitted.' })
  stage?: string | null;

  @Field(() => String, { nullable: true, description: 'Only items whose last error has this code.' })
  errorCode?: string | null;

  @Field(() => ID, { nullable: true, description: 'Only items of this job.' })
  jobId?: string | null;
}

@ObjectType({ simpleResolvers: true, description: 'What one replayDeadLetters call did.' })
export class DeadLetterReplay {
  @Field(() => Int, { description: 'Dead letters reopened as new attempts (each with its ITEM_RETRIED event).' })
  reopened!: number;

  @Field(() => Int, {
    description:
      'Matching dead letters left as they are: their job moved on past the stage, completed, was cancelled or deleted, or another call reopened them first.',
  })
  skipped!: number;

  @Field({ description: 'True when this call stopped at its bound (max, or the rows one call reads): call again with `after: cursor`.' })
  remaining!: boolean;

  @Field(() => String, { nullable: true, description: 'Where the next call goes on (its `after`); null when nothing remains.' })
  cursor?: string | null;
}

@ArgsType()
export class JobItemsArgs extends PageArgs {
  @Field(() => String, { nullable: true, description: 'Only this stage’s items.' })
  stage?: string | null;
}

@ObjectType({ simpleResolvers: true, description: "A tenant's share of the shared worker pools (setPoolShare)." })
export class PoolShare {
  @Field(() => ID, { description: 'The tenant.' })
  tenantId!: string;

  @Field(() => Int, { description: 'Its weight among the tenants with pooled work: claims are handed out in proportion (1 by default).' })
  weight!: number;

  @Field(() => Int, {
    nullable: true,
    description: 'The most of its items that may be running through pools at once (checked in every claim’s transaction); null: no limit.',
  })
  maxRunning?: number | null;
}
