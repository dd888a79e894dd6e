import { connect, type Socket } from 'node:net';
import { startTestServer, type TestServer } from '../support/server';
import { fixture } from '../support/fixtures';
import { waitFor } from '../support/wait';

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

/**
 * The header and request timeouts of the slow-client test, shorter than the defaults (10 s and
 * 30 s, which the last test checks), so it waits seconds for what the defaults do in half a minute.
 */
const HEADERS_TIMEOUT_MS = 4000;
const REQUEST_TIMEOUT_MS = 8000;

describe('slow clients (HTTP header, request and keep-alive timeouts)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });

  it('closes 50 slow-header connections at the header timeout and 50 slow-body ones at the request timeout, while a normal request still answers', async () => {
    const quick = await startTestServer({
      env: { HTTP_HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS), HTTP_REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS) },
    });
    const port = Number(new URL(quick.url).port);
    const clients = [
      ...Array.from({ length: 50 }, () => slowClient(port, 'headers')),
      ...Array.from({ length: 50 }, () => slowClient(port, 'body')),
    ];
    // While they trickle (each has sent a piece after its first), a normal client gets its answer.
    await Promise.all(clients.map((c) => c.trickling));
    const started = performance.now();
    const res = await quick.raw({ query: '{ viewer { tenantId } }' }, await quick.token('acme'));
    const answerMs = performance.now() - started;
    expect(res.status).toBe(200);
    process.stdout.write(`normal request among 100 slow connections: ${answerMs.toFixed(0)} ms\n`);
    // A loose bound for a busy 2-core machine; it answers in a few milliseconds when idle. A
    // server held up by the slow connections would answer only once they time out (at the header
    // timeout, less the second or so they have been trickling).
    expect(answerMs).toBeLessThan(2500);

    // Any connection still open 10 s past the request timeout counts as never closed.
    let giveUp: NodeJS.Timeout | undefined;
    const deadline = new Promise<number>((r) => (giveUp = setTimeout(() => r(Infinity), REQUEST_TIMEOUT_MS + 10_000)));
    const closed = await Promise.all(clients.map(({ closedAfterMs }) => Promise.race([closedAfterMs, deadline])));
    clearTimeout(giveUp);
    const headers = closed.slice(0, 50);
    const bodies = closed.slice(50);
    process.stdout.write(
      `slow headers closed after ${Math.max(...headers)} ms at most; slow bodies after ${Math.max(...bodies)} ms at most\n`,
    );
    // The server looks for timed-out connections once a second: each closes within a few seconds
    // of its timeout on a busy machine. A slow-header connection closes at the header timeout,
    // well before the request timeout; a slow body, which sent its headers, only at the latter.
    expect(Math.max(...headers)).toBeGreaterThanOrEqual(HEADERS_TIMEOUT_MS);
    expect(Math.max(...headers)).toBeLessThan(REQUEST_TIMEOUT_MS);
    expect(Math.min(...bodies)).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS);
    expect(Math.max(...bodies)).toBeLessThan(REQUEST_TIMEOUT_MS + 5000);
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
    // It serves again once it has seen them close, which only a request shows: until then a
    // request is over the cap and closed unanswered (the fetch fails), so it is sent until answered.
    const healthz = `${new URL(capped.url).origin}/healthz`;
    const status = await waitFor(
      () =>
        fetch(healthz).then(
          (res) => res.status,
          () => undefined,
        ),
      'an answer from /healthz once the held connections closed',
      { ms: 10_000, everyMs: 20 },
    );
    expect(status).toBe(200);
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
