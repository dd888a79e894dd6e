import { monotonicFactory } from 'ulid';
import { badInput } from '../errors';
import type { IdPrefix } from './entities';

const ulid = monotonicFactory();

/** The id prefixes of the entities the server creates (see entities.ts); ids are `<prefix>_<ULID>`. */
export type { IdPrefix };

/** A new id that sorts after every id made before it in this process (ULIDs are time-ordered). */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${ulid()}`;
}

/** A bare ULID, for event sort keys. */
export function newUlid(): string {
  return ulid();
}

const ULID = '[0-9A-HJKMNP-TV-Z]{26}';
const patterns = new Map<string, RegExp>();

/**
 * Returns the id when it has the shape the server hands out, and throws BAD_USER_INPUT otherwise.
 * Checking the shape keeps arbitrary text (a `#` above all) out of the sort keys built from ids.
 * `prefix` is an entity's declared id prefix (a declared reference's `ref` is checked to be one).
 */
export function assertId(value: string, prefix: IdPrefix | (string & {}), field: string): string {
  let pattern = patterns.get(prefix);
  if (!pattern) patterns.set(prefix, (pattern = new RegExp(`^${prefix}_${ULID}$`)));
  if (!pattern.test(value)) throw badInput(`${field} must be an id of the form ${prefix}_<ULID>, got "${value}".`, field);
  return value;
}

// A tenant id is the token's (src/auth/principal.ts says its shape), checked here beside the other ids.
export { isValidTenantId } from '../auth/principal';
