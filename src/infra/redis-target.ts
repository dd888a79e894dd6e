import Redis, { Cluster, type RedisOptions } from 'ioredis';
import { type ClusterTarget, clusterTarget } from '../config';

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
    slotsRefreshInterval: slotsRefreshMs,
  });
}
