import { AsyncLocalStorage } from 'node:async_hooks';
import { AppError, ErrorCode } from '../../errors';
import { budgetLeft, runWithBudget } from '../deadline';
import { classify, isServiceUnavailable } from '../dependency';
import { keyString, type TransactOutcome } from '../store-api';
import type { Key } from './table';
import {
  HEAD_POSITION,
  HeadMoved,
  headKeyString,
  placeGroup,
  StreamEvent,
  MAX_TRANSACTION_ITEMS,
  Write,
  type Item,
  type UnitWrite,
} from './write';

/*
 * The committer: the one place a change is committed. Every write of the server that carries a
 * decision (an aggregate's: a job with its steps and items), an event on a positioned stream (a
 * project's activity, a tenant's job status), or a plain unit of work goes through it.
 *
 * Commands queue per aggregate in this process. One group of an aggregate's commands at a time is
 * decided and committed: the aggregate is read once (`load`), each command is applied in order to
 * that state (a pure decision on it; a command that throws is refused and changes nothing), and
 * the units of work the decided state makes (`units`) are committed in one transaction, with
 * every stream event placed after its stream's head and each head moved in that same transaction,
 * conditioned on the versions read and on the heads where they were read. While a group commits
 * the next one gathers, so an aggregate's throughput is about (commands per group) / (one read +
 * one transaction), and N callers of one aggregate do not race for its version.
 *
 * A plain unit of work (commitUnit) is a command of the stream it appends to, its broadest one
 * (the tenant's job status stream before one project's): the "aggregate" is the stream, its load
 * reads nothing, and each unit is its own part of the group's transaction, so a unit whose own
 * condition fails is answered alone and the rest commit without it. A change of a plain entity
 * (decideUnit) is such a unit decided on the entity as the group read it: the group's load reads
 * every entity its decisions name in one BatchGetItem, and an entity that moved since (Stale)
 * makes the group read and decide again, as an aggregate's does.
 *
 * One retry loop: a transaction that loses (a version another writer moved: Stale; a head another
 * writer took: HeadMoved; DynamoDB's TransactionConflict; a throttled partition) is tried again,
 * after jittered exponential backoff, `maxRounds` times in all; a lost version re-reads and
 * re-decides, the others re-read the heads only. Beneath it the SDK retries a failed call (4
 * attempts, each bounded by the per-attempt timeout). There is no other layer: Store.transactOnce
 * sends once.
 *
 * Worst-case latency. A group runs within the request budget of its command with the most left
 * (REQUEST_BUDGET_MS, 5 s by default; GROUP_BUDGET_MS outside any request), and every DynamoDB
 * call it makes ends when that budget does; a command whose budget ended while it waited is
 * answered CONTENDED without being decided. Within that, a group makes at most `maxRounds`
 * transactions and sleeps between them at most 1.5 × Σ min(BACKOFF_CAP_MS, BACKOFF_BASE_MS × 2^r)
 * for r < maxRounds (maxBackoffMs: 2,622 ms for the jobs' 16 rounds, 3,072 ms for the streams'
 * 18), then answers the aggregate's `tooBusy` (or SERVICE_UNAVAILABLE for throttling). So a
 * command is answered within min(budget, maxBackoffMs + maxRounds × (one read + one transaction))
 * after its group starts; test/integration/committer.test.ts holds both bounds.
 *
 * Within this process the transactions that move one stream head take turns (headTurns), held
 * from reading the head to the transaction's answer only: groups of different jobs that each
 * append to their tenant's job status stream would otherwise race for its head and each lose
 * all but one of their rounds.
 *
 * An aggregate whose IO can `carry` the state its commit left decides the next group on that state
 * without reading it again (only what the state lacks is read), so a busy aggregate costs one
 * transaction per group. Such a state is as good as the commit that checks it: every write is
 * conditioned on the versions the state holds, so a group whose commit succeeds was decided on
 * the aggregate as it was. A group that commits nothing, or that refused a command, proved
 * nothing, and is decided again on a fresh read; so is one whose commit failed.
 */

/**
 * Thrown by a commit (a write's failed condition maps to it) when the aggregate changed since it
 * was read: the group is read and decided again. Never reaches a client.
 */
export class Stale extends Error {}

/**
 * The state a group is decided on: immutable. A command is a function from one state to the next
 * (with its answer), so a command that throws leaves the state it was given as it was, and a
 * refused command changes nothing.
 */
export interface DecisionState {
  /** How many writes committing this state would take (roughly), to keep a group within one transaction. */
  readonly size: number;
}

/** A command's decision: the state it leaves and what its caller is answered. */
export interface Decided<S, T> {
  state: S;
  value: T;
}

