import { AppError, ErrorCode } from '../errors';

/**
 * Bounds on one JSON-scalar input value (a `JSON` or `JSONObject` argument or input field such as
 * `customFields`, `metrics` or `exif`).
 */
export interface JsonLimits {
  /** Most levels of objects and arrays; `{}` is one level, `{"a": []}` two. */
  maxDepth: number;
  /** Most bytes of the value written as compact JSON (UTF-8). */
  maxBytes: number;
  /**
   * Refuse what the table cannot store as it is: numbers out of its range (see storableNumber) and
   * field names it refuses or the AWS SDK's marshaller misreads (UNSTORABLE_KEYS). Set for every
   * value that is stored.
   */
  storable?: boolean;
}

/**
 * The limits every JSON-scalar input meets. DynamoDB refuses items nested deeper than 32 levels,
 * and the item that stores a value (and the event that may copy it) adds levels of its own, so 16
 * leaves ample room. 32,000 bytes keeps an item, its event and the rest of a transaction well
 * under DynamoDB's 400 KB item limit.
 */
export const JSON_INPUT_LIMITS: Readonly<JsonLimits> = Object.freeze({ maxDepth: 16, maxBytes: 32_000, storable: true });

/**
 * The smallest magnitude of a number other than 0 that DynamoDB stores (its documented range is
 * 1E-130 to 9.9999999999999999999999999999999999999E+125); a smaller one fails the write ("Number
 * underflow").
 */
const MIN_STORED_MAGNITUDE = 1e-130;

/**
 * True when the table stores `value` as it is: within ±Number.MAX_SAFE_INTEGER, since the AWS
 * SDK's marshaller refuses a larger number unless told to store it imprecisely (its documented
 * `allowImpreciseNumbers`, not set), and 0 or at least MIN_STORED_MAGNITUDE in size.
 */
export function storableNumber(value: number): boolean {
  const size = Math.abs(value);
  return Number.isFinite(value) && size <= Number.MAX_SAFE_INTEGER && (size === 0 || size >= MIN_STORED_MAGNITUDE);
}

/**
 * Field names a stored JSON object may not have: DynamoDB refuses an empty attribute name, and the
 * AWS SDK's marshaller tells a plain object by its `constructor`, so an own field of that name (or
 * `__proto__`, which JSON.parse makes an own field) makes it refuse or mangle the whole value.
 */
const UNSTORABLE_KEYS: ReadonlySet<string> = new Set(['', 'constructor', '__proto__']);

/**
 * How deep a whole `variables` object may be. No valid request comes near it (an input object
 * holding a JSON value of JSON_INPUT_LIMITS.maxDepth levels is under 20), so anything deeper is
 * refused before graphql-js, a resolver or a logger walks it.
 */
export const VARIABLES_MAX_DEPTH = 64;

export type JsonLimitViolation =
  | { reason: 'JSON_TOO_DEEP'; limit: number }
  | { reason: 'JSON_TOO_LARGE'; limit: number }
  | { reason: 'NUMBER_OUT_OF_RANGE'; value: number }
  | { reason: 'JSON_KEY_NOT_STORABLE'; key: string };

/** Bytes that JSON.stringify writes for a primitive (or nothing, for what it skips). */
function primitiveBytes(value: unknown): number {
  switch (typeof value) {
    case 'string':
      // Stringifying one string does not recurse; it accounts for quotes and escapes exactly.
      return Buffer.byteLength(JSON.stringify(value));
    case 'number':
      return Number.isFinite(value) ? String(value).length : 4; // NaN and Infinity are written as null.
    case 'boolean':
      return value ? 4 : 5;
    case 'bigint':
      return String(value).length;
    default:
      return 4; // null, and anything JSON has no word for, counted as null.
  }
}

/**
 * Checks a JSON value against `limits` without recursion, so a value nested 100,000 levels deep
 * costs a loop, not the call stack. It stops at the first limit crossed, so it reads at most about
 * `maxBytes` worth of the value. Returns the violation, or null when the value is within limits.
 * Pure: it neither throws nor changes the value. A cyclic value is reported as too deep.
 */
