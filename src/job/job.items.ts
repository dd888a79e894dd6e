import { AsyncLocalStorage } from 'node:async_hooks';
import { entities, type EntityItem, type ItemCountsItem, MAX_STAGE_ITEMS } from '../common/entities';
import { checkFields } from '../common/fields';
import { assertId } from '../common/ids';
import { Stale } from '../common/mutate';
import type { Scope } from '../common/scope';
import { requireText } from '../common/validate';
import { AppError, badInput, ErrorCode, invalidTransition, notFound, wrongAttempt } from '../errors';
import type { Store } from '../infra/dynamo/store';
import type { UnitWrite, Write } from '../infra/dynamo/write';
import { type FanOutDeclaration, fanOutOf } from './job.kinds';
import { jobWithSteps } from './job.keys';
import {
  decide,
  JobEventType,
  JobStatus,
  type JobError,
  type JobState,
  type StepState,
  StepStatus,
  TERMINAL,
  stateOf,
} from './job.machine';
import type { JobRepository } from './job.repository';

/*
 * Work items of fan-out stages, and the write path that lets many workers finish them at once.
 *
 * A job's version is the serialization point of its event stream (every change is one event with
 * seq = the new version), so every item change must move the job's version. Done naively, N
 * workers finishing N items of one job at the same moment each read version v, one commits and
 * N − 1 lose and retry: O(N²) transactions, and the unlucky ones starve. Instead, changes to one
 * job's items are **group-committed** in this process: a change is an intent queued per job; one
 * caller at a time (the batch's leader) reads the job, its steps and the batch's items once,
 * applies the queued intents in order on that state (each its own event, seq v+1, v+2, …), and
 * commits them all in one transaction conditioned on the job's version and each item's version.
 * While a batch commits the next one gathers, so a job's item throughput is about
 * (intents per batch) / (one read + one transaction), not 1 / (transaction × contenders).
 * Writers on other instances (or a step's own mutation) still race on the job's version: the
 * loser's whole batch re-reads and re-decides, with jittered backoff, at most MAX_ROUNDS times.
 */

type JobItem = EntityItem<'Job'>;
export type WorkItemItem = EntityItem<'WorkItem'>;
type StepItem = EntityItem<'Step'>;

/** A work item's statuses (declared with the entity). */
export const ItemStatus = { PENDING: 'PENDING', RUNNING: 'RUNNING', COMPLETED: 'COMPLETED', FAILED: 'FAILED' } as const;
export type ItemStatus = (typeof ItemStatus)[keyof typeof ItemStatus];

/** Items one addWorkItems (or createJob) may add: they are written in one transaction with the job. */
export const MAX_ITEMS_PER_ADD = 80;
/** Intents one batch takes; more wait for the next batch. */
const MAX_INTENTS = 40;
/** Writes one batch's transaction may hold (DynamoDB allows 100; stream heads and events are added at commit). */
const MAX_WRITES = 90;
/** Rounds a batch retries after another writer moved the job's version (or an item) first. */
const MAX_ROUNDS = 30;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const round4 = (n: number) => Math.round(n * 10_000) / 10_000;

/** The counts of a stage's items (zeros before it has any). */
export const countsOf = (job: { itemCounts?: Record<string, ItemCountsItem> }, stage: string): ItemCountsItem =>
  job.itemCounts?.[stage] ?? { total: 0, running: 0, completed: 0, failed: 0 };

/** What the write path measured since start (the bench reads it): batches, intents, lost rounds. */
export const itemWriteStats = { batches: 0, intents: 0, conflicts: 0, committed: 0 };

/** One event a batch writes: the job as the change left it, and what the change was about. */
interface BatchEvent {
  job: JobItem;
  previous: JobItem;
  type: JobEventType;
  step?: StepState;
  item?: WorkItemItem;
  actor: string;
}

/**
 * The state a batch decides on: the job, the current attempt of each step, the items read, and
 * what the intents applied so far changed. `fork` gives an intent a copy to change, adopted only
 * when the intent does not throw, so a refused intent changes nothing.
 */
class BatchState {
  constructor(
    public job: JobItem,
    public steps: Map<string, StepState & { jobId: string }>,
    readonly storedSteps: StepItem[],
    public items: Map<string, WorkItemItem>,
    public changedItems = new Map<string, WorkItemItem>(),
    public changedSteps: StepState[] = [],
    public events: BatchEvent[] = [],
    public extra: UnitWrite[] = [],
    readonly at: string,
  ) {}

