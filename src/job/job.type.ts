import { ForwardPageArgs, PageArgs } from '../common/pagination';
import { ItemStatus, type JobEventType, JobStatus, StepStatus } from './job.machine';
import { entities, type EntityItem } from '../common/entities';
import { STAGE_ITEM_COUNTS } from './job.writes';
import { JOB_KIND } from './job.kinds';
import { DEAD_LETTER_FILTER, DEAD_LETTER_REPLAY } from './job.dead-letters';
import { REUSED_WORK } from './job.reuse';
import { argsType, inputType, modelTypes, registerDeclaredEnum, registerEnumOf, shapeObjectType, stateOf } from '../common/model-types';
import { attr, pickAttributes, pickDeclared } from '../infra/dynamo/entity';
import { hasFields } from '../common/validate';
import { keyAttr } from '../common/args';

/*
 * The job feature's GraphQL types. Job, Step, WorkItem and PoolShare (with their connections, and
 * the JobError, ReuseSource and PlannedStep their attributes hold) come from their declarations
 * (src/common/entities.ts); the views and payloads particular to jobs (an event, a claim, a
 * declared kind, a replay's result) are declared here as shapes, made into types the same way.
 */

// The statuses and their transitions come from the declared machines (src/common/entities.ts).
registerEnumOf(entities.Job, 'status', JobStatus, 'JobStatus');
registerEnumOf(entities.Step, 'status', StepStatus, 'StepStatus');
registerDeclaredEnum(ItemStatus, {
  name: 'WorkItemStatus',
  description: `A work item's status: ${entities.WorkItem.describeTransitions()}.`,
  values: {
    PENDING: 'Waiting for a worker to claim it (again, after a failed or expired attempt).',
    RUNNING: 'Held by a worker under a lease that its progress reports renew.',
    COMPLETED: 'Done, with its outputs (final).',
    FAILED: 'Failed past its attempts; retryWorkItem reopens it.',
    CANCELLED: 'Its job was cancelled before it finished (final).',
  },
});

export const { type: Step, connection: StepConnection } = modelTypes(entities.Step);
/** A step attempt as the API shows it. */
export type Step = EntityItem<'Step'>;

export const { type: WorkItem, connection: WorkItemConnection } = modelTypes(entities.WorkItem);
/** A work item as the API shows it; deadLettersAcrossTenants names its tenant. */
export type WorkItem = EntityItem<'WorkItem'> & { tenantId?: string };

export const { type: Job, connection: JobConnection } = modelTypes(entities.Job);
/** A job as the API shows it: its item, the seq of its latest event, and its step attempts when read with it. */
export type Job = EntityItem<'Job'> & {
  seq: number;
  steps?: Step[];
  /**
   * Reads the step attempts from the partition the job was decided in, when they were not read
   * with it (a mutation's answer): the `steps` field calls it only when a client asks for them.
   */
  readSteps?: () => Promise<Step[]>;
};

export const { type: PoolShare } = modelTypes(entities.PoolShare);

export const ItemCounts = shapeObjectType(STAGE_ITEM_COUNTS);
export type ItemCounts = InstanceType<typeof ItemCounts>;

export const JobEvent = shapeObjectType({
  name: 'JobEvent',
  description: 'One change of a job. seq is gapless per job: 1, 2, 3 …; prevSeq = seq − 1.',
  fields: {
    // What the event's declaration describes, in its words.
    ...pickDeclared(entities.JobEvent.attributes, ['eventId', 'jobId', 'projectId', 'seq', 'prevSeq', 'actor', 'at', 'position']),
    // The GraphQL enum adds a stream's own messages (SUBSCRIBED, RESYNC, HISTORY_LOST) to the stored
    // events' types: it is registered with the streams (src/events/stream-messages.ts).
    type: attr.json<JobEventType>()({ required: true, apiType: 'JobEventType', description: 'What happened.' }),
    /** The job as this event left it: the `job` field resolver shows it (JobEventResolver). */
    job: attr.json<Job>()({ hidden: true }),
    step: attr.json<Step>()({ apiType: 'Step', description: 'The step attempt the event changed, with its id.' }),
    item: attr.json<WorkItem>()({
      apiType: 'WorkItem',
      description: 'The work item the event changed (ITEM_* events), as the change left it.',
    }),
    reused: attr.listOf(REUSED_WORK)({
      description: 'ITEMS_REUSED and STEP_REUSED: what completed from stored outputs, and whose outputs each took.',
    }),
    resumeAfterSeq: attr.int({ description: 'RESYNC only: resubscribe with afterSeq set to this (the same as position).' }),
    cursor: attr.string({
      description:
        'jobStatusChanges of the whole tenant only (null elsewhere): where the stream stands after this message, in every one of its shards. Resubscribe with afterCursor set to the cursor of the last message you received, of any type. Opaque: pass it back as it is.',
    }),
  },
});
export type JobEvent = InstanceType<typeof JobEvent>;

