import { connect, type Socket } from 'node:net';
import { startTestServer, type TestServer } from '../support/server';
import { fixture } from '../support/fixtures';

/**
 * A connection that trickles its request, one small piece a second, as a slowloris client does:
 * `headers` never finishes its header block; otherwise the headers are complete and the body trickles.
 */
function slowClient(port: number, kind: 'headers' | 'body'): { socket: Socket; closedAfterMs: Promise<number>; trickling: Promise<void> } {
  const opened = Date.now();
  const socket = fixture('slow client socket', connect(port, '127.0.0.1'), (s) => s.destroy());
  socket.on('error', () => {});
  socket.on('data', () => {});
  socket.once('connect', () => {
    socket.write(
      kind === 'headers'
        ? 'POST /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\n'
        : 'POST /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: 100000\r\n\r\n{',
    );
  });
  let trickled!: () => void;
  const trickling = new Promise<void>((resolve) => (trickled = resolve));
  const timer = setInterval(() => {
    if (!socket.destroyed && socket.writable) socket.write(kind === 'headers' ? 'x-slow: 1\r\n' : ' ');
    trickled();
  }, 1000);
  const closedAfterMs = new Promise<number>((resolve) =>
    socket.once('close', () => {
      clearInterval(timer);
      resolve(Date.now() - opened);
    }),
  );
  return { socket, closedAfterMs, trickling };
}

describe('slow clients (HTTP header, request and keep-alive timeouts, with the default settings)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });

  it('closes 50 slow-header and 50 slow-body connections within 40 s while a normal request still answers', async () => {
    const port = Number(new URL(server.url).port);
    const clients = [
      ...Array.from({ length: 50 }, () => slowClient(port, 'headers')),
      ...Array.from({ length: 50 }, () => slowClient(port, 'body')),
    ];
    // While they trickle (each has sent a piece after its first), a normal client gets its answer.
    await Promise.all(clients.map((c) => c.trickling));
    const started = performance.now();
    const res = await server.raw({ query: '{ viewer { tenantId } }' }, await server.token('acme'));
    const answerMs = performance.now() - started;
    expect(res.status).toBe(200);
    process.stdout.write(`normal request among 100 slow connections: ${answerMs.toFixed(0)} ms\n`);
    // A loose bound for a busy 2-core machine; it answers in a few milliseconds when idle. A
    // server held up by the slow connections would answer only once they time out (10 s).
    expect(answerMs).toBeLessThan(8000);

    // Any connection still open after 45 s counts as never closed.
    let giveUp: NodeJS.Timeout | undefined;
    const deadline = new Promise<number>((r) => (giveUp = setTimeout(() => r(Infinity), 45_000)));
    const closed = await Promise.all(clients.map(({ closedAfterMs }) => Promise.race([closedAfterMs, deadline])));
    clearTimeout(giveUp);
    const headers = closed.slice(0, 50);
    const bodies = closed.slice(50);
    process.stdout.write(
      `slow headers closed after ${Math.max(...headers)} ms at most; slow bodies after ${Math.max(...bodies)} ms at most\n`,
    );
    expect(Math.max(...headers)).toBeLessThan(40_000);
    expect(Math.max(...bodies)).toBeLessThan(40_000);
  }, 60_000);

  it('refuses connections beyond HTTP_MAX_CONNECTIONS and serves again once they close', async () => {
    const capped = await startTestServer({ env: { HTTP_MAX_CONNECTIONS: '3' } });
    const port = Number(new URL(capped.url).port);
    const held: Socket[] = [];
    for (let i = 0; i < 3; i++) {
      const socket = fixture('held socket', connect(port, '127.0.0.1'), (s) => s.destroy());
      socket.on('error', () => {});
      await new Promise((r) => socket.once('connect', r));
      held.push(socket);
    }
    // Node accepts a connection over the cap and closes it at once, without reading a byte of it.
    const extra = fixture('socket over the cap', connect(port, '127.0.0.1'), (s) => s.destroy());
    extra.on('error', () => {});
    let answered = false;
    extra.on('data', () => (answered = true));
    extra.once('connect', () => extra.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n'));
    await new Promise((r) => extra.once('close', r));
    expect(answered).toBe(false);
    for (const socket of held.splice(0)) socket.destroy();
    await new Promise((r) => setTimeout(r, 200));
    expect((await fetch(`${new URL(capped.url).origin}/healthz`)).status).toBe(200);
  });

  it('documents its limits as settings: the defaults bound headers to 10 s and a request to 30 s', () => {
    expect(server.config.http).toEqual({
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 30_000,
      keepAliveTimeoutMs: 5_000,
      maxConnections: 10_000,
    });
  });
});
