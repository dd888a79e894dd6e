import { Node } from '../common/node.type';
import { ArgsType, Field, Float, ID, InputType, Int, ObjectType, registerEnumType } from 'type-graphql';
import { Connection, ForwardPageArgs, PageArgs } from '../common/pagination';
import { DateTime, JSONObject, JSONValue } from '../common/scalars';
import { Versioned } from '../common/versioned.type';
import { JobEventType, JobStatus, StepStatus } from './job.machine';
import { ItemStatus } from './job.items';
import { entities } from '../common/entities';

registerEnumType(JobStatus, {
  name: 'JobStatus',
  description: 'QUEUED → RUNNING ⇄ PAUSED → COMPLETED | FAILED | CANCELLED; FAILED → RUNNING on retry.',
});
registerEnumType(StepStatus, {
  name: 'StepStatus',
  description: 'PENDING → RUNNING → COMPLETED | FAILED | PAUSED (awaiting review); PENDING → SKIPPED on cancel.',
});
registerEnumType(JobEventType, { name: 'JobEventType' });
registerEnumType(ItemStatus, {
  name: 'WorkItemStatus',
  description: `A work item's status: ${entities.WorkItem.describeTransitions()}.`,
});

@ObjectType({ simpleResolvers: true })
export class JobError {
  @Field()
  code!: string;

  @Field()
  message!: string;

  @Field(() => Int, { description: 'Retries made before this error.' })
  retryCount!: number;
}

@ObjectType({ simpleResolvers: true })
export class PlannedStep {
  @Field()
  name!: string;

  @Field(() => Int)
  order!: number;
}

@ObjectType({
  simpleResolvers: true,
  implements: Node,
  description: 'One attempt of one pipeline step. A retry is a new attempt; earlier ones stay readable.',
})
export class Step {
  @Field(() => ID)
  jobId!: string;

  @Field()
  name!: string;

  @Field(() => Int)
  order!: number;

  @Field(() => Int)
  attempt!: number;

  @Field(() => StepStatus)
  status!: StepStatus;

  @Field(() => Float)
  progress!: number;

  @Field(() => [String], { description: 'S3 object keys of what the step produced.' })
  artifacts!: string[];

  @Field(() => JSONObject, { nullable: true })
  metrics?: Record<string, unknown>;

  @Field(() => JSONObject, { nullable: true, description: "What the step produced, as its stage's declared outputs (see jobKinds)." })
  outputs?: Record<string, unknown>;

  @Field(() => JobError, { nullable: true })
  error?: JobError;

  @Field(() => String, { nullable: true, description: 'The worker that started or claimed this attempt.' })
  worker?: string;

  @Field(() => DateTime, {
    nullable: true,
    description: 'Until when the worker holds this attempt without reporting; after it, claimWork hands the step to another worker.',
  })
  leaseExpiresAt?: string;

  @Field(() => ID, { nullable: true, description: 'Who approved or rejected the step after review.' })
  approvedBy?: string;

  @Field(() => DateTime, { nullable: true })
  decidedAt?: string;

  @Field(() => DateTime, { nullable: true })
  startedAt?: string;

  @Field(() => DateTime, { nullable: true })
  finishedAt?: string;
}

@ObjectType({
  simpleResolvers: true,
  implements: Node,
  description: 'A pipeline job: ordered steps, status, progress and its own event stream.',
})
export class Job extends Versioned {
  @Field(() => ID)
  jobId!: string;

  @Field(() => ID)
  projectId!: string;

  @Field({ description: 'Free text, e.g. 3D_CHARACTER, MUSIC_VIDEO, PHOTO_EDIT.' })
  kind!: string;

  @Field(() => [PlannedStep])
  plan!: PlannedStep[];

  @Field(() => JobStatus)
  status!: JobStatus;

  @Field(() => String, { nullable: true })
  currentStep?: string | null;

  @Field(() => Float, { description: '0 to 1.' })
  progress!: number;

  @Field(() => Int)
  completedSteps!: number;

  @Field(() => Int)
  failedSteps!: number;

  @Field(() => Int)
  maxAttempts!: number;

  @Field(() => JSONValue, { nullable: true })
  inputs?: unknown;

