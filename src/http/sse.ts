import type { Request, RequestHandler, Response } from 'express';
import {
  GraphQLError,
  Kind,
  OperationTypeNode,
  TypeInfo,
  visit,
  visitWithTypeInfo,
  type DocumentNode,
  type ExecutionResult,
  type FieldNode,
  type GraphQLFormattedError,
  type GraphQLSchema,
  type ValueNode,
} from 'graphql';
import Negotiator from 'negotiator';
import type { TokenVerifier } from '../auth/jwt';
import type { Principal } from '../auth/principal';
import type { Config } from '../config';
import { RESUME_ARGUMENT, RESUME_CURSOR_ARGUMENT } from '../events/live.resolver';
import { asksToResume, positionOfDelivered } from '../events/replay';
import type { OperationPipeline } from '../graphql/pipeline';
import { callEndListener, type Delivery, type EndListener, type SubscriptionLifetime } from '../graphql/shared-subscriptions';
import { beginRequest, newRequestId, runInRequest, type RequestRecord } from '../graphql/record';
import { logger } from '../logger';
import { isPlainObject } from '../guards';

/** The media type of a Server-Sent Events stream. */
export const EVENT_STREAM = 'text/event-stream';

/**
 * True when a request's Accept header prefers an event stream over a single JSON response: the
 * way a graphql-sse client and a browser's EventSource ask for GraphQL over SSE (both send
 * exactly `text/event-stream`). `*` and JSON-first headers keep the ordinary JSON answer.
 */
export function wantsEventStream(accept: string | undefined): boolean {
  if (!accept) return false;
  return (
    new Negotiator({ headers: { accept } }).mediaType(['application/json', 'application/graphql-response+json', EVENT_STREAM]) ===
    EVENT_STREAM
  );
}

export interface SseDeps {
  config: Config;
  verifier: TokenVerifier;
  /** The operation pipeline shared with HTTP and WebSocket. */
  pipeline: OperationPipeline;
}

/** The counts a server holds for its SSE clients, named as the Prometheus gauge that exports them. */
export interface SseCounts {
  graphql_sse_streams: number;
}

export interface SseEndpoint {
  /**
   * Serves one GraphQL request whose Accept header asked for an event stream (see
   * wantsEventStream). It goes after the JSON body parser and the trusted-documents check, and
   * answers every request it is given: it never calls `next`.
   */
  handler: RequestHandler;
  counts(): SseCounts;
  /**
   * Ends every open stream without a `complete` event, so that clients reconnect (to another
   * instance) and resume with Last-Event-ID; later requests are answered 503.
   */
  close(): void;
}

/** Bytes a response may have waiting to be written before its peer counts as gone (as for WebSocket). */
const MAX_BUFFERED_BYTES = 4 * 1024 * 1024;
const MAX_TIMER_MS = 2 ** 31 - 1;
/** Positions are GraphQL Ints, so a Last-Event-ID beyond this cannot name one. */
const MAX_POSITION = 2 ** 31 - 1;

/** The HTTP status of a refused stream, by its first error's code; every other code is a client mistake (400). */
const STATUS_OF_CODE: Record<string, number> = {
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  SERVICE_UNAVAILABLE: 503,
  RATE_LIMITED: 429,
  INTERNAL: 500,
};

/** Why a stream ended before its source ran out; a stream that ran out ends with `complete`. */
type Cut = 'peer' | 'server' | 'expired';

/**
 * One SSE response carrying one operation, from the moment it is accepted until it ends. It ends
 * exactly once, for whichever reason comes first: the peer goes away, the source runs out, the
 * token expires, or the server closes; ending runs every cleanup registered with `onEnd` (the bus
 * listener through the pipeline, the keep-alive and expiry timers).
 */
class Stream implements SubscriptionLifetime {
  private readonly cleanups: EndListener[] = [];
  private done = false;
  /** Set when the stream ended before its source ran out. */
  cut?: Cut;

  constructor(readonly res: Response) {}

  get ended(): boolean {
    return this.done;
  }

  /** A stream its peer cut ended abruptly: SSE has no way to unsubscribe but going away. */
  get abrupt(): boolean {
    return this.cut === 'peer';
  }

  onEnd(cleanup: EndListener): void {
    if (this.done) callEndListener(cleanup, 'an SSE stream');
    else this.cleanups.push(cleanup);
  }

  end(): void {
    if (this.done) return;
    this.done = true;
    for (const cleanup of this.cleanups.splice(0)) callEndListener(cleanup, 'an SSE stream');
  }

