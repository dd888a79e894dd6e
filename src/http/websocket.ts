import type { Server } from 'node:http';
import { randomUUID } from 'node:crypto';
import { GraphQLError, type ExecutionArgs } from 'graphql';
import { CloseCode } from 'graphql-ws';
import type { WebSocket } from 'ws';
import type { TokenVerifier } from '../auth/jwt';
import type { Principal } from '../auth/principal';
import type { Config } from '../config';
import type { OperationPipeline } from '../graphql/pipeline';
import type { RequestRecord } from '../graphql/record';
import { deliverDirectly } from './direct-delivery';
import { serveGraphQLOverWebSocket, type Connection, type Operation, type Transport } from './ws-transport';

export interface WebSocketDeps {
  config: Config;
  verifier: TokenVerifier;
  /** The operation pipeline shared with HTTP. */
  pipeline: OperationPipeline;
}

/** What this endpoint keeps per socket: the verified caller and the timer of its token's expiry. */
interface SocketState {
  principal?: Principal;
  expiryTimer?: NodeJS.Timeout;
}

/** What an operation on a socket needs beyond its execution args: its lifetime, its record, its caller and its socket. */
interface OperationState {
  operation: Operation;
  record: RequestRecord;
  principal: Principal | null;
  connection: Connection<SocketState>;
}

/**
 * The state of each operation, by the execution args onSubscribe returned for it: graphql-ws hands
 * that same object to `subscribe` and `onNext`, whose types know only ExecutionArgs.
 */
const operationStates = new WeakMap<ExecutionArgs, OperationState>();

/** The state onSubscribe kept for `args`; every args graphql-ws runs came from onSubscribe. */
function stateOf(args: ExecutionArgs): OperationState {
  const state = operationStates.get(args);
  if (!state) throw new Error('An operation reached execution without passing onSubscribe.');
  return state;
}

const MAX_TIMER_MS = 2 ** 31 - 1;

/** The record of each operation refused in onSubscribe, by its first error, for onError. */
const refusals = new WeakMap<GraphQLError, RequestRecord>();

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
 * GraphQL over WebSocket (the graphql-transport-ws protocol) on the HTTP server's port and path:
 * the transport (ws-transport.ts) carrying the operation pipeline, plus this socket policy:
 * - authentication in connection_init with the same JWT as HTTP: a missing or bad token closes
 *   the socket with 4403, and so does the token's expiry later;
 * - at most `WS_MAX_CONNECTIONS` sockets per instance (a further handshake gets 503) and at most
 *   `WS_MAX_SUBSCRIPTIONS` live operations per socket (a further one gets an error);
 * - every operation ends, with everything it holds, when the client completes it, its socket
 *   closes, its stream ends or the server closes (see Operation in ws-transport.ts), and then
 *   writes its log line.
 */
export function attachWebSocket(server: Server, deps: WebSocketDeps): WebSocketEndpoint {
  const { config, pipeline } = deps;

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
    maxConnections: config.ws.maxConnections,
    newState: () => ({}),
    onSocketClosed: ({ state }) => clearTimeout(state.expiryTimer),
    protocol: {
      connectionInitWaitTimeout: config.ws.initTimeoutMs,
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
      onSubscribe: async (ctx, id, payload) => {
        const record = pipeline.begin(randomUUID());
        const operation = transport.operationOf(ctx.extra, id);
        const refuse = (errors: readonly GraphQLError[]) => {
          refusals.set(errors[0], record);
          // Refused by the limit there is no operation to end, so the line is written once the error is formatted.
          if (operation) operation.onEnd(() => pipeline.finish(record));
          return [...errors];
        };
        if (!operation) {
          return refuse([
            new GraphQLError(`At most ${config.ws.maxSubscriptions} operations may run on one connection; complete some first.`, {
              extensions: { code: 'BAD_USER_INPUT' },
            }),
          ]);
        }
        const trusted = pipeline.trusted.resolve(payload);
        if (trusted.error) return refuse([trusted.error]);
        const prepared = await pipeline.prepare(trusted.query ?? payload.query);
        if (!prepared.document) return refuse(prepared.errors);
        pipeline.note(record, prepared.document, payload.operationName);
        // Checked (depth first, then coercion) before anything else walks the variables (the share key, execution).
        const variableErrors = pipeline.variableErrors(prepared.document, payload.operationName, payload.variables);
        if (variableErrors.length) return refuse(variableErrors);
        // A query or mutation runs to its end once started; only a subscription stops on `complete`.
        operation.stoppable = record.operationType === 'subscription';
        operation.onEnd(() => pipeline.finish(record));
        const principal = ctx.extra.state.principal ?? null;
        const args: ExecutionArgs = {
          schema: pipeline.schema,
          document: prepared.document,
          operationName: payload.operationName,
          variableValues: payload.variables,
          contextValue: pipeline.context(principal),
        };
        operationStates.set(args, { operation, record, principal, connection: ctx.extra });
        return args;
      },
      execute: (args) => pipeline.execute(args),
      // A subscription's results bypass graphql-ws's per-result loop: see direct-delivery.ts.
      subscribe: async (args) => {
        const { operation, principal, record, connection } = stateOf(args);
        const stream = await pipeline.stream({ ...args, lifetime: operation, principal });
        if (!(Symbol.asyncIterator in stream)) return stream;
        return deliverDirectly(stream, {
          id: operation.id,
          write: connection.write,
          lifetime: operation,
          payload: (result) =>
            pipeline.sharedPayload(result) ??
            JSON.stringify({ ...result, errors: result.errors && pipeline.formatErrors(record, result.errors) }),
        });
      },
      // Errors of an operation refused in onSubscribe: formatted like every other error, with its request id.
      onError: (ctx, id, _payload, errors) => {
        const record = refusals.get(errors[0]);
        if (!record) return undefined;
        const formatted = pipeline.formatErrors(record, errors);
        if (!transport.operationOf(ctx.extra, id)) pipeline.finish(record);
        return formatted;
      },
      // Only queries and mutations reach onNext; subscription results are formatted in `subscribe`.
      onNext: (_ctx, _id, _payload, args, result) =>
        result.errors ? { ...result, errors: pipeline.formatErrors(stateOf(args).record, result.errors) } : undefined,
    },
  });

  return {
    counts: () => ({ graphql_ws_connections: transport.connectionCount(), graphql_ws_subscriptions: transport.operationCount() }),
    close: (graceMs) => transport.close(graceMs),
  };
}
