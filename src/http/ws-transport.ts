import type { IncomingMessage, Server as HttpServer } from 'node:http';
import { CloseCode, handleProtocols, makeServer, MessageType, type ServerOptions } from 'graphql-ws';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import { errorCode } from '../guards';
import { logger } from '../logger';

/**
 * One operation a client started with `subscribe`, from the moment its message arrives until it
 * ends. It ends exactly once, for whichever reason comes first: the client sends `complete`, the
 * socket closes (cleanly, abruptly, or because the server closed it), the source runs out, or the
 * server shuts down. Ending releases its slot in the per-socket limit at once and runs every
 * cleanup registered with `onEnd` (the bus listener, the replay buffer).
 *
 * This is our contract, not graphql-ws's: graphql-ws ends only what passes its `isAsyncGenerator`
 * check, keeps an operation's `for await` running until the source yields again, and keys its
 * bookkeeping by the client's id, which a client may reuse after `complete`. So the transport
 * reads `complete` and `close` itself and ends the operation here.
 */
export class Operation {
  private readonly cleanups: Array<() => void> = [];
  private done = false;
  /**
   * False for a query or mutation: once started it runs to its end whatever the client says, so
   * a `complete` only silences it and its slot stays taken until it finishes.
   */
  stoppable = true;

  constructor(
    readonly id: string,
    private readonly release: (operation: Operation) => void,
  ) {}

  get ended(): boolean {
    return this.done;
  }

  /** Runs `cleanup` when the operation ends, or at once if it has ended already. */
  onEnd(cleanup: () => void): void {
    if (this.done) run(cleanup);
    else this.cleanups.push(cleanup);
  }

  /** Ends the operation; later calls do nothing. */
  end(): void {
    if (this.done) return;
    this.done = true;
    this.release(this);
    for (const cleanup of this.cleanups.splice(0)) run(cleanup);
  }
}

function run(cleanup: () => void): void {
  try {
    cleanup();
  } catch (err) {
    logger.warn({ err }, 'an operation cleanup failed');
  }
}

/** What the transport keeps per socket; `extra` in graphql-ws's hooks. */
export interface Connection<S> {
  socket: WebSocket;
  request: IncomingMessage;
  /** The running operation of each client id the client has not completed. */
  operations: Map<string, Operation>;
  /** Operations holding a slot of the per-socket limit (some may be completed but still running). */
  held: number;
  /** Whatever the GraphQL layer keeps per socket (the principal, timers). */
  state: S;
  /**
   * Writes a frame at once, without waiting for it (the live path's sends; see direct-delivery.ts).
   * `written` is called once the frame has left, or failed to; a frame for a socket that is no
   * longer open is dropped and `written` called at once. A peer that let more than
   * MAX_BUFFERED_BYTES pile up unread is dropped, as for every other frame.
   */
  write(data: string, written: () => void): void;
}

export interface TransportOptions<S> {
  server: HttpServer;
  path: string;
  maxPayloadBytes: number;
  keepAliveMs: number;
  /** Operations that may run at once on one socket; further ones get `operationRefused`'s errors. */
  maxOperations: number;
  /**
   * Open sockets this server holds at most; a further handshake is refused with HTTP 503 and
   * `Retry-After`, before any socket exists (unlimited when absent).
   */
  maxConnections?: number;
  /** The per-socket state the GraphQL layer starts with. */
  newState(): S;
  /** Called once a socket has closed and its operations have ended. */
  onSocketClosed?(connection: Connection<S>): void;
  /** graphql-ws's protocol options; `extra` is the Connection. */
  protocol: ServerOptions<Record<string, unknown> | undefined, Connection<S>>;
}

export interface Transport<S> {
  /** Open sockets, exported as the gauge `artissist_graphql_ws_connections`. */
  connectionCount(): number;
  /** Live operations on every socket, exported as the gauge `artissist_graphql_ws_subscriptions`. */
  operationCount(): number;
  /** The operation a client id names on a socket (for the protocol hooks); none when it was refused by the limit. */
  operationOf(connection: Connection<S>, id: string): Operation | undefined;
  /**
   * Stops accepting sockets, ends every operation, closes every socket with 1001 and terminates
   * those whose peer has not finished the close handshake within `graceMs`. Resolves once every
   * socket is closed.
   */
  close(graceMs?: number): Promise<void>;
}

