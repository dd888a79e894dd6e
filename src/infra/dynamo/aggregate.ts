import { AsyncLocalStorage } from 'node:async_hooks';
import { AppError, ErrorCode } from '../../errors';

/*
 * The committer of aggregates: an aggregate (a job with its steps and items) is one thing that
 * changes as a whole, each change moving its version by one, so two writers of one aggregate
 * serialize on it. Done naively, N callers changing one aggregate at the same moment each read
 * version v, one commits and N − 1 lose and retry: O(N²) transactions, and the unlucky starve.
 * Instead the commands for one aggregate queue in this process; one group at a time is decided
 * and committed: the aggregate is read once, the commands are applied in order to that state
 * (each a pure decision on it), and all that they changed is committed in one transaction
 * conditioned on the versions read. While a group commits the next one gathers, so an
 * aggregate's throughput is about (commands per group) / (one read + one transaction). Writers
 * on other instances still race on the version: the losing group is read and decided again, with
 * jittered backoff, a bounded number of times.
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

/** The state a group is decided on. */
export interface DecisionState<Self> {
  /** A copy a command may change; the group adopts it only when the command did not throw, so a refused command changes nothing. */
  fork(): Self;
  adopt(other: Self): void;
  /** How many writes committing this state would take (roughly), to keep a group within one transaction. */
  readonly size: number;
}

/** How a group reads and commits its aggregate: the leading command's request supplies it (its scope, its budget). */
export interface AggregateIO<S> {
  /**
   * Reads the aggregate as it is now, for the group's commands (`refs`: what the commands name,
   * e.g. items). With `carried` (what `carry` kept of the last commit) it reads only what that
   * state lacks of `refs`.
   */
  load(refs: readonly string[], carried?: S): Promise<S>;
  /**
   * Commits what the decided state changed; throws Stale when the aggregate moved. Resolves false
   * when there was nothing to write (with `carry`, that tells the committer the state was not checked).
   */
  commit(state: S): Promise<unknown>;
  /** Optional: the state a successful commit left, to decide the next group on (undefined: read afresh). */
  carry?(committed: S): S | undefined;
}

interface Queue<S> {
  pending: Command<S>[];
  running: boolean;
  /** The state the last group's commit left, while more commands wait (see `carry`). */
  carried?: S;
}

interface Command<S> {
  io: AggregateIO<S>;
  /** Runs a function in the asynchronous context of the request that sent the command (its budget, its trace). */
  inContext: <R>(fn: () => R) => R;
  refs: readonly string[];
  apply(state: S): unknown;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

export interface AggregateLimits<S> {
  /** Commands one group takes; more wait for the next group. */
  maxCommands: number;
  /**
   * How long (ms) a drained queue's carried state is kept for the aggregate's next command, and
   * for how many aggregates at most, weighing `maxWeight` at most together by `weigh` (the least
   * recently drained go first). 0 keeps none.
   */
  keepCarried?: { ms: number; max: number; weigh: (state: S) => number; maxWeight: number };
  /** Writes one group's transaction may hold (DynamoDB allows 100; stream heads and events are added at commit). */
  maxWrites: number;
  /** Rounds a group is read and decided again after another writer moved the aggregate first. */
  maxRounds: number;
}

/** What the committer did since start (the bench reads it): groups, commands, lost rounds, committed commands. */
export interface AggregateStats {
  batches: number;
  intents: number;
  conflicts: number;
  committed: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Commits commands on aggregates of one type, in groups per aggregate (see the top of this file).
 * One instance per store and aggregate type; its queues go as soon as they are drained.
 */
export class AggregateCommitter<S extends DecisionState<S>> {
  private readonly queues = new Map<string, Queue<S>>();
  /**
   * The states drained queues carried, by aggregate, with when each was kept: a busy aggregate's
   * queue drains between groups whenever its callers are all waiting for their answers (each
   * worker sends its next command only after the last one committed), and its next group then
   * decides on what the last commit left instead of reading the aggregate again. Kept for
   * `keepCarried.ms` at most (looked at when the next command comes), for `keepCarried.max`
   * aggregates at most, and dropped by `release` at shutdown. Keeping one longer risks nothing
   * but time: the commit is conditioned on the versions the state holds.
   */
  private readonly kept = new Map<string, { state: S; at: number; weight: number }>();
  /** What the kept states weigh together (keepCarried.weigh). */
  private keptWeight = 0;

  constructor(
    private readonly limits: AggregateLimits<S>,
    /** The error a command gets when its group lost to other writers `maxRounds` times. */
    private readonly tooBusy: (aggregateId: string) => Error,
    /** Where it counts what it did (shared by the committers of one aggregate type). */
    readonly stats: AggregateStats = { batches: 0, intents: 0, conflicts: 0, committed: 0 },
  ) {}

  /** How many aggregates have a queue now (zero when no change is under way). */
  get openQueues(): number {
    return this.queues.size;
  }

  /** How many drained aggregates' carried states are kept now (see `kept`). */
  get keptStates(): number {
    return this.kept.size;
  }

  /** Drops every kept state (at shutdown); queues still running keep theirs until they drain. */
  release(): void {
    this.kept.clear();
    this.keptWeight = 0;
  }