export const JobKind = shapeObjectType(JOB_KIND);

export const ClaimedWork = shapeObjectType({
  name: 'ClaimedWork',
  description:
    'Work claimed by a worker: a step, or a work item of a fan-out stage (then step is the stage). Report on it with its attempt.',
  fields: {
    job: attr.json<Job>()({ required: true, apiType: 'Job', description: 'The job the step belongs to, as the claim left it.' }),
    step: attr.json<Step>()({
      required: true,
      apiType: 'Step',
      description:
        'The attempt you now hold (its leaseExpiresAt says until when without a report), or the fan-out stage of the item you hold.',
    }),
    item: attr.json<WorkItem>()({
      apiType: 'WorkItem',
      description: 'The work item you now hold, with its attempt; null when you hold a step.',
    }),
    tenantId: attr.id({
      required: true,
      description: 'The tenant whose work this is (a pool worker serves many; a tenant-bound worker, its own).',
    }),
    lease: attr.string({
      description:
        'Pool workers only: the lease on this item. Pass it unchanged with every report on it (reportWorkItemProgress, completeWorkItem, failWorkItem); it is the only thing that lets a pool worker touch the tenant’s data. Null for a tenant-bound worker.',
    }),
  },
});

export const DeadLetterReplay = shapeObjectType(DEAD_LETTER_REPLAY);

export const CreateJobInput = inputType(
  'CreateJobInput',
  'A pipeline run: its project, kind, inputs and (for a free-form plan) steps; idempotent.',
  {
    ...pickAttributes(entities.Job.attributes, {
      projectId: 'The project the job works for.',
      kind: 'The pipeline: a declared kind (3D_CHARACTER, MUSIC_VIDEO, PHOTO_EDIT; see jobKinds) or free text with steps.',
      inputs: "The pipeline's inputs: checked against the kind's declared fields when it is declared (see jobKinds).",
      provider: 'Who runs the pipeline (a provider name), for your records.',
      correlationId: 'Your own id for the run, echoed on the job (for tracing across your systems).',
      seed: 'Seed and model version take part in the derived idempotency key.',
      modelVersion: 'The model version the run uses; part of the derived idempotency key.',
      priority: 'From 0 (lowest) to 9 (highest), default 5: a shared worker pool hands out your higher-priority jobs’ work first.',
    }),
    steps: attr.strings({
      description:
        'The ordered step names, e.g. ["text-to-image", "refine", "3d", "retopo", "rig", "anim", "export"]. A declared kind (see jobKinds) has its own stages: omit them.',
    }),
    reuse: attr.boolean({
      description:
        'False: run every step and item, even those whose stage is declared reusable and whose stored outputs match (see jobKinds); its own completions are still recorded. Default true. A job that asks not to reuse does not get an earlier job with the same derived idempotency key back either.',
    }),
    idempotencyKey: attr.string({
      description:
        'Retries with the same key and the same arguments within 48 hours return the first job; the key with other arguments is refused with IDEMPOTENCY_KEY_REUSED. Derived from project, kind, inputs, seed and model version when omitted.',
    }),
    maxAttempts: attr.int({ description: 'Attempts per step before the job fails (default 3).' }),
    items: attr.jsonObjects()({
      description:
        "Work items of the kind's first fan-out stage, each its typed inputs (see jobKinds); at most 50 here, more with addWorkItems.",
    }),
  },
);
export type CreateJobInput = InstanceType<typeof CreateJobInput>;

/** The arguments that name a step of a job by its name in the plan. */
const stepRef = {
  jobId: keyAttr('jobId'),
  stepName: attr.string({ required: true, description: "The step's name, as in the job's plan." }),
};
export const StepRef = argsType('StepRef', stepRef);
export type StepRef = InstanceType<typeof StepRef>;

