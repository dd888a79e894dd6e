import {
  addItems,
  type BatchEvent,
  checkProgress,
  decide,
  type GroupRead,
  JobGroup,
  newItem,
  fanOutOrThrow,
  itemId,
  itemOf,
  itemTotal,
  leaseUntilOf,
  openReached,
  openStage,
  refuseOverItems,
  reuseAdded,
  SettleStopped,
} from './job.decider';
import { limitsOf, quotaWrites } from '../common/quota';
import type { PlanLimits, PlanName } from '../config';
import { AppError, badInput, ErrorCode, invalidTransition, notFound } from '../errors';
import { attemptEndsAt, entities, type EntityItem, itemClaimableFrom, MAX_STAGE_ITEMS } from '../common/entities';
import { checkFields } from '../common/fields';
import { assertId } from '../common/ids';
import type { Scope } from '../common/scope';
import type { BoundTenant } from '../common/bound-tenant';
import { boundedJson, maxItems, requireText } from '../common/validate';
import { isPlainObject } from '../guards';
import { activityEvent } from '../common/activity-event';
import { creationWrites } from '../common/mutate';
import type { Attribute, WriteValues } from '../infra/dynamo/entity';
import {
  type AggregateIO,
  type AggregateType,
  changingTooFast,
  type CommitStats,
  committerOf,
  type Decided,
  Stale,
} from '../infra/dynamo/committer';
import type { Store } from '../infra/dynamo/store';
import { check, put, type UnitWrite, update, type Write } from '../infra/dynamo/write';
import { type FanOutDeclaration, fanOutOf, stageOf } from './job.kinds';
import { currentStepKeys, jobKey } from './job.keys';
import { contentKey, readRecords, recordWrites, type ReuseRecordItem, reuseOf, takesReuse, waitingStepKeys } from './job.reuse';
import {
  initialSteps,
  ItemStatus,
  type JobAction,
  type JobCommand,
  JobEventType,
  JobStatus,
  onStep,
  type StepState,
  StepStatus,
  TERMINAL,
} from './job.machine';
import { countsOf, eventWrites, jobSettleWrites, jobWorkWrites, stepStateOf, stepWrite, type StepLike } from './job.writes';

/*
 * The job aggregate's IO: what a group of commands reads, what its decided state writes, and its
 * submission to the committer (infra/dynamo/committer.ts); the decisions are job.decider.ts. Every
 * change of a job, its steps or its items is one event with seq = the job's new version, so every
 * change is a command on the job's queue: a group is decided on one read (see load) and committed
 * in one transaction conditioned on the job's and each item's version, with what job.writes.ts
 * derives from the state it left.
 */

type JobItem = EntityItem<'Job'>;
type StepItem = EntityItem<'Step'>;
type WorkItemItem = EntityItem<'WorkItem'>;

/** Items one addWorkItems (or createJob) may add: they are written in one transaction with the job. */
export const MAX_ITEMS_PER_ADD = 80;

/** The most items one read of a stage's items in sequence order takes (a MUSIC_VIDEO's `scenes`). */
export const MAX_SCENES_PAGE = 1000;

/** What the job's committer did since start (the bench reads it): groups, commands, lost rounds, committed commands. */
export const itemWriteStats: CommitStats = { batches: 0, intents: 0, conflicts: 0, committed: 0 };

/**
 * The claims' reads of this process (tests read them): groups that held claims, and those of them
 * that read the claimable index (the others took the candidates the group before left, see carryOf).
 */
export const claimReadStats = { groupsWithClaims: 0, indexReads: 0 };

/** The most candidates one group's claims read from the claimable index (BatchGetItem's limit a call). */
const MAX_CLAIM_CANDIDATES = 100;
/** The fewest a read takes: those its group leaves serve the next groups' claims (carryOf), so a busy job reads its index once for several. */
const MIN_CLAIM_CANDIDATES = 40;
/** The ref a pool claim adds to its command: its group reads the tenant's pool share and load too. */
const POOL_REF = '\u0000pool';
/** A claim's ref, numbered so a group can count them: it reads the index once for all (claimableIds), not each worker before it queues. */
const CLAIM_REF = '\u0000claim#';
let claimsSent = 0;
const isItemRef = (ref: string) => ref !== POOL_REF && !ref.startsWith(CLAIM_REF);
const claimsIn = (refs: readonly string[]) => refs.filter((ref) => ref.startsWith(CLAIM_REF)).length;
const refOf = (id: string) => ({ stage: id.slice(0, id.lastIndexOf('#')), sequence: Number(id.slice(id.lastIndexOf('#') + 1)) });

/**
 * How the committer treats jobs. 48 commands a group (a claim or a completion writes its item and
 * its event, so about 43 fit in 90 writes); 90 writes leave room for the stream heads added at
 * commit; 16 transactions a group against writers on other instances (see the committer's
 * worst-case latency). A drained job's carried state is kept 5 s (256 jobs, 20,000 items at most):
 * a busy job's workers call again within milliseconds, and a pool dealing claims to 100 tenants in
 * turn comes back to each tenant's job within seconds.
 */
