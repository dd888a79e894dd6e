/*
 * Checks that narrow a value of unknown type (a caught error, parsed JSON, a library's `any`) by
 * looking at it, so the code that reads it needs no type assertion. Errors are read by their
 * properties rather than with `instanceof Error`: an error raised in another realm (Node's core
 * under jest's VM context, see infra/dependency.ts) is no instance of this realm's Error.
 */

/**
 * True for any object that is not null, arrays included: each of its properties can then be
 * read, as `unknown`, and checked in turn.
 */
export function isRecord(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null;
}

/** True for a JSON object: a record that is not an array. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return isRecord(value) && !Array.isArray(value);
}

/**
 * True for an object that is not null and not an array: a JSON object, such as a GraphQL request
 * body, whose properties the caller may read and change.
 */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The parsed body a body parser left on a request (`req.body`), if any. */
export function parsedBody(req: object): unknown {
  return 'body' in req ? req.body : undefined;
}

/** The `message` of a thrown value when it has one, or the value itself as text. */
export function errorMessage(error: unknown): string {
  return isRecord(error) && typeof error.message === 'string' ? error.message : String(error);
}

/** The `name` of a thrown value (an AWS SDK error's name is its exception type), if it has one. */
export function errorName(error: unknown): string | undefined {
  return isRecord(error) && typeof error.name === 'string' ? error.name : undefined;
}

/** The `code` of a thrown value (Node's system errors: EEXIST, EADDRINUSE …; jose's ERR_JWT_…), if it has one. */
export function errorCode(error: unknown): string | undefined {
  return isRecord(error) && typeof error.code === 'string' ? error.code : undefined;
}

/** The HTTP status an AWS SDK error carries in `$metadata.httpStatusCode`, if any. */
export function httpStatusCodeOf(error: unknown): number | undefined {
  const metadata = isRecord(error) ? error.$metadata : undefined;
  return isRecord(metadata) && typeof metadata.httpStatusCode === 'number' ? metadata.httpStatusCode : undefined;
}
