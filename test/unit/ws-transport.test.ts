import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import WebSocket from 'ws';
import { type Connection, serveGraphQLOverWebSocket, type Transport } from '../../src/http/ws-transport';

/*
 * The transport's hold on an idle socket, on an in-process HTTP server with real ws clients (no
 * GraphQL, no database): what it keeps per socket is what every one of thousands of idle
 * subscribers keeps (docs/benchmarks.md, line 5), and the keep-alive and the close still work
 * with it.
 */
describe('the WebSocket transport', () => {
  const accepted: Array<Connection<unknown>> = [];
  type Served = { server: Server; transport: Transport; url: string };
  let main: Served;

  /**
   * A transport on an in-process HTTP server, pinging every `keepAliveMs`. The clients run in this
   * process too, so a stall of it longer than a round (a loaded machine) leaves a pong unread
   * when the next round comes, and the round drops a live peer: only the keep-alive's own test
   * runs rounds, at an interval a stall of the test process does not reach.
   */
  async function serve(keepAliveMs: number): Promise<Served> {
    const server = createServer();
    // As the server's own (src/http/server.ts): a listener of its own for upgrades beside ws's, so
    // Node leaves an upgrade no one answers open rather than destroying it.
    server.on('upgrade', () => {});
    const transport = serveGraphQLOverWebSocket<unknown>({
      server,
      path: '/graphql',
      maxPayloadBytes: 64 * 1024,
      keepAliveMs,
      maxOperations: 1,
      newState: () => undefined,
      operate: async (_connection, operation) => operation.complete(),
      protocol: {
        onConnect: (ctx) => {
          accepted.push(ctx.extra);
          return true;
        },
      },
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return { server, transport, url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}/graphql` };
  }

  async function stop({ server, transport }: Served): Promise<void> {
    await transport.close(100);
    await new Promise((resolve) => server.close(resolve));
  }

  beforeAll(async () => {
    main = await serve(60_000);
  });

  afterAll(() => stop(main));

  /** A client acknowledged by the transport of `served`, and the server's connection of it; a close before the acknowledgement fails. */
  async function acknowledged(options: WebSocket.ClientOptions = {}, served: Served = main) {
    const client = new WebSocket(served.url, 'graphql-transport-ws', options);
    const closed = new Promise<number>((resolve) => client.once('close', resolve));
    await new Promise((resolve, reject) => client.once('open', resolve).once('error', reject));
    const count = accepted.length;
    client.send(JSON.stringify({ type: 'connection_init' }));
    await Promise.race([
      new Promise((resolve) => client.once('message', resolve)),
      closed.then((code) => Promise.reject(new Error(`the socket closed (${code}) before its acknowledgement`))),
    ]);
    expect(accepted.length).toBe(count + 1);
    return { client, closed, connection: accepted[count] };
  }

  it("keeps three kinds of listener on a socket and one 'close' listener (a fourth kind doubles ws's table of them)", async () => {
    const { client, connection } = await acknowledged();
    expect(connection.socket.eventNames().sort()).toEqual(['close', 'error', 'message']);
    expect(connection.socket.listenerCount('close')).toBe(1);
    client.close();
  });

  it('keeps a peer that answers its pings, and terminates one that stops answering', async () => {
    const pinging = await serve(200);
    const answering = await acknowledged({}, pinging);
    const silent = await acknowledged({ autoPong: false }, pinging);
    let pings = 0;
    const pinged = new Promise<void>((resolve) => answering.client.on('ping', () => ++pings === 5 && resolve()));
    // Unanswered, the first round's ping ends the socket at the next round (1006: no close frame).
    expect(await silent.closed).toBe(1006);
    await pinged;
    expect(answering.client.readyState).toBe(WebSocket.OPEN);
    answering.client.close();
    await stop(pinging);
  });

  it('closes every socket with 1001 on close, terminating a peer that does not finish the close handshake', async () => {
    const polite = await acknowledged();
    const stalled = await acknowledged();
    // A peer that stops reading never sees the close frame, let alone answers it. (Paused in the
    // same turn as the close, which stops the keep-alive: no ping round ends it first.)
    const socket = (stalled.client as unknown as { _socket: { pause(): void; resume(): void } })._socket;
    socket.pause();
    // The stalled peer holds the close open for its grace, while a late handshake comes.
    const closing = main.transport.close(1000);
    // A handshake while it closes gets a 503 it can act on, not an open socket nobody answers.
    const late = new WebSocket(main.url, 'graphql-transport-ws');
    const refused = new Promise<number | undefined>((resolve, reject) => {
      late.once('unexpected-response', (_req, res) => resolve(res.statusCode));
      late.once('open', () => reject(new Error('a handshake during close was accepted')));
      late.once('error', reject);
    });
    // Unanswered, the handshake outlasts the close (the stalled peer holds it for its grace).
    const answer = await Promise.race([refused, closing.then(() => 'the close ended first')]);
    late.terminate();
    expect(answer).toBe(503);
    await closing;
    expect(main.transport.connectionCount()).toBe(0);
    expect(await polite.closed).toBe(1001);
    socket.resume();
    await stalled.closed;
  });
});