export const JOB_AGGREGATE: AggregateType<JobGroup> = {
  maxCommands: 48,
  maxWrites: 90,
  maxRounds: 16,
  rereads: true,
  keepCarried: { ms: 5000, max: 256, weigh: (group) => group.read.items.size + 1, maxWeight: 20_000 },
  tooBusy: changingTooFast('Job'),
  stats: itemWriteStats,
};

/** At most this many items a carried state keeps (see carryOf); past it, the next group reads what it needs. */
const MAX_CARRIED_ITEMS = 500;

/** Whether a claim takes waiting item `a` after `b`: by when each became claimable, then by stage and sequence. */
function claimedAfter(a: WorkItemItem, b: WorkItemItem): boolean {
  const [from, other] = [itemClaimableFrom(a) ?? '', itemClaimableFrom(b) ?? ''];
  if (from !== other) return from > other;
  return a.stage !== b.stage ? a.stage > b.stage : a.sequence > b.sequence;
}

/**
 * The claims' candidates as `group`'s decisions leave them, in the order a claim takes them: those
 * of `read` (oldest first) that no decision changed, and each item a decision handed back (it keeps
 * its place, see handBack in job.decider.ts) at its place, as a fresh read of the index would list
 * it: so a later claim of the group, or of the next one, takes it before the items behind it.
 */
function inLine(group: JobGroup, read: readonly string[]): string[] {
  const line = read.filter((id) => !group.changedItems.has(id));
  for (const [id, item] of group.changedItems) {
    const from = item.status === ItemStatus.PENDING && item.attempt > 1 ? itemClaimableFrom(item) : undefined;
    if (from === undefined || from > group.at) continue;
    const behind = line.findIndex((other) => {
      const waiting = group.item(other);
      return waiting !== undefined && claimedAfter(waiting, item);
    });
    line.splice(behind < 0 ? line.length : behind, 0, id);
  }
  return line;
}

/**
 * What the next group of a busy job decides on without reading the job again: the job and steps as
 * committed, the running items (for their completions) and the claims' candidates left. Each item
 * keeps its version, on which the next commit is conditioned, so one another instance changed fails
 * that commit and the group is read afresh. Only when no step changed: a step's stored row holds
 * what its index entries were, which the state does not keep.
 */
function carryOf(committed: JobGroup): JobGroup | undefined {
  if (committed.changedSteps.length > 0 || committed.writes.length > 0) return undefined;
  const all = committed.items;
  const items = new Map([...all].filter(([, item]) => item.status === ItemStatus.RUNNING));
  const left = (committed.read.claimable ?? []).filter((id) => all.get(id)?.status === ItemStatus.PENDING);
  const claimable = inLine(committed, left);
  for (const id of claimable) items.set(id, all.get(id)!);
  if (items.size > MAX_CARRIED_ITEMS) return undefined;
  // The pool load is kept only where it decides nothing (no running limit; see writesOf).
  const { pool, storedSteps } = committed.read;
  const kept = pool && pool.limit === undefined ? { running: pool.running + committed.poolDelta() } : undefined;
  return JobGroup.of({ job: committed.job, steps: committed.steps, storedSteps, items, at: committed.at, claimable, pool: kept });
}

/**
 * `values` checked against the declared `fields` (type, required, S3 keys under the tenant, no
 * undeclared field; BAD_USER_INPUT naming the field after `prefix`), without the absent ones.
 */
export function checkDeclared(tenant: BoundTenant, fields: Record<string, Attribute>, values: object, prefix: string) {
  return definedOf(checkFields(fields, values, { mode: 'create', tenant, prefix, typed: true, closed: true }));
}

const definedOf = (values: object) => Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined));

/**
 * The id of a job's queue on its committer: its partition, which names the tenant, then the job's
 * own id after a NUL, the part a client is told when the job keeps changing (changingTooFast).
 */
export const jobQueueId = (tenant: BoundTenant, jobId: string) => `${jobKey(tenant, jobId).PK}\u0000${jobId}`;

/** How many jobs of `store` have a queue on their committer now (zero when no change is under way). */
export const openQueues = (store: Store): number => committerOf(store).stats().queues;

/** How many drained jobs of `store` have their last commit's state kept for their next group (see carryOf). */
export const keptJobStates = (store: Store): number => committerOf(store).keptStates;

/**
 * What a claim answers: the step attempt or item claimed (none when none could be), whether the
 * tenant is at its pool limit, and, for a step held under a lease listed early, when that ends.
 */
interface Claimed {
  job: JobItem;
  step: StepLike | undefined;
  item: WorkItemItem | undefined;
  atLimit: boolean;
  heldUntil?: string;
}

/** What losing a claim to another worker looks like: the unit moved on, or the job changed too fast or is gone. */
export const CLAIM_RACES = new Set<string>([
  ErrorCode.INVALID_TRANSITION,
  ErrorCode.CONFLICT,
  ErrorCode.NOT_FOUND,
  ErrorCode.JOB_CANCELLED,
]);

/** The job aggregate's commands: its fan-out stages' work items, and the step actions JobRepository runs through it (`run`). */
export class JobAggregate {
  constructor(
    private readonly scope: Scope,
    private readonly leaseSeconds: number,
    private readonly plans?: Record<PlanName, PlanLimits>,
  ) {}

