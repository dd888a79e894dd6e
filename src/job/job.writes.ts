import { attemptEndsAt, entities, type EntityItem, ITEM_COUNTS, type ItemCountsItem, stepClaimableFrom } from '../common/entities';
import { FINISHED_JOB_TTL_DAYS, JOB_EVENT_TTL_DAYS } from '../config';
import type { Scope } from '../common/scope';
import { jobStatusShard } from '../common/streams';
import { type AnyModel, attr, type PutValues, type ShapeValues } from '../infra/dynamo/entity';
import { del, event, type Item, type UnitWrite, update, type Write } from '../infra/dynamo/write';
import type { Key } from '../common/keys';
import { fanOutOf, stageOf } from './job.kinds';
import type { ReusedWork } from './job.reuse';
import { ItemStatus, type JobEventType, JobStatus, type StepState, StepStatus, TERMINAL } from './job.machine';

/*
 * What a change of the job aggregate writes besides the job itself: its step attempts, its events,
 * its JobWork and JobSettle entries. All of it is derived from the state the change left, and
 * written in the change's own transaction: nothing here is repaired afterwards.
 */

export type JobItem = EntityItem<'Job'>;
export type WorkItemItem = EntityItem<'WorkItem'>;

/** A job's priority when createJob names none (0 lowest, 9 highest). */
const DEFAULT_PRIORITY = 5;

/** The counters a job keeps of each fan-out stage's items, as declared (ITEM_COUNTS). */
const COUNTERS = Object.keys(ITEM_COUNTS.fields).filter((name): name is keyof ItemCountsItem => name in ITEM_COUNTS.fields);

/** Every counter at zero: a stage's before it has items. */
const noCounts = (): ItemCountsItem => ({ total: 0, running: 0, completed: 0, failed: 0 });

/** The counts of a stage's items (zeros before it has any). */
export const countsOf = (job: { itemCounts?: Record<string, ItemCountsItem> }, stage: string): ItemCountsItem =>
  job.itemCounts?.[stage] ?? noCounts();

/**
 * A job's item counters as the API shows them (ItemCounts): one fan-out stage's stored counters, or
 * their totals over all its stages (no stage); its pending field follows from them.
 */
export const STAGE_ITEM_COUNTS = {
  ...ITEM_COUNTS,
  fields: {
    stage: attr.string({ description: 'The fan-out stage counted; null for the totals over all stages.' }),
    ...ITEM_COUNTS.fields,
  },
} as const;
export type StageItemCounts = ShapeValues<typeof STAGE_ITEM_COUNTS>;

type CountedJob = { itemCounts?: Record<string, ItemCountsItem>; plan: readonly { name: string }[] };

/** The counters of each fan-out stage of `job` that has items, in plan order. */
export function stageItemCounts(job: CountedJob): StageItemCounts[] {
  return job.plan.filter((p) => job.itemCounts?.[p.name]).map((p) => ({ stage: p.name, ...countsOf(job, p.name) }));
}

/** The counters over all of `job`'s fan-out stages, each counter added up. */
export function totalItemCounts(job: CountedJob): StageItemCounts {
  const totals = noCounts();
  for (const counts of Object.values(job.itemCounts ?? {})) for (const name of COUNTERS) totals[name] += counts[name];
  return totals;
}

/**
 * An item as an event carries it: the values its entity declares (attributes, key values, status)
 * and the server's own fields, without its key, expiry and index attributes, and without `leave`.
 */
const SNAPSHOT_FIELDS = ['status', 'entityType', 'version', 'createdAt', 'updatedAt', 'createdBy'];
function snapshotOf(model: AnyModel, item: object, leave: readonly string[]): Record<string, unknown> {
  const names = new Set([...Object.keys(model.attributes), ...model.keyFields, ...SNAPSHOT_FIELDS]);
  return Object.fromEntries(Object.entries(item).filter(([name]) => names.has(name) && !leave.includes(name)));
}

/**
 * What the copies of the job and the item an event carries leave out because the event's own
 * fields say it (the job's id, updatedAt = at, the entity type; the job's copy its project and
 * version = seq too, an item's copy keeps its own version), so that an item's event row stays
 * under DynamoDB's 1 KB write unit: above it, each of the two events of every item costs twice the
 * units in its job's partition (docs/scaling.md). A step's copy holds its state fields only
 * (stepStateOf). jobOfEvent, stepOfEvent and itemOfEvent put them back; a copy stored before keeps its own.
 */