/**
 * Bytes a socket may have waiting to be written before the peer counts as gone: a client that
 * stops reading must not make the server hold an ever-growing buffer.
 */
const MAX_BUFFERED_BYTES = 4 * 1024 * 1024;

/** Message types a client may send (graphql-transport-ws); anything else is a client mistake. */
const PONG = JSON.stringify({ type: MessageType.Pong });

const CLIENT_MESSAGES = new Set<string>([
  MessageType.ConnectionInit,
  MessageType.Ping,
  MessageType.Pong,
  MessageType.Subscribe,
  MessageType.Complete,
]);

/**
 * Serves graphql-ws's protocol on `path` of the HTTP server, over graphql-ws's `makeServer` (its
 * documented transport-independent core) rather than its `useServer` adapter. What the adapter
 * left undefined is explicit here:
 * - every operation is an `Operation` ended by `complete`, by the socket's close, by the source's
 *   end or by `close()`, and only live operations count against `maxOperations`;
 * - a client id reused after `complete` starts a new operation only once graphql-ws has finished
 *   the old one (its message callback resolves then), so no frame of the old one goes out under
 *   the new one's id;
 * - a `complete` ends a subscription at once; a query or mutation cannot be stopped once it
 *   runs, so it keeps its slot until it finishes and only its result is dropped;
 * - client mistakes (a message type a client may not send, unparseable JSON) close with 4400, a
 *   frame over `maxPayloadBytes` closes with 1009 (by ws), and neither prints anything but one
 *   debug line; 4500 is left for faults of this server, which are logged;
 * - a ping is answered with a bare pong: echoing its payload, as graphql-ws does by default, lets
 *   a client make the server serialize whatever it sent (deep enough, that overflows the stack);
 * - a peer that lets more than MAX_BUFFERED_BYTES pile up unread is dropped.
 */
