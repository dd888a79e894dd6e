import type { Server } from 'node:http';
import { GraphQLError, OperationTypeNode, type ExecutionResult } from 'graphql';
import { CloseCode } from 'graphql-ws';
import type { WebSocket } from 'ws';
import type { TokenVerifier } from '../auth/jwt';
import type { Principal } from '../auth/principal';
import type { Config } from '../config';
import type { OperationPipeline } from '../graphql/pipeline';
import { asGraphQLError, ErrorCode } from '../errors';
import { logger } from '../logger';
import { newRequestId, type RequestRecord } from '../graphql/record';
import { deliverDirectly, type DirectDelivery } from './direct-delivery';
import { type Operation, serveGraphQLOverWebSocket, type Transport } from './ws-transport';

export interface WebSocketDeps {
  config: Config;
  verifier: TokenVerifier;
  /** The operation pipeline shared with HTTP. */
  pipeline: OperationPipeline;
}

/**
 * What this endpoint keeps per socket: the verified caller. A class with its one field, not an
 * object literal: `{}` is made with room for four fields (56 bytes, against 32), on every socket.
 */
class SocketState {
  principal: Principal | undefined = undefined;
}

const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Closes each socket with 4403 when its token expires: one timer per second in which tokens expire,
 * shared by the sockets whose tokens expire in it, rather than a timer and its closure per socket
 * (sockets of one client, or of one token, expire together).
 */
class Expiries {
  private readonly bySecond = new Map<number, { sockets: Set<WebSocket>; timer: NodeJS.Timeout }>();

  /** Closes `socket` once `expiresAt` (epoch seconds) is reached; at once when it has been. */
  add(socket: WebSocket, expiresAt: number): void {
    if (expiresAt * 1000 <= Date.now()) {
      socket.close(CloseCode.Forbidden, 'Forbidden: the token has expired');
      return;
    }
    let due = this.bySecond.get(expiresAt);
    if (!due) {
      due = { sockets: new Set(), timer: this.timer(expiresAt) };
      this.bySecond.set(expiresAt, due);
    }
    due.sockets.add(socket);
  }

  /** Forgets `socket` (it closed), which was added with `expiresAt`. */
  remove(socket: WebSocket, expiresAt: number): void {
    const due = this.bySecond.get(expiresAt);
    if (!due?.sockets.delete(socket) || due.sockets.size > 0) return;
    clearTimeout(due.timer);
    this.bySecond.delete(expiresAt);
  }

  private timer(expiresAt: number): NodeJS.Timeout {
    const wait = expiresAt * 1000 - Date.now();
    return setTimeout(() => this.fire(expiresAt), Math.min(Math.max(wait, 0), MAX_TIMER_MS)).unref();
  }

  private fire(expiresAt: number): void {
    const due = this.bySecond.get(expiresAt);
    if (!due) return;
    // A wait longer than a timer can hold is waited for in steps.
    if (expiresAt * 1000 > Date.now()) {
      due.timer = this.timer(expiresAt);
      return;
    }
    this.bySecond.delete(expiresAt);
    for (const socket of due.sockets) socket.close(CloseCode.Forbidden, 'Forbidden: the token has expired');
  }
}

/** The most a close frame's reason may hold: 125 bytes of payload, 2 of them the close code (RFC 6455, 5.5). */
const MAX_CLOSE_REASON_BYTES = 123;

/** `reason` as a close frame can carry it: whole when it fits, else cut and ending in "…" (ws throws past the limit). */
function closeReason(reason: string): string {
  if (Buffer.byteLength(reason) <= MAX_CLOSE_REASON_BYTES) return reason;
  let cut = reason;
  // "…" is 3 bytes in UTF-8.
  while (Buffer.byteLength(cut) > MAX_CLOSE_REASON_BYTES - 3) cut = cut.slice(0, -1);
  return `${cut}…`;
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

  const expiries = new Expiries();

  const transport: Transport = serveGraphQLOverWebSocket<SocketState>({
    server,
    path: '/graphql',
    maxPayloadBytes: config.ws.maxPayloadBytes,
    keepAliveMs: config.ws.keepAliveMs,
    maxOperations: config.ws.maxSubscriptions,
    maxConnections: config.ws.maxConnections,
    newState: () => new SocketState(),
    onSocketClosed: ({ socket, state }) => {
      if (state.principal?.expiresAt) expiries.remove(socket, state.principal.expiresAt);
    },
    protocol: {
      connectionInitWaitTimeout: config.ws.initTimeoutMs,
      // A refused token closes the socket here, with a reason that says what is wrong with it (the
      // HTTP error's message), before graphql-ws's own close for `false`, a bare "Forbidden", which
      // then finds the socket closing and sends nothing.
      onConnect: async (ctx) => {
        const { socket, state } = ctx.extra;
        const token = tokenOf(ctx.connectionParams);
        if (!token) {
          socket.close(
            CloseCode.Forbidden,
            'Forbidden: connection_init needs the token in its payload, as { "authorization": "Bearer <token>" }.',
          );
          return false;
        }
        try {
          const principal = await deps.verifier.verify(token);
          state.principal = principal;
          // A socket that closed while its token was checked has nothing to expire.
          if (principal.expiresAt && socket.readyState === socket.OPEN) expiries.add(socket, principal.expiresAt);
          return true;
        } catch (thrown) {
          const error = asGraphQLError(thrown);
          if (error.extensions.code === ErrorCode.UNAUTHENTICATED) {
            socket.close(CloseCode.Forbidden, closeReason(`Forbidden: ${error.message}`));
          } else {
            // verify refuses every token it does not accept with UNAUTHENTICATED: anything else is
            // this server's fault, not the client's, and its message is not the client's to read.
            logger.error({ err: thrown }, 'checking a WebSocket token failed');
            socket.close(CloseCode.InternalServerError, 'Internal server error');
          }
          return false;
        }
      },
    },
    operate: async (connection, operation, payload) => {
      const frames = new OperationFrames(operation, pipeline, pipeline.records.begin(newRequestId()));
      // The log line is written once the operation has ended, after its last frame was formatted.
      operation.onEnd(frames);
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

  /** Writes the operation's log line; called once it has ended (see EndListener). */
  lifetimeEnded(): void {
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
