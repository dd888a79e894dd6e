import { createHash } from 'node:crypto';
import { AppError, badInput, ErrorCode, notFound } from '../errors';
import type { AnyModel, ItemOf } from '../infra/dynamo/entity';
import type { ConditionFailure, Write } from '../infra/dynamo/write';
import { entities, type EntityItem } from './entities';
import type { Key } from './keys';
import type { Scope } from './scope';

/*
 * Idempotent creates. A client that lost the answer to a create retries it with the same
 * `idempotencyKey` and gets the entity the first call made, with no second item and no second
 * event. The key's record (entities.CreateRequest) is put in the create's own transaction, only
 * if no live record has that key, so of many concurrent duplicates exactly one commits and the
 * others read what it made. Every create goes through here, createJob too: when the client gives
 * no key, a create may derive one from what makes two requests the same (createJob: project,
 * kind, inputs, seed, model version), and a create's entity may give its key up (a failed or
 * cancelled job: the next request makes a new one).
 */

/** How long a key is remembered: a retry within this window returns the first result; after it, the key is new again. */
export const IDEMPOTENCY_WINDOW_HOURS = 48;

const CLIENT_KEY = /^[A-Za-z0-9_.:-]{1,128}$/;

/** Returns a client's idempotency key, or throws BAD_USER_INPUT unless it is 1–128 of `A–Z a–z 0–9 _ . : -`. */
export function checkClientKey(key: string): string {
  if (!CLIENT_KEY.test(key)) throw badInput('idempotencyKey takes 1–128 letters, digits and _ . : -', 'idempotencyKey');
  return key;
}

/** A create request as the client sent it: the key, and what a retry must repeat exactly. */
export interface IdempotentRequest {
  /** The client's key; without one the create is not idempotent. */
  key?: string | null;
  /** The mutation, e.g. `createLog`: a key used for one operation is refused for another. */
  operation: string;
  /** The client's arguments (the parent's id, the input), compared by a hash. */
  input: unknown;
  /**
   * Without a client's key: what makes two requests the same (createJob: project, kind, inputs,
   * seed, model version), whose hash is the key. Such a key is the tenant's, not the user's: equal
   * requests ask for the same entity whoever sends them. Absent: without a client's key the create
   * is not idempotent.
   */
  derivedFrom?: unknown;
}

/**
 * Whether the entity a key's record names has given the key up (or was deleted, `null`), so that
 * the next request with the key makes a new entity instead of getting it back. Without one a key
 * is held for its whole window (a deleted entity answers NOT_FOUND).
 */
export type KeyReleased<M extends AnyModel> = (entity: ItemOf<M> | null) => boolean;

/** JSON with keys sorted at every level and undefined left out, so equal requests hash equally. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value instanceof Date) return JSON.stringify(value.toISOString());
  if (value && typeof value === 'object') {
    return `{${Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`)
      .join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('base64url');

/** A hash of a create request (its operation and the client's arguments), which a retry must match. */
export function requestFingerprint(operation: string, input: unknown): string {
  return sha256(canonicalJson({ operation, input }));
}

/** IDEMPOTENCY_KEY_REUSED: the key was used within the window for a request with other arguments (or another operation). */
export function keyReused(key: string | null | undefined): AppError {
  return new AppError(
    ErrorCode.IDEMPOTENCY_KEY_REUSED,
    `idempotencyKey "${key}" was used for another request in the last ${IDEMPOTENCY_WINDOW_HOURS} hours; use a new key for a new request.`,
    { field: 'idempotencyKey' },
  );
}

/** What records a create's key: the put of its record, naming the item created (`created`, its key). */
export type Remember = (created: Key) => Write;

/** Thrown by the record's condition when another request with the key committed first. */
class Duplicate extends Error {
  constructor(readonly record: EntityItem<'CreateRequest'>) {
    super('duplicate');
  }
}

/** The key of the record of a client's key `key` sent by `actor`: a client's key is its user's, so one user's keys never meet another's. */
export const clientRecordKey = (actor: string, key: string): string => sha256(`${actor}\u0000${key}`);

