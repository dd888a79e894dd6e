import { GraphQLError, type GraphQLFormattedError } from 'graphql';
import { errorMessage, isRecord } from './guards';

/**
 * The stable error codes of the whole API. Clients switch on `extensions.code`; the message is
 * for people and may change.
 */
export enum ErrorCode {
  UNAUTHENTICATED = 'UNAUTHENTICATED',
  FORBIDDEN = 'FORBIDDEN',
  NOT_FOUND = 'NOT_FOUND',
  BAD_USER_INPUT = 'BAD_USER_INPUT',
  CONFLICT = 'CONFLICT',
  INVALID_TRANSITION = 'INVALID_TRANSITION',
  /**
   * A create's `idempotencyKey` was used before with other arguments (or for another operation):
   * the client reused a key for a different request. Not retryable with the same key.
   */
  IDEMPOTENCY_KEY_REUSED = 'IDEMPOTENCY_KEY_REUSED',
  /**
   * The job was cancelled: a claim, progress report or completion on any of its steps or items
   * is refused. The worker should stop and drop the work; retrying cannot succeed.
   */
  JOB_CANCELLED = 'JOB_CANCELLED',
  /**
   * A worker reported on a work item whose attempt ran past its stage's attempt timeout: its time
   * is up whatever it renewed, the next claim takes the item over as a new attempt, and the
   * report changed nothing. The worker should stop; retrying cannot succeed.
   */
  ATTEMPT_TIMED_OUT = 'ATTEMPT_TIMED_OUT',
  /**
   * A write to a busy stream (a project's activity, the tenant's job status changes) could not
   * get its position within the retry bound because writers on other instances kept taking it.
   * Nothing was written (`extensions.mayHaveCommitted` is false); the same request may be sent again.
   */
  CONTENDED = 'CONTENDED',
  /**
   * A dependency (DynamoDB, S3) did not answer in time or could not be reached. Retryable: the
   * HTTP response is 503 with Retry-After (see src/infra/dependency.ts `serviceUnavailable`).
   */
  SERVICE_UNAVAILABLE = 'SERVICE_UNAVAILABLE',
  /**
   * A subscription was sent as a plain HTTP request, which answers once and cannot carry its
   * events: it runs over WebSocket (graphql-ws) or as GraphQL over SSE. Nothing ran.
   */
  SUBSCRIPTION_NEEDS_STREAM = 'SUBSCRIPTION_NEEDS_STREAM',
  /**
   * The tenant (or the user, or its workers) used up a rate budget of its plan for this second:
   * nothing ran. HTTP 429 with Retry-After; `extensions.budget` names the budget and
   * `extensions.retryAfterSeconds` says when to send again.
   */
  RATE_LIMITED = 'RATE_LIMITED',
  /**
   * The write would take the tenant past a quota of its plan (projects, stored bytes, items per
   * job): nothing was written. `extensions.quota` names it, with `limit` and `requested`.
   */
  QUOTA_EXCEEDED = 'QUOTA_EXCEEDED',
  INTERNAL = 'INTERNAL',
}

/** Every code of ErrorCode, as text, to check a code read from an error against. */
const errorCodes: ReadonlySet<string> = new Set(Object.values(ErrorCode));

const httpStatus: Partial<Record<ErrorCode, number>> = {
  [ErrorCode.UNAUTHENTICATED]: 401,
  // A request error (nothing ran): 400, which status.ts's graphqlOverHttpStatus turns into 200
  // under application/json as it does for every request error.
  [ErrorCode.SUBSCRIPTION_NEEDS_STREAM]: 400,
};

/**
 * A client-facing error with a stable code. Anything thrown that is not an AppError (or one of
 * graphql-js's own validation errors) is an internal fault and is masked outside development.
 */
export class AppError extends GraphQLError {
  readonly code: ErrorCode;

  /**
   * An AppError is an answer to a client, not a fault, so it is made without a stack trace:
   * Error and graphql-js's GraphQLError (through Error.captureStackTrace) each walk the whole call
   * stack to capture one, which was about half of a refusal's cost (the decider refuses lost claim
   * races and stale attempts all the time; 45 % of the decisions' property test's CPU). V8 captures
   * no frames while `Error.stackTraceLimit` is 0 (Node documents it); the limit is restored before
   * anything else runs. An internal fault is any other error and keeps its stack.
   */
  constructor(code: ErrorCode, message: string, details: Record<string, unknown> = {}) {
    const status = httpStatus[code];
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    try {
      super(message, {
        extensions: { code, ...details, ...(status ? { http: { status } } : {}) },
      });
    } finally {
      Error.stackTraceLimit = limit;
    }
    this.code = code;
  }
}

export const unauthenticated = (message = 'A valid bearer token is required.') => new AppError(ErrorCode.UNAUTHENTICATED, message);

export const forbidden = (message: string) => new AppError(ErrorCode.FORBIDDEN, message);

export const notFound = (entity: string, id: string) => new AppError(ErrorCode.NOT_FOUND, `${entity} ${id} was not found.`, { entity, id });

