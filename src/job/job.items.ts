import { limitsOf, quotaWrites } from '../common/quota';
import type { PlanLimits, PlanName } from '../config';
import { quotaExceeded } from '../errors';
import { entities, type EntityItem, type ItemCountsItem, MAX_STAGE_ITEMS } from '../common/entities';
import { checkFields } from '../common/fields';
import { assertId } from '../common/ids';
import type { Scope } from '../common/scope';
import type { BoundTenant } from '../common/bound-tenant';
import { requireText } from '../common/validate';
import { AppError, badInput, invalidTransition, notFound } from '../errors';
import {
  checkProgress,
  deadlineOf,
  hasAttemptsLeft,
  heldHint,
  jobProgress,
  leaseUntilOf,
  leaseWithin,
  refuseCancelled,
  refuseTimedOut,
  requireAttempt,
  retryAt,
  takeoverOf,
  VERBS,
} from './job.attempts';
import { type AggregateIO, AggregateCommitter, type AggregateStats, changingTooFast, Stale } from '../infra/dynamo/aggregate';
import type { Store } from '../infra/dynamo/store';
import { check, type UnitWrite, update } from '../infra/dynamo/write';
import { type FanOutDeclaration, fanOutOf, stepPolicyOf } from './job.kinds';
import { currentStepKeys, jobKey } from './job.keys';
import {
  contentKey,
  liveRecord,
  readRecords,
  recordWrites,
  type ReusedWork,
  type ReuseRecordItem,
  reuseOf,
  sourceOf,
  takesReuse,
  waitingStepKeys,
} from './job.reuse';
import {
  decide,
  ItemStatus,
  type JobAction,
  JobEventType,
  JobStatus,
  type JobError,
  type Outcome,
  type StepState,
  StepStatus,
  TERMINAL,
  stateOf,
} from './job.machine';
import {
  countsOf,
  eventWrites,
  expiringSteps,
  jobFields,
  jobSettleWrites,
  jobWorkWrites,
  stepStateOf,
  stepWrite,
  type StepLike,
} from './job.writes';

/*
 * Work items of fan-out stages, and the decisions on the job aggregate's shared state.
 *
 * A job's version is the serialization point of its event stream (every change is one event with
 * seq = the new version), so every change of the job, its steps or its items moves the job's
 * version. Every such change is a command queued on the job's aggregate committer
 * (infra/dynamo/aggregate.ts): a group of commands is decided on one read of the job, the
 * current attempt of each of its steps (never the earlier attempts, see load) and the items they
 * name, and committed in one transaction conditioned on the job's version and each item's version. What a change writes besides the job (steps, events, the JobWork entry
 * that makes the job's items claimable, the JobSettle entry of a finished job) is derived in
 * job.writes.ts from the state the change left, in the same transaction.
 */

type JobItem = EntityItem<'Job'>;
export type WorkItemItem = EntityItem<'WorkItem'>;
type StepItem = EntityItem<'Step'>;

export { countsOf, ItemStatus };

/** Items one addWorkItems (or createJob) may add: they are written in one transaction with the job. */
export const MAX_ITEMS_PER_ADD = 80;

/** The most items one read of a stage's items in sequence order takes (a MUSIC_VIDEO's `scenes`). */
export const MAX_SCENES_PAGE = 1000;

/** What the job's committer did since start (the bench reads it): groups, commands, lost rounds, committed commands. */
export const itemWriteStats: AggregateStats = { batches: 0, intents: 0, conflicts: 0, committed: 0 };

/**
 * The claims' reads of this process (the bench and tests read them): groups that held claims, and
 * how many of them read the job's claimable index (the others took the candidates the group
 * before them left; see carryOf).
 */
export const claimReadStats = { groupsWithClaims: 0, indexReads: 0 };

/** One event a batch writes: the job as the change left it, and what the change was about. */
interface BatchEvent {
  job: JobItem;
  /** The job before the change; null for its creation (JOB_CREATED). */
  previous: JobItem | null;
  type: JobEventType;
  step?: StepState;
  item?: WorkItemItem;
  reused?: ReusedWork[];
  actor: string;
}

/**
 * The state a group of commands decides on: the job as read, the current attempt of each step,
 * the items read, and what the commands applied so far changed. `fork` gives a command a copy to
 * change, adopted only when the command does not throw, so a refused command changes nothing.
 */
export class BatchState {
  constructor(
    /** The job as read: the commit is conditioned on its version. */
    readonly read: JobItem,
    /** The versions of the items as read, by itemId: each item's write is conditioned on its own. */
    readonly readVersions: ReadonlyMap<string, number>,
    public job: JobItem,
    public steps: Map<string, StepLike>,
    /** The stored rows of the steps' current attempts as read (one a planned step; earlier attempts are not read). */
    readonly storedSteps: StepItem[],
    public items: Map<string, WorkItemItem>,
    readonly at: string,
    public changedItems = new Map<string, WorkItemItem>(),
    public changedSteps: StepLike[] = [],
    public events: BatchEvent[] = [],
    public extra: UnitWrite[] = [],
  ) {}

  /**
   * The reuse records the group read, by content key (see job.reuse.ts): those of the job's
   * waiting reusable steps, or those of the items a command adds. Read-only: records are only
   * ever added, so what was read before the decision still holds inside it.
   */
  reuseRecords: ReadonlyMap<string, ReuseRecordItem> = new Map();

  /** True for a job being created (createJob): its commit puts the job only if new, and writes every step. */
  creating = false;

  /** The tenant's pool load as read (only for a group with a pool claim; see POOL_REF). */
  pool?: { running: number; limit?: number };

  /**
   * The job's claimable items as the group read them for its claims (itemIds, oldest first; see
   * CLAIM_REF), each also read by key into `items`. Empty for a group without claims.
   */
  claimable: readonly string[] = [];

  /**
   * How many items and steps this group's changes start (+) or end (-) running under a pool worker's claim:
   * derived from the items as read and as changed, so every way an attempt ends counts.
   */
  poolDelta(): number {
    const held = (unit: { status: string; pooled?: boolean } | undefined) =>
      unit?.status === ItemStatus.RUNNING && unit.pooled === true ? 1 : 0;
    let delta = 0;
    for (const [key, item] of this.changedItems) delta += held(item) - held(this.readItems.get(key));
    // A step attempt counts likewise: the one as read is the step's current attempt, if it is this one.
    for (const step of this.changedSteps) {
      const read = this.readSteps.get(step.name);
      delta += held(step) - held(read?.attempt === step.attempt ? read : undefined);
    }
    return delta;
  }

  /** The tenant's count of work running under pool claims as this group's changes leave it (read for a pool claim only). */
  poolLoad(): number {
    return (this.pool?.running ?? 0) + this.poolDelta();
  }

  /** The items as read (before any change of the group); set by load, and a fork shares its group's. */
  readItems: ReadonlyMap<string, WorkItemItem> = new Map();
  /** The current step attempts as read (before any change of the group), likewise. */
  readSteps: ReadonlyMap<string, StepLike> = new Map();

  /**
   * A copy for one command to change: it shares what the group read and copies the collections a
   * command changes in place, so a command that throws is dropped with its copy (adopt takes a
   * copy's changes back). Every field is carried, whatever fields the state gains.
   */
  fork(): BatchState {
    const copy: BatchState = Object.assign(Object.create(BatchState.prototype), this);
    copy.steps = new Map(this.steps);
    copy.items = new Map(this.items);
    copy.changedItems = new Map(this.changedItems);
    copy.changedSteps = [...this.changedSteps];
    copy.events = [...this.events];
    copy.extra = [...this.extra];
    return copy;
  }

  /** Takes the changes of `other`, a fork of this state whose command succeeded. */
  adopt(other: BatchState): void {
    Object.assign(this, other);
  }

  /**
   * The writes this state would commit, counted from above: the job, its JobWork and JobSettle
   * entries, items, steps, one event a change (five when its status changed: the event and an
   * event and a head in each status stream), extras (two each: an activity event has a head), and
   * the current step attempts that take a finished job's expiry (the earlier ones take it from the
   * settle sweep, job.settle.ts).
   */
  get size(): number {
    let events = 0;
    for (const e of this.events) events += e.previous?.status === e.job.status ? 1 : 5;
    const expiring = TERMINAL.has(this.job.status) ? this.storedSteps.length : 0;
    return 3 + this.changedItems.size + this.changedSteps.length + events + this.extra.length * 2 + expiring;
  }