export function checkJsonInput(value: unknown, limits: Partial<JsonLimits>): JsonLimitViolation | null {
  const maxDepth = limits.maxDepth ?? Number.POSITIVE_INFINITY;
  const maxBytes = limits.maxBytes ?? Number.POSITIVE_INFINITY;
  let bytes = 0;
  // Each entry is a value still to be read and how many containers enclose it.
  const pending: Array<{ value: unknown; depth: number }> = [{ value, depth: 0 }];
  while (pending.length > 0) {
    const { value: current, depth } = pending.pop()!;
    if (current === null || typeof current !== 'object') {
      if (limits.storable && typeof current === 'number' && !storableNumber(current))
        return { reason: 'NUMBER_OUT_OF_RANGE', value: current };
      bytes += primitiveBytes(current);
      if (bytes > maxBytes) return { reason: 'JSON_TOO_LARGE', limit: maxBytes };
      continue;
    }
    if (depth + 1 > maxDepth) return { reason: 'JSON_TOO_DEEP', limit: maxDepth };
    if (Array.isArray(current)) {
      // Brackets, and a comma between entries; checked before the entries are queued, so one
      // huge array is refused without walking it.
      bytes += 2 + Math.max(0, current.length - 1);
      if (bytes > maxBytes) return { reason: 'JSON_TOO_LARGE', limit: maxBytes };
      for (const entry of current) pending.push({ value: entry, depth: depth + 1 });
      continue;
    }
    let fields = 0;
    for (const [key, child] of Object.entries(current)) {
      // JSON.stringify leaves out fields it cannot write.
      if (child === undefined || typeof child === 'function' || typeof child === 'symbol') continue;
      if (limits.storable && UNSTORABLE_KEYS.has(key)) return { reason: 'JSON_KEY_NOT_STORABLE', key };
      // The quoted key and its colon, and the comma before every field but the first.
      bytes += Buffer.byteLength(JSON.stringify(key)) + 1 + (fields > 0 ? 1 : 0);
      if (bytes > maxBytes) return { reason: 'JSON_TOO_LARGE', limit: maxBytes };
      fields++;
      pending.push({ value: child, depth: depth + 1 });
    }
    // The braces.
    bytes += 2;
    if (bytes > maxBytes) return { reason: 'JSON_TOO_LARGE', limit: maxBytes };
  }
  return null;
}

/**
 * Checks every variable of a request for absurd nesting (more than `maxDepth` levels), without
 * recursion. Returns the first offending variable's name and the violation, or null. Transports
 * call it on the raw `variables` before execution (see jsonVariablesError).
 */
export function checkVariables(
  variables: Record<string, unknown> | null | undefined,
  maxDepth = VARIABLES_MAX_DEPTH,
): { variable: string; violation: JsonLimitViolation } | null {
  if (!variables || typeof variables !== 'object') return null;
  for (const [variable, value] of Object.entries(variables)) {
    const violation = checkJsonInput(value, { maxDepth });
    if (violation) return { variable, violation };
  }
  return null;
}

function describe(violation: JsonLimitViolation): string {
  switch (violation.reason) {
    case 'JSON_TOO_DEEP':
      return `is nested more than ${violation.limit} levels deep; at most ${violation.limit} levels are allowed`;
    case 'JSON_TOO_LARGE':
      return `is larger than ${violation.limit} bytes of JSON; at most ${violation.limit} bytes are allowed`;
    case 'JSON_KEY_NOT_STORABLE':
      return `holds a field named ${JSON.stringify(violation.key)}, which cannot be stored: name it otherwise (an empty name, constructor and __proto__ are refused)`;
    default:
      return `holds the number ${violation.value}, which cannot be stored: numbers must lie between -${Number.MAX_SAFE_INTEGER} and ${Number.MAX_SAFE_INTEGER}, and be 0 or at least ${MIN_STORED_MAGNITUDE} in size (send a larger or smaller one as text)`;
  }
}

/** What a violation adds to its error's extensions beside its reason: the limit crossed, or the number refused. */
const detailOf = (violation: JsonLimitViolation) =>
  'limit' in violation ? { limit: violation.limit } : 'key' in violation ? { key: violation.key } : { value: violation.value };

/**
 * BAD_USER_INPUT for a JSON-scalar argument or input field over its limits, or holding a number
 * the table cannot store: the message names the field and the limit (or the number),
 * `extensions.field` the field and `extensions.reason` which limit.
 */
export function jsonInputError(field: string, violation: JsonLimitViolation): AppError {
  return new AppError(ErrorCode.BAD_USER_INPUT, `${field} ${describe(violation)}.`, {
    field,
    reason: violation.reason,
    ...detailOf(violation),
  });
}

/**
 * BAD_USER_INPUT for a request whose variable is nested absurdly deep (see checkVariables): the
 * message names the variable and the limit, `extensions.variable` the variable.
 */
export function jsonVariablesError(variable: string, violation: JsonLimitViolation): AppError {
  return new AppError(ErrorCode.BAD_USER_INPUT, `Variable "$${variable}" ${describe(violation)}.`, {
    variable,
    reason: violation.reason,
    ...detailOf(violation),
  });
}