const heldAttempt = 'The attempt you hold (see claimWork): a report for an attempt that is over is refused.';

/** The reporting process's own id, as on its claim (see src/events/bound-workers.ts). */
const REPORTING_WORKER = attr.string({
  description:
    'Your process’s own id, as on claimWork and workSignals, sent when the claim of the unit sent it: a report that ends the attempt (complete, fail, hand back, pause) unbinds the unit from your subscription wherever it is, so that a lost connection hands back only what you still hold. Omitted: the unit stays bound until its attempt is over anyway.',
});

export const HeldStepRef = argsType('HeldStepRef', {
  ...stepRef,
  attempt: attr.int({ description: heldAttempt }),
  lease: attr.string({ description: 'A pool worker: the lease claimWork handed it for this step.' }),
  workerId: REPORTING_WORKER,
});
export type HeldStepRef = InstanceType<typeof HeldStepRef>;

const jobStatusToList = stateOf(entities.Job)({ required: true, description: 'The status to list.' });

export const JobsByStatusArgs = argsType(
  'JobsByStatusArgs',
  {
    status: jobStatusToList,
    system: attr.boolean({
      description: 'True to list the server’s own jobs (migrations, archiving: the system partition): operators only, FORBIDDEN otherwise.',
    }),
  },
  PageArgs,
);
export type JobsByStatusArgs = InstanceType<typeof JobsByStatusArgs>;

/** Across tenants the list is merged from the shards of an index, so it pages forward only. */
export const JobsAcrossTenantsArgs = argsType('JobsAcrossTenantsArgs', { status: jobStatusToList }, ForwardPageArgs);
export type JobsAcrossTenantsArgs = InstanceType<typeof JobsAcrossTenantsArgs>;

/** True for a job event as stored and published: what the live streams check every payload and stored item against. */
export function isJobEvent(value: unknown): value is JobEvent {
  return hasFields(value, { jobId: 'string', seq: 'number', type: 'string' });
}

/** The arguments that name a work item by its key. */
const workItemKey = {
  jobId: attr.id({ required: true, description: 'The job of the item.' }),
  stage: attr.string({ required: true, description: 'The fan-out stage of the item.' }),
  sequence: attr.int({ required: true, description: 'The item’s sequence in its stage.' }),
};
export const WorkItemKey = argsType('WorkItemKey', workItemKey);
export type WorkItemKey = InstanceType<typeof WorkItemKey>;

export const WorkItemRef = argsType('WorkItemRef', {
  ...workItemKey,
  attempt: attr.int({ required: true, description: heldAttempt }),
  lease: attr.string({
    description:
      'Pool workers: the lease claimWork handed out with this item, unchanged (required for them; ignored for tenant-bound workers).',
  }),
  workerId: REPORTING_WORKER,
});
export type WorkItemRef = InstanceType<typeof WorkItemRef>;

/** The dead letters of one stage of a declared kind, optionally of one error code. */
const deadLettersOf = (errorCode: string) => ({
  kind: DEAD_LETTER_FILTER.kind,
  stage: attr.string({ required: true, description: 'Its fan-out stage.' }),
  errorCode: attr.string({ description: errorCode }),
});

export const DeadLettersArgs = argsType(
  'DeadLettersArgs',
  deadLettersOf('Only items whose last error has this code (e.g. ATTEMPT_TIMED_OUT); newest first then.'),
  PageArgs,
);
export type DeadLettersArgs = InstanceType<typeof DeadLettersArgs>;

export const DeadLettersAcrossTenantsArgs = argsType(
  'DeadLettersAcrossTenantsArgs',
  deadLettersOf('Only items whose last error has this code; newest first then.'),
  ForwardPageArgs,
);
export type DeadLettersAcrossTenantsArgs = InstanceType<typeof DeadLettersAcrossTenantsArgs>;

export const DeadLetterFilter = inputType(
  'DeadLetterFilter',
  'Which dead letters (work items FAILED past their attempts) replayDeadLetters reopens.',
  DEAD_LETTER_FILTER,
);
export type DeadLetterFilter = InstanceType<typeof DeadLetterFilter>;

export const JobItemsArgs = argsType('JobItemsArgs', { stage: attr.string({ description: 'Only this stage’s items.' }) }, PageArgs);
export type JobItemsArgs = InstanceType<typeof JobItemsArgs>;
