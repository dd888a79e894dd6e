import { eventWrite, type EventSpec } from '../activity/activity.events';
import { AppError, conflict, ErrorCode, notFound } from '../errors';
import type { Item, TxWrite } from '../infra/dynamo/store';
import type { Key } from './keys';
import type { Scope } from './scope';

const MAX_RETRIES = 5;

/** Marks a lost race that is safe to retry because the caller named no version. */
class Stale extends Error {}

export interface Subject {
  /** The entity name used in error messages, e.g. `Project`. */
  entity: string;
  id: string;
  key: Key;
}

export interface Change {
  /** The entity's new attributes (keys and index attributes included); version and updatedAt are set here. */
  item: Item;
  /** Derived writes that commit with it (material uses, tag items, a parent's counters). */
  derived?: TxWrite[];
  event: EventSpec;
}

/**
 * Changes one entity with optimistic locking: reads it, lets `change` compute the new state (it
 * may throw INVALID_TRANSITION or BAD_USER_INPUT), and writes the new item conditioned on the
 * version it read, with the derived items and the event, in one transaction.
 *
 * With `expectedVersion`, a mismatch fails with CONFLICT naming the current version. Without one,
 * a concurrent writer makes it read again and re-decide, so a transition is judged on fresh state.
 * Throws NOT_FOUND when the entity does not exist. Returns the item as written.
 */
export async function mutate(
  scope: Scope,
  subject: Subject,
  expectedVersion: number | null | undefined,
  change: (current: Item) => Change,
): Promise<Item> {
  for (let attempt = 0; ; attempt++) {
    const current = await scope.store.get(subject.key);
    if (!current) throw notFound(subject.entity, subject.id);
    if (expectedVersion != null && current.version !== expectedVersion) {
      throw conflict(subject.entity, subject.id, expectedVersion, current.version);
    }
    const { item, derived = [], event } = change(current);
    const next = { ...item, version: current.version + 1, updatedAt: scope.now().toISOString() };
    try {
      await scope.store.transact([
        {
          Put: {
            TableName: '',
            Item: next,
            ConditionExpression: 'version = :version',
            ExpressionAttributeValues: { ':version': current.version },
          },
          onConditionFailed: (now) => {
            if (!now) return notFound(subject.entity, subject.id);
            if (expectedVersion == null && attempt < MAX_RETRIES) return new Stale();
            return conflict(subject.entity, subject.id, expectedVersion ?? current.version, now.version);
          },
        },
        ...derived,
        eventWrite(scope, { ...event, data: { version: next.version, ...event.data } }),
      ]);
    } catch (error) {
      if (error instanceof Stale) continue;
      throw error;
    }
    scope.items.clear(subject.key).prime(subject.key, next);
    return next;
  }
}

/**
 * Creates an entity: the item is put only if its key is new, with the derived items, any parent
 * checks (which map their own failures, e.g. to NOT_FOUND) and the event, in one transaction.
 */
export async function create(scope: Scope, item: Item, event: EventSpec, derived: TxWrite[] = []): Promise<Item> {
  const now = scope.now().toISOString();
  const created: Item = { ...item, version: 1, createdAt: now, updatedAt: now, createdBy: scope.actor };
  await scope.store.transact([
    {
      Put: { TableName: '', Item: created, ConditionExpression: 'attribute_not_exists(PK)' },
      onConditionFailed: () => new AppError(ErrorCode.CONFLICT, `${event.entityType} ${event.entityId} already exists.`),
    },
    ...derived,
    eventWrite(scope, { ...event, data: { version: 1, ...event.data } }),
  ]);
  scope.items.prime({ PK: created.PK, SK: created.SK }, created);
  return created;
}

/**
 * Deletes an entity (conditioned on its version when one is given) together with its derived
 * items and the event. Throws NOT_FOUND when it does not exist and CONFLICT on a version mismatch.
 * `derivedOf` computes the derived deletes from the current item.
 */
export async function remove(
  scope: Scope,
  subject: Subject,
  expectedVersion: number | null | undefined,
  change: (current: Item) => { derived?: TxWrite[]; event: EventSpec },
): Promise<Item> {
  for (let attempt = 0; ; attempt++) {
    const current = await scope.store.get(subject.key);
    if (!current) throw notFound(subject.entity, subject.id);
    if (expectedVersion != null && current.version !== expectedVersion) {
      throw conflict(subject.entity, subject.id, expectedVersion, current.version);
    }
    const { derived = [], event } = change(current);
    try {
      await scope.store.transact([
        {
          Delete: {
            TableName: '',
            Key: subject.key,
            ConditionExpression: 'version = :version',
            ExpressionAttributeValues: { ':version': current.version },
          },
          onConditionFailed: (now) => {
            if (!now) return notFound(subject.entity, subject.id);
            if (expectedVersion == null && attempt < MAX_RETRIES) return new Stale();
            return conflict(subject.entity, subject.id, expectedVersion ?? current.version, now.version);
          },
        },
        ...derived,
        eventWrite(scope, event),
      ]);
    } catch (error) {
      if (error instanceof Stale) continue;
      throw error;
    }
    scope.items.clear(subject.key);
    return current;
  }
}

/**
 * A transaction condition that `key` exists (and meets `extra`, e.g. not archived), failing the
 * transaction with NOT_FOUND for `entity id` otherwise.
 */
export function mustExist(
  key: Key,
  entity: string,
  id: string,
  extra?: { condition: string; values: Record<string, unknown> },
): TxWrite {
  return {
    ConditionCheck: {
      TableName: '',
      Key: key,
      ConditionExpression: extra ? `attribute_exists(PK) AND ${extra.condition}` : 'attribute_exists(PK)',
      ExpressionAttributeValues: extra?.values,
    },
    onConditionFailed: () => notFound(entity, id),
  };
}