  /** Ends the stream early for `reason`; the first reason is kept. */
  stop(reason: Cut): void {
    this.cut ??= reason;
    this.end();
  }
}

function isDeliveries(value: AsyncGenerator<Delivery> | ExecutionResult): value is AsyncGenerator<Delivery> {
  return Symbol.asyncIterator in value;
}

/** The GraphQL request carried by a GET's query string or a POST's JSON body. */
/** An SSE request's operation; its document is the query's text or a trusted document's hash (see OperationPipeline.admit). */
interface Params {
  query?: string;
  documentId?: unknown;
  extensions?: unknown;
  variables?: Record<string, unknown>;
  operationName?: string;
}

const badRequest = (message: string) => new GraphQLError(message, { extensions: { code: 'BAD_REQUEST' } });

/** Reads the request's parameters; throws a BAD_REQUEST GraphQLError naming what is wrong. */
function paramsOf(req: Request): Params {
  let raw: Record<string, unknown>;
  if (req.method === 'POST') {
    if (!isPlainObject(req.body)) throw badRequest('Send the operation as a JSON object body with content-type application/json.');
    raw = req.body;
  } else {
    raw = { query: req.query.query, operationName: req.query.operationName };
    for (const name of ['variables', 'extensions'] as const) {
      const value = req.query[name];
      if (value === undefined) continue;
      if (typeof value !== 'string') throw badRequest(`The ${name} parameter must be one JSON object.`);
      try {
        raw[name] = JSON.parse(value);
      } catch {
        throw badRequest(`The ${name} parameter is not valid JSON.`);
      }
    }
  }
  const { query, variables, operationName, documentId, extensions } = raw;
  const byHash = documentId !== undefined || (isPlainObject(extensions) && extensions.persistedQuery !== undefined);
  if ((typeof query !== 'string' || query === '') && !byHash) throw badRequest('The request has no query.');
  if (query != null && typeof query !== 'string') throw badRequest('query must be a string.');
  if (variables != null && !isPlainObject(variables)) throw badRequest('variables must be a JSON object.');
  if (operationName != null && typeof operationName !== 'string') throw badRequest('operationName must be a string.');
  return {
    query: query ?? undefined,
    documentId,
    extensions,
    variables: variables ?? undefined,
    operationName: operationName ?? undefined,
  };
}

/**
 * The position a Last-Event-ID header names (a sharded stream's cursor, a text, as it is),
 * undefined when there is none; throws BAD_REQUEST when it names none. A cursor's own form is
 * checked by the field that takes it.
 */
function lastEventIdOf(req: Request): number | string | undefined {
  const header = req.headers['last-event-id'];
  if (header === undefined || header === '') return undefined;
  if (typeof header === 'string' && /^[A-Za-z0-9_-]{11,400}$/.test(header) && !/^\d+$/.test(header)) return header;
  const position = typeof header === 'string' && /^\d{1,10}$/.test(header) ? Number(header) : Number.NaN;
  if (!(position <= MAX_POSITION)) throw badRequest('Last-Event-ID must be a position this stream sent (a whole number, or its cursor).');
  return position;
}

/**
 * The document with the resume argument of every positioned subscription field (a field whose
 * extensions name one, see RESUME_ARGUMENT) set to `position`, replacing whatever the client
 * wrote there (a literal, a variable, or nothing); undefined when the document has no such field.
 * Last-Event-ID is what the client saw last, so it wins over the position the stream was first
 * opened with. The rewritten document is valid by construction: the argument is an Int, and a
 * variable it no longer uses is harmless to execution.
 */
export function resumeDocumentAt(schema: GraphQLSchema, document: DocumentNode, position: number | string): DocumentNode | undefined {
  const subscriptionType = schema.getSubscriptionType();
  if (!subscriptionType) return undefined;
  const typeInfo = new TypeInfo(schema);
  let resumed = 0;
  const rewritten = visit(
    document,
    visitWithTypeInfo(typeInfo, {
      Field(node): FieldNode | undefined {
        if (typeInfo.getParentType() !== subscriptionType) return undefined;
        const extensions = typeInfo.getFieldDef()?.extensions;
        const byPosition = extensions?.[RESUME_ARGUMENT];
        const byCursor = extensions?.[RESUME_CURSOR_ARGUMENT];
        // A cursor (a sharded stream's) goes to the cursor argument, a position to the position's.
        const argument = typeof position === 'string' ? byCursor : byPosition;
        if (typeof argument !== 'string') return undefined;
        resumed++;
        const others = (node.arguments ?? []).filter((a) => a.name.value !== byPosition && a.name.value !== byCursor);
        const value: ValueNode =
          typeof position === 'string' ? { kind: Kind.STRING, value: position } : { kind: Kind.INT, value: String(position) };
        return { ...node, arguments: [...others, { kind: Kind.ARGUMENT, name: { kind: Kind.NAME, value: argument }, value }] };
      },
    }),
  );
  return resumed > 0 ? rewritten : undefined;
}