export function serveGraphQLOverWebSocket<S>(options: TransportOptions<S>): Transport<S> {
  const protocol = makeServer<Record<string, unknown> | undefined, Connection<S>>(options.protocol);
  const connections = new Set<Connection<S>>();
  const { maxConnections } = options;
  const wss = new WebSocketServer({
    server: options.server,
    path: options.path,
    maxPayload: options.maxPayloadBytes,
    handleProtocols,
    // Past the cap a handshake is answered 503 with Retry-After, which a client can act on, rather
    // than accepted and closed at once. ws completes an accepted handshake synchronously, so the
    // count cannot be overtaken by handshakes in progress.
    ...(maxConnections === undefined
      ? {}
      : {
          verifyClient: (
            _info: unknown,
            done: (ok: boolean, status?: number, message?: string, headers?: Record<string, string>) => void,
          ) => {
            if (connections.size < maxConnections) return done(true);
            logger.debug({ connections: connections.size }, 'websocket connection cap reached; refusing a handshake');
            done(false, 503, 'Too many WebSocket connections', { 'Retry-After': '5' });
          },
        }),
  });
  let operationCount = 0;
  let closing = false;

  wss.on('error', (err) => logger.warn({ err }, 'websocket server error'));
  wss.on('connection', (socket, request) => {
    if (closing) {
      // An upgrade that slipped in while the server stops: nothing waits for its close handshake.
      socket.terminate();
      return;
    }
    /** True when the frame may go out: the socket is open and its peer still reads. */
    const writable = () => {
      // A socket that closed meanwhile drops the frame: its operations are ending anyway.
      if (socket.readyState !== socket.OPEN) return false;
      if (socket.bufferedAmount > MAX_BUFFERED_BYTES) {
        logger.debug({ buffered: socket.bufferedAmount }, 'websocket peer stopped reading; dropping it');
        socket.terminate();
        return false;
      }
      return true;
    };
    const connection: Connection<S> = {
      socket,
      request,
      operations: new Map(),
      held: 0,
      state: options.newState(),
      write: (data, written) => {
        if (writable()) socket.send(data, written);
        else written();
      },
    };
    connections.add(connection);
    // graphql-ws's callback for each subscribe message resolves when that operation is over; a
    // reused id waits on it.
    const running = new Map<string, Promise<void>>();
    let onMessage: ((data: string) => Promise<void>) | undefined;

    const fault = (err: unknown) => {
      logger.error({ err }, 'websocket message handling failed');
      socket.close(CloseCode.InternalServerError, 'Internal server error');
    };
    const release = (operation: Operation) => {
      if (connection.operations.get(operation.id) === operation) connection.operations.delete(operation.id);
      connection.held--;
      operationCount--;
    };
    const send = (data: string) => new Promise<void>((resolve) => connection.write(data, resolve));

    const closed = protocol.opened(
      {
        protocol: socket.protocol,
        send,
        close: (code, reason) => socket.close(code, reason),
        onMessage: (cb) => (onMessage = cb),
        onPing: () => send(PONG),
      },
      connection,
    );

    socket.on('message', (raw: RawData, isBinary: boolean) => {
      const data = isBinary ? '' : raw.toString();
      let message: { type?: unknown; id?: unknown } | null = null;
      try {
        message = JSON.parse(data);
      } catch {
        // Not JSON: graphql-ws's own check below closes with 4400.
      }
      const type = message && typeof message === 'object' ? message.type : undefined;
      if (message && typeof type === 'string' && !CLIENT_MESSAGES.has(type)) {
        logger.debug({ type: type.slice(0, 40) }, 'websocket client sent a message type clients may not send');
        socket.close(CloseCode.BadRequest, `Invalid message received: a client may not send "${type.slice(0, 40)}"`);
        return;
      }
      const id = typeof message?.id === 'string' ? message.id : undefined;
      if (type === MessageType.Complete && id !== undefined) {
        const operation = connection.operations.get(id);
        if (operation?.stoppable) operation.end();
        // A running query or mutation lets go of its id (the client may reuse it) but not of its slot.
        else if (operation) connection.operations.delete(id);
      }
      if (type !== MessageType.Subscribe || id === undefined) {
        onMessage?.(data).catch(fault);
        return;
      }
      if (connection.operations.has(id)) {
        socket.close(CloseCode.SubscriberAlreadyExists, `Subscriber for ${id.slice(0, 40)} already exists`);
        return;
      }
      // Within the limit the operation exists from now on, so a `complete` that overtakes its start ends it.
      let operation: Operation | undefined;
      if (connection.held < options.maxOperations) {
        operation = new Operation(id, release);
        connection.operations.set(id, operation);
        connection.held++;
        operationCount++;
      }
      const start = () => (operation?.ended ? undefined : onMessage?.(data));
      const previous = running.get(id);
      const over = () => {
        operation?.end();
        if (running.get(id) === handled) running.delete(id);
      };
      // One promise per operation for its whole life, rather than a chain of catch and finally.
      const handled: Promise<void> = (previous ? previous.then(start) : Promise.resolve(start())).then(over, (err: unknown) => {
        fault(err);
        over();
      });
      running.set(id, handled);
    });

    socket.on('error', (err) => {
      // ws closes the socket itself (1009 for an oversized frame, 1002 for a broken frame).
      logger.debug({ code: errorCode(err) }, 'websocket closed on a client error');
    });

    let pongWait: NodeJS.Timeout | undefined;
    const ping =
      options.keepAliveMs > 0
        ? setInterval(() => {
            if (socket.readyState !== socket.OPEN) return;
            // A peer that does not answer within the interval is gone: terminate, which ends its operations.
            pongWait ??= setTimeout(() => socket.terminate(), options.keepAliveMs);
            socket.ping();
          }, options.keepAliveMs)
        : undefined;
    socket.on('pong', () => {
      clearTimeout(pongWait);
      pongWait = undefined;
    });

    socket.once('close', (code, reason) => {
      clearInterval(ping);
      clearTimeout(pongWait);
      for (const operation of [...connection.operations.values()]) operation.end();
      connections.delete(connection);
      options.onSocketClosed?.(connection);
      closed(code, reason.toString()).catch((err) => logger.warn({ err }, 'websocket close handling failed'));
    });
  });

  return {
    connectionCount: () => connections.size,
    operationCount: () => operationCount,
    operationOf: (connection, id) => connection.operations.get(id),
    async close(graceMs = 1000) {
      closing = true;
      // ws calls back once every socket it accepted has closed, including ones accepted from now on.
      const closed = new Promise<void>((resolve) => wss.close(() => resolve()));
      for (const connection of [...connections]) {
        for (const operation of [...connection.operations.values()]) operation.end();
        connection.socket.close(1001, 'Going away');
      }
      // A peer that never answers the close handshake must not hold up shutdown.
      const terminate = setTimeout(() => {
        for (const socket of wss.clients) socket.terminate();
      }, graceMs);
      await closed;
      clearTimeout(terminate);
    },
  };
}
