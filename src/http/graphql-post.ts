import type { IncomingMessage, ServerResponse } from 'node:http';
import { HeaderMap, type ApolloServer, type HTTPGraphQLResponse } from '@apollo/server';
import type { ExecutionResult, GraphQLFormattedError } from 'graphql';
import type { TokenVerifier } from '../auth/jwt';
import type { Principal } from '../auth/principal';
import type { Context } from '../context';
import { ErrorCode } from '../errors';
import { isJsonObject, isRecord, parsedBody } from '../guards';
import { logger } from '../logger';
import type { OperationPipeline } from '../graphql/pipeline';
import { requestRecordOf } from './request-log';
import { wantsEventStream } from './sse';
import { GRAPHQL_RESPONSE_TYPE, JSON_TYPE, responseMediaType } from './status';

/**
 * A part of a route in the shape Connect and Express middleware share: it works on Node's own
 * request and response, and calls `next` to go on or `next(error)` to stop with an error.
 */
export type Part = (req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void) => void;

/**
 * Whether a request takes the GraphQL POST route (graphqlPostRoute) rather than Express: a POST
 * to exactly `/graphql` that does not ask for an event stream. Anything else (a query string, a
 * trailing slash, GET, SSE) goes through Express as it always did, which answers it with the same
 * parts and Apollo.
 */
export function takesPostRoute(req: IncomingMessage): boolean {
  return req.method === 'POST' && req.url === '/graphql' && !wantsEventStream(req.headers.accept);
}

export interface PostRouteDeps {
  apollo: ApolloServer<Context>;
  pipeline: OperationPipeline;
  verifier: TokenVerifier;
  /** The context of a request Apollo runs, as the Express route gives it (server.ts). */
  contextOf: (req: IncomingMessage) => Promise<Context>;
  /** The parts before the answer, in order: CORS, the request's identity, its budget, the body, trusted documents, the scope (the server times every request itself). */
  parts: Part[];
  /** Answers a part's error (a body that could not be read): the route's error handler. */
  onError: (error: unknown, req: IncomingMessage, res: ServerResponse) => void;
}

/**
 * The route of GraphQL POSTs, served from Node's request handler without Express. It runs the
 * same parts as the Express route (the same functions, listed by server.ts), then answers:
 * - a plain query or mutation whose document, operation, variables and token all pass runs
 *   through the operation pipeline that WebSocket and SSE use (`admit`, `execute`), and its result
 *   is written as Apollo Server writes one (answerAsApollo);
 * - everything else (a request error, among them introspection where it is off; a bad token,
 *   automatic persisted queries, a subscription, which the pipeline's Apollo plugin refuses with
 *   SUBSCRIPTION_NEEDS_STREAM) is handed to Apollo Server itself, which answers it as it always
 *   has. Only a request that will certainly run is answered here, so nothing is executed twice.
 * Taking Express's router and Apollo's request pipeline off this route cut the server's CPU per
 * request for a 50-item read by 5–10 %, about half of what it spent beyond a bare
 * GraphQL-over-HTTP server around the same DynamoDB call (docs/benchmarks.md, line 2b).
 */
export function graphqlPostRoute(deps: PostRouteDeps): (req: IncomingMessage, res: ServerResponse) => void {
  const { apollo, pipeline, verifier, contextOf, parts, onError } = deps;
  const viaApollo = async (req: IncomingMessage, res: ServerResponse, body: unknown) => {
    const headers = new HeaderMap();
    for (const [key, value] of Object.entries(req.headers))
      if (value !== undefined) headers.set(key, Array.isArray(value) ? value.join(', ') : value);
    const response = await apollo.executeHTTPGraphQLRequest({
      httpGraphQLRequest: { method: 'POST', headers, search: '', body },
      context: () => contextOf(req),
    });
    await writeApolloResponse(res, response);
  };

  const answer = async (req: IncomingMessage, res: ServerResponse) => {
    const body = parsedBody(req);
    const record = requestRecordOf(res);
    // A single result's media type, negotiated as Apollo does; anything else (none: 406; the
    // callback protocol) is Apollo's to answer.
    const mediaType = responseMediaType(req.headers.accept);
    if (!record || (mediaType !== JSON_TYPE && mediaType !== GRAPHQL_RESPONSE_TYPE) || !isPlainRequest(body))
      return viaApollo(req, res, body);
    let principal: Principal | null;
    try {
      principal = await verifier.fromHeader(req.headers.authorization);
    } catch {
      // Apollo's context function meets the same token and answers with its error and status.
      return viaApollo(req, res, body);
    }
    const admission = await pipeline.admit(body, principal, record);
    // Refused by a rate budget: answered here (429, Retry-After), not drawn for a second time by Apollo's pass.
    if (admission.errors?.[0]?.extensions.code === ErrorCode.RATE_LIMITED)
      return answerAsApollo(res, mediaType, { errors: admission.errors }, pipeline.records.formatError);
    if (admission.errors || admission.operation.operation === 'subscription') {
      return viaApollo(req, res, body);
    }
    const result = await pipeline.execute(admission.args);
    answerAsApollo(res, mediaType, result, pipeline.records.formatError);
  };

  return (req, res) => {
    const fail = (error: unknown) => onError(error, req, res);
    runParts(parts, req, res, (error) => {
      if (error !== undefined) return fail(error);
      answer(req, res).catch(fail);
    });
  };
}