  /** Records a change of the job: its version moves by one and the event takes that seq. */
  change(
    next: Partial<JobItem>,
    type: JobEventType,
    actor: string,
    about: { step?: StepState; item?: WorkItemItem; reused?: ReusedWork[] } = {},
  ): void {
    const previous = this.job;
    this.job = { ...previous, ...next, version: previous.version + 1, updatedAt: this.at };
    // Every decision on a job is held to the machine declared with the entity, here where it commits.
    if (this.job.status !== previous.status) entities.Job.assertTransition(previous.jobId, previous.status, this.job.status);
    this.events.push({ job: this.job, previous, type, actor, ...about });
  }

  putItem(item: WorkItemItem): WorkItemItem {
    const key = itemId(item.stage, item.sequence);
    // The decisions below follow the machine declared with the entity; this holds them to it.
    const before = this.items.get(key);
    if (before && before.status !== item.status) entities.WorkItem.assertTransition(key, before.status, item.status);
    const written = { ...item, updatedAt: this.at };
    this.items.set(key, written);
    this.changedItems.set(key, written);
    return written;
  }

  /** Writes an item again as it is (its version moves), so its index attributes are derived anew. */
  rewriteItem(stage: string, sequence: number): void {
    const item = this.items.get(itemId(stage, sequence));
    if (item) this.putItem({ ...item, version: item.version + 1 });
  }

  putStep(step: StepLike): void {
    // The step's move is held to its declared machine too: a new attempt moves from the first status.
    const before = this.steps.get(step.name);
    const from = before?.attempt === step.attempt ? before.status : StepStatus.PENDING;
    if (from !== step.status) entities.Step.assertTransition(`${step.name}#${step.attempt}`, from, step.status);
    this.changedSteps = this.changedSteps.filter((s) => !(s.name === step.name && s.attempt === step.attempt));
    this.changedSteps.push(step);
    this.steps.set(step.name, step);
  }
}

const itemId = (stage: string, sequence: number) => `${stage}#${sequence}`;
/** QUOTA_EXCEEDED (itemsPerJob) when `adding` items to the `holding` a job has would pass `limit`. */
function refuseOverItems(holding: number, adding: number, limit: number): void {
  if (adding > 0 && holding + adding > limit) throw quotaExceeded('itemsPerJob', limit, adding);
}

/** The work items a job holds over all its fan-out stages. */
const itemTotal = (job: Pick<JobItem, 'itemCounts'>) => Object.values(job.itemCounts ?? {}).reduce((sum, c) => sum + c.total, 0);
/** The most candidates one group's claims read from the claimable index (BatchGetItem's limit a call). */
const MAX_CLAIM_CANDIDATES = 100;
/**
 * At least this many candidates a read of a job's claimable index takes: those its group leaves
 * serve the next groups' claims while the job stays busy (carryOf), so a busy job reads its index
 * once for several groups.
 */
const MIN_CLAIM_CANDIDATES = 40;
/** A ref a pool claim adds to its command: its group reads the tenant's pool share and load too. */
const POOL_REF = '\u0000pool';
/**
 * The ref of a claim (one per command, numbered, so a group can count its claims): the group reads
 * the job's oldest claimable items once for all its claims (claimableIds), instead of each worker
 * reading them on its own before it queues.
 */
const CLAIM_REF = '\u0000claim#';
let claimsSent = 0;
const isItemRef = (ref: string) => ref !== POOL_REF && !ref.startsWith(CLAIM_REF);
const claimsIn = (refs: readonly string[]) => refs.filter((ref) => ref.startsWith(CLAIM_REF)).length;

const refOf = (id: string) => ({ stage: id.slice(0, id.lastIndexOf('#')), sequence: Number(id.slice(id.lastIndexOf('#') + 1)) });

/** The job committers of this process, per store (a test process may hold several). */
const committers = new WeakMap<Store, AggregateCommitter<BatchState>>();

function committerOf(store: Store): AggregateCommitter<BatchState> {
  let committer = committers.get(store);
  if (!committer) {
    // 48 commands a group (a claim or a completion writes its item and its event, so about 43 fit
    // in 90 writes); 90 writes leave room for the stream heads added at commit; 30 rounds against
    // writers on other instances. A drained job's carried state is kept for 5 s, for 256 jobs and
    // 20,000 items at most together: a busy job's workers send their next calls within
    // milliseconds of their answers, and a pool that deals claims to 100 tenants in turn comes
    // back to each tenant's job within seconds.
    committer = new AggregateCommitter<BatchState>(
      {
        maxCommands: 48,
        maxWrites: 90,
        maxRounds: 30,
        keepCarried: { ms: 5000, max: 256, weigh: (state) => state.items.size + 1, maxWeight: 20_000 },
      },
      changingTooFast('Job'),
      itemWriteStats,
    );
    committers.set(store, committer);
  }
  return committer;
}

/** At most this many items a carried state keeps (see carryOf); past it, the next group reads what it needs. */
const MAX_CARRIED_ITEMS = 500;

/**
 * What the next group of a busy job decides on without reading the job again: the job and its
 * steps as the commit left them, the items still in flight (running, so a claimed item's
 * completion finds it), and the claims' candidates the group read and left (still claimable as
 * read, so the next group's claims take them without reading the index again). Every item it
 * keeps carries the version it was read or written at, and the next commit is conditioned on it,
 * so an item another instance changed since fails that commit and the group is read afresh. Only
 * when no step changed: a step's stored row holds what its index entries were, which the state
 * does not keep, so the next group reads the steps anew.
 */
function carryOf(committed: BatchState): BatchState | undefined {
  if (committed.changedSteps.length > 0 || committed.extra.length > 0) return undefined;
  const { job } = committed;
  const items = new Map<string, WorkItemItem>();
  for (const [key, item] of committed.items) if (item.status === ItemStatus.RUNNING) items.set(key, item);
  const left: string[] = [];
  for (const id of committed.claimable) {
    const item = committed.items.get(id);
    if (item?.status !== ItemStatus.PENDING || committed.changedItems.has(id)) continue;
    left.push(id);
    items.set(id, item);
  }
  if (items.size > MAX_CARRIED_ITEMS) return undefined;
  const versions = new Map([...items].map(([key, item]) => [key, item.version]));
  const carried = new BatchState(job, versions, job, new Map(committed.steps), committed.storedSteps, items, committed.at);
  carried.claimable = left;
  // The tenant's pool load is kept only where it decides nothing (no running limit; see load).
  if (committed.pool && committed.pool.limit === undefined) carried.pool = { running: committed.pool.running + committed.poolDelta() };
  return carried;
}

/**
 * The id of a job's queue on its committer: its partition, which names the tenant, then the job's
 * own id after a NUL, the part a client is told when the job keeps changing (changingTooFast).
 */
export const jobQueueId = (tenant: BoundTenant, jobId: string) => `${jobKey(tenant, jobId).PK}\u0000${jobId}`;

/** How many jobs of `store` have a queue on their committer now (zero when no change is under way). */
export function openQueues(store: Store): number {
  return committers.get(store)?.openQueues ?? 0;
}

/** How many drained jobs of `store` have their last commit's state kept for their next group (see carryOf). */
export function keptJobStates(store: Store): number {
  return committers.get(store)?.keptStates ?? 0;
}

/** Drops the job states kept for `store` (at shutdown): the process holds no job's items after it. */
export function releaseJobStates(store: Store): void {
  committers.get(store)?.release();
}

