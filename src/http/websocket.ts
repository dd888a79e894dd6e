import type { Server } from 'node:http';
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import {
  createSourceEventStream,
  execute,
  getOperationAST,
  GraphQLError,
  parse,
  specifiedRules,
  validate,
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  type GraphQLSchema,
} from 'graphql';
import { CloseCode } from 'graphql-ws';
import type { WebSocket } from 'ws';
import type { TokenVerifier } from '../auth/jwt';
import type { Principal } from '../auth/principal';
import type { Config } from '../config';
import { checkVariables, jsonVariablesError } from '../common/json-limits';
import { Context, type ContextDeps } from '../context';
import { formatError } from '../errors';
import { runWithBudget } from '../infra/deadline';
import { beginRequest, logRequest, noteOperation, runInRequest, withRequestId, type RequestRecord } from './request-log';
import { queryLimits } from './server';
import { serveGraphQLOverWebSocket, type Operation, type Transport } from './ws-transport';

export interface WebSocketDeps extends ContextDeps {
  config: Config;
  schema: GraphQLSchema;
  verifier: TokenVerifier;
}

/** What the GraphQL layer keeps per socket. */
interface SocketState {
  principal?: Principal;
  expiryTimer?: NodeJS.Timeout;
}

const MAX_TIMER_MS = 2 ** 31 - 1;
const MAX_CACHED_DOCUMENTS = 1000;

/** Execution args plus the key under which subscribers may share an event's result, and the operation they serve. */
type SharedArgs = ExecutionArgs & { shareKey: string; operation: Operation; record: RequestRecord };

/**
 * Results of executing one event for one kind of subscription, shared by every subscriber that
 * sent the same document and variables with the same roles. The bus hands all subscribers of a
 * topic the same event object, so the first subscriber to reach it executes, the rest reuse the
 * result: one execution per event instead of one per subscriber. This relies on subscription
 * payload fields depending on the event, the arguments and the caller's roles only — never on
 * the individual user — which holds for every subscription field of this schema.
 */
const sharedResults = new WeakMap<object, Map<string, Promise<ExecutionResult>>>();

function executeShared(args: SharedArgs, event: unknown): Promise<ExecutionResult> {
  if (typeof event !== 'object' || event === null) return Promise.resolve(execute({ ...args, rootValue: event }) as ExecutionResult);
  let byKey = sharedResults.get(event);
  if (!byKey) sharedResults.set(event, (byKey = new Map()));
  let result = byKey.get(args.shareKey);
  if (!result) byKey.set(args.shareKey, (result = Promise.resolve(execute({ ...args, rootValue: event }))));
  return result;
}

/**
 * Runs a subscription for `operation`: its source stream from the resolvers, each event executed
 * once per share key. The operation's end returns the source at once (its bus listener and
 * buffer go), and no result is handed on after it ended, so no `next` frame follows a `complete`.
 */
async function subscribeShared(args: SharedArgs): Promise<AsyncGenerator<ExecutionResult> | ExecutionResult> {
  const { operation } = args;
  const source = await createSourceEventStream(args);
  if (!isAsyncIterable(source)) return source;
  const iterator = source[Symbol.asyncIterator]();
  operation.onEnd(() => void iterator.return?.());
  return (async function* deliver() {
    try {
      while (!operation.ended) {
        const next = await iterator.next();
        if (next.done || operation.ended) return;
        const result = await executeShared(args, next.value);
        if (operation.ended) return;
        yield result;
      }
    } finally {
      operation.end();
    }
  })();
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return typeof value === 'object' && value !== null && Symbol.asyncIterator in value;
}

/** Reads the token from connection_init's payload: `authorization: "Bearer …"` (any case) or `token`. */
function tokenOf(params: Record<string, unknown> | undefined): string | undefined {
  if (!params) return undefined;
  const header = params.authorization ?? params.Authorization;
  if (typeof header === 'string') return header.replace(/^Bearer\s+/i, '');
  return typeof params.token === 'string' ? params.token : undefined;
}

/** The counts a server holds for its WebSocket clients, named as the Prometheus gauges that export them. */
export interface WebSocketCounts {
  graphql_ws_connections: number;
  graphql_ws_subscriptions: number;
}

export interface WebSocketEndpoint {
  counts(): WebSocketCounts;
  /** Ends every operation and closes every socket with 1001, terminating peers that do not answer within `graceMs`. */
  close(graceMs?: number): Promise<void>;
}

/**
 * GraphQL over WebSocket (the graphql-transport-ws protocol) on the HTTP server's port and path.
 * Authentication happens in connection_init with the same JWT as HTTP: a missing or bad token
 * closes the socket with 4403, and so does the token's expiry later. Operations get the same
 * depth, cost, alias and token limits as HTTP, at most `maxSubscriptions` live operations run per
 * socket, and frames above `maxPayloadBytes` close the socket. Every operation ends, with
 * everything it holds, when the client completes it, its socket closes, its stream ends or the
 * server closes (see Operation in ws-transport.ts).
 */
