import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { unwrapResolverError } from '@apollo/server/errors';
import type { GraphQLError, GraphQLFormattedError, OperationDefinitionNode, OperationTypeNode } from 'graphql';
import { ErrorCode, formatError } from '../errors';
import type { Metrics } from '../infra/metrics';
import { logger } from '../logger';

/**
 * What the server keeps about one GraphQL request while it runs, for its log line and its errors.
 * Nothing in it comes from the caller except the request id, which is checked first.
 */
export interface RequestRecord {
  requestId: string;
  /** performance.now() when the request arrived. */
  startedAt: number;
  operationType?: OperationTypeNode;
  /** The operation's name as written in the (parsed) document, capped at OPERATION_NAME_MAX. */
  operationName?: string;
  /** The first error's code; the request is OK when no error was sent. */
  outcome?: string;
  /** True once the operation passed validation; only then are its type and name metric labels. */
  validated?: boolean;
}

/** The request-id header, read from the request and echoed on the response. */
export const REQUEST_ID_HEADER = 'x-request-id';
/** A caller's request id is used only when it is this short and made of SAFE_ID characters. */
export const REQUEST_ID_MAX = 128;
const SAFE_ID = /^[A-Za-z0-9._:/+=-]+$/;
/**
 * Request ids the demo's pipeline simulator sends (see simulator.ts). Outside production their
 * log lines are written at debug, not info: the simulator makes a few requests a second, which
 * would push the start-up banner, and everything a person's own requests log, off the screen.
 */
export const SIMULATOR_REQUEST_ID_PREFIX = 'demo-simulator:';
/** Operation names are logged (and later used as metric labels) at most this long. */
export const OPERATION_NAME_MAX = 64;

/**
 * The request id to use: the caller's `x-request-id` when it is a single value of at most
 * REQUEST_ID_MAX safe characters (so a log line or header cannot be forged or bloated through
 * it), else a new random UUID.
 */
export function requestIdFrom(header: unknown): string {
  if (typeof header === 'string' && header.length <= REQUEST_ID_MAX && SAFE_ID.test(header)) return header;
  return newRequestId();
}

/**
 * A new random request id (a UUID), stored as one flat string. Node's randomUUID builds its
 * string from 16 pieces, and V8 keeps such a string as the tree of its pieces: about 490 bytes
 * instead of about 60 for as long as the id is kept, which for a subscription's record is its
 * whole life (measured in bench/subscription-heap.ts). Copying it through a buffer stores it flat.
 */
export function newRequestId(): string {
  return Buffer.from(randomUUID(), 'latin1').toString('latin1');
}

/** Starts the record of a request whose id is `requestId` (see requestIdFrom). */
export function beginRequest(requestId: string): RequestRecord {
  // Every field from the start: fields added later go to a second block of their own (about 40
  // bytes), which a subscription's record holds for the subscription's life.
  return {
    requestId,
    startedAt: performance.now(),
    operationType: undefined,
    operationName: undefined,
    outcome: undefined,
    validated: undefined,
  };
}

const current = new AsyncLocalStorage<RequestRecord>();

/** Runs `fn` with `record` as the current request, so errors formatted inside carry its id. */
export function runInRequest<T>(record: RequestRecord, fn: () => T): T {
  return current.run(record, fn);
}

/** The request being served in this async context, if any. */
export function currentRequest(): RequestRecord | undefined {
  return current.getStore();
}

/** Notes the operation a request resolved to; its name is capped so a log line stays bounded. */
export function noteOperation(
  record: RequestRecord,
  type: OperationTypeNode | undefined,
  name: string | null | undefined,
  validated = false,
): void {
  record.validated = validated;
  record.operationType = type;
  record.operationName = name ? name.slice(0, OPERATION_NAME_MAX) : undefined;
}

/**
 * Wraps a formatError function: every error leaving the server in the current request gets
 * `extensions.requestId`, and the first error's code becomes the request's outcome. Outside a
 * request (no current record) errors pass through unchanged.
 */
