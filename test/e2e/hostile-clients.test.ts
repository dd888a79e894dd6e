import { SignJWT } from 'jose';
import WebSocket from 'ws';
import { eventually, rawConnection, rawSocket, type RawSocket } from '../support/ws';
import { startTestServer, TEST_SECRET, type TestServer } from '../support/server';
import { fixture } from '../support/fixtures';

const secret = new TextEncoder().encode(TEST_SECRET);

/** A correctly signed token for tenant `acme`; `lifetime` seconds from now, or no `exp` at all when null. */
function token(lifetime: number | null): Promise<string> {
  let jwt = new SignJWT({ tenantId: 'acme', roles: ['editor'] }).setProtectedHeader({ alg: 'HS256' }).setSubject('mallory').setIssuedAt();
  if (lifetime !== null) jwt = jwt.setExpirationTime(Math.floor(Date.now() / 1000) + lifetime);
  return jwt.sign(secret);
}

describe('tokens and aliases from a hostile client', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ env: { AUTH_MAX_TOKEN_LIFETIME_SECONDS: '3600' } });
  });

  const viewer = { query: '{ viewer { tenantId } }' };

  it('refuses a token without exp over HTTP with 401 UNAUTHENTICATED', async () => {
    const res = await server.raw(viewer, await token(null));
    expect(res.status).toBe(401);
    expect(res.body.errors[0]).toMatchObject({
      message: 'The token has no exp claim; tokens must expire.',
      extensions: { code: 'UNAUTHENTICATED' },
    });
    // The same token with an expiry an hour away is fine.
    const ok = await server.raw(viewer, await token(3600));
    expect(ok).toMatchObject({ status: 200, body: { data: { viewer: { tenantId: 'acme' } } } });
  });

  it('closes a WebSocket that authenticates with a token without exp with 4403', async () => {
    const socket = await rawSocket(server.url);
    socket.send({ type: 'connection_init', payload: { authorization: `Bearer ${await token(null)}` } });
    expect((await socket.closed).code).toBe(4403);
  });

  it('refuses a token valid for longer than AUTH_MAX_TOKEN_LIFETIME_SECONDS, over HTTP and WebSocket', async () => {
    const tooLong = await token(2 * 3600);
    const res = await server.raw(viewer, tooLong);
    expect(res.status).toBe(401);
    expect(res.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
    expect(res.body.errors[0].message).toMatch(/longer than the 3600 s/);
    const socket = await rawSocket(server.url);
    socket.send({ type: 'connection_init', payload: { authorization: `Bearer ${tooLong}` } });
    expect((await socket.closed).code).toBe(4403);
  });

  it('counts every alias toward MAX_ALIASES, __typename ones included', async () => {
    const aliases = (n: number) => `{ ${Array.from({ length: n }, (_, i) => `a${i}: __typename`).join(' ')} }`;
    const limit = server.config.limits.maxAliases;
    const within = await server.raw({ query: aliases(limit) }, await token(3600));
    expect(within.status).toBe(200);
    expect(Object.keys(within.body.data)).toHaveLength(limit);

    // A client that accepts the GraphQL-over-HTTP response type gets the 4xx of a document that does not validate.
    const over = await server.raw({ query: aliases(limit + 1) }, await token(3600), { accept: 'application/graphql-response+json' });
    expect(over.status).toBe(400);
    expect(over.body.errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
    expect(over.body.errors[0].message).toContain(`Aliases limit of ${limit} exceeded, found ${limit + 1}`);

    // Over WebSocket the same document gets an error for that operation, and the socket stays open.
    const socket = await rawSocket(server.url);
    socket.send({ type: 'connection_init', payload: { authorization: `Bearer ${await token(3600)}` } });
    await socket.next('connection_ack');
    socket.send({ id: '1', type: 'subscribe', payload: { query: aliases(limit + 1) } });
    const error = await socket.next('error', 5000, '1');
    expect(error.payload[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
  });
});

/** A WebSocket handshake's outcome: `open`, or the HTTP status and Retry-After of a refused one. */
function handshake(url: string): Promise<{ opened: WebSocket } | { status: number; retryAfter?: string }> {
  // Terminated by the fixture registry after the test, should it have opened.
  const ws = fixture('handshake socket', new WebSocket(url.replace(/^http/, 'ws'), 'graphql-transport-ws'), (s) => s.terminate());
  ws.on('error', () => {});
  return new Promise((resolve) => {
    ws.once('open', () => resolve({ opened: ws }));
    ws.once('unexpected-response', (_req, res) => {
      resolve({ status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'] });
      res.resume();
      ws.terminate();
    });
  });
}

describe('the WebSocket connection cap (WS_MAX_CONNECTIONS)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ env: { WS_MAX_CONNECTIONS: '5' } });
  });

  it('refuses handshakes past the cap with 503 and Retry-After, serves HTTP meanwhile, and accepts again once a socket closed', async () => {
    const tokenOk = await token(3600);
    const held: RawSocket[] = [];
    for (let i = 0; i < 5; i++) held.push(await rawConnection(server.url, tokenOk));
    expect(server.app.counts().graphql_ws_connections).toBe(5);
    // Twenty more at once: every one is refused before a socket exists.
    const refused = await Promise.all(Array.from({ length: 20 }, () => handshake(server.url)));
    expect(refused).toEqual(Array.from({ length: 20 }, () => ({ status: 503, retryAfter: '5' })));
    expect(server.app.counts().graphql_ws_connections).toBe(5);
    // The held sockets still work, and so does HTTP.
    held[0].send({ type: 'subscribe', id: '1', payload: { query: '{ viewer { tenantId } }' } });
    expect((await held[0].next('next', 5000, '1')).payload.data.viewer.tenantId).toBe('acme');
    expect((await server.raw({ query: '{ viewer { tenantId } }' }, tokenOk)).status).toBe(200);
    // One closes: its place is free again.
    held.shift()!.ws.close();
    await eventually(
      () => server.app.counts().graphql_ws_connections,
      (n) => n === 4,
      10_000,
    );
    const again = await handshake(server.url);
    expect('opened' in again).toBe(true);
  });
});