  fork(): BatchState {
    return new BatchState(
      this.job,
      new Map(this.steps),
      this.storedSteps,
      new Map(this.items),
      new Map(this.changedItems),
      [...this.changedSteps],
      [...this.events],
      [...this.extra],
      this.at,
    );
  }

  adopt(other: BatchState): void {
    this.job = other.job;
    this.steps = other.steps;
    this.items = other.items;
    this.changedItems = other.changedItems;
    this.changedSteps = other.changedSteps;
    this.events = other.events;
    this.extra = other.extra;
  }

  /** The writes this state would commit (job, items, steps, events, extras), roughly counted. */
  get size(): number {
    return 1 + this.changedItems.size + this.changedSteps.length + this.events.length * 3 + this.extra.length * 2;
  }

  /** Records a change of the job: its version moves by one and the event takes that seq. */
  change(next: Partial<JobItem>, type: JobEventType, actor: string, about: { step?: StepState; item?: WorkItemItem } = {}): void {
    const previous = this.job;
    this.job = { ...previous, ...next, version: previous.version + 1, updatedAt: this.at };
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

  putStep(step: StepState & { jobId: string }): void {
    this.changedSteps = this.changedSteps.filter((s) => !(s.name === step.name && s.attempt === step.attempt));
    this.changedSteps.push(step);
    this.steps.set(step.name, step);
  }
}

const itemId = (stage: string, sequence: number) => `${stage}#${sequence}`;

/** One queued change: which items it reads, and how it decides on the batch's state. */
interface Intent {
  /** The request that queued it: a batch reads and commits through its first intent's request. */
  owner: JobItems;
  /** Runs a function in the asynchronous context of that request (its time budget, its trace). */
  inContext: <R>(fn: () => R) => R;
  items: { stage: string; sequence: number }[];
  apply(state: BatchState): unknown;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

interface Queue {
  pending: Intent[];
  running: boolean;
}

/** The queues of this process, per store (a test process may hold several) and per job. */
const queues = new WeakMap<Store, Map<string, Queue>>();

/** How many jobs of `store` have a group-commit queue now (zero when no item change is under way). */
export function openQueues(store: Store): number {
  return queues.get(store)?.size ?? 0;
}

/** A worker's action on an item. `attempt` is the attempt the worker holds (a late one is refused). */
export type ItemAction =
  | { kind: 'claim'; leaseUntil: string }
  | { kind: 'progress'; attempt: number; progress: number; leaseUntil: string }
  | { kind: 'complete'; attempt: number; outputs: Record<string, unknown> }
  | { kind: 'fail'; attempt: number; code: string; message: string }
  | { kind: 'retry' };

const VERBS: Record<ItemAction['kind'], string> = {
  claim: 'claim',
  progress: 'report progress on',
  complete: 'complete',
  fail: 'fail',
  retry: 'retry',
};

/**
 * The work items of a job's fan-out stages: adding them, the workers' actions on them, and the
 * stage's opening, completion and failure that follow from them. Every change goes through the
 * job's group-commit queue (see the top of this file).
 */
export class JobItems {
  constructor(
    private readonly scope: Scope,
    private readonly jobs: JobRepository,
    private readonly leaseSeconds: number,
  ) {}

  private leaseUntil(): string {
    return new Date(this.scope.now().getTime() + this.leaseSeconds * 1000).toISOString();
  }

  /** Queues `apply` on the job's batch and resolves with what it returned once its batch committed. */
  private submit<T>(jobId: string, items: Intent['items'], apply: (state: BatchState) => T): Promise<T> {
    let byJob = queues.get(this.scope.store);
    if (!byJob) {
      byJob = new Map();
      queues.set(this.scope.store, byJob);
    }
    const id = `${this.scope.tenantId}\u0000${jobId}`;
    let queue = byJob.get(id);
    if (!queue) {
      queue = { pending: [], running: false };
      byJob.set(id, queue);
    }
    const promise = new Promise<T>((resolve, reject) => {
      queue.pending.push({ owner: this, inContext: AsyncLocalStorage.snapshot(), items, apply, resolve: (v) => resolve(v as T), reject });
    });
    if (!queue.running) {
      queue.running = true;
      const q = queue;
      const drain = async () => {
        try {
          while (q.pending.length > 0) {
            const batch = q.pending.splice(0, MAX_INTENTS);
            // A batch runs for the requests whose intents it holds, within the first one's budget:
            // never within the budget of a request that started this loop and has since ended.
            const deferred = await batch[0].inContext(() => batch[0].owner.runBatch(jobId, batch));
            q.pending.unshift(...deferred);
          }
        } finally {
          q.running = false;
          if (byJob.get(id) === q && q.pending.length === 0) byJob.delete(id);
        }
      };
      void drain();
    }
    return promise;
  }

