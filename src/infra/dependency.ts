import { AppError, ErrorCode } from '../errors';
import { errorCode, errorName, httpStatusCodeOf, isRecord } from '../guards';
import type { CallOutcome, Dependency, Metrics } from './metrics';
import type { OutageLog } from './outage';

/** Seconds a client is told to wait (Retry-After) before retrying a SERVICE_UNAVAILABLE request. */
export const RETRY_AFTER_SECONDS = 5;

const THROTTLING = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'Throttling',
  'RequestLimitExceeded',
  'SlowDown',
  'TooManyRequestsException',
  'LimitExceededException',
]);
const CONDITIONAL = new Set(['ConditionalCheckFailedException', 'TransactionCanceledException']);
const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ECONNABORTED',
]);

/** Outcomes that mean the dependency is unavailable (not that the request was wrong). */
const OUTAGE: ReadonlySet<CallOutcome> = new Set<CallOutcome>(['throttled', 'timeout', 'deadline', 'unreachable', 'server_error']);

/**
 * The Node error code of `error`. The SDK's retry middleware replaces an error that is not an
 * `Error` of its own realm (a socket error raised by Node's core while the SDK runs inside a VM
 * context, as under jest) with `new Error("AWS SDK error wrapper for <the error as text>")`, which
 * loses `code`; the code is then read back from that text.
 */
function nodeCode(error: unknown): string | undefined {
  const code = errorCode(error);
  if (code) return code;
  const message = isRecord(error) && typeof error.message === 'string' ? error.message : '';
  const wrapped = /^AWS SDK error wrapper for .*?\b(E[A-Z]{3,})\b/.exec(message);
  return wrapped?.[1];
}

const NAMES: Record<Dependency, string> = { dynamodb: 'database', s3: 'file store', redis: 'event bus', postgres: 'database' };

/** The error serviceUnavailable makes; its dependency, outcome and cause are for the server's own use. */
class ServiceUnavailableError extends AppError {
  // Declared only: the constructor defines them as hidden (non-enumerable) properties.
  declare readonly dependency: Dependency;
  declare readonly outcome: CallOutcome;

  constructor(dependency: Dependency, outcome: CallOutcome, cause: unknown) {
    super(ErrorCode.SERVICE_UNAVAILABLE, `The ${NAMES[dependency]} is unavailable right now; retry in a few seconds.`, {
      retryAfterSeconds: RETRY_AFTER_SECONDS,
      // Apollo moves `http` into the response (status and headers) and strips it from the body.
      http: { status: 503, headers: new Map([['retry-after', String(RETRY_AFTER_SECONDS)]]) },
    });
    // Hidden properties, for the server's own use only.
    Object.defineProperties(this, {
      cause: { value: cause, enumerable: false },
      dependency: { value: dependency, enumerable: false },
      outcome: { value: outcome, enumerable: false },
    });
  }
}

/**
 * True for DynamoDB's answer to a transaction that a partition's throughput refused: a
 * TransactionCanceledException whose reasons name ThrottlingError and no failed condition. The
 * SDK does not count it as throttling (its retry strategy knows it by name only), so it arrives
 * here unretried; it is an outage of capacity, not a conflict or a failed condition.
 */
export function throttledCancellation(error: unknown): boolean {
  if (errorName(error) !== 'TransactionCanceledException' || !isRecord(error)) return false;
  const reasons = Array.isArray(error.CancellationReasons) ? error.CancellationReasons : [];
  const codes = reasons.map((reason) => (isRecord(reason) ? reason.Code : undefined));
  return codes.includes('ThrottlingError') && !codes.includes('ConditionalCheckFailed');
}

/**
 * What an AWS SDK error means, as a bounded label. Timeouts are the handler's TimeoutError (a
 * connect, request or socket timeout) or ETIMEDOUT; `deadline` is the request budget's abort (see
 * deadline.ts); network failures are Node's socket error codes.
 */
export function classify(error: unknown): CallOutcome {
  if (error instanceof ServiceUnavailableError) return error.outcome;
  if (isServiceUnavailable(error)) return 'unreachable';
  const status = httpStatusCodeOf(error);
  const name = errorName(error) ?? '';
  if (name === 'AbortError') return 'deadline';
  const code = nodeCode(error);
  if (name === 'TimeoutError' || code === 'ETIMEDOUT') return 'timeout';
  if (code && UNREACHABLE.has(code)) return 'unreachable';
  if (THROTTLING.has(name) || status === 429 || throttledCancellation(error)) return 'throttled';
  if (CONDITIONAL.has(name)) return 'conditional_failed';
  if (status === 404) return 'not_found';
  if (status !== undefined && status >= 500) return 'server_error';
  // A 4xx answer, or an error raised before sending (marshalling, credentials): not an outage.
  return 'error';
}

export const isOutage = (outcome: CallOutcome) => OUTAGE.has(outcome);

/**
 * The client-facing error for a dependency outage: code SERVICE_UNAVAILABLE, HTTP 503 with
 * Retry-After. Its message names no endpoint, host or internal detail; the SDK's error stays on
 * `cause` for the server's own use.
 */