/** Hands committed events to their subscribers (the Outbox); it must never throw. */
export interface Publisher {
  /** `entry`: the one outbox entry that stands for all of `events` (withOneOutboxEntry); without it each event is its own. */
  afterCommit(events: Item[], entry?: Key): void;
}

/** What happens around a commit for one request. */
export interface CommitHooks {
  /**
   * Drops the request's cached reads. A write can change any item or list the request has read
   * (derived items too), so every commit calls it; writers prime what they wrote afterwards.
   */
  invalidate(): void;
  /** Publishes the events of a committed unit; without one (offline tools), events wait for the sweeper. */
  publisher?: Publisher;
  /**
   * Items some units depend on (the tenant's settings, and for a unit that grows a quota its
   * release shards), read in the same BatchGetItem as the stream heads, so a unit that appends to
   * a stream pays no extra call for them: for a unit that `applies` to, the writes committed are
   * `adjust(writes, items)`, `items` in the order of `keys(writes)` (null for one missing).
   */
  context?: {
    keys(writes: readonly UnitWrite[]): readonly Key[];
    applies(writes: readonly UnitWrite[]): boolean;
    adjust(writes: readonly UnitWrite[], items: readonly (Item | null)[]): readonly UnitWrite[];
  };
}

/** One unit of a group's transaction, and which of the group's decided commands answers for it. */
export interface Unit {
  writes: readonly UnitWrite[];
  hooks: CommitHooks;
  /** The index, among the group's decided commands in order, of the command whose unit this is (default 0, the first). */
  owner?: number;
  /**
   * True for a unit decided on items the group read (decideUnit): its own condition answering
   * Stale means one of them moved since, so the group reads and decides again, as an aggregate's does.
   */
  redecides?: boolean;
}

/**
 * The store interface beneath the committer: strongly consistent reads by key (the stream heads,
 * a unit's context item) and one all-or-nothing transaction of conditioned writes. Store
 * (DynamoDB) implements it; a second store implements the same.
 */
export interface CommitStore {
  batchGet(keys: readonly Key[]): Promise<(Item | null)[]>;
  transactOnce(writes: readonly Write[]): Promise<TransactOutcome>;
}

/** How the committer treats one type of aggregate: its group sizes, its retry bound, its counters. */
export interface AggregateType<S> {
  /** Commands one group takes; more wait for the next group. */
  maxCommands: number;
  /** Writes one group's transaction may hold (DynamoDB allows 100; stream heads and events are added at commit). */
  maxWrites: number;
  /** Transactions a group makes at most (see the top of this file). */
  maxRounds: number;
  /**
   * True for an aggregate: a write of its units failing with Stale means the aggregate moved
   * since it was read, and the group is read and decided again. False for plain units, whose
   * failed conditions are their own commands' answers, except a unit decided on items the group
   * read (Unit.redecides), whose Stale makes the group read and decide again as an aggregate's does.
   */
  rereads: boolean;
  /**
   * How long (ms) a drained queue's carried state is kept for the aggregate's next command, and
   * for how many aggregates at most, weighing `maxWeight` at most together by `weigh` (the least
   * recently drained go first). 0 keeps none.
   */
  keepCarried?: { ms: number; max: number; weigh: (state: S) => number; maxWeight: number };
  /** The error a command gets when its group lost `maxRounds` times (to other instances' writers). */
  tooBusy(aggregateId: string): Error;
  /** Where the committer counts what it did for this type. */
  stats: CommitStats;
}

/** What the committer did for one aggregate type since start (the bench reads it). */
export interface CommitStats {
  /** Groups decided. */
  batches: number;
  /** Commands submitted. */
  intents: number;
  /** Rounds lost to other writers (a version, a head, a transaction conflict or throttling). */
  conflicts: number;
  /** Commands committed. */
  committed: number;
}

/** How a group reads its aggregate and what its decided state commits: the leading command's request supplies it (its scope, its budget). */
export interface AggregateIO<S> {
  type: AggregateType<S>;
  /**
   * Reads the aggregate as it is now, for the group's commands (`refs`: what the commands name,
   * e.g. items). With `carried` (what `carry` kept of the last commit) it reads only what that
   * state lacks of `refs`.
   */
  load(refs: readonly string[], carried?: S): Promise<S>;
  /** The units of work that commit the decided state (none when nothing changed). Pure. */
  units(state: S): Unit[];
  /** Optional: the state a successful commit left, to decide the next group on (undefined: read afresh). */
  carry?(committed: S): S | undefined;
}

interface Queue<S> {
  /** The type of the first command queued (what a kept state is looked up for). */
  type: AggregateType<S>;
  pending: Command<S>[];
  running: boolean;
  /** The state the last group's commit left, while more commands wait (see `carry`), and the type that left it. */
  carried?: { state: S; type: AggregateType<S> };
}