export const badInput = (message: string, field?: string) => new AppError(ErrorCode.BAD_USER_INPUT, message, field ? { field } : {});

export const conflict = (entity: string, id: string, expected: number | undefined, current: number | undefined) =>
  new AppError(
    ErrorCode.CONFLICT,
    current === undefined
      ? `${entity} ${id} was changed by someone else; reload it and try again.`
      : `${entity} ${id} is at version ${current}, not the expected version ${expected}; reload it and try again.`,
    { entity, id, expectedVersion: expected ?? null, currentVersion: current ?? null },
  );

/**
 * INVALID_TRANSITION, naming from and to. With `detail`, the message says what the caller tried,
 * the state the entity is in, the states that action needs and what the caller can do instead
 * (a bare "cannot go from RUNNING to RUNNING" told a person approving a step nothing).
 */
export const invalidTransition = (
  entity: string,
  id: string,
  from: string,
  to: string,
  detail?: { action: string; allowed: readonly string[]; hint?: string },
) =>
  new AppError(
    ErrorCode.INVALID_TRANSITION,
    detail
      ? `Cannot ${detail.action} ${entity} ${id}: it is ${from}${detail.allowed.length ? `, and that needs it ${detail.allowed.join(' or ')}` : ''}.${detail.hint ? ` ${detail.hint}` : ''}`
      : `${entity} ${id} cannot go from ${from} to ${to}.`,
    { entity, id, from, to, ...(detail ? { allowed: [...detail.allowed] } : {}) },
  );

/**
 * RATE_LIMITED for a request refused by the rate budget `budget` (`points` a second), to be sent
 * again after `retryAfterSeconds`: HTTP 429 with that Retry-After on every transport that has a
 * status (WebSocket gets the error message, and the socket stays open).
 */
export const rateLimited = (budget: string, points: number, retryAfterSeconds: number) =>
  new AppError(
    ErrorCode.RATE_LIMITED,
    `Too many requests: the ${budget} budget of your plan allows ${points} a second. Send again in ${retryAfterSeconds} s.`,
    {
      budget,
      limit: points,
      retryAfterSeconds,
      http: { status: 429, headers: new Map([['retry-after', String(retryAfterSeconds)]]) },
    },
  );

/**
 * QUOTA_EXCEEDED: the write would take the tenant past its plan's `quota` (`limit`), asking for
 * `requested` more. Nothing was written.
 */
export const quotaExceeded = (quota: string, limit: number, requested: number) =>
  new AppError(
    ErrorCode.QUOTA_EXCEEDED,
    `This would pass your plan's ${quota} quota of ${limit}; nothing was written. Free some (delete what you no longer need) or ask the platform's operator for a larger plan.`,
    { quota, limit, requested },
  );

/**
 * SUBSCRIPTION_NEEDS_STREAM: a subscription reached a transport that answers once (an HTTP request
 * without `Accept: text/event-stream`). The message names the two ways that carry its events.
 */
export const subscriptionNeedsStream = () =>
  new AppError(
    ErrorCode.SUBSCRIPTION_NEEDS_STREAM,
    'A subscription cannot run as a plain HTTP request, which answers once: send it over WebSocket (graphql-ws, protocol graphql-transport-ws, to ws://<host>/graphql) or as GraphQL over SSE (GET or POST to /graphql with the header Accept: text/event-stream). Queries and mutations run over plain HTTP.',
  );

/**
 * INVALID_TRANSITION for a worker that names an attempt other than the one a step or item is at
 * (`what` is e.g. "Step render of job", `unit` "step"): an earlier attempt is over, so the
 * worker's work is stale; a later one (or one below 1) never existed, so the worker is confused.
 * The message says which, and which attempt is current: one that runs, or, with `waiting` (the
 * unit is PENDING after a failed attempt, in its backoff), one that waits to be claimed from
 * `waiting.availableAt`. The extensions are those of invalidTransition: `from` "at attempt
 * <current>", `to` "attempt <named>", `allowed`.
 */
export const wrongAttempt = (
  what: string,
  id: string,
  action: string,
  unit: 'step' | 'item',
  current: number,
  named: number,
  waiting?: { availableAt?: string },
) => {
  const now = waiting
    ? `, and the ${unit} waits, PENDING, for attempt ${current}${waiting.availableAt ? `, claimable from ${waiting.availableAt}` : ''}`
    : `, and the ${unit} was tried again: it is at attempt ${current} now`;
  return new AppError(
    ErrorCode.INVALID_TRANSITION,
    named >= 1 && named < current
      ? `Cannot ${action} ${what} ${id} as attempt ${named}: that attempt is over (it failed or its lease ran out)${now}. Drop the work of attempt ${named}.`
      : `Cannot ${action} ${what} ${id} as attempt ${named}: the ${unit} never had an attempt ${named}; it is at attempt ${current}. Name the attempt that claimWork or startStep gave you.`,
    { entity: what, id, from: `at attempt ${current}`, to: `attempt ${named}`, allowed: [`attempt ${current}`] },
  );
};