  /**
   * Reads the job, its steps and the batch's items, applies the intents in order and commits what
   * they changed in one transaction. Returns the intents that did not fit (they go first in the
   * next batch). Every intent of the batch is settled (resolved or rejected) otherwise.
   */
  private async runBatch(jobId: string, batch: Intent[]): Promise<Intent[]> {
    itemWriteStats.batches++;
    itemWriteStats.intents += batch.length;
    for (let round = 1; ; round++) {
      let outcome: { done: [Intent, unknown][]; refused: [Intent, unknown][]; deferred: Intent[]; writes: UnitWrite[] };
      try {
        outcome = await this.decideBatch(jobId, batch);
      } catch (error) {
        // A failed read (the job is gone, DynamoDB is out, the first request's budget ran out)
        // fails the first intent, in whose request it ran; the others are tried again on their own.
        batch[0].reject(error);
        return batch.slice(1);
      }
      const { done, refused, deferred, writes } = outcome;
      try {
        if (writes.length > 0) await this.scope.commit(writes);
        itemWriteStats.committed += done.length;
      } catch (error) {
        if (error instanceof Stale && round < MAX_ROUNDS) {
          itemWriteStats.conflicts++;
          await sleep(Math.min(200, 2 * 2 ** round) * (0.5 + Math.random()));
          continue;
        }
        if (!(error instanceof Stale)) {
          // As for a failed read: the first intent fails with the error, the others are tried again.
          batch[0].reject(error);
          return batch.slice(1);
        }
        const failure = new AppError(ErrorCode.CONFLICT, `Job ${jobId} is being changed by others right now; try again.`);
        for (const [intent] of [...done, ...refused]) intent.reject(failure);
        return deferred;
      }
      for (const [intent, value] of done) intent.resolve(value);
      for (const [intent, error] of refused) intent.reject(error);
      return deferred;
    }
  }

  private async decideBatch(jobId: string, batch: Intent[]) {
    const tenantId = this.scope.tenantId;
    const wanted = new Map<string, { stage: string; sequence: number }>();
    for (const intent of batch) for (const ref of intent.items) wanted.set(itemId(ref.stage, ref.sequence), ref);
    const refs = [...wanted.values()];
    const [rows, itemRows] = await Promise.all([
      this.scope.store.queryAll(jobWithSteps(tenantId, jobId), 1000),
      refs.length ? this.scope.store.batchGet(refs.map((r) => entities.WorkItem.keyOf(tenantId, { jobId, ...r }))) : Promise.resolve([]),
    ]);
    const job = rows.find((row) => entities.Job.is(row));
    if (!entities.Job.is(job)) throw notFound('Job', jobId);
    const storedSteps = rows.filter((row) => entities.Step.is(row));
    const steps = new Map<string, StepState & { jobId: string }>();
    for (const step of storedSteps) if (job.attempts[step.name] === step.attempt) steps.set(step.name, { ...step });
    const items = new Map<string, WorkItemItem>();
    for (const row of itemRows) if (entities.WorkItem.is(row)) items.set(itemId(row.stage, row.sequence), row);
    const readVersions = new Map([...items].map(([key, item]) => [key, item.version]));
    const state = new BatchState(job, steps, storedSteps, items, new Map(), [], [], [], this.scope.now().toISOString());

    const done: [Intent, unknown][] = [];
    const refused: [Intent, unknown][] = [];
    const deferred: Intent[] = [];
    for (const intent of batch) {
      const fork = state.fork();
      try {
        const value = intent.apply(fork);
        if (fork.size > MAX_WRITES && done.length > 0) {
          deferred.push(intent);
          continue;
        }
        state.adopt(fork);
        done.push([intent, value]);
      } catch (error) {
        refused.push([intent, error]);
      }
    }
    return { done, refused, deferred, writes: this.writesOf(job, state, readVersions) };
  }

