import { createHash } from 'node:crypto';
import { AppError, badInput, ErrorCode, notFound } from '../errors';
import type { AnyModel, ItemOf } from '../infra/dynamo/entity';
import type { Item, Write } from '../infra/dynamo/write';
import { entities } from './entities';
import type { Scope } from './scope';

/*
 * Idempotent creates. A client that lost the answer to a create retries it with the same
 * `idempotencyKey` and gets the entity the first call made, with no second item and no second
 * event. The key's record (entities.CreateRequest) is put in the create's own transaction, only
 * if no live record has that key, so of many concurrent duplicates exactly one commits and the
 * others read what it made. createJob keeps its own record (entities.Idempotency), which also
 * derives a key from the job's inputs when the client gives none; a client's key there is held to
 * the same rule (requestFingerprint, keyReused).
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
}

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

/** Thrown by the record's condition when another request with the key committed first. */
class Duplicate extends Error {
  constructor(readonly record: Item) {
    super('duplicate');
  }
}

/**
 * Runs the create `run` once per key: `run` gets the write that records the key (or null without
 * a key) and must commit it in the same transaction as the entity. A request whose key has a live
 * record gets the entity that record names (NOT_FOUND when it was deleted since), or
 * IDEMPOTENCY_KEY_REUSED when its operation or arguments differ from the first request's.
 */
export async function idempotent<M extends AnyModel>(
  scope: Scope,
  model: M,
  request: IdempotentRequest | undefined,
  run: (remember: ((created: Item) => Write) | null) => Promise<ItemOf<M>>,
): Promise<ItemOf<M>> {
  if (request?.key == null) return run(null);
  const values = { key: sha256(`${scope.actor}\u0000${checkClientKey(request.key)}`) };
  const fingerprint = requestFingerprint(request.operation, request.input);

  const replay = async (record: Item): Promise<ItemOf<M>> => {
    if (!entities.CreateRequest.is(record)) throw new Error('An idempotency record of another type was read.');
    if (record.fingerprint !== fingerprint) throw keyReused(request.key);
    const item = await scope.store.get(record.target);
    if (!model.is(item)) throw notFound(model.type, `created with idempotencyKey "${request.key}"`);
    return item;
  };

  const earlier = await scope.store.get(entities.CreateRequest.keyOf(scope.tenantId, values));
  if (earlier) return replay(earlier);
  const now = scope.now();
  const nowSeconds = Math.floor(now.getTime() / 1000);
  try {
    return await run((created) =>
      entities.CreateRequest.put(scope.tenantId, {
        ...values,
        fingerprint,
        entity: model.type,
        target: { PK: created.PK, SK: created.SK },
        createdAt: now.toISOString(),
        expiresAt: nowSeconds + IDEMPOTENCY_WINDOW_HOURS * 3600,
      }).ifNewOrExpired(nowSeconds, (current) =>
        current
          ? new Duplicate(current)
          : new AppError(ErrorCode.CONFLICT, 'A request with this idempotencyKey is being processed; try again.'),
      ),
    );
  } catch (error) {
    if (error instanceof Duplicate) return replay(error.record);
    throw error;
  }
}

/** The `idempotencyKey` argument of every create mutation, as its resolvers declare it. */
export const idempotencyKeyArg = {
  nullable: true,
  description: `Makes a retry safe: the same key with the same arguments within ${IDEMPOTENCY_WINDOW_HOURS} hours returns what the first call created (no second entity, no second event); with other arguments it is refused with IDEMPOTENCY_KEY_REUSED. 1–128 letters, digits and _ . : -`,
};
