import { attr, type AttributeValues, entity, type IndexDeclaration } from '../infra/dynamo/entity';
import { keyShape } from '../infra/dynamo/entity';
import { normalizeText, pad } from './keys';

/*
 * Every entity of the table, declared as data in one place: attributes, key template, the
 * indexes each belongs to (with the attributes that compose each index key), status machines,
 * parent, TTL and event names. Keys, index attributes, typed items, status transitions, the
 * standard repository and resolvers and the generated tests all derive from these declarations
 * (src/infra/dynamo/entity.ts computes them; docs/architecture.md says how to add one).
 */

/** Brief versions are zero-padded (`v000010`) so that key order is version order. */
export const briefVersionLabel = (version: number) => `v${pad(version, 6)}`;

/** Stream positions are zero-padded so that key order is position order. */
export const positionLabel = (position: number) => pad(position, 12);

/**
 * GSI3's operators' lists (jobs, projects and dead letters across tenants, the jobs waiting to be
 * settled) spread each partition over this many shards, by the job's (or project's) id, so that one
 * busy status of the whole table is never one hot partition: at 16 a status takes ≈ 8,000 changes a
 * second spread evenly (4 shards capped it near 2,000: docs/scaling.md). Reads merge every shard
 * (QuerySpec.shards). Each shard's key carries its number, shard 0's too (`JOB_STATUS#RUNNING#0`),
 * as the design names them and as the 4 shards of before were written, so their entries stay in
 * shards every read reads until migration 005-ops-shards moves them to their shard of 16.
 */
export const OPS_SHARDS = 16;
const opsShards = (by: string) => ({ count: OPS_SHARDS, by, numbered: true });

/**
 * An error code as the dead-letter index keys it: `#` and `%` escaped, so a code is one whole
 * segment of the sort key and one code's prefix never matches another's (codes are the workers'
 * own, at most 100 characters of anything). An item without a code is UNKNOWN.
 */