  /** The items a job of the tenant may hold (its plan's itemsPerJob, with its overrides), read now, strongly consistently. */
  async itemsAllowed(): Promise<number> {
    const tenant = entities.Tenant.found(await this.scope.store.get(this.scope.tenant.of(entities.Tenant).keyOf({})));
    return limitsOf(this.plans, tenant).itemsPerJob;
  }

  /**
   * Queues `apply` on the job's committer and resolves with what it returned once its group
   * committed; `items` are those `apply` reads, and `pooled` and `claim` add POOL_REF and CLAIM_REF.
   * Rejects with what `apply` threw (nothing of it written), NOT_FOUND for an unknown job, or
   * CONFLICT when other instances kept changing the job past the retry bound.
   */
  submit<T>(
    jobId: string,
    items: readonly { stage: string; sequence: number }[],
    apply: (group: JobGroup) => Decided<JobGroup, T>,
    options: { ahead?: boolean; pooled?: boolean; claim?: boolean } = {},
  ): Promise<T> {
    const refs = items.map((r) => itemId(r.stage, r.sequence));
    if (options.claim) refs.push(`${CLAIM_REF}${++claimsSent}`);
    if (options.pooled) refs.push(POOL_REF);
    const io: AggregateIO<JobGroup> = {
      type: JOB_AGGREGATE,
      load: (all, carried) => this.load(jobId, all, carried),
      units: (state) => {
        const writes = this.writesOf(state);
        return writes.length > 0 ? [{ writes, hooks: this.scope.commitHooks() }] : [];
      },
      carry: carryOf,
    };
    return committerOf(this.scope.store).submit(jobQueueId(this.scope.tenant, jobId), io, refs, apply, { ahead: options.ahead });
  }

  /**
   * Reads the job, its steps' current attempts (currentStepKeys) and the items `refs` name, strongly
   * consistently, as a group's state; given a `carried` state (carryOf), only the items it lacks. A
   * group with a pool claim is read afresh while its tenant has a running limit: the pool load is
   * shared with the tenant's other jobs, so no state carried from this job's commits knows it. The
   * steps are read after the job, never before: a change commits the job and its steps together, so
   * a change between the two reads moved the version the commit is conditioned on.
   */
  private async load(jobId: string, refs: readonly string[], carried?: JobGroup): Promise<JobGroup> {
    const claims = claimsIn(refs);
    if (claims > 0) claimReadStats.groupsWithClaims++;
    const withPool = refs.includes(POOL_REF);
    if (carried && (!withPool || carried.read.pool !== undefined)) return this.topUp(carried, refs, claims);
    const { tenant } = this.scope;
    const wanted = refs.filter(isItemRef);
    // Items are conditioned on their own versions and the pool load on its limit, so they may be read beside the job.
    const poolKeys = withPool ? [tenant.of(entities.PoolShare).keyOf({}), tenant.of(entities.PoolLoad).keyOf({})] : [];
    const itemKeys = wanted.map((r) => this.itemKey(jobId, r));
    const [job, beside, claimable] = await Promise.all([
      this.scope.store.get(jobKey(tenant, jobId)),
      itemKeys.length + poolKeys.length ? this.scope.store.batchGet([...itemKeys, ...poolKeys]) : Promise.resolve([]),
      this.claimableIds(jobId, claims),
    ]);
    if (!entities.Job.is(job)) throw notFound('Job', jobId);
    // The claims' candidates are read by key (strongly) with the steps: the index is read eventually consistently.
    const candidates = claimable.filter((id) => !wanted.includes(id)).map((id) => this.itemKey(jobId, id));
    const rows = await this.scope.store.batchGet([...currentStepKeys(tenant, job), ...candidates]);
    const storedSteps = entities.Step.itemsOf(rows);
    const steps = new Map(storedSteps.map((step) => [step.name, { ...stepStateOf(step), jobId }]));
    const found = entities.WorkItem.itemsOf([...beside.slice(0, itemKeys.length), ...rows]);
    const items = new Map(found.map((row) => [itemId(row.stage, row.sequence), row]));
    // The load item is kept by ADD alone (writesOf, job.settle), so it carries no entity type: its count is read as it is.
    const [share, load] = beside.slice(itemKeys.length);
    const running = typeof load?.running === 'number' ? load.running : 0;
    const pool = withPool ? { running, limit: entities.PoolShare.is(share) ? (share.maxRunning ?? undefined) : undefined } : undefined;
    const at = this.scope.now().toISOString();
    return JobGroup.of({ job, steps, storedSteps, items, at, claimable, pool, reuseRecords: await this.reuseRecords(job, steps) });
  }

  /** The carried state, with the items of `refs` and the claims' candidates it lacks read (strongly consistently). */
  private async topUp(carried: JobGroup, refs: readonly string[], claims: number): Promise<JobGroup> {
    const { job, steps } = carried;
    const items = new Map(carried.read.items);
    // The candidates the last group left serve this group's claims while there are enough of
    // them; otherwise the index is read again (oldest first, the carried ones among them).
    const left = carried.read.claimable ?? [];
    const claimable = claims <= left.length ? left : await this.claimableIds(job.jobId, claims);
    const missing = [...new Set([...refs.filter(isItemRef), ...claimable])].filter((id) => !items.has(id));
    const rows = missing.length ? await this.scope.store.batchGet(missing.map((id) => this.itemKey(job.jobId, id))) : [];
    for (const row of rows) if (entities.WorkItem.is(row)) items.set(itemId(row.stage, row.sequence), row);
    const reuseRecords = await this.reuseRecords(job, steps);
    return JobGroup.of({ ...carried.read, items, at: this.scope.now().toISOString(), claimable, reuseRecords });
  }

