import type { Server as HttpServer, IncomingMessage } from 'node:http';
import type { GraphQLFormattedError } from 'graphql';
import {
  CloseCode,
  handleProtocols,
  makeServer,
  MessageType,
  validateMessage,
  type Context,
  type ServerOptions,
  type SubscribePayload,
} from 'graphql-ws';
import { type RawData, WebSocket, WebSocketServer } from 'ws';
import { callEndListener, type EndListener } from '../graphql/shared-subscriptions';
import { errorCode } from '../guards';
import { logger } from '../logger';
import { inSlices } from './slices';

/**
 * The body of the 400 that refuses a handshake offering only subprotocols this server does not
 * speak (`offered`: the Sec-WebSocket-Protocol header), in the shape of the HTTP errors.
 */
function subprotocolRefusal(offered: string): string {
  const names = offered.split(',').map((name) => name.trim());
  const legacy = names.includes('graphql-ws')
    ? ' "graphql-ws" is the legacy subscriptions-transport-ws protocol (Apollo\'s old WebSocketLink), which this server does not speak.'
    : '';
  const message =
    `This endpoint speaks GraphQL over WebSocket with the subprotocol graphql-transport-ws only (the graphql-ws ` +
    `library's createClient, GraphiQL); the handshake offered ${names.join(', ').slice(0, 200)}.${legacy}`;
  return JSON.stringify({ errors: [{ message, extensions: { code: 'BAD_REQUEST' } }] });
}

/** The close code ws reports when a socket closed without a close frame (RFC 6455 7.4.1). */
const ABNORMAL_CLOSURE = 1006;

/**
 * One operation a client started with `subscribe`, from the moment its message arrives until it
 * ends, and the only way its frames reach the socket. It ends exactly once, for whichever reason
 * comes first: the client sends `complete`, the socket closes (cleanly, abruptly, or because the
 * server closed it), the operation finishes (`complete` or `error` from the server), or the server
 * shuts down. Ending releases its slot in the per-socket limit at once and runs every cleanup
 * registered with `onEnd` (the bus listener, the replay buffer, the log line).
 *
 * No frame of an operation goes out after it ended, nor after the client completed it: the client
 * may reuse the id at once, and a frame of the old operation must not reach the new one.
 */
export class Operation {
  private cleanups: EndListener[] | null = [];
  /**
   * No frame of the operation may go out any more: the client completed it, its socket closed or
   * the server is closing, or its last frame (`complete` or `error`) went out.
   */
  private quiet = false;
  /**
   * False for a query or mutation: once started it runs to its end whatever the client says, so
   * a `complete` only silences it and its slot stays taken until it finishes.
   */
  stoppable = true;
  /**
   * The id's JSON when it is not just the id in quotes (it has characters JSON escapes); undefined
   * for every other id, so that no second copy of the id is kept for the operation's life.
   */
  private readonly escapedId: string | undefined;
  /** The length in UTF-8 of the start of each `next` frame of this operation, up to its payload. */
  private readonly nextPrefixBytes: number;

  constructor(
    readonly id: string,
    private readonly connection: OperationHost,
    /**
     * False when the socket already runs as many operations as it may: this one holds no slot and
     * must be refused (see `error`).
     */
    readonly admitted: boolean,
  ) {
    const json = JSON.stringify(id);
    this.escapedId = json.length === id.length + 2 ? undefined : json;
    this.nextPrefixBytes = NEXT_START.length + Buffer.byteLength(json) + NEXT_END.length;
  }

  get ended(): boolean {
    return this.cleanups === null;
  }

  /** Runs `cleanup` when the operation ends, or at once if it has ended already. */
  onEnd(cleanup: EndListener): void {
    // A new array of the exact length rather than a push: the first push gives an empty array room
    // for 17 entries (152 bytes), held by every idle subscription for its life, for its 2 or 3.
    if (this.cleanups) this.cleanups = this.cleanups.concat(cleanup);
    else callEndListener(cleanup, 'an operation');
  }