/** A worker's action on an item. `attempt` is the attempt the worker holds (a late one is refused). */
export type ItemAction =
  | { kind: 'claim'; leaseUntil: string }
  /** With `checkpoint`, where the work stands (kept on the item, so a later attempt resumes from it). */
  | { kind: 'progress'; attempt: number; progress: number; leaseUntil: string; checkpoint?: Record<string, unknown> }
  | { kind: 'complete'; attempt: number; outputs: Record<string, unknown> }
  | { kind: 'fail'; attempt: number; code: string; message: string }
  /** The holder releases its attempt unfinished: the item waits for its next, claimable at once and not counted. */
  | { kind: 'handBack'; attempt: number }
  /** With `errorCode`, only an item whose last error has that code (a replay's filter, judged on the item as it is now). */
  | { kind: 'retry'; errorCode?: string };

/**
 * The job aggregate's commands: the work items of its fan-out stages (adding them, the workers'
 * actions on them, the stage's opening, completion and failure that follow from them), and the
 * step actions that JobRepository decides with `decide`. Every change goes through the job's
 * committer (see the top of this file).
 */
export class JobItems {
  constructor(
    private readonly scope: Scope,
    private readonly leaseSeconds: number,
    private readonly plans?: Record<PlanName, PlanLimits>,
  ) {}

  /**
   * Refuses (QUOTA_EXCEEDED, itemsPerJob) adding `adding` items to a job that holds `holding`,
   * when that passes the tenant's plan. The plan is read now; the job's count is the one its
   * committer decides on, so concurrent adders to one job are held to it exactly.
   */
  async checkItemsPerJob(holding: number, adding: number): Promise<number> {
    const tenant = entities.Tenant.found(await this.scope.store.get(this.scope.tenant.of(entities.Tenant).keyOf({})));
    const allowed = limitsOf(this.plans, tenant).itemsPerJob;
    refuseOverItems(holding, adding, allowed);
    return allowed;
  }

  private leaseUntil(): string {
    return leaseUntilOf(this.scope.now().toISOString(), this.leaseSeconds);
  }

  /**
   * Queues `apply` on the job's committer and resolves with what it returned once its group
   * committed. `items` are the items `apply` reads (read with the job, by key). Rejects with what
   * `apply` threw (nothing of it written), NOT_FOUND for an unknown job, or CONFLICT when other
   * instances kept changing the job past the retry bound.
   */
  submit<T>(jobId: string, items: readonly { stage: string; sequence: number }[], apply: (state: BatchState) => T): Promise<T> {
    return this.submitRefs(
      jobId,
      items.map((r) => itemId(r.stage, r.sequence)),
      apply,
    );
  }

  /**
   * submit for a pool worker's claim of a step: the group reads the tenant's pool share and load
   * too (BatchState.pool), so `apply` can hold the tenant's running limit.
   */
  submitPooled<T>(jobId: string, apply: (state: BatchState) => T): Promise<T> {
    return this.submitRefs(jobId, [POOL_REF], apply);
  }

  /** submit, with the group's reads named as refs (itemId, or POOL_REF for the tenant's pool load). */
  private submitRefs<T>(jobId: string, refs: readonly string[], apply: (state: BatchState) => T): Promise<T> {
    const io: AggregateIO<BatchState> = {
      load: (all, carried) => this.load(jobId, all, carried),
      commit: async (state) => {
        const writes = this.writesOf(state);
        if (writes.length === 0) return false;
        await this.scope.commit(writes);
        return true;
      },
      carry: carryOf,
    };
    return committerOf(this.scope.store).submit(jobQueueId(this.scope.tenant, jobId), io, refs, apply);
  }

  /**
   * Reads the job, the current attempt of each of its steps and the items `refs` name, strongly
   * consistently, as a group's state; given the state the job's last commit in this process left
   * (`carried`, see carryOf), only the items it lacks. A group with a pool claim (POOL_REF) is read
   * afresh while its tenant has a running limit: the tenant's pool load is shared with its other
   * jobs, so no state carried from this job's commits knows it.
   *
   * The job is read first, on its own (a GetItem), with the items and the pool load beside it; then
   * its steps' current attempts, by the keys its `attempts` name (one BatchGetItem). A decision so
   * reads at most one row a planned step, however many attempts were made before (a retried step
   * leaves a row per attempt; only the step history, JobRepository.steps, reads them all). The
   * steps are read after the job, never before: a change commits the job and its steps together,
   * so steps read later are at least as new as the job, and a change that committed between the
   * two reads moved the job's version, on which this group's commit is conditioned.
   */
  private async load(jobId: string, refs: readonly string[], carried?: BatchState): Promise<BatchState> {
    // A pool claim decides on a carried state only when the tenant had no running limit (carryOf
    // keeps the pool load only then): its count then decides nothing, and the commit checks that
    // no limit was set since (see writesOf).
    if (carried && (!refs.includes(POOL_REF) || carried.pool !== undefined)) return this.topUp(carried, refs);
    if (claimsIn(refs) > 0) claimReadStats.groupsWithClaims++;
    const { tenant } = this.scope;
    const withPool = refs.includes(POOL_REF);
    const wanted = refs.filter(isItemRef);
    // Items are conditioned on their own versions and the pool load on its limit, so they may be read beside the job.
    const poolKeys = withPool ? [tenant.of(entities.PoolShare).keyOf({}), tenant.of(entities.PoolLoad).keyOf({})] : [];
    const itemKeys = wanted.map((r) => this.itemKey(jobId, r));
    const [job, beside, claimable] = await Promise.all([
      this.scope.store.get(jobKey(tenant, jobId)),
      itemKeys.length + poolKeys.length ? this.scope.store.batchGet([...itemKeys, ...poolKeys]) : Promise.resolve([]),
      this.claimableIds(jobId, claimsIn(refs)),
    ]);
    if (!entities.Job.is(job)) throw notFound('Job', jobId);
    // The claims' candidates are read by key (strongly) with the steps: the index is read eventually consistently.
    const candidates = claimable.filter((id) => !wanted.includes(id)).map((id) => this.itemKey(jobId, id));
    const rows = await this.scope.store.batchGet([...currentStepKeys(tenant, job), ...candidates]);
    const storedSteps = rows.filter((row) => entities.Step.is(row));
    const steps = new Map<string, StepLike>();
    for (const step of storedSteps) steps.set(step.name, { ...stepStateOf(step), jobId });
    const items = new Map<string, WorkItemItem>();
    for (const row of [...beside.slice(0, itemKeys.length), ...rows])
      if (entities.WorkItem.is(row)) items.set(itemId(row.stage, row.sequence), row);
    const readVersions = new Map([...items].map(([key, item]) => [key, item.version]));
    const state = new BatchState(job, readVersions, job, steps, storedSteps, items, this.scope.now().toISOString());
    state.readItems = new Map(items);
    state.readSteps = new Map(steps);
    state.claimable = claimable;
    if (withPool) {
      const [share, load] = beside.slice(itemKeys.length);
      // The load item is kept by ADD alone (job.items writesOf, job.settle), so it carries no
      // entity type: its count is read as it is.
      state.pool = {
        running: typeof load?.running === 'number' ? load.running : 0,
        limit: entities.PoolShare.is(share) ? (share.maxRunning ?? undefined) : undefined,
      };
    }
    // The records of the job's reusable steps still waiting, so a step this group moves the job on
    // to can complete from them in the same decision (openReached). Only while such a step is ahead.
    if (!TERMINAL.has(job.status)) state.reuseRecords = await readRecords(this.scope.store, tenant, waitingStepKeys(job, steps));
    return state;
  }

  /** The carried state, with the items of `refs` and the claims' candidates it lacks read (strongly consistently). */
  private async topUp(carried: BatchState, refs: readonly string[]): Promise<BatchState> {
    const { job } = carried;
    const items = new Map(carried.items);
    // The candidates the last group left serve this group's claims while there are enough of
    // them; otherwise the index is read again (oldest first, the carried ones among them).
    const claims = claimsIn(refs);
    if (claims > 0) claimReadStats.groupsWithClaims++;
    const claimable = claims <= carried.claimable.length ? carried.claimable : await this.claimableIds(job.jobId, claims);
    const missing = [...new Set([...refs.filter(isItemRef), ...claimable])].filter((id) => !items.has(id));
    const rows = missing.length ? await this.scope.store.batchGet(missing.map((id) => this.itemKey(job.jobId, id))) : [];
    for (const row of rows) if (entities.WorkItem.is(row)) items.set(itemId(row.stage, row.sequence), row);
    const readVersions = new Map([...items].map(([key, item]) => [key, item.version]));
    const steps = new Map(carried.steps);
    const state = new BatchState(job, readVersions, job, steps, carried.storedSteps, items, this.scope.now().toISOString());
    state.readItems = new Map(items);
    state.readSteps = new Map(steps);
    state.claimable = claimable;
    state.pool = carried.pool;
    // Reuse records are read anew as load reads them: another job may have recorded one since.
    if (!TERMINAL.has(job.status)) state.reuseRecords = await readRecords(this.scope.store, this.scope.tenant, waitingStepKeys(job, steps));
    return state;
  }