  /** The unit of work of a decided batch (empty when nothing changed). */
  private writesOf(read: JobItem, state: BatchState, readVersions: Map<string, number>): UnitWrite[] {
    if (state.events.length === 0 && state.changedItems.size === 0) return [];
    const tenantId = this.scope.tenantId;
    const job = state.job;
    const at = state.at;
    const expiresAt = TERMINAL.has(job.status) ? job.expiresAt : undefined;
    const stale = () => new Stale();
    const writes: UnitWrite[] = [entities.Job.put(tenantId, { ...job }).ifVersion(read.version, stale)];
    for (const [key, item] of state.changedItems) {
      const before = readVersions.get(key);
      const stored = entities.WorkItem.put(tenantId, { ...item, ...itemClaimability(job, item, at), expiresAt });
      writes.push(before === undefined ? stored.ifNew(stale) : stored.ifVersion(before, stale));
    }
    for (const step of state.changedSteps) writes.push(this.jobs.stepWrite(job, step, at, expiresAt));
    writes.push(...this.jobs.expiringSteps(job, state.storedSteps, state.changedSteps, expiresAt, at));
    for (const e of state.events)
      writes.push(...this.jobs.eventWrites(e.job, e.previous, { type: e.type, step: e.step, item: e.item }, at, e.actor));
    writes.push(...state.extra);
    return writes;
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
        tenantId: this.scope.tenantId,
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
   * (ITEMS_ADDED) with the job's new counters.
   */
  async add(jobId: string, stage: string, inputs: unknown[]) {
    assertId(jobId, 'job', 'jobId');
    requireText(stage, 'stage', 48);
    const head = await this.scope.store.get(entities.Job.keyOf(this.scope.tenantId, { jobId }));
    if (!entities.Job.is(head)) throw notFound('Job', jobId);
    const checked = this.checkInputs(JobItems.fanOutOrThrow(head, stage), inputs);
    const actor = this.scope.actor;
    const job = await this.submit(jobId, [], (state) => {
      addItems(state, stage, checked, actor);
      return state.job;
    });
    await this.openIfReady(jobId, job);
    return { ...job, seq: job.version };
  }

  /** A worker's action on item `sequence` of `stage`; returns the item, its job and its stage's step as they are now. */
  async act(jobId: string, stage: string, sequence: number, action: ItemAction) {
    assertId(jobId, 'job', 'jobId');
    requireText(stage, 'stage', 48);
    if (!Number.isInteger(sequence) || sequence < 1) throw badInput('sequence must be a whole number from 1.', 'sequence');
    if (action.kind === 'progress' && !(action.progress >= 0 && action.progress <= 1))
      throw badInput('progress must be between 0 and 1.', 'progress');
    let checked = action;
    if (action.kind === 'complete') {
      const head = await this.scope.store.get(entities.Job.keyOf(this.scope.tenantId, { jobId }));
      if (!entities.Job.is(head)) throw notFound('Job', jobId);
      const fanOut = JobItems.fanOutOrThrow(head, stage);
      if (typeof action.outputs !== 'object' || action.outputs === null || Array.isArray(action.outputs))
        throw badInput('outputs must be an object.', 'outputs');
      const outputs = checkFields(fanOut.outputs, action.outputs, {
        mode: 'create',
        tenantId: this.scope.tenantId,
        prefix: 'outputs.',
        typed: true,
        closed: true,
      });
      checked = { ...action, outputs: Object.fromEntries(Object.entries(outputs).filter(([, v]) => v !== undefined)) };
    }
    if (action.kind === 'fail') checked = { ...action, code: action.code.slice(0, 100), message: action.message.slice(0, 2000) };
    const actor = this.scope.actor;
    const result = await this.submit(jobId, [{ stage, sequence }], (state) => {
      const reopens = state.job.status === JobStatus.FAILED;
      const item = actOnItem(state, stage, sequence, checked, actor);
      return { job: state.job, step: state.steps.get(stage), item, reopened: reopens && state.job.status === JobStatus.RUNNING };
    });
    // A stage reopened after it failed puts its other unfinished items back in the claimable index.
    if (result.reopened) await this.release(result.job, stage).catch(() => undefined);
    // Only a change that moved the job off this stage (or stopped it) has anything to open or settle:
    // most item changes leave it running the stage, and pay no extra read.
    if (result.job.currentStep !== stage || result.job.status !== JobStatus.RUNNING) await this.afterChange(jobId, result.job);
    return result;
  }

  /**
   * A claim for claimWork of any one of `candidates` (items of one job, as the claimable index
   * listed them, in the order to try): decided in the job's batch on its current state, so workers
   * asking at once are handed different items in one transaction instead of racing for the same
   * one and losing a round each. An item whose lease ran out past its attempts fails on the way
   * (and is nobody's work). Null when none of them can be claimed now.
   */
  async claimAny(jobId: string, candidates: { stage: string; sequence: number }[]) {
    const leaseUntil = this.leaseUntil();
    const actor = this.scope.actor;
    const result = await this.submit(jobId, candidates, (state) => {
      for (const ref of candidates) {
        const fork = state.fork();
        try {
          const item = actOnItem(fork, ref.stage, ref.sequence, { kind: 'claim', leaseUntil }, actor);
          state.adopt(fork);
          if (item.status === ItemStatus.RUNNING) return { job: state.job, step: state.steps.get(ref.stage), item };
        } catch {
          // Taken by an earlier claim, or its stage is not running: try the next one.
        }
      }
      return { job: state.job, step: undefined, item: undefined };
    });
    const stage = result.item?.stage ?? candidates[0]?.stage;
    if (result.job.currentStep !== stage || result.job.status !== JobStatus.RUNNING) await this.afterChange(jobId, result.job);
    return result;
  }

  progress(jobId: string, stage: string, sequence: number, attempt: number, progress: number) {
    return this.act(jobId, stage, sequence, { kind: 'progress', attempt, progress, leaseUntil: this.leaseUntil() });
  }

  /**
   * Opens the fan-out stage `stage` of a job that has reached it: its items become claimable and
   * its step runs (STEP_STARTED); a stage without items completes at once. Safe to repeat, and
   * safe to run from several places (the change that reached the stage, and claimWork finding the
   * stage's step still waiting after a crash in between).
   */
  async open(jobId: string, stage: string) {
    const head = await this.scope.store.get(entities.Job.keyOf(this.scope.tenantId, { jobId }));
    if (!entities.Job.is(head)) throw notFound('Job', jobId);
    await this.release(head, stage);
    const actor = this.scope.actor;
    const job = await this.submit(jobId, [], (state) => {
      openStage(state, stage, actor);
      return state.job;
    });
    await this.afterChange(jobId, job);
    return job;
  }

  /**
   * Puts the stage's unfinished items in the claimable index as the job now stands: items added
   * before the stage was reached were written unclaimable, and a stage reopened after it failed
   * (retryWorkItem) had its items taken out. A write that loses to a concurrent change of the item
   * is left to that change, which computed the item's claimability itself.
   */
  async release(job: JobItem, stage: string) {
    const tenantId = this.scope.tenantId;
    const at = this.scope.now().toISOString();
    const stored = await this.all(job.jobId, stage);
    const stale = stored.filter((row) => {
      const wanted = itemClaimability(job, row, at);
      return (row.status === ItemStatus.PENDING || row.status === ItemStatus.RUNNING) && wanted.claimable && !row.claimable;
    });
    for (let i = 0; i < stale.length; i += 25) {
      await Promise.all(
        stale.slice(i, i + 25).map(async (row) => {
          const write: Write = entities.WorkItem.put(tenantId, {
            ...row,
            ...itemClaimability(job, row, at),
            expiresAt: undefined,
            version: row.version + 1,
          }).ifVersion(row.version, () => new Stale());
          await this.scope.store.transact([write]).catch(() => undefined);
        }),
      );
    }
  }

  /** After a change: open the next stage when it is a fan-out stage just reached, or settle the items of a job that stopped. */
  async afterChange(jobId: string, job: JobItem) {
    try {
      await this.openIfReady(jobId, job);
      if (TERMINAL.has(job.status) || job.status === JobStatus.PAUSED) await this.settle(jobId, job);
    } catch {
      // Best effort: claimWork opens a stage whose step still waits, and clears stale claimable items it meets.
    }
  }

  private async openIfReady(jobId: string, job: JobItem) {
    const current = job.currentStep;
    if (!current || !fanOutOf(job, current) || (job.status !== JobStatus.QUEUED && job.status !== JobStatus.RUNNING)) return;
    const steps = await this.scope.store.queryAll(jobWithSteps(this.scope.tenantId, jobId), 1000);
    const step = steps.find((s) => entities.Step.is(s) && s.name === current && s.attempt === job.attempts[current]);
    if (entities.Step.is(step) && step.status === StepStatus.PENDING) await this.open(jobId, current);
  }

  /**
   * A job that stopped (finished, failed, cancelled, paused): its items leave the claimable index,
   * and when it finished they take its expiry, so they go with it. Best effort and bounded by the
   * stage's item limit; claimWork clears any it meets later.
   */
  async settle(jobId: string, job: JobItem) {
    const tenantId = this.scope.tenantId;
    const rows = await this.scope.store.queryAll({ pk: entities.Job.key.pkOf(tenantId, { jobId }), skPrefix: 'ITEM#' }, 100_000);
    const expiresAt = TERMINAL.has(job.status) ? job.expiresAt : undefined;
    const stale = rows.filter((row) => entities.WorkItem.is(row) && (row.claimable || (expiresAt && row.expiresAt !== expiresAt)));
    for (let i = 0; i < stale.length; i += 25) {
      await Promise.all(
        stale.slice(i, i + 25).map(async (row) => {
          if (!entities.WorkItem.is(row)) return;
          const write = entities.WorkItem.put(tenantId, {
            ...row,
            claimable: undefined,
            availableAt: undefined,
            expiresAt,
            version: row.version + 1,
          }).ifVersion(row.version, () => new Stale());
          await this.scope.store.transact([write]).catch(() => undefined);
        }),
      );
    }
  }

  /** Takes a stale item out of the claimable index (its job is no longer at its stage). */
  async unclaimable(item: WorkItemItem) {
    const write = entities.WorkItem.put(this.scope.tenantId, {
      ...item,
      claimable: undefined,
      availableAt: undefined,
      version: item.version + 1,
    }).ifVersion(item.version, () => new Stale());
    await this.scope.store.transact([write]).catch(() => undefined);
  }

  /** Items of a job (optionally of one stage), in stage and sequence order, a page at a time. */
  page(jobId: string, stage: string | null | undefined, page: { first?: number | null; after?: string | null }) {
    const spec = stage
      ? entities.WorkItem.key.prefixOf(this.scope.tenantId, { jobId, stage })
      : { pk: entities.Job.key.pkOf(this.scope.tenantId, { jobId }), skPrefix: 'ITEM#' };
    return this.scope.page(spec, page).then((p) => entities.WorkItem.pageOf(p));
  }

  /** Every item of one stage, in sequence order (at most MAX_STAGE_ITEMS). */
  async all(jobId: string, stage: string): Promise<WorkItemItem[]> {
    const rows = await this.scope.store.queryAll(
      entities.WorkItem.key.prefixOf(this.scope.tenantId, { jobId, stage }),
      MAX_STAGE_ITEMS + 10,
    );
    return rows.filter((row) => entities.WorkItem.is(row));
  }
}

/* ----------------------------------------------------------------------------------------------
 * The decisions, on a batch's state. Each throws INVALID_TRANSITION or BAD_USER_INPUT to refuse.
 */

/** Whether an item may be claimed now or later, and from when (see the Step's claimability). */
export function itemClaimability(job: JobItem, item: WorkItemItem, at: string): { claimable?: true; availableAt?: string } {
  const live = (job.status === JobStatus.QUEUED || job.status === JobStatus.RUNNING) && job.currentStep === item.stage;
  if (!live) return { claimable: undefined, availableAt: undefined };
  if (item.status === ItemStatus.PENDING) return { claimable: true, availableAt: item.availableAt ?? at };
  if (item.status === ItemStatus.RUNNING && item.leaseExpiresAt) return { claimable: true, availableAt: item.leaseExpiresAt };
  return { claimable: undefined, availableAt: undefined };
}

function stageOrder(job: JobItem, stage: string): number {
  return job.plan.find((p) => p.name === stage)?.order ?? 0;
}

function addItems(state: BatchState, stage: string, inputs: Record<string, unknown>[], actor: string): void {
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
  const total = job.plan.length;
  const current = job.currentStep;
  const counts = current ? itemCounts?.[current] : undefined;
  const share = counts && counts.total > 0 ? (counts.completed + counts.failed) / counts.total : 0;
  return round4(Math.min(1, (job.completedSteps + share) / total));
}

/** Opens the stage when the job has reached it and its step still waits (STEP_STARTED); no-op otherwise. */
function openStage(state: BatchState, stage: string, actor: string): void {
  const { job } = state;
  if (job.currentStep !== stage || (job.status !== JobStatus.QUEUED && job.status !== JobStatus.RUNNING)) return;
  const step = state.steps.get(stage);
  if (!step || step.status !== StepStatus.PENDING) return;
  const started = { ...step, status: StepStatus.RUNNING, startedAt: state.at, progress: 0 };
  state.putStep(started);
  state.change({ status: JobStatus.RUNNING, startedAt: job.startedAt ?? state.at }, JobEventType.STEP_STARTED, actor, { step: started });
  if (countsOf(state.job, stage).total === 0) finishStage(state, stage, actor);
}

/** A stage all of whose items are done (and not failed past its policy) completes, and the job goes on. */
function finishStage(state: BatchState, stage: string, actor: string): void {
  const { job } = state;
  const counts = countsOf(job, stage);
  const current = new Map<string, StepState>([...state.steps].map(([name, s]) => [name, s]));
  const outcome = decide(
    stateOf(job),
    current,
    { kind: 'complete', step: stage, artifacts: [], outputs: { items: counts.total, completed: counts.completed, failed: counts.failed } },
    { now: state.at, actor, jobId: job.jobId },
  );
  for (const step of outcome.steps) state.putStep({ ...step, jobId: job.jobId });
  state.change(jobFields(outcome.job, state.at), outcome.type, actor, { step: outcome.step });
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
        expiresAt: Math.floor(Date.parse(state.at) / 1000) + FINISHED_JOB_TTL_DAYS * 86_400,
      },
      JobEventType.STEP_FAILED,
      actor,
      { step: failed },
    );
    return;
  }
  if (counts.completed + counts.failed === counts.total) finishStage(state, stage, actor);
}