interface Command<S> {
  io: AggregateIO<S>;
  /** Runs a function in the asynchronous context of the request that sent the command (its budget, its trace). */
  inContext: <R>(fn: () => R) => R;
  /** When the command's request budget ends (epoch ms); Infinity outside a budget. */
  endsAt: number;
  refs: readonly string[];
  apply(state: S): Decided<S, unknown>;
  resolve(value: unknown): void;
  reject(error: unknown): void;
  /** Queued ahead of the waiting commands of its type that are not (see submit's `ahead`). */
  ahead: boolean;
}

/** What the committer holds right now and has done, for tests and metrics: every queue goes once drained. */
export interface CommitterStats {
  queues: number;
  waiting: number;
  /** Heads whose turn is held or awaited now. */
  turns: number;
  groups: number;
  units: number;
  headRetries: number;
}

/** The backoff between a group's transactions: BACKOFF_BASE_MS × 2^round, at most BACKOFF_CAP_MS, jittered ×0.5–1.5. */
const BACKOFF_BASE_MS = 4;
const BACKOFF_CAP_MS = 150;

/** The longest a group can sleep between its `rounds` transactions (the jitter at its top). */
export function maxBackoffMs(rounds: number): number {
  let sum = 0;
  for (let round = 1; round < rounds; round++) sum += Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** round);
  return 1.5 * sum;
}

const backoff = (round: number) => Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** round) * (0.5 + Math.random());
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A group's budget when none of its commands runs within a request budget (offline tools, the sweeper's callers). */
const GROUP_BUDGET_MS = 10_000;

/** Thrown inside a group's transaction when one unit's own condition failed. */
class UnitFailed extends Error {
  constructor(
    readonly unit: number,
    readonly error: Error,
  ) {
    super('A unit of a group failed its condition.');
  }
}

/** Thrown when a group used its rounds: `error` is what its commands are answered. */
class OutOfRounds extends Error {
  constructor(readonly answer: unknown) {
    super('A group used its rounds.');
  }
}

/**
 * The error of a write that could not be committed because other writers kept taking its
 * stream's position, or whose request ended while it waited: nothing was written, and the same
 * request may simply be sent again.
 */
export function contended(): AppError {
  return new AppError(
    ErrorCode.CONTENDED,
    'Too many writers are appending to this stream at once; nothing was written. Send the same request again in a moment.',
    { mayHaveCommitted: false },
  );
}

/**
 * A dependency failure of the transaction itself: when the call may have reached DynamoDB (a
 * timeout, the request budget's abort, a 5xx), the write may have committed although the caller
 * saw no answer, and the client is told so (`mayHaveCommitted`), so it reads before it repeats a
 * write that is not idempotent. Other errors pass unchanged.
 */
function withCommitOutcome(error: unknown): unknown {
  if (!isServiceUnavailable(error) || !(error instanceof AppError)) return error;
  const outcome = classify(error);
  // The error was made for this call alone (serviceUnavailable), so its extensions are ours to add to.
  error.extensions.mayHaveCommitted = outcome === 'timeout' || outcome === 'deadline' || outcome === 'server_error';
  return error;
}

/** The heads of the streams `writes` append to, each once, in the order first named. */
function headsOf(writes: readonly UnitWrite[]): Key[] {
  return [
    ...new Map(writes.filter((w): w is StreamEvent => w instanceof StreamEvent).map((w) => [headKeyString(w.head), w.head])).values(),
  ];
}

/**
 * `write` with its failure mapping wrapped so that a failed condition names the unit it belongs
 * to; the error the unit gets is the one the write's own mapping (or the store's default) makes.
 */
function tagWithUnit(write: Write, unit: number): Write {
  const own = write.onConditionFailed;
  return write.orFail(
    (current) =>
      new UnitFailed(unit, own ? own(current) : new AppError(ErrorCode.CONFLICT, 'A concurrent change won; reload and try again.')),
  );
}

/**
 * The turns of this process's transactions on stream heads: `take` waits until every head named
 * is free, in key order (so two takers of overlapping heads never wait on each other), and holds
 * them until the returned release. A head's entry goes when its last holder releases it.
 */
class HeadTurns {
  private readonly tails = new Map<string, Promise<void>>();

  get held(): number {
    return this.tails.size;
  }

  async take(heads: readonly string[]): Promise<() => void> {
    const releases: (() => void)[] = [];
    for (const head of [...heads].sort()) {
      const before = this.tails.get(head);
      let release!: () => void;
      const mine = new Promise<void>((r) => {
        release = r;
      });
      const tail = before ? before.then(() => mine) : mine;
      this.tails.set(head, tail);
      releases.push(() => {
        release();
        if (this.tails.get(head) === tail) this.tails.delete(head);
      });
      if (before) await before;
    }
    return () => {
      for (const release of releases) release();
    };
  }
}

