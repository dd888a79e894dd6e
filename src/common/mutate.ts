import { AppError, conflict, ErrorCode, notFound } from '../errors';
import { check, del, put, type ConditionFailure, type Item, type Write } from '../infra/dynamo/write';
import { activityEvent, type EventSpec } from './activity-event';
import type { Key } from './keys';
import type { Scope } from './scope';

const MAX_RETRIES = 5;

/** Marks a lost race that is safe to retry: the next attempt reads again and decides again. */
export class Stale extends Error {}

/**
 * Runs `attempt` until it neither succeeds nor throws anything but Stale, at most MAX_RETRIES
 * times more. `mayRetry` tells the attempt whether a lost race may still return Stale, or must
 * now become the caller's error (CONFLICT).
 */
export async function retryWhileStale<T>(attempt: (mayRetry: boolean) => Promise<T>): Promise<T> {
  for (let n = 0; ; n++) {
    try {
      return await attempt(n < MAX_RETRIES);
    } catch (error) {
      if (!(error instanceof Stale)) throw error;
    }
  }
}

export interface Subject<T = Item> {
  /** The entity name used in error messages, e.g. `Project`. */
  entity: string;
  id: string;
  key: Key;
  /** Never set: it carries the type of the entity's items, so that `mutate` and `remove` return it. */
  readonly itemType?: T;
}

export interface Change {
  /** The entity's new attributes (keys and index attributes included); version and updatedAt are set here. */
  item: Item;
  /** Derived writes that commit with it (material uses, tag items, a parent's counters). */
  derived?: Write[];
  event: EventSpec;
}

/** The version the entity was read at, and what losing it since means. */
interface Lock {
  version: number;
  onConditionFailed: ConditionFailure;
}

/**
 * The optimistic-lock loop shared by changes and deletes: reads the entity (NOT_FOUND when it
 * does not exist), checks `expectedVersion` (CONFLICT naming the current version), and runs
 * `write` with a condition that holds only while the entity is still at the version read. When
 * the caller named no version, losing a race makes it read again and re-decide, so a decision
 * (a status transition above all) is always judged on fresh state.
 */
async function withLock<T>(
  scope: Scope,
  subject: Subject<unknown>,
  expectedVersion: number | null | undefined,
  write: (current: Item, lock: Lock) => Promise<T>,
): Promise<T> {
  return retryWhileStale(async (mayRetry) => {
    const current = await scope.store.get(subject.key);
    if (!current) throw notFound(subject.entity, subject.id);
    if (expectedVersion != null && current.version !== expectedVersion) {
      throw conflict(subject.entity, subject.id, expectedVersion, current.version);
    }
    const lock: Lock = {
      version: current.version,
      onConditionFailed: (now) => {
        if (!now) return notFound(subject.entity, subject.id);
        if (expectedVersion == null && mayRetry) return new Stale();
        return conflict(subject.entity, subject.id, expectedVersion ?? current.version, now.version);
      },
    };
    return write(current, lock);
  });
}

/**
 * Changes one entity with optimistic locking (see withLock): `change` computes the new state from
 * the current one (it may throw INVALID_TRANSITION or BAD_USER_INPUT), and the new item, its
 * derived writes and its event commit in one transaction. Returns the item as written.
 */
export function mutate<T>(
  scope: Scope,
  subject: Subject<T>,
  expectedVersion: number | null | undefined,
  change: (current: Item) => Change,
): Promise<T> {
  return withLock(scope, subject, expectedVersion, async (current, lock) => {
    const { item, derived = [], event } = change(current);
    const next = { ...item, version: current.version + 1, updatedAt: scope.now().toISOString() };
    await scope.commit([
      put(next).ifVersion(lock.version, lock.onConditionFailed),
      ...derived,
      activityEvent(scope, { ...event, data: { version: next.version, ...event.data } }),
    ]);
    // commit() dropped the request's cached reads; the written item is known, so it is primed.
    scope.items.prime(subject.key, next);
    // The one place a changed item becomes its entity's type: `change` built it from a stored item.
    return next as T;
  });
}

/** What create() adds to every new item. */
export interface Created {
  version: number;
  createdAt: string;
  updatedAt: string;
  createdBy: string;
}

/**
 * Creates an entity: the item is put only if its key is new, with the derived items, any parent
 * checks (which map their own failures, e.g. to NOT_FOUND) and the event, in one transaction.
 */
export async function create<T extends Item>(scope: Scope, item: T, event: EventSpec, derived: Write[] = []): Promise<T & Created> {
  const now = scope.now().toISOString();
  const created = { ...item, version: 1, createdAt: now, updatedAt: now, createdBy: scope.actor };
  await scope.commit([
    put(created).ifNew(() => new AppError(ErrorCode.CONFLICT, `${event.entityType} ${event.entityId} already exists.`)),
    ...derived,
    activityEvent(scope, { ...event, data: { version: 1, ...event.data } }),
  ]);
  scope.items.prime({ PK: created.PK, SK: created.SK }, created);
  return created;
}

/**
 * Deletes an entity with optimistic locking (see withLock), together with the derived deletes
 * and the event that `change` computes from the current item. Returns the item as it was.
 */
export function remove<T>(
  scope: Scope,
  subject: Subject<T>,
  expectedVersion: number | null | undefined,
  change: (current: Item) => { derived?: Write[]; event: EventSpec },
): Promise<T> {
  return withLock(scope, subject, expectedVersion, async (current, lock) => {
    const { derived = [], event } = change(current);
    await scope.commit([del(subject.key).ifVersion(lock.version, lock.onConditionFailed), ...derived, activityEvent(scope, event)]);
    return current as T;
  });
}

/**
 * A transaction condition that `key` exists (and that each attribute of `where` has its value,
 * e.g. `{ archived: false }`), failing the transaction with NOT_FOUND for `entity id` otherwise.
 */
export function mustExist(key: Key, entity: string, id: string, where?: Record<string, string | number | boolean>): Write {
  const exists = check(key).exists(() => notFound(entity, id));
  return where ? exists.where(where) : exists;
}