  /**
   * The records of the job's reusable steps still waiting, read for every group (another job may
   * have recorded one since), so a step the group moves the job on to can complete from them in
   * the same decision (openReached). None once the job finished.
   */
  private async reuseRecords(job: JobItem, steps: ReadonlyMap<string, StepState>) {
    return TERMINAL.has(job.status) ? undefined : readRecords(this.scope.store, this.scope.tenant, waitingStepKeys(job, steps));
  }

  private itemKey(jobId: string, id: string) {
    return this.scope.tenant.of(entities.WorkItem).keyOf({ jobId, ...refOf(id) });
  }

  /**
   * The itemIds of the job's oldest claimable items (waiting, or held past their lease) for a group's
   * `claims`, in one Query: twice as many and a few more, since the index, read eventually
   * consistently, may still list items an earlier group took.
   */
  private async claimableIds(jobId: string, claims: number): Promise<string[]> {
    if (claims === 0) return [];
    claimReadStats.indexReads++;
    const now = this.scope.now().toISOString();
    const spec = { ...this.scope.tenant.of(entities.WorkItem).query('claimableInJob', { jobId }), skBefore: `${now}$` };
    const rows = await this.scope.store.queryFirst(spec, Math.min(MAX_CLAIM_CANDIDATES, Math.max(2 * claims + 8, MIN_CLAIM_CANDIDATES)));
    return entities.WorkItem.itemsOf(rows).map((row) => itemId(row.stage, row.sequence));
  }

  /**
   * Settles one page of a finished job's rows for the settle sweep (job.settle.ts), as a command on
   * the job: its items take the job's expiry (writesOf gives it) and a cancelled job's unfinished
   * ones are cancelled (the pool load follows); its earlier step attempts take it if still as read;
   * `entry` commits in the same transaction. Resolves with the rows written; throws SettleStopped
   * when the job is no longer finished.
   */
  settle(jobId: string, page: readonly (StepItem | WorkItemItem)[], entry: Write): Promise<number> {
    const items = page.filter((row) => entities.WorkItem.is(row));
    return this.submit(jobId, items, (group) => {
      const { job } = group;
      if (!TERMINAL.has(job.status) || job.expiresAt == null) throw new SettleStopped();
      const expiresAt = job.expiresAt;
      const settled: WorkItemItem[] = [];
      for (const row of items) {
        const item = group.item(itemId(row.stage, row.sequence));
        if (!item) continue;
        const cancel = job.status === JobStatus.CANCELLED && (item.status === ItemStatus.PENDING || item.status === ItemStatus.RUNNING);
        // A running item of a job that failed stays as it is (a retry may take it over, or its worker
        // finish it), but no longer counts in its tenant's pool load: no report is accepted to end it.
        const release = item.status === ItemStatus.RUNNING && item.pooled === true;
        if (!cancel && !release && item.expiresAt === expiresAt) continue;
        const next = { ...item, version: item.version + 1, pooled: undefined };
        settled.push(cancel ? { ...next, status: ItemStatus.CANCELLED, leaseExpiresAt: undefined } : next);
      }
      const current = new Set(group.read.storedSteps.map((step) => `${step.name}#${step.attempt}`));
      // An earlier attempt is never written again, so one not as read was settled by another sweep.
      const earlier = page
        .filter((step) => entities.Step.is(step) && step.expiresAt !== expiresAt && !current.has(`${step.name}#${step.attempt}`))
        .map((step) => put({ ...step, expiresAt }).where({ status: step.status, updatedAt: step.updatedAt }));
      // A change no subscriber is told of: the job's stream ended with its last status.
      const state = (settled.length > 0 ? group.record({ actor: this.scope.actor, items: settled }) : group).withWrites(...earlier, entry);
      return { state, value: settled.length + earlier.length };
    });
  }