/**
 * A stream queue's "aggregate" state: the items its group's decisions named (decideUnit), read in
 * one BatchGetItem by their key strings, and the units its commands added, in order.
 */
class Units implements DecisionState {
  constructor(
    readonly reads: ReadonlyMap<string, Item | null> = new Map(),
    readonly list: readonly Unit[] = [],
    /** The keys the units write, and how many actions they take (events and head moves included). */
    private readonly keys: ReadonlySet<string> = new Set<string>(),
    /** The actions the units take; a unit that writes an item another unit of the group writes makes it too big to join (DynamoDB refuses an item twice). */
    readonly size = 0,
  ) {}

  /** These units and `unit` after them. */
  with(unit: Unit): Units {
    const own = unit.writes.filter((w): w is Write => w instanceof Write).map((w) => headKeyString(w.key));
    const clashes = own.some((key) => this.keys.has(key));
    const actions = clashes ? Number.POSITIVE_INFINITY : unit.writes.length + headsOf(unit.writes).length;
    return new Units(
      this.reads,
      [...this.list, { ...unit, owner: this.list.length }],
      new Set([...this.keys, ...own]),
      this.size + actions,
    );
  }
}

/** Plain units of work, queued by the broadest stream they append to. */
const STREAM: AggregateType<Units> = {
  maxCommands: 100,
  maxWrites: MAX_TRANSACTION_ITEMS,
  maxRounds: 18,
  rereads: false,
  tooBusy: () => contended(),
  stats: { batches: 0, intents: 0, conflicts: 0, committed: 0 },
};

/** The key whose key string (headKeyString) is `ref`. */
function keyOfRef(ref: string): Key {
  const cut = ref.indexOf('\u0000');
  return { PK: ref.slice(0, cut), SK: ref.slice(cut + 1) };
}

/** How a stream queue's group reads (the items its decisions name, strongly consistently) and what it commits: its units. */
const streamIO = (store: CommitStore): AggregateIO<Units> => ({
  type: STREAM,
  load: async (refs) => {
    if (refs.length === 0) return new Units();
    const items = await store.batchGet(refs.map(keyOfRef));
    return new Units(new Map(refs.map((ref, i) => [ref, items[i]])));
  },
  units: (state) => [...state.list],
});

/**
 * The stream a unit queues on: of the heads it appends to, the broadest (the shortest key, e.g.
 * the tenant's job status stream before one project's), because that is the head every other
 * unit of its kind contends on. Units that share it then queue instead of racing.
 */
function queueKeyOf(heads: readonly Key[]): string {
  const broadest = heads.reduce((a, b) => (`${b.PK}#${b.SK}`.length < `${a.PK}#${a.SK}`.length ? b : a));
  return `\u0001stream\u0000${headKeyString(broadest)}`;
}

/** The queues and kept states hold aggregates of every type; each queue's commands and type agree on theirs (submit). */
// biome-ignore lint/suspicious/noExplicitAny: erased per queue, as above.
type AnyState = any;

/** How many rounds a group has used of its bound, and what it answers past it. */
interface Tries {
  used: number;
  max: number;
  stats: CommitStats;
  tooBusy: () => Error;
}

/** Commits the changes of one store (see the top of this file). One per store; its queues go as soon as they are drained. */
export class Committer {
  private readonly queues = new Map<string, Queue<AnyState>>();
  /**
   * The states drained queues carried, by aggregate, with when each was kept: a busy aggregate's
   * queue drains between groups whenever its callers are all waiting for their answers (each
   * worker sends its next command only after the last one committed), and its next group then
   * decides on what the last commit left instead of reading the aggregate again. Kept for
   * `keepCarried.ms` at most (looked at when the next command comes), for `keepCarried.max`
   * aggregates at most, and dropped by `release` at shutdown. Keeping one longer risks nothing
   * but time: the commit is conditioned on the versions the state holds.
   */
  private readonly kept = new Map<string, { state: AnyState; at: number; weight: number; type: AggregateType<AnyState> }>();
  /** What the kept states of each type weigh together, and how many there are (keepCarried). */
  private readonly keptOf = new Map<AggregateType<AnyState>, { weight: number; count: number }>();
  private readonly turns = new HeadTurns();
  private readonly counters = { groups: 0, units: 0, headRetries: 0 };
  private readonly streamIO: AggregateIO<Units>;

  constructor(
    private readonly store: CommitStore,
    /** The clock of the kept states' ages (ms); tests give their own. */
    private readonly clock: () => number = () => performance.now(),
  ) {
    this.streamIO = streamIO(store);
  }

