import type { Server } from 'node:http';
import {
  createSourceEventStream,
  execute,
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
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer, type WebSocket } from 'ws';
import type { TokenVerifier } from '../auth/jwt';
import type { Principal } from '../auth/principal';
import type { Config } from '../config';
import { Context, type ContextDeps } from '../context';
import { formatError } from '../errors';
import { logger } from '../logger';
import { queryLimits } from './server';

export interface WebSocketDeps extends ContextDeps {
  config: Config;
  schema: GraphQLSchema;
  verifier: TokenVerifier;
}

/** What the server keeps per socket. */
interface SocketState {
  principal?: Principal;
  subscriptions: Set<string>;
  expiryTimer?: NodeJS.Timeout;
}

const MAX_TIMER_MS = 2 ** 31 - 1;
const MAX_CACHED_DOCUMENTS = 1000;

/** Execution args plus the key under which subscribers may share an event's result. */
type SharedArgs = ExecutionArgs & { shareKey: string };

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

/** Runs a subscription: its source stream from the resolvers, each event executed once per share key. */
async function subscribeShared(args: SharedArgs): Promise<AsyncIterable<ExecutionResult> | ExecutionResult> {
  const source = await createSourceEventStream(args);
  if (!(Symbol.asyncIterator in (source as object))) return source as ExecutionResult;
  const iterator = (source as AsyncIterable<unknown>)[Symbol.asyncIterator]();
  return {
    [Symbol.asyncIterator]() {
      return {
        async next() {
          const next = await iterator.next();
          return next.done ? { done: true, value: undefined } : { done: false, value: await executeShared(args, next.value) };
        },
        async return() {
          await iterator.return?.();
          return { done: true, value: undefined };
        },
      };
    },
  };
}

/** Reads the token from connection_init's payload: `authorization: "Bearer …"` (any case) or `token`. */
function tokenOf(params: Record<string, unknown> | undefined): string | undefined {
  if (!params) return undefined;
  const header = params.authorization ?? params.Authorization;
  if (typeof header === 'string') return header.replace(/^Bearer\s+/i, '');
  return typeof params.token === 'string' ? params.token : undefined;
}

/**
 * GraphQL over WebSocket (the graphql-transport-ws protocol) on the HTTP server's port and path.
 * Authentication happens in connection_init with the same JWT as HTTP: a missing or bad token
 * closes the socket with 4403, and so does the token's expiry later. Operations get the same
 * depth, cost, alias and token limits as HTTP, at most `maxSubscriptions` run per socket, and
 * frames above `maxPayloadBytes` close the socket. Returns a function that closes every socket.
 */
export function attachWebSocket(server: Server, deps: WebSocketDeps): { close(): Promise<void> } {
  const { config } = deps;
  const wss = new WebSocketServer({ server, path: '/graphql', maxPayload: config.ws.maxPayloadBytes });
  const sockets = new WeakMap<WebSocket, SocketState>();
  const stateOf = (socket: WebSocket) => {
    let state = sockets.get(socket);
    if (!state) sockets.set(socket, (state = { subscriptions: new Set() }));
    return state;
  };
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
  const format = formatError(config.env !== 'production');

  const closeWhenExpired = (socket: WebSocket, state: SocketState, expiresAt: number) => {
    const wait = expiresAt * 1000 - Date.now();
    if (wait <= 0) {
      socket.close(CloseCode.Forbidden, 'Forbidden: the token has expired');
      return;
    }
    state.expiryTimer = setTimeout(() => closeWhenExpired(socket, state, expiresAt), Math.min(wait, MAX_TIMER_MS));
    state.expiryTimer.unref();
  };

  const disposable = useServer<Record<string, unknown>>(
    {
      schema: deps.schema,
      connectionInitWaitTimeout: config.ws.initTimeoutMs,
      subscribe: (args) => subscribeShared(args as SharedArgs),
      onConnect: async (ctx) => {
        const token = tokenOf(ctx.connectionParams);
        if (!token) return false;
        try {
          const principal = await deps.verifier.verify(token);
          const state = stateOf(ctx.extra.socket);
          state.principal = principal;
          if (principal.expiresAt) closeWhenExpired(ctx.extra.socket, state, principal.expiresAt);
          return true;
        } catch {
          return false;
        }
      },
      onSubscribe: (ctx, id, payload) => {
        const state = stateOf(ctx.extra.socket);
        if (state.subscriptions.size >= config.ws.maxSubscriptions) {
          return [new GraphQLError(`At most ${config.ws.maxSubscriptions} operations may run on one connection; complete some first.`, { extensions: { code: 'BAD_USER_INPUT' } })];
        }
        const { document, errors } = compile(payload.query);
        if (!document) return errors;
        state.subscriptions.add(id);
        const roles = [...(state.principal?.roles ?? [])].sort().join(',');
        const args: SharedArgs = {
          schema: deps.schema,
          document,
          operationName: payload.operationName,
          variableValues: payload.variables,
          // A subscription's context lives as long as the subscription; resolvers renew its loaders per event.
          contextValue: new Context(state.principal ?? null, deps),
          shareKey: `${payload.query}\u0000${JSON.stringify(payload.variables ?? null)}\u0000${payload.operationName ?? ''}\u0000${roles}`,
        };
        return args;
      },
      onNext: (_ctx, _id, _payload, _args, result) =>
        result.errors ? { ...result, errors: result.errors.map((e) => format(e.toJSON(), e)) } : undefined,
      onComplete: (ctx, id) => {
        stateOf(ctx.extra.socket).subscriptions.delete(id);
      },
      onClose: (ctx) => {
        clearTimeout(stateOf(ctx.extra.socket).expiryTimer);
      },
    },
    wss,
    config.ws.keepAliveMs,
  );
  wss.on('error', (err) => logger.warn({ err }, 'websocket server error'));

  return {
    // Closes every socket with 1001 (going away) and stops accepting new ones.
    close: async () => {
      await disposable.dispose();
    },
  };
}
