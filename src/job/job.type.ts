import { Node } from '../common/node.type';
import { ArgsType, Field, Float, ID, InputType, Int, ObjectType, registerEnumType } from 'type-graphql';
import { Connection, PageArgs } from '../common/pagination';
import { DateTime, JSONObject, JSONValue } from '../common/scalars';
import { Versioned } from '../common/versioned.type';
import { JobEventType, JobStatus, StepStatus } from './job.machine';

registerEnumType(JobStatus, {
  name: 'JobStatus',
  description: 'QUEUED → RUNNING ⇄ PAUSED → COMPLETED | FAILED | CANCELLED; FAILED → RUNNING on retry.',
  valuesConfig: {
    QUEUED: { description: 'Created; no step has started yet.' },
    RUNNING: { description: 'A step is running, or waits to be started or claimed.' },
    PAUSED: { description: 'A step waits for a person’s review (approveStep or rejectStep).' },
    COMPLETED: { description: 'Every step completed.' },
    FAILED: { description: 'A step failed with no attempts left, or was rejected; retryJob runs it again.' },
    CANCELLED: { description: 'Cancelled by a person; its waiting steps were skipped.' },
  },
});
registerEnumType(StepStatus, {
  name: 'StepStatus',
  description: 'PENDING → RUNNING → COMPLETED | FAILED | PAUSED (awaiting review); PENDING → SKIPPED on cancel.',
  valuesConfig: {
    PENDING: { description: 'Waiting to be started or claimed.' },
    RUNNING: { description: 'A worker holds it, under a lease its reports renew.' },
    PAUSED: { description: 'Waiting for a person’s review.' },
    COMPLETED: { description: 'Done, with its artifacts and outputs.' },
    FAILED: { description: 'This attempt failed (see error); another may follow.' },
    SKIPPED: { description: 'Never run: the job was cancelled first.' },
  },
});
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
    RESYNC: { description: 'Not stored: this slow subscriber missed events; resubscribe after this position.' },
    SUBSCRIBED: { description: 'Not stored: the first message of every subscription; its position is where it starts.' },
    HISTORY_LOST: {
      description:
        'Not stored: the resume position is older than the stored history; nothing is replayed: re-query, then read on from here.',
    },
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

  @Field(() => ID, { nullable: true, description: 'Who approved or rejected the step after review.' })
  approvedBy?: string;

  @Field(() => DateTime, { nullable: true, description: 'When a person approved or rejected it.' })
  decidedAt?: string;

  @Field(() => DateTime, { nullable: true, description: 'When this attempt started.' })
  startedAt?: string;

  @Field(() => DateTime, { nullable: true, description: 'When this attempt completed or failed.' })
  finishedAt?: string;
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

  /** The step attempts, when read with the job. */
  steps?: Step[];
}

@ObjectType({ simpleResolvers: true, description: 'A page of jobs, with the cursor to the next page.' })
export class JobConnection extends Connection(Job) {}

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

  @Field(() => String, {
    nullable: true,
    description:
      'Retries with the same key within 48 hours return the first job. Derived from project, kind, inputs, seed and model version when omitted.',
  })
  idempotencyKey?: string | null;

  @Field(() => Int, { nullable: true, description: 'Attempts per step before the job fails (default 3).' })
  maxAttempts?: number | null;
}

@ArgsType()
export class StepRef {
  @Field(() => ID, { description: "The job's id." })
  jobId!: string;

  @Field({ description: "The step's name, as in the job's plan." })
  stepName!: string;
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

@ObjectType({ simpleResolvers: true, description: 'A step claimed by a worker: report on it with its attempt.' })
export class ClaimedWork {
  @Field(() => Job, { description: 'The job the step belongs to, as the claim left it.' })
  job!: Job;

  @Field(() => Step, { description: 'The attempt you now hold; its leaseExpiresAt says until when without a report.' })
  step!: Step;
}