  private itemKey(jobId: string, id: string) {
    return this.scope.tenant.of(entities.WorkItem).keyOf({ jobId, ...refOf(id) });
  }

  /**
   * The itemIds of the job's oldest claimable items (waiting, or held past their lease) for a
   * group's `claims`, from its claimable index: twice as many as the claims and a few more, since
   * the index may still list items an earlier group took (it is read eventually consistently).
   * One Query for the whole group; none without claims.
   */
  private async claimableIds(jobId: string, claims: number): Promise<string[]> {
    if (claims === 0) return [];
    claimReadStats.indexReads++;
    const now = this.scope.now().toISOString();
    const spec = { ...this.scope.tenant.of(entities.WorkItem).query('claimableInJob', { jobId }), skBefore: `${now}$` };
    const rows = await this.scope.store.queryFirst(spec, Math.min(MAX_CLAIM_CANDIDATES, Math.max(2 * claims + 8, MIN_CLAIM_CANDIDATES)));
    return rows.filter((row) => entities.WorkItem.is(row)).map((row) => itemId(row.stage, row.sequence));
  }

  /** The unit of work of a decided group (empty when nothing changed). */
  private writesOf(state: BatchState): UnitWrite[] {
    if (state.events.length === 0 && state.changedItems.size === 0) return [];
    const { scope } = this;
    const { tenant } = scope;
    const { job, read, at } = state;
    const expiresAt = TERMINAL.has(job.status) ? job.expiresAt : undefined;
    const stale = () => new Stale();
    // The job's move in and out of the plan's running jobs is counted in the same transaction (src/common/quota.ts).
    const stored = tenant.of(entities.Job).put({ ...job });
    const writes: UnitWrite[] = [
      state.creating ? stored.ifNew() : stored.ifVersion(read.version, stale),
      ...quotaWrites(tenant, entities.Job, state.creating ? null : read, job),
    ];
    for (const [key, item] of state.changedItems) {
      const before = state.readVersions.get(key);
      const stored = tenant.of(entities.WorkItem).put({ ...item, expiresAt });
      // A new job's items are new with it (its own put is what a duplicate creation fails on).
      writes.push(before === undefined ? (state.creating ? stored.ifNew() : stored.ifNew(stale)) : stored.ifVersion(before, stale));
    }
    for (const step of state.changedSteps) writes.push(stepWrite(scope, job, step, at, expiresAt));
    writes.push(...expiringSteps(scope, job, state.storedSteps, state.changedSteps, expiresAt, at));
    for (const e of state.events)
      writes.push(...eventWrites(scope, e.job, e.previous, { type: e.type, step: e.step, item: e.item, reused: e.reused }, at, e.actor));
    const stepOf = (j: JobItem, steps: ReadonlyMap<string, StepLike>) => (j.currentStep ? steps.get(j.currentStep) : undefined);
    writes.push(
      ...jobWorkWrites(
        scope,
        state.creating ? null : { job: read, step: stepOf(read, state.readSteps) },
        { job, step: stepOf(job, state.steps) },
        at,
        this.leaseSeconds,
      ),
      ...jobSettleWrites(scope, read, job, at),
    );
    const delta = state.poolDelta();
    if (delta !== 0) {
      // The tenant's count of items running under pool claims moves with the items, exactly; an
      // increase is conditioned on the tenant's limit (the decision read the count, another job's
      // group may have moved it since: then this group reads and decides again).
      const load = update(tenant.of(entities.PoolLoad).keyOf({})).addNumber('running', delta);
      const limit = state.pool?.limit;
      writes.push(delta > 0 && limit !== undefined ? load.ifAtMost('running', limit - delta, stale) : load);
      // Decided without a limit: none may have been set since (setPoolShare), or this group reads
      // and decides again. That is what lets a busy job's pool claims decide on the state its last
      // commit left (carryOf) rather than read the job afresh for each group.
      if (delta > 0 && limit === undefined) writes.push(check(tenant.of(entities.PoolShare).keyOf({})).atMost('maxRunning', 0, stale));
    }
    writes.push(...state.extra);
    return writes;
  }

  /**
   * A new job's writes (createJob): the job, its first step attempts and the items given with it
   * (`items`, for `stage`), its JOB_CREATED event and its JobWork entry, and, when it takes reuse,
   * what the reuse records read for it (`records`, see job.reuse.ts) complete at once in the same
   * transaction: the given items with a live record (ITEMS_REUSED), then its first step and those
   * after it while each has one (STEP_REUSED), so none of them is ever claimable. The job is
   * written only if new; returns it and its steps as the writes leave them. Decided on a state of
   * its own and written by writesOf, as every later change of the job is: a creation is the first
   * group of the job, committed by its caller with the idempotency key's record.
   */
  created(
    job: JobItem,
    steps: StepState[],
    stage: string | undefined,
    items: Record<string, unknown>[],
    records: ReadonlyMap<string, ReuseRecordItem>,
  ): { job: JobItem; steps: StepLike[]; writes: UnitWrite[] } {
    const actor = this.scope.actor;
    const at = job.updatedAt;
    const state = new BatchState(job, new Map(), job, new Map(), [], new Map(), at);
    state.creating = true;
    state.reuseRecords = records;
    // Its creation is its first event (seq 1, the job's first version); every step attempt is written.
    state.events.push({ job, previous: null, type: JobEventType.JOB_CREATED, actor });
    for (const step of steps) state.putStep({ ...step, jobId: job.jobId });
    items.forEach((inputs, i) => {
      state.putItem({
        PK: '',
        SK: '',
        entityType: entities.WorkItem.type,
        jobId: job.jobId,
        stage: stage ?? '',
        sequence: i + 1,
        kind: job.kind,
        status: ItemStatus.PENDING,
        attempt: 1,
        maxAttempt: (stage ? fanOutOf(job, stage)?.attempts : undefined) ?? job.maxAttempts,
        progress: 0,
        inputs,
        availableAt: at,
        version: 1,
        createdAt: at,
        updatedAt: at,
        createdBy: actor,
      });
    });
    if (stage) reuseAdded(state, stage, 1, actor);
    // The first step, and each one after it, that completes from a record; a fan-out stage the
    // job reaches that way opens (a first stage that fans out opens after the commit, as before).
    if (job.currentStep && !fanOutOf(job, job.currentStep)) reuseStep(state, job.currentStep, actor);
    return { job: state.job, steps: [...state.steps.values()], writes: this.writesOf(state) };
  }

  /* --------------------------------------------------------------------------------------------
   * What callers ask for
   */

  /**
   * The items of `inputs`, checked against the stage's declared item inputs (type, required, S3
   * keys under the tenant; BAD_USER_INPUT naming the field, e.g. `items[3].audioClip`).
   */
  checkInputs(fanOut: FanOutDeclaration, inputs: unknown[]): Record<string, unknown>[] {
    if (!Array.isArray(inputs) || inputs.length === 0) throw badInput('items must hold at least one item.', 'items');
    if (inputs.length > MAX_ITEMS_PER_ADD)
      throw badInput(`At most ${MAX_ITEMS_PER_ADD} items can be added at once (call addWorkItems again for more).`, 'items');
    return inputs.map((raw, i) => {
      if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw badInput(`items[${i}] must be an object.`, `items[${i}]`);
      const checked = checkFields(fanOut.inputs, raw, {
        mode: 'create',
        tenant: this.scope.tenant,
        prefix: `items[${i}].`,
        typed: true,
        closed: true,
      });
      return Object.fromEntries(Object.entries(checked).filter(([, v]) => v !== undefined));
    });
  }

