import { badInput } from '../errors';
import { checkJsonInput, JSON_INPUT_LIMITS, jsonInputError, type JsonLimits } from './json-limits';

/** Returns the trimmed text, or throws BAD_USER_INPUT when it is empty or longer than `max`. */
export function requireText(value: string, field: string, max = 200): string {
  const text = value.trim();
  if (text === '') throw badInput(`${field} must not be empty.`, field);
  if (text.length > max) throw badInput(`${field} must be at most ${max} characters, got ${text.length}.`, field);
  return text;
}

/** Like requireText for optional fields: null and undefined pass through unchanged. */
export function optionalText(value: string | null | undefined, field: string, max = 2000): string | null | undefined {
  return value == null ? value : requireText(value, field, max);
}

/** Throws BAD_USER_INPUT unless the list has at most `max` entries. */
export function maxItems<T>(list: T[] | null | undefined, field: string, max: number): T[] | null | undefined {
  if (list && list.length > max) throw badInput(`${field} may hold at most ${max} entries, got ${list.length}.`, field);
  return list;
}

/** `value` when it is a whole number from `min` (to `max`, if any); else BAD_USER_INPUT naming `field` and the range. */
export function intInRange(value: number, field: string, min: number, max?: number): number {
  if (Number.isInteger(value) && value >= min && (max === undefined || value <= max)) return value;
  throw badInput(`${field} must be a whole number ${max === undefined ? `of at least ${min}` : `from ${min} to ${max}`}.`, field);
}

/** Throws BAD_USER_INPUT unless the number is a whole number at least 0. */
export function nonNegativeInt(value: number | null | undefined, field: string): number | null | undefined {
  return value == null ? value : intInRange(value, field, 0);
}

/**
 * Returns a JSON-scalar input unchanged, or throws BAD_USER_INPUT naming `field` and the limit when
 * it is nested deeper or written larger than JSON_INPUT_LIMITS allows (DynamoDB refuses items
 * nested past 32 levels or larger than 400 KB). The check walks the value without recursion, so
 * even a value nested thousands of levels deep is refused before anything reaches DynamoDB.
 */
export function boundedJson<T>(value: T, field: string, limits: JsonLimits = JSON_INPUT_LIMITS): T {
  const violation = value == null ? null : checkJsonInput(value, limits);
  if (violation) throw jsonInputError(field, violation);
  return value;
}

/**
 * Applies a patch: a field set to a value replaces it, a field set to null removes it, and an
 * absent field is left alone. Patches come from a client's input checked against the entity's
 * declaration (see repository.ts), so the fields are known only at run time.
 */
export function applyPatch<T extends Record<string, unknown>>(current: T, patch: object): T {
  const next: T = { ...current };
  for (const [field, value] of Object.entries(patch)) {
    if (value === undefined) continue;
    // A patch names fields at run time, so it writes through Reflect rather than T's known keys.
    if (value === null) Reflect.deleteProperty(next, field);
    else Reflect.set(next, field, value);
  }
  return next;
}

/**
 * True when `value` is an object whose every field named in `types` holds a value of that
 * `typeof`: how a payload from the bus or a stored item is recognized before it is sent on.
 */
export function hasFields(value: unknown, types: Record<string, 'string' | 'number'>): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  return Object.entries(types).every(([field, type]) => typeof Reflect.get(value, field) === type);
}