/**
 * GraphQL over Server-Sent Events on the GraphQL path: the graphql-sse protocol's "distinct
 * connections" mode (one operation per request, GET with the query string or POST with a JSON
 * body, `Accept: text/event-stream`), carrying the same operation pipeline as HTTP and WebSocket
 * (trusted documents, parse and validation limits, variable checks, context, error formatting,
 * the request's log line).
 *
 * What this transport adds, and promises:
 * - authentication by the same `Authorization: Bearer` header as HTTP; the stream ends when the
 *   token expires;
 * - each message of a positioned subscription carries its stream position as the SSE `id`, and a
 *   request with `Last-Event-ID` resumes right after that position (it sets the field's resume
 *   argument, see resumeDocumentAt): no gap and no duplicate, so a reconnecting EventSource needs
 *   no code of its own;
 * - a client mistake (a malformed request, a bad token, an invalid document, a subject not found,
 *   a Last-Event-ID that is no position) is answered before any stream starts, with a 4xx status
 *   and a JSON body whose errors carry a stable `extensions.code`: an EventSource does not retry
 *   a 4xx, and a 5xx is left for faults of this server;
 * - `event: next` per result, `event: complete` once the operation ran out (a query's single
 *   result, a finished job); a stream cut by the server (shutdown, token expiry) or ended by a
 *   resync (a reader too slow for its buffer) ends without `complete`, so a client reconnects and
 *   resumes;
 * - a comment line every `SSE_KEEPALIVE_MS`, and a `retry` hint of `SSE_RETRY_MS`;
 * - everything a stream holds (its bus listener, buffer and timers) is released when the peer
 *   goes away, the stream ends or the server closes; a peer that lets more than 4 MiB pile up
 *   unread is dropped.
 */