const UNIT_LEFT_TO_THE_EVENT = ['jobId', 'updatedAt', 'entityType'];

/** The job as an event carries it: every field as this change left it (but `inputs`, which can be large: see JobResolver.inputs). */
const jobSnapshot = (job: JobItem) => snapshotOf(entities.Job, job, ['inputs', 'projectId', 'version', ...UNIT_LEFT_TO_THE_EVENT]);

/** A work item as an event carries it: its shown fields, and when a waiting item may be claimed (after its backoff). */
const itemSnapshot = (item: WorkItemItem) => ({
  ...snapshotOf(entities.WorkItem, item, ['kind', 'pooled', 'checkpoint', 'availableAt', ...UNIT_LEFT_TO_THE_EVENT]),
  availableAt: item.status === ItemStatus.PENDING ? item.availableAt : undefined,
});

/** What the event copies' readers read of a stored or published job event. */
interface EventFields {
  jobId: string;
  projectId: string;
  seq: number;
  at: string;
}

/** The job an event carries, whole (undefined when it carries none); it says whether its inputs were left out, for JobResolver.inputs. */
export function jobOfEvent(event: EventFields & { job?: object }) {
  const { jobId, projectId, seq, at, job } = event;
  if (!job) return undefined;
  return { entityType: entities.Job.type, jobId, projectId, version: seq, updatedAt: at, inputsLeftOut: !('inputs' in job), ...job, seq };
}

/** The step attempt an event carries, whole (undefined when it carries none). */
export const stepOfEvent = (event: EventFields & { step?: object }) => event.step && { jobId: event.jobId, ...event.step };

/** The work item an event carries, whole (undefined when it carries none). */
export const itemOfEvent = (event: EventFields & { item?: object }) =>
  event.item && { entityType: entities.WorkItem.type, jobId: event.jobId, updatedAt: event.at, ...event.item };

/**
 * The names of a step attempt's own fields (StepState), from the declaration: the Step's declared
 * attributes and its status, less its job's kind and the index flag that each write derives.
 */
const STEP_FIELDS: ReadonlySet<string> = new Set(
  [...Object.keys(entities.Step.attributes), 'status'].filter((name) => name !== 'kind' && name !== 'current'),
);

/** The step fields of a stored step attempt (STEP_FIELDS), without its key, its job's, what the server adds or the index attributes. */
export function stepStateOf(item: StepState): StepState {
  const { name, order, attempt, status, progress } = item;
  return Object.assign(
    { name, order, attempt, status, progress },
    Object.fromEntries(Object.entries(item).filter(([key]) => STEP_FIELDS.has(key))),
  );
}

/** What a step's write needs to know of its job (to say whether the step can be claimed). */
type StepJob = Pick<JobItem, 'jobId' | 'kind' | 'status' | 'currentStep' | 'attempts'>;

/**
 * Whether the step attempt is its job's current attempt of its current step while the job runs (or
 * waits to): written on the step (Step.current) with every put, so that the step's claimable indexes
 * follow it (stepClaimableFrom). A change of the job that changes this for a step writes the step too.
 */
function isCurrent(job: StepJob, step: StepState): boolean {
  const live = job.status === JobStatus.QUEUED || job.status === JobStatus.RUNNING;
  return live && job.currentStep === step.name && job.attempts[step.name] === step.attempt;
}

/** A step attempt's put: built from the step's own fields; the model derives its key and index attributes. */
export function stepWrite(scope: Pick<Scope, 'tenant'>, job: StepJob, step: StepState, at: string, expiresAt?: number): Write {
  return scope.tenant.of(entities.Step).put({
    ...stepStateOf(step),
    current: isCurrent(job, step) || undefined,
    // A single step's claimable entry is spread over the claimable shards; a fan-out stage's stays in
    // shard 0. By the kind's name, as claimWork tells them apart (a declared kind's name is never free-form).
    singleStep: fanOutOf({ kind: job.kind, declared: true }, step.name) ? undefined : true,
    jobId: job.jobId,
    kind: job.kind,
    updatedAt: at,
    expiresAt,
  });
}

/**
 * The events of one change: the job's own (seq = the job's new version, which is also its
 * position in the job's stream) and, when the status changed, one each in the project's and the
 * tenant's job status streams, placed at commit after their heads (see streams.ts).
 */