  /** The fan-out declaration of `stage` of `job`, or BAD_USER_INPUT naming `stage`. */
  static fanOutOrThrow(job: { kind: string; declared?: boolean; jobId: string }, stage: string): FanOutDeclaration {
    const fanOut = fanOutOf(job, stage);
    if (!fanOut) throw badInput(`Stage "${stage}" of job ${job.jobId} is not a fan-out stage (see jobKinds).`, 'stage');
    return fanOut;
  }

  /**
   * Adds items to a fan-out stage that has not finished (it may be running: the new items are
   * claimable at once). At most MAX_ITEMS_PER_ADD a call and MAX_STAGE_ITEMS a stage. One event
   * (ITEMS_ADDED) with the job's new counters; a stage the job has reached opens with them.
   */
  async add(jobId: string, stage: string, inputs: unknown[]) {
    assertId(jobId, 'job', 'jobId');
    requireText(stage, 'stage', 48);
    const head = await this.scope.store.get(jobKey(this.scope.tenant, jobId));
    if (!entities.Job.is(head)) throw notFound('Job', jobId);
    const checked = this.checkInputs(JobItems.fanOutOrThrow(head, stage), inputs);
    const records = await this.recordsOfItems(head, stage, checked);
    const actor = this.scope.actor;
    const limit = await this.checkItemsPerJob(itemTotal(head), checked.length);
    const job = await this.submit(jobId, [], (state) => {
      // Held again on the job as its committer reads it: another adder may have added since.
      refuseOverItems(itemTotal(state.job), checked.length, limit);
      const first = countsOf(state.job, stage).total + 1;
      addItems(state, stage, checked, actor);
      state.reuseRecords = new Map([...state.reuseRecords, ...records]);
      reuseAdded(state, stage, first, actor);
      openStage(state, stage, actor);
      return state.job;
    });
    return { ...job, seq: job.version };
  }

  /**
   * The reuse records of items with `inputs` of a reusable `stage` of `job`, by content key (none
   * when the stage is not reusable or the job asked not to reuse). Read before the group decides:
   * safe, as a record is never taken back (see job.reuse.ts).
   */
  recordsOfItems(job: JobItem, stage: string, inputs: Record<string, unknown>[]): Promise<Map<string, ReuseRecordItem>> {
    if (!reuseOf(job, stage) || !takesReuse(job)) return Promise.resolve(new Map());
    return readRecords(
      this.scope.store,
      this.scope.tenant,
      inputs.map((input) => contentKey(job, stage, input)),
    );
  }

  /** A worker's action on item `sequence` of `stage`; returns the item, its job and its stage's step as they are now. */
  async act(jobId: string, stage: string, sequence: number, action: ItemAction) {
    assertId(jobId, 'job', 'jobId');
    requireText(stage, 'stage', 48);
    if (!Number.isInteger(sequence) || sequence < 1) throw badInput('sequence must be a whole number from 1.', 'sequence');
    if (action.kind === 'progress') checkProgress(action.progress);
    if (action.kind === 'complete' && (typeof action.outputs !== 'object' || action.outputs === null || Array.isArray(action.outputs)))
      throw badInput('outputs must be an object.', 'outputs');
    const checked =
      action.kind === 'fail' ? { ...action, code: action.code.slice(0, 100), message: action.message.slice(0, 2000) } : action;
    const actor = this.scope.actor;
    return this.submit(jobId, [{ stage, sequence }], (state) => {
      // A completion's outputs are checked against the stage's declaration in the job the group
      // read, so a completion costs no read of its own.
      const item = actOnItem(state, stage, sequence, this.withCheckedOutputs(state.job, stage, checked), actor);
      // A worker's completion of an item of a reusable stage records its outputs, in its own transaction.
      if (checked.kind === 'complete' && item.status === ItemStatus.COMPLETED)
        state.extra.push(...recordWrites(this.scope.tenant, state.job, stage, { outputs: item.outputs }, state.at, item));
      return { job: state.job, step: state.steps.get(stage), item };
    });
  }

  /** A completion's outputs checked against the stage's declared outputs (type, required, S3 keys under the tenant); other actions as they are. */
  private withCheckedOutputs(job: JobItem, stage: string, action: ItemAction): ItemAction {
    if (action.kind !== 'complete') return action;
    const fanOut = JobItems.fanOutOrThrow(job, stage);
    const outputs = checkFields(fanOut.outputs, action.outputs, {
      mode: 'create',
      tenant: this.scope.tenant,
      prefix: 'outputs.',
      typed: true,
      closed: true,
    });
    return { ...action, outputs: Object.fromEntries(Object.entries(outputs).filter(([, v]) => v !== undefined)) };
  }

  /**
   * A claim for claimWork of the job's oldest claimable item: decided in the job's group, which
   * reads the claimable index once for all its claims and hands them the candidates in turn, so
   * workers asking at once are handed different items in one transaction instead of racing for
   * the same one and losing a round each. An item whose lease ran out past its attempts fails on
   * the way (and is nobody's work). No item when none can be claimed now.
   */
  async claimNext(jobId: string, options: { pooled?: boolean } = {}) {
    const leaseUntil = this.leaseUntil();
    const actor = this.scope.actor;
    const pooled = options.pooled === true;
    const claim = `${CLAIM_REF}${++claimsSent}`;
    return this.submitRefs(jobId, pooled ? [claim, POOL_REF] : [claim], (state) => {
      // A pool claim for a tenant at its running limit takes nothing that would pass the limit
      // (the limit holds at every commit: see the PoolLoad write in writesOf). It still tries every
      // candidate: an attempt of the tenant's whose lease ran out counts as running until a claim
      // ends it, so a claim that took only when below the limit would never end one, and a tenant
      // whose pool workers all died would wait for good. Taking such an attempt over leaves the
      // count as it was; ending one past its attempts, or into its backoff, lowers it.
      const limit = pooled ? state.pool?.limit : undefined;
      let atLimit = false;
      for (const id of state.claimable) {
        // Taken (or failed past its attempts) by an earlier claim of this group.
        if (state.changedItems.has(id)) continue;
        const ref = refOf(id);
        const fork = state.fork();
        try {
          const claimed = actOnItem(fork, ref.stage, ref.sequence, { kind: 'claim', leaseUntil }, actor);
          // Who holds the attempt: a pool worker's claim counts in the tenant's pool load.
          const item = claimed.status === ItemStatus.RUNNING ? fork.putItem({ ...claimed, pooled: pooled || undefined }) : claimed;
          if (limit !== undefined && fork.poolLoad() > limit) {
            atLimit = true;
            continue;
          }
          state.adopt(fork);
          if (item.status === ItemStatus.RUNNING) return { job: state.job, step: state.steps.get(ref.stage), item, atLimit: false };
        } catch (error) {
          // Taken by an earlier claim, or its stage is not running: try the next one. Anything
          // else (a fault) is the claimer's error.
          if (!(error instanceof AppError)) throw error;
        }
      }
      // With no candidate at all the tenant may still be at its limit: its running work is elsewhere.
      atLimit ||= limit !== undefined && state.poolLoad() >= limit;
      return { job: state.job, step: undefined, item: undefined, atLimit };
    });
  }

  /**
   * Reports an attempt's progress (0 to 1) and renews its lease; with `checkpoint`, also where its
   * work stands, kept on the item for whichever attempt comes next. Refused for an attempt the
   * caller no longer holds.
   */
  progress(jobId: string, stage: string, sequence: number, attempt: number, progress: number, checkpoint?: Record<string, unknown>) {
    return this.act(jobId, stage, sequence, { kind: 'progress', attempt, progress, leaseUntil: this.leaseUntil(), checkpoint });
  }

  /**
   * Opens the fan-out stage `stage` of a job that has reached it: its step runs (STEP_STARTED);
   * a stage without items completes at once. Safe to repeat: a stage already open, or one the job
   * has not reached, is left as it is.
   */
  async open(jobId: string, stage: string) {
    const actor = this.scope.actor;
    return this.submit(jobId, [], (state) => {
      openStage(state, stage, actor);
      return state.job;
    });
  }

