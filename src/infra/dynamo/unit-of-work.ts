import { AsyncLocalStorage } from 'node:async_hooks';
import { AppError, ErrorCode } from '../../errors';
import { budgetLeft, runWithBudget } from '../deadline';
import { classify, isServiceUnavailable } from '../dependency';
import type { Store } from './store';
import type { Key } from './table';
import {
  HEAD_POSITION,
  HeadMoved,
  headKeyString,
  placeGroup,
  StreamEvent,
  withOneOutboxEntry,
  Write,
  type Item,
  type UnitWrite,
} from './write';

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
   * An item some units depend on (the tenant's settings), read in the same BatchGetItem as the
   * stream heads, so a unit that appends to a stream pays no extra call for it: for a unit that
   * `applies` to, the writes committed are `adjust(writes, item)` (null when there is no item).
   */
  context?: {
    key: Key;
    applies(writes: readonly UnitWrite[]): boolean;
    adjust(writes: readonly UnitWrite[], item: Item | null): readonly UnitWrite[];
  };
}

/**
 * How often a group re-reads its stream heads after a writer outside it (another instance, or a
 * group of another stream that shares a head) took the position it read. Within one instance the
 * writers of one stream queue instead of racing, so this bound is reached only under contention
 * between instances far beyond what one stream is built for.
 */
const MAX_HEAD_ATTEMPTS = 40;

/** DynamoDB's limit on the actions of one TransactWriteItems. */
const MAX_TRANSACTION_ITEMS = 100;

/** A group's budget when none of its units runs within a request budget (offline tools, the sweeper's callers). */
const GROUP_BUDGET_MS = 10_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Thrown inside a group's transaction when one unit's own condition failed: that unit fails, the others go on. */
class UnitFailed extends Error {
  constructor(
    readonly unit: number,
    readonly error: Error,
  ) {
    super('A unit of a group failed its condition.');
  }
}

/**
 * The error of a write that a group could not commit because other writers kept taking its
 * stream's position: nothing was written, and the same request may simply be sent again.
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

/**
 * The heads of the streams `writes` append to, read strongly consistently (position 0 for a new
 * stream), and the `context` item when one is asked for, in one BatchGetItem.
 */
async function readHeads(
  store: Store,
  heads: readonly Key[],
  context?: Key,
): Promise<{ heads: Map<string, number>; context: Item | null }> {
  const positions = new Map<string, number>();
  if (heads.length === 0 && !context) return { heads: positions, context: null };
  const items = await store.batchGet(context ? [...heads, context] : [...heads]);
  heads.forEach((key, i) => positions.set(headKeyString(key), Number(items[i]?.[HEAD_POSITION] ?? 0)));
  return { heads: positions, context: context ? (items[heads.length] ?? null) : null };
}

/** One unit of work waiting in a stream's queue. */
interface Pending {
  writes: readonly UnitWrite[];
  hooks: CommitHooks;
  /** The request's async context (its budget, its trace), in which a group it leads runs. */
  inContext: <R>(fn: () => R) => R;
  /** When the unit's request budget ends (epoch ms); Infinity outside a budget. */
  endsAt: number;
  resolve(): void;
  reject(error: unknown): void;
}

/** The heads a unit appends to, each once, in the order first named. */
function headsOf(writes: readonly UnitWrite[]): Key[] {
  return [
    ...new Map(writes.filter((w): w is StreamEvent => w instanceof StreamEvent).map((w) => [headKeyString(w.head), w.head])).values(),
  ];
}

/** The actions a unit adds to a transaction: its writes, its events, and at most one head move per stream. */
function sizeOf(writes: readonly UnitWrite[]): number {
  return writes.length + headsOf(writes).length;
}

/**
 * The stream a unit queues on: of the heads it appends to, the broadest (the shortest key, e.g.
 * the tenant's job status stream before one project's), because that is the head every other
 * unit of its kind contends on. Units that share it then queue instead of racing.
 */
function queueKeyOf(heads: readonly Key[]): string {
  const broadest = heads.reduce((a, b) => (`${b.PK}#${b.SK}`.length < `${a.PK}#${a.SK}`.length ? b : a));
  return headKeyString(broadest);
}