  @Field(() => String, { nullable: true })
  provider?: string;

  @Field(() => String, { nullable: true })
  correlationId?: string;

  @Field(() => JobError, { nullable: true })
  error?: JobError | null;

  @Field(() => String)
  createdBy!: string;

  @Field(() => DateTime, { nullable: true })
  startedAt?: string | null;

  @Field(() => DateTime, { nullable: true })
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
}

@ObjectType({ simpleResolvers: true })
export class JobConnection extends Connection(Job) {}

@ObjectType({ simpleResolvers: true, description: 'Exact counters of work items, kept in the transaction of every item change.' })
export class ItemCounts {
  @Field(() => String, { nullable: true, description: 'The fan-out stage counted; null for the totals over all stages.' })
  stage?: string | null;

  @Field(() => Int)
  total!: number;

  @Field(() => Int, { description: 'Waiting to be claimed (total − running − completed − failed).' })
  pending!: number;

  @Field(() => Int)
  running!: number;

  @Field(() => Int)
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
  @Field(() => ID)
  jobId!: string;

  @Field()
  stage!: string;

  @Field(() => Int, { description: 'Its place in the stage, from 1.' })
  sequence!: number;

  @Field(() => ItemStatus)
  status!: ItemStatus;

  @Field(() => Int, { description: 'The current attempt, from 1; report on the item with it.' })
  attempt!: number;

  @Field(() => Int, { description: 'The last attempt it may make before it fails.' })
  maxAttempt!: number;

  @Field(() => Float)
  progress!: number;

  @Field(() => JSONObject)
  inputs!: Record<string, unknown>;

  @Field(() => JSONObject, { nullable: true })
  outputs?: Record<string, unknown>;

  @Field(() => JobError, { nullable: true, description: 'Why its last attempt failed (LEASE_EXPIRED when its worker stopped reporting).' })
  error?: JobError;

  @Field(() => String, { nullable: true, description: 'The worker that holds (or last held) it.' })
  worker?: string;

  @Field(() => DateTime, { nullable: true, description: 'Until when its worker holds it without reporting.' })
  leaseExpiresAt?: string;

  @Field(() => DateTime, { nullable: true })
  startedAt?: string;

  @Field(() => DateTime, { nullable: true })
  finishedAt?: string;

  @Field(() => Int)
  version!: number;
}

@ObjectType({ simpleResolvers: true })
export class WorkItemConnection extends Connection(WorkItem) {}

@ObjectType({
  simpleResolvers: true,
  description:
    "A scene of a MUSIC_VIDEO job as seed 001 describes it: one item of its render-scenes stage, typed, with presigned URLs for its files. sceneId links it to the project's Scene when the item names one.",
})
export class JobScene {
  @Field(() => Int)
  sequence!: number;

  @Field(() => ID, { nullable: true })
  sceneId?: string;

  @Field({ description: 'pending → processing → completed | failed' })
  status!: string;

  @Field(() => String, { nullable: true })
  prompt?: string;

  @Field(() => String, { nullable: true })
  negativePrompt?: string;

  @Field(() => Float, { nullable: true })
  durationSeconds?: number;

  @Field(() => [String])
  referenceImages!: string[];

  @Field(() => String, { nullable: true })
  audioClip?: string;

  @Field(() => String, { nullable: true })
  videoClip?: string;

  @Field()
  needsLipSync!: boolean;

  @Field(() => String, { nullable: true })
  lipSyncedClip?: string;

  @Field(() => Int)
  retryCount!: number;

  @Field(() => String, { nullable: true })
  errorMessage?: string;
}

@ObjectType({ simpleResolvers: true })
export class StepConnection extends Connection(Step) {}

@ObjectType({ simpleResolvers: true, description: 'One change of a job. seq is gapless per job: 1, 2, 3 …; prevSeq = seq − 1.' })
export class JobEvent {
  @Field(() => ID)
  eventId!: string;

  @Field(() => ID)
  jobId!: string;

  @Field(() => ID)
  projectId!: string;

  @Field(() => Int)
  seq!: number;

  @Field(() => Int)
  prevSeq!: number;

  @Field(() => JobEventType)
  type!: JobEventType;

  @Field(() => ID)
  actor!: string;

