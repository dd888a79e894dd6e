import type { Server } from 'node:http';
import { GraphQLError, OperationTypeNode, type ExecutionResult } from 'graphql';
import { CloseCode } from 'graphql-ws';
import type { WebSocket } from 'ws';
import type { TokenVerifier } from '../auth/jwt';
import type { Principal } from '../auth/principal';
import type { Config } from '../config';
import type { OperationPipeline } from '../graphql/pipeline';
import { asGraphQLError } from '../errors';
import { newRequestId, type RequestRecord } from '../graphql/record';
import { deliverDirectly, type DirectDelivery } from './direct-delivery';
import { type Operation, serveGraphQLOverWebSocket, type Transport } from './ws-transport';

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

const MAX_TIMER_MS = 2 ** 31 - 1;

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

  const transport: Transport = serveGraphQLOverWebSocket<SocketState>({
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
    },
    operate: async (connection, operation, payload) => {
      const frames = new OperationFrames(operation, pipeline, pipeline.records.begin(newRequestId()));
      // The log line is written once the operation has ended, after its last frame was formatted.
      operation.onEnd(frames.logEnd.bind(frames));
      if (!operation.admitted) {
        return frames.refuse([
          new GraphQLError(`At most ${config.ws.maxSubscriptions} operations may run on one connection; complete some first.`, {
            extensions: { code: 'BAD_USER_INPUT' },
          }),
        ]);
      }
      const principal = connection.state.principal ?? null;
      const admission = await pipeline.admit(payload, principal, frames.record);
      if (admission.errors) return frames.refuse(admission.errors);
      // Completed by the client before it started: nothing runs.
      if (operation.ended) return;
      if (admission.operation.operation !== OperationTypeNode.SUBSCRIPTION) {
        // A query or mutation runs to its end once started; a `complete` only silences it.
        operation.stoppable = false;
        return frames.result(await pipeline.execute(admission.args));
      }
      const stream = await pipeline.stream({ ...admission.args, lifetime: operation, principal });
      // The source stream could not be created (the field's `subscribe` threw): one result with its errors.
      if (!(Symbol.asyncIterator in stream)) return frames.result(stream);
      deliverDirectly(stream, frames);
    },
  });

  return {
    counts: () => ({ graphql_ws_connections: transport.connectionCount(), graphql_ws_subscriptions: transport.operationCount() }),
    close: (graceMs) => transport.close(graceMs),
  };
}

/**
 * The frames of one operation over WebSocket, with its request record: results, errors formatted
 * with its request id, and its log line. It is also the direct delivery of a subscription's
 * results (see deliverDirectly). One object with its methods on the prototype, not closures over
 * the operation's start, since an idle subscription holds it for as long as it is subscribed.
 */
class OperationFrames implements DirectDelivery {
  constructor(
    readonly target: Operation,
    private readonly pipeline: OperationPipeline,
    readonly record: RequestRecord,
  ) {}

  /** Writes the operation's log line; called once it has ended. */
  logEnd(): void {
    this.pipeline.records.finish(this.record);
  }

  /** Ends the operation with an `error` frame carrying `errors`, formatted (masked) with its request id. */
  refuse(errors: readonly GraphQLError[]): void {
    this.target.error(this.pipeline.records.formatErrors(this.record, errors));
  }

  /** The JSON of a result of this operation's own, its errors formatted with its request id, in UTF-8. */
  private own(value: ExecutionResult): Buffer {
    return Buffer.from(
      JSON.stringify(value.errors ? { ...value, errors: this.pipeline.records.formatErrors(this.record, value.errors) } : value),
    );
  }

  /** The one result of a query, a mutation or a subscription that could not start, then `complete`. */
  result(value: ExecutionResult): void {
    this.target.next(this.own(value));
    this.target.complete();
  }

  payload(value: ExecutionResult): Uint8Array {
    return this.pipeline.subscriptions.sharedPayload(value) ?? this.own(value);
  }

  /** A stream that fails midway ends with an `error` frame, formatted (masked) like every other error. */
  finished(failure?: { error: unknown }): void {
    if (failure) this.refuse([asGraphQLError(failure.error)]);
    else this.target.complete();
  }
}