  /**
   * Writes a `next` frame whose payload is `payload`, JSON in UTF-8, without waiting for it;
   * `written` is called once it has left, or at once when it is dropped (the operation ended or
   * went quiet). The frame is built by copying: the id's bytes, then the payload's, which a share
   * key's subscribers all hand in as one buffer (see SharedSubscriptions.sharedPayload).
   */
  next(payload: Uint8Array, written: () => void = noop): void {
    if (this.cleanups === null || this.quiet) {
      written();
      return;
    }
    const frame = Buffer.allocUnsafe(this.nextPrefixBytes + payload.length + 1);
    let at = frame.write(NEXT_START, 0, 'latin1');
    if (this.escapedId === undefined) {
      frame[at++] = QUOTE;
      at += frame.write(this.id, at);
      frame[at++] = QUOTE;
    } else {
      at += frame.write(this.escapedId, at);
    }
    at += frame.write(NEXT_END, at, 'latin1');
    frame.set(payload, at);
    frame[frame.length - 1] = CLOSING_BRACE;
    this.connection.write(frame, written);
  }

  /** Ends the operation with an `error` frame carrying `errors` (already formatted), unless it went quiet. */
  error(errors: readonly GraphQLFormattedError[]): void {
    this.last({ id: this.id, type: MessageType.Error, payload: errors });
  }

  /**
   * Ends the operation with a `complete` frame, unless it went quiet: it ran out. Its source may
   * have ended it already (to release what it held); the frame still goes out then.
   */
  complete(): void {
    this.last({ id: this.id, type: MessageType.Complete });
  }

  /** The client completed the operation: a subscription ends at once, a query or mutation only goes quiet. */
  completedByClient(): void {
    this.quiet = true;
    if (this.stoppable) this.end();
  }

  /** True once it ended because its socket closed abruptly (see SubscriptionLifetime.abrupt). */
  abrupt = false;

  /** Ends the operation with no further frame: its socket closed (`abrupt`: without a close frame) or the server is closing. */
  cancel(abrupt = false): void {
    this.abrupt ||= abrupt && !this.ended;
    this.quiet = true;
    this.end();
  }

  /** Ends the operation (its source ran out or failed): its slot and everything registered with `onEnd` are released; later calls do nothing. */
  end(): void {
    const cleanups = this.cleanups;
    if (cleanups === null) return;
    this.cleanups = null;
    if (this.admitted) this.connection.release(this);
    for (const cleanup of cleanups) callEndListener(cleanup, 'an operation');
  }

  private last(message: object): void {
    if (!this.quiet) this.connection.write(JSON.stringify(message), noop);
    this.quiet = true;
    this.end();
  }
}

/** What an operation writes its frames to and gives its slot back to: its socket's connection. */
interface OperationHost {
  write(data: string | Uint8Array, written: () => void): void;
  /** The operation, admitted, has ended: its slot is free. */
  release(operation: Operation): void;
}

const noop = () => {};
/** A `next` frame is NEXT_START, the id's JSON, NEXT_END, the payload and a closing brace. */
const NEXT_START = '{"id":';
const NEXT_END = ',"type":"next","payload":';
const QUOTE = '"'.charCodeAt(0);
const CLOSING_BRACE = '}'.charCodeAt(0);

/**
 * The running operations of one socket, by client id. Most sockets run one, which is held without a
 * Map (an empty Map's table alone is a few hundred bytes, on every idle socket); more go in one.
 */
export class OperationsById {
  private one: Operation | undefined;
  private many: Map<string, Operation> | undefined;

  get(id: string): Operation | undefined {
    if (this.many) return this.many.get(id);
    return this.one?.id === id ? this.one : undefined;
  }

  has(id: string): boolean {
    return this.get(id) !== undefined;
  }

  /** Adds `operation` under its id, which must not be running (see `has`). */
  set(operation: Operation): void {
    if (this.many) this.many.set(operation.id, operation);
    else if (!this.one) this.one = operation;
    else {
      this.many = new Map([
        [this.one.id, this.one],
        [operation.id, operation],
      ]);
      this.one = undefined;
    }
  }

  delete(id: string): void {
    if (this.many) this.many.delete(id);
    else if (this.one?.id === id) this.one = undefined;
  }

  /** The operations now, as a list of their own (ending them while iterating is safe). */
  all(): Operation[] {
    if (this.many) return [...this.many.values()];
    return this.one ? [this.one] : [];
  }
}

