import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import Redis from 'ioredis';
import { endConnection } from '../../src/infra/redis-target';
import { spawnPort } from './ports';
import { registerFixture, tempDir } from './fixtures';
import { waitFor } from './wait';

const run = promisify(execFile);

/** One redis-server of a cluster: its port, and whether it runs. */
export interface ClusterNode {
  port: number;
  /** `127.0.0.1:port`, as CLUSTER SLOTS and the slot map name it. */
  address: string;
  /** The node's id in the cluster. */
  id: string;
  running(): boolean;
  /** SIGKILL: the node dies as a crashed machine would. */
  kill(): Promise<void>;
  /**
   * The test's connection to this node: one, opened on first use and again once it has ended (the
   * node was killed), and closed after the test file.
   */
  client(): Redis;
}

export interface RedisCluster {
  /** The REDIS_URL that names it: `redis+cluster://` and every node. */
  url: string;
  /**
   * The REDIS_URL of the nodes running now. A client in the test's own process (an event bus) is
   * given it, not `url`, after a node was killed: ioredis's first slot refresh asks its startup nodes
   * in random order, and for one that refuses it calls disconnect() on its ended connection, whose
   * 2-second timer (its disconnectTimeout, for a close that came before) outlives the client's own
   * close and held the jest worker past the 500 ms it is given to exit after its last file.
   */
  liveUrl(): string;
  nodes: ClusterNode[];
  /** The nodes that are masters now, as a running node sees them, with the slots each holds. */
  masters(): Promise<Array<{ node: ClusterNode; slots: number }>>;
  /** The master of `slot` now, as a running node sees it. */
  masterOf(slot: number): Promise<ClusterNode>;
  /**
   * Resolves once every running node says the cluster is `ok`, agrees on every slot's master, and
   * names a running node as each (after a master was killed: once its replica took over).
   */
  settled(ms?: number): Promise<void>;
  /**
   * Moves `slot` from its master to `to` as an operator does: SETSLOT IMPORTING on the target,
   * MIGRATING on the source, MIGRATE of the slot's keys, then SETSLOT NODE on every master.
   */
  migrate(slot: number, to: ClusterNode): Promise<void>;
}

/** Redis's answer to CLUSTER NODES, a line per node: `id address flags master …`. */
function parseNodes(text: string): Array<{ id: string; port: number; master: boolean; slots: number }> {
  return text
    .trim()
    .split('\n')
    .map((line) => {
      const [id, address, flags, , , , , , ...ranges] = line.split(' ');
      const slots = ranges
        .filter((r) => !r.startsWith('['))
        .reduce((sum, r) => {
          const [a, b] = r.split('-').map(Number);
          return sum + (b === undefined ? 1 : b - a + 1);
        }, 0);
      return {
        id,
        port: Number(address.split('@')[0].split(':')[1]),
        master: flags.includes('master'),
        slots,
      };
    });
}

/**
 * Starts a Redis Cluster of `masters` masters with one replica each, from the machine's
 * redis-server (cluster mode: `--cluster-enabled yes`) on free 127.0.0.1 ports, its files in a
 * temporary folder, then joins it with `redis-cli --cluster create … --cluster-replicas 1
 * --cluster-yes` and waits until every node says it is `ok`. The cluster bus port of each node is
 * a free port of its own (`--cluster-port`), not port + 10000, which may be taken or out of range.
 * `nodeTimeoutMs` is the cluster's node timeout: how long a master may be unreachable before its
 * replica takes over. Every node is stopped after the test file.
 */
