import { entities, itemClaimableFrom, stepClaimableFrom } from '../common/entities';
import { createHash, randomUUID } from 'node:crypto';
import type { Scope } from '../common/scope';
import { badInput, forbidden } from '../errors';
import { isRecord } from '../guards';
import { requireText } from '../common/validate';
import type { Item, Store } from '../infra/dynamo/store';
import { logger } from '../logger';
import { CATCH_UP, type EventBus, type Listening, UNCOUNTED } from '../infra/pubsub';
import { retryAt } from '../job/job.decider';
import { declaredKind, fanOutOf, stepPolicyOf } from '../job/job.kinds';
import { JobEventType, JobStatus } from '../job/job.machine';
import { claimerOf, type HeldUnit, type HeldUnitRef, type JobRepository, observeClaims } from '../job/job.repository';
import { BoundWorkers, handBackThrough } from './bound-workers';

/*
 * Work pushed to idle workers (the workSignals subscription): a small signal derived from each
 * committed job event that makes work claimable or ends a held attempt, published on the bus next
 * to the event itself, on one topic per tenant and kind (tenant-bound workers) and one per kind
 * (the shared pools). No signal is stored and none carries a lease: a signal says "claim now" (or
 * "from then"), or "the attempt you hold is over", and claimWork stays the only way to take work.
 *
 * Why derived and not a stored stream: the events that make work claimable (ITEMS_ADDED, a step
 * completed and the next one reached, an attempt failed or handed back) are in each job's own
 * stream, not in the tenant's status stream, and a stored per-tenant-and-kind stream would put
 * a head every commit of the kind has to move (one hot item, serializing the kind's jobs). What a
 * worker that was away needs is not the signals it missed but whether work is claimable now: the
 * claimable indexes say exactly that, so a (re)subscription starts with one read of them
 * (SUBSCRIBED says `available`), and a bus that reconnected sends WORK_AVAILABLE to every
 * subscriber (what was published meanwhile may be lost). That is this stream's resumption: by
 * state, the way a claim reads it, rather than by position. A lease ended while a worker was away
 * is caught by its next renewal, which the server refuses.
 */

/** The signals' types, with what the API's WorkSignalType says of each. */
export const WORK_SIGNAL_TYPES = {
  SUBSCRIBED:
    'The first message: the subscription is in effect from here. `available` says whether the claimable indexes held work of its kinds and stages as it started (claim until claimWork answers null); false: wait for WORK_AVAILABLE.',
  WORK_AVAILABLE:
    'Claimable work of `kind` and `stage` appeared (`count` units, of job `jobId`), claimable from `availableAt` (now, or after a retry backoff); or a unit held under a lease that ran out (its worker crashed or stalled) is claimable again. Claim it with claimWork; another worker may have taken it first. Kind and stage null: look at everything you serve (the server may have missed signals).',
  LEASE_ENDED:
    'An attempt (`jobId`, `stage`, `sequence`, `attempt`; sequence null for a single step, stage and attempt null for every attempt of the job) is over for whoever holds it: `reason` JOB_CANCELLED, or LEASE_EXPIRED / ATTEMPT_TIMED_OUT when another worker’s claim took it over. Stop working on it and drop its work.',
} as const;
export type WorkSignalType = keyof typeof WORK_SIGNAL_TYPES;

/** One signal, as the bus carries it (plain JSON) and the API shows it. */
export interface WorkSignal {
  type: WorkSignalType;
  /** The tenant whose work it is (a pool worker serves many). */
  tenantId?: string;
  kind?: string;
  stage?: string;
  /** WORK_AVAILABLE: how many units appeared (a hint: the workers told are at most this many per server). */
  count?: number;
  availableAt?: string;
  /** SUBSCRIBED: whether work was claimable as the subscription started. */
  available?: boolean;
  jobId?: string;
  sequence?: number;
  attempt?: number;
  reason?: string;
  at: string;
}

/** The topics signals travel on: a tenant's of one kind, and the pools' of one kind (every tenant's). */
export const workTopics = {
  tenant: (tenantId: string, kind: string) => `WORK:${tenantId}:${kind}`,
  pool: (kind: string) => `POOL_WORK:${kind}`,
};

/**
 * The events that may make their job's current stage claimable (the job still running, or waiting
 * to). Not STEP_STARTED: a single step's is a claim, and a fan-out stage opens in the change that
 * reached it (a step completed) or right after the job's creation, each signalled already.
 */
const WAKES = new Set<string>([
  JobEventType.JOB_CREATED,
  JobEventType.ITEMS_ADDED,
  JobEventType.ITEMS_REUSED,
  JobEventType.STEP_COMPLETED,
  JobEventType.STEP_APPROVED,
  JobEventType.STEP_REUSED,
  JobEventType.STEP_FAILED,
  JobEventType.STEP_HANDED_BACK,
  JobEventType.ITEM_HANDED_BACK,
  JobEventType.ITEM_ATTEMPT_FAILED,
  JobEventType.ITEM_RETRIED,
  JobEventType.JOB_RETRIED,
]);

