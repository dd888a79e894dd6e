import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { ApolloServer } from '@apollo/server';
import { ApolloServerPluginCacheControlDisabled, ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import { expressMiddleware } from '@as-integrations/express5';
import cors from 'cors';
import type { TrustedDocuments } from '../graphql/trusted-documents';
import express from 'express';
import type { GraphQLSchema } from 'graphql';
import type { TokenVerifier } from '../auth/jwt';
import type { Config } from '../config';
import type { Context } from '../context';
import type { OperationPipeline } from '../graphql/pipeline';
import { isJsonObject, isRecord, parsedBody } from '../guards';
import { boundPort } from '../infra/free-port';
import type { Metrics } from '../infra/metrics';
import { logger } from '../logger';
import { graphiqlRouter, type GraphiQLHints } from './graphiql';
import { BOARD_SELECTIONS, jobBoardRouter } from './job-board';
import { REQUEST_ID_HEADER } from '../graphql/record';
import { noteCutAtShutdown, requestIdentity, requestRecordOf, requestScope } from './request-log';
import { wantsEventStream } from './sse';
import { graphqlOverHttpStatus } from './status';
import { graphqlPostRoute, takesPostRoute, type Part } from './graphql-post';
import { jsonBody, utf8Json } from './json-body';

export interface HttpDeps {
  config: Config;
  schema: GraphQLSchema;
  verifier: TokenVerifier;
  /** The operation pipeline shared with WebSocket. */
  pipeline: OperationPipeline;
  /** What GraphiQL prefills (token, example ids); asked on each page load. */
  graphiqlHints?: () => GraphiQLHints | Promise<GraphiQLHints>;
  /** Routes served before GraphQL: /healthz, /readyz, /metrics (see app.ts). */
  routers?: express.RequestHandler[];
  /** Runs for each GraphQL HTTP request before its document is read (the request budget, see infra/deadline.ts). */
  beforeGraphQL?: Part[];
  /**
   * GraphQL over SSE (see sse.ts): serves the requests whose Accept header asks for an event
   * stream. They skip `beforeGraphQL`: a stream outlives any request budget, and each query
   * it runs is bounded by the pipeline itself.
   */
  sse?: express.RequestHandler;
  /** Where every HTTP request's duration is recorded (artissist_http_server_request_duration_seconds). */
  metrics?: Metrics;
}

export interface HttpServer {
  url: string;
  server: Server;
  /** Closes the listening socket at once: new connections are refused; open ones carry on. */
  stopListening(): void;
  /**
   * Closes the listener (if still open) and idle connections, lets in-flight HTTP requests finish
   * for at most `drainMs`, then closes every HTTP connection and stops Apollo. WebSocket
   * connections are left alone: attachWebSocket's close() ends them with 1001.
   */
  stop(drainMs?: number): Promise<void>;
}

/** What the error handler answers for each failure of reading a request body. */
function bodyError(error: unknown, bodyLimitBytes: number): { status: number; message: string } {
  switch (isRecord(error) ? error.type : undefined) {
    case 'entity.too.large':
      return { status: 413, message: `The request body is larger than ${bodyLimitBytes} bytes.` };
    case 'entity.parse.failed':
      return { status: 400, message: 'The request body is not valid JSON.' };
    case 'entity.encoding.invalid':
      return {
        status: 400,
        message: 'The request body is not valid UTF-8: send JSON text in UTF-8 (a byte that is not would change what the client sent).',
      };
    case 'charset.unsupported':
    case 'encoding.unsupported':
      return { status: 415, message: 'The request body must be JSON in UTF-8, without a content encoding.' };
    default: {
      const given = isRecord(error) && typeof error.status === 'number' ? error.status : 0;
      const status = given >= 400 && given < 600 ? given : 500;
      return { status, message: status >= 500 ? 'Internal server error.' : 'The request body could not be read.' };
    }
  }
}

/** The path of a request's URL, without its query string (Express's `req.path`). */
function pathOf(url = '/'): string {
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}

/** Answers with `payload` as JSON, as Express's `res.status(status).json(payload)` does. */
function sendJson(res: ServerResponse, status: number, payload: unknown): void {
  const bytes = Buffer.from(JSON.stringify(payload));
  res.statusCode = status;
  res.setHeader('content-type', 'application/json; charset=utf-8');
  res.setHeader('content-length', bytes.length);
  res.end(bytes);
}

/**
 * Resolves a request's document through the trusted documents manifest before Apollo sees it (see
 * TrustedDocuments): a hash becomes its document, and when only trusted documents may run,
 * anything else is answered with a 400 and its code here, as Apollo answers its own request errors.
 */
function trustedDocuments(trusted: TrustedDocuments): Part {
  return (req, res, next) => {
    const parsed = parsedBody(req);
    const body = req.method === 'POST' && isJsonObject(parsed) ? parsed : undefined;
    let extensions: unknown = body?.extensions;
    const search = body ? undefined : new URL(req.url ?? '/', 'http://localhost').searchParams;
    const searchExtensions = search?.get('extensions');
    if (typeof searchExtensions === 'string') {
      try {
        extensions = JSON.parse(searchExtensions);
      } catch {
        // Apollo answers a malformed GET extension itself.
      }
    }
    const resolved = trusted.resolve({
      query: body ? body.query : (search?.get('query') ?? undefined),
      documentId: body?.documentId,
      extensions,
    });
    if (resolved.error) {
      const requestId = res.getHeader(REQUEST_ID_HEADER);
      sendJson(res, 400, {
        errors: [{ message: resolved.error.message, extensions: { code: resolved.error.extensions.code, requestId } }],
      });
      return;
    }
    if (resolved.query !== undefined) {
      if (!body) {
        // A GET by hash has no body to put the document in; it is refused as a client error.
        sendJson(res, 400, { errors: [{ message: 'Send a trusted document by hash with POST.', extensions: { code: 'BAD_REQUEST' } }] });
        return;
      }
      // The manifest's document runs; Apollo's own persisted-query handling is not asked.
      body.query = resolved.query;
      if (isJsonObject(body.extensions)) delete body.extensions.persistedQuery;
      delete body.documentId;
    }
    next();
  };
}

/**
 * Starts the HTTP server: GraphQL at `/graphql` by POST, by GET for queries (with CSRF prevention
 * when configured), and as event streams (see sse.ts), and the `routers` (health,
 * readiness, metrics; a bare `/healthz` without them). Listens
 * on `config.host:config.port` (port 0 picks a free one). Throws when the port is taken.
 */
export async function startHttpServer(deps: HttpDeps): Promise<HttpServer> {
  const { config, pipeline } = deps;
  const app = express();
  app.disable('x-powered-by');
  // Express would hash every response body for an ETag (a SHA-1 per GraphQL answer, a measurable
  // share of a cheap request's CPU); no client revalidates a POST's answer with If-None-Match.
  app.disable('etag');
  // GraphQL POSTs take their own route (graphql-post.ts), made once Apollo has started; every
  // other request is Express's.
  let postRoute: ((req: IncomingMessage, res: ServerResponse) => void) | undefined;
  const server = createServer(
    {
      headersTimeout: config.http.headersTimeoutMs,
      requestTimeout: config.http.requestTimeoutMs,
      keepAliveTimeout: config.http.keepAliveTimeoutMs,
      // Node looks for connections past those timeouts every 30 s by default, so a slow client
      // could hold a connection half a minute beyond them; once a second keeps the bound tight.
      connectionsCheckingInterval: 1000,
    },
    (req, res) => (postRoute && takesPostRoute(req) ? postRoute(req, res) : app(req, res)),
  );
  // Past the cap, new connections are closed as soon as they are accepted.
  server.maxConnections = config.http.maxConnections;

  const apollo = new ApolloServer<Context>({
    schema: deps.schema,
    introspection: config.introspection,
    // Off unless configured (see Config.csrfPrevention): with bearer tokens only, a GET query is
    // no forgery risk, and urql's default client sends its queries as GET.
    csrfPrevention: config.csrfPrevention,
    allowBatchedHttpRequests: false,
    // Stack traces never leave the server, not even in development: formatError keeps the message there.
    includeStacktraceInErrorResponses: false,
    // main.ts owns shutdown (it also stops DynamoDB Local); Apollo's own signal handlers would race it.
    stopOnTerminationSignals: false,
    // Parsing, validation, the document cache, error formatting and the operation record are the
    // pipeline's, shared with WebSocket; only the HTTP status codes are this transport's own.
    formatError: pipeline.records.formatError,
    parseOptions: pipeline.documents.parseOptions,
    validationRules: pipeline.documents.validationRules,
    documentStore: pipeline.documents.cache,
    // GraphiQL is served by graphiqlRouter from installed packages; Apollo's landing page would load a CDN.
    // No cache-control hints are used, and Apollo's default cache-control plugin wraps every field.
    plugins: [
      ...pipeline.apolloPlugins(),
      graphqlOverHttpStatus(pipeline.records.formatError),
      ApolloServerPluginLandingPageDisabled(),
      ApolloServerPluginCacheControlDisabled(),
    ],
    logger: {
      debug: (m) => logger.debug(m),
      info: (m) => logger.info(m),
      warn: (m) => logger.warn(m),
      error: (m) => logger.error(m),
    },
  });
  await apollo.start();

  /*
   * Requests in flight per HTTP connection, for a bounded drain on stop. This replaces Apollo's
   * ApolloServerPluginDrainHttpServer, which treats an upgraded WebSocket connection as an idle
   * HTTP one: it half-closes it without a close frame and then waits for the peer, so a stalled
   * WebSocket peer held the whole stop for its 10 s grace. Here upgraded connections are not
   * tracked, and the drain waits for requests, not for peers to hang up.
   */
  const requestsPerSocket = new Map<Socket, number>();
  let draining = false;
  // One listener for every socket (Node calls it with the socket as `this`), not a closure each:
  // an upgraded WebSocket keeps its listeners for its whole life.
  function forget(this: Socket): void {
    requestsPerSocket.delete(this);
  }
  server.on('connection', (socket: Socket) => {
    requestsPerSocket.set(socket, 0);
    socket.on('close', forget);
  });
  // An upgraded connection is not tracked, and drops its listener too: beside ws's own 'close'
  // listener it would make the socket's listeners of 'close' an array (about 100 bytes), held by
  // every WebSocket for its whole life.
  server.on('upgrade', (_req, socket: Socket) => {
    requestsPerSocket.delete(socket);
    socket.removeListener('close', forget);
  });
  // Before the request handler, so that every request is counted and timed from its start,
  // whatever answers it: a CORS preflight, a probe, a 404. One 'close' listener does both.
  const { metrics } = deps;
  server.prependListener('request', (req, res) => {
    const socket = req.socket;
    requestsPerSocket.set(socket, (requestsPerSocket.get(socket) ?? 0) + 1);
    const startedAt = performance.now();
    // Read now: a mounted router (app.use('/graphql', …)) strips its prefix from the URL while it runs.
    const path = pathOf(req.url);
    // 'close' comes when the response was sent or the request was aborted.
    res.once('close', () => {
      const count = requestsPerSocket.get(socket);
      if (count !== undefined) {
        requestsPerSocket.set(socket, count - 1);
        // While draining, a connection is closed as soon as its last response is out.
        if (draining && count === 1) socket.end();
      }
      metrics?.recordHttpRequest({
        method: req.method,
        path,
        status: res.writableFinished ? res.statusCode : undefined,
        seconds: (performance.now() - startedAt) / 1000,
      });
    });
  });
  const inFlight = () => {
    let n = 0;
    for (const count of requestsPerSocket.values()) n += count;
    return n;
  };
  const stopListening = () => {
    // Node's close() also closes idle keep-alive connections (Node 19+).
    if (server.listening) server.close();
  };

  // CORS before any route of /graphql: a browser's preflight is answered here and is not a
  // GraphQL request to log. (After the GraphiQL router, Express itself answered the OPTIONS
  // request for its GET route, without CORS headers, so no browser preflight ever passed.)
  const corsPart: Part = cors({ origin: config.corsOrigins, credentials: false, exposedHeaders: [REQUEST_ID_HEADER] });
  app.use('/graphql', corsPart);
  if (deps.routers?.length) app.use(...deps.routers);
  else app.get('/healthz', (_req, res) => void res.json({ status: 'ok' }));
  if (config.graphiql) {
    const hints: () => GraphiQLHints | Promise<GraphiQLHints> = deps.graphiqlHints ?? (() => ({}));
    app.use(graphiqlRouter(hints));
    // The live job board shares GraphiQL's switch, token and assets: both are development pages.
    app.use(jobBoardRouter(async () => ({ token: (await hints()).token }), BOARD_SELECTIONS));
  }
  // Event-stream requests leave through this router to the SSE transport; every other request
  // leaves it at once (`next('router')`) for Apollo.
  const eventStreams = express.Router();
  eventStreams.use((req, _res, next) => next(deps.sse && wantsEventStream(req.headers.accept) ? undefined : 'router'));
  if (deps.sse) {
    // SSE resolves trusted documents itself, with the rest of its admission (OperationPipeline.admit).
    eventStreams.use(utf8Json(config.limits.bodyLimitBytes), requestScope(), deps.sse);
  }
  // The context of each request Apollo runs: the pipeline's, for the verified token's principal.
  const contextOf = async (req: IncomingMessage) => pipeline.context(await deps.verifier.fromHeader(req.headers.authorization));
  const identity = requestIdentity((record, status) => pipeline.records.finish(record, status));
  const json: Part = utf8Json(config.limits.bodyLimitBytes);
  const trusted = trustedDocuments(pipeline.documents.trusted);
  const scope = requestScope();
  app.use(
    '/graphql',
    identity,
    eventStreams,
    ...(deps.beforeGraphQL ?? []),
    json,
    trusted,
    scope,
    expressMiddleware(apollo, { context: ({ req }) => contextOf(req) }),
  );
  // A path nothing is served at gets a JSON 404 that names the endpoint, rather than Express's
  // "Cannot GET /" page: `/` is where a newcomer's browser goes first.
  const served = `GraphQL is at /graphql${config.graphiql ? ' (open it in a browser for GraphiQL; the job board is at /jobs)' : ''}`;
  app.use((req, res) => {
    const message = `Nothing is served at ${pathOf(req.originalUrl).slice(0, 200)}. ${served}.`;
    sendJson(res, 404, { errors: [{ message, extensions: { code: 'NOT_FOUND' } }] });
  });
  // A malformed or oversized body gets a JSON error (with the request id) rather than Express's
  // HTML page; a client's mistake is a 4xx, and only a fault of ours is logged, as a 500.
  const answerError = (error: unknown, res: ServerResponse) => {
    const { status, message } = bodyError(error, config.limits.bodyLimitBytes);
    const code = status >= 500 ? 'INTERNAL' : 'BAD_REQUEST';
    if (status >= 500) logger.error({ err: error }, 'request failed');
    const record = requestRecordOf(res);
    if (record) record.outcome = code;
    if (res.headersSent) {
      // Part of the answer is out: it cannot become an error any more, so the connection ends it.
      res.destroy();
      return;
    }
    sendJson(res, status, { errors: [{ message, extensions: { code, ...(record ? { requestId: record.requestId } : {}) } }] });
  };
  app.use((error: unknown, _req: express.Request, res: express.Response, _next: express.NextFunction) => answerError(error, res));
  // The same parts as the Express route above, in the same order, less the event-stream branch
  // (takesPostRoute leaves event streams to Express); a plain JSON body is read by jsonBody,
  // which leaves every other body to the same body-parser.
  postRoute = graphqlPostRoute({
    apollo,
    pipeline,
    verifier: deps.verifier,
    contextOf,
    parts: [corsPart, identity, ...(deps.beforeGraphQL ?? []), jsonBody(config.limits.bodyLimitBytes), trusted, scope],
    onError: (error, _req, res) => answerError(error, res),
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = boundPort(server);
  const host = config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host;
  return {
    url: `http://${host}:${port}/graphql`,
    server,
    stopListening,
    async stop(drainMs = 5000) {
      draining = true;
      stopListening();
      for (const [socket, count] of requestsPerSocket) if (count === 0) socket.destroy();
      const deadline = Date.now() + drainMs;
      while (inFlight() > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      if (inFlight() > 0)
        logger.warn({ requests: inFlight(), drainMs }, 'requests still running at the end of the drain time were cut off');
      // Every response is out (or given up on): close what is left, including half-closed peers.
      // Requests still running are logged as cut by the shutdown, not as answered.
      for (const [socket, count] of requestsPerSocket) {
        if (count > 0) noteCutAtShutdown(socket);
        socket.destroy();
      }
      await apollo.stop();
    },
  };
}