export function withRequestId(
  format: (formatted: GraphQLFormattedError, error: unknown) => GraphQLFormattedError,
): (formatted: GraphQLFormattedError, error: unknown) => GraphQLFormattedError {
  return (formatted, error) => {
    const result = format(formatted, error);
    const record = currentRequest();
    // The client is told only INTERNAL (outside development, not even the message): the cause is
    // the operators' to see, so it is logged here, once for every transport, with its stack.
    if (result.extensions?.code === ErrorCode.INTERNAL)
      logger.error(
        { err: unwrapResolverError(error), requestId: record?.requestId, path: formatted.path },
        'graphql operation failed unexpectedly (INTERNAL)',
      );
    if (!record) return result;
    const code = result.extensions?.code;
    record.outcome ??= typeof code === 'string' ? code : 'INTERNAL';
    return { ...result, extensions: { ...result.extensions, requestId: record.requestId } };
  };
}

/**
 * Writes the request's one log line at info (or `level`): id, operation type and name, duration,
 * outcome (OK or the first error code) and, for HTTP, the status. Variables, the query text and
 * any other caller-supplied text are never part of it.
 */
export function logRequest(record: RequestRecord, status?: number, level: 'info' | 'debug' = 'info'): void {
  logger[level](
    {
      requestId: record.requestId,
      operationType: record.operationType ?? null,
      operationName: record.operationName ?? null,
      durationMs: Math.round((performance.now() - record.startedAt) * 10) / 10,
      outcome: record.outcome ?? 'OK',
      ...(status === undefined ? {} : { status }),
    },
    'graphql request',
  );
}

/**
 * The records and errors part of the operation pipeline, used by every transport: one record per
 * operation, ended by one log line and (for queries and mutations) one metrics sample, and every
 * error leaving the server formatted once: known codes pass, anything else is masked as INTERNAL,
 * each carries its request's id, and no stack trace leaves outside development.
 */
export class OperationRecords {
  /** Apollo's formatError for HTTP; `formatErrors` for the transports that format errors themselves. */
  readonly formatError: (formatted: GraphQLFormattedError, error: unknown) => GraphQLFormattedError;

  constructor(
    private readonly env: string,
    private readonly metrics?: Pick<Metrics, 'recordOperation'>,
  ) {
    this.formatError = withRequestId(formatError(env !== 'production'));
  }

  /** Starts the record of one operation; `requestId` as requestIdFrom gave it. */
  begin(requestId: string): RequestRecord {
    return beginRequest(requestId);
  }

  /** Notes which validated operation a record runs (its type and name, for the log and metrics). */
  note(record: RequestRecord, operation: OperationDefinitionNode): void {
    noteOperation(record, operation.operation, operation.name?.value, true);
  }

  /**
   * Ends an operation's record: one log line, and one metrics sample for queries and mutations
   * (a subscription's length is not an operation's latency; the gauges count subscriptions).
   */
  finish(record: RequestRecord, status?: number): void {
    const simulator = this.env !== 'production' && record.requestId.startsWith(SIMULATOR_REQUEST_ID_PREFIX);
    logRequest(record, status, simulator ? 'debug' : 'info');
    if (record.operationType === 'subscription') return;
    // Operations that did not validate are counted as `unknown`: their names are the caller's text.
    const named = record.validated === true;
    this.metrics?.recordOperation({
      type: named ? record.operationType : undefined,
      name: named ? record.operationName : undefined,
      code: record.outcome,
      seconds: (performance.now() - record.startedAt) / 1000,
    });
  }

  /** Formats errors leaving the server in `record`'s operation; HTTP status hints are dropped (a socket has none). */
  formatErrors(record: RequestRecord, errors: readonly GraphQLError[]): GraphQLFormattedError[] {
    return runInRequest(record, () => errors.map((e) => this.formatError(e.toJSON(), e))).map(
      ({ extensions: { http: _http, ...extensions } = {}, ...error }) => ({
        ...error,
        extensions,
      }),
    );
  }
}