  /** What the committer holds now and has done (see CommitterStats). */
  stats(): CommitterStats {
    let waiting = 0;
    for (const q of this.queues.values()) waiting += q.pending.length;
    return { queues: this.queues.size, waiting, turns: this.turns.held, ...this.counters };
  }

  /** How many drained aggregates' carried states are kept now (see `kept`). */
  get keptStates(): number {
    return this.kept.size;
  }

  /** Drops every kept state (at shutdown); queues still running keep theirs until they drain. */
  release(): void {
    this.kept.clear();
    this.keptOf.clear();
  }

  /**
   * Queues `apply` for aggregate `id` and resolves with what it returned once its group
   * committed; rejects with what it threw (nothing of it is written), with the error the read or
   * the commit failed with, or with the type's `tooBusy` past the retry bound. `ahead` queues it
   * before the commands of its type already waiting that were not queued ahead themselves (after
   * those that were, and after any of another type), so it goes in the next group and is decided
   * before them: a job's hand-back, so that a claim waiting beside it takes the unit it puts back.
   */
  submit<S extends DecisionState, T>(
    id: string,
    io: AggregateIO<S>,
    refs: readonly string[],
    apply: (state: S) => Decided<S, T>,
    options: { ahead?: boolean } = {},
  ): Promise<T> {
    let queue: Queue<S> | undefined = this.queues.get(id);
    if (!queue) {
      const kept = this.takeKept(id);
      queue = { type: io.type, pending: [], running: false, carried: kept && { state: kept, type: io.type } };
      this.queues.set(id, queue);
    }
    const left = budgetLeft();
    const target = queue;
    const ahead = options.ahead === true;
    const promise = new Promise<T>((resolve, reject) => {
      const command: Command<S> = {
        io,
        inContext: AsyncLocalStorage.snapshot(),
        endsAt: left === undefined ? Number.POSITIVE_INFINITY : Date.now() + left,
        refs,
        apply,
        resolve: (v) => resolve(v as T),
        reject,
        ahead,
      };
      const { pending } = target;
      let at = pending.length;
      if (ahead) while (at > 0 && !pending[at - 1].ahead && pending[at - 1].io.type === io.type) at--;
      pending.splice(at, 0, command);
    });
    if (!queue.running) {
      queue.running = true;
      void this.drain(id, queue);
    }
    return promise;
  }

  /**
   * Commits `writes` as one unit of work (see commitUnit): with stream events, in the queue of the
   * broadest stream it appends to; without, at once, through the same rounds.
   */
  commitUnit(writes: readonly UnitWrite[], hooks: CommitHooks): Promise<void> {
    const heads = headsOf(writes);
    const id = heads.length > 0 ? queueKeyOf(heads) : undefined;
    const unit = { writes, hooks };
    if (id) return this.submit(id, this.streamIO, [], (state) => ({ state: state.with(unit), value: undefined }));
    return this.withinBudget(Date.now() + (budgetLeft() ?? GROUP_BUDGET_MS), async () => {
      try {
        await this.send([unit], { used: 0, max: STREAM.maxRounds, stats: STREAM.stats, tooBusy: contended });
      } catch (error) {
        if (error instanceof UnitFailed) throw error.error;
        if (error instanceof OutOfRounds) throw error.answer;
        throw withCommitOutcome(error);
      }
    });
  }

  /**
   * Decides a unit of work on the items at `keys` and commits it, in the queue of the stream
   * `queue` heads (the one the unit is expected to append to; any key serves, it only gathers
   * units that contend). The group reads its decisions' items in one strongly consistent
   * BatchGetItem, `decide` (pure) turns this one's (null where none exists) into its writes and
   * answer, and the unit commits with the group's others. When its own condition answers Stale (an
   * item moved since it was read) the group reads and decides again, within the queue's rounds:
   * this is the only retry of a plain entity's change above the SDK's. Resolves with the answer
   * once committed; rejects with what `decide` threw (nothing written), the unit's own failed
   * condition, the read's or the commit's failure, or CONTENDED past the rounds.
   */
  decideUnit<T>(
    queue: Key,
    keys: readonly Key[],
    decide: (items: (Item | null)[]) => { writes: readonly UnitWrite[]; value: T },
    hooks: CommitHooks,
  ): Promise<T> {
    const refs = keys.map(headKeyString);
    return this.submit(queueKeyOf([queue]), this.streamIO, refs, (state) => {
      const { writes, value } = decide(refs.map((ref) => state.reads.get(ref) ?? null));
      return { state: writes.length > 0 ? state.with({ writes, hooks, redecides: true }) : state, value };
    });
  }

