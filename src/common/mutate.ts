import { AppError, conflict, ErrorCode, notFound } from '../errors';
import { Stale } from '../infra/dynamo/committer';
import type { AnyModel, ItemOf, WriteValues } from '../infra/dynamo/entity';
import { check, del, put, type ConditionFailure, type UnitWrite, type Write } from '../infra/dynamo/write';
import { activityEvent, subjectOf, type EventSpec } from './activity-event';
import { idempotent, type IdempotentRequest } from './idempotency';
import type { Key } from './keys';
import type { Scope } from './scope';
import { quotaWrites } from './quota';
import { searchChange } from './search';

/** Marks a lost race that is safe to retry: the next attempt reads again and decides again (one class for every committer). */
export { Stale };

/** The values of a model's key template (`{ projectId, milestoneId }`). */
export type KeyValues<M extends AnyModel> = Parameters<M['keyOf']>[1];

/** One entity a write targets: its model and the values of its key. */
export interface Target<M extends AnyModel> {
  model: M;
  values: KeyValues<M>;
}

/** What a change of an entity of `M` writes: the entity's new attributes, derived writes and its event. */
export interface Change<M extends AnyModel> {
  /**
   * The entity's attributes after the change, as its declaration types them (keys, `entityType`
   * and index attributes are computed by the model; version and updatedAt are set here).
   */
  item: WriteValues<M>;
  /** Derived writes that commit with it (material uses, tag items, a parent’s counters, further events); the word items of a searchable entity are added by mutate itself. */
  derived?: UnitWrite[];
  /** The event's action and data; its subject is the entity written unless the spec names another. */
  event: EventSpec;
}

/** What creating an entity of `M` writes: its attributes, its created event, and derived writes that commit with it. */
export interface Creation<M extends AnyModel> {
  model: M;
  /** Its attributes, as its declaration types them (key, type and index attributes are derived; version, times and author added). */
  attributes: WriteValues<M>;
  event: EventSpec;
  /** Derived writes and parent checks (which map their own failures, e.g. to NOT_FOUND). */
  derived?: Write[];
}

/** The version the entity was read at, and what losing it since means. */
interface Lock {
  version: number;
  onConditionFailed: ConditionFailure;
}

const keyOf = <M extends AnyModel>(scope: Scope, target: Target<M>): Key => scope.tenant.of(target.model).keyOf(target.values);
const idOf = <M extends AnyModel>(target: Target<M>): string => String(target.values[target.model.idField] ?? '');

/**
 * The optimistic-lock decision shared by changes and deletes, made in the committer on the entity
 * as its group read it (see Scope.decide): NOT_FOUND when it does not exist, CONFLICT naming the
 * current version when `expectedVersion` is given and is not it, else the writes `write` makes,
 * conditioned on the version read. When the caller named no version, an entity that moved before
 * the commit makes the committer read and decide again (within its rounds, CONTENDED past them),
 * so a decision (a status transition above all) is always judged on fresh state.
 *
 * The unit queues on its project's activity stream when the entity's key names a project (its
 * event appends there), else on the entity itself: the committer puts the changes of one project's
 * entities made at once into one transaction, with one read of them all. As a queue of its own,
 * each entity's change was its own transaction: 40 concurrent edits of one project's logs took 40
 * transactions and 2.5 times as long, where the stream's queue takes 4 to 6 (concurrency.test).
 */
function withLock<M extends AnyModel, T>(
  scope: Scope,
  target: Target<M>,
  expectedVersion: number | null | undefined,
  write: (current: ItemOf<M>, lock: Lock) => { writes: readonly UnitWrite[]; value: T },
): Promise<T> {
  const { model } = target;
  // A record the tenant has one of (its settings) is named by the tenant.
  const id = idOf(target) || scope.tenant.id;
  const key = keyOf(scope, target);
  const values: Readonly<Record<string, unknown>> = target.values;
  const queue = typeof values.projectId === 'string' ? scope.tenant.projectActivity(values.projectId).head : key;
  return scope.decide(queue, [key], ([current]) => {
    if (!model.is(current)) throw notFound(model.type, id);
    if (expectedVersion != null && current.version !== expectedVersion) throw conflict(model.type, id, expectedVersion, current.version);
    const lock: Lock = {
      version: current.version,
      onConditionFailed: (now) => {
        if (!now) return notFound(model.type, id);
        if (expectedVersion == null) return new Stale();
        return conflict(model.type, id, expectedVersion, model.is(now) ? now.version : undefined);
      },
    };
    return write(current, lock);
  });
}

/**
 * Changes one entity with optimistic locking (see withLock): `change` computes the new state from
 * the current one (it may throw INVALID_TRANSITION or BAD_USER_INPUT), and the new item (its
 * index attributes recomputed by the model), its derived writes and its event commit in one
 * transaction. Returns the item as written.
 */