  /** Items of a job (optionally of one stage), in stage and sequence order, a page at a time. */
  page(jobId: string, stage: string | null | undefined, page: { first?: number | null; after?: string | null }) {
    const spec = stage
      ? this.scope.tenant.of(entities.WorkItem).prefixOf({ jobId, stage })
      : { pk: this.scope.tenant.of(entities.Job).pkOf({ jobId }), skPrefix: 'ITEM#' };
    return this.scope.page(spec, page).then((p) => entities.WorkItem.pageOf(p));
  }

  /**
   * Items of one stage in sequence order, from the one after `afterSequence`, at most `limit`
   * (MAX_SCENES_PAGE): one bounded read, however many items the stage holds.
   */
  async range(jobId: string, stage: string, afterSequence: number, limit: number): Promise<WorkItemItem[]> {
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_SCENES_PAGE)
      throw badInput(`limit must be between 1 and ${MAX_SCENES_PAGE}.`, 'limit');
    if (!Number.isInteger(afterSequence) || afterSequence < 0 || afterSequence > MAX_STAGE_ITEMS)
      throw badInput(`afterSequence must be between 0 and ${MAX_STAGE_ITEMS}.`, 'afterSequence');
    const items = this.scope.tenant.of(entities.WorkItem);
    const { pk, skPrefix } = items.prefixOf({ jobId, stage });
    const from = items.keyOf({ jobId, stage, sequence: afterSequence + 1 }).SK;
    const rows = await this.scope.store.queryFirst({ pk, skBetween: [from, `${skPrefix ?? ''}\uffff`] }, limit);
    return rows.filter((row) => entities.WorkItem.is(row));
  }
}

/* ----------------------------------------------------------------------------------------------
 * The decisions, on a batch's state. Each throws INVALID_TRANSITION or BAD_USER_INPUT to refuse.
 */

function stageOrder(job: JobItem, stage: string): number {
  return job.plan.find((p) => p.name === stage)?.order ?? 0;
}

export function addItems(state: BatchState, stage: string, inputs: Record<string, unknown>[], actor: string): void {
  const { job } = state;
  const fanOut = JobItems.fanOutOrThrow(job, stage);
  if (TERMINAL.has(job.status))
    throw invalidTransition('Job', job.jobId, job.status, 'items added', { action: 'add items to', allowed: [], hint: 'It has finished.' });
  const step = state.steps.get(stage);
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
  const attempts = fanOut.attempts ?? job.maxAttempts;
  inputs.forEach((input, i) => {
    state.putItem({
      PK: '',
      SK: '',
      entityType: entities.WorkItem.type,
      jobId: job.jobId,
      stage,
      sequence: counts.total + i + 1,
      kind: job.kind,
      status: ItemStatus.PENDING,
      attempt: 1,
      maxAttempt: attempts,
      progress: 0,
      inputs: input,
      availableAt: state.at,
      version: 1,
      createdAt: state.at,
      updatedAt: state.at,
      createdBy: actor,
    });
  });
  const itemCounts = { ...job.itemCounts, [stage]: { ...counts, total: counts.total + inputs.length } };
  state.change({ itemCounts, progress: progressOf(job, itemCounts) }, JobEventType.ITEMS_ADDED, actor);
}

/** The job's progress: its finished steps plus the share of the current fan-out stage's items done. */
function progressOf(job: JobItem, itemCounts: Record<string, ItemCountsItem> | undefined): number {
  const current = job.currentStep;
  const counts = current ? itemCounts?.[current] : undefined;
  return jobProgress(job, counts && counts.total > 0 ? (counts.completed + counts.failed) / counts.total : 0);
}

/** Opens the stage when the job has reached it and its step still waits (STEP_STARTED); no-op otherwise. */
export function openStage(state: BatchState, stage: string, actor: string): void {
  const { job } = state;
  if (job.currentStep !== stage || (job.status !== JobStatus.QUEUED && job.status !== JobStatus.RUNNING)) return;
  const step = state.steps.get(stage);
  if (!step || step.status !== StepStatus.PENDING) return;
  const started = { ...step, status: StepStatus.RUNNING, startedAt: state.at, progress: 0 };
  state.putStep(started);
  state.change({ status: JobStatus.RUNNING, startedAt: job.startedAt ?? state.at }, JobEventType.STEP_STARTED, actor, { step: started });
  // A stage without items, or whose items were all done before it opened (reused when added),
  // completes at once.
  const counts = countsOf(state.job, stage);
  if (counts.completed + counts.failed === counts.total) settleStage(state, stage, actor);
}

/**
 * Decides a step action with the job's machine (`decide`, with the policy the step's stage
 * declares) on the group's state, and records its outcome: the step attempts it writes and the
 * job's change with its event. With `pooled`, an attempt the action starts is marked as a pool
 * worker's (it counts in its tenant's pool load, and every later write of it keeps the mark).
 * Returns the outcome; throws what `decide` throws, changing nothing.
 */
export function decideStep(state: BatchState, action: JobAction, actor: string, options: { pooled?: boolean } = {}): Outcome {
  const jobId = state.job.jobId;
  // The named step's stage declares how long its attempts run and how long a failed one waits.
  const stage = 'step' in action ? action.step : (state.job.currentStep ?? '');
  const outcome = decide(stateOf(state.job), state.steps, action, { now: state.at, actor, jobId, policy: stepPolicyOf(state.job, stage) });
  for (const step of outcome.steps) {
    const held = options.pooled === true && step.status === StepStatus.RUNNING && step.startedAt === state.at;
    state.putStep({ ...step, ...(held ? { pooled: true } : {}), jobId });
  }
  state.change(jobFields(outcome.job, state.at), outcome.type, actor, { step: outcome.step });
  return outcome;
}

/** A stage all of whose items are done (and not failed past its policy) completes, and the job goes on. */
function finishStage(state: BatchState, stage: string, actor: string): void {
  const counts = countsOf(state.job, stage);
  const outputs = { items: counts.total, completed: counts.completed, failed: counts.failed };
  decideStep(state, { kind: 'complete', step: stage, artifacts: [], outputs }, actor);
  openReached(state, actor);
}

/**
 * When the job has just moved on to a fan-out stage, that stage opens in the same group (its
 * step runs, STEP_STARTED), so no later write is needed to start it; a stage without items
 * completes at once and the job moves on again.
 */
export function openReached(state: BatchState, actor: string): void {
  const next = state.job.currentStep;
  if (!next) return;
  if (fanOutOf(state.job, next)) openStage(state, next, actor);
  else reuseStep(state, next, actor);
}

/**
 * The job's current step, when its stage is reusable, it waits, and a live record with its
 * content key was read with the group (BatchState.reuseRecords), completes at once from the
 * record's outputs (STEP_REUSED, naming the source): started and completed by the job's machine,
 * in one event, so it is never claimable. The job then goes on as after any completion.
 */
function reuseStep(state: BatchState, stage: string, actor: string): void {
  const { job } = state;
  if (!reuseOf(job, stage) || !takesReuse(job) || (job.status !== JobStatus.QUEUED && job.status !== JobStatus.RUNNING)) return;
  const step = state.steps.get(stage);
  if (!step || step.status !== StepStatus.PENDING) return;
  const record = state.reuseRecords.get(contentKey(job, stage));
  if (!liveRecord(record, state.at)) return;
  const ctx = { now: state.at, actor, jobId: job.jobId };
  const started = decide(stateOf(job), state.steps, { kind: 'start', step: stage }, ctx);
  const steps = new Map<string, StepState>(state.steps);
  for (const s of started.steps) steps.set(s.name, s);
  const produced = { artifacts: record.artifacts ?? [], metrics: record.metrics, outputs: record.outputs };
  const done = decide(started.job, steps, { kind: 'complete', step: stage, ...produced }, ctx);
  const from = sourceOf(record);
  // The reused attempt names its source; the next step it reached is written as it is.
  for (const s of done.steps) state.putStep({ ...s, ...(s.name === stage ? { reusedFrom: from } : {}), jobId: job.jobId });
  const reusedStep = done.step ? { ...done.step, reusedFrom: from } : undefined;
  state.change(jobFields(done.job, state.at), JobEventType.STEP_REUSED, actor, { step: reusedStep, reused: [{ stage, from }] });
  openReached(state, actor);
}