  private async drain<S extends DecisionState>(id: string, queue: Queue<S>): Promise<void> {
    try {
      while (queue.pending.length > 0) {
        // A group holds commands of one type (one aggregate may take commands of several, e.g. a
        // job's decisions and its deletion): the first waiting and those of its type after it.
        const { type } = queue.pending[0].io;
        let size = 0;
        while (size < queue.pending.length && size < type.maxCommands && queue.pending[size].io.type === type) size++;
        const group = queue.pending.splice(0, size);
        // The group runs in the context of its command with the most budget left, and within that
        // budget: never within the budget of a request that has already ended.
        const leader = group.reduce((a, b) => (b.endsAt > a.endsAt ? b : a));
        let deferred: Command<S>[];
        try {
          deferred = await leader.inContext(() => this.withinBudget(leader.endsAt, () => this.run(id, group, queue)));
        } catch (error) {
          // run settles its commands itself; a throw here is a fault of this code, and the
          // commands get it rather than waiting forever (settling twice is a no-op).
          for (const command of group) command.reject(error);
          deferred = [];
        }
        queue.pending.unshift(...deferred);
      }
    } finally {
      queue.running = false;
      if (this.queues.get(id) === queue) {
        this.queues.delete(id);
        if (queue.carried) this.keep(id, queue.carried.state, queue.carried.type);
      }
    }
  }

  private withinBudget<T>(endsAt: number, fn: () => Promise<T>): Promise<T> {
    const ms = Number.isFinite(endsAt) ? Math.max(1, endsAt - Date.now()) : GROUP_BUDGET_MS;
    return runWithBudget(ms, fn);
  }

  /**
   * Decides and commits one group. Returns the commands that did not fit (they go first in the
   * next group); every other command of the group is settled.
   */
  private async run<S extends DecisionState>(id: string, group: Command<S>[], queue: Queue<S>): Promise<Command<S>[]> {
    const { type } = group[0].io;
    type.stats.batches++;
    type.stats.intents += group.length;
    this.counters.groups++;
    let carried = queue.carried?.type === type ? queue.carried.state : undefined;
    queue.carried = undefined;
    const tries: Tries = { used: 0, max: type.maxRounds, stats: type.stats, tooBusy: () => type.tooBusy(id) };
    let commands = group;
    for (;;) {
      const now = Date.now();
      // A command whose request ended while it waited is answered, undecided.
      for (const command of commands) if (command.endsAt <= now) command.reject(contended());
      commands = commands.filter((command) => command.endsAt > now);
      if (commands.length === 0) return [];
      const io = commands[0].io;
      let state: S;
      try {
        state = await io.load([...new Set(commands.flatMap((c) => c.refs))], carried);
      } catch (error) {
        // A failed read (the aggregate is gone, DynamoDB is out, the first request's budget ran
        // out) fails the first command, in whose request it ran; the others are tried again.
        commands[0].reject(error);
        return commands.slice(1);
      }
      const decided = this.decide(state, commands, type.maxWrites);
      const { done, refused, deferred } = decided;
      state = decided.state;
      // A refusal on a carried state may be the state's, not the aggregate's: decide again on a read.
      if (carried && refused.length > 0) {
        carried = undefined;
        continue;
      }
      const units = done.length > 0 ? io.units(state) : [];
      if (carried && done.length > 0 && units.length === 0) {
        // Nothing to write, so nothing would check the carried state the answers came from.
        carried = undefined;
        continue;
      }
      try {
        if (units.length > 0) await this.send(units, tries);
      } catch (error) {
        carried = undefined;
        const failed = error instanceof UnitFailed ? error : undefined;
        let answer: unknown;
        if (failed?.error instanceof Stale && (type.rereads || units[failed.unit].redecides)) {
          if (await this.lost(tries)) continue;
          answer = type.tooBusy(id);
        } else if (failed) {
          // The unit's own condition failed: its command is answered with that, and the others
          // are decided again without it.
          const [owner] = done[units[failed.unit].owner ?? 0];
          owner.reject(failed.error);
          commands = commands.filter((c) => c !== owner);
          continue;
        } else if (error instanceof OutOfRounds) {
          answer = error.answer;
        } else {
          // As for a failed read: the first command fails with the error, the others are tried again.
          commands[0].reject(withCommitOutcome(error));
          return commands.slice(1);
        }
        for (const [command] of [...done, ...refused]) command.reject(answer);
        return deferred;
      }
      type.stats.committed += done.length;
      const left = units.length > 0 ? io.carry?.(state) : undefined;
      if (left) queue.carried = { state: left, type };
      for (const [command, value] of done) command.resolve(value);
      for (const [command, error] of refused) command.reject(error);
      return deferred;
    }
  }