/**
 * ATTEMPT_TIMED_OUT for a worker reporting on an item whose attempt's time is up (its stage's
 * attemptTimeoutSeconds): the report changed nothing, and the next claim takes the item over.
 */
export const attemptTimedOut = (what: string, id: string, attempt: number, timedOutAt: string, limitSeconds: number | undefined) =>
  new AppError(
    ErrorCode.ATTEMPT_TIMED_OUT,
    `Cannot report on ${what} ${id} as attempt ${attempt}: the attempt's time ran out at ${timedOutAt}${limitSeconds ? ` (its stage allows ${limitSeconds} s an attempt, whatever its reports)` : ''}, and the next claim takes it over as a new attempt. Stop and drop the work of attempt ${attempt}.`,
    { entity: what, id, attempt, timedOutAt },
  );

/** Codes that graphql-js and Apollo put on request errors (parse, validation, variables). */
const passThroughCodes = new Set([
  'GRAPHQL_PARSE_FAILED',
  'GRAPHQL_VALIDATION_FAILED',
  'BAD_USER_INPUT',
  'PERSISTED_QUERY_NOT_FOUND',
  'PERSISTED_QUERY_NOT_SUPPORTED',
  'OPERATION_RESOLUTION_FAILURE',
  'BAD_REQUEST',
  'PERSISTED_QUERY_HASH_MISMATCH',
  'TRUSTED_DOCUMENT_REQUIRED',
]);

/**
 * Apollo's request errors that carry an HTTP 4xx status but no code: the automatic persisted
 * queries' checks. They are the client's mistakes, so they get codes of their own instead of
 * INTERNAL (by their message, which is all that tells them apart).
 */
const codeOfUncodedRequestError: Record<string, string> = {
  'provided sha does not match query': 'PERSISTED_QUERY_HASH_MISMATCH',
  'Unsupported persisted query version': 'PERSISTED_QUERY_NOT_SUPPORTED',
};

/** The HTTP status Apollo put on a request error (`extensions.http.status`), if any. */
function httpStatusOf(error: unknown): number | undefined {
  const extensions = isRecord(error) ? error.extensions : undefined;
  const http = isRecord(extensions) ? extensions.http : undefined;
  return isRecord(http) && typeof http.status === 'number' ? http.status : undefined;
}

/**
 * graphql-js's refusal of a document over the token limit ("Syntax Error: Document contains more
 * that 1000 tokens. Parsing aborted.") said neither that a limit of ours refused it nor what to
 * do. It is said here as the other query limits say theirs (documents.ts): the limit's name and
 * setting, `limit: 'tokens'` and `max` beside the code, and what the client can do.
 */
function withTokenLimitNamed(formatted: GraphQLFormattedError): GraphQLFormattedError {
  const max = /Document contains more tha[nt] (\d+) tokens/.exec(formatted.message)?.[1];
  if (formatted.extensions?.code !== 'GRAPHQL_PARSE_FAILED' || max === undefined) return formatted;
  return {
    ...formatted,
    message: `The document has more than ${max} tokens, the limit (MAX_TOKENS): every name, brace, alias and value counts. Send fewer fields or aliases, or split the query.`,
    extensions: { ...formatted.extensions, limit: 'tokens', max: Number(max) },
  };
}

/**
 * Shapes every error that leaves the server. Known codes pass through; anything else becomes
 * INTERNAL, and outside development its message is replaced, so no internal detail (a DynamoDB
 * message, a stack) reaches a client.
 */
export function formatError(development: boolean) {
  return (formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError => {
    const code = formatted.extensions?.code;
    const known = typeof code === 'string' && (errorCodes.has(code) || passThroughCodes.has(code));
    if (known) {
      const named = withTokenLimitNamed(formatted);
      if (development) return named;
      const { stacktrace: _stack, ...extensions } = named.extensions ?? {};
      return { ...named, extensions };
    }
    const status = httpStatusOf(error);
    // (Apollo has already filled in INTERNAL_SERVER_ERROR for an error without a code.)
    if ((code === undefined || code === 'INTERNAL_SERVER_ERROR') && status !== undefined && status >= 400 && status < 500) {
      const { stacktrace: _stack, ...extensions } = formatted.extensions ?? {};
      return { ...formatted, extensions: { ...extensions, code: codeOfUncodedRequestError[formatted.message] ?? 'BAD_REQUEST' } };
    }
    if (development) {
      return { ...formatted, extensions: { ...formatted.extensions, code: ErrorCode.INTERNAL } };
    }
    return {
      message: 'Internal server error.',
      locations: formatted.locations,
      path: formatted.path,
      extensions: { code: ErrorCode.INTERNAL },
    };
  };
}

/**
 * `error` as a GraphQLError for formatting: a GraphQLError stands (its code decides what the
 * client sees); anything else is wrapped, and formatError masks it as INTERNAL.
 */
export function asGraphQLError(error: unknown): GraphQLError {
  if (error instanceof GraphQLError) return error;
  return new GraphQLError(errorMessage(error), { originalError: error instanceof Error ? error : undefined });
}