/**
 * The items of `stage` from sequence `first` on, just added in this group, that have a live
 * record among the group's reuse records complete at once from its outputs: counted as completed,
 * one ITEMS_REUSED event naming each item's source, never claimable. A stage that is running
 * then settles (it completes when these were its last items).
 */
function reuseAdded(state: BatchState, stage: string, first: number, actor: string): void {
  const { job } = state;
  if (!reuseOf(job, stage) || !takesReuse(job) || state.reuseRecords.size === 0) return;
  const counts = countsOf(job, stage);
  const reused: ReusedWork[] = [];
  for (let sequence = first; sequence <= counts.total; sequence++) {
    const item = state.items.get(itemId(stage, sequence));
    const record = item ? state.reuseRecords.get(contentKey(job, stage, item.inputs)) : undefined;
    if (!item || item.status !== ItemStatus.PENDING || !liveRecord(record, state.at)) continue;
    const from = sourceOf(record);
    state.putItem({ ...item, status: ItemStatus.COMPLETED, progress: 1, outputs: record.outputs, reusedFrom: from, finishedAt: state.at });
    reused.push({ stage, sequence, from });
  }
  if (reused.length === 0) return;
  const itemCounts = { ...job.itemCounts, [stage]: { ...counts, completed: counts.completed + reused.length } };
  state.change({ itemCounts, progress: progressOf(job, itemCounts) }, JobEventType.ITEMS_REUSED, actor, { reused });
  settleStage(state, stage, actor);
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
function settleStage(state: BatchState, stage: string, actor: string): void {
  const { job } = state;
  if (job.currentStep !== stage || job.status !== JobStatus.RUNNING) return;
  const fanOut = JobItems.fanOutOrThrow(job, stage);
  const counts = countsOf(job, stage);
  const step = state.steps.get(stage);
  if (!step || step.status !== StepStatus.RUNNING) return;
  if (pastPolicy(fanOut, counts)) {
    const error: JobError = {
      code: 'ITEMS_FAILED',
      message: `${counts.failed} of ${counts.total} items of stage ${stage} failed (${policyText(fanOut)}); retryWorkItem reopens the stage.`,
      retryCount: step.attempt - 1,
    };
    const failed = { ...step, status: StepStatus.FAILED, error, finishedAt: state.at };
    state.putStep(failed);
    state.change(
      {
        status: JobStatus.FAILED,
        failedSteps: job.failedSteps + 1,
        error,
        finishedAt: state.at,
        expiresAt: jobFields({ ...stateOf(job), status: JobStatus.FAILED }, state.at).expiresAt,
      },
      JobEventType.STEP_FAILED,
      actor,
      { step: failed },
    );
    return;
  }
  if (counts.completed + counts.failed === counts.total) finishStage(state, stage, actor);
}

/**
 * One decision on a work item, in the making: the rules its actions share (the refusal naming the
 * item, the stage being live, the stage's attempt time and backoff, the counters and how an
 * attempt ends), on the group's state.
 */
class ItemDecision<K extends ItemAction['kind']> {
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
    readonly state: BatchState,
    readonly stage: string,
    readonly sequence: number,
    readonly action: Extract<ItemAction, { kind: K }>,
    readonly actor: string,
  ) {
    const { job } = state;
    this.fanOut = JobItems.fanOutOrThrow(job, stage);
    // Once a cancellation committed, nothing a worker sends about the job succeeds (whichever item
    // it names), and it is told so with a code of its own, so it can drop the work instead of
    // reading a transition error.
    refuseCancelled(job, job.jobId);
    const item = state.items.get(itemId(stage, sequence));
    if (!item) throw notFound('WorkItem', `${job.jobId}/${stage}/${sequence}`);
    this.item = item;
    this.what = `Item ${sequence} of stage ${stage} of job`;
    const waiting = item.status === ItemStatus.PENDING ? { availableAt: item.availableAt } : undefined;
    requireAttempt(this.what, job.jobId, action.kind, 'item', item.attempt, 'attempt' in action ? action.attempt : undefined, waiting);
    this.stageLive = job.currentStep === stage && (job.status === JobStatus.RUNNING || job.status === JobStatus.QUEUED);
    this.limit = this.fanOut.attemptTimeoutSeconds;
    this.deadline = deadlineOf(state.at, this.limit);
    this.counts = countsOf(job, stage);
  }

  get jobId(): string {
    return this.state.job.jobId;
  }

  /** INVALID_TRANSITION naming the item, its status, the target and the statuses allowed. */
  refuse(to: string, allowed: string[], hint?: string): never {
    throw invalidTransition(this.what, this.jobId, this.item.status, to, { action: VERBS[this.action.kind], allowed, hint });
  }

  /** The action needs the item RUNNING in a live stage. */
  requireRunning(to: string): void {
    if (this.item.status !== ItemStatus.RUNNING || !this.stageLive) this.refuse(to, [ItemStatus.RUNNING]);
  }

  /** The job's counters of the stage with `change`, and its progress with them. */
  withCounts(change: Partial<ItemCountsItem>): Partial<JobItem> {
    const itemCounts = { ...this.state.job.itemCounts, [this.stage]: { ...this.counts, ...change } };
    return { itemCounts, progress: progressOf(this.state.job, itemCounts) };
  }

  /** The item's next version with `changes`, recorded on the group's state. */
  put(changes: Partial<WorkItemItem>): WorkItemItem {
    return this.state.putItem({ ...this.item, ...changes, version: this.item.version + 1 });
  }

  /** The job changes with `change` and the event `type` about `item` (and `step`). */
  record(change: Partial<JobItem>, type: JobEventType, item: WorkItemItem, step?: StepLike): WorkItemItem {
    this.state.change(change, type, this.actor, { item, step });
    return item;
  }

  /** A new attempt's lease for the claimer, never past the attempt's time. */
  leaseFrom(leaseUntil: string): Partial<WorkItemItem> {
    return { worker: this.actor, leaseExpiresAt: leaseWithin(leaseUntil, this.deadline), timesOutAt: this.deadline };
  }

  /**
   * The running item finishes for good (COMPLETED or FAILED): its new state, counted, its event,
   * and the stage settled by its policy.
   */
  finish(
    status: typeof ItemStatus.COMPLETED | typeof ItemStatus.FAILED,
    changes: Partial<WorkItemItem>,
    event: JobEventType,
  ): WorkItemItem {
    const { counts, state } = this;
    const finished = this.put({ ...changes, status, finishedAt: state.at, leaseExpiresAt: undefined, timesOutAt: undefined });
    const counted = status === ItemStatus.COMPLETED ? { completed: counts.completed + 1 } : { failed: counts.failed + 1 };
    this.record(this.withCounts({ running: counts.running - 1, ...counted }), event, finished);
    settleStage(state, this.stage, this.actor);
    return finished;
  }

  /** The running item fails past its attempts. */
  failForGood(error: JobError): WorkItemItem {
    return this.finish(ItemStatus.FAILED, { error }, JobEventType.ITEM_FAILED);
  }

  /** The running item's attempt ended with attempts left: it waits, PENDING, for the next one, claimable after the stage's backoff. */
  waitForNext(error: JobError): WorkItemItem {
    const { item, state } = this;
    const availableAt = retryAt(
      this.fanOut.retryBackoff,
      { jobId: this.jobId, stage: this.stage, sequence: this.sequence, attempt: item.attempt },
      state.at,
    );
    const waiting = this.put({
      status: ItemStatus.PENDING,
      attempt: item.attempt + 1,
      progress: 0,
      error,
      worker: undefined,
      leaseExpiresAt: undefined,
      timesOutAt: undefined,
      availableAt,
    });
    return this.record(this.withCounts({ running: this.counts.running - 1 }), JobEventType.ITEM_ATTEMPT_FAILED, waiting);
  }
}