  /**
   * Applies each command in turn to the state the ones before it left, keeping the state of those
   * that neither threw nor overflowed the transaction; returns the state the kept ones leave.
   */
  private decide<S extends DecisionState>(read: S, commands: Command<S>[], maxWrites: number) {
    const done: [Command<S>, unknown][] = [];
    const refused: [Command<S>, unknown][] = [];
    const deferred: Command<S>[] = [];
    let state = read;
    for (const command of commands) {
      try {
        const decided = command.apply(state);
        if (decided.state.size > maxWrites && done.length > 0) {
          deferred.push(command);
          continue;
        }
        state = decided.state;
        done.push([command, decided.value]);
      } catch (error) {
        refused.push([command, error]);
      }
    }
    return { state, done, refused, deferred };
  }

  /**
   * Counts a lost round and sleeps its backoff; false when the group has used its rounds, or when
   * its budget would end before the next round (it would be refused by the budget's abort anyway).
   */
  private async lost(tries: Tries): Promise<boolean> {
    tries.used++;
    tries.stats.conflicts++;
    const pause = backoff(tries.used);
    const left = budgetLeft();
    if (tries.used >= tries.max || (left !== undefined && left <= pause)) return false;
    await sleep(pause);
    return true;
  }

  /**
   * Commits `units` in one transaction: reads their heads (and a context item), places their
   * events, sends once per round. A head another writer took, a transaction conflict or
   * throttling costs a round (re-reading the heads); throws Stale or UnitFailed for a failed
   * condition, OutOfRounds past the bound, and anything else the calls throw.
   */
  private async send(units: readonly Unit[], tries: Tries): Promise<void> {
    const heads = [...new Map(units.flatMap((u) => headsOf(u.writes)).map((k) => [headKeyString(k), k])).values()];
    for (;;) {
      const release = heads.length > 0 ? await this.turns.take(heads.map(headKeyString)) : undefined;
      let outcome: TransactOutcome | 'moved';
      let events: Item[][];
      let entries: (Key | undefined)[];
      try {
        // Each unit's context items, read once for all of them.
        const contextKeys = units.map((u) => (u.hooks.context?.applies(u.writes) ? u.hooks.context.keys(u.writes) : []));
        const read = await this.readHeads(heads, [...new Map(contextKeys.flat().map((k) => [keyString(k), k])).values()]);
        const adjusted = units.map((u, i) =>
          u.hooks.context?.applies(u.writes)
            ? u.hooks.context.adjust(
                u.writes,
                contextKeys[i].map((k) => read.context.get(keyString(k)) ?? null),
              )
            : u.writes,
        );
        // Each unit's own conditions name the unit, so a failure answers that unit alone.
        const tagged = adjusted.map((writes, unit) => writes.map((w) => (w instanceof Write && w.conditional ? tagWithUnit(w, unit) : w)));
        const placed = placeGroup(tagged, read.heads);
        ({ events, entries } = placed);
        outcome = await this.store.transactOnce(placed.writes);
      } catch (error) {
        // An event's own key taken, or a head moved, by a writer outside this group.
        if (!(error instanceof HeadMoved || (error instanceof UnitFailed && error.error instanceof HeadMoved))) throw error;
        outcome = 'moved';
      } finally {
        release?.();
      }
      if (outcome === 'committed') {
        this.counters.units += units.length;
        units.forEach((u, i) => {
          u.hooks.invalidate();
          u.hooks.publisher?.afterCommit(events[i], entries[i]);
        });
        return;
      }
      if (outcome === 'moved') this.counters.headRetries++;
      if (!(await this.lost(tries)))
        throw new OutOfRounds(outcome !== 'moved' && outcome.reason === 'throttled' ? outcome.error : tries.tooBusy());
    }
  }

  /**
   * The heads of the streams `writes` append to, read strongly consistently (position 0 for a new
   * stream), and the `context` items asked for, in one BatchGetItem.
   */
  private async readHeads(
    heads: readonly Key[],
    context: readonly Key[],
  ): Promise<{ heads: Map<string, number>; context: Map<string, Item | null> }> {
    const positions = new Map<string, number>();
    const items = new Map<string, Item | null>();
    if (heads.length === 0 && context.length === 0) return { heads: positions, context: items };
    const read = await this.store.batchGet([...heads, ...context]);
    heads.forEach((key, i) => positions.set(headKeyString(key), Number(read[i]?.[HEAD_POSITION] ?? 0)));
    context.forEach((key, i) => items.set(keyString(key), read[heads.length + i] ?? null));
    return { heads: positions, context: items };
  }