/** The error codes with which a claim ends another worker's attempt (job.decider.ts UnitDecision.endedError). */
const TAKEN = new Set(['LEASE_EXPIRED', 'ATTEMPT_TIMED_OUT']);

interface EventUnit {
  stage?: string;
  name?: string;
  sequence?: number;
  attempt?: number;
  status?: string;
  availableAt?: string;
  error?: { code?: string } | null;
}

interface EventJob {
  kind?: string;
  status?: string;
  currentStep?: string | null;
  declared?: boolean;
  error?: { code?: string } | null;
  itemCounts?: Record<string, { total: number; running: number; completed: number; failed: number }>;
}

const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
const numberOf = (value: unknown) => (typeof value === 'number' ? value : undefined);
const errorOf = (value: unknown) => (isRecord(value) ? { code: text(value.code) } : null);

/** A unit (step or item) as a stored event carries it, read field by field: a stored event is untyped JSON. */
function eventUnitOf(value: unknown): EventUnit | undefined {
  if (!isRecord(value)) return undefined;
  const { stage, name, sequence, attempt, status, availableAt, error } = value;
  return {
    stage: text(stage),
    name: text(name),
    sequence: numberOf(sequence),
    attempt: numberOf(attempt),
    status: text(status),
    availableAt: text(availableAt),
    error: errorOf(error),
  };
}

/** The job as a stored event carries it, read field by field (see eventUnitOf). */
function eventJobOf(value: unknown): EventJob {
  if (!isRecord(value)) return {};
  const counts = isRecord(value.itemCounts) ? value.itemCounts : {};
  const itemCounts: NonNullable<EventJob['itemCounts']> = {};
  for (const [stage, c] of Object.entries(counts))
    if (isRecord(c))
      itemCounts[stage] = {
        total: numberOf(c.total) ?? 0,
        running: numberOf(c.running) ?? 0,
        completed: numberOf(c.completed) ?? 0,
        failed: numberOf(c.failed) ?? 0,
      };
  return {
    kind: text(value.kind),
    status: text(value.status),
    currentStep: text(value.currentStep) ?? null,
    declared: typeof value.declared === 'boolean' ? value.declared : undefined,
    error: errorOf(value.error),
    itemCounts,
  };
}

/** True when a bus payload is a work signal (the bus carries untyped JSON). */
function isWorkSignal(payload: object): payload is WorkSignal {
  return isRecord(payload) && typeof payload.type === 'string' && payload.type in WORK_SIGNAL_TYPES;
}

/**
 * The signals a stored job event makes, each with the topics it goes to (none for most events: a
 * progress report, a claim, a completion that leaves no new work). Pure: the writer and the outbox
 * sweeper derive the same ones from the same event.
 */
export function workSignalsOf(event: Item): Array<{ topics: string[]; signal: WorkSignal }> {
  if (event.stream !== 'job' || typeof event.type !== 'string') return [];
  const job = eventJobOf(event.job);
  const tenantId = String(event.tenantId);
  const jobId = String(event.jobId);
  const at = String(event.at);
  const kind = job.kind;
  if (!kind) return [];
  const topics = [workTopics.tenant(tenantId, kind), workTopics.pool(kind)];
  const signals: WorkSignal[] = [];
  const item = eventUnitOf(event.item);
  const step = eventUnitOf(event.step);
  const type = event.type;
  // An attempt ended for its holder: the job cancelled, or another worker's claim took it over.
  if (type === JobEventType.JOB_CANCELLED) signals.push({ type: 'LEASE_ENDED', tenantId, kind, jobId, reason: 'JOB_CANCELLED', at });
  // A step's takeover event shows the new attempt, which has no error: the job's says why the old one ended.
  const takenCode = (item ?? step)?.error?.code ?? (type === JobEventType.STEP_RECLAIMED ? job.error?.code : undefined);
  if (takenCode && TAKEN.has(takenCode)) {
    // A takeover's event shows the new attempt (…_RECLAIMED, ITEM_ATTEMPT_FAILED) or the ended one (…_FAILED).
    const ended = type === JobEventType.ITEM_FAILED || type === JobEventType.STEP_FAILED;
    const over =
      type === JobEventType.ITEM_RECLAIMED || type === JobEventType.ITEM_ATTEMPT_FAILED || type === JobEventType.STEP_RECLAIMED || ended;
    const unit = item ?? step;
    if (over && unit?.attempt !== undefined) {
      signals.push({
        type: 'LEASE_ENDED',
        tenantId,
        kind,
        jobId,
        stage: item?.stage ?? step?.name,
        sequence: item?.sequence,
        attempt: ended ? unit.attempt : unit.attempt - 1,
        reason: takenCode,
        at,
      });
    }
  }
  const stage = job.currentStep;
  if (WAKES.has(type) && stage && (job.status === JobStatus.RUNNING || job.status === JobStatus.QUEUED)) {
    const fanOut = fanOutOf({ kind, declared: job.declared }, stage) !== undefined;
    const counts = job.itemCounts?.[stage];
    const waiting = counts ? counts.total - counts.running - counts.completed - counts.failed : 0;
    // Items added to a later stage (by the worker of the step before it) are no work yet.
    const wakes = fanOut ? waiting > 0 : type !== JobEventType.ITEMS_ADDED;
    if (wakes) {
      signals.push({
        type: 'WORK_AVAILABLE',
        tenantId,
        kind,
        stage,
        jobId,
        count: fanOut ? waiting : 1,
        availableAt: availableAtOf(type, { kind, declared: job.declared }, jobId, stage, item, step, at),
        at,
      });
    }
  }
  return signals.map((signal) => ({ topics, signal }));
}