  /** The unit of work of a decided group (empty when nothing changed). */
  private writesOf(group: JobGroup): UnitWrite[] {
    if (group.events.length === 0 && group.writes.length === 0) return [];
    const { scope } = this;
    const { tenant } = scope;
    const { job, at } = group;
    const { creating, job: read } = group.read;
    const expiresAt = TERMINAL.has(job.status) ? job.expiresAt : undefined;
    const stale = () => new Stale();
    // The job's move in and out of the plan's running jobs is counted in the same transaction (src/common/quota.ts).
    const stored = tenant.of(entities.Job).put({ ...job });
    const writes: UnitWrite[] = [
      creating ? stored.ifNew() : stored.ifVersion(read.version, stale),
      ...quotaWrites(tenant, entities.Job, creating ? null : read, job),
    ];
    for (const [key, item] of group.changedItems) {
      const before = group.read.items.get(key)?.version;
      const stored = tenant.of(entities.WorkItem).put({ ...item, expiresAt });
      // A new job's items are new with it (its own put is what a duplicate creation fails on).
      writes.push(before === undefined ? (creating ? stored.ifNew() : stored.ifNew(stale)) : stored.ifVersion(before, stale));
    }
    const changedSteps = group.changedSteps;
    for (const step of changedSteps) writes.push(stepWrite(scope, job, step, at, expiresAt));
    // When the job finishes, the current attempts of its steps it did not write take its expiry, so
    // they go with it; its earlier attempts take it from the settle sweep (job.settle.ts).
    if (expiresAt !== undefined)
      for (const step of group.read.storedSteps)
        if (!changedSteps.some((w) => w.name === step.name && w.attempt === step.attempt))
          writes.push(stepWrite(scope, job, step, step.updatedAt ?? at, expiresAt));
    for (const e of group.events)
      if (e.type !== undefined)
        writes.push(...eventWrites(scope, e.job, e.previous, { type: e.type, step: e.step, item: e.item, reused: e.reused }, at, e.actor));
    const withStep = (j: JobItem, s: ReadonlyMap<string, StepLike>) => ({ job: j, step: j.currentStep ? s.get(j.currentStep) : undefined });
    const previous = creating ? null : withStep(read, group.read.steps);
    writes.push(
      ...jobWorkWrites(scope, previous, withStep(job, group.steps), at, this.leaseSeconds),
      ...jobSettleWrites(scope, read, job, at),
    );
    const delta = group.poolDelta();
    if (delta !== 0) {
      // The tenant's count of items running under pool claims moves with the items, exactly; an
      // increase is conditioned on the tenant's limit (the decision read the count, another job's
      // group may have moved it since: then this group reads and decides again).
      const load = update(tenant.of(entities.PoolLoad).keyOf({})).addNumber('running', delta);
      const limit = group.read.pool?.limit;
      writes.push(delta > 0 && limit !== undefined ? load.ifAtMost('running', limit - delta, stale) : load);
      // Decided without a limit: none may have been set since (setPoolShare), or this group reads and
      // decides again. That lets a busy job's pool claims decide on a carried state (carryOf).
      if (delta > 0 && limit === undefined) writes.push(check(tenant.of(entities.PoolShare).keyOf({})).atMost('maxRunning', 0, stale));
    }
    writes.push(...group.writes);
    return writes;
  }

  /**
   * A new job's writes (createJob), decided as the job's first group and written by writesOf (the job
   * only if new), for its caller to commit with the idempotency key's record: the job, its first step
   * attempts, the `items` given for `stage`, its JOB_CREATED event and JobWork entry, and what live
   * reuse records complete at once (the items, then the steps from the first while each has one), so
   * none of them is ever claimable. `allowed` is the plan's itemsPerJob, being read.
   */
  async created(job: JobItem, stage: string | undefined, items: Record<string, unknown>[], allowed: Promise<number> | undefined) {
    const actor = this.scope.actor;
    const at = job.updatedAt;
    const steps = initialSteps(job.plan).map((step) => ({ ...step, jobId: job.jobId }));
    // Read before the transaction: a record is never taken back (see job.reuse.ts).
    const [stepRecords, itemRecords, limit] = await Promise.all([
      this.reuseRecords(job, new Map(steps.map((step) => [step.name, step]))),
      stage ? this.recordsOfItems(job, stage, items) : undefined,
      allowed,
    ]);
    if (limit !== undefined) refuseOverItems(0, items.length, limit);
    const reuseRecords = new Map([...(stepRecords ?? []), ...(itemRecords ?? [])]);
    const read: GroupRead = { job, steps: new Map(), storedSteps: [], items: new Map(), at, creating: true, reuseRecords };
    // The job's creation, which writes every step attempt and the items given, is its first event (seq 1).
    const newItems = items.map((inputs, i) => newItem(job, stage ?? '', i + 1, inputs, actor, at));
    const made = JobGroup.of(read).created(actor, steps, newItems);
    // As on reaching any step (openReached): steps complete from records, and a first fan-out stage
    // opens in this commit, so a worker told of the job by its creation claims at once, not behind
    // one more read and transaction in the job's queue.
    const group = openReached(stage ? reuseAdded(made, stage, 1, actor) : made, actor);
    return { job: group.job, steps: [...group.steps.values()], writes: this.writesOf(group) };
  }

  /** The items of `inputs`, checked against the stage's declared item inputs (checkDeclared; a field named as `items[3].audioClip`). */
  checkInputs(fanOut: FanOutDeclaration, inputs: unknown[]): Record<string, unknown>[] {
    if (!Array.isArray(inputs) || inputs.length === 0) throw badInput('items must hold at least one item.', 'items');
    if (inputs.length > MAX_ITEMS_PER_ADD)
      throw badInput(`At most ${MAX_ITEMS_PER_ADD} items can be added at once (call addWorkItems again for more).`, 'items');
    return inputs.map((raw, i) => {
      if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw badInput(`items[${i}] must be an object.`, `items[${i}]`);
      return checkDeclared(this.scope.tenant, fanOut.inputs, raw, `items[${i}].`);
    });
  }