export async function mutate<M extends AnyModel>(
  scope: Scope,
  target: Target<M>,
  expectedVersion: number | null | undefined,
  change: (current: ItemOf<M>) => Change<M>,
): Promise<ItemOf<M>> {
  const { model } = target;
  const next = await withLock(scope, target, expectedVersion, (current, lock) => {
    const { item, derived = [], event } = change(current);
    // The word items follow the entity's searchable text in the same transaction (search.ts).
    const keys = scope.tenant.of(model);
    const search = searchChange(scope.tenant, model, current, item, { wordItems: !scope.store.indexesText });
    // The change's attributes are the entity's write values (a client's input is checked against
    // its declaration by checkFields): itemFrom, since a change need not restate every attribute.
    const next = keys.itemFrom({
      ...item,
      ...search.attributes,
      version: current.version + 1,
      updatedAt: scope.now().toISOString(),
    });
    const writes = [
      put(next).ifVersion(lock.version, lock.onConditionFailed),
      ...derived,
      ...search.writes,
      // The tenant's usage moves with what the item counts against its plan, within the limit (quota.ts).
      ...quotaWrites(scope.tenant, model, current, next),
      activityEvent(scope, { subject: subjectOf(model, next), ...event, data: { version: next.version, ...event.data } }),
    ];
    return { writes, value: next };
  });
  // The commit dropped the request's cached reads; the written item is known, so it is primed.
  scope.items.prime(keyOf(scope, target), next);
  return next;
}

/**
 * Creates an entity from its attributes (the model adds key, type and index attributes; this adds
 * version, times and author): the item is put only if its key is new, with the derived writes and
 * any parent checks (which map their own failures, e.g. to NOT_FOUND) and the event, in one
 * transaction. CONFLICT when the key exists. With a client's idempotency key (see
 * idempotency.ts), the key's record commits in the same transaction, and a repeat of the request
 * returns the entity the first one created instead of creating another.
 */
export function create<M extends AnyModel>(scope: Scope, creation: Creation<M>, request?: IdempotentRequest): Promise<ItemOf<M>> {
  const { model } = creation;
  return idempotent(scope, model, request, async (remember) => {
    const { item, writes } = creationWrites(scope, creation, scope.now().toISOString());
    // The record first, so that when a duplicate request committed first, its failure is the one reported.
    await scope.commit([...(remember ? [remember(item)] : []), ...writes]);
    scope.items.prime({ PK: item.PK, SK: item.SK }, item);
    return item;
  });
}

/**
 * What creating an entity writes, for `create` and for a caller that creates one inside a
 * transaction of its own (a job's completed stage makes an asset): the item as stored (key, type,
 * index attributes and search words derived; version 1, times at `now`, the scope's author), put
 * only if its key is new (CONFLICT otherwise), the derived writes, its search words and its
 * created event. Pure: nothing is written.
 */
export function creationWrites<M extends AnyModel>(
  scope: Scope,
  { model, attributes, event, derived = [] }: Creation<M>,
  now: string,
): { item: ItemOf<M>; writes: UnitWrite[] } {
  const keys = scope.tenant.of(model);
  const search = searchChange(scope.tenant, model, null, attributes, { wordItems: !scope.store.indexesText });
  // As in mutate: the entity's write values, whose required attributes a client's input gave (itemFrom).
  const item = keys.itemFrom({
    ...attributes,
    ...search.attributes,
    version: 1,
    createdAt: now,
    updatedAt: now,
    createdBy: scope.actor,
  });
  const subject = subjectOf(model, item);
  return {
    item,
    writes: [
      put(item).ifNew(() => new AppError(ErrorCode.CONFLICT, `${subject.type} ${subject.id} already exists.`)),
      ...derived,
      ...search.writes,
      ...quotaWrites(scope.tenant, model, null, item),
      activityEvent(scope, { subject, ...event, data: { version: 1, ...event.data } }),
    ],
  };
}

/**
 * Deletes an entity with optimistic locking (see withLock), together with the derived deletes
 * and the event that `change` computes from the current item. Returns the item as it was.
 */
export function remove<M extends AnyModel>(
  scope: Scope,
  target: Target<M>,
  expectedVersion: number | null | undefined,
  change: (current: ItemOf<M>) => { derived?: Write[]; event: EventSpec },
): Promise<ItemOf<M>> {
  return withLock(scope, target, expectedVersion, (current, lock) => {
    const { derived = [], event } = change(current);
    const writes = [
      del(keyOf(scope, target)).ifVersion(lock.version, lock.onConditionFailed),
      ...derived,
      ...searchChange(scope.tenant, target.model, current, null, { wordItems: !scope.store.indexesText }).writes,
      ...quotaWrites(scope.tenant, target.model, current, null),
      activityEvent(scope, { subject: subjectOf(target.model, current), ...event }),
    ];
    return { writes, value: current };
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