  /**
   * Queues `apply` for aggregate `id` and resolves with what it returned once its group
   * committed; rejects with what it threw (nothing of it is written), with the error the read or
   * the commit failed with, or with `tooBusy` past the retry bound.
   */
  submit<T>(id: string, io: AggregateIO<S>, refs: readonly string[], apply: (state: S) => T): Promise<T> {
    let queue = this.queues.get(id);
    if (!queue) {
      queue = { pending: [], running: false, carried: this.takeKept(id) };
      this.queues.set(id, queue);
    }
    const promise = new Promise<T>((resolve, reject) => {
      queue.pending.push({ io, inContext: AsyncLocalStorage.snapshot(), refs, apply, resolve: (v) => resolve(v as T), reject });
    });
    if (!queue.running) {
      queue.running = true;
      void this.drain(id, queue);
    }
    return promise;
  }

  private async drain(id: string, queue: Queue<S>): Promise<void> {
    try {
      while (queue.pending.length > 0) {
        const group = queue.pending.splice(0, this.limits.maxCommands);
        // A group runs for the requests whose commands it holds, within the first one's budget:
        // never within the budget of a request that started this loop and has since ended.
        let deferred: Command<S>[];
        try {
          deferred = await group[0].inContext(() => this.run(id, group, queue));
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
        this.keep(id, queue.carried);
      }
    }
  }

  private keep(id: string, state: S | undefined): void {
    const limit = this.limits.keepCarried;
    if (!state || !limit || limit.max <= 0 || limit.ms <= 0) return;
    const now = performance.now();
    this.drop(id);
    const weight = limit.weigh(state);
    if (weight > limit.maxWeight) return;
    this.kept.set(id, { state, at: now, weight });
    this.keptWeight += weight;
    // Map iteration is in insertion order, so the first entries are the least recently kept:
    // those past their time, past the count or past the weight go.
    for (const [key, entry] of this.kept) {
      if (this.kept.size <= limit.max && this.keptWeight <= limit.maxWeight && now - entry.at <= limit.ms) break;
      this.drop(key);
    }
  }

  private drop(id: string): void {
    const entry = this.kept.get(id);
    if (!entry) return;
    this.kept.delete(id);
    this.keptWeight -= entry.weight;
  }

  private takeKept(id: string): S | undefined {
    const entry = this.kept.get(id);
    if (!entry) return undefined;
    this.drop(id);
    return performance.now() - entry.at <= (this.limits.keepCarried?.ms ?? 0) ? entry.state : undefined;
  }

  /**
   * Decides and commits one group. Returns the commands that did not fit (they go first in the
   * next group); every other command of the group is settled.
   */
  private async run(id: string, group: Command<S>[], queue: Queue<S>): Promise<Command<S>[]> {
    this.stats.batches++;
    this.stats.intents += group.length;
    const io = group[0].io;
    const refs = [...new Set(group.flatMap((c) => c.refs))];
    let carried = queue.carried;
    queue.carried = undefined;
    for (let round = 1; ; round++) {
      let state: S;
      try {
        state = await io.load(refs, carried);
      } catch (error) {
        // A failed read (the aggregate is gone, DynamoDB is out, the first request's budget ran
        // out) fails the first command, in whose request it ran; the others are tried again.
        group[0].reject(error);
        return group.slice(1);
      }
      const done: [Command<S>, unknown][] = [];
      const refused: [Command<S>, unknown][] = [];
      const deferred: Command<S>[] = [];
      for (const command of group) {
        const fork = state.fork();
        try {
          const value = command.apply(fork);
          if (fork.size > this.limits.maxWrites && done.length > 0) {
            deferred.push(command);
            continue;
          }
          state.adopt(fork);
          done.push([command, value]);
        } catch (error) {
          refused.push([command, error]);
        }
      }
      // A refusal on a carried state may be the state's, not the aggregate's: decide again on a read.
      if (carried && refused.length > 0) {
        carried = undefined;
        round--;
        continue;
      }
      try {
        const wrote = done.length > 0 ? await io.commit(state) : false;
        if (carried && wrote === false) {
          // Nothing written, so nothing checked the carried state the answers came from.
          carried = undefined;
          round--;
          continue;
        }
        this.stats.committed += done.length;
        if (wrote !== false) queue.carried = io.carry?.(state);
      } catch (error) {
        carried = undefined;
        if (error instanceof Stale && round < this.limits.maxRounds) {
          this.stats.conflicts++;
          await sleep(Math.min(200, 2 * 2 ** round) * (0.5 + Math.random()));
          continue;
        }
        if (!(error instanceof Stale)) {
          // As for a failed read: the first command fails with the error, the others are tried again.
          group[0].reject(error);
          return group.slice(1);
        }
        const failure = this.tooBusy(id);
        for (const [command] of [...done, ...refused]) command.reject(failure);
        return deferred;
      }
      for (const [command, value] of done) command.resolve(value);
      for (const [command, error] of refused) command.reject(error);
      return deferred;
    }
  }
}

/** The error a job's command gets when other instances kept changing the job past the retry bound. */
export const changingTooFast = (entity: string) => (id: string) =>
  // A queue's id may carry the tenant before a NUL; the message names the aggregate's own id only.
  new AppError(ErrorCode.CONFLICT, `${entity} ${id.slice(id.lastIndexOf('\u0000') + 1)} is being changed by others right now; try again.`);
