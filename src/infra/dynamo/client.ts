import { DynamoDBClient, GetItemCommand, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { logger } from '../../logger';
import { sendWithinBudget } from '../deadline';
import { instrumentClient, transportOptions } from '../dependency';
import type { Metrics } from '../metrics';
import type { OutageLog } from '../outage';

/*
 * The SDK's logger middleware calls `logger.info({ input, output })` after every call and
 * `logger.error({ input, error })` after every failed one. Neither may reach our log, so
 * createDynamo removes that middleware from the client's stack:
 *   - `info`: the filter walks the whole response (every item of a page) to mask sensitive fields
 *     even when nothing would print it; without the middleware that entry is never built.
 *   - `error`: the entry carries the call's input — users' text, such as a log's rawText — and an
 *     outage makes one per failed call. Failed calls reach their caller as errors instead, and
 *     outages are summarized by the OutageLog (see instrumentClient). It also kept printing
 *     ResourceNotFoundException on a fresh start, before the table was created.
 * The SDK's own warnings (a few, rate-limited by the SDK) are kept; nothing else it logs is.
 */
const sdkLogger = {
  debug: () => {},
  info: () => {},
  warn: (message: unknown) => logger.warn({ sdk: typeof message === 'string' ? message : undefined }, 'aws-sdk warning'),
  error: () => {},
} satisfies NonNullable<DynamoDBClientConfig['logger']>;

/** The name the SDK gives its logger middleware (@aws-sdk/core, loggerMiddlewareOptions). */
const SDK_LOGGER_MIDDLEWARE = 'loggerMiddleware';

export interface DynamoOptions {
  endpoint?: string;
  region: string;
  /** Timeout of one attempt (see transportOptions); a request budget may cut it shorter. */
  requestTimeoutMs: number;
  /** Time allowed to connect (default: 1000 ms, or requestTimeoutMs when that is shorter). */
  connectTimeoutMs?: number;
  /** Attempts per call, the first included (default 4: up to 3 retries of throttling, 5xx, timeouts). */
  maxAttempts?: number;
  metrics?: Metrics;
  outage?: OutageLog;
}

/**
 * The items a call read: a Query's or Scan's scanned items (what it is charged for, before any
 * filter), a GetItem's item, a BatchGetItem's items; 0 for anything else.
 */
function itemsRead(output: unknown): number {
  if (typeof output !== 'object' || output === null) return 0;
  if ('ScannedCount' in output && typeof output.ScannedCount === 'number') return output.ScannedCount;
  if ('Item' in output) return output.Item ? 1 : 0;
  if ('Responses' in output && typeof output.Responses === 'object' && output.Responses !== null) {
    let sum = 0;
    for (const items of Object.values(output.Responses)) if (Array.isArray(items)) sum += items.length;
    return sum;
  }
  return 0;
}

/**
 * Counts the DynamoDB calls a client makes, by command name, and the items they read (so a test
 * can tell a keyed read from one that reads a whole partition in one call); tests and benchmarks
 * read it.
 */
export class CallCounter {
  readonly byCommand = new Map<string, number>();
  readonly itemsByCommand = new Map<string, number>();
  /** Milliseconds the answered calls of each command took, summed (their latency as the server saw it). */
  readonly msByCommand = new Map<string, number>();

  record(command: string): void {
    this.byCommand.set(command, (this.byCommand.get(command) ?? 0) + 1);
  }

  /** Notes the items one answered call of `command` read (see itemsRead). */
  recordItems(command: string, output: unknown): void {
    this.itemsByCommand.set(command, (this.itemsByCommand.get(command) ?? 0) + itemsRead(output));
  }

  get total(): number {
    let sum = 0;
    for (const n of this.byCommand.values()) sum += n;
    return sum;
  }

  /** Notes how long one answered call of `command` took. */
  recordMs(command: string, ms: number): void {
    this.msByCommand.set(command, (this.msByCommand.get(command) ?? 0) + ms);
  }

  reset(): void {
    this.msByCommand.clear();
    this.byCommand.clear();
    this.itemsByCommand.clear();
  }
}

export interface Dynamo {
  client: DynamoDBClient;
  doc: DynamoDBDocumentClient;
  calls: CallCounter;
}

/**
 * Creates the DynamoDB clients. Every attempt is bounded by `requestTimeoutMs` (connect, request
 * and socket timeouts, which throw: see transportOptions); throttling, 5xx answers, timeouts and
 * network errors are retried by the SDK's standard retry strategy, and within a GraphQL request
 * the whole call is bounded by the request budget (deadline.ts). An outage reaches callers as
 * SERVICE_UNAVAILABLE (dependency.ts). Against a local endpoint, fixed dummy credentials are used,
 * because DynamoDB Local accepts any.
 */
export function createDynamo(options: DynamoOptions): Dynamo {
  const client = new DynamoDBClient({
    region: options.region,
    endpoint: options.endpoint,
    maxAttempts: options.maxAttempts ?? 4,
    retryMode: 'standard',
    logger: sdkLogger,
    requestHandler: transportOptions(options.requestTimeoutMs, options.connectTimeoutMs ?? 1000),
    ...(options.endpoint && !process.env.AWS_ACCESS_KEY_ID ? { credentials: { accessKeyId: 'local', secretAccessKey: 'local' } } : {}),
  });
  // See sdkLogger. The document client shares this stack, so this covers its calls too.
  client.middlewareStack.remove(SDK_LOGGER_MIDDLEWARE);
  const calls = new CallCounter();
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const command = String(context.commandName ?? 'unknown');
      calls.record(command);
      const started = performance.now();
      const result = await next(args);
      calls.recordMs(command, performance.now() - started);
      calls.recordItems(command, result.output);
      return result;
    },
    { step: 'initialize', name: 'callCounter' },
  );
  instrumentClient(client.middlewareStack, { dependency: 'dynamodb', metrics: options.metrics, outage: options.outage });
  // The document client shares the client's middleware stack, but has a `send` of its own.
  const doc = DynamoDBDocumentClient.from(client, {
    marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
  });
  sendWithinBudget(client, options.requestTimeoutMs);
  sendWithinBudget(doc, options.requestTimeoutMs);
  return { client, doc, calls };
}

/** A fixed key that never exists: a GetItem of it is the cheapest call that proves the table answers. */
const PROBE_KEY = { PK: { S: 'HEALTHCHECK' }, SK: { S: 'HEALTHCHECK' } };

/**
 * Resolves when `tableName` answers a GetItem, for readiness. Throws what the call threw: a
 * timeout, the abort of `signal`, an unreachable endpoint or a missing table.
 */
export async function probeTable(client: DynamoDBClient, tableName: string, signal: AbortSignal): Promise<void> {
  await client.send(new GetItemCommand({ TableName: tableName, Key: PROBE_KEY, ProjectionExpression: 'PK' }), { abortSignal: signal });
}