export function serviceUnavailable(dependency: Dependency, outcome: CallOutcome, cause?: unknown): AppError {
  return new ServiceUnavailableError(dependency, outcome, cause);
}

/** True for the error a dependency outage produces (see serviceUnavailable). */
export function isServiceUnavailable(error: unknown): boolean {
  return error instanceof AppError && error.code === ErrorCode.SERVICE_UNAVAILABLE;
}

export interface InstrumentOptions {
  dependency: Dependency;
  metrics?: Metrics;
  outage?: OutageLog;
}

/** The part of an SDK client's `middlewareStack` used here (any client's stack fits). */
interface MiddlewareStackLike {
  // biome-ignore lint/suspicious/noExplicitAny: the SDK's middleware types differ per client; both clients' stacks accept this shape.
  add(middleware: any, options: { step: any; priority: 'high'; name: string; override: boolean }): void;
}
type Middleware = (next: (args: unknown) => Promise<unknown>, context: { commandName?: string }) => (args: unknown) => Promise<unknown>;

const commandLabel = (name: unknown) => String(name ?? 'unknown').replace(/Command$/, '');

/**
 * Adds two middlewares to an SDK client's stack:
 *   - around the whole call (initialize step, outermost, so retries are inside it): its latency
 *     and outcome go to metrics, failures to the outage log, and an outage error (timeout, abort by
 *     the request budget, network failure, 5xx, throttling the retries did not outlast) is
 *     replaced by SERVICE_UNAVAILABLE. Every other error is rethrown as it is, so callers still
 *     see ConditionalCheckFailedException, TransactionCanceledException, NotFound and the like.
 *   - around each attempt (deserialize step, which the SDK runs once per HTTP request sent):
 *     throttled attempts are counted, including those a retry then outlasted.
 */
export function instrumentClient(stack: MiddlewareStackLike, options: InstrumentOptions): void {
  const { dependency, metrics, outage } = options;
  const wholeCall: Middleware = (next, context) => async (args) => {
    const command = commandLabel(context.commandName);
    const started = performance.now();
    try {
      const result = await next(args);
      metrics?.recordCall(dependency, command, (performance.now() - started) / 1000, 'ok');
      outage?.success(dependency);
      return result;
    } catch (error) {
      const outcome = classify(error);
      metrics?.recordCall(dependency, command, (performance.now() - started) / 1000, outcome);
      if (!isOutage(outcome)) {
        // The dependency answered: a condition failed, or the request was wrong. Not an outage.
        outage?.success(dependency);
        throw error;
      }
      outage?.failure(dependency, outcome);
      throw serviceUnavailable(dependency, outcome, error);
    }
  };
  const eachAttempt: Middleware = (next, context) => async (args) => {
    try {
      return await next(args);
    } catch (error) {
      if (classify(error) === 'throttled') metrics?.recordThrottle(dependency, commandLabel(context.commandName));
      throw error;
    }
  };
  stack.add(wholeCall, { step: 'initialize', priority: 'high', name: `${dependency}Instrumentation`, override: true });
  stack.add(eachAttempt, { step: 'deserialize', priority: 'high', name: `${dependency}AttemptInstrumentation`, override: true });
}

/**
 * The explicit transport settings of an SDK client (@smithy/node-http-handler). Read from its
 * source, v4.14:
 *   - `connectionTimeout`: from the request's start until its socket connects (a reused keep-alive
 *     socket is already connected); then the request is destroyed with a TimeoutError.
 *   - `requestTimeout`: from the request's start until the response's headers arrive. Without
 *     `throwOnRequestTimeout: true` passing it only logs a warning and the request goes on (the
 *     cause of requests hanging while DynamoDB was frozen); with it, the request is destroyed
 *     with a TimeoutError, which the retry strategy treats as transient. A per-call
 *     `requestTimeout` (see deadline.ts) replaces it for that call.
 *   - `socketTimeout`: socket inactivity, which also bounds a response body that stops arriving
 *     after its headers (requestTimeout no longer runs then).
 *   - the agent's `maxSockets` (50 by default): a request beyond it waits for a free socket, and
 *     that wait counts against `connectionTimeout`. A burst of more calls than sockets to a
 *     service answering in over a second then failed the queued calls as connect timeouts (and
 *     drained the retry quota) though nothing was wrong with connecting: 36 of 120 concurrent
 *     GetItems to a DynamoDB answering in 1.5 s (test/e2e/read-failures.test.ts). So the pool is
 *     unbounded: calls are bounded by the requests and connections the server admits and each by
 *     its budget, and idle keep-alive sockets are closed by the service.
 */
export function transportOptions(requestTimeoutMs: number, connectTimeoutMs: number) {
  const pool = { maxSockets: Number.POSITIVE_INFINITY };
  return {
    connectionTimeout: Math.min(connectTimeoutMs, requestTimeoutMs),
    requestTimeout: requestTimeoutMs,
    throwOnRequestTimeout: true,
    socketTimeout: requestTimeoutMs,
    httpAgent: pool,
    httpsAgent: pool,
  };
}
