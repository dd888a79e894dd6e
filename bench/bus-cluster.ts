import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import Redis from 'ioredis';
import { freePort } from '../src/infra/free-port';
import { CATCH_UP, createEventBus } from '../src/infra/pubsub';

/*
 * Bus throughput, one Redis node against a Redis Cluster of three masters (and three replicas):
 * one bus publishes (PUBLISH or SPUBLISH) as fast as PUBLISHERS concurrent loops let it for
 * SECONDS, to TOPICS topics, while another bus (a second instance's) listens to all of them. Each
 * run reports events a second published and delivered, events lost, and redis-server CPU per event
 * (from /proc/<pid>/stat, every redis-server of the run, replicas included) with its split over
 * the masters. `npm run bench:bus`; docs/scaling.md ("Redis Cluster") has the figures.
 */

const run = promisify(execFile);
const TOPICS = 1_000;
const PUBLISHERS = 200;
const SECONDS = Number(process.env.BUS_BENCH_SECONDS ?? 5);
/** About a log's activity event (docs/scaling.md: about 330 bytes of JSON). */
const PAYLOAD = { action: 'log.created', subjectType: 'Log', actor: 'artist', at: new Date().toISOString(), text: 'x'.repeat(220) };

interface Server {
  port: number;
  child: ChildProcess;
}

function startServer(port: number, dir: string, extra: string[]): Server {
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, ...extra],
    {
      stdio: 'ignore',
    },
  );
  return { port, child };
}

async function answering(port: number): Promise<void> {
  const client = new Redis({ port, host: '127.0.0.1', lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0 });
  client.on('error', () => {});
  for (let tries = 0; ; tries++) {
    try {
      await client.connect();
      await client.ping();
      client.disconnect();
      return;
    } catch (error) {
      if (tries > 100) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/** CPU seconds (user + system) a process has used, from /proc/<pid>/stat. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

async function measure(name: string, url: string, servers: Server[], masters: number[]) {
  const publisher = createEventBus({ redisUrl: url });
  const subscriber = createEventBus({ redisUrl: url });
  const topics = Array.from({ length: TOPICS }, (_, n) => `JOB:bench:${n}`);
  let received = 0;
  const warm = new Set<string>();
  await Promise.all(
    topics.map(
      (topic) =>
        subscriber.listen(topic, (payload) => {
          if (payload === CATCH_UP) return;
          if ('warm' in payload) warm.add(topic);
          else received++;
        }).ready,
    ),
  );
  // Every topic carries a first event before the clock starts: every subscription is in effect.
  while (warm.size < TOPICS) {
    await Promise.all(topics.filter((t) => !warm.has(t)).map((t) => publisher.publish(t, { warm: true }).catch(() => {})));
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const cpuBefore = servers.map((s) => cpuSeconds(s.child.pid!));
  let published = 0;
  let failed = 0;
  const started = performance.now();
  const until = started + SECONDS * 1000;
  await Promise.all(
    Array.from({ length: PUBLISHERS }, async (_, loop) => {
      for (let n = loop; performance.now() < until; n += PUBLISHERS) {
        try {
          await publisher.publish(topics[n % TOPICS], PAYLOAD);
          published++;
        } catch {
          failed++;
        }
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  // What is on its way arrives within a moment; what does not is lost.
  for (let waited = 0; received < published && waited < 50; waited++) await new Promise((resolve) => setTimeout(resolve, 100));
  const cpu = servers.map((s, i) => cpuSeconds(s.child.pid!) - cpuBefore[i]);
  const total = cpu.reduce((a, b) => a + b, 0);
  const perMaster = masters.map((i) => cpu[i]);
  await Promise.all([publisher.close(), subscriber.close()]);
  return {
    name,
    publishedPerSecond: Math.round(published / elapsed),
    deliveredPerSecond: Math.round(received / elapsed),
    lost: published - received,
    failed,
    redisMicrosecondsPerEvent: Number(((total / published) * 1e6).toFixed(1)),
    mastersShare: perMaster.map((c) => `${Math.round((c / total) * 100)}%`).join(' / '),
  };
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'artissist-bus-bench-'));
  const servers: Server[] = [];
  try {
    const single = startServer(await freePort(), dir, []);
    servers.push(single);
    await answering(single.port);
    const one = await measure('1 node (PUBLISH)', `redis://127.0.0.1:${single.port}`, [single], [0]);
    single.child.kill('SIGTERM');
    servers.length = 0;

    const nodes: Server[] = [];
    for (let i = 0; i < 6; i++) {
      const port = await freePort();
      const bus = await freePort();
      nodes.push(
        startServer(port, dir, [
          '--cluster-enabled',
          'yes',
          '--cluster-port',
          String(bus),
          '--cluster-config-file',
          join(dir, `nodes-${port}.conf`),
          '--repl-diskless-sync-delay',
          '0',
        ]),
      );
    }
    servers.push(...nodes);
    await Promise.all(nodes.map((n) => answering(n.port)));
    const addresses = nodes.map((n) => `127.0.0.1:${n.port}`);
    await run('redis-cli', ['--cluster', 'create', ...addresses, '--cluster-replicas', '1', '--cluster-yes']);
    // redis-cli makes the first three the masters.
    for (let i = 0; ; i++) {
      const info = await run('redis-cli', ['-p', String(nodes[0].port), 'cluster', 'info']);
      if (info.stdout.includes('cluster_state:ok')) break;
      if (i > 100) throw new Error('the cluster did not become ok');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const three = await measure('3 masters (SPUBLISH)', `redis+cluster://${addresses.join(',')}`, nodes, [0, 1, 2]);
    console.log(`bus throughput, ${PUBLISHERS} publishing loops, ${TOPICS} topics, ${SECONDS} s, one listening bus:`);
    console.table([one, three]);
  } finally {
    for (const server of servers) server.child.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