/** What each worker's (or person's) action on an item does, given the decision's shared rules (ItemDecision). */
const ITEM_HANDLERS: { [K in ItemAction['kind']]: (d: ItemDecision<K>) => WorkItemItem } = {
  claim(d) {
    const { state, item, stage, action } = d;
    const { job } = state;
    if (!d.stageLive)
      throw invalidTransition(`Stage ${stage} of job`, d.jobId, `${job.status} at ${job.currentStep ?? 'no stage'}`, 'claimed', {
        action: 'claim',
        allowed: [`RUNNING at ${stage}`],
        hint: 'Its items are claimable only while the job runs that stage.',
      });
    // A stage whose items are claimed before it was opened (a crash in between) opens now.
    if (state.steps.get(stage)?.status === StepStatus.PENDING) openStage(state, stage, d.actor);
    // A waiting item comes back only when its backoff is over, whatever an index read lagging
    // behind said.
    const waitsUntil = item.availableAt ?? item.createdAt;
    if (item.status === ItemStatus.PENDING && waitsUntil > state.at)
      return d.refuse('claimed', [`${ItemStatus.PENDING} past its backoff`], `It waits for its retry backoff until ${waitsUntil}.`);
    if (item.status === ItemStatus.PENDING) {
      const started = d.put({ status: ItemStatus.RUNNING, progress: 0, startedAt: state.at, ...d.leaseFrom(action.leaseUntil) });
      return d.record(d.withCounts({ running: d.counts.running + 1 }), JobEventType.ITEM_STARTED, started);
    }
    // Whichever came first ended the attempt: the holder's silence, or its time.
    const takeover = takeoverOf(item, state.at, {
      maxAttempts: item.maxAttempt,
      backoff: !!d.fanOut.retryBackoff,
      timeoutSeconds: d.limit,
    });
    if (item.status !== ItemStatus.RUNNING || takeover.kind === 'held')
      return d.refuse('claimed', [ItemStatus.PENDING, 'RUNNING with its lease or its time run out'], heldHint(item, takeover.ends));
    const { error } = takeover;
    // The next attempt waits for its backoff like one failed by its worker: the claimer takes
    // none of it (claimNext goes on to the next candidate).
    if (takeover.kind === 'wait') return d.waitForNext(error);
    if (takeover.kind === 'fail') return d.failForGood(error);
    // Without a backoff the claimer holds the next attempt at once.
    const again = d.put({
      attempt: item.attempt + 1,
      status: ItemStatus.RUNNING,
      progress: 0,
      error,
      startedAt: state.at,
      ...d.leaseFrom(action.leaseUntil),
    });
    return d.record(d.withCounts({}), JobEventType.ITEM_RECLAIMED, again);
  },
  progress(d) {
    const { item, action } = d;
    d.requireRunning(ItemStatus.RUNNING);
    // An attempt whose time is up is not renewed: its holder is told to stop, and the item
    // stays claimable, so the next claim takes it over.
    refuseTimedOut(d.what, d.jobId, item, d.state.at, d.limit);
    const updated = d.put({
      progress: action.progress,
      ...(action.checkpoint !== undefined ? { checkpoint: action.checkpoint } : {}),
      leaseExpiresAt: leaseWithin(action.leaseUntil, item.timesOutAt),
    });
    return d.record({}, JobEventType.ITEM_PROGRESS, updated);
  },
  complete(d) {
    d.requireRunning(ItemStatus.COMPLETED);
    return d.finish(ItemStatus.COMPLETED, { progress: 1, outputs: d.action.outputs }, JobEventType.ITEM_COMPLETED);
  },
  fail(d) {
    d.requireRunning(ItemStatus.FAILED);
    const { item, action } = d;
    const error: JobError = { code: action.code, message: action.message, retryCount: item.attempt - 1 };
    // Attempts remain: the item waits for its next attempt, claimable after the stage's backoff (at once without one).
    return hasAttemptsLeft(item.attempt, item.maxAttempt) ? d.waitForNext(error) : d.failForGood(error);
  },
  handBack(d) {
    const { item, state } = d;
    d.requireRunning(ItemStatus.PENDING);
    // An attempt whose time is up is over already: the next claim takes it over as it would.
    refuseTimedOut(d.what, d.jobId, item, state.at, d.limit);
    // The next attempt waits, claimable at once (no backoff), and the released one is not
    // counted: the item's last attempt moves on with it (job.attempts.ts countedAttempts).
    const waiting = d.put({
      status: ItemStatus.PENDING,
      attempt: item.attempt + 1,
      maxAttempt: item.maxAttempt + 1,
      progress: 0,
      worker: undefined,
      leaseExpiresAt: undefined,
      timesOutAt: undefined,
      availableAt: state.at,
    });
    return d.record(d.withCounts({ running: d.counts.running - 1 }), JobEventType.ITEM_HANDED_BACK, waiting);
  },
  retry(d) {
    const { state, item, stage, action } = d;
    const { job } = state;
    if (item.status !== ItemStatus.FAILED) d.refuse(ItemStatus.PENDING, [ItemStatus.FAILED]);
    if (action.errorCode !== undefined && item.error?.code !== action.errorCode)
      d.refuse(ItemStatus.PENDING, [`${ItemStatus.FAILED} with ${action.errorCode}`], `Its last error is ${item.error?.code ?? 'none'}.`);
    const step = state.steps.get(stage);
    const stageFailed = job.status === JobStatus.FAILED && job.currentStep === stage && step?.status === StepStatus.FAILED;
    if (!stageFailed && !(d.stageLive && step?.status === StepStatus.RUNNING)) {
      throw invalidTransition(`Stage ${stage} of job`, d.jobId, step?.status ?? 'over', 'reopened', {
        action: 'retry an item of',
        allowed: [StepStatus.RUNNING, StepStatus.FAILED],
        hint: 'Only an item of the stage the job is running, or of the stage it failed in, can be retried.',
      });
    }
    const reopened = d.put({
      status: ItemStatus.PENDING,
      attempt: item.attempt + 1,
      maxAttempt: item.attempt + (d.fanOut.attempts ?? job.maxAttempts),
      progress: 0,
      worker: undefined,
      leaseExpiresAt: undefined,
      timesOutAt: undefined,
      finishedAt: undefined,
      availableAt: state.at,
    });
    const counted = d.withCounts({ failed: d.counts.failed - 1 });
    if (!stageFailed || !step) return d.record(counted, JobEventType.ITEM_RETRIED, reopened);
    // The stage failed by its policy: it reopens as a new attempt of its step, and the job runs again.
    const attempt = step.attempt + 1;
    const running = {
      name: stage,
      order: step.order,
      attempt,
      status: StepStatus.RUNNING,
      progress: 0,
      startedAt: state.at,
      jobId: d.jobId,
    };
    state.putStep(running);
    const reopenedJob = {
      ...counted,
      status: JobStatus.RUNNING,
      attempts: { ...job.attempts, [stage]: attempt },
      failedSteps: Math.max(0, job.failedSteps - 1),
      error: undefined,
      finishedAt: undefined,
      expiresAt: undefined,
    };
    return d.record(reopenedJob, JobEventType.ITEM_RETRIED, reopened, running);
  },
};

/**
 * Decides a worker's (or person's) action on item `sequence` of `stage` on the group's state and
 * records it: the item's new state, the job's change and its event, and whatever follows (the
 * stage settled, the job moved on). Returns the item as it leaves it; throws JOB_CANCELLED,
 * NOT_FOUND, INVALID_TRANSITION or ATTEMPT_TIMED_OUT, changing nothing of the state it throws on.
 */
export function actOnItem(state: BatchState, stage: string, sequence: number, action: ItemAction, actor: string): WorkItemItem {
  return handleItem(action.kind, new ItemDecision(state, stage, sequence, action, actor));
}

/** Runs the handler of action `kind` (typed per action: TypeScript's correlated union pattern, no assertion). */
function handleItem<K extends ItemAction['kind']>(kind: K, d: ItemDecision<K>): WorkItemItem {
  const handler: (d: ItemDecision<K>) => WorkItemItem = ITEM_HANDLERS[kind];
  return handler(d);
}