/** From when the work a waking event made can be claimed: after a failed attempt's backoff, else at once. */
function availableAtOf(
  type: string,
  job: { kind: string; declared?: boolean },
  jobId: string,
  stage: string,
  item: EventUnit | undefined,
  step: EventUnit | undefined,
  at: string,
): string {
  if (type === JobEventType.ITEM_ATTEMPT_FAILED && item?.availableAt) return item.availableAt;
  // A step's failed attempt: the next one waits for the stage's backoff, as the decision computed it.
  if (type === JobEventType.STEP_FAILED && step?.attempt !== undefined) {
    const backoff = stepPolicyOf(job, stage).retryBackoff;
    return retryAt(backoff, { jobId, stage, sequence: 0, attempt: step.attempt }, at);
  }
  return at;
}

/* ----------------------------------------------------------------------------------------------
 * The subscribers of one server
 */

/** What one subscription serves: kinds, the stages of them (none: all), and for a pool worker no tenant. */
export interface WorkScope {
  kinds: readonly string[];
  stages?: readonly string[];
  /** The tenant a tenant-bound worker serves; undefined for a pool worker (every tenant). */
  tenantId?: string;
}

/** The most signals a subscriber's queue holds; past it, a WORK_AVAILABLE already waiting stands for the new ones. */
const MAX_QUEUED = 64;

/**
 * One subscription's signals, as an async iterator over a small queue. Idle, it is a record in its
 * topics' subscriber lists and a pending promise; nothing runs for it until a signal comes.
 */
class SignalStream implements AsyncIterableIterator<WorkSignal> {
  private readonly queue: WorkSignal[] = [];
  private waiting: ((result: IteratorResult<WorkSignal>) => void) | undefined;
  private ended = false;
  /** Its worker's last claim on this server found work (it is busy); false after one that found none, or before any. */
  busy = false;

  constructor(
    readonly scope: WorkScope,
    /** Its worker: tenant (or pool) and token subject, as its claims name it (WorkSignals.noteClaim). */
    readonly who: string,
    private readonly leave: (stream: SignalStream) => void,
  ) {}

  /** True when this subscription serves `signal`'s kind and stage (a signal naming no stage concerns every stage). */
  serves(signal: WorkSignal): boolean {
    if (signal.kind !== undefined && !this.scope.kinds.includes(signal.kind)) return false;
    return signal.stage === undefined || !this.scope.stages || this.scope.stages.includes(signal.stage);
  }

  push(signal: WorkSignal): void {
    if (this.ended) return;
    if (this.waiting) {
      const resolve = this.waiting;
      this.waiting = undefined;
      resolve({ value: signal, done: false });
      return;
    }
    // A worker behind on its signals needs one WORK_AVAILABLE to claim until null, not each of them.
    if (this.queue.length >= MAX_QUEUED) {
      if (signal.type === 'WORK_AVAILABLE') return;
      const dropped = this.queue.findIndex((s) => s.type === 'WORK_AVAILABLE');
      if (dropped >= 0) this.queue.splice(dropped, 1);
      else this.queue.shift();
    }
    this.queue.push(signal);
  }