/** Runs `parts` in order on one request; `done` gets the first error, or nothing when the last part went on. */
function runParts(parts: readonly Part[], req: IncomingMessage, res: ServerResponse, done: (error?: unknown) => void): void {
  let at = 0;
  const next = (error?: unknown) => {
    if (error !== undefined && error !== null) return done(error);
    const part = parts[at++];
    if (!part) return done();
    try {
      part(req, res, next);
    } catch (thrown) {
      done(thrown);
    }
  };
  next();
}

/**
 * A body this route runs itself: a JSON object with the text of a query (trusted documents have
 * already put the manifest's text in), optional variables as an object, an optional operation
 * name, and no automatic persisted query (Apollo's own protocol, left to Apollo).
 */
function isPlainRequest(body: unknown): body is { query: string; variables?: unknown; operationName?: unknown } {
  // Apollo Server refuses an array where it wants an object (a body, its variables or extensions).
  if (!isJsonObject(body) || typeof body.query !== 'string') return false;
  const { variables, operationName, extensions } = body;
  if (variables != null && !isJsonObject(variables)) return false;
  if (operationName != null && typeof operationName !== 'string') return false;
  if (extensions != null && (!isJsonObject(extensions) || 'persistedQuery' in extensions)) return false;
  return true;
}

/**
 * Writes an executed result as Apollo Server documents it writes one: each error goes through
 * `formatError` with its code defaulted to INTERNAL_SERVER_ERROR, and an error's
 * `extensions.http` (a status, headers: SERVICE_UNAVAILABLE's 503 and Retry-After) is taken off
 * the error and applied to the response; the body is `{ errors, data, extensions }` as JSON with a
 * newline. test/e2e/http-post-route.test.ts holds the two answers side by side.
 */
function answerAsApollo(
  res: ServerResponse,
  mediaType: string,
  result: ExecutionResult,
  formatError: (formatted: GraphQLFormattedError, error: unknown) => GraphQLFormattedError,
): void {
  let status = 200;
  const headers = new Map<string, string>([['content-type', mediaType]]);
  const errors = result.errors?.map((error) => {
    const { http, ...extensions }: Record<string, unknown> = {
      ...error.extensions,
      code: error.extensions.code ?? 'INTERNAL_SERVER_ERROR',
    };
    if (isHttpHead(http)) {
      if (http.status) status = http.status;
      for (const [name, value] of http.headers ?? []) headers.set(name, value);
    }
    try {
      return formatError({ ...error.toJSON(), extensions }, error);
    } catch (err) {
      // The client gets Apollo's answer to a formatError that throws; the fault of ours is logged,
      // with the error it was formatting, since nothing else would ever show it.
      logger.error({ err, formatting: error.message }, 'formatError threw; the error was answered as an internal server error');
      return { message: 'Internal server error', extensions: { code: 'INTERNAL_SERVER_ERROR' } };
    }
  });
  // Written as a string: Node then sends the head and the body in one write of one string, where
  // a Buffer went out as a second chunk beside the head, after a copy of the whole body (that
  // copy and the extra chunk were about 3 % of a 50-item read's CPU). byteLength counts the
  // UTF-8 bytes without encoding them.
  const text = `${JSON.stringify({ errors, data: result.data, extensions: result.extensions })}\n`;
  res.statusCode = status;
  for (const [name, value] of headers) res.setHeader(name, value);
  res.setHeader('content-length', Buffer.byteLength(text));
  res.end(text);
}

/** An error's `extensions.http` as Apollo Server accepts it: an optional numeric status and optional headers in a Map. */
function isHttpHead(value: unknown): value is { status?: number; headers?: Map<string, string> } {
  return (
    isRecord(value) && (!('status' in value) || typeof value.status === 'number') && (!('headers' in value) || value.headers instanceof Map)
  );
}

/** Writes Apollo Server's answer to a request, as its Express integration does. */
async function writeApolloResponse(res: ServerResponse, response: HTTPGraphQLResponse): Promise<void> {
  for (const [key, value] of response.headers) res.setHeader(key, value);
  res.statusCode = response.status ?? 200;
  if (response.body.kind === 'complete') {
    const bytes = Buffer.from(response.body.string);
    res.setHeader('content-length', bytes.length);
    res.end(bytes);
    return;
  }
  for await (const chunk of response.body.asyncIterator) res.write(chunk);
  res.end();
}