/** What the transport keeps per socket; `extra` in graphql-ws's hooks. */
export interface Connection<S> {
  socket: WebSocket;
  /** The running operation of each client id the client has not completed. */
  operations: OperationsById;
  /** Operations holding a slot of the per-socket limit (some may be completed but still running). */
  held: number;
  /** Whatever the GraphQL layer keeps per socket (the principal, timers). */
  state: S;
  /** graphql-ws's context of the socket, once connection_init arrived: whether it was acknowledged. */
  context?: Context<Record<string, unknown> | undefined, Connection<S>>;
  /**
   * Writes a text frame at once, without waiting for it: a string, or its UTF-8 bytes. `written`
   * is called once the frame has left, or failed to; a frame for a socket that is no longer open
   * is dropped and `written` called at once. A peer that let more than MAX_BUFFERED_BYTES pile up
   * unread is dropped.
   */
  write(data: string | Uint8Array, written: () => void): void;
}

export interface TransportOptions<S> {
  server: HttpServer;
  path: string;
  maxPayloadBytes: number;
  keepAliveMs: number;
  /** Operations that may run at once on one socket; a further one reaches `operate` not admitted. */
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
  /**
   * Runs one operation an acknowledged client subscribed to, writing its frames through
   * `operation` (which it must end: `complete`, `error`, or by ending its source). A rejection is
   * a fault of this server: the socket is closed with 4500 and it is logged.
   */
  operate(connection: Connection<S>, operation: Operation, payload: SubscribePayload): Promise<void>;
  /** graphql-ws's protocol options for the connection itself (connection_init, ping, pong); `extra` is the Connection. */
  protocol: Pick<ServerOptions<Record<string, unknown> | undefined, Connection<S>>, 'connectionInitWaitTimeout' | 'onConnect'>;
}

export interface Transport {
  /** Open sockets, exported as the gauge `artissist_graphql_ws_connections`. */
  connectionCount(): number;
  /** Live operations on every socket, exported as the gauge `artissist_graphql_ws_subscriptions`. */
  operationCount(): number;
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

const PONG = JSON.stringify({ type: MessageType.Pong });

/** Sockets a keep-alive round pings in one turn of the event loop (see pingRound). */
const PING_SLICE = 500;

/** ws's send options for a text frame (its `binary` option, documented; bytes would otherwise go as binary). */
const TEXT = { binary: false } as const;

/** True when a frame may go out on `socket`: it is open and its peer still reads (else it is dropped). */
function writable(socket: WebSocket): boolean {
  // A socket that closed meanwhile drops the frame: its operations are ending anyway.
  if (socket.readyState !== socket.OPEN) return false;
  if (socket.bufferedAmount > MAX_BUFFERED_BYTES) {
    logger.debug({ buffered: socket.bufferedAmount }, 'websocket peer stopped reading; dropping it');
    socket.terminate();
    return false;
  }
  return true;
}

function onSocketError(err: Error): void {
  // ws closes the socket itself (1009 for an oversized frame, 1002 for a broken frame).
  logger.debug({ code: errorCode(err) }, 'websocket closed on a client error');
}

/** Message types a client may send (graphql-transport-ws); anything else is a client mistake. */
const CLIENT_MESSAGES = new Set<string>([
  MessageType.ConnectionInit,
  MessageType.Ping,
  MessageType.Pong,
  MessageType.Subscribe,
  MessageType.Complete,
]);

/** graphql-ws's table of a socket's subscriptions, empty for every socket of this transport (see its onConnect). */
const NO_SUBSCRIPTIONS: Readonly<Record<string, never>> = Object.freeze(Object.create(null));

/** What every socket of one transport shares. */
interface TransportShared<S> {
  options: TransportOptions<S>;
  /** The open sockets' connections. */
  connections: Set<SocketConnection<S>>;
  initWait: InitWait;
  /** Live operations on every socket. */
  operations: number;
  /** Called once the last open socket has closed, while the transport closes (see close). */
  lastClosed?: () => void;
}

/** graphql-ws's transport-independent core, as makeServer makes it. */
type Protocol<S> = ReturnType<typeof makeServer<Record<string, unknown> | undefined, Connection<S>>>;

/** What a socket's listeners hand to its connection. */
interface SocketEnds {
  received(raw: RawData, isBinary: boolean): void;
  socketClosed(code: number, reason: Buffer): void;
}

/**
 * A socket of this transport: ws's WebSocket, extended (ws's documented `WebSocket` option) with
 * what the transport keeps per socket, in the socket itself rather than in a map or set of the
 * transport's beside it (an entry each on every idle socket).
 */
class TransportSocket extends WebSocket {
  /** Its connection, from the moment the transport accepted it. */
  connection: SocketEnds | undefined = undefined;
  /** False from a keep-alive ping until its pong arrives (see pingRound). */
  answered = true;