export function attachWebSocket(server: Server, deps: WebSocketDeps): WebSocketEndpoint {
  const { config } = deps;
  const rules = [...specifiedRules, ...queryLimits(config).validationRules];
  // Subscribers mostly send the same few documents: parse and validate each distinct one once.
  const documents = new Map<string, { document?: DocumentNode; errors: readonly GraphQLError[] }>();
  const compile = (query: string) => {
    let compiled = documents.get(query);
    if (!compiled) {
      try {
        const document = parse(query, { maxTokens: config.limits.maxTokens });
        const errors = validate(deps.schema, document, rules).map((e) => new GraphQLError(e.message, { nodes: e.nodes, extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } }));
        compiled = { document: errors.length ? undefined : document, errors };
      } catch (error) {
        compiled = { errors: [new GraphQLError(error instanceof GraphQLError ? error.message : String(error), { extensions: { code: 'GRAPHQL_PARSE_FAILED' } })] };
      }
      if (documents.size >= MAX_CACHED_DOCUMENTS) documents.delete(documents.keys().next().value as string);
      documents.set(query, compiled);
    }
    return compiled;
  };
  const formatInRequest = withRequestId(formatError(config.env !== 'production'));

  const closeWhenExpired = (socket: WebSocket, state: SocketState, expiresAt: number) => {
    const wait = expiresAt * 1000 - Date.now();
    if (wait <= 0) {
      socket.close(CloseCode.Forbidden, 'Forbidden: the token has expired');
      return;
    }
    state.expiryTimer = setTimeout(() => closeWhenExpired(socket, state, expiresAt), Math.min(wait, MAX_TIMER_MS));
    state.expiryTimer.unref();
  };

  const transport: Transport<SocketState> = serveGraphQLOverWebSocket<SocketState>({
    server,
    path: '/graphql',
    maxPayloadBytes: config.ws.maxPayloadBytes,
    keepAliveMs: config.ws.keepAliveMs,
    maxOperations: config.ws.maxSubscriptions,
    newState: () => ({}),
    onSocketClosed: ({ state }) => clearTimeout(state.expiryTimer),
    protocol: {
      schema: deps.schema,
      connectionInitWaitTimeout: config.ws.initTimeoutMs,
      subscribe: (args) => subscribeShared(args as SharedArgs),
      onConnect: async (ctx) => {
        const token = tokenOf(ctx.connectionParams);
        if (!token) return false;
        try {
          const principal = await deps.verifier.verify(token);
          const { socket, state } = ctx.extra;
          state.principal = principal;
          if (principal.expiresAt) closeWhenExpired(socket, state, principal.expiresAt);
          return true;
        } catch {
          return false;
        }
      },
      onSubscribe: (ctx, id, payload) => {
        const operation = transport.operationOf(ctx.extra, id);
        if (!operation) {
          return [new GraphQLError(`At most ${config.ws.maxSubscriptions} operations may run on one connection; complete some first.`, { extensions: { code: 'BAD_USER_INPUT' } })];
        }
        const { document, errors } = compile(payload.query);
        if (!document) return errors;
        // Checked before anything walks the variables recursively (the share key's JSON.stringify, coercion).
        const tooDeep = checkVariables(payload.variables);
        if (tooDeep) return [jsonVariablesError(tooDeep.variable, tooDeep.violation)];
        // One log line and, for queries and mutations, one metrics sample per operation, when it ends.
        const record = beginRequest(randomUUID());
        const operationAst = getOperationAST(document, payload.operationName);
        noteOperation(record, operationAst?.operation, operationAst?.name?.value);
        operation.onEnd(() => {
          logRequest(record);
          if (record.operationType !== 'subscription') {
            deps.metrics?.recordOperation({ type: record.operationType, name: record.operationName, code: record.outcome, seconds: (performance.now() - record.startedAt) / 1000 });
          }
        });
        const { principal } = ctx.extra.state;
        const roles = [...(principal?.roles ?? [])].sort().join(',');
        const args: SharedArgs = {
          schema: deps.schema,
          document,
          operationName: payload.operationName,
          variableValues: payload.variables,
          // A subscription's context lives as long as the subscription; resolvers renew its loaders per event.
          contextValue: new Context(principal ?? null, deps),
          shareKey: `${payload.query}\u0000${JSON.stringify(payload.variables ?? null)}\u0000${payload.operationName ?? ''}\u0000${roles}`,
          operation,
          record,
        };
        return args;
      },
      // Queries and mutations over WebSocket get the same time budget as over HTTP. Subscriptions do
      // not: a budget is a deadline, and a subscription's later events would all be past it.
      execute: (args) => runWithBudget(config.requestBudgetMs, () => execute(args)),
      onNext: (_ctx, _id, _payload, args, result) => {
        if (!result.errors) return undefined;
        const errors = runInRequest((args as SharedArgs).record, () => result.errors!.map((e) => formatInRequest(e.toJSON(), e)));
        // HTTP status hints (Apollo's `extensions.http`) mean nothing on a socket.
        return { ...result, errors: errors.map(({ extensions: { http: _http, ...extensions } = {}, ...error }) => ({ ...error, extensions })) };
      },
    },
  });

  return {
    counts: () => ({ graphql_ws_connections: transport.connectionCount(), graphql_ws_subscriptions: transport.operationCount() }),
    close: (graceMs) => transport.close(graceMs),
  };
}