export async function startRedisCluster(masters = 3, nodeTimeoutMs = 1000): Promise<RedisCluster> {
  const dir = tempDir('artissist-redis-cluster-');
  const count = masters * 2;
  // A client port and a cluster bus port for each node, no two the same.
  const drawn = new Set<number>();
  while (drawn.size < 2 * count) drawn.add(await spawnPort());
  const ports = [...drawn].slice(0, count);
  const busPorts = [...drawn].slice(count);
  const clients = new Map<number, Redis>();
  registerFixture('redis cluster clients', async () => {
    // Resolves once each connection has ended, not once it was told to: sockets still closing, each
    // with ioredis's 2-second timer for it, kept the test's worker alive past jest's 500 ms for it
    // to exit ("A worker process has failed to exit gracefully"). endConnection skips one that
    // ended already (a node killed), whose disconnect() would wait on that timer for a close that came before.
    await Promise.all([...clients.values()].map(endConnection));
  });
  const nodes: ClusterNode[] = ports.map((port, i) => {
    const child: ChildProcess = spawn(
      'redis-server',
      [
        '--port',
        String(port),
        '--cluster-port',
        String(busPorts[i]),
        '--bind',
        '127.0.0.1',
        '--cluster-enabled',
        'yes',
        '--cluster-config-file',
        join(dir, `nodes-${port}.conf`),
        '--cluster-node-timeout',
        String(nodeTimeoutMs),
        '--dir',
        dir,
        '--save',
        '',
        '--appendonly',
        'no',
        '--logfile',
        join(dir, `redis-${port}.log`),
        // A replica can take over only once it has synchronized with its master; Redis waits 5 s
        // by default before it streams the first copy, which would leave a master killed early
        // without a replica able to take over.
        '--repl-diskless-sync-delay',
        '0',
      ],
      { stdio: 'ignore' },
    );
    const exited = new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.once('error', () => resolve());
    });
    const running = () => child.exitCode === null && child.signalCode === null;
    registerFixture(`redis-server (cluster) :${port}`, async () => {
      if (running()) child.kill('SIGTERM');
      await exited;
    });
    return {
      port,
      address: `127.0.0.1:${port}`,
      id: '',
      running,
      async kill() {
        if (running()) child.kill('SIGKILL');
        await exited;
      },
      client() {
        const open = clients.get(port);
        if (open && open.status !== 'end') return open;
        // No retries: a connection to a killed node ends, and the next call opens another.
        const client = new Redis({ host: '127.0.0.1', port, maxRetriesPerRequest: 0, retryStrategy: () => null, lazyConnect: false });
        client.on('error', () => {});
        clients.set(port, client);
        return client;
      },
    };
  });
  for (const node of nodes) {
    await waitFor(
      () =>
        node
          .client()
          .ping()
          .then(
            () => true,
            () => false,
          ),
      `redis-server :${node.port} answering (is the redis-server package installed?)`,
      { ms: 10_000 },
    );
  }
  await run('redis-cli', ['--cluster', 'create', ...nodes.map((n) => n.address), '--cluster-replicas', '1', '--cluster-yes'], {
    timeout: 30_000,
  });
  for (const node of nodes) node.id = String(await node.client().cluster('MYID'));

  const someRunning = () => {
    const node = nodes.find((n) => n.running());
    if (!node) throw new Error('no node of the cluster runs');
    return node;
  };
  const view = async (node: ClusterNode) => parseNodes(String(await node.client().cluster('NODES')));
  const byPort = (port: number) => nodes.find((n) => n.port === port)!;

  const cluster: RedisCluster = {
    url: `redis+cluster://${nodes.map((n) => n.address).join(',')}`,
    liveUrl: () =>
      `redis+cluster://${nodes
        .filter((n) => n.running())
        .map((n) => n.address)
        .join(',')}`,
    nodes,
    async masters() {
      return (await view(someRunning()))
        .filter((n) => n.master && n.slots > 0 && byPort(n.port).running())
        .map((n) => ({ node: byPort(n.port), slots: n.slots }));
    },
    async masterOf(slot) {
      const ranges = (await someRunning().client().cluster('SLOTS')) as unknown as Array<[number, number, [string, number]]>;
      const range = ranges.find(([start, end]) => slot >= start && slot <= end);
      if (!range) throw new Error(`no master holds slot ${slot}`);
      return byPort(range[2][1]);
    },
    async settled(ms = 30_000) {
      let last = '';
      await waitFor(
        async () => {
          const running = nodes.filter((n) => n.running());
          const answers = await Promise.all(
            running.map(async (node) => {
              const client = node.client();
              const info = String(await client.cluster('INFO'));
              const ranges = (await client.cluster('SLOTS')) as unknown as Array<[number, number, [string, number]]>;
              const live = ranges.every(([, , [, port]]) => byPort(port).running());
              // Each node lists the ranges in an order of its own: compared by slot.
              const masters = ranges.map((r) => [r[0], r[1], r[2][1]]).sort((a, b) => a[0] - b[0]);
              return { ok: /cluster_state:ok/.test(info) && live, slots: JSON.stringify(masters) };
            }),
          ).catch((error) => {
            last = String(error);
            return [];
          });
          last = JSON.stringify(answers);
          return answers.length === running.length && answers.every((a) => a.ok && a.slots === answers[0].slots);
        },
        () => `every running node of the cluster ok and agreeing on the slots (last: ${last})`,
        { ms, everyMs: 50 },
      );
    },
    async migrate(slot, to) {
      const from = await cluster.masterOf(slot);
      if (from === to) throw new Error(`slot ${slot} is at ${to.address} already`);
      await to.client().cluster('SETSLOT', slot, 'IMPORTING', from.id);
      await from.client().cluster('SETSLOT', slot, 'MIGRATING', to.id);
      for (;;) {
        const keys = (await from.client().cluster('GETKEYSINSLOT', slot, 100)) as string[];
        if (keys.length === 0) break;
        await from.client().migrate('127.0.0.1', to.port, '', 0, 5000, 'KEYS', ...keys);
      }
      // The target first, then the source (Redis's own order in redis-cli --cluster reshard), then the other masters.
      await to.client().cluster('SETSLOT', slot, 'NODE', to.id);
      await from.client().cluster('SETSLOT', slot, 'NODE', to.id);
      for (const { node } of await cluster.masters()) {
        if (node !== to && node !== from) await node.client().cluster('SETSLOT', slot, 'NODE', to.id);
      }
    },
  };
  await cluster.settled();
  await waitFor(
    async () => {
      const replication = await Promise.all(nodes.map((node) => node.client().info('replication')));
      return replication.every((info) => /role:master/.test(info) || /master_link_status:up/.test(info));
    },
    'every replica synchronized with its master',
    { ms: 30_000, everyMs: 50 },
  );
  return cluster;
}