  /**
   * A pong is noted here, on its way to any listener, rather than by a 'pong' listener of the
   * transport's: with a fourth kind of event besides 'message', 'error' and 'close', ws's table of
   * a socket's listeners (a dictionary) grows from 4 to 8 slots, 96 bytes more on every socket.
   */
  override emit(event: string | symbol, ...args: unknown[]): boolean {
    if (event === 'pong') this.answered = true;
    return super.emit(event, ...args);
  }
}

/**
 * One socket, as the transport keeps it: the Connection the GraphQL layer sees, and the socket
 * graphql-ws's core talks to (its `WebSocket`). One object with its methods on the prototype
 * rather than a closure per handler, since every idle socket holds it for as long as it is open:
 * thousands of them wait on a busy server.
 */
class SocketConnection<S> implements Connection<S> {
  readonly operations = new OperationsById();
  held = 0;
  readonly state: S;
  context?: Context<Record<string, unknown> | undefined, Connection<S>>;
  /** graphql-ws's handler of this socket's messages (connection_init, ping, pong, complete), once it gave it. */
  private handler: ((data: string) => Promise<void>) | undefined;
  /** graphql-ws's end of the connection, called once the socket closed. */
  private closed: ((code?: number, reason?: string) => Promise<void>) | undefined;

  constructor(
    readonly socket: TransportSocket,
    private readonly shared: TransportShared<S>,
  ) {
    this.state = shared.options.newState();
  }

  /** Hands the socket to graphql-ws's core, which runs connection_init and its timeout. */
  opened(protocol: Protocol<S>): void {
    this.closed = protocol.opened(this, this);
  }

  // graphql-ws's `WebSocket`.

  get protocol(): string {
    return this.socket.protocol;
  }

  send(data: string): Promise<void> {
    return new Promise<void>((resolve) => this.write(data, resolve));
  }

  close(code?: number, reason?: string): void {
    this.socket.close(code, reason);
  }

  onMessage(handler: (data: string) => Promise<void>): void {
    this.handler = handler;
  }

  onPing(): Promise<void> {
    return this.send(PONG);
  }

  // The Connection.

  write(data: string | Uint8Array, written: () => void): void {
    const { socket } = this;
    // ws sends bytes as a binary frame unless told otherwise; every graphql-ws message is text.
    if (writable(socket)) socket.send(data, TEXT, written);
    else written();
  }

  /** A message from the peer (see serveGraphQLOverWebSocket). */
  received(raw: RawData, isBinary: boolean): void {
    const { socket } = this;
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
    if (type === MessageType.Subscribe) {
      this.subscribe(message);
      return;
    }
    if (type === MessageType.Complete && typeof message?.id === 'string') {
      const operation = this.operations.get(message.id);
      if (operation) {
        // The client may reuse the id at once, whether or not the operation could stop.
        this.operations.delete(message.id);
        operation.completedByClient();
      }
    }
    // The rest of the protocol (connection_init, ping, pong, and checking a `complete`) is graphql-ws's.
    this.handler?.(data).catch((err: unknown) => this.fault(err));
  }

  /** The socket closed (ws emits `close` once): its operations end, the GraphQL layer hears of it, then graphql-ws. */
  socketClosed(code: number, reason: Buffer): void {
    const { shared } = this;
    shared.connections.delete(this);
    shared.initWait.delete(this);
    // 1006: no close frame came (the peer's process died, or the keep-alive terminated it). The
    // server's own shutdown cancels every operation before closing, so none is left to mark then.
    for (const operation of this.operations.all()) operation.cancel(code === ABNORMAL_CLOSURE);
    this.shared.options.onSocketClosed?.(this);
    this.closed?.(code, reason.toString()).catch((err) => logger.warn({ err }, 'websocket close handling failed'));
    if (shared.connections.size === 0) shared.lastClosed?.();
  }

  private fault(err: unknown): void {
    logger.error({ err }, 'websocket message handling failed');
    this.socket.close(CloseCode.InternalServerError, 'Internal server error');
  }

  /** An admitted operation ended (see OperationHost): its slot is free. */
  release(operation: Operation): void {
    if (this.operations.get(operation.id) === operation) this.operations.delete(operation.id);
    this.held--;
    this.shared.operations--;
  }

