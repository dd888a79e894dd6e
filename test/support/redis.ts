import { spawn, type ChildProcess } from 'node:child_process';
import Redis from 'ioredis';
import { spawnPort } from './ports';
import { outlivingTheTest, registerFixture } from './fixtures';
import { waitFor } from './wait';

export interface RedisServer {
  url: string;
  port: number;
  stop(): Promise<void>;
  /** SIGKILL: Redis dies as a crashed machine would, without closing its connections. */
  kill(): Promise<void>;
  /** SIGSTOP: Redis stops answering, its connections open (a hung process, a stalled network); `thaw` (SIGCONT) resumes it. */
  freeze(): void;
  thaw(): void;
}

/**
 * Starts a throwaway redis-server on a free 127.0.0.1 port (no persistence), or on `port` to
 * bring one back where clients expect it. Registered with the fixture registry, which stops it
 * after the test (or block, or file) that started it; one brought back on its port belongs to the
 * block of the Redis it replaces. `stop` and `kill` are for tests of an outage.
 */
export function startRedis(port?: number): Promise<RedisServer> {
  return port === undefined ? spawnPort().then(startOn) : outlivingTheTest(() => startOn(port));
}

async function startOn(port: number): Promise<RedisServer> {
  const child: ChildProcess = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    stdio: 'ignore',
  });
  // A spawn that fails (no redis-server installed) emits 'error' and never 'exit'.
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.once('error', () => resolve());
  });
  const stop = registerFixture(`redis-server :${port}`, async () => {
    // A frozen one takes SIGTERM only once it runs again.
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGCONT');
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  });
  const url = `redis://127.0.0.1:${port}`;
  const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  await waitFor(
    async () => {
      if (child.exitCode !== null) throw new Error('redis-server exited at start (is the redis-server package installed?)');
      try {
        await probe.connect();
        await probe.ping();
        return true;
      } catch {
        return false;
      }
    },
    'redis-server did not start (is the redis-server package installed?)',
    { ms: 10_000 },
  );
  probe.disconnect();
  return {
    url,
    port,
    stop,
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
    freeze: () => child.kill('SIGSTOP'),
    thaw: () => child.kill('SIGCONT'),
  };
}