  /**
   * Adds items to a fan-out stage that has not finished (a running one's are claimable at once), at
   * most MAX_ITEMS_PER_ADD a call and MAX_STAGE_ITEMS a stage, in one event (ITEMS_ADDED); a stage the
   * job has reached opens with them.
   */
  async add(jobId: string, stage: string, inputs: unknown[]) {
    assertId(jobId, 'job', 'jobId');
    requireText(stage, 'stage', 48);
    const head = await this.scope.store.get(jobKey(this.scope.tenant, jobId));
    if (!entities.Job.is(head)) throw notFound('Job', jobId);
    const checked = this.checkInputs(fanOutOrThrow(head, stage), inputs);
    const records = await this.recordsOfItems(head, stage, checked);
    const actor = this.scope.actor;
    // The plan is read now; the job's count is the one its committer decides on (below), so
    // concurrent adders to one job are held to it exactly.
    const limit = await this.itemsAllowed();
    refuseOverItems(itemTotal(head), checked.length, limit);
    const job = await this.submit(jobId, [], (group) => {
      // Held again on the job as its committer reads it: another adder may have added since.
      refuseOverItems(itemTotal(group.job), checked.length, limit);
      const first = countsOf(group.job, stage).total + 1;
      const added = addItems(group, stage, checked, actor).withRecords(records);
      const state = openStage(reuseAdded(added, stage, first, actor), stage, actor);
      return { state, value: state.job };
    });
    return { ...job, seq: job.version };
  }

  /** The reuse records of items with `inputs` of `stage`, by content key (none when it is not reusable or the job takes no reuse). */
  private recordsOfItems(job: JobItem, stage: string, inputs: Record<string, unknown>[]): Promise<Map<string, ReuseRecordItem>> {
    if (!reuseOf(job, stage) || !takesReuse(job)) return Promise.resolve(new Map());
    const keys = inputs.map((input) => contentKey(job, stage, input));
    return readRecords(this.scope.store, this.scope.tenant, keys);
  }

  /** A worker's action on item `sequence` (from 1; 0 would name the stage's step) of `stage`: `run`, with the item as it is now. */
  async act(jobId: string, stage: string, sequence: number, action: JobAction) {
    requireText(stage, 'stage', 48);
    if (!Number.isInteger(sequence) || sequence < 1) throw badInput('sequence must be a whole number from 1.', 'sequence');
    const done = await this.run(jobId, { unit: { stage, sequence }, action });
    return { ...done, item: itemOf(done.state, stage, sequence) };
  }

  /**
   * Runs `command` on job `jobId` through the job's committer (decideOn; a lost race reads and decides
   * again, so of N identical commands one succeeds and the others are refused); a review decision
   * takes its `comment` into the activity trail. Returns the group's state as committed, its job and
   * the named step. Throws what `decide` throws, and BAD_USER_INPUT for arguments past their bounds.
   */
  async run(jobId: string, command: JobCommand, review: { comment?: string | null } = {}) {
    assertId(jobId, 'job', 'jobId');
    const { unit, action } = command;
    if (action.kind === 'progress') checkProgress(action.progress);
    if (action.kind === 'complete' || action.kind === 'progress') boundedJson(action.metrics, 'metrics');
    if (action.kind === 'complete' && action.artifacts) {
      maxItems(action.artifacts, 'artifacts', 50);
      for (const key of action.artifacts) this.scope.tenant.objectKey(key, 'artifacts');
    }
    const checked: JobCommand =
      action.kind === 'fail'
        ? { unit, action: { ...action, code: action.code.slice(0, 100), message: action.message.slice(0, 2000) } }
        : command;
    const apply = (group: JobGroup) => {
      const state = this.decideOn(group, checked, review);
      return { state, value: { state, job: state.job, step: unit ? state.steps.get(unit.stage) : undefined } };
    };
    // A hand-back goes ahead of the job's waiting commands (Committer.submit): a claim waiting
    // beside it in the next group then takes the unit it puts back, in the same commit.
    return this.submit(jobId, unit && unit.sequence > 0 ? [unit] : [], apply, { ahead: action.kind === 'handBack' });
  }

  /**
   * Decides `command` on the group as its kind declares it (declared), with the worker's lease from
   * now, and records what follows in the same group: a completion's reuse record, a stage's asset,
   * a review's activity event, and any stage the job reaches. Throws what `decide` throws.
   */
  decideOn(group: JobGroup, command: JobCommand, review: { comment?: string | null } = {}): JobGroup {
    const actor = this.scope.actor;
    const { at } = group;
    const { unit, action } = this.declared(group.job, command);
    const leased = action.kind === 'start' || action.kind === 'claim' || action.kind === 'progress';
    const leaseUntil = leaseUntilOf(at, this.leaseSeconds);
    const decided = decide(group, { unit, action: leased ? { ...action, leaseUntil } : action }, actor);
    // The command's own event is the first the decision made.
    const event = decided.events[group.events.length];
    const { job } = decided;
    const writes = [...this.reviewEvents(job, command, review.comment), ...this.assetWrites(job, event, at)];
    // A worker's completion of a reusable stage's step or item records its outputs, in its own transaction.
    if (event?.type === JobEventType.STEP_COMPLETED && event.step)
      writes.push(...recordWrites(this.scope.tenant, job, event.step.name, event.step, at));
    if (event?.type === JobEventType.ITEM_COMPLETED && event.item)
      writes.push(...recordWrites(this.scope.tenant, job, event.item.stage, { outputs: event.item.outputs }, at, event.item));
    return openReached(decided.withWrites(...writes), actor);
  }

