import type { Store } from './store';
import type { Item, Write } from './write';

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
}

/**
 * The one place a unit of work is committed: its writes go to DynamoDB in one transaction (the
 * store maps a cancellation to the failed write's error: CONFLICT, INVALID_TRANSITION or
 * NOT_FOUND), then the request's caches are dropped and the unit's events are published. A throw
 * means nothing was written and nothing published. A publish that fails after the commit is left
 * to the outbox sweeper, because the events are already in the outbox.
 */
export async function commitUnit(store: Store, writes: readonly Write[], hooks: CommitHooks): Promise<void> {
  await store.transact(writes);
  hooks.invalidate();
  hooks.publisher?.afterCommit(writes.flatMap((w) => (w.isEvent && w.item ? [w.item] : [])));
}
