import Redis, { Cluster, type RedisOptions } from 'ioredis';
import { type ClusterTarget, clusterTarget } from '../config';
import { logger } from '../logger';

export { type ClusterTarget, clusterTarget } from '../config';

/**
 * A command connection to the Redis that `url` names: a Cluster client for a cluster URL (it
 * follows MOVED and ASK and keeps the slot map, refreshed every `slotsRefreshMs` and on each
 * MOVED), a plain connection otherwise. `options` apply to every node's connection.
 */
export function commandClient(url: string, options: RedisOptions, slotsRefreshMs = 1000): Redis | Cluster {
  const cluster = clusterTarget(url);
  if (!cluster) return new Redis(url, options);
  return clusterClient(cluster, options, slotsRefreshMs);
}

/** A Cluster client of `cluster`'s nodes (see commandClient). */
export function clusterClient(cluster: ClusterTarget, options: RedisOptions, slotsRefreshMs = 1000): Cluster {
  return new Cluster(cluster.nodes, {
    redisOptions: { ...options, username: cluster.username, password: cluster.password },
    enableOfflineQueue: options.enableOfflineQueue ?? true,
    enableAutoPipelining: options.enableAutoPipelining ?? false,
    slotsRefreshInterval: slotsRefreshMs,
  });
}

/**
 * How many sockets `client` holds open now: its own for a plain connection, one a node for a
 * Cluster client. A socket ended by either side no longer counts, even where ioredis's status still
 * says `reconnecting` (a connection closed while it waited to reconnect never reaches `end`).
 * Read by the parts that own Redis connections, so tests can see each released at close.
 */
export function openSockets(client: Redis | Cluster): number {
  const nodes = client instanceof Cluster ? client.nodes('all') : [client];
  return nodes.filter((node) => node.stream !== undefined && !node.stream.destroyed && node.stream.readyState !== 'closed').length;
}

/** How long a closing connection waits for Redis to answer its QUIT before it drops the connection. */
export const QUIT_MS = 1_000;

/**
 * Ends `client`'s connection(s) for good: QUIT first, so the answers under way arrive, but for at
 * most QUIT_MS; then, or at once when the connection is not up, it is dropped, which fails the
 * commands still waiting (their callers take their own way out: the rate budgets their insurance
 * limiter, a publish the outbox). A Redis that stopped answering with its connections open (a
 * frozen process, a stalled network) never answers a QUIT, and an unbounded one held the
 * connection, every command on it and the server's shutdown for as long. Resolves once the
 * connection has ended (see ended). Never rejects: a QUIT that failed or went unanswered is what
 * the drop is for.
 */
export async function endConnection(client: Redis | Cluster): Promise<void> {
  if (client.status === 'ready') {
    let timer: NodeJS.Timeout | undefined;
    const unanswered = new Promise<void>((resolve) => (timer = setTimeout(resolve, QUIT_MS)));
    await Promise.race([client.quit().then(noop, noop), unanswered]);
    clearTimeout(timer);
  }
  // A QUIT that failed (the connection was down, or dying while its status still said `ready`:
  // refused without an offline queue, or queued behind a command that never went out), went
  // unanswered or was never sent leaves ioredis reconnecting for good: drop the connection. One
  // already ended has nothing to drop.
  const end = ended(client);
  if (client.status !== 'end') client.disconnect();
  await end;
}

/** How long ended() waits for a socket to close: past ioredis's disconnectTimeout (2 s), after which it destroys the socket. */
export const ENDED_MS = 3_000;

/** The statuses of an ioredis client (or cluster) whose socket may still be open. */
const OPEN = new Set(['connecting', 'connect', 'ready', 'disconnecting']);

/**
 * Resolves once `client`'s socket has closed (ioredis's documented 'close' or 'end' event), at once
 * when it has none open (ended, closed, or waiting to reconnect). A QUIT's answer or a disconnect()
 * comes before the socket closes: a caller that stopped there left it closing, with ioredis's
 * timer for it, in a process that should be done with it (a test's worker outlived its last file
 * that way). Bounded by ENDED_MS; a socket that outlives it is logged, never waited for.
 */
export function ended(client: Redis | Cluster): Promise<void> {
  if (!OPEN.has(client.status)) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      client.off('close', done);
      client.off('end', done);
      resolve();
    };
    const timer = setTimeout(() => {
      logger.warn({ code: 'REDIS_CONNECTION_NOT_ENDED', status: client.status }, `a Redis connection did not close within ${ENDED_MS} ms`);
      done();
    }, ENDED_MS);
    client.once('close', done);
    client.once('end', done);
  });
}

const noop = () => {};