/** What the group committer holds right now, for tests and metrics: every queue goes once drained. */
export interface GroupCommitStats {
  queues: number;
  waiting: number;
  groups: number;
  units: number;
  headRetries: number;
}

/**
 * Commits the units of work that append to positioned streams, per stream in groups: while one
 * group of a stream is being committed, the units that arrive for it wait, and the next group
 * takes as many of them as fit one transaction. A group reads its heads once, places each unit's
 * events after the previous unit's, and commits every unit in one transaction. A unit whose own
 * condition fails is answered with its error and the rest of the group is committed without it;
 * a head moved by a writer outside the group makes the group read again, a bounded number of
 * times. So N writers of one stream need about N / group-size transactions instead of racing for
 * the head, and one stream's commit rate grows with its writers instead of collapsing.
 */
class GroupCommitter {
  private readonly queues = new Map<string, { pending: Pending[]; running: boolean }>();
  readonly counters = { groups: 0, units: 0, headRetries: 0 };

  constructor(private readonly store: Store) {}

  stats(): GroupCommitStats {
    let waiting = 0;
    for (const q of this.queues.values()) waiting += q.pending.length;
    return { queues: this.queues.size, waiting, ...this.counters };
  }

  submit(writes: readonly UnitWrite[], hooks: CommitHooks, heads: readonly Key[]): Promise<void> {
    const id = queueKeyOf(heads);
    let queue = this.queues.get(id);
    if (!queue) {
      queue = { pending: [], running: false };
      this.queues.set(id, queue);
    }
    const left = budgetLeft();
    const promise = new Promise<void>((resolve, reject) => {
      queue.pending.push({
        writes,
        hooks,
        inContext: AsyncLocalStorage.snapshot(),
        endsAt: left === undefined ? Number.POSITIVE_INFINITY : Date.now() + left,
        resolve,
        reject,
      });
    });
    if (!queue.running) {
      queue.running = true;
      void this.drain(id, queue);
    }
    return promise;
  }

  /** Commits the queue's groups one after another until it is empty, then lets the queue go. */
  private async drain(id: string, queue: { pending: Pending[]; running: boolean }): Promise<void> {
    try {
      while (queue.pending.length > 0) {
        const group = this.takeGroup(queue.pending);
        if (group.length === 0) continue;
        // The group runs in the context of its unit with the most budget left, and within that
        // budget: never within the budget of a request that has already ended.
        const leader = group.reduce((a, b) => (b.endsAt > a.endsAt ? b : a));
        const ms = Number.isFinite(leader.endsAt) ? Math.max(1, leader.endsAt - Date.now()) : GROUP_BUDGET_MS;
        try {
          await leader.inContext(() => runWithBudget(ms, () => this.commitGroup(group)));
        } catch (error) {
          // commitGroup settles its units itself; a throw here is a fault of this code, and the
          // units it left unsettled get it rather than waiting forever (settling twice is a no-op).
          for (const u of group) u.reject(error);
        }
      }
    } finally {
      queue.running = false;
      if (this.queues.get(id) === queue) this.queues.delete(id);
    }
  }

  /**
   * Takes the next group from the front of `pending`: units in arrival order while they fit one
   * transaction and write no item another unit of the group writes (DynamoDB refuses a
   * transaction that names an item twice). A unit that does not fit waits for the next group,
   * ahead of later ones. A unit whose request budget has ended is answered and left out.
   */
  private takeGroup(pending: Pending[]): Pending[] {
    const group: Pending[] = [];
    const keys = new Set<string>();
    let size = 0;
    const now = Date.now();
    for (let i = 0; i < pending.length; ) {
      const unit = pending[i];
      if (unit.endsAt <= now) {
        pending.splice(i, 1);
        unit.reject(contended());
        continue;
      }
      const own = unit.writes.filter((w): w is Write => w instanceof Write).map((w) => headKeyString(w.key));
      const units = sizeOf(unit.writes);
      const fits = group.length === 0 || (size + units <= MAX_TRANSACTION_ITEMS && own.every((k) => !keys.has(k)));
      if (!fits) {
        // Keep the order of the units that share items; others may still join this group.
        if (size >= MAX_TRANSACTION_ITEMS) break;
        i++;
        continue;
      }
      pending.splice(i, 1);
      group.push(unit);
      size += units;
      for (const k of own) keys.add(k);
    }
    return group;
  }