  /**
   * A stage declared to make an asset (job.kinds.ts `asset`) that completes creates one in the job's
   * project, in the completion's own transaction: its file is the stage's S3-key output named by `file`.
   */
  private assetWrites(job: JobItem, decided: BatchEvent | undefined, at: string): UnitWrite[] {
    const step = decided?.step;
    if (!step || step.status !== StepStatus.COMPLETED) return [];
    const declared = stageOf(job, step.name)?.asset;
    const s3Key = declared ? step.outputs?.[declared.file] : undefined;
    if (!declared || typeof s3Key !== 'string') return [];
    // Made as createAsset makes one (src/common/mutate.ts), with its search words and created event.
    const attributes: WriteValues<typeof entities.Asset> = {
      assetId: this.scope.newId('asset'),
      projectId: job.projectId,
      type: declared.type,
      s3Key,
      status: 'ready',
      latestVersion: 1,
      versions: [{ version: 1, s3Key, status: 'ready', createdAt: at, confirmedAt: at }],
      metadata: { ...step.outputs, step: step.name, kind: job.kind },
      jobId: job.jobId,
    };
    const event = { action: entities.Asset.events.created, data: { type: declared.type, s3Key, jobId: job.jobId, step: step.name } };
    return creationWrites(this.scope, { model: entities.Asset, attributes, event }, at).writes;
  }

  /** A review decision (approve, reject) is also in the tenant's activity trail, in the decision's own transaction. */
  private reviewEvents(job: JobItem, { unit, action }: JobCommand, comment: string | null | undefined): UnitWrite[] {
    if (action.kind !== 'approve' && action.kind !== 'reject') return [];
    const decision = action.kind === 'approve' ? 'approved' : 'rejected';
    return [
      activityEvent(this.scope, {
        action: `step.${decision}`,
        subject: { type: entities.Job.type, id: job.jobId, projectId: job.projectId },
        data: { jobId: job.jobId, step: unit?.stage, decision, comment: action.kind === 'reject' ? action.reason : (comment ?? undefined) },
      }),
    ];
  }

  /**
   * The command as the job's kind declares it: a fan-out stage's step is run by its items, not by a
   * worker; a completion's outputs are checked against the unit's declared outputs (checkDeclared),
   * and a step of a stage declared for review pauses when it completes. On the job the group read,
   * so a completion costs no read of its own.
   */
  private declared(job: JobItem, { unit, action }: JobCommand): JobCommand {
    // retryJob names the stage of a FAILED job only: on any other job the decision refuses it as the job's command.
    const named = unit?.stage ?? (action.kind === 'retry' && job.status === JobStatus.FAILED ? job.currentStep : undefined);
    const onItem = unit !== undefined && unit.sequence > 0;
    if (!onItem && named && fanOutOf(job, named) && action.kind !== 'cancel' && action.kind !== 'approve' && action.kind !== 'reject') {
      throw invalidTransition(`Stage ${named} of job`, job.jobId, 'a fan-out stage', action.kind, {
        action: action.kind,
        allowed: [],
        hint:
          action.kind === 'retry'
            ? 'Its items failed: retryWorkItem reopens a failed item and the stage with it.'
            : 'Its work items are claimed (claimWork) and completed one by one (completeWorkItem); the stage completes when they are done.',
      });
    }
    const stage = named ? stageOf(job, named) : undefined;
    // Approving a paused step completes it with what it holds: one a worker paused holds no outputs,
    // so a stage that requires some (and makes its asset from them) is completed with them instead.
    const required = Object.entries(stage?.outputs ?? {}).filter(([, field]) => field.required);
    if (action.kind === 'pause' && required.length > 0) {
      throw invalidTransition(`Step ${named} of job`, job.jobId, 'RUNNING without its outputs', StepStatus.PAUSED, {
        action: 'pause for review',
        allowed: [],
        hint: `Its stage requires outputs (${required.map(([name]) => name).join(', ')}), which an approval would complete it without: complete it with them (completeStep)${stage?.review ? ', and it pauses for review then' : ''}.`,
      });
    }
    if (action.kind !== 'complete') return { unit, action };
    if ((onItem || action.outputs != null) && !isPlainObject(action.outputs)) throw badInput('outputs must be an object.', 'outputs');
    const declared = onItem ? fanOutOrThrow(job, named ?? '').outputs : stage?.outputs;
    const outputs = declared
      ? checkDeclared(this.scope.tenant, declared, action.outputs ?? {}, 'outputs.')
      : boundedJson(action.outputs, 'outputs');
    return { unit, action: { ...action, outputs: outputs ? definedOf(outputs) : undefined, review: !onItem && stage?.review } };
  }

