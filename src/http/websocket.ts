import type { Server } from 'node:http';
import { GraphQLError, parse, specifiedRules, validate, type DocumentNode, type GraphQLSchema } from 'graphql';
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
        let document: DocumentNode;
        try {
          document = parse(payload.query, { maxTokens: config.limits.maxTokens });
        } catch (error) {
          return [error instanceof GraphQLError ? error : new GraphQLError(String(error))].map((e) => new GraphQLError(e.message, { extensions: { code: 'GRAPHQL_PARSE_FAILED' } }));
        }
        const errors = validate(deps.schema, document, rules);
        if (errors.length > 0) return errors.map((e) => new GraphQLError(e.message, { nodes: e.nodes, extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } }));
        state.subscriptions.add(id);
        return {
          schema: deps.schema,
          document,
          operationName: payload.operationName,
          variableValues: payload.variables,
          // A subscription's context lives as long as the subscription; resolvers renew its loaders per event.
          contextValue: new Context(state.principal ?? null, deps),
        };
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