  /** Starts the operation a `subscribe` message asks for, checked as graphql-ws checks it. */
  private subscribe(message: unknown): void {
    const { socket, shared } = this;
    let payload: SubscribePayload;
    let id: string;
    try {
      const valid = validateMessage(message);
      if (valid.type !== MessageType.Subscribe) throw new Error('not a subscribe message');
      ({ id, payload } = valid);
    } catch {
      socket.close(CloseCode.BadRequest, 'Invalid message received');
      return;
    }
    if (!this.context?.acknowledged) {
      socket.close(CloseCode.Unauthorized, 'Unauthorized');
      return;
    }
    if (this.operations.has(id)) {
      socket.close(CloseCode.SubscriberAlreadyExists, `Subscriber for ${id.slice(0, 40)} already exists`);
      return;
    }
    // Within the limit the operation exists from now on, so a `complete` that overtakes its start ends it.
    const admitted = this.held < shared.options.maxOperations;
    const operation = new Operation(id, this, admitted);
    if (admitted) {
      this.operations.set(operation);
      this.held++;
      shared.operations++;
    }
    shared.options.operate(this, operation, payload).catch((err: unknown) => {
      this.fault(err);
      operation.cancel();
    });
  }
}

/**
 * The wait for connection_init (graphql-ws's `connectionInitWaitTimeout`): a socket that has not
 * sent it within `timeoutMs` of opening is closed with 4408, as graphql-ws closes it. graphql-ws
 * keeps a timer per socket for this; here every socket waits in one queue, in the order they
 * opened (so by deadline) under one timer. And the check runs in the check phase after the timer,
 * not in the timer: Node runs due timers before it reads sockets, so after the process was busy
 * past a deadline (a starved server holding tens of thousands of sockets), a timer closed clients
 * whose connection_init had arrived in time and was waiting to be read (test/e2e/websocket.test.ts;
 * likely the 267 of 50,000 sockets closed before subscribing in one loaded run of
 * bench/fanout-scale.ts). From the check phase, every message that arrived before is read.
 */
class InitWait {
  /** Sockets waiting for connection_init, in the order they opened, with their deadlines. */
  private readonly waiting = new Map<Connection<unknown>, number>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly timeoutMs: number) {}

  add(connection: Connection<unknown>): void {
    if (!(this.timeoutMs > 0 && Number.isFinite(this.timeoutMs))) return;
    this.waiting.set(connection, performance.now() + this.timeoutMs);
    this.timer ??= setTimeout(() => setImmediate(() => this.sweep()), this.timeoutMs);
  }

  /** The socket sent connection_init, or closed. */
  delete(connection: Connection<unknown>): void {
    this.waiting.delete(connection);
  }

  stop(): void {
    clearTimeout(this.timer);
    this.waiting.clear();
  }

  private sweep(): void {
    this.timer = undefined;
    const now = performance.now();
    for (const [connection, deadline] of this.waiting) {
      if (deadline > now) {
        this.timer = setTimeout(() => setImmediate(() => this.sweep()), deadline - now);
        return;
      }
      this.waiting.delete(connection);
      if (!connection.context) connection.socket.close(CloseCode.ConnectionInitialisationTimeout, 'Connection initialisation timeout');
    }
  }
}

/**
 * Serves graphql-ws's protocol (graphql-transport-ws) on `path` of the HTTP server.
 *
 * The connection itself (connection_init and its timeout, the acknowledgement, ping and pong, the
 * close) is graphql-ws's `makeServer`, its documented transport-independent core. Operations are
 * not: each `subscribe` is run here, as an `Operation` handed to `operate`, rather than through
 * graphql-ws's per-operation `for await` loop, its hooks and its bookkeeping. An idle subscription
 * then holds no loop, promise or hook state of the transport's, only its Operation; and what the
 * protocol says of operations is explicit here, where graphql-ws leaves it undefined or does
 * otherwise:
 * - a `subscribe` is checked as graphql-ws checks it, in its order: a malformed message closes
 *   with 4400 (graphql-ws's `validateMessage`), one before the acknowledgement with 4401, an id
 *   that still runs with 4409;
 * - every operation ends exactly once (see Operation), and only live operations count against
 *   `maxOperations`;
 * - a `complete` ends a subscription at once; a query or mutation cannot be stopped once it
 *   runs, so it keeps its slot until it finishes and only its result is dropped; either way the
 *   client may reuse the id at once, and no frame of the old operation goes out under it;
 * - client mistakes (a message type a client may not send, unparseable JSON) close with 4400, a
 *   frame over `maxPayloadBytes` closes with 1009 (by ws), and neither prints anything but one
 *   debug line; 4500 is left for faults of this server, which are logged;
 * - a ping is answered with a bare pong: echoing its payload, as graphql-ws does by default, lets
 *   a client make the server serialize whatever it sent (deep enough, that overflows the stack);
 * - a peer that lets more than MAX_BUFFERED_BYTES pile up unread is dropped.
 */