/** The record's key values and the fingerprint a repeat must match, or null when the request is not idempotent. */
function recordOf(scope: Scope, request: IdempotentRequest | undefined): { values: { key: string }; fingerprint: string } | null {
  if (request?.key != null) {
    return {
      values: { key: clientRecordKey(scope.actor, checkClientKey(request.key)) },
      fingerprint: requestFingerprint(request.operation, request.input),
    };
  }
  if (request?.derivedFrom === undefined) return null;
  // A derived key is the hash of what it is derived from, so its fingerprint always matches it; the
  // `derived.` prefix (no base64url hash has a dot) keeps it apart from every client's key.
  const fingerprint = requestFingerprint(request.operation, request.derivedFrom);
  return { values: { key: `derived.${fingerprint}` }, fingerprint };
}

/**
 * Runs the create `run` once per key: `run` gets the write that records the key (or null when the
 * request is not idempotent) and must commit it in the same transaction as the entity. A request
 * whose key has a live record gets the entity that record names (NOT_FOUND when it was deleted
 * since), or IDEMPOTENCY_KEY_REUSED when its operation or arguments differ from the first
 * request's. With `released`, an entity that gave its key up (see KeyReleased) is not returned:
 * the request takes the record over for a new entity, only while the record still names the old
 * one, so of concurrent requests one makes the new entity and the others get it.
 */
export async function idempotent<M extends AnyModel>(
  scope: Scope,
  model: M,
  request: IdempotentRequest | undefined,
  run: (remember: Remember | null) => Promise<ItemOf<M>>,
  released?: KeyReleased<M>,
): Promise<ItemOf<M>> {
  const recorded = recordOf(scope, request);
  if (!request || !recorded) return run(null);
  const { values, fingerprint } = recorded;

  const targetOf = async (record: EntityItem<'CreateRequest'>): Promise<ItemOf<M> | null> => {
    return model.found(await scope.store.get(record.target));
  };
  // The key's item is its record: anything else there is a broken table, not a client's mistake.
  const otherType = () => new Error('An idempotency record of another type was read.');
  const answer = (record: EntityItem<'CreateRequest'>, target: ItemOf<M> | null): ItemOf<M> => {
    if (record.fingerprint !== fingerprint) throw keyReused(request.key);
    if (!target)
      throw notFound(model.type, request.key != null ? `created with idempotencyKey "${request.key}"` : 'created by this request');
    return target;
  };

  const stored = await scope.store.get(scope.tenant.of(entities.CreateRequest).keyOf(values));
  let takeOver: string | undefined;
  if (stored) {
    const earlier = entities.CreateRequest.found(stored);
    if (!earlier) throw otherType();
    const target = await targetOf(earlier);
    if (!released?.(target)) return answer(earlier, target);
    takeOver = earlier.target.PK;
  }
  const now = scope.now();
  const nowSeconds = Math.floor(now.getTime() / 1000);
  const duplicate: ConditionFailure = (current) =>
    entities.CreateRequest.is(current)
      ? new Duplicate(current)
      : current
        ? otherType()
        : new AppError(ErrorCode.CONFLICT, 'A request with this idempotencyKey is being processed; try again.');
  try {
    return await run((created) => {
      const record = scope.tenant.of(entities.CreateRequest).put({
        ...values,
        fingerprint,
        entity: model.type,
        target: { PK: created.PK, SK: created.SK },
        createdAt: now.toISOString(),
        expiresAt: nowSeconds + IDEMPOTENCY_WINDOW_HOURS * 3600,
      });
      return takeOver ? record.whereAt(['target', 'PK'], takeOver, duplicate) : record.ifNewOrExpired(nowSeconds, duplicate);
    });
  } catch (error) {
    // A duplicate that committed first is the answer, whatever became of its entity since.
    if (error instanceof Duplicate) return answer(error.record, await targetOf(error.record));
    throw error;
  }
}

/** The `idempotencyKey` argument of every create mutation, as its resolvers declare it. */
export const idempotencyKeyArg = {
  nullable: true,
  description: `Makes a retry safe: the same key with the same arguments within ${IDEMPOTENCY_WINDOW_HOURS} hours returns what the first call created (no second entity, no second event); with other arguments it is refused with IDEMPOTENCY_KEY_REUSED. 1–128 letters, digits and _ . : -`,
};
