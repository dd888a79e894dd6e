import { createServer, type AddressInfo } from 'node:net';

/** Asks the OS for a port that is free on 127.0.0.1 right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** The TCP port a listening server is bound to; throws when it is not listening on one (a pipe, or not yet). */
export function boundPort(server: { address(): AddressInfo | string | null }): number {
  const address = server.address();
  if (typeof address === 'object' && address) return address.port;
  throw new Error(`The server is not listening on a TCP port (its address is ${JSON.stringify(address)}).`);
}

/**
 * Resolves when `port` on `host` can be listened on right now (it listens and closes again at
 * once); rejects with the listen error otherwise (EADDRINUSE when it is taken, EACCES when the
 * port is privileged, …). Port 0 always resolves. A start-up asks this before it starts anything
 * slow, so a taken port is said at once; the real listen later can still meet a port taken since.
 */
export function ensurePortFree(port: number, host: string): Promise<void> {
  if (port === 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.unref();
    probe.once('error', reject);
    probe.listen(port, host, () => probe.close(() => resolve()));
  });
}