  /** Commits `group` (see the class); settles every unit of it. */
  private async commitGroup(group: Pending[]): Promise<void> {
    let units = group;
    for (let attempt = 1; units.length > 0; ) {
      let placed: ReturnType<typeof placeGroup>;
      try {
        const heads = [...new Map(units.flatMap((u) => headsOf(u.writes)).map((k) => [headKeyString(k), k])).values()];
        const context = units.map((u) => (u.hooks.context?.applies(u.writes) ? u.hooks.context : undefined)).find(Boolean);
        const read = await readHeads(this.store, heads, context?.key);
        const adjusted = units.map((u) => {
          const c = u.hooks.context;
          return c?.applies(u.writes) ? c.adjust(u.writes, read.context) : u.writes;
        });
        // Each unit's own conditions name the unit, so a failure answers that unit alone.
        const tagged = adjusted.map((writes, unit) => writes.map((w) => (w instanceof Write && w.conditional ? tagWithUnit(w, unit) : w)));
        placed = placeGroup(tagged, read.heads);
        await this.store.transact(placed.writes);
      } catch (error) {
        if (error instanceof UnitFailed) {
          units[error.unit].reject(error.error);
          units = units.filter((_, i) => i !== error.unit);
          continue;
        }
        if (error instanceof HeadMoved) {
          this.counters.headRetries++;
          if (attempt >= MAX_HEAD_ATTEMPTS) {
            for (const u of units) u.reject(contended());
            return;
          }
          attempt++;
          await sleep(Math.min(200, 5 * 2 ** attempt) * (0.5 + Math.random()));
          continue;
        }
        const answer = withCommitOutcome(error);
        for (const u of units) u.reject(answer);
        return;
      }
      this.counters.groups++;
      this.counters.units += units.length;
      units.forEach((u, i) => {
        u.hooks.invalidate();
        u.hooks.publisher?.afterCommit(placed.events[i]);
        u.resolve();
      });
      return;
    }
  }
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

const committers = new WeakMap<Store, GroupCommitter>();

function committerOf(store: Store): GroupCommitter {
  let committer = committers.get(store);
  if (!committer) {
    committer = new GroupCommitter(store);
    committers.set(store, committer);
  }
  return committer;
}

/** What the group committer of `store` holds and has done (see GroupCommitStats). */
export function groupCommitStats(store: Store): GroupCommitStats {
  return committerOf(store).stats();
}

/**
 * The one place a unit of work is committed: its writes go to DynamoDB in one transaction (the
 * store maps a cancellation to the failed write's error: CONFLICT, INVALID_TRANSITION or
 * NOT_FOUND), then the request's caches are dropped and the unit's events are published.
 *
 * A unit that appends to a positioned stream is committed by that stream's group committer (see
 * GroupCommitter): its events get their positions there, in one transaction with the other units
 * that wait for the same stream. A throw means nothing of the unit was written and nothing
 * published, except SERVICE_UNAVAILABLE with `mayHaveCommitted: true`, when DynamoDB may have
 * committed it without answering. CONTENDED means other writers outside this instance kept the
 * stream's head moving past the retry bound. A publish that fails after the commit is left to the
 * outbox sweeper, because the events are already in the outbox.
 */
export async function commitUnit(store: Store, writes: readonly UnitWrite[], hooks: CommitHooks): Promise<void> {
  const heads = headsOf(writes);
  if (heads.length > 0) return committerOf(store).submit(writes, hooks, heads);
  const context = hooks.context?.applies(writes) ? hooks.context : undefined;
  const adjusted = context ? context.adjust(writes, (await readHeads(store, [], context.key)).context) : writes;
  // A unit without stream events holds plain writes only.
  const plain = adjusted.filter((w): w is Write => w instanceof Write);
  // A unit of several events (a busy job's group) puts one outbox entry for them all.
  const { writes: sent, entry } = withOneOutboxEntry(plain);
  try {
    await store.transact(sent);
  } catch (error) {
    throw withCommitOutcome(error);
  }
  hooks.invalidate();
  hooks.publisher?.afterCommit(
    sent.flatMap((w) => (w.isEvent && w.item ? [w.item] : [])),
    entry,
  );
}