export function eventWrites(
  scope: Pick<Scope, 'tenant' | 'eventRetentionDays'>,
  job: JobItem,
  previous: JobItem | null,
  outcome: { type: JobEventType; step?: StepState; item?: WorkItemItem; reused?: ReusedWork[] },
  at: string,
  actor: string,
): UnitWrite[] {
  const seq = job.version;
  const statusChanged = !previous || previous.status !== job.status;
  // Typed as the job event entity declares it (the streams add `stream` and `position`).
  const attributes: Omit<PutValues<typeof entities.JobEvent>, 'stream' | 'position'> = {
    eventId: `${job.jobId}:${seq}`,
    tenantId: scope.tenant.id,
    jobId: job.jobId,
    projectId: job.projectId,
    seq,
    prevSeq: seq - 1,
    type: outcome.type,
    // The fields every downstream event carries (src/infra/dynamo/downstream.ts): what happened, to what.
    action: `job.${outcome.type.toLowerCase()}`,
    subjectType: entities.Job.type,
    subjectId: job.jobId,
    actor,
    at,
    job: jobSnapshot(job),
    step: outcome.step ? stepStateOf(outcome.step) : undefined,
    item: outcome.item ? itemSnapshot(outcome.item) : undefined,
    reused: outcome.reused,
    statusChanged,
    expiresAt: daysAfter(at, scope.eventRetentionDays),
  };
  // The job's own stream lives as long as the job may, so the archive exports it whole.
  const own = { ...attributes, expiresAt: daysAfter(at, Math.max(scope.eventRetentionDays, JOB_EVENT_TTL_DAYS)) };
  const writes: UnitWrite[] = [event({ ...scope.tenant.of(entities.JobEvent).toItem({ ...own, stream: 'job', position: seq }), ...own })];
  if (statusChanged) {
    writes.push(
      scope.tenant.projectJobStatus(job.projectId).append(() => ({ ...attributes, stream: 'projectJobs' })),
      scope.tenant.jobStatus(jobStatusShard(job.jobId)).append(() => ({ ...attributes, stream: 'tenantJobs' })),
    );
  }
  return writes;
}

/** The epoch second `days` after `at` (an expiry). */
const daysAfter = (at: string, days: number): number => Math.floor(Date.parse(at) / 1000) + days * 86_400;

/** When a job that moved to `status` at `at` expires: a finished one FINISHED_JOB_TTL_DAYS later, one that runs never. */
export function expiresAtOf(status: JobStatus, at: string): number | undefined {
  return TERMINAL.has(status) ? daysAfter(at, FINISHED_JOB_TTL_DAYS) : undefined;
}

/**
 * From when the pools' index offers a running single step: its attempt's end (attemptEndsAt), with
 * the lease's end taken down to a multiple of `leaseGridMs`. Every progress report renews the lease;
 * on a grid of half a lease the offer, and so the JobWork entry, moves once per half a lease instead
 * of with every report. It is never later than the attempt's end; it may be earlier (by less than
 * the grid), and then the claim's own decision refuses the step while its lease runs (see
 * JobAggregate.claim): no worker is handed a step under a live lease. The attempt's time
 * (`timesOutAt`) is fixed, so it is kept as it is.
 */
export function offeredFrom(step: Pick<StepState, 'leaseExpiresAt' | 'timesOutAt'>, leaseGridMs: number): string | undefined {
  const { leaseExpiresAt, timesOutAt } = step;
  // A lease that reaches the attempt's time ends with it (leases are never renewed past it).
  if (leaseExpiresAt === undefined || leaseGridMs <= 0 || (timesOutAt !== undefined && leaseExpiresAt >= timesOutAt))
    return attemptEndsAt(step);
  const lease = new Date(Math.floor(Date.parse(leaseExpiresAt) / leaseGridMs) * leaseGridMs).toISOString();
  return attemptEndsAt({ leaseExpiresAt: lease, timesOutAt });
}

type JobWork = { name: string; fanOut: boolean; availableAt?: string };
/**
 * What the job's JobWork entry says of the job (and its current step's attempt, `step`) at `at`: a
 * fan-out stage with unfinished items while the job runs or waits to, or a declared single-step stage
 * whose step can be claimed (now or from its availableAt); null otherwise.
 */
function jobWorkOf(job: JobItem, step: StepState | undefined, at: string, leaseGridMs: number): JobWork | null {
  const stage = job.currentStep;
  if (!stage || (job.status !== JobStatus.QUEUED && job.status !== JobStatus.RUNNING)) return null;
  if (fanOutOf(job, stage)) {
    const counts = countsOf(job, stage);
    return counts.completed + counts.failed < counts.total ? { name: stage, fanOut: true } : null;
  }
  if (!stageOf(job, stage) || !step || step.name !== stage) return null;
  const availableAt = stepClaimableFrom({ ...step, current: isCurrent(job, step), updatedAt: at });
  if (availableAt === undefined) return null;
  return { name: stage, fanOut: false, availableAt: step.status === StepStatus.RUNNING ? offeredFrom(step, leaseGridMs) : availableAt };
}