  next(): Promise<IteratorResult<WorkSignal>> {
    const queued = this.queue.shift();
    if (queued) return Promise.resolve({ value: queued, done: false });
    if (this.ended) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve) => {
      this.waiting = resolve;
    });
  }

  return(): Promise<IteratorResult<WorkSignal>> {
    if (!this.ended) {
      this.ended = true;
      this.queue.length = 0;
      this.leave(this);
      this.waiting?.({ value: undefined, done: true });
      this.waiting = undefined;
    }
    return Promise.resolve({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): this {
    return this;
  }
}

/** The subscribers of one topic in this process, and whose turn the next dealt WORK_AVAILABLE starts at. */
interface TopicSubscribers {
  streams: SignalStream[];
  turn: number;
  /** Set as soon as the topic's bus listener is made (it delivers to this record, so it is made after it). */
  listening?: Listening;
  /** The jobs' stages this server watches for a lease running out (see WorkSignalHub.watch), by tenant, job and stage. */
  watches: Map<string, NodeJS.Timeout>;
}

/** A job's stage with claimable work, as a WORK_AVAILABLE names it. */
interface WatchedStage {
  tenantId: string;
  kind: string;
  stage: string;
  jobId: string;
}

/** What the lease watches read through, set by the first subscription (the server's store and clock). */
interface LeaseWatching {
  store: Store;
  now: () => Date;
  leaseMs: number;
}

/** A lease watch's key: tenant, job and stage (without the stage: the prefix of every watch of the job). */
const watchKey = (tenantId?: string, jobId?: string, stage = '') => `${tenantId}\u0000${jobId}\u0000${stage}`;

/** How long after a lease's end its watch looks (timers fire a little early or late; the claim compares with the clock). */
const WATCH_SLACK_MS = 20;

/** What a lease watch finds: nothing more to watch, a unit whose lease ran out, or when to look next. */
type LeaseLook = { done: true } | { lapsed: true } | { next: number };

/**
 * What a lease watch finds of `at`'s job at its stage, at `now`: a unit held under a lease (or an
 * attempt's time) that is over, claimable again (`lapsed`); else the next end of a lease or backoff
 * (`next`, epoch ms; `leaseMs` ahead when only waiting work is there, which its own signal
 * announced); or `done` when the job has no work there (the stage is done, or the job left it, was
 * paused or stopped). One query of the job's partition (its claimable items for a fan-out stage,
 * its step rows for a single step); for a lapsed item, one read of the job's JobWork entry, which
 * only a job at the stage and running has (its items outlive a cancellation until the settle sweep).
 */
export async function leaseLookOf(store: Store, at: WatchedStage, now: number, leaseMs: number): Promise<LeaseLook> {
  const { tenantId, kind, stage, jobId } = at;
  const fanOut = fanOutOf({ kind, declared: true }, stage) !== undefined;
  // Oldest first; items of another stage (added ahead by an earlier step) are passed over.
  const rows = fanOut
    ? await store.queryFirst(entities.WorkItem.query(tenantId, 'claimableInJob', { jobId }), 8)
    : await store.queryFirst(entities.Step.key.prefixOf(tenantId, { jobId }), 100);
  const units = rows.flatMap((row) => {
    const from =
      entities.WorkItem.is(row) && row.stage === stage
        ? itemClaimableFrom(row)
        : entities.Step.is(row) && row.name === stage
          ? stepClaimableFrom(row)
          : undefined;
    return from === undefined ? [] : [{ from: Date.parse(from), held: row.status === 'RUNNING' }];
  });
  if (units.length === 0) return { done: true };
  if (units.some((u) => u.held && u.from <= now)) {
    if (!fanOut) return { lapsed: true };
    const work = await store.get(entities.JobWork.keyOf(tenantId, { jobId }));
    return entities.JobWork.is(work) && work.name === stage ? { lapsed: true } : { done: true };
  }
  return { next: Math.min(now + leaseMs, ...units.map((u) => u.from).filter((from) => from > now)) };
}

/** The subscribers of a topic that `signal` concerns: of its kind and stage, and of its tenant unless they serve a pool. */
function servingOf(subscribers: TopicSubscribers, signal: WorkSignal): SignalStream[] {
  return subscribers.streams.filter((s) => s.serves(signal) && (s.scope.tenantId === undefined || s.scope.tenantId === signal.tenantId));
}

/**
 * The workSignals subscribers of one server, by topic: one bus listener a topic, whatever the
 * number of subscribers. A LEASE_ENDED goes to every subscriber of the kind (each worker keeps
 * what concerns the attempts it holds); a WORK_AVAILABLE of `count` units is dealt to that many of
 * the subscribers serving its stage, in turn, idle ones first (a worker whose last claim on this
 * server found nothing, see noteClaim), so one new item wakes one idle worker rather than the
 * whole fleet; a busy worker claims anyway once its work is done. Every instance deals to its own
 * subscribers, so a fleet over N instances wakes at most N times `count`; a worker whose claims go
 * to another instance than its subscription counts as idle.
 */
export class WorkSignalHub {
  private readonly topics = new Map<string, TopicSubscribers>();
  private readonly byWorker = new Map<string, Set<SignalStream>>();
  private leases?: LeaseWatching;
  /** The lease watches' timers set and not yet fired or cleared, whichever topic they are of. */
  private readonly armed = new Set<NodeJS.Timeout>();
  /** Lease watches whose read of their job is under way (see look). */
  private looking = 0;
  /** The worker processes bound to their claims through their subscriptions here (see bound-workers.ts). */
  readonly bound = new BoundWorkers();
  /** This server among the others on the bus: its own forwarded messages come back to it, and are passed over. */
  private readonly instance = randomUUID();
  /** The topic of each worker recorded here, listened to while it is recorded (see bound-workers.ts). */
  private readonly boundTopics = new Map<string, Listening>();
  /** How each worker recorded here reaches its units' tenants later (from its subscription's context). */
  private readonly reach = new Map<string, ReachUnit>();

  constructor(private readonly bus: EventBus) {
    this.bound.onGone = (worker) => {
      this.boundTopics.get(worker)?.close();
      this.boundTopics.delete(worker);
      this.reach.delete(worker);
    };
  }

  /** Workers' topics listened to now (each recorded worker's; tests read it to see each released). */
  get boundListening(): number {
    return this.boundTopics.size;
  }

  /** Lets the hub watch leases (see watch) through the server's store and clock; the first call holds. */
  watchLeases(leases: LeaseWatching): void {
    if (this.leases) return;
    this.leases = leases;
    // A lost worker's leases are compared with the time it was lost on the same clock.
    this.bound.now = leases.now;
  }

  /**
   * How many lease watches this server holds now: timers set, and reads of a job under way (tests
   * read it to see each released). Counted by the timers themselves, not by the topics that
   * list them, so a timer a topic forgot still counts.
   */
  get watched(): number {
    return this.armed.size + this.looking;
  }

  /**
   * Opens a subscription to `topics` for `scope`; `ready` once the bus listens (nothing published
   * since is missed). With `binding`, the subscription binds its worker process's claims (see
   * BoundWorkers) until it ends; `abrupt` says then how it ended.
   */
  open(
    topics: readonly string[],
    scope: WorkScope,
    who: string,
    binding?: { worker: string; abrupt: () => boolean; reach: ReachUnit },
  ): { stream: SignalStream; ready: Promise<void> } {
    const stream = new SignalStream(scope, who, (s) => {
      for (const topic of topics) this.leave(topic, s);
      const mine = this.byWorker.get(who);
      mine?.delete(s);
      if (mine?.size === 0) this.byWorker.delete(who);
      if (binding) this.bound.left(binding.worker, binding.abrupt());
    });
    const listened: Promise<void>[] = [];
    if (binding) {
      if (!this.boundTopics.has(binding.worker)) listened.push(this.listenForWorker(binding.worker));
      this.bound.joined(binding.worker);
      this.reach.set(binding.worker, binding.reach);
    }
    let mine = this.byWorker.get(who);
    if (!mine) this.byWorker.set(who, (mine = new Set()));
    mine.add(stream);
    const ready = Promise.all([...listened, ...topics.map((topic) => this.join(topic, stream))]).then(() => undefined);
    return { stream, ready };
  }

  /** Records what the last claim of worker `who` found: signals of new work go to idle workers first. */
  claimed(who: string, found: boolean): void {
    for (const stream of this.byWorker.get(who) ?? []) stream.busy = found;
  }

  /**
   * Binds what process `workerId` of worker `who` claimed to its subscription: here when it is
   * here (see BoundWorkers.hold), else by a message on the worker's topic to the instance where it
   * is (see bound-workers.ts).
   */
  held(who: string, workerId: string, unit: HeldUnit, repos: () => Promise<{ jobs: JobRepository }>): void {
    const worker = boundWorkerKey(who, workerId);
    const leaseMs = this.leases?.leaseMs;
    // watchLeases comes with this server's first subscription: without one, the worker's is elsewhere.
    if (leaseMs !== undefined && this.bound.hold(worker, unit, handBackThrough(repos, leaseMs))) return;
    this.forward(worker, { bind: 'held', unit });
  }

  /**
   * A report ended the attempt of `unit`: its bound worker no longer holds it, here, and, when the
   * report names the process (`workerId`) and its subscription is not here, where it is.
   */
  released(unit: HeldUnitRef, who: string, workerId?: string): void {
    this.bound.ended(unit);
    if (workerId === undefined) return;
    const worker = boundWorkerKey(who, workerId);
    if (!this.bound.isLive(worker)) this.forward(worker, { bind: 'released', unit });
  }

  /** Sends `message` to the instance recording `worker`, on the worker's topic; a failure leaves its units to their leases, logged. */
  private forward(worker: string, message: BindingMessage): void {
    this.bus.publish(boundWorkerTopic(worker), { ...message, from: this.instance }).catch((err: unknown) => {
      logger.warn(
        { err, bind: message.bind, code: 'WORKER_BINDING_NOT_FORWARDED' },
        "a bound worker's claim or report could not be forwarded to its subscription's instance; its units are left to their leases",
      );
    });
  }

  /** Starts listening on a bound worker's topic (its first subscription here); resolves once the bus listens. */
  private listenForWorker(worker: string): Promise<void> {
    const listening = this.bus.listen(boundWorkerTopic(worker), (payload) => this.onBinding(worker, payload), UNCOUNTED);
    this.boundTopics.set(worker, listening);
    // Another instance that still records the worker (its grace running) hands its units over to this one.
    return listening.ready.then(() => this.forward(worker, { bind: 'joined' }));
  }

  /** A message on a worker's topic from another instance (see forward). */
  private onBinding(worker: string, payload: object): void {
    if (!isBindingMessage(payload) || payload.from === this.instance) return;
    if (payload.bind === 'joined') {
      // The worker subscribed on that instance while its grace ran here: its units go there.
      if (!this.bound.isLive(worker)) for (const unit of this.bound.handOver(worker)) this.forward(worker, { bind: 'held', unit });
      return;
    }
    if (payload.bind === 'released') {
      this.bound.ended(payload.unit);
      return;
    }
    const reach = this.reach.get(worker);
    const leaseMs = this.leases?.leaseMs;
    const unit = payload.unit;
    if (reach && leaseMs !== undefined)
      this.bound.hold(
        worker,
        unit,
        handBackThrough(() => reach(unit), leaseMs),
      );
  }

  /**
   * The server is closing: every bound worker is forgotten and its grace called off (nothing more
   * is handed back), and the hand-backs under way are waited for, at most `ms` (BoundWorkers.close).
   */
  close(ms: number): Promise<number> {
    return this.bound.close(ms);
  }

  /** How many subscriptions this server holds now (tests read it to see each released). */
  get size(): number {
    let n = 0;
    for (const t of this.topics.values()) n += t.streams.length;
    return n;
  }

  private join(topic: string, stream: SignalStream): Promise<void> {
    let subscribers = this.topics.get(topic);
    if (!subscribers) {
      const created: TopicSubscribers = { streams: [], turn: 0, watches: new Map() };
      created.listening = this.bus.listen(topic, (payload) => this.deliver(created, payload));
      this.topics.set(topic, created);
      subscribers = created;
    }
    subscribers.streams.push(stream);
    return subscribers.listening?.ready ?? Promise.resolve();
  }

  private leave(topic: string, stream: SignalStream): void {
    const subscribers = this.topics.get(topic);
    if (!subscribers) return;
    subscribers.streams = subscribers.streams.filter((s) => s !== stream);
    if (subscribers.streams.length === 0) {
      subscribers.listening?.close();
      for (const timer of subscribers.watches.values()) this.disarm(timer);
      subscribers.watches.clear();
      this.topics.delete(topic);
    }
  }

  private deliver(subscribers: TopicSubscribers, payload: object): void {
    if (payload === CATCH_UP) {
      // The bus reconnected: what was published meanwhile may be lost, so every subscriber looks again.
      const look: WorkSignal = { type: 'WORK_AVAILABLE', at: new Date().toISOString() };
      for (const stream of subscribers.streams) stream.push(look);
      return;
    }
    if (!isWorkSignal(payload)) return;
    const signal = payload;
    if (signal.type !== 'WORK_AVAILABLE') {
      for (const stream of servingOf(subscribers, signal)) stream.push(signal);
      // An attempt over for whoever held it is no bound worker's to hand back.
      if (signal.type === 'LEASE_ENDED') this.bound.ended(signal);
      if (signal.reason === 'JOB_CANCELLED') this.unwatch(subscribers, watchKey(signal.tenantId, signal.jobId));
      return;
    }
    this.deal(subscribers, signal);
    const { tenantId, kind, stage, jobId } = signal;
    if (tenantId && kind && stage && jobId) this.watch(subscribers, { tenantId, kind, stage, jobId });
  }

  /** Deals a WORK_AVAILABLE of `count` units to that many of the subscribers serving it, in turn, idle ones first. */
  private deal(subscribers: TopicSubscribers, signal: WorkSignal): void {
    const serving = servingOf(subscribers, signal);
    const idle = serving.filter((s) => !s.busy);
    const among = idle.length > 0 ? idle : serving;
    const dealt = Math.min(among.length, Math.max(1, signal.count ?? 1));
    const start = subscribers.turn % Math.max(1, among.length);
    for (let i = 0; i < dealt; i++) among[(start + i) % among.length].push(signal);
    subscribers.turn = start + dealt;
  }

  /*
   * A lease that runs out makes its unit claimable with no event: nothing is written until a claim
   * takes it over, so no signal says so, and an idle worker would find it only at its fallback look
   * (30 s). So each job's stage that a WORK_AVAILABLE named is watched by this server for as long
   * as the job has work there and the topic subscribers: one read of the job's units (leaseLookOf)
   * a lease after the signal, then at the end of the first lease (or backoff) that read found, and
   * so on. Renewals move a lease's end on, so a job's look comes at most once every two-thirds of a
   * lease (a lease ends at least that far ahead, renewed every third). A unit whose lease is over
   * when looked at is dealt as a WORK_AVAILABLE, like new work; work that only waits (announced by
   * its own signal) is not dealt again. No write, no bus message, no request of an idle worker
   * unless a unit is claimable again; each server of the fleet watches for its own subscribers.
   */
  private watch(subscribers: TopicSubscribers, at: WatchedStage, afterMs?: number): void {
    const leases = this.leases;
    if (!leases) return;
    const key = watchKey(at.tenantId, at.jobId, at.stage);
    // A new signal does not move a watch on: work added now and then would keep a lapsed lease unseen.
    if (afterMs === undefined && subscribers.watches.has(key)) return;
    this.disarm(subscribers.watches.get(key));
    const timer = setTimeout(() => {
      this.armed.delete(timer);
      void this.look(subscribers, key, at, leases);
    }, afterMs ?? leases.leaseMs);
    // A watch is no reason to keep a stopping process alive.
    timer.unref();
    this.armed.add(timer);
    subscribers.watches.set(key, timer);
  }

  /** Clears a lease watch's timer (if any). */
  private disarm(timer: NodeJS.Timeout | undefined): void {
    if (!timer) return;
    clearTimeout(timer);
    this.armed.delete(timer);
  }

  /** Ends the watches whose key starts with `prefix` (a cancelled job's: its items stay in its index until the settle sweep). */
  private unwatch(subscribers: TopicSubscribers, prefix: string): void {
    for (const [key, timer] of subscribers.watches)
      if (key.startsWith(prefix)) {
        this.disarm(timer);
        subscribers.watches.delete(key);
      }
  }

  private async look(subscribers: TopicSubscribers, key: string, at: WatchedStage, leases: LeaseWatching): Promise<void> {
    const now = leases.now().getTime();
    let found: LeaseLook;
    this.looking++;
    try {
      found = await leaseLookOf(leases.store, at, now, leases.leaseMs);
    } catch (err) {
      // The watch goes on: the next look is a lease later (the workers' fallback look stays beside it).
      logger.warn({ err, ...at }, "a lease watch could not read its job's units; it looks again after a lease");
      found = { next: now + leases.leaseMs };
    } finally {
      this.looking--;
    }
    // The topic's last subscriber left meanwhile: its watches went with it.
    if (!subscribers.watches.has(key)) return;
    if ('done' in found) {
      subscribers.watches.delete(key);
      return;
    }
    if ('next' in found) return this.watch(subscribers, at, found.next - now + WATCH_SLACK_MS);
    this.deal(subscribers, { type: 'WORK_AVAILABLE', ...at, count: 1, at: new Date(now).toISOString() });
    // Claimed again by then (a new lease), or still nobody's: the next look says which.
    this.watch(subscribers, at, leases.leaseMs);
  }
}

/** A bound worker's key: the worker as its claims name it (claimerOf), and the process's own id. */
const boundWorkerKey = (who: string, workerId: string) => `${who}\u0000${workerId}`;

/** A bound worker's bus topic (see bound-workers.ts): its key hashed, as the key holds any text a worker names. */
const boundWorkerTopic = (worker: string) => `BOUND_WORKER:${createHash('sha256').update(worker).digest('hex').slice(0, 32)}`;

/** How a bound worker's unit reaches its tenant later, as a report on it would (from the worker's subscription's context). */
export type ReachUnit = (unit: HeldUnit) => Promise<{ jobs: JobRepository }>;

/**
 * What instances tell each other on a bound worker's topic: a claim (`held`) or a report
 * (`released`) served where the worker's subscription is not, and a new subscription of it
 * (`joined`), to which an instance where its grace runs hands its units over.
 */
type BindingMessage = { bind: 'held'; unit: HeldUnit } | { bind: 'released'; unit: HeldUnitRef } | { bind: 'joined' };

/** True for a binding message as forward sends it (the bus carries plain JSON from other instances). */
function isBindingMessage(payload: object): payload is BindingMessage & { from: string } {
  if (!isRecord(payload) || typeof payload.from !== 'string') return false;
  if (payload.bind === 'joined') return true;
  const unit = payload.unit;
  const isUnit =
    isRecord(unit) &&
    typeof unit.tenantId === 'string' &&
    typeof unit.jobId === 'string' &&
    typeof unit.stage === 'string' &&
    (unit.sequence === undefined || typeof unit.sequence === 'number') &&
    (unit.lease === undefined || unit.lease === null || typeof unit.lease === 'string');
  if (payload.bind === 'released') return isUnit && (unit.attempt === undefined || typeof unit.attempt === 'number');
  return payload.bind === 'held' && isUnit && typeof unit.attempt === 'number';
}

const hubs = new WeakMap<EventBus, WorkSignalHub>();

/** The hub of the server whose bus is `bus` (one per bus). */
export function workSignalHubOf(bus: EventBus): WorkSignalHub {
  let hub = hubs.get(bus);
  if (!hub) {
    hub = new WorkSignalHub(bus);
    hubs.set(bus, hub);
  }
  return hub;
}

/** The most kinds and stages one subscription names (each kind is a topic, each pair one index read at start). */
const MAX_KINDS = 20;
const MAX_STAGES = 50;

/**
 * A worker's workSignals: the scope it may ask for (a tenant-bound worker: the kinds it names, of
 * its own tenant; a pool worker: its token's kinds and stages, narrowed by what it names), its
 * topics, and the first message from one read of the claimable indexes.
 */
export class WorkSignals {
  constructor(
    private readonly scope: Scope,
    private readonly hub: WorkSignalHub,
    /** The workers' lease (Config.jobLeaseSeconds): the hub's lease watches look once a lease. */
    private readonly leaseSeconds: number,
  ) {}

  /** The worker, as its subscriptions and claims name it (claimerOf). */
  private get who(): string {
    return claimerOf(this.scope);
  }

  /**
   * Opens the subscription. Throws BAD_USER_INPUT for a tenant worker that names no kind or too
   * many kinds or stages, FORBIDDEN for a pool worker naming a kind or stage outside its pool.
   */
  async open(
    pool: { kinds: string[]; stages?: string[] } | undefined,
    kinds: readonly string[] | null,
    stages: readonly string[] | null,
    /** The worker process's own id, to bind its claims to this subscription (see bound-workers.ts), and the transport's lifetime. */
    binding?: { workerId: string; lifetime?: { readonly abrupt?: boolean }; reach: ReachUnit },
  ): Promise<AsyncIterable<WorkSignal>> {
    const scope = this.scopeOf(pool, kinds, stages);
    const worker = binding && boundWorkerKey(this.who, requireText(binding.workerId, 'workerId', 100));
    const lifetime = binding?.lifetime;
    // What the workers' claims find on this server marks them idle or busy (WorkSignalHub.claimed).
    observeClaims(this.scope.store, this.hub);
    this.hub.watchLeases({ store: this.scope.store, now: this.scope.now, leaseMs: this.leaseSeconds * 1000 });
    const topics = scope.kinds.map((kind) => (pool ? workTopics.pool(kind) : workTopics.tenant(this.scope.tenant.id, kind)));
    const { stream, ready } = this.hub.open(
      topics,
      scope,
      this.who,
      worker === undefined || !binding ? undefined : { worker, abrupt: () => lifetime?.abrupt === true, reach: binding.reach },
    );
    try {
      // Listening first, then reading: work that appears after the read is signalled, before it is read.
      await ready;
      const available = await this.claimableNow(scope, pool !== undefined);
      stream.push({ type: 'SUBSCRIBED', available, at: this.scope.now().toISOString() });
      return stream;
    } catch (error) {
      await stream.return();
      throw error;
    }
  }

  private scopeOf(
    pool: { kinds: string[]; stages?: string[] } | undefined,
    kinds: readonly string[] | null,
    stages: readonly string[] | null,
  ): WorkScope {
    if (kinds && kinds.length > MAX_KINDS) throw badInput(`At most ${MAX_KINDS} kinds a subscription.`, 'kinds');
    if (stages && stages.length > MAX_STAGES) throw badInput(`At most ${MAX_STAGES} stages a subscription.`, 'stages');
    if (!pool) {
      if (!kinds || kinds.length === 0) throw badInput('workSignals needs the kinds you claim (kinds).', 'kinds');
      return {
        kinds: [...new Set(kinds)],
        stages: stages && stages.length > 0 ? [...new Set(stages)] : undefined,
        tenantId: this.scope.tenant.id,
      };
    }
    for (const kind of kinds ?? [])
      if (!pool.kinds.includes(kind)) throw forbidden(`This pool serves the kinds ${pool.kinds.join(', ')}, not ${kind}.`);
    for (const stage of stages ?? [])
      if (pool.stages && !pool.stages.includes(stage))
        throw forbidden(`This pool serves the stages ${pool.stages.join(', ')}, not ${stage}.`);
    const named = stages && stages.length > 0 ? [...new Set(stages)] : pool.stages;
    return { kinds: kinds && kinds.length > 0 ? [...new Set(kinds)] : pool.kinds, stages: named };
  }

  /**
   * Whether the claimable indexes hold work of `scope` now: a tenant's (by kind, or by kind and
   * stage), or the pools' (any tenant's job at a stage with claimable items, or a waiting step).
   * One query of at most one row per kind (per stage when stages are named): a worker subscribing
   * costs that, and nothing more while it waits.
   */
  private async claimableNow(scope: WorkScope, pooled: boolean): Promise<boolean> {
    const now = `${this.scope.now().toISOString()}$`;
    const pairs = scope.kinds.flatMap((kind): Array<{ kind: string; stage?: string }> => {
      const declared = declaredKind(kind)?.stages.map((s) => s.name);
      const stages = scope.stages ? scope.stages.filter((s) => !declared || declared.includes(s)) : undefined;
      return stages ? stages.map((stage) => ({ kind, stage })) : pooled ? (declared ?? []).map((stage) => ({ kind, stage })) : [{ kind }];
    });
    const found = await Promise.all(
      pairs.map(async ({ kind, stage }) => {
        if (pooled) {
          // The pools' index is ordered by tenant, not by time: an entry is work now or soon (a lease's end).
          const { skPrefix: _none, ...partition } = entities.JobWork.query('', 'pool', { kind, name: stage ?? '' });
          return (await this.scope.store.queryFirst(partition, 1)).length > 0;
        }
        const index = stage !== undefined ? 'claimableOfStage' : 'claimableOfKind';
        const spec = this.scope.tenant.of(entities.Step).query(index, stage !== undefined ? { kind, name: stage, stage } : { kind });
        return (await this.scope.store.queryFirst({ ...spec, skBefore: now }, 1)).length > 0;
      }),
    );
    return found.some(Boolean);
  }
}
