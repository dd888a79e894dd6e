import 'reflect-metadata';
import './support';
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { signDevToken } from '../src/auth/jwt';
import { Role } from '../src/auth/principal';
import { startDynamoDbLocal } from '../src/infra/dynamo/embedded';
import { diffHeaps, diffTable, loadHeap } from './heap-diff';
import { type Child, gql, pinSelf, SECRET, serverEnv, settledRssOf, startChild, startRedis } from './support';

/*
 * Where an idle subscription's memory goes (npm run bench:build && node dist/bench/subscription-heap.js [n] [dir] [--redis]):
 * our server (configured as the bench's fan-out line configures it; with `--redis`, on a redis-server's
 * bus as bench/fanout-scale.ts configures it) gets n graphql-ws sockets, then
 * one jobProgress subscription on each to one running job; the raw ws server of the fan-out line
 * gets n bare sockets. Heap snapshots (after GC) before and after each step are compared by node id:
 * what a socket holds, what a subscription adds, and what a raw socket holds, per unit, by
 * constructor, closure and closure context, with retained sizes and retainers. Prints markdown and
 * writes it, with the snapshots, to <dir> (bench/results/heap-<time> by default).
 */
const args = process.argv.slice(2).filter((arg) => arg !== '--redis');
const withRedis = process.argv.includes('--redis');
const n = Number(args[0] ?? 2000);
const dir = args[1] ?? join(__dirname, '../../bench/results', `heap-${new Date().toISOString().replace(/[:.]/g, '-')}`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Asks a child started with heap-on-demand for a snapshot and waits until it is written. */
async function snapshot(child: Child, name: string): Promise<{ file: string; rss: number; heapUsed: number; external: number }> {
  const rss = await settledRssOf(child.ready.pid);
  const before = child.collected('HEAP').length;
  child.send(`HEAPSNAPSHOT ${join(dir, `${name}.heapsnapshot`)}`);
  for (;;) {
    const seen = child.collected('HEAP');
    if (seen.length > before) {
      const last = seen[seen.length - 1];
      return { file: last.file, rss, heapUsed: last.heapUsed, external: last.external };
    }
    await sleep(200);
  }
}

/** Opens `count` sockets, 250 at a time; `ready` resolves a socket once it is ready for what follows. */
async function openMany(count: number, open: () => Promise<WebSocket>): Promise<WebSocket[]> {
  const sockets: WebSocket[] = [];
  for (let i = 0; i < count; i += 250) sockets.push(...(await Promise.all(Array.from({ length: Math.min(250, count - i) }, open))));
  return sockets;
}

async function main() {
  mkdirSync(dir, { recursive: true });
  const dataDir = mkdtempSync(join(tmpdir(), 'heap-'));
  const dynamo = await startDynamoDbLocal({ dataPath: null });
  const redis = withRedis ? await startRedis() : undefined;
  pinSelf('1');
  const key = new TextEncoder().encode(SECRET);
  const editor = await signDevToken(key, { sub: 'e', tenantId: 'bench', roles: [Role.EDITOR] });
  const worker = await signDevToken(key, { sub: 'w', tenantId: 'bench', roles: [Role.WORKER] });
  const nodeArgs = ['--require', join(__dirname, 'heap-on-demand.js')];
  // As the fan-out line's server (serverEnv in bench/support.ts, fanOutAndMemory in bench/run.ts).
  const server = await startChild('server', [], {
    core: '0',
    nodeArgs,
    env: {
      ...serverEnv(dynamo.endpoint, `heap_${randomUUID().slice(0, 8)}`, dataDir),
      WS_KEEPALIVE_MS: '600000',
      ...(redis ? { REDIS_URL: redis.url } : {}),
    },
  });
  const url: string = server.ready.url;
  const projectId = (await gql(url, editor, 'mutation { createProject(input: { title: "heap" }) { projectId } }')).createProject.projectId;
  const jobId = (
    await gql(url, editor, `mutation { createJob(input: { projectId: "${projectId}", kind: "BENCH", steps: ["render"] }) { jobId } }`)
  ).createJob.jobId;
  await gql(url, worker, `mutation { startStep(jobId: "${jobId}", stepName: "render") { seq } }`);
  await sleep(1000);
  const empty = await snapshot(server, 'ours-0-empty');

  const acknowledged: Array<Promise<void>> = [];
  const sockets = await openMany(
    n,
    () =>
      new Promise((resolve, reject) => {
        const ws = new WebSocket(url.replace(/^http/, 'ws'), 'graphql-transport-ws');
        ws.on('error', reject);
        ws.on('open', () => ws.send(JSON.stringify({ type: 'connection_init', payload: { authorization: `Bearer ${editor}` } })));
        let subscribed!: () => void;
        acknowledged.push(new Promise<void>((r) => (subscribed = r)));
        ws.on('message', (data) => {
          const text = data.toString();
          if (text.includes('"connection_ack"')) resolve(ws);
          else if (text.includes('"SUBSCRIBED"')) subscribed();
          else if (!text.includes('"next"')) console.error(`unexpected: ${text.slice(0, 200)}`);
        });
      }),
  );
  await sleep(1500);
  const connected = await snapshot(server, 'ours-1-connected');
  const subscribe = JSON.stringify({
    id: '1',
    type: 'subscribe',
    payload: {
      query: `subscription { jobProgress(jobId: "${jobId}") { seq type job { status currentStep progress } step { name attempt status progress } } }`,
    },
  });
  for (let i = 0; i < sockets.length; i += 250) {
    for (const ws of sockets.slice(i, i + 250)) ws.send(subscribe);
    await Promise.all(acknowledged.slice(i, i + 250));
  }
  await sleep(1500);
  const subscribed = await snapshot(server, 'ours-2-subscribed');
  for (const ws of sockets) ws.terminate();
  await server.stop();
  redis?.stop();

  const raw = await startChild('raw-ws-server', [], { core: '0', nodeArgs });
  await sleep(500);
  const rawEmpty = await snapshot(raw, 'raw-0-empty');
  const rawSockets = await openMany(
    n,
    () =>
      new Promise((resolve, reject) => {
        const ws = new WebSocket(raw.ready.url.replace(/^http/, 'ws'));
        ws.on('error', reject);
        ws.on('open', () => resolve(ws));
      }),
  );
  await sleep(1500);
  const rawConnected = await snapshot(raw, 'raw-1-connected');
  for (const ws of rawSockets) ws.terminate();
  await raw.stop();
  await dynamo.stop();
  rmSync(dataDir, { recursive: true, force: true });

  const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;
  const perUnit = (a: { rss: number; heapUsed: number; external: number }, b: typeof a) =>
    `RSS ${kib((b.rss - a.rss) / n)}, JS heap used ${kib((b.heapUsed - a.heapUsed) / n)}, external ${kib((b.external - a.external) / n)}`;
  let out = `# Idle subscription memory, ${n} sockets${withRedis ? ', Redis bus' : ''} (${new Date().toISOString()})\n\n`;
  out += `- our socket (connection_init acknowledged, no operation): ${perUnit(empty, connected)}\n`;
  out += `- our subscription on it (jobProgress, caught up): ${perUnit(connected, subscribed)}\n`;
  out += `- our socket + subscription: ${perUnit(empty, subscribed)}\n`;
  out += `- raw ws socket: ${perUnit(rawEmpty, rawConnected)}\n\n`;
  // One snapshot in memory at a time, besides the one it is compared with.
  const [h0, h1] = [loadHeap(empty.file), loadHeap(connected.file)];
  out += diffTable('What one of our sockets holds (before any subscription)', diffHeaps(h0, h1, n));
  const h2 = loadHeap(subscribed.file);
  out += `\n${diffTable('What one idle subscription adds to its socket', diffHeaps(h1, h2, n))}`;
  const [r0, r1] = [loadHeap(rawEmpty.file), loadHeap(rawConnected.file)];
  out += `\n${diffTable('What one raw ws socket holds', diffHeaps(r0, r1, n))}`;
  writeFileSync(join(dir, 'summary.md'), out);
  process.stdout.write(out);
  process.stdout.write(`\nwritten to ${dir}\n`);
  process.exit(0);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