export function serveGraphQLOverSse(deps: SseDeps): SseEndpoint {
  const { config, pipeline } = deps;
  const streams = new Set<Stream>();
  let closing = false;

  /**
   * Answers with the formatted errors and the status of the first one's code (see STATUS_OF_CODE),
   * or the `allow`ed methods with 405 when the method was the mistake.
   */
  const refuse = (res: Response, record: RequestRecord, errors: readonly GraphQLError[], allow?: string) => {
    const formatted: GraphQLFormattedError[] = pipeline.records.formatErrors(record, errors);
    const code = formatted[0]?.extensions?.code;
    const status = allow ? 405 : ((typeof code === 'string' ? STATUS_OF_CODE[code] : undefined) ?? 400);
    if (res.headersSent || res.destroyed) return;
    if (status === 503) res.setHeader('retry-after', '2');
    // A rate budget's refusal says when its window opens again (errors.ts rateLimited).
    const wait = formatted[0]?.extensions?.retryAfterSeconds;
    if (status === 429 && typeof wait === 'number') res.setHeader('retry-after', String(wait));
    if (allow) res.setHeader('allow', allow);
    res.status(status).json({ errors: formatted });
  };

  const serve = async (req: Request, res: Response, record: RequestRecord): Promise<void> => {
    if (closing) {
      return refuse(res, record, [
        new GraphQLError('The server is shutting down; reconnect.', { extensions: { code: 'SERVICE_UNAVAILABLE' } }),
      ]);
    }
    if (req.method !== 'GET' && req.method !== 'POST') {
      return refuse(res, record, [badRequest('GraphQL over SSE takes GET or POST.')], 'GET, POST');
    }
    let params: Params;
    let lastEventId: number | string | undefined;
    let principal: Principal | null;
    try {
      params = paramsOf(req);
      lastEventId = lastEventIdOf(req);
      principal = await deps.verifier.fromHeader(req.headers.authorization);
    } catch (error) {
      if (error instanceof GraphQLError) return refuse(res, record, [error]);
      throw error;
    }
    const admission = await pipeline.admit(params, principal, record);
    if (admission.errors) return refuse(res, record, admission.errors);
    const { operation, args } = admission;
    if (operation.operation === OperationTypeNode.MUTATION && req.method === 'GET') {
      // GraphQL over HTTP: a GET must not change anything.
      return refuse(res, record, [badRequest('Send mutations with POST.')], 'POST');
    }
    if (lastEventId !== undefined) {
      const resumed =
        operation.operation === OperationTypeNode.SUBSCRIPTION ? resumeDocumentAt(pipeline.schema, args.document, lastEventId) : undefined;
      if (!resumed) return refuse(res, record, [badRequest('Last-Event-ID resumes only a subscription to a positioned stream.')]);
      args.document = resumed;
    }

    const stream = new Stream(res);
    streams.add(stream);
    stream.onEnd(() => streams.delete(stream));
    res.once('close', () => stream.stop('peer'));

    if (operation.operation !== OperationTypeNode.SUBSCRIPTION) {
      try {
        const result = await pipeline.execute(args);
        if (result.data === undefined && result.errors?.length) return refuse(res, record, result.errors);
        if (stream.ended) return;
        open(res, stream, principal);
        send(res, format(record, result));
        write(res, 'event: complete\ndata:\n\n');
        res.end();
      } finally {
        stream.end();
      }
      return;
    }

    const deliveries = await pipeline.stream({ ...args, lifetime: stream, principal });
    if (!isDeliveries(deliveries)) {
      stream.end();
      return refuse(res, record, deliveries.errors ?? [new GraphQLError('The subscription did not start.')]);
    }
    if (stream.ended) {
      await deliveries.return(undefined);
      return;
    }
    open(res, stream, principal);
    let resume = false;
    for await (const { result, event } of deliveries) {
      send(res, format(record, result), positionOfDelivered(event));
      resume = asksToResume(event);
    }
    // The source ran out (a finished job): the operation is complete. A stream cut short by the
    // server, or ended by a resync, ends without `complete`, so its client reconnects and resumes
    // after the last id.
    if (!stream.cut && !resume) write(res, 'event: complete\ndata:\n\n');
    if (stream.cut !== 'peer') res.end();
  };

  /** Starts the event stream: headers, the retry hint, keep-alive comments and the token's expiry. */
  const open = (res: Response, stream: Stream, principal: Principal | null) => {
    res.writeHead(200, {
      'content-type': `${EVENT_STREAM}; charset=utf-8`,
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      // Proxies such as nginx buffer responses unless told not to; an event must go out at once.
      'x-accel-buffering': 'no',
    });
    write(res, `retry: ${config.sse.retryMs}\n\n`);
    if (config.sse.keepAliveMs > 0) {
      const keepAlive = setInterval(() => write(res, ':\n\n'), config.sse.keepAliveMs);
      stream.onEnd(() => clearInterval(keepAlive));
    }
    if (principal?.expiresAt) {
      let expiry: NodeJS.Timeout | undefined;
      const arm = (expiresAt: number) => {
        const wait = expiresAt * 1000 - Date.now();
        if (wait <= 0) return stream.stop('expired');
        expiry = setTimeout(() => arm(expiresAt), Math.min(wait, MAX_TIMER_MS));
      };
      arm(principal.expiresAt);
      stream.onEnd(() => clearTimeout(expiry));
    }
  };

  const format = (record: RequestRecord, result: ExecutionResult) =>
    result.errors ? { ...result, errors: pipeline.records.formatErrors(record, result.errors) } : result;

  const send = (res: Response, payload: unknown, position?: number | string) =>
    write(res, `${position === undefined ? '' : `id: ${position}\n`}event: next\ndata: ${JSON.stringify(payload)}\n\n`);

  /** Writes to a response that is still open; a peer that stopped reading is dropped. */
  const write = (res: Response, chunk: string) => {
    if (res.writableEnded || res.destroyed) return;
    if (res.writableLength > MAX_BUFFERED_BYTES) {
      logger.debug({ buffered: res.writableLength }, 'SSE peer stopped reading; dropping it');
      res.destroy();
      return;
    }
    res.write(chunk);
  };

  return {
    handler: (req, res) => {
      const known: RequestRecord | undefined = res.locals.request;
      const record = known ?? beginRequest(newRequestId());
      runInRequest(record, () => serve(req, res, record)).catch((err: unknown) => {
        logger.error({ err }, 'SSE request failed');
        if (!res.headersSent) refuse(res, record, [new GraphQLError('Internal server error.', { extensions: { code: 'INTERNAL' } })]);
        else res.destroy();
      });
    },
    counts: () => ({ graphql_sse_streams: streams.size }),
    close() {
      closing = true;
      for (const stream of [...streams]) {
        stream.stop('server');
        stream.res.end();
      }
    },
  };
}