const FINISHED_JOB_TTL_DAYS = 90;

/** The machine's job fields as the stored item holds them (a cleared field is left out; a finished job expires). */
function jobFields(next: JobState, at: string): Partial<JobItem> {
  return {
    ...next,
    currentStep: next.currentStep ?? undefined,
    error: next.error ?? undefined,
    startedAt: next.startedAt ?? undefined,
    finishedAt: next.finishedAt ?? undefined,
    expiresAt: TERMINAL.has(next.status) ? Math.floor(Date.parse(at) / 1000) + FINISHED_JOB_TTL_DAYS * 86_400 : undefined,
  };
}

function actOnItem(state: BatchState, stage: string, sequence: number, action: ItemAction, actor: string): WorkItemItem {
  const { job } = state;
  const jobId = job.jobId;
  JobItems.fanOutOrThrow(job, stage);
  const item = state.items.get(itemId(stage, sequence));
  if (!item) throw notFound('WorkItem', `${jobId}/${stage}/${sequence}`);
  const what = `Item ${sequence} of stage ${stage} of job`;
  const refuse = (to: string, allowed: string[], hint?: string): never => {
    throw invalidTransition(what, jobId, item.status, to, { action: VERBS[action.kind], allowed, hint });
  };
  // A worker names the attempt it holds: one whose lease was taken over is refused, naming the
  // attempt that runs now, and changes nothing.
  if ('attempt' in action && action.attempt !== item.attempt) {
    throw wrongAttempt(what, jobId, VERBS[action.kind], 'item', item.attempt, action.attempt);
  }
  const stageLive = job.currentStep === stage && (job.status === JobStatus.RUNNING || job.status === JobStatus.QUEUED);
  const counts = countsOf(job, stage);
  const withCounts = (change: Partial<ItemCountsItem>) => {
    const itemCounts = { ...job.itemCounts, [stage]: { ...counts, ...change } };
    return { itemCounts, progress: progressOf(state.job, itemCounts) };
  };
  /**
   * The running item finishes for good (COMPLETED or FAILED): its new state, counted, its event,
   * and the stage settled by its policy.
   */
  const finish = (
    status: typeof ItemStatus.COMPLETED | typeof ItemStatus.FAILED,
    changes: Partial<WorkItemItem>,
    event: JobEventType,
  ): WorkItemItem => {
    const finished = state.putItem({
      ...item,
      ...changes,
      status,
      finishedAt: state.at,
      leaseExpiresAt: undefined,
      version: item.version + 1,
    });
    const counted = status === ItemStatus.COMPLETED ? { completed: counts.completed + 1 } : { failed: counts.failed + 1 };
    state.change(withCounts({ running: counts.running - 1, ...counted }), event, actor, { item: finished });
    settleStage(state, stage, actor);
    return finished;
  };
  /** The running item fails past its attempts. */
  const failForGood = (error: JobError): WorkItemItem => finish(ItemStatus.FAILED, { error }, JobEventType.ITEM_FAILED);

  switch (action.kind) {
    case 'claim': {
      if (!stageLive)
        throw invalidTransition(`Stage ${stage} of job`, jobId, `${job.status} at ${job.currentStep ?? 'no stage'}`, 'claimed', {
          action: 'claim',
          allowed: [`RUNNING at ${stage}`],
          hint: 'Its items are claimable only while the job runs that stage.',
        });
      // A stage whose items are claimed before it was opened (a crash in between) opens now.
      if (state.steps.get(stage)?.status === StepStatus.PENDING) openStage(state, stage, actor);
      const lease = { worker: actor, leaseExpiresAt: action.leaseUntil };
      if (item.status === ItemStatus.PENDING) {
        const started = state.putItem({
          ...item,
          status: ItemStatus.RUNNING,
          progress: 0,
          startedAt: state.at,
          ...lease,
          version: item.version + 1,
        });
        state.change(withCounts({ running: counts.running + 1 }), JobEventType.ITEM_STARTED, actor, { item: started });
        return started;
      }
      if (item.status !== ItemStatus.RUNNING || !item.leaseExpiresAt || item.leaseExpiresAt > state.at) {
        return refuse(
          'claimed',
          [ItemStatus.PENDING, 'RUNNING with its lease run out'],
          item.leaseExpiresAt ? `Its lease runs until ${item.leaseExpiresAt}.` : undefined,
        );
      }
      const error: JobError = {
        code: 'LEASE_EXPIRED',
        message: `Worker ${item.worker ?? 'unknown'} stopped reporting; its lease ran out at ${item.leaseExpiresAt}.`,
        retryCount: item.attempt - 1,
      };
      if (item.attempt < item.maxAttempt) {
        // The claimer holds the next attempt at once.
        const again = state.putItem({
          ...item,
          attempt: item.attempt + 1,
          status: ItemStatus.RUNNING,
          progress: 0,
          error,
          startedAt: state.at,
          ...lease,
          version: item.version + 1,
        });
        state.change(withCounts({}), JobEventType.ITEM_RECLAIMED, actor, { item: again });
        return again;
      }
      return failForGood(error);
    }
    case 'progress': {
      if (item.status !== ItemStatus.RUNNING || !stageLive) refuse(ItemStatus.RUNNING, [ItemStatus.RUNNING]);
      const updated = state.putItem({ ...item, progress: action.progress, leaseExpiresAt: action.leaseUntil, version: item.version + 1 });
      state.change({}, JobEventType.ITEM_PROGRESS, actor, { item: updated });
      return updated;
    }
    case 'complete': {
      if (item.status !== ItemStatus.RUNNING || !stageLive) refuse(ItemStatus.COMPLETED, [ItemStatus.RUNNING]);
      return finish(ItemStatus.COMPLETED, { progress: 1, outputs: action.outputs }, JobEventType.ITEM_COMPLETED);
    }
    case 'fail': {
      if (item.status !== ItemStatus.RUNNING || !stageLive) refuse(ItemStatus.FAILED, [ItemStatus.RUNNING]);
      const error: JobError = { code: action.code, message: action.message, retryCount: item.attempt - 1 };
      if (item.attempt < item.maxAttempt) {
        // Attempts remain: the item waits for its next attempt (claimable at once).
        const again = state.putItem({
          ...item,
          status: ItemStatus.PENDING,
          attempt: item.attempt + 1,
          progress: 0,
          error,
          worker: undefined,
          leaseExpiresAt: undefined,
          availableAt: state.at,
          version: item.version + 1,
        });
        state.change(withCounts({ running: counts.running - 1 }), JobEventType.ITEM_ATTEMPT_FAILED, actor, { item: again });
        return again;
      }
      return failForGood(error);
    }
    case 'retry': {
      if (item.status !== ItemStatus.FAILED) refuse(ItemStatus.PENDING, [ItemStatus.FAILED]);
      const step = state.steps.get(stage);
      const stageFailed = job.status === JobStatus.FAILED && job.currentStep === stage && step?.status === StepStatus.FAILED;
      if (!stageFailed && !(stageLive && step?.status === StepStatus.RUNNING)) {
        throw invalidTransition(`Stage ${stage} of job`, jobId, step?.status ?? 'over', 'reopened', {
          action: 'retry an item of',
          allowed: [StepStatus.RUNNING, StepStatus.FAILED],
          hint: 'Only an item of the stage the job is running, or of the stage it failed in, can be retried.',
        });
      }
      const fanOut = JobItems.fanOutOrThrow(job, stage);
      const reopened = state.putItem({
        ...item,
        status: ItemStatus.PENDING,
        attempt: item.attempt + 1,
        maxAttempt: item.attempt + (fanOut.attempts ?? job.maxAttempts),
        progress: 0,
        worker: undefined,
        leaseExpiresAt: undefined,
        finishedAt: undefined,
        availableAt: state.at,
        version: item.version + 1,
      });
      const counted = withCounts({ failed: counts.failed - 1 });
      if (!stageFailed || !step) {
        state.change(counted, JobEventType.ITEM_RETRIED, actor, { item: reopened });
        return reopened;
      }
      // The stage failed by its policy: it reopens as a new attempt of its step, and the job runs again.
      const attempt = step.attempt + 1;
      const running = { name: stage, order: step.order, attempt, status: StepStatus.RUNNING, progress: 0, startedAt: state.at, jobId };
      state.putStep(running);
      state.change(
        {
          ...counted,
          status: JobStatus.RUNNING,
          attempts: { ...job.attempts, [stage]: attempt },
          failedSteps: Math.max(0, job.failedSteps - 1),
          error: undefined,
          finishedAt: undefined,
          expiresAt: undefined,
        },
        JobEventType.ITEM_RETRIED,
        actor,
        { item: reopened, step: running },
      );
      return reopened;
    }
  }
}