/**
 * The write that keeps the job's JobWork entry what `jobWorkOf` says of the job as the change left it
 * (`next`), given what it said before (`previous`; null for a new job): a put when it changed, a
 * delete when there is none now. A running step's offer is on a grid of half the workers' lease
 * (`leaseSeconds`, see offeredFrom).
 */
export function jobWorkWrites(
  scope: Pick<Scope, 'tenant'>,
  previous: { job: JobItem; step?: StepState } | null,
  next: { job: JobItem; step?: StepState },
  at: string,
  leaseSeconds: number,
): UnitWrite[] {
  const grid = Math.round((leaseSeconds * 1000) / 2);
  const before = previous ? jobWorkOf(previous.job, previous.step, at, grid) : null;
  const after = jobWorkOf(next.job, next.step, at, grid);
  if (before?.name === after?.name && before?.availableAt === after?.availableAt) return [];
  if (!after) return [del(scope.tenant.of(entities.JobWork).keyOf({ jobId: next.job.jobId }))];
  return [
    scope.tenant.of(entities.JobWork).put({
      jobId: next.job.jobId,
      kind: next.job.kind,
      name: after.name,
      // A fan-out stage's entry is how a tenant's claimWork finds its items; a single step is in those indexes itself.
      claimable: after.fanOut || undefined,
      inPool: true,
      availableAt: after.availableAt ?? at,
      priority: next.job.priority ?? DEFAULT_PRIORITY,
      version: 1,
      createdAt: at,
      updatedAt: at,
    }),
  ];
}

/**
 * A job that has just finished (completed, failed or cancelled) and has work items or earlier
 * step attempts (a step was retried) gets its JobSettle entry in the same transaction, so the
 * settle sweep gives those rows its expiry (and cancels the unfinished items of a cancelled job);
 * a job retried out of FAILED drops the entry.
 */
export function jobSettleWrites(scope: Pick<Scope, 'tenant'>, previous: JobItem, next: JobItem, at: string): UnitWrite[] {
  const toSettle =
    Object.values(next.itemCounts ?? {}).some((c) => c.total > 0) || Object.values(next.attempts ?? {}).some((attempt) => attempt > 1);
  const expiresAt = TERMINAL.has(next.status) ? next.expiresAt : undefined;
  if (expiresAt !== undefined && toSettle && (!TERMINAL.has(previous.status) || previous.expiresAt !== expiresAt)) {
    return [
      scope.tenant.of(entities.JobSettle).put({
        jobId: next.jobId,
        jobExpiresAt: expiresAt,
        cancelled: next.status === JobStatus.CANCELLED ? true : undefined,
        version: 1,
        createdAt: at,
        updatedAt: at,
      }),
    ];
  }
  if (!TERMINAL.has(next.status) && TERMINAL.has(previous.status) && toSettle)
    return [del(scope.tenant.of(entities.JobSettle).keyOf({ jobId: next.jobId }))];
  return [];
}

/** True for a stored step attempt or item that counts in its tenant's pool load: running under a pool claim. */
export const countedInPool = (row: Item): boolean => row.status === ItemStatus.RUNNING && row.pooled === true;

/**
 * The deletes of `rows` of a finished job's partition, with the tenant's pool load (at `poolLoad`)
 * lowered by those that still count in it (their job finished before the settle sweep released
 * them, see JobAggregate.settle), in the same transaction. Each of those deletes holds only while
 * its row still counts, so a sweep that released it meanwhile fails the transaction (`moved`)
 * instead of the load being lowered twice.
 */
export function deletesReleasing(poolLoad: Key, rows: readonly Item[], moved: () => Error): Write[] {
  const counted = rows.filter(countedInPool).length;
  const deletes = rows.map((row) => {
    const key = { PK: row.PK, SK: row.SK };
    return countedInPool(row) ? del(key).where({ status: ItemStatus.RUNNING, pooled: true }, moved) : del(key);
  });
  return counted > 0 ? [...deletes, update(poolLoad).addNumber('running', -counted)] : deletes;
}

/** The planned step's outcome as a step attempt of `jobId`. */
export type StepLike = StepState & { jobId: string };