export function serveGraphQLOverWebSocket<S>(options: TransportOptions<S>): Transport {
  const initWait = new InitWait(options.protocol.connectionInitWaitTimeout ?? 3000);
  const protocol = makeServer<Record<string, unknown> | undefined, Connection<S>>({
    // The wait for connection_init is InitWait's, not a timer per socket of graphql-ws's.
    connectionInitWaitTimeout: 0,
    // The socket's context is kept, so that a `subscribe` can be checked against its acknowledgement.
    onConnect: async (ctx) => {
      ctx.extra.context = ctx;
      initWait.delete(ctx.extra);
      try {
        return await options.protocol.onConnect?.(ctx);
      } finally {
        // The payload (the bearer token) has served its purpose once checked: nothing reads it
        // later, and every socket would hold its copy of it for its whole life. graphql-ws
        // declares the field readonly, for hooks; this transport owns the context.
        Reflect.set(ctx, 'connectionParams', undefined);
        // Likewise graphql-ws's table of the socket's subscriptions, a dictionary of about 250 bytes
        // on every socket: this transport runs every `subscribe` itself (SocketConnection.subscribe),
        // so graphql-ws never adds to it, only looks in it (a `complete`, the close). One empty table,
        // frozen so that a write to it would fail loudly, serves every acknowledged socket.
        Reflect.set(ctx, 'subscriptions', NO_SUBSCRIPTIONS);
      }
    },
  });
  const connections = new Set<SocketConnection<S>>();
  const shared: TransportShared<S> = { options, connections, initWait, operations: 0 };
  const { maxConnections } = options;
  const wss = new WebSocketServer({
    server: options.server,
    path: options.path,
    maxPayload: options.maxPayloadBytes,
    handleProtocols,
    WebSocket: TransportSocket,
    // The transport's own `connections` are the sockets it holds: ws's set of them would be a second
    // entry, and a second 'close' listener (a closure, and an array of the two), on every socket.
    clientTracking: false,
    verifyClient: (
      { req }: { req: IncomingMessage },
      done: (ok: boolean, status?: number, message?: string, headers?: Record<string, string>) => void,
    ) => {
      // A handshake that offers subprotocols, none of them graphql-transport-ws, is answered 400
      // with a body that says so. Accepted, it would get no subprotocol, and a client that offered
      // one fails such a connection itself (RFC 6455 4.1: ws says "Server sent no subprotocol", a
      // browser reports 1006), so graphql-ws's 4406 close and its reason never reached it. A
      // handshake that offers none is still accepted and closed with 4406, which its client hears.
      // A handshake that comes while the transport closes is refused with a status its client can
      // act on: ws stops listening for upgrades only once every socket has gone (see close).
      if (closing) return done(false, 503, 'The server is shutting down', { 'Retry-After': '1' });
      const offered = req.headers['sec-websocket-protocol'];
      if (offered !== undefined && !handleProtocols(offered)) {
        logger.debug({ offered }, 'refusing a websocket handshake that offers no subprotocol this server speaks');
        return done(false, 400, subprotocolRefusal(offered), { 'Content-Type': 'application/json; charset=utf-8' });
      }
      // Past the cap a handshake is answered 503 with Retry-After, which a client can act on, rather
      // than accepted and closed at once. ws completes an accepted handshake synchronously, so the
      // count cannot be overtaken by handshakes in progress.
      if (maxConnections === undefined || connections.size < maxConnections) return done(true);
      logger.debug({ connections: connections.size }, 'websocket connection cap reached; refusing a handshake');
      done(false, 503, 'Too many WebSocket connections', { 'Retry-After': '5' });
    },
  });
  let closing = false;
  /**
   * Keep-alive: one timer for every socket (as ws's documentation does it), not one per socket.
   * Each round pings every open socket; a socket that has not answered the previous round's ping
   * by the next round is gone and is terminated, which ends its operations.
   *
   * A round runs in the check phase after the timer, not in the timer itself. Node runs due
   * timers before it reads the sockets: after the process was busy past a round's time (fanning
   * an event out to 10,000 sockets on a loaded machine takes seconds), the timer came first and
   * found the pongs that had arrived meanwhile still unread, and dropped live peers in the
   * thousands without a line (bench/fanout-stress.ts, at a 2 s interval: 3,738 of 10,000 reading
   * sockets in one run). From the check phase, every pong that arrived before the round is read.
   */
  /**
   * A round pings its sockets in slices of PING_SLICE, one slice per turn of the event loop: each
   * ping is a write of its own, and one round over 19,000 sockets held the loop for 0.4 s on a
   * loaded machine (bench/fanout-scale.ts), delaying every fan-out and subscribe meanwhile. Pongs
   * that arrive between slices are read before the next slice, as before the next round.
   */
  let sweeping = false;
  let dropped = 0;
  const pingOne = ({ socket }: SocketConnection<S>) => {
    if (socket.readyState !== socket.OPEN) return;
    if (!socket.answered) {
      socket.terminate();
      dropped++;
      return;
    }
    socket.answered = false;
    socket.ping();
  };
  const roundDone = () => {
    sweeping = false;
    // A drop is the peer's doing, but thousands at once say something about the network or this process.
    if (dropped > 0) logger.info({ dropped, keepAliveMs: options.keepAliveMs }, 'dropped websocket peers that did not answer a ping');
    dropped = 0;
  };
  const pingRound = () => {
    // A round still under way when the next is due (a process starved for the whole interval) is left to finish.
    if (sweeping || closing) return;
    sweeping = true;
    inSlices(connections, PING_SLICE, pingOne, roundDone);
  };
  const keepAlive = options.keepAliveMs > 0 ? setInterval(() => setImmediate(pingRound), options.keepAliveMs).unref() : undefined;

  // Every socket of this server is a TransportSocket (the WebSocketServer's `WebSocket` option);
  // the check says so to the compiler, at the cost of one prototype walk.
  function onSocketMessage(this: WebSocket, raw: RawData, isBinary: boolean): void {
    if (this instanceof TransportSocket) this.connection?.received(raw, isBinary);
  }
  function onSocketClose(this: WebSocket, code: number, reason: Buffer): void {
    if (this instanceof TransportSocket) this.connection?.socketClosed(code, reason);
  }

  wss.on('error', (err) => logger.warn({ err }, 'websocket server error'));
  wss.on('connection', (socket: TransportSocket) => {
    if (closing) {
      // An upgrade that slipped in while the server stops: nothing waits for its close handshake.
      socket.terminate();
      return;
    }
    const connection = new SocketConnection<S>(socket, shared);
    connections.add(connection);
    socket.connection = connection;
    connection.opened(protocol);
    initWait.add(connection);
    // The listeners are shared by every socket (ws calls them with the socket as `this`): an idle
    // socket holds no closure of its own for them, only its SocketConnection. Its pongs are noted
    // by the socket itself (TransportSocket.emit).
    socket.on('message', onSocketMessage);
    socket.on('error', onSocketError);
    socket.on('close', onSocketClose);
  });

  return {
    connectionCount: () => connections.size,
    operationCount: () => shared.operations,
    async close(graceMs = 1000) {
      closing = true;
      clearInterval(keepAlive);
      initWait.stop();
      // From now on a handshake is refused with 503 (verifyClient), and one that was accepted just
      // before is terminated at once (the 'connection' handler), so `connections` holds them all.
      // ws keeps listening for upgrades until they have gone: closed earlier, it would leave a late
      // handshake to the HTTP server's other 'upgrade' listener (src/http/server.ts), which answers
      // nothing, and the client would wait on an open socket.
      const closed = connections.size === 0 ? Promise.resolve() : new Promise<void>((resolve) => (shared.lastClosed = resolve));
      for (const connection of [...connections]) {
        for (const operation of connection.operations.all()) operation.cancel();
        connection.socket.close(1001, 'Going away');
      }
      // A peer that never answers the close handshake must not hold up shutdown.
      const terminate = setTimeout(() => {
        for (const { socket } of connections) socket.terminate();
      }, graceMs);
      await closed;
      clearTimeout(terminate);
      wss.close();
    },
  };
}
