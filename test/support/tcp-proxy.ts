import { connect, createServer, type Server, type Socket } from 'node:net';
import { boundPort } from '../../src/infra/free-port';
import { registerFixture } from './fixtures';

export interface TcpProxy {
  url: string;
  /** Stops passing what clients send (it is kept): calls through the proxy hang, as on a stalled network. */
  hold(): void;
  /**
   * Resolves once a client has sent something while held (with `containing`, something that holds
   * that text, e.g. a DynamoDB operation's name): that call is now hanging on the proxy. Other
   * calls (a server's background sweeps) may hang on it first.
   */
  stalled(containing?: string): Promise<void>;
  /**
   * While on, a new connection is closed at once, as by a service that refuses them; the
   * connections already open pass as before.
   */
  refuse(on: boolean): void;
  /** Destroys every connection open through it, both ends, as a network that drops them (no close handshake of any protocol). */
  cut(): void;
  /** What clients sent through the proxy so far, as text, a chunk an entry (a request's body is most often one). */
  sent: string[];
  stop(): Promise<void>;
}

/**
 * A TCP proxy on 127.0.0.1 (`port`, or a free one) to the service at `target` (an http:// URL),
 * closed by the fixture registry after the test file.
 */
export async function startTcpProxy(target: string, port = 0): Promise<TcpProxy> {
  const { hostname, port: targetPort } = new URL(target);
  const sockets = new Set<Socket>();
  let held = false;
  let refusing = false;
  const waiters = new Set<{ containing?: string; resolve: () => void }>();
  const sent: string[] = [];
  const server: Server = createServer((client) => {
    if (refusing) {
      client.destroy();
      return;
    }
    const upstream = connect(Number(targetPort), hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => {});
      s.once('close', () => sockets.delete(s));
    }
    client.on('data', (chunk) => {
      sent.push(chunk.toString('latin1'));
      if (!held) upstream.write(chunk);
      else
        for (const waiter of waiters) {
          if (waiter.containing !== undefined && !chunk.toString('latin1').includes(waiter.containing)) continue;
          waiters.delete(waiter);
          waiter.resolve();
        }
    });
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${boundPort(server)}`;
  const stop = registerFixture(
    `tcp proxy ${url}`,
    () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  );
  return {
    url,
    hold: () => {
      held = true;
    },
    refuse: (on: boolean) => {
      refusing = on;
    },
    cut: () => {
      for (const s of sockets) s.destroy();
    },
    stalled: (containing?: string) => new Promise<void>((resolve) => waiters.add({ containing, resolve })),
    sent,
    stop,
  };
}