export function deadLetterCode(code: string | undefined): string {
  return (code || 'UNKNOWN').replace(/[#%]/g, (c) => (c === '#' ? '%23' : '%25'));
}

/** The first letter of a word (a whole code point): the partition of the word index it is in. */
export const initialOf = (word: string): string => String.fromCodePoint(word.codePointAt(0) ?? 0x5f);

/**
 * The bytes of an asset's versions whose status `counted` says count. Every stored item is
 * counted (toItem records it), so a partial one, put by a caller that names only some of its
 * attributes, counts what it holds: none without versions.
 */
function versionBytes(versions: readonly AssetVersionItem[] | undefined, counted: (status: AssetVersionItem['status']) => boolean): number {
  let bytes = 0;
  for (const v of versions ?? []) if (counted(v.status)) bytes += v.size ?? 0;
  return bytes;
}

const archivedPartition = (archived: unknown) => (archived ? 'ARCHIVED_PROJECT' : 'PROJECT');

/** The upload states of a stored file (an asset's version, an inspiration's file). */
export const UPLOAD_STATES = ['uploading', 'ready'] as const;

/**
 * The API's enum of an upload's state, shared by an asset's status and an inspiration's file. Its
 * name stays `AssetStatus`, because assets introduced it and clients already use it.
 */
export const UPLOAD_STATUS = {
  name: 'AssetStatus',
  description: 'uploading → ready',
  values: {
    uploading: 'Its upload URL is handed out; the file is not confirmed yet.',
    ready: 'Uploaded and confirmed: readable.',
  },
} as const;

/** An asset version's states: an upload's, and archived once the tenant's retention has let it go. */
export const VERSION_STATES = [...UPLOAD_STATES, 'archived'] as const;

/** One version of an asset's file, as an asset stores it and the API's AssetVersion shows it. */
export const ASSET_VERSION = {
  name: 'AssetVersion',
  description: 'One version of an asset’s file, under its own object key.',
  fields: {
    version: attr.int({ required: true, description: 'The version number, from 1.' }),
    s3Key: attr.string({ required: true, description: "The S3 object key of this version's file (never a URL)." }),
    fileName: attr.string({ description: 'The file name given at upload.' }),
    size: attr.int({ description: "The file's size in bytes." }),
    contentType: attr.string({ description: "The file's media type." }),
    status: attr.enum(VERSION_STATES, {
      name: 'AssetVersionStatus',
      description:
        'uploading → ready → archived. ARCHIVED: past the tenant’s keepAssetVersions; still listed, its object moved to an archival storage class, no url unless asked with includeArchived.',
      values: {
        uploading: 'Its upload URL is handed out; the file is not confirmed yet.',
        ready: 'Uploaded and confirmed: readable.',
        archived: 'Let go by the tenant’s keepAssetVersions: url only with includeArchived.',
      },
    })({ required: true, description: 'UPLOADING, READY, or ARCHIVED once the tenant’s retention let it go.' }),
    createdAt: attr.dateTime({ required: true, description: 'When this version was requested.' }),
    confirmedAt: attr.dateTime({ description: 'When its upload was confirmed; null while uploading.' }),
    archivedAt: attr.dateTime({ description: 'When retention archived it.' }),
    /** Epoch seconds after which an unconfirmed upload of this version is void. */
    uploadExpiresAt: attr.int({ hidden: true }),
  },
} as const;

/**
 * An asset keeps at most this many readable (ready) versions: a documented hard limit, which a
 * tenant's `keepAssetVersions` (at most this) keeps every asset under by archiving older ones.
 */
export const MAX_ASSET_VERSIONS = 100;

/**
 * An asset's stored history (readable and archived versions) is capped too, so its item stays far
 * below DynamoDB's 400 KB (a version's entry takes about 300 bytes).
 */
export const MAX_STORED_ASSET_VERSIONS = 500;

/** The most days a tenant may keep its activity trail for (besides forever). */
export const MAX_ACTIVITY_RETENTION_DAYS = 36_500;

/** The statuses of a job and of a step attempt; their machines follow. */
export const JOB_STATES = ['QUEUED', 'RUNNING', 'PAUSED', 'COMPLETED', 'FAILED', 'CANCELLED'] as const;
export const STEP_STATES = ['PENDING', 'RUNNING', 'PAUSED', 'COMPLETED', 'FAILED', 'SKIPPED', 'HANDED_BACK'] as const;
type JobStatusValue = (typeof JOB_STATES)[number];
type StepStatusValue = (typeof STEP_STATES)[number];

/**
 * The status machine of a job: where each status may go. Every change of a job is held to it at
 * commit (src/job/job.decider.ts, JobGroup.record); which command may run in which status is the
 * command table in src/job/job.machine.ts, checked against this machine by test/unit/job-machine.test.ts.
 */
const JOB_MACHINE = {
  attribute: 'status',
  initial: 'QUEUED',
  // QUEUED → COMPLETED: every step took stored outputs at creation (src/job/job.reuse.ts).
  transitions: {
    QUEUED: ['RUNNING', 'COMPLETED', 'CANCELLED'],
    RUNNING: ['PAUSED', 'COMPLETED', 'FAILED', 'CANCELLED'],
    PAUSED: ['RUNNING', 'COMPLETED', 'FAILED', 'CANCELLED'],
    COMPLETED: [],
    FAILED: ['RUNNING'],
    CANCELLED: [],
  } satisfies Record<JobStatusValue, readonly JobStatusValue[]>,
  descriptions: {
    QUEUED: 'Created; no step has started yet.',
    RUNNING: 'A step is running, or waits to be started or claimed.',
    PAUSED: 'A step waits for a person’s review (approveStep or rejectStep).',
    COMPLETED: 'Every step completed.',
    FAILED: 'A step failed with no attempts left, or was rejected; retryJob runs it again.',
    CANCELLED: 'Cancelled by a person; its waiting steps were skipped.',
  },
} as const;

/**
 * The status machine of one step attempt. A failed attempt never runs again: the next attempt is
 * a new step item, which starts PENDING (or RUNNING, held by the worker whose claim took it over).
 */
const STEP_MACHINE = {
  attribute: 'status',
  initial: 'PENDING',
  // PENDING → COMPLETED: the attempt took the stored outputs of a completed step (src/job/job.reuse.ts);
  // PENDING → SKIPPED: its job was cancelled before it ran; PAUSED → COMPLETED | FAILED: a person's review;
  // RUNNING → HANDED_BACK: its worker released it (handBackStep) and a new attempt, not counted, waits.
  transitions: {
    PENDING: ['RUNNING', 'COMPLETED', 'SKIPPED'],
    RUNNING: ['PAUSED', 'COMPLETED', 'FAILED', 'HANDED_BACK'],
    PAUSED: ['COMPLETED', 'FAILED'],
    COMPLETED: [],
    FAILED: [],
    SKIPPED: [],
    HANDED_BACK: [],
  } satisfies Record<StepStatusValue, readonly StepStatusValue[]>,
  descriptions: {
    PENDING: 'Waiting to be started or claimed.',
    RUNNING: 'A worker holds it, under a lease its reports renew.',
    PAUSED: 'Waiting for a person’s review.',
    COMPLETED: 'Done, with its artifacts and outputs.',
    FAILED: 'This attempt failed (see error); another may follow.',
    SKIPPED: 'Never run: the job was cancelled first.',
    HANDED_BACK:
      'Its worker handed it back unfinished (handBackStep): the next attempt waits, claimable at once; this one is not counted as failed.',
  },
} as const;

/** A fan-out stage holds at most this many work items (see docs/pipelines.md). */
export const MAX_STAGE_ITEMS = 10_000;

/** Why a job, a step attempt or a work item failed (the API's JobError). */
export const JOB_ERROR = {
  name: 'JobError',
  description: 'Why a job or step failed: a stable code, a message and how many attempts were made.',
  fields: {
    code: attr.string({ required: true, description: 'A stable code, such as LEASE_EXPIRED or the one a worker reported.' }),
    message: attr.string({ required: true, description: 'What went wrong, in words.' }),
    retryCount: attr.int({ required: true, description: 'Retries made before this error.' }),
  },
} as const;

/**
 * The exact counters of one fan-out stage's work items, as a job stores them (its `itemCounts`, by
 * stage) and the API's ItemCounts shows them with the stage and what is pending.
 */
export const ITEM_COUNTS = {
  name: 'ItemCounts',
  description: 'Exact counters of work items, kept in the transaction of every item change.',
  fields: {
    total: attr.int({ required: true, description: 'Items in all.' }),
    running: attr.int({ required: true, description: 'Held by a worker now.' }),
    completed: attr.int({ required: true, description: 'Completed with their outputs.' }),
    failed: attr.int({ required: true, description: 'Failed past their attempts.' }),
  },
} as const;

/** Where a reused step's or item's outputs came from: the completed step (no sequence) or item (the API's ReuseSource). */
export const REUSE_SOURCE = {
  name: 'ReuseSource',
  description: 'The completed step or work item whose stored outputs were reused (a stage declared reusable, see jobKinds).',
  fields: {
    jobId: attr.id({ required: true, description: 'The job that ran it.' }),
    stage: attr.string({ required: true, description: 'Its stage.' }),
    sequence: attr.int({ description: "The item's sequence; null for a step." }),
    completedAt: attr.dateTime({
      required: true,
      description: 'When it completed (its outputs are reusable for the stage’s declared hours from then).',
    }),
  },
} as const;

/**
 * What an activity event (a project's or the tenant's own) holds, and what the API's ActivityEvent
 * says of it (src/activity/activity.type.ts).
 */
const eventAttributes = {
  position: attr.int({
    description:
      'Where this event stands in its project’s activity stream (1, 2, 3 … in commit order, without gaps): resubscribe to projectActivity with after set to the position of the last message you received, of any action, to get every event you have not seen. Null for the tenant’s own events, which no subscription follows.',
  }),
  eventId: attr.id({ required: true, description: "The event's own id (a ULID); resume subscriptions by position instead." }),
  at: attr.dateTime({ required: true, description: 'When the change was committed.' }),
  /** Which trail it is in: `activity`, or `audit` for what only the tenant's audit trail shows. */
  stream: attr.string({ hidden: true }),
  tenantId: attr.string({ hidden: true }),
  projectId: attr.id({ description: 'The project it happened in; null for the tenant’s own events.' }),
  actor: attr.id({ required: true, description: 'Who made the change: the user id from their token.' }),
  action: attr.string({
    required: true,
    description:
      '<entity>.<verb>, e.g. log.created. A subscription also sends subscription.started (always its first message), subscription.history_lost and subscription.resync.',
  }),
  subjectType: attr.string({ required: true, description: 'The type of what changed: Project, Log, Asset, Milestone, Brief …' }),
  subjectId: attr.id({
    required: true,
    description: 'The id of what changed (projectId, logId, assetId …), as its own id field holds it.',
  }),
  data: attr.jsonObject()({ description: 'Details of the change, as JSON.' }),
  /**
   * When restoreProject put the event back from cold storage (src/archive/archive.repository.ts):
   * an old event written again, which the downstream filter does not send a second time
   * (RESTORED_ATTRIBUTE, src/infra/dynamo/downstream.ts). Declared, so every store keeps it.
   */
  restoredAt: attr.dateTime({ hidden: true }),
};

/**
 * What a job's change writes in the job's own stream (JobEvent) and, when its status changed, in
 * its project's and the tenant's job status streams (src/job/job.writes.ts eventWrites): the job,
 * step and item as the change left them, for the job's subscriptions and the archive. The API's
 * JobEvent type (src/job/job.type.ts) shows the described ones as declared here, and the job, step,
 * item and type as their own API types.
 */
const jobEventAttributes = {
  eventId: attr.id({ required: true, description: "The event's own id; resume by seq instead." }),
  // A key value of the job's own stream, and an attribute of the status streams' events.
  jobId: attr.id({ required: true, description: 'The job it belongs to.' }),
  tenantId: attr.string({ required: true }),
  projectId: attr.id({ required: true, description: "The job's project." }),
  /** The job's version after the change (a job status stream's event keeps it beside its position). */
  seq: attr.int({
    required: true,
    description: "The event's position in the job's stream (the job's version after it): resume with afterSeq.",
  }),
  prevSeq: attr.int({ required: true, description: 'seq − 1: the position just before this event.' }),
  /** What happened (a JobEventType). */
  type: attr.string({ required: true }),
  /** `job.<type in lower case>`, with the subject: the fields every downstream event carries. */
  action: attr.string({ required: true }),
  subjectType: attr.string({ required: true }),
  subjectId: attr.id({ required: true }),
  actor: attr.id({ required: true, description: 'Who caused it: a worker, a person, or the server.' }),
  at: attr.dateTime({ required: true, description: 'When it was committed.' }),
  /** Snapshots of what the change left: the job (without its inputs), the step attempt and the work item it changed. */
  job: attr.json<object>()({ required: true }),
  step: attr.json<object>()(),
  item: attr.json<object>()(),
  /** ITEMS_REUSED and STEP_REUSED: what completed from stored outputs. */
  reused: attr.json<readonly object[]>()(),
  statusChanged: attr.boolean({ required: true }),
  /** Which stream it is in: `job`, `projectJobs` or `tenantJobs`. */
  stream: attr.string({ required: true }),
  /** Its place in that stream: the seq in the job's own, the stream's position in the others. */
  position: attr.int({
    required: true,
    description:
      'Where this message stands in the stream that delivered it: the seq in jobProgress, the stream’s own position (1, 2, 3 … in commit order, without gaps) in jobStatusChanges. Resubscribe with afterSeq (jobProgress) or after (jobStatusChanges) set to the position of the last message you received, of any type, to get every event you have not seen.',
  }),
};

/**
 * Every activity event (a project's and the tenant's own) is in the tenant's timeline, newest
 * first by time, and in the timeline of its action, so `timeline(from, to, types)` is one query a
 * page for no type or one type, and one per type (merged) for several.
 */
const eventIndexes: Record<string, IndexDeclaration> = {
  timeline: { index: 'GSI2', pk: 'TYPE#EVENT', sk: '{at}#{eventId}' },
  timelineByAction: { index: 'GSI1', pk: 'EVENT_ACTION#{action}', sk: '{at}#{eventId}' },
};

/** What the claimability of a unit of work (a work item) is derived from: its own fields. */
interface ClaimableUnit {
  status: string;
  availableAt?: string;
  createdAt?: string;
  leaseExpiresAt?: string;
  timesOutAt?: string;
}

/**
 * When a running attempt can be taken over: its lease's end or its timeout, whichever comes
 * first (ISO times of one format compare as strings); undefined for an attempt with neither.
 */
export function attemptEndsAt(held: { leaseExpiresAt?: string; timesOutAt?: string }): string | undefined {
  return [held.leaseExpiresAt, held.timesOutAt].filter((at): at is string => at !== undefined).sort()[0];
}

/**
 * From when a work item may be claimed, by its own state only: a waiting item from when it became
 * available (after any backoff), a running one from when its lease runs out or its attempt's time
 * is up, whichever comes first; undefined for one that cannot be (finished). Whether its job is at
 * its stage is the job's JobWork entry (written with the job).
 */
export function itemClaimableFrom(item: ClaimableUnit): string | undefined {
  if (item.status === 'PENDING') return item.availableAt ?? item.createdAt;
  return item.status === 'RUNNING' ? attemptEndsAt(item) : undefined;
}

/** What a step attempt's claimability is derived from: its own fields, and whether it is its job's current attempt now. */
interface ClaimableStep {
  current?: boolean;
  status: string;
  waitsUntil?: string;
  updatedAt?: string;
  leaseExpiresAt?: string;
  timesOutAt?: string;
}

/**
 * From when a step attempt may be claimed: only while it is its job's current attempt of its
 * current step and the job runs or waits to (`current`, written with every put of the step from
 * its job); a waiting one from when its backoff is over (or from when it was written), a running
 * one from when its lease or its time runs out; undefined otherwise.
 */
export function stepClaimableFrom(step: ClaimableStep): string | undefined {
  if (step.current !== true) return undefined;
  if (step.status === 'PENDING') return step.waitsUntil ?? step.updatedAt;
  return step.status === 'RUNNING' ? attemptEndsAt(step) : undefined;
}

/**
 * How the job item's tenant-wide list indexes (by status, by creator) are sharded: by the job's id
 * over 16 partitions, so all of one job's entries are in one shard and a tenant's job changes
 * spread over 16 (docs/scaling.md, "Index shards"). The job item is rewritten with every change of
 * its items (its counters), each rewrite 2 write units on each index: one partition takes 500
 * changes a second at DynamoDB's 1,000 a key, 16 take 8,000. Reads query the 16 at once and merge
 * them (QuerySpec.shards): a list is read seldom. The pools' index is read by every pool claim and
 * written only when a stage changes (never per item), so it stays one partition. Migration
 * 004-index-shards spreads the jobs written before.
 */
const JOB_SHARDS = { count: 16, by: 'jobId' } as const;

/**
 * How the claimable indexes hold single steps: by the job's id over 8 partitions. A single step's
 * start and its completion each move its entry, 2 write units a change on each index: one
 * partition took 500 changes a second at DynamoDB's 1,000 a key, 8 take 4,000 spread evenly,
 * twice the 2,000 a tenant needs (issue 51). Only steps marked `singleStep` are spread: a fan-out
 * stage's JobWork entry and its waiting step (written when the stage opens and settles, never per
 * item) stay in shard 0, the partition's key of before, and so does every entry written before
 * the mark. A claim that names a fan-out stage can only be answered by those, so it reads shard 0
 * alone, as one partition was read before (a busy job's item claims: bench line 7); any other
 * claim reads the shard of the oldest candidate it knows of and merges the 8 only when it knows of
 * none (src/infra/claim-shards.ts). PostgreSQL keeps each partition whole (wholeInPostgres), so
 * its claim reads one range of a B-tree as before.
 */
const CLAIMABLE_SHARDS = {
  count: 8,
  by: 'jobId',
  wholeInPostgres: true,
  spreads: (step: { singleStep?: boolean }) => step.singleStep === true,
} as const;

/**
 * The tenant's work a worker can claim, by the time it became claimable (sparse: only while its
 * `claimable` holds): a step that can be claimed and a fan-out stage's JobWork entry are in the
 * same partitions, keyed alike, so one claimWork query finds both. A JobWork entry stays in one
 * partition (shard 0 of the steps', see CLAIMABLE_SHARDS).
 */
const claimableIndexes: Record<string, IndexDeclaration> = {
  claimable: { index: 'GSI4', pk: 'WORK#CLAIMABLE', sk: '{availableAt}#{jobId}#{name}', when: { claimable: [true] } },
  /** The same, for one kind of job. */
  claimableOfKind: { index: 'GSI2', pk: 'WORK#CLAIMABLE#{kind}', sk: '{availableAt}#{jobId}#{name}', when: { claimable: [true] } },
  /** The same, for one stage of one kind. */
  claimableOfStage: { index: 'GSI3', pk: 'WORK#CLAIMABLE#{kind}#{name}', sk: '{availableAt}#{jobId}#{name}', when: { claimable: [true] } },
};

/**
 * The claimable indexes as a step attempt is in them: by a predicate of the step (stepClaimableFrom),
 * its place derived from it, recomputed on every put of the step.
 */
const stepClaimableIndexes: Record<string, IndexDeclaration> = Object.fromEntries(
  Object.entries(claimableIndexes).map(([name, declared]) => [
    name,
    {
      ...declared,
      sk: declared.sk.replace('{availableAt}', '{claimableFrom}'),
      when: {
        reads: ['current', 'status', 'waitsUntil', 'updatedAt', 'leaseExpiresAt', 'timesOutAt'],
        holds: (step: ClaimableStep) => stepClaimableFrom(step) !== undefined,
        example: { current: true, status: 'PENDING', waitsUntil: '2026-01-01T00:00:00.000Z' },
      },
      derive: { claimableFrom: (step: ClaimableStep) => stepClaimableFrom(step) ?? '' },
      shards: CLAIMABLE_SHARDS,
    },
  ]),
);

/**
 * What a stream's head holds: the stream's last position, which the unit of work's stream allocation
 * (placeGroup, src/infra/dynamo/write.ts: HEAD_POSITION) moves on in the commit of each event.
 */
const headAttributes = {
  position: attr.int({ required: true, internal: true, description: "The stream's last position: its latest event's." }),
};

export const entities = {
  Tenant: entity({
    type: 'Tenant',
    idPrefix: undefined,
    key: keyShape({ pk: '', sk: 'TENANT' }),
    description: 'A studio: everything it owns lives in its own partition.',
    describe: {
      createInput: 'Settings of a new tenant (studio); it is the one your token names.',
      updateInput: "The tenant's settings to change; an omitted field is kept.",
      create: "Creates the caller's tenant; CONFLICT when it exists.",
      update: "Changes your tenant's settings.",
    },
    attributes: {
      // Set from the verified token, never from an input.
      tenantId: attr.id({ required: true, readOnly: true, internal: true, description: "The tenant's id, as tokens name it." }),
      name: attr.string({ required: true, max: 120, description: "The studio's name." }),
      plan: attr.enum(['free', 'studio', 'enterprise'], {
        name: 'Plan',
        description: 'The plan a studio is on.',
        values: {
          free: 'The free plan.',
          studio: 'The plan for a studio.',
          enterprise: 'The plan for several studios of one organization.',
        },
      })({
        required: true,
        default: 'free',
        description: 'The plan the studio is on.',
        createDescription: 'FREE, the only plan a tenant starts on; an operator chooses another (setTenantPlan).',
        updateDescription: 'Admins only.',
      }),
      /** Unset: every version, up to MAX_ASSET_VERSIONS. */
      keepAssetVersions: attr.int({
        updateOnly: true,
        description:
          'Readable versions each asset keeps; adding one past it archives the oldest. Null: every version, up to the limit of 100.',
        updateDescription: '1 to 100; null keeps every version (up to 100). Applies from the next confirmed version.',
      }),
      /** Unset: the server's EVENT_RETENTION_DAYS. */
      activityRetentionDays: attr.int({
        updateOnly: true,
        description: 'Days the activity trail is kept. Null: the server’s default (EVENT_RETENTION_DAYS); 0: forever.',
        updateDescription:
          'Days to keep activity events, 1 to 36500, or 0 to keep them forever; null: the server’s default. Applies to events written from now on.',
      }),
      /** An operator's overrides of the plan's limits for this tenant alone (setTenantPlan); unset: the plan's. */
      limits: attr.json<Partial<Record<string, number>>>()({ internal: true, hidden: true }),
    },
  }),
  /**
   * How much of each quota of its plan a tenant uses, exactly: every write that changes what an
   * item counts (an entity's `quota` declaration) adds the difference in its own transaction,
   * conditioned on the plan's limit (src/common/quota.ts). Kept by ADD alone, so it carries no
   * entity type; each quota is an attribute named as the quota.
   */
  TenantUsage: entity({
    type: 'TenantUsage',
    idPrefix: undefined,
    // Counters that quota writes ADD to (src/common/quota.ts): nothing else is written.
    keeps: [],
    key: keyShape({ pk: '', sk: 'USAGE' }),
    attributes: {
      projects: attr.int(),
      storedBytes: attr.int(),
      runningJobs: attr.int(),
    },
  }),
  /**
   * One of a tenant's USAGE_RELEASE_SHARDS shards of released usage (src/common/quota.ts): what
   * frees usage (a job that finishes, a project archived, a file deleted) is ADDed here, negative,
   * to a shard taken in turn, and not to TenantUsage, so the tenant's one counter takes only
   * growth and the releases of a busy tenant spread over partitions of their own (docs/scaling.md,
   * "The usage counter"). A tenant's usage is its TenantUsage counters plus its shards'.
   */
  TenantUsageRelease: entity({
    type: 'TenantUsageRelease',
    idPrefix: undefined,
    // Counters that quota writes ADD to: nothing else is written.
    keeps: [],
    key: keyShape({ pk: 'USAGE#{shard}', sk: 'USAGE' }),
    attributes: {
      projects: attr.int(),
      storedBytes: attr.int(),
      runningJobs: attr.int(),
    },
  }),
  Project: entity({
    type: 'Project',
    idPrefix: 'proj',
    key: keyShape({ pk: '', sk: 'PROJECT#{projectId}' }),
    description: "An artist's project: the parent of its brief, milestones, logs and assets.",
    describe: {
      projectId: "The project's id (proj_…).",
      createdBy: 'Who created it.',
      connection: 'A page of projects, with the cursor to the next page.',
      createInput: 'A new project; it starts in planning at version 1.',
      one: 'One project; null when your tenant has none by that id.',
      create: 'Creates a project in planning, at version 1.',
      update: 'Changes a project, if it is still at expectedVersion (else CONFLICT naming the current one).',
    },
    attributes: {
      title: attr.string({
        required: true,
        description: "The project's title.",
        createDescription: "The project's title; projects(titlePrefix:) finds it.",
      }),
      medium: attr.string({
        max: 100,
        description: 'Art medium: oil, digital, …',
        createDescription: 'The medium: oil, watercolour, 3D, music video …',
        updateDescription: 'The medium.',
      }),
      client: attr.string({ max: 200, description: 'Who the work is for.' }),
      deadline: attr.date({ description: 'The day it is due.' }),
      budget: attr.objectOf({
        name: 'Budget',
        description: "A project's budget: an amount in a currency.",
        fields: {
          amount: attr.float({ required: true, description: 'The amount, in the currency below.' }),
          currency: attr.string({
            required: true,
            description: 'ISO 4217 code, e.g. EUR.',
            createDescription: 'An ISO 4217 code such as EUR or USD.',
          }),
        },
      })({ description: "The project's budget." }),
      customFields: attr.jsonObject()({
        description: 'Fields of your own, as a JSON object.',
        createDescription: 'Any fields of your own, as a JSON object.',
      }),
      // Archiving is its own mutation (archiveProject), never an input.
      archived: attr.boolean({
        required: true,
        default: false,
        internal: true,
        description: 'True once archived: it is then listed only with projects(archived: true).',
      }),
      archivedAt: attr.dateTime({ internal: true, description: 'When it was archived.' }),
    },
    status: {
      attribute: 'status',
      initial: 'planning',
      transitions: { planning: ['production'], production: ['complete'], complete: [] },
      descriptions: { planning: 'Being planned: brief and milestones.', production: 'The work is being made.', complete: 'Finished.' },
      description: 'Planning, production or complete: see ProjectStatus for the transitions.',
    },
    // Archived projects move to partitions of their own, so default lists never filter.
    indexes: {
      byStatus: { index: 'GSI1', pk: '{archived}_STATUS#{status}', sk: '{createdAt}#{projectId}', format: { archived: archivedPartition } },
      byTitle: {
        index: 'GSI2',
        pk: 'TYPE#{archived}',
        sk: '{title}#{projectId}',
        format: { archived: archivedPartition, title: normalizeText },
      },
      /** Projects by status across tenants, for operators: write-sharded like the jobs' index, merged on read. */
      acrossTenants: {
        index: 'GSI3',
        crossTenant: true,
        pk: '{archived}_STATUS#{status}',
        sk: '{updatedAt}#{tenantId}#{projectId}',
        format: { archived: archivedPartition },
        shards: opsShards('projectId'),
      },
    },
    search: { fields: ['title'], maxWords: 32 },
    // Archiving frees the slot: the quota bounds the projects a tenant works on.
    quota: { name: 'projects', counts: (project) => (project.archived ? 0 : 1) },
  }),
  Brief: entity({
    type: 'Brief',
    idPrefix: undefined,
    parent: 'Project',
    key: keyShape({ pk: '', sk: 'PROJECT#{projectId}#BRIEF#{version}', format: { version: briefVersionLabel } }),
    description: "One immutable version of a project's planning brief; only approvals are added later.",
    describe: {
      projectId: 'The project the brief is for.',
      createdAt: 'When this version was written.',
      createdBy: 'Who wrote this version.',
      connection: 'A page of brief versions, with the cursor to the next page.',
      create: 'Adds the next version, with its changelog entry.',
    },
    // A version is written whole by createBriefVersion, whose input is its own (src/brief).
    attributes: {
      version: attr.int({
        required: true,
        internal: true,
        description: 'The version number, from 1; versions are immutable but for their approvals.',
      }),
      label: attr.string({ required: true, internal: true, description: 'The version as stored, e.g. v000002.' }),
      requirements: attr.strings({ required: true, description: 'What the work must satisfy.' }),
      deliverables: attr.strings({ required: true, description: 'What will be delivered.' }),
      approvals: attr.listOf({
        name: 'Approval',
        description: "One person's decision on a brief version: who, approve or reject, when, and why.",
        fields: {
          by: attr.id({ required: true, description: 'Who decided: the user id from their token.' }),
          decision: attr.enum(['approved', 'changes_requested'], {
            name: 'ApprovalDecision',
            description: 'What a person decided about a brief version.',
            values: {
              approved: 'Approved as it is.',
              changes_requested: 'Not approved: changes are asked for, in a new version.',
            },
          })({ required: true, description: 'Approved, or changes requested.' }),
          comment: attr.string({ description: 'Why, in their words; null when they gave none.' }),
          at: attr.dateTime({ required: true, description: 'When the decision was made.' }),
        },
      })({ required: true, internal: true, description: 'The decisions on this version, oldest first.' }),
      changelog: attr.listOf({
        name: 'ChangelogEntry',
        description: 'What changed from the previous brief version to this one, and who made the change.',
        fields: {
          version: attr.int({ required: true, description: 'The version the entry describes.' }),
          summary: attr.string({ required: true, description: 'What changed, in a line.' }),
          by: attr.id({ required: true, description: 'Who made it.' }),
          at: attr.dateTime({ required: true, description: 'When the version was made.' }),
        },
      })({ required: true, internal: true, description: 'Every version up to this one, oldest first.' }),
    },
    events: { created: 'brief.version_created' },
  }),
  Milestone: entity({
    type: 'Milestone',
    idPrefix: 'ms',
    parent: 'Project',
    key: keyShape({ pk: '', sk: 'PROJECT#{projectId}#MILESTONE#{milestoneId}' }),
    description: 'A milestone of a project: name, due date, criteria and status.',
    attributes: {
      name: attr.string({ required: true, max: 200, description: 'What the milestone is called.' }),
      due: attr.date({ description: 'The day it is due.' }),
      criteria: attr.strings({ required: true, max: 50, default: [], description: 'Success criteria.' }),
    },
    status: {
      attribute: 'status',
      initial: 'pending',
      transitions: { pending: ['in_progress'], in_progress: ['complete'], complete: [] },
      descriptions: { pending: 'Not started.', in_progress: 'Being worked on.', complete: 'Reached.' },
    },
  }),
  Log: entity({
    type: 'Log',
    idPrefix: 'log',
    parent: 'Project',
    key: keyShape({ pk: '', sk: 'PROJECT#{projectId}#LOG#{logId}' }),
    description: 'A work log: a transcription and what AI extracted from it (materials, time, tags).',
    describe: {
      logId: "The log's id (log_…).",
      projectId: 'The project it belongs to.',
      connection: 'A page of logs, with the cursor to the next page.',
      createInput: 'A new work log: what was said or written, and what was used for how long.',
      one: 'One log of a project; null when your tenant has none by that id.',
      create: 'Logs work on a project; its materials become findable with materialUsage.',
      update: 'Replaces extraction results; material usage follows in the same write.',
    },
    // What was said is kept as it was said; an update replaces what was extracted from it.
    attributes: {
      rawText: attr.string({
        max: 100_000,
        readOnly: true,
        description: 'The original transcription.',
        createDescription: 'What was said or written (a voice transcription, say).',
      }),
      transcriptMeta: attr.jsonObject()({
        readOnly: true,
        description: 'Audio metadata of the transcription.',
        createDescription: "The transcription's metadata (engine, language, duration …), as JSON.",
      }),
      extracted: attr.jsonObject()({
        description: 'Structured AI extraction results.',
        createDescription: 'What AI extracted from the text, as JSON.',
        updateDescription: 'What AI extracted from the text, as JSON.',
      }),
      confidence: attr.json<unknown>()({
        description: 'AI confidence scores.',
        createDescription: "The extraction's confidence, as JSON.",
        updateDescription: "The extraction's confidence, as JSON.",
      }),
      mediaRefs: attr.strings({
        required: true,
        default: [],
        description: 'S3 object keys of linked media.',
        createDescription: 'S3 keys of recordings or photos under tenants/<your tenant>/ (no URLs).',
        updateDescription: 'S3 keys of recordings or photos under tenants/<your tenant>/.',
      }),
      materials: attr.strings({
        required: true,
        default: [],
        description: 'Materials used, as extracted.',
        createDescription: 'Materials used; each becomes findable with materialUsage.',
        updateDescription: 'Materials used (replaces the old list).',
      }),
      timeSpentMinutes: attr.int({ description: 'Minutes spent on the work logged.' }),
      tags: attr.strings({
        required: true,
        default: [],
        description: 'Tags of the log.',
        updateDescription: 'Tags of the log (replaces the old ones).',
      }),
      /** The ids of the assets linked to the log, kept by the assets' own transactions. */
      assetIds: attr.json<Set<string>>()({ internal: true, hidden: true }),
    },
    status: {
      attribute: 'attributionStatus',
      initial: 'pending',
      transitions: { pending: ['confirmed', 'rejected'], confirmed: [], rejected: [] },
      descriptions: {
        pending: 'Extracted by AI, not yet checked by a person.',
        confirmed: 'A person confirmed what was extracted.',
        rejected: 'A person rejected what was extracted.',
      },
      description: 'Whether a person confirmed the extraction: PENDING, CONFIRMED or REJECTED.',
      enumName: 'AttributionStatus',
    },
    indexes: { byAttribution: { index: 'GSI1', pk: 'LOG_STATUS#{attributionStatus}', sk: '{createdAt}#{logId}' } },
    // Materials first: they are short and what a log is looked up by, so a long text's words are the ones cut.
    search: { fields: ['materials', 'rawText'], maxWords: 40 },
  }),
  /** A scene of a music video (seed 001): generated in parallel with the project's other scenes. */
  Scene: entity({
    type: 'Scene',
    idPrefix: 'scene',
    parent: 'Project',
    key: keyShape({ pk: '', sk: 'PROJECT#{projectId}#SCENE#{sceneId}' }),
    description: 'A scene of a music video: its prompt, clips and generation status.',
    attributes: {
      sequence: attr.int({ required: true, description: 'Its place in the video, from 1.' }),
      prompt: attr.string({ required: true, max: 4000, description: 'What the scene shows, for the video model.' }),
      negativePrompt: attr.string({ max: 4000, description: 'What the scene must not show.' }),
      durationSeconds: attr.float({ description: 'How long the scene lasts, in seconds.' }),
      referenceImages: attr.strings({
        required: true,
        default: [],
        max: 10,
        s3Key: true,
        description: 'S3 keys of images the scene should look like (at most 10).',
      }),
      audioClip: attr.string({ s3Key: true, description: 'S3 key of the part of the track the scene plays over.' }),
      videoClip: attr.string({ s3Key: true, description: 'S3 key of the generated clip.' }),
      needsLipSync: attr.boolean({
        required: true,
        default: false,
        description: 'True when a character sings or speaks in it, so the clip is lip-synced.',
      }),
      lipSyncedClip: attr.string({ s3Key: true, description: 'S3 key of the lip-synced clip.' }),
      retryCount: attr.int({ required: true, default: 0, description: 'How many times its generation was retried.' }),
      errorMessage: attr.string({ max: 2000, description: 'Why its generation failed, when it did.' }),
    },
    status: {
      attribute: 'status',
      initial: 'pending',
      transitions: { pending: ['processing', 'failed'], processing: ['completed', 'failed'], completed: [], failed: [] },
      descriptions: {
        pending: 'Waiting to be generated.',
        processing: 'Being generated.',
        completed: 'Generated: its clip is ready.',
        failed: 'Generation failed: see errorMessage.',
      },
    },
    indexes: { byStatus: { index: 'GSI1', pk: 'SCENE_STATUS#{status}', sk: '{createdAt}#{sceneId}', list: 'scenesByStatus' } },
  }),
  /** Written in its log's transaction, so "where and how long did I use X" is one query. */
  MaterialUse: entity({
    type: 'MaterialUse',
    idPrefix: undefined,
    // A derived item: none of the server's version, times and author.
    keeps: [],
    parent: 'Log',
    key: keyShape({ pk: '', sk: 'MATERIAL#{material}#LOG#{logId}', format: { material: normalizeText } }),
    attributes: { projectId: attr.id({ required: true }), minutes: attr.int({ required: true }) },
  }),
  Asset: entity({
    type: 'Asset',
    idPrefix: 'asset',
    parent: 'Project',
    key: keyShape({ pk: '', sk: 'PROJECT#{projectId}#ASSET#{assetId}' }),
    description: 'A file of a project in S3. Only its object key is stored, never a URL.',
    describe: {
      assetId: "The asset's id within its project (asset_…).",
      projectId: 'The project it belongs to.',
      connection: 'A page of assets, with the cursor to the next page.',
      createInput: 'An asset whose file is already in S3 under your tenant (to upload one, use requestAssetUpload).',
      one: 'One asset of a project; null when your tenant has none by that id.',
      create: 'Registers an object already in S3 (the upload flow creates assets too).',
      update: "Changes an asset's descriptive fields (alt text, OCR, EXIF).",
      delete: 'Deletes the asset and returns it as it was.',
    },
    // Its file is fixed once created (a new file is a new version); the descriptive fields change.
    attributes: {
      type: attr.enum(['image', 'audio', 'document', 'model'], {
        description: 'What kind of file an asset is.',
        values: {
          image: 'A picture: a photo, a scan, a render.',
          audio: 'A sound file: a recording, a track.',
          document: 'A text or PDF document.',
          model: 'A 3D model.',
        },
      })({
        required: true,
        readOnly: true,
        description: 'What kind of file it is: image, audio, document or 3D model.',
        createDescription: 'What kind of file it is.',
      }),
      s3Key: attr.string({
        required: true,
        readOnly: true,
        description: 'The object key of the latest version (the one being uploaded while status is UPLOADING), under tenants/<tenantId>/.',
        createDescription: 'An object key under tenants/<tenantId>/; URLs and signed links are refused.',
      }),
      status: attr.enum(
        UPLOAD_STATES,
        UPLOAD_STATUS,
      )({
        required: true,
        internal: true,
        description: 'UPLOADING until the upload is confirmed, then READY.',
      }),
      latestVersion: attr.int({
        internal: true,
        description: 'The latest confirmed version; null until the first upload is confirmed.',
      }),
      /** Every version, oldest first (pending uploads included); shown by the `versions` field resolver. */
      versions: attr.listOf(ASSET_VERSION)({ required: true, internal: true, hidden: true }),
      size: attr.int({ readOnly: true, description: 'Size in bytes.', createDescription: "The file's size in bytes." }),
      contentType: attr.string({
        readOnly: true,
        description: "The file's media type (image/png …), as confirmed from S3.",
        createDescription: "The file's media type (image/png …).",
      }),
      exif: attr.jsonObject()({
        description: 'Image metadata.',
        createDescription: "The image's EXIF data, as JSON.",
        updateDescription: "The image's EXIF data, as JSON.",
      }),
      ocr: attr.string({ description: 'Text recognized in the file.' }),
      alt: attr.string({
        description: 'Accessibility description.',
        createDescription: 'Alternative text for people who cannot see the image.',
        updateDescription: 'Alternative text for people who cannot see the image.',
      }),
      linkedLogId: attr.id({
        ref: 'log',
        description: 'The id of the log this asset documents, when linked.',
        createDescription: 'A log of the same project.',
        updateDescription: 'Link to another log of the project, or null to unlink.',
      }),
      /** The job whose stage produced it (a stage whose outputs are assets, see src/job/job.kinds.ts). */
      jobId: attr.id({
        internal: true,
        description: 'The job whose stage produced this asset (a stage whose outputs are assets).',
      }),
      /** What the producing stage reported with it (its outputs). */
      metadata: attr.jsonObject()({ internal: true, description: 'What the producing stage reported with it (its outputs).' }),
    },
    indexes: {
      /**
       * The tenant's ready assets of one type, newest first, across its projects (sparse: an
       * upload still in progress is not browsable). Listing it reads no project's other children.
       */
      byType: { index: 'GSI3', pk: 'ASSET_TYPE#{type}', sk: '{createdAt}#{assetId}', when: { status: ['ready'] } },
    },
    search: { fields: ['alt', 'ocr'], maxWords: 40 },
    ttl: true,
    // Confirmed versions count (archived ones are still stored); an upload requested is checked against what is left.
    quota: {
      name: 'storedBytes',
      counts: (asset) => versionBytes(asset.versions, (status) => status !== 'uploading'),
      pending: (asset) => versionBytes(asset.versions, (status) => status === 'uploading'),
    },
  }),
  Inspiration: entity({
    type: 'Inspiration',
    idPrefix: 'insp',
    key: keyShape({ pk: '', sk: 'INSPIRATION#{inspirationId}' }),
    description: 'Something that inspired the artist: a note, or a file in S3.',
    describe: {
      inspirationId: "The inspiration's id (insp_…).",
      connection: 'A page of pieces of inspiration, with the cursor to the next page.',
      createInput: 'A new piece of inspiration: text, or a file already in S3 under your tenant.',
      one: 'One piece of inspiration; null when your tenant has none by that id.',
      create: 'Adds a piece of inspiration (text, or a file already in S3).',
      update: 'Changes a piece of inspiration.',
      delete: 'Deletes it and returns it as it was.',
    },
    attributes: {
      type: attr.enum(['text', 'image', 'audio', 'file'], {
        description: 'What a piece of inspiration is: text, or a file of a kind.',
        values: { text: 'Text only: a quote, a note, an idea.', image: 'An image file.', audio: 'An audio file.', file: 'Any other file.' },
      })({ required: true, readOnly: true, description: 'Text, image, audio or file.' }),
      text: attr.string({
        description: 'The inspiration itself, for the TEXT type; a note otherwise.',
        updateDescription: 'The text or note.',
      }),
      s3Key: attr.string({
        description: 'S3 object key, when the inspiration is a file.',
        createDescription: 'The S3 key of its file, under tenants/<your tenant>/ (no URL).',
        updateDescription: 'The S3 key of its file, under tenants/<your tenant>/ (no URL).',
      }),
      // The file's state and what the upload bound are the server's (requestInspirationUpload).
      fileStatus: attr.enum(
        UPLOAD_STATES,
        UPLOAD_STATUS,
      )({
        internal: true,
        description: 'For an uploaded file: UPLOADING until confirmed, then READY.',
      }),
      size: attr.int({ internal: true, description: "Its file's size in bytes, when it has a file." }),
      contentType: attr.string({ internal: true, description: "Its file's media type, when it has a file." }),
      /** Epoch seconds after which an unconfirmed upload can no longer be confirmed. */
      uploadExpiresAt: attr.int({ internal: true, hidden: true }),
      tags: attr.strings({
        required: true,
        default: [],
        description: 'Tags to find it by.',
        createDescription: 'Tags to find it by (inspirations(tag:)).',
        updateDescription: 'Tags to find it by (replaces the old ones).',
      }),
      linkedProjectId: attr.id({
        ref: 'proj',
        description: 'The project it inspires, if any.',
        updateDescription: 'The project it inspires.',
      }),
    },
    indexes: {
      /** A project's inspiration, newest first (sparse: only inspiration linked to a project is in it). */
      byProject: { index: 'GSI2', pk: 'TYPE#INSPIRATION#PROJECT#{linkedProjectId}', sk: '{createdAt}#{inspirationId}' },
    },
    // 30, not 40: an update may also replace all 30 tag items (60 writes).
    search: { fields: ['tags', 'text'], maxWords: 30 },
    quota: {
      name: 'storedBytes',
      counts: (inspiration) => (inspiration.fileStatus === 'ready' ? (inspiration.size ?? 0) : 0),
      pending: (inspiration) => (inspiration.fileStatus === 'uploading' ? (inspiration.size ?? 0) : 0),
    },
  }),
  /** Written in its inspiration's transaction, so listing by tag is one query. */
  InspirationTag: entity({
    type: 'InspirationTag',
    idPrefix: undefined,
    // A derived item: none of the server's version, times and author.
    keeps: [],
    parent: 'Inspiration',
    key: keyShape({ pk: '', sk: 'TAG#{tag}#INSPIRATION#{inspirationId}', format: { tag: normalizeText } }),
  }),
  /**
   * One word of a searchable entity (see src/common/search.ts), in the entity's own partition by
   * its slot, and in the tenant's word index by the word then the entity: `search(text)` reads the
   * words that start with a query word with one Query (begins_with) of the partition of its first
   * letter. Written, replaced and deleted in the entity's own transactions; a change of a word
   * rewrites its slot only, so the word index follows every change of the entity's text.
   */
  SearchWord: entity({
    type: 'SearchWord',
    idPrefix: undefined,
    // A derived item: none of the server's version, times and author.
    keeps: [],
    key: keyShape({ pk: 'SEARCH#{subjectId}', sk: 'WORD#{slot}', format: { slot: (n: number) => pad(n, 3) } }),
    attributes: {
      /** Its place among the entity's word items, from 0 (the key holds it zero-padded). */
      slot: attr.int({ required: true }),
      word: attr.string({ required: true }),
      /** The entity's type (Project, Log, Asset, Inspiration), and its project for a project's child. */
      subjectType: attr.string({ required: true }),
      projectId: attr.id(),
    },
    indexes: {
      byWord: {
        index: 'GSI2',
        pk: 'WORD#{initial}',
        sk: '{word}#{subjectId}',
        derive: { initial: (item: { word: string }) => initialOf(item.word) },
      },
    },
  }),
  /**
   * The activity of one project, keyed by its position in the stream: allocated at commit from
   * the stream's head (ProjectEventsHead), so key order is commit order without gaps.
   */
  ProjectEvent: entity({
    type: 'Event',
    idPrefix: 'evt',
    // An event: its own `at` says when; it has no version or author of the server's.
    keeps: [],
    parent: 'Project',
    key: keyShape({ pk: 'PROJECT#{projectId}#EVENTS', sk: 'EVENT#{position}', format: { position: positionLabel } }),
    attributes: eventAttributes,
    indexes: {
      ...eventIndexes,
      /**
       * The project's events by id, so a client that resumes with the (deprecated) `afterEventId`
       * has its position found by one keyed read of the caller's tenant and project, not by reading
       * the whole stream (see ActivityRepository.positionOfEvent).
       */
      byEventId: { index: 'GSI3', pk: 'PROJECT#{projectId}#EVENT_IDS', sk: '{eventId}' },
    },
    ttl: true,
  }),
  /** The last position of a project's activity stream (no TTL: positions are never reused). */
  ProjectEventsHead: entity({
    type: 'StreamHead',
    idPrefix: undefined,
    // Written by the unit of work's stream allocation (its position only).
    keeps: [],
    attributes: headAttributes,
    parent: 'Project',
    key: keyShape({ pk: 'PROJECT#{projectId}#EVENTS', sk: 'HEAD' }),
  }),
  /** The status changes of a project's jobs, by position (see ProjectEvent). */
  ProjectJobStatusEvent: entity({
    type: 'Event',
    idPrefix: undefined,
    // An event: its own `at` says when; it has no version or author of the server's.
    keeps: [],
    parent: 'Project',
    key: keyShape({ pk: 'PROJECT#{projectId}#JOBSTATUS', sk: 'EVENT#{position}', format: { position: positionLabel } }),
    attributes: jobEventAttributes,
    ttl: true,
  }),
  ProjectJobStatusHead: entity({
    type: 'StreamHead',
    idPrefix: undefined,
    // Written by the unit of work's stream allocation (its position only).
    keeps: [],
    attributes: headAttributes,
    parent: 'Project',
    key: keyShape({ pk: 'PROJECT#{projectId}#JOBSTATUS', sk: 'HEAD' }),
  }),
  /**
   * The status changes of the tenant's jobs, by position (see ProjectEvent): shard 0 of the
   * tenant's job status stream (see JOB_STATUS_SHARDS in src/common/streams.ts), the stream all of
   * them went to before it was sharded, under the same key.
   */
  TenantJobStatusEvent: entity({
    type: 'Event',
    idPrefix: undefined,
    // An event: its own `at` says when; it has no version or author of the server's.
    keeps: [],
    key: keyShape({ pk: 'JOBSTATUS', sk: 'EVENT#{position}', format: { position: positionLabel } }),
    attributes: jobEventAttributes,
    ttl: true,
  }),
  TenantJobStatusHead: entity({
    type: 'StreamHead',
    idPrefix: undefined,
    // Written by the unit of work's stream allocation (its position only).
    keeps: [],
    attributes: headAttributes,
    key: keyShape({ pk: 'JOBSTATUS', sk: 'HEAD' }),
  }),
  /**
   * Shards 1 and up of the tenant's job status stream, each a partition of its own with its own
   * head, so that one tenant's status changes are not bound by one partition's write limit
   * (docs/scaling.md, "Status heads"). A job's changes all go to one shard (jobStatusShard).
   */
  TenantJobStatusShardEvent: entity({
    type: 'Event',
    idPrefix: undefined,
    // An event: its own `at` says when; it has no version or author of the server's.
    keeps: [],
    key: keyShape({ pk: 'JOBSTATUS#{shard}', sk: 'EVENT#{position}', format: { position: positionLabel } }),
    attributes: { ...jobEventAttributes, shard: attr.int({ required: true }) },
    ttl: true,
  }),
  TenantJobStatusShardHead: entity({
    type: 'StreamHead',
    idPrefix: undefined,
    // Written by the unit of work's stream allocation (its position only).
    keeps: [],
    attributes: headAttributes,
    key: keyShape({ pk: 'JOBSTATUS#{shard}', sk: 'HEAD' }),
  }),
  /** The activity that belongs to no project (tenant, inspiration). */
  TenantEvent: entity({
    type: 'Event',
    idPrefix: 'evt',
    // An event: its own `at` says when; it has no version or author of the server's.
    keeps: [],
    key: keyShape({ pk: 'EVENTS', sk: 'EVENT#{ulid}' }),
    attributes: eventAttributes,
    indexes: eventIndexes,
    ttl: true,
  }),
  /** A job lives in its own partition, so a busy tenant's step updates spread over many partitions. */
  Job: entity({
    type: 'Job',
    idPrefix: 'job',
    key: keyShape({ pk: 'JOB#{jobId}', sk: 'JOB' }),
    description: 'A pipeline job: ordered steps, status, progress and its own event stream.',
    describe: {
      jobId: "The job's id (job_…).",
      createdBy: 'Who created it.',
      connection: 'A page of jobs, with the cursor to the next page.',
    },
    attributes: {
      projectId: attr.id({ required: true, ref: 'proj', description: 'The project it works for.' }),
      kind: attr.string({ required: true, max: 100, description: 'Free text, e.g. 3D_CHARACTER, MUSIC_VIDEO, PHOTO_EDIT.' }),
      /** A pool hands out a tenant's higher-priority jobs' work first. */
      priority: attr.int({ min: 0, max: 9, description: 'From 0 (lowest) to 9 (highest); null: the default, 5.' }),
      plan: attr.listOf({
        name: 'PlannedStep',
        description: "One step of a job's plan, in the order the steps run.",
        fields: {
          name: attr.string({ required: true, description: "The step's name." }),
          order: attr.int({ required: true, description: 'Its place in the plan, from 1.' }),
        },
      })({ required: true, description: 'Its steps in order.' }),
      /** The current attempt of each planned step. */
      attempts: attr.json<Record<string, number>>()({ required: true, hidden: true }),
      currentStep: attr.string({ description: 'The step running or waiting now; null once the job has finished.' }),
      progress: attr.float({ required: true, description: '0 to 1.' }),
      completedSteps: attr.int({ required: true, description: 'How many steps have completed.' }),
      failedSteps: attr.int({ required: true, description: 'How many step attempts have failed.' }),
      maxAttempts: attr.int({ required: true, min: 1, max: 10, description: 'How many attempts each step gets before the job fails.' }),
      // Any JSON value for a free-form plan; an object of the kind's declared fields for a declared kind.
      inputs: attr.json<unknown>()({ description: 'The inputs it was created with.' }),
      provider: attr.string({ max: 100, description: 'Who runs the pipeline, as given to createJob.' }),
      correlationId: attr.string({ max: 200, description: 'Your own id for the run, as given to createJob.' }),
      /** True when its plan came from its declared kind (see src/job/job.kinds.ts), not from the request. */
      declared: attr.boolean({ internal: true, hidden: true }),
      /** Exact counters of the work items of each fan-out stage, kept in the transaction of every item change; the API's itemCounts and stageItemCounts show them. */
      itemCounts: attr.json<Record<string, ItemCountsItem>>()({ hidden: true }),
      error: attr.objectOf(JOB_ERROR)({ description: 'Why the job failed; null unless it is FAILED.' }),
      startedAt: attr.dateTime({ description: 'When its first step started.' }),
      finishedAt: attr.dateTime({ description: 'When it COMPLETED, FAILED or was CANCELLED.' }),
      /** With the inputs, what makes its work reusable (src/job/job.reuse.ts). */
      seed: attr.string({ max: 200, description: 'The seed the run uses, as given to createJob.' }),
      modelVersion: attr.string({ max: 200, description: 'The model version the run uses, as given to createJob.' }),
      /** False when the job asked not to take stored outputs (createJob reuse: false); absent means it does (the API's reuse says so). */
      reuse: attr.boolean({ hidden: true }),
    },
    status: { ...JOB_MACHINE, description: 'Where the job is: see JobStatus for the transitions.' },
    // A job counts against the plan's running jobs until it finishes (src/common/quota.ts), so
    // deleting or archiving a finished job leaves the count alone; retryJob (FAILED → RUNNING)
    // counts it again, and is refused at the limit like a create.
    quota: {
      name: 'runningJobs',
      counts: (job) => (job.status === 'COMPLETED' || job.status === 'FAILED' || job.status === 'CANCELLED' ? 0 : 1),
    },
    indexes: {
      /** The tenant's jobs by status, latest change first. */
      byStatus: { index: 'GSI1', pk: 'JOB_STATUS#{status}', sk: '{updatedAt}#{jobId}', shards: JOB_SHARDS },
      /** A project's jobs, newest first. */
      byProject: { index: 'GSI2', pk: 'TYPE#JOB#PROJECT#{projectId}', sk: '{createdAt}#{jobId}' },
      /** Jobs by status across tenants, for operators: write-sharded, merged on read. */
      acrossTenants: {
        index: 'GSI3',
        crossTenant: true,
        pk: 'JOB_STATUS#{status}',
        sk: '{updatedAt}#{tenantId}#{jobId}',
        shards: opsShards('jobId'),
      },
      /** A user's job history, newest first. */
      byCreator: { index: 'GSI4', pk: 'USER#{createdBy}#JOBS', sk: '{createdAt}#{jobId}', shards: JOB_SHARDS },
    },
    ttl: true,
  }),
  Step: entity({
    type: 'Step',
    idPrefix: undefined,
    // A step attempt is written whole by stepWrite (src/job/job.writes.ts): when it was last written, no version or author.
    keeps: ['updatedAt'],
    parent: 'Job',
    // A finished job's steps expire with it (the settle sweep writes their expiresAt, src/job/job.settle.ts).
    ttl: true,
    key: keyShape({
      pk: 'JOB#{jobId}',
      sk: 'STEP#{order}#{name}#{attempt}',
      format: { order: (n: number) => pad(n, 2), attempt: (n: number) => pad(n, 2) },
    }),
    description: 'One attempt of one pipeline step. A retry is a new attempt; earlier ones stay readable.',
    describe: {
      jobId: 'The job it belongs to.',
      connection: 'A page of step attempts, with the cursor to the next page.',
    },
    // A step attempt's API shows no version, times or author: its own times say what happened when.
    api: { system: [] },
    attributes: {
      name: attr.string({ required: true, description: "The step's name, as in the job's plan." }),
      order: attr.int({ required: true, description: "Its place in the job's plan, from 1." }),
      attempt: attr.int({ required: true, description: 'Which attempt of the step this is, from 1.' }),
      progress: attr.float({ required: true, description: 'From 0 to 1, as the worker reports it.' }),
      // Every step is written with its artifacts (none at first).
      artifacts: attr.strings({ shownRequired: true, description: 'S3 object keys of what the step produced.' }),
      metrics: attr.jsonObject()({ description: 'What the worker measured (GPU seconds …), as JSON.' }),
      outputs: attr.jsonObject()({ description: "What the step produced, as its stage's declared outputs (see jobKinds)." }),
      // A retry's attempt and a completed one write null here (src/job/job.machine.ts StepState).
      error: attr.objectOf(JOB_ERROR)({ nullable: true, description: 'Why this attempt failed; null unless it FAILED.' }),
      approvedBy: attr.id({ description: 'Who approved or rejected the step after review.' }),
      decidedAt: attr.dateTime({ description: 'When a person approved or rejected it.' }),
      startedAt: attr.dateTime({ description: 'When this attempt started.' }),
      finishedAt: attr.dateTime({ description: 'When this attempt completed or failed.' }),
      /** Its job's kind, so that claimable work can be listed by kind. */
      kind: attr.string({ hidden: true }),
      /** This running attempt was claimed by a pool worker (it counts in the tenant's PoolLoad). */
      pooled: attr.boolean({ internal: true, hidden: true }),
      /** Who started or claimed this attempt, and until when it holds it without a report. */
      worker: attr.string({ description: 'The worker that started or claimed this attempt.' }),
      leaseExpiresAt: attr.dateTime({
        description: 'Until when the worker holds this attempt without reporting; after it, claimWork hands the step to another worker.',
      }),
      /** Its job's current attempt of its current step, while the job runs or waits to: what may make it claimable (stepClaimableFrom). */
      current: attr.boolean({ internal: true, hidden: true }),
      /**
       * Its stage is a single step, not a fan-out stage (stepWrite marks it): its claimable entry is
       * spread over the claimable indexes' shards (CLAIMABLE_SHARDS). Unmarked (a fan-out stage's
       * step, or one written before the mark), it stays in shard 0.
       */
      singleStep: attr.boolean({ internal: true, hidden: true }),
      /** The completed step whose stored outputs this attempt took instead of running (src/job/job.reuse.ts). */
      reusedFrom: attr.objectOf(REUSE_SOURCE)({
        description: 'Set when this attempt took the stored outputs of a completed step instead of running.',
      }),
      /** Whatever its renewals. */
      timesOutAt: attr.dateTime({
        description:
          "When this running attempt's time is up (its stage's attemptTimeoutSeconds after it started), whatever its progress reports renew; null without an attempt timeout.",
      }),
      waitsUntil: attr.dateTime({
        description: "When this waiting attempt may start: after its stage's retry backoff; null when it may start at once.",
      }),
      /**
       * How many attempts of the step before this one their workers handed back (handBackStep):
       * they are not counted against the job's maxAttempts, so this attempt has that many more.
       */
      handedBack: attr.int({ internal: true, hidden: true }),
    },
    status: { ...STEP_MACHINE, description: 'Where this attempt is: see StepStatus for the transitions.' },
    indexes: {
      /** Steps paused for a person's review (sparse: only while paused), most recent first. */
      awaitingReview: { index: 'GSI1', pk: 'STEP_STATUS#{status}', sk: '{updatedAt}#{jobId}#{name}', when: { status: ['PAUSED'] } },
      ...stepClaimableIndexes,
    },
  }),
  /**
   * One work item of a fan-out stage (src/job/job.aggregate.ts): its inputs, outputs, status, current
   * attempt, lease and error. Items of a stage run in parallel on any number of workers; each is
   * claimable through the same sparse indexes as steps (same partitions, so one claimWork query
   * finds both), keyed by when it became claimable. One item per work item: a lapsed or failed
   * attempt moves it to the next attempt in place, and the job's stream records every attempt.
   */
  WorkItem: entity({
    type: 'WorkItem',
    idPrefix: undefined,
    parent: 'Job',
    key: keyShape({
      pk: 'JOB#{jobId}',
      sk: 'ITEM#{stage}#{sequence}',
      format: { sequence: (n: number) => pad(n, 5) },
    }),
    description:
      'One work item of a fan-out stage: typed inputs (see jobKinds), outputs, status, current attempt, lease and error. Items run in parallel on any number of workers.',
    describe: {
      jobId: 'The job it belongs to.',
      version: 'Increments on every change of the item.',
      connection: "A page of a job's work items, with the cursors to read on.",
    },
    // Items are read through their job (no Node); the API shows only their version of what the server adds.
    api: { node: false, system: ['version'] },
    attributes: {
      stage: attr.string({ required: true, description: 'The fan-out stage it belongs to (a stage name of the job kind).' }),
      sequence: attr.int({ required: true, description: 'Its place in the stage, from 1.' }),
      attempt: attr.int({ required: true, description: 'The current attempt, from 1; report on the item with it.' }),
      /** Its last attempt; retryWorkItem grants a new series. */
      maxAttempt: attr.int({ required: true, description: 'The last attempt it may make before it fails.' }),
      progress: attr.float({ required: true, description: 'Its current attempt’s progress, 0 to 1.' }),
      inputs: attr.jsonObject()({ required: true, description: "Its typed inputs (the stage's item inputs, see jobKinds)." }),
      outputs: attr.jsonObject()({ description: "What it produced, as the stage's item outputs; null until it completes." }),
      error: attr.objectOf(JOB_ERROR)({ description: 'Why its last attempt failed (LEASE_EXPIRED when its worker stopped reporting).' }),
      worker: attr.string({ description: 'The worker that holds (or last held) it.' }),
      leaseExpiresAt: attr.dateTime({ description: 'Until when its worker holds it without reporting.' }),
      /** Whatever its renewals. */
      timesOutAt: attr.dateTime({
        description:
          "When its running attempt's time is up (the stage's attemptTimeoutSeconds after the claim), whatever its progress reports renew; null without an attempt timeout or while not running.",
      }),
      startedAt: attr.dateTime({ description: 'When its current attempt started.' }),
      finishedAt: attr.dateTime({ description: 'When it COMPLETED or FAILED for good.' }),
      kind: attr.string({ required: true, hidden: true }),
      /** When a PENDING item may be claimed (after its backoff); the API shows it only for a PENDING item. */
      availableAt: attr.dateTime({ internal: true, hidden: true }),
      /** The completed item whose stored outputs this one took instead of running (src/job/job.reuse.ts). */
      reusedFrom: attr.objectOf(REUSE_SOURCE)({
        description: 'Set when it took the stored outputs of a completed item instead of running.',
      }),
      /** Its running attempt was claimed by a pool worker (it counts in the tenant's PoolLoad). */
      pooled: attr.boolean({ internal: true, hidden: true }),
      /**
       * Where the work stands, as its holder last reported it with its progress (a system job's
       * scan position and counts, src/system-jobs/runner.ts): a later attempt resumes from it.
       */
      checkpoint: attr.json()({ internal: true, hidden: true }),
    },
    status: {
      attribute: 'status',
      enumName: 'WorkItemStatus',
      description: 'Where it stands: PENDING, RUNNING, COMPLETED, FAILED or CANCELLED.',
      initial: 'PENDING',
      // RUNNING → PENDING: an attempt failed or its lease lapsed and attempts remain; FAILED → PENDING: retryWorkItem;
      // → CANCELLED: its job was cancelled before it finished (the settle sweep, src/job/job.settle.ts);
      // PENDING → COMPLETED: it took the stored outputs of a completed item with its key (src/job/job.reuse.ts).
      transitions: {
        PENDING: ['RUNNING', 'COMPLETED', 'CANCELLED'],
        RUNNING: ['PENDING', 'RUNNING', 'COMPLETED', 'FAILED', 'CANCELLED'],
        COMPLETED: [],
        FAILED: ['PENDING'],
        CANCELLED: [],
      },
    },
    indexes: {
      /**
       * The job's items a worker may take, by when they can be taken (sparse): from when they wait
       * (PENDING, after any backoff) or from when their lease runs out (RUNNING). It follows the
       * item's own state only, so it is right after every write of the item; whether the job is
       * at the item's stage is the job's JobWork entry (below), written with the job. Items that
       * became claimable at the same moment (added together) go by sequence, padded as in the
       * item's own key so that 9 sorts before 10 (items written before that are rewritten by
       * migration 003-claim-order).
       */
      claimableInJob: {
        index: 'GSI4',
        pk: 'JOB#{jobId}#WORK',
        sk: '{claimableFrom}#{stage}#{sequence}',
        format: { sequence: (n: number) => pad(n, 5) },
        when: {
          reads: ['status', 'availableAt', 'createdAt', 'leaseExpiresAt', 'timesOutAt'],
          holds: (item: ClaimableUnit) => itemClaimableFrom(item) !== undefined,
          example: { status: 'PENDING', availableAt: '2026-01-01T00:00:00.000Z' },
        },
        derive: { claimableFrom: (item: ClaimableUnit) => itemClaimableFrom(item) ?? '' },
      },
      /**
       * The tenant's dead letters (sparse): items FAILED past their attempts, by kind and stage,
       * then by the code of their last error and when they failed, so one error code of one stage
       * is one prefix, newest last (src/job/job.dead-letters.ts reads it both ways).
       */
      deadLetters: {
        index: 'GSI1',
        pk: 'DEAD#{kind}#{stage}',
        sk: '{errorCode}#{finishedAt}#{jobId}#{sequence}',
        when: { status: ['FAILED'] },
        format: { sequence: (n: number) => pad(n, 5) },
        derive: { errorCode: (item: { error?: { code?: string } }) => deadLetterCode(item.error?.code) },
      },
      /**
       * The same dead letters across tenants, for operators: write-sharded by job like the jobs'
       * status index, merged on read, newest first within an error code.
       */
      deadLettersAcrossTenants: {
        index: 'GSI3',
        crossTenant: true,
        pk: 'DEAD#{kind}#{stage}',
        sk: '{errorCode}#{finishedAt}#{tenantId}#{jobId}#{sequence}',
        when: { status: ['FAILED'] },
        format: { sequence: (n: number) => pad(n, 5) },
        derive: {
          errorCode: (item: { error?: { code?: string } }) => deadLetterCode(item.error?.code),
        },
        shards: opsShards('jobId'),
      },
    },
    ttl: true,
  }),
  /**
   * A job whose current stage is a fan-out stage with unfinished items, while it runs (or waits
   * to): the entry claimWork finds (in the steps' claimable partitions, so one query finds both),
   * then it takes the job's claimable items (WorkItem.claimableInJob). Derived from the job and
   * written in the job's own transactions, so it leaves in the transaction that pauses, cancels,
   * fails or moves the job on: a worker never meets the items of a job that stopped. A declared
   * job at a single-step stage has one too, in the pools' index only, while its step can be
   * claimed (from when: its availableAt), so pool workers find steps as they find items.
   */
  JobWork: entity({
    type: 'JobWork',
    idPrefix: undefined,
    // Written by the server's own transactions, with no author.
    keeps: ['version', 'createdAt', 'updatedAt'],
    parent: 'Job',
    key: keyShape({ pk: 'JOB#{jobId}', sk: 'WORK' }),
    attributes: {
      kind: attr.string({ required: true }),
      /** The stage (fan-out or single step), named as a step is (so the steps' index keys apply). */
      name: attr.string({ required: true }),
      /** In the tenant's claimable indexes: a fan-out stage's entry (a single step is there itself). */
      claimable: attr.boolean({ internal: true }),
      /** In the pools' index: every entry. */
      inPool: attr.boolean({ internal: true }),
      /**
       * When the job reached the stage (the entry's place among claimable work, oldest first); for
       * a single step under a lease, when a claim may take it over, on a grid that progress reports
       * move only once per half a lease (src/job/job.writes.ts offeredFrom).
       */
      availableAt: attr.dateTime({ internal: true }),
      /** The job's priority (0–9), for the pool's order within a tenant. */
      priority: attr.int({ required: true }),
    },
    indexes: {
      /**
       * Shared worker pools (src/job/job.pool.ts): every tenant's jobs with claimable items of one
       * kind and stage, grouped by tenant, then by priority (highest first) and age. Across tenants:
       * read only by the pool claimer, which hands out work under leases.
       */
      pool: {
        index: 'GSI1',
        crossTenant: true,
        pk: 'POOL#{kind}#{name}',
        sk: '{tenantId}#{rank}#{availableAt}#{jobId}',
        when: { inPool: [true] },
        derive: { rank: (work: { priority: number }) => String(9 - work.priority) },
      },
      ...claimableIndexes,
    },
  }),
  /**
   * A tenant's share of the shared worker pools: its weight (claims are handed out by weight among
   * the tenants with work; 1 when unset) and the most items it may have running through pools at
   * once (none when unset). Set by operators only (setPoolShare).
   */
  /**
   * A named item of the server's own scheduled work in the system partition (SYSTEM_TENANT):
   * `LEASE#archive` names the archive's last system job in `holder` (src/archive/archive.jobs.ts),
   * moved on to the next job only on condition that it still names the one its mover read, so
   * starters on every instance agree on one run. Before the archive ran as a job, this item was its
   * runner's lease (a holder instance until `expiresAt`, and the last run's result in `lastRun`).
   */
  SystemLease: entity({
    type: 'SystemLease',
    idPrefix: undefined,
    // Moved by a conditional put of its name and holder (src/archive/archive.jobs.ts).
    keeps: [],
    key: keyShape({ pk: '', sk: 'LEASE#{name}' }),
    attributes: {
      name: attr.string({ required: true }),
      holder: attr.string({ required: true }),
      /** Written by versions before the archive ran as a job (the last run's ArchiveRunResult); read by none now. */
      lastRun: attr.json()(),
    },
    ttl: true,
  }),
  PoolShare: entity({
    type: 'PoolShare',
    idPrefix: undefined,
    // Written by the server's own transactions, with no author.
    keeps: ['version', 'createdAt', 'updatedAt'],
    key: keyShape({ pk: '', sk: 'POOLSHARE' }),
    description: "A tenant's share of the shared worker pools (setPoolShare).",
    describe: { tenantId: 'The tenant.' },
    api: { node: false, system: [] },
    attributes: {
      weight: attr.int({
        required: true,
        description: 'Its weight among the tenants with pooled work: claims are handed out in proportion (1 by default).',
      }),
      maxRunning: attr.int({
        description:
          'The most of its items that may be running through pools at once (checked in every claim’s transaction); null: no limit.',
      }),
    },
  }),
  /**
   * How many of a tenant's work items are running under a pool worker's claim, exactly: every job
   * transaction that starts or ends such an attempt adds to it, and one that would take it past
   * the tenant's maxRunning is refused by its condition (src/job/job.aggregate.ts).
   */
  PoolLoad: entity({
    type: 'PoolLoad',
    idPrefix: undefined,
    // A counter that claims ADD to (src/job/job.aggregate.ts): nothing else is written.
    keeps: [],
    key: keyShape({ pk: '', sk: 'POOLLOAD' }),
    attributes: {
      running: attr.int({ required: true }),
    },
  }),
  /**
   * One migration of the table (src/migrations), in the system partition (SYSTEM_TENANT): the job
   * that runs it, named once (the first run to write this entry wins, so a migration has one job),
   * and when that job completed. Never expires: it is how a migration is known to have run.
   */
  Migration: entity({
    type: 'Migration',
    idPrefix: undefined,
    key: keyShape({ pk: '', sk: 'MIGRATION#{migrationId}' }),
    // The API's Migration view shows its name and when it was applied (src/migrations/migration.type.ts).
    attributes: {
      name: attr.string({ required: true, description: 'Its name, e.g. search-backfill.' }),
      jobId: attr.id({ required: true }),
      appliedAt: attr.dateTime({ description: 'When its job completed.' }),
    },
  }),
  /**
   * A finished job whose work items have not yet taken its expiry (and, when it was cancelled,
   * left its claimable items): written in the transaction that finishes the job, removed by the
   * settle sweep (src/job/job.settle.ts) once every item is done, so the sweep resumes after any
   * crash and is shown to finish by this entry's absence. A deleted job whose partition did not fit
   * in the deleting transaction gets one too (`deleting`), written in that transaction.
   */
  JobSettle: entity({
    type: 'JobSettle',
    idPrefix: undefined,
    // Written by the server's own transactions, with no author.
    keeps: ['version', 'createdAt', 'updatedAt'],
    parent: 'Job',
    key: keyShape({ pk: 'JOB#{jobId}', sk: 'SETTLE' }),
    attributes: {
      /** The job's expiry, which its items take. */
      jobExpiresAt: attr.int({ required: true }),
      /** True when the job was cancelled: its unfinished items are cancelled too. */
      cancelled: attr.boolean(),
      /** The sort key of the last item settled: the sweep resumes after it. */
      after: attr.string(),
      /**
       * True when the job was deleted: the sweep deletes what is left of its partition (its items,
       * events and steps, more than one transaction holds), page by page, then this entry.
       */
      deleting: attr.boolean(),
    },
    indexes: {
      /** Every job waiting to be settled, across tenants (the sweep's work list), write-sharded. */
      pending: {
        index: 'GSI3',
        crossTenant: true,
        pk: 'SETTLE',
        sk: '{updatedAt}#{tenantId}#{jobId}',
        shards: opsShards('jobId'),
      },
    },
  }),
  /** A job event's `seq` is the job's version after the change, so the stream is gapless. */
  JobEvent: entity({
    type: 'Event',
    idPrefix: undefined,
    // An event: its own `at` says when; it has no version or author of the server's.
    keeps: [],
    parent: 'Job',
    key: keyShape({ pk: 'JOB#{jobId}', sk: 'EVENT#{seq}', format: { seq: (n: number) => pad(n, 10) } }),
    attributes: jobEventAttributes,
    ttl: true,
  }),
  /**
   * The outputs of a completed step or item of a stage declared reusable (src/job/job.reuse.ts),
   * under the hash of what made it (its key fields, the job's seed and model version, the kind and
   * the stage): a later step or item of the tenant with the same key takes them instead of running
   * until `expiresAt`. Written in the completion's own transaction; a later completion with the
   * same key replaces it.
   */
  ReuseRecord: entity({
    type: 'ReuseRecord',
    idPrefix: undefined,
    // Its completedAt says when; a later completion with the same key replaces it.
    keeps: [],
    key: keyShape({ pk: 'REUSE#{contentKey}', sk: 'REUSE' }),
    attributes: {
      jobId: attr.id({ required: true }),
      kind: attr.string({ required: true }),
      stage: attr.string({ required: true }),
      /** The item's sequence; absent for a step. */
      sequence: attr.int(),
      outputs: attr.json()(),
      artifacts: attr.strings(),
      metrics: attr.json()(),
      completedAt: attr.dateTime({ required: true }),
    },
    ttl: true,
  }),
  /**
   * A create mutation's idempotency key (see src/common/idempotency.ts): the entity it created and
   * a hash of the request, kept for the window. Written in the create's own transaction, only if
   * new, so concurrent duplicates create one entity. `key` is a hash of the caller and the
   * client's key, so one user's keys never meet another's.
   */
  CreateRequest: entity({
    type: 'CreateRequest',
    idPrefix: undefined,
    keeps: ['createdAt'],
    key: keyShape({ pk: 'IDEMPOTENCY#{key}', sk: 'CREATE' }),
    attributes: {
      fingerprint: attr.string({ required: true }),
      entity: attr.string({ required: true }),
      target: attr.json<{ PK: string; SK: string }>()({ required: true }),
    },
    ttl: true,
  }),
};

/** Where a reused step's or item's outputs came from: the completed step (no sequence) or item. */
export type ReuseSourceItem = AttributeValues<(typeof REUSE_SOURCE)['fields']>;

/** Why a job or step failed. */
export type JobErrorItem = AttributeValues<(typeof JOB_ERROR)['fields']>;

/** The counters of one fan-out stage's items (pending = total − running − completed − failed). */
export type ItemCountsItem = AttributeValues<(typeof ITEM_COUNTS)['fields']>;

/** One stored version of an asset's file. */
export type AssetVersionItem = AttributeValues<(typeof ASSET_VERSION)['fields']>;

export type EntityName = keyof typeof entities;

/** The stored item type of an entity, e.g. `EntityItem<'Milestone'>`. */
export type EntityItem<N extends EntityName> = (typeof entities)[N]['item'];

/**
 * The entities clients refetch and cache by a global id (GraphQL's Node interface): their
 * GraphQL type has the entity's name, and the id carries the values of its key template (see
 * global-id.ts). A feature says how to read each of its own (Feature.nodes).
 */
export const NODE_ENTITIES = [
  'Tenant',
  'Project',
  'Brief',
  'Milestone',
  'Scene',
  'Log',
  'Asset',
  'Inspiration',
  'Job',
  'Step',
] as const satisfies readonly EntityName[];

/** The id prefixes of the entities the server creates; ids are `<prefix>_<ULID>`. */
export type IdPrefix = NonNullable<(typeof entities)[EntityName]['idPrefix']>;

/** The entities whose items nest under a project's sort key (`PROJECT#p#<KIND>#…`) in the tenant's partition. */
export type ProjectChild = {
  [N in EntityName]: NonNullable<(typeof entities)[N]['parent']> extends 'Project'
    ? (typeof entities)[N]['key']['shape']['pk'] extends ''
      ? N
      : never
    : never;
}[EntityName];

/** The project children with ids of their own (a brief is keyed by its version instead). */
export type IdentifiedProjectChild = { [N in ProjectChild]: (typeof entities)[N]['idPrefix'] extends string ? N : never }[ProjectChild];

/** The names of the declared entities, in declaration order. */
export const entityNames = Object.keys(entities).filter((name): name is EntityName => name in entities);

/** The project children, derived from the declarations. */
export const projectChildren = entityNames.filter(
  (name): name is ProjectChild => entities[name].parent === 'Project' && entities[name].key.shape.pk === '',
);