  @Field(() => DateTime)
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

  @Field(() => Int, {
    description:
      'Where this message stands in the stream that delivered it: the seq in jobProgress, the stream’s own position (1, 2, 3 … in commit order, without gaps) in jobStatusChanges. Resubscribe with afterSeq (jobProgress) or after (jobStatusChanges) set to the position of the last message you received, of any type, to get every event you have not seen.',
  })
  position!: number;

  @Field(() => Int, { nullable: true, description: 'RESYNC only: resubscribe with afterSeq set to this (the same as position).' })
  resumeAfterSeq?: number | null;
}

@InputType()
export class CreateJobInput {
  @Field(() => ID)
  projectId!: string;

  @Field()
  kind!: string;

  @Field(() => [String], {
    nullable: true,
    description:
      'The ordered step names, e.g. ["text-to-image", "refine", "3d", "retopo", "rig", "anim", "export"]. A declared kind (see jobKinds) has its own stages: omit them.',
  })
  steps?: string[] | null;

  @Field(() => JSONValue, { nullable: true })
  inputs?: unknown;

  @Field(() => String, { nullable: true })
  provider?: string | null;

  @Field(() => String, { nullable: true })
  correlationId?: string | null;

  @Field(() => String, { nullable: true, description: 'Seed and model version take part in the derived idempotency key.' })
  seed?: string | null;

  @Field(() => String, { nullable: true })
  modelVersion?: string | null;

  @Field(() => String, {
    nullable: true,
    description:
      'Retries with the same key within 48 hours return the first job. Derived from project, kind, inputs, seed and model version when omitted.',
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
  @Field(() => ID)
  jobId!: string;

  @Field()
  stepName!: string;
}

@ArgsType()
export class ProjectJobsArgs extends PageArgs {
  @Field(() => ID)
  projectId!: string;
}

@ArgsType()
export class JobsByStatusArgs extends PageArgs {
  @Field(() => JobStatus)
  status!: JobStatus;
}

/** Across tenants the list is merged from the shards of an index, so it pages forward only. */
@ArgsType()
export class JobsAcrossTenantsArgs extends ForwardPageArgs {
  @Field(() => JobStatus)
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
  @Field()
  name!: string;

  @Field({ description: 'string, int, float, boolean, date, dateTime, json, strings or enum.' })
  type!: string;

  @Field()
  required!: boolean;

  @Field({ description: 'True when the value is an S3 object key, which must lie under your tenant prefix (tenants/<tenantId>/).' })
  s3Key!: boolean;

  @Field(() => String, { nullable: true })
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

  @Field(() => String, { nullable: true })
  assetFile?: string | null;
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
}

@ObjectType({
  simpleResolvers: true,
  description: 'A pipeline the server knows: createJob with this kind takes its stages and checks its inputs.',
})
export class JobKind {
  @Field()
  name!: string;

  @Field()
  description!: string;

  @Field(() => [JobField], { description: "The fields of createJob's inputs." })
  inputs!: JobField[];

  @Field(() => [JobStage])
  stages!: JobStage[];
}

@ObjectType({
  simpleResolvers: true,
  description:
    'Work claimed by a worker: a step, or a work item of a fan-out stage (then step is the stage). Report on it with its attempt.',
})
export class ClaimedWork {
  @Field(() => Job)
  job!: Job;

  @Field(() => Step, {
    description:
      'The attempt you now hold (its leaseExpiresAt says until when without a report), or the fan-out stage of the item you hold.',
  })
  step!: Step;

  @Field(() => WorkItem, { nullable: true, description: 'The work item you now hold, with its attempt; null when you hold a step.' })
  item?: WorkItem | null;
}

@ArgsType()
export class WorkItemRef {
  @Field(() => ID)
  jobId!: string;

  @Field()
  stage!: string;

  @Field(() => Int)
  sequence!: number;

  @Field(() => Int, { description: 'The attempt you hold (see claimWork): a report for an attempt that is over is refused.' })
  attempt!: number;
}

@ArgsType()
export class JobItemsArgs extends PageArgs {
  @Field(() => String, { nullable: true, description: 'Only this stage’s items.' })
  stage?: string | null;
}