  private keep<S>(id: string, state: S | undefined, type: AggregateType<S>): void {
    const limit = type.keepCarried;
    if (state === undefined || !limit || limit.max <= 0 || limit.ms <= 0) return;
    const now = this.clock();
    this.drop(id);
    const weight = limit.weigh(state);
    if (weight > limit.maxWeight) return;
    this.kept.set(id, { state, at: now, weight, type });
    const of = this.keptOf.get(type) ?? { weight: 0, count: 0 };
    of.weight += weight;
    of.count++;
    this.keptOf.set(type, of);
    // Map iteration is in insertion order, so the first entries are the least recently kept:
    // those of this type past their time, past the count or past the weight go.
    for (const [key, entry] of this.kept) {
      if (entry.type !== type) continue;
      if (of.count <= limit.max && of.weight <= limit.maxWeight && now - entry.at <= limit.ms) break;
      this.drop(key);
    }
  }

  private drop(id: string): void {
    const entry = this.kept.get(id);
    if (!entry) return;
    this.kept.delete(id);
    const of = this.keptOf.get(entry.type);
    if (!of) return;
    of.weight -= entry.weight;
    of.count--;
  }

  private takeKept(id: string): AnyState {
    const entry = this.kept.get(id);
    if (!entry) return undefined;
    this.drop(id);
    return this.clock() - entry.at <= (entry.type.keepCarried?.ms ?? 0) ? entry.state : undefined;
  }
}

/** The state of an aggregate decided by one command on one read (decideOnce): what it read, and what its decision writes. */
export class OneDecision<R> implements DecisionState {
  constructor(
    readonly read: R,
    readonly writes: readonly UnitWrite[] = [],
  ) {}

  get size(): number {
    return this.writes.length;
  }
}

/** The type of a one-decision aggregate (decideOnce): a group is one command; a lost version reads and decides again. */
export function oneDecisionType<R>(tooBusy: (id: string) => Error, maxRounds = 8): AggregateType<OneDecision<R>> {
  return {
    maxCommands: 1,
    maxWrites: MAX_TRANSACTION_ITEMS,
    maxRounds,
    rereads: true,
    tooBusy,
    stats: { batches: 0, intents: 0, conflicts: 0, committed: 0 },
  };
}

/**
 * Decides once on what `read` returns and commits the writes `decide` makes, in aggregate `id`'s
 * queue of `store`'s committer (so it waits for that aggregate's other commands in this process).
 * A write whose condition answers Stale (the aggregate moved since it was read) makes it read and
 * decide again, within the type's rounds. Resolves with the decision's value once committed;
 * rejects with what `decide` or `read` threw, the commit's failure, or the type's tooBusy.
 */
export function decideOnce<R, T>(
  store: CommitStore,
  id: string,
  type: AggregateType<OneDecision<R>>,
  hooks: CommitHooks,
  read: () => Promise<R>,
  decide: (read: R) => { writes: readonly UnitWrite[]; value: T },
): Promise<T> {
  const io: AggregateIO<OneDecision<R>> = {
    type,
    load: async () => new OneDecision(await read()),
    units: (state) => (state.writes.length > 0 ? [{ writes: state.writes, hooks }] : []),
  };
  return committerOf(store).submit(id, io, [], (state) => {
    const { writes, value } = decide(state.read);
    return { state: new OneDecision(state.read, writes), value };
  });
}

const committers = new WeakMap<CommitStore, Committer>();

/** The committer of `store` in this process (one per store: a test process may hold several). */
export function committerOf(store: CommitStore): Committer {
  let committer = committers.get(store);
  if (!committer) {
    committer = new Committer(store);
    committers.set(store, committer);
  }
  return committer;
}

/**
 * The one place a unit of work is committed: its writes go to the store in one transaction (the
 * store maps a failed condition to the failed write's error: CONFLICT, INVALID_TRANSITION or
 * NOT_FOUND), then the request's caches are dropped and the unit's events are published.
 *
 * A unit that appends to a positioned stream is committed in that stream's queue (see Committer):
 * its events get their positions there, in one transaction with the other units that wait for
 * the same stream. A throw means nothing of the unit was written and nothing published, except
 * SERVICE_UNAVAILABLE with `mayHaveCommitted: true`, when DynamoDB may have committed it without
 * answering. CONTENDED means other writers kept the stream's head moving past the retry bound. A
 * publish that fails after the commit is left to the outbox sweeper, because the events are
 * already in the outbox.
 */
export function commitUnit(store: CommitStore, writes: readonly UnitWrite[], hooks: CommitHooks): Promise<void> {
  return committerOf(store).commitUnit(writes, hooks);
}

/** The error a job's command gets when other instances kept changing the job past the retry bound. */
export const changingTooFast = (entity: string) => (id: string) =>
  // A queue's id may carry the tenant before a NUL; the message names the aggregate's own id only.
  new AppError(ErrorCode.CONFLICT, `${entity} ${id.slice(id.lastIndexOf('\u0000') + 1)} is being changed by others right now; try again.`);
