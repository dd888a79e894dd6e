import { AppError, ErrorCode } from '../../errors';
import type { Store } from './store';
import type { Key } from './table';
import { HEAD_POSITION, HeadMoved, headKeyString, placeStreamEvents, StreamEvent, type Item, type UnitWrite } from './write';

/** Hands committed events to their subscribers (the Outbox); it must never throw. */
export interface Publisher {
  afterCommit(events: Item[]): void;
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
 * How often a unit re-reads its stream heads after another writer took the position it read.
 * Each retry costs one read and one transaction; under the contention tests (8 writers on one
 * stream) a unit rarely needs more than a few.
 */
const MAX_HEAD_ATTEMPTS = 40;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The heads of the streams `writes` append to, read strongly consistently (position 0 for a new
 * stream), and the `context` item when one is asked for, in one BatchGetItem.
 */
async function readHeads(
  store: Store,
  writes: readonly UnitWrite[],
  context?: Key,
): Promise<{ heads: Map<string, number>; context: Item | null }> {
  const keys = [
    ...new Map(writes.filter((w): w is StreamEvent => w instanceof StreamEvent).map((w) => [headKeyString(w.head), w.head])).values(),
  ];
  const heads = new Map<string, number>();
  if (keys.length === 0 && !context) return { heads, context: null };
  const items = await store.batchGet(context ? [...keys, context] : keys);
  keys.forEach((key, i) => heads.set(headKeyString(key), Number(items[i]?.[HEAD_POSITION] ?? 0)));
  return { heads, context: context ? (items[keys.length] ?? null) : null };
}

/**
 * The one place a unit of work is committed: its writes go to DynamoDB in one transaction (the
 * store maps a cancellation to the failed write's error: CONFLICT, INVALID_TRANSITION or
 * NOT_FOUND), then the request's caches are dropped and the unit's events are published.
 *
 * Stream events get their positions here: the heads are read, the events placed after them, and
 * when another writer moved a head first only the placement is redone (the change itself was
 * decided on the entity, whose own condition still guards it). A throw means nothing was written
 * and nothing published. A publish that fails after the commit is left to the outbox sweeper,
 * because the events are already in the outbox.
 */
export async function commitUnit(store: Store, writes: readonly UnitWrite[], hooks: CommitHooks): Promise<void> {
  let placed: ReturnType<typeof placeStreamEvents>;
  const context = hooks.context?.applies(writes) ? hooks.context : undefined;
  for (let attempt = 1; ; attempt++) {
    const read = await readHeads(store, writes, context?.key);
    placed = placeStreamEvents(context ? context.adjust(writes, read.context) : writes, read.heads);
    try {
      await store.transact(placed);
      break;
    } catch (error) {
      if (!(error instanceof HeadMoved)) throw error;
      if (attempt >= MAX_HEAD_ATTEMPTS)
        throw new AppError(ErrorCode.CONFLICT, 'The stream is being written by many others right now; try again.');
      await sleep(Math.min(200, 5 * 2 ** attempt) * (0.5 + Math.random()));
    }
  }
  hooks.invalidate();
  hooks.publisher?.afterCommit(placed.flatMap((w) => (w.isEvent && w.item ? [w.item] : [])));
}