  /**
   * A worker's claim in the job, decided in the job's group: of its single step `stage` (decideOn, as
   * any command on it), or, without a stage, of its oldest claimable item, the group handing its
   * claims the candidates in turn, so that workers asking at once get different items in one
   * transaction instead of racing for one. A unit whose lease ran out past its attempts fails on the
   * way. A pool worker's (`pooled`) counts in its tenant's pool load, kept within its running limit
   * (see writesOf). Says `heldUntil` when the step is held under a lease (or time) that ends later.
   */
  async claim(jobId: string, stage: string | undefined, pooled: boolean) {
    const leaseUntil = leaseUntilOf(this.scope.now().toISOString(), this.leaseSeconds);
    const actor = this.scope.actor;
    const none = (state: JobGroup, atLimit: boolean, heldUntil?: string): Decided<JobGroup, Claimed> => ({
      state,
      value: { job: state.job, step: undefined, item: undefined, atLimit, heldUntil },
    });
    const claim = (group: JobGroup): Decided<JobGroup, Claimed> => {
      // A pool claim for a tenant at its running limit takes nothing that would pass it, but still
      // tries every candidate: an attempt whose lease ran out counts as running until a claim ends
      // it, so a tenant whose pool workers all died would otherwise wait for good. Taking such an
      // attempt over leaves the count as it was; ending one, or backing it off, lowers it.
      const limit = pooled ? group.read.pool?.limit : undefined;
      if (stage !== undefined) {
        let decided: JobGroup;
        try {
          decided = this.decideOn(group, onStep(stage, { kind: 'claim', pooled }));
        } catch (error) {
          if (!(error instanceof AppError) || !CLAIM_RACES.has(error.code)) throw error;
          const held = group.steps.get(stage);
          const ends = held?.status === StepStatus.RUNNING ? attemptEndsAt(held) : undefined;
          const refused = error.code === ErrorCode.INVALID_TRANSITION;
          // Listed before its lease's end (job.writes.ts offeredFrom): tried again once it ends.
          if (refused && ends && ends > group.at) return none(group, false, ends);
          // Not claimable, with the tenant at its limit: passed over until it has room (job.pool.ts).
          return none(group, refused && limit !== undefined && group.poolLoad() >= limit);
        }
        if (limit !== undefined && decided.poolLoad() > limit) return none(group, true);
        const step = decided.steps.get(stage);
        // A lease that ran out past the step's attempts failed the job, and a takeover in a stage with
        // a retry backoff leaves the next attempt waiting: either way the claimer holds nothing.
        if (step?.status !== StepStatus.RUNNING) return none(decided, false);
        return { state: decided, value: { job: decided.job, step, item: undefined, atLimit: false } };
      }
      let atLimit = false;
      let state = group;
      // Less what earlier commands of the group took or failed, plus what they handed back.
      for (const id of inLine(group, group.read.claimable ?? [])) {
        const ref = refOf(id);
        try {
          const claimed = decide(state, { unit: ref, action: { kind: 'claim', leaseUntil, pooled } }, actor);
          if (limit !== undefined && claimed.poolLoad() > limit) {
            atLimit = true;
            continue;
          }
          state = claimed;
          const item = itemOf(claimed, ref.stage, ref.sequence);
          if (item.status === ItemStatus.RUNNING)
            return { state, value: { job: state.job, step: state.steps.get(ref.stage), item, atLimit: false } };
        } catch (error) {
          // Taken by an earlier claim, or its stage is not running: try the next one. A fault is the claimer's.
          if (!(error instanceof AppError)) throw error;
        }
      }
      // With no candidate at all the tenant may still be at its limit: its running work is elsewhere.
      return none(state, atLimit || (limit !== undefined && state.poolLoad() >= limit));
    };
    return this.submit(jobId, [], claim, { pooled, claim: stage === undefined });
  }

  /**
   * Opens the fan-out stage `stage` of a job that has reached it (a stage without items completes at
   * once). Safe to repeat: a stage already open, or one the job has not reached, is left as it is.
   */
  async open(jobId: string, stage: string) {
    const actor = this.scope.actor;
    return this.submit(jobId, [], (group) => {
      const state = openStage(group, stage, actor);
      return { state, value: state.job };
    });
  }

  /** Items of a job (optionally of one stage), in stage and sequence order, a page at a time. */
  page(jobId: string, stage: string | null | undefined, page: { first?: number | null; after?: string | null }) {
    const spec = this.scope.tenant.of(entities.WorkItem).prefixOf(stage ? { jobId, stage } : { jobId });
    return this.scope.page(spec, page).then((p) => entities.WorkItem.pageOf(p));
  }

  /** Items of one stage in sequence order after `afterSequence`, at most `limit`: one bounded read, however many the stage holds. */
  async range(jobId: string, stage: string, afterSequence: number, limit: number): Promise<WorkItemItem[]> {
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_SCENES_PAGE)
      throw badInput(`limit must be between 1 and ${MAX_SCENES_PAGE}.`, 'limit');
    if (!Number.isInteger(afterSequence) || afterSequence < 0 || afterSequence > MAX_STAGE_ITEMS)
      throw badInput(`afterSequence must be between 0 and ${MAX_STAGE_ITEMS}.`, 'afterSequence');
    const items = this.scope.tenant.of(entities.WorkItem);
    const { pk, skPrefix } = items.prefixOf({ jobId, stage });
    const from = items.keyOf({ jobId, stage, sequence: afterSequence + 1 }).SK;
    const rows = await this.scope.store.queryFirst({ pk, skBetween: [from, `${skPrefix ?? ''}\uffff`] }, limit);
    return entities.WorkItem.itemsOf(rows);
  }
}
