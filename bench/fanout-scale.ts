import 'reflect-metadata';
import './support';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { signDevToken } from '../src/auth/jwt';
import { Role } from '../src/auth/principal';
import { startDynamoDbLocal } from '../src/infra/dynamo/embedded';
import { type Child, cpuMsOf, gql, median, quantile, SECRET, saveResult, serverEnv, settledRssOf, startChild, startRedis } from './support';

/*
 * Fan-out and memory at scale (issue 51): n subscribers of one job held by `instances` servers on
 * one machine over one Redis, beside raw `ws` broadcast servers of the same shape.
 *   node dist/bench/fanout-scale.js [sockets=19000] [instances=1] [rounds=20]
 * A process here holds at most 20,000 descriptors, so the load generator is split over
 * processes (bench/scale-client.ts) of at most PER_CLIENT sockets each, every one spreading its
 * sockets over every instance. Servers run on core 0, the generator on core 1; DynamoDB Local and
 * redis-server where the kernel puts them. For each side it measures:
 * - open: from the first socket's start to the last acknowledgement (ours: subscribed, the
 *   subscription's first message; raw: open), all generator processes starting together;
 * - memory: the servers' RSS after a full GC with every socket open, less before, per socket;
 * - fan-out: per round, commit (DynamoDB's acknowledgement, reported by the committing instance)
 *   or broadcast start (raw) → the last socket's receipt, p50 and p95 of `rounds` rounds;
 * - missed, repeated and reordered events (every socket must have every round's event once, in order);
 * - the servers' CPU per event.
 * Exits 1 when an event was missed, repeated or reordered, or a socket failed to open.
 */
const PER_CLIENT = 18_000;

async function main() {
  const [n = 19_000, instances = 1, rounds = 20] = process.argv.slice(2).map(Number);
  const clientCount = Math.max(1, Math.ceil(n / PER_CLIENT));
  const key = new TextEncoder().encode(SECRET);
  const editor = await signDevToken(key, { sub: 'e', tenantId: 'bench', roles: [Role.EDITOR] });
  const worker = await signDevToken(key, { sub: 'w', tenantId: 'bench', roles: [Role.WORKER] });
  const started = performance.now();
  const log = (line: string) => console.log(`${((performance.now() - started) / 1000).toFixed(1)} s: ${line}`);
  const dirs: string[] = [];
  const dynamo = await startDynamoDbLocal({ dataPath: null });
  const redis = await startRedis();
  const sizes = Array.from({ length: clientCount }, (_, i) => Math.floor(n / clientCount) + (i < n % clientCount ? 1 : 0));
  try {
    // Ours: `instances` servers over one table and one Redis.
    const table = `scale_${randomUUID().slice(0, 8)}`;
    const servers: Child[] = [];
    for (let i = 0; i < instances; i++) {
      const dataDir = mkdtempSync(join(tmpdir(), 'scale-'));
      dirs.push(dataDir);
      servers.push(
        await startChild('server', [], {
          core: '0',
          env: {
            ...serverEnv(dynamo.endpoint, table, dataDir),
            REDIS_URL: redis.url,
            // The production keep-alive (12 s) unless a run sets another; its sweep is part of what is measured.
            WS_KEEPALIVE_MS: process.env.WS_KEEPALIVE_MS ?? '12000',
            // The production DynamoDB timeout: subscribing must not need a longer one.
            DYNAMODB_TIMEOUT_MS: '2000',
            WS_MAX_CONNECTIONS: '19500',
            HTTP_MAX_CONNECTIONS: '19800',
            BENCH_REPORT_COMMITS: '1',
            // Every loopback address, so the generator can spread its sockets over several (see BENCH_HOSTS in scale-client.ts).
            HOST: '0.0.0.0',
          },
          // BENCH_PROFILE_DIR=<dir>: V8 CPU profiles of the servers (summarised by profile-summary.js).
          nodeArgs: process.env.BENCH_PROFILE_DIR ? ['--cpu-prof', '--cpu-prof-dir', process.env.BENCH_PROFILE_DIR] : [],
        }),
      );
    }
    const url = servers[0].ready.url as string;
    const projectId = (await gql(url, editor, 'mutation { createProject(input: { title: "Scale" }) { projectId } }')).createProject
      .projectId;
    const { jobId } = (
      await gql(url, editor, `mutation { createJob(input: { projectId: "${projectId}", kind: "SCALE", steps: ["render"] }) { jobId } }`)
    ).createJob;
    await gql(url, worker, `mutation { startStep(jobId: "${jobId}", stepName: "render") { seq } }`);
    const oursSide = await measure({
      servers,
      log: (line) => log(`ours: ${line}`),
      pids: servers.map((s) => s.ready.pid as number),
      clientArgs: (size) => ['ours', servers.map((s) => s.ready.url).join(','), String(size), editor, jobId],
      sizes,
      rounds,
      trigger: async (round) => {
        const seq = (
          await gql(
            url,
            worker,
            `mutation { reportStepProgress(jobId: "${jobId}", stepName: "render", progress: ${(round % 100) / 100}) { seq } }`,
          )
        ).reportStepProgress.seq as number;
        return { seq, startAt: () => servers[0].collected('COMMIT').find((c) => c.eventId === `${jobId}:${seq}`)?.at as number };
      },
    });
    for (const server of servers) await server.stop();

    // Raw: `instances` bare ws broadcast servers, every round POSTed to all of them at once.
    const raws: Child[] = [];
    for (let i = 0; i < instances; i++) raws.push(await startChild('raw-ws-server', [], { core: '0', env: { RAW_HOST: '0.0.0.0' } }));
    const rawSide = await measure({
      log: (line) => log(`raw: ${line}`),
      pids: raws.map((s) => s.ready.pid as number),
      clientArgs: (size) => ['raw', raws.map((s) => s.ready.url).join(','), String(size)],
      sizes,
      rounds,
      trigger: async (round) => {
        const seq = 1000 + round;
        await Promise.all(raws.map(async (raw) => (await fetch(`${raw.ready.url}?seq=${seq}`, { method: 'POST' })).text()));
        return { seq, startAt: (at?: number) => at as number };
      },
    });
    for (const raw of raws) await raw.stop();

    const summary = {
      sockets: n,
      instances,
      clientProcesses: clientCount,
      rounds,
      ours: oursSide,
      raw: rawSide,
      ratios: {
        memory: oursSide.memoryPerSocket / rawSide.memoryPerSocket,
        fanoutP50: oursSide.fanoutP50 / rawSide.fanoutP50,
        fanoutP95: oursSide.fanoutP95 / rawSide.fanoutP95,
        open: oursSide.openMs / rawSide.openMs,
      },
    };
    console.log(JSON.stringify(summary, null, 2));
    console.log(`saved ${saveResult(`fanout-scale-${n}x${instances}`, summary)}`);
    const failed =
      oursSide.missed + oursSide.repeated + oursSide.outOfOrder + oursSide.openFailures + rawSide.missed + rawSide.openFailures;
    process.exitCode = failed > 0 ? 1 : 0;
  } finally {
    redis.stop();
    await dynamo.stop();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  }
}

interface Side {
  log(line: string): void;
  /** Our servers (bench/server.ts), asked for their event loop's longest block over an idle keep-alive round. */
  servers?: Child[];
  /** The servers' processes, for their memory and CPU. */
  pids: number[];
  clientArgs(size: number): string[];
  /** Sockets per generator process. */
  sizes: number[];
  rounds: number;
  /** Sends round `round`'s event; `startAt` says when its fan-out started (epoch ms), given the earliest broadcast start the clients saw. */
  trigger(round: number): Promise<{ seq: number; startAt: (at?: number) => number }>;
}

/** One side's run: open every socket, sample memory, fan `rounds` events out, count what arrived. */
async function measure(side: Side) {
  const total = side.sizes.reduce((a, b) => a + b, 0);
  const rssOf = async () => (await Promise.all(side.pids.map(settledRssOf))).reduce((a, b) => a + b, 0);
  const rssBefore = await rssOf();
  // 250 sockets being opened at once per instance (the burst line's window for one), shared by the generator's processes.
  const window = String(Math.ceil((250 * side.pids.length) / side.sizes.length));
  // At most 10,000 sockets to one address and port: below the even half of the ephemeral range (see scale-client.ts).
  const hosts = String(Math.ceil(total / side.pids.length / 10_000));
  const clients = await Promise.all(
    side.sizes.map((size) =>
      startChild('scale-client', side.clientArgs(size), { core: '1', env: { BENCH_OPEN_WINDOW: window, BENCH_HOSTS: hosts } }),
    ),
  );
  try {
    const opened = clients.map((c) => c.result());
    const openCpuBefore = side.pids.map(cpuMsOf);
    for (const client of clients) client.send('open');
    const opens = await Promise.all(opened);
    const openMs = Math.max(...opens.map((o) => o.endedAt)) - Math.min(...opens.map((o) => o.startedAt));
    const openServerCpuMs = side.pids.map(cpuMsOf).reduce((sum, ms, i) => sum + ms - openCpuBefore[i], 0);
    const openFailures = opens.reduce((sum, o) => sum + o.failures, 0);
    side.log(
      `${total} sockets acknowledged in ${(openMs / 1000).toFixed(1)} s (server CPU ${((openServerCpuMs * 1000) / total).toFixed(0)} µs a socket), ${openFailures} failed ${opens.find((o) => o.failure)?.failure ?? ''}`,
    );
    // Let what opening left (handshakes' garbage, the subscribes' last reads) settle before sampling memory.
    await new Promise((r) => setTimeout(r, 2000));
    const rssAfter = await rssOf();
    const memoryPerSocket = (rssAfter - rssBefore) / total;
    side.log(
      `memory ${(memoryPerSocket / 1024).toFixed(2)} KiB a socket (RSS ${(rssBefore / 2 ** 20).toFixed(0)} → ${(rssAfter / 2 ** 20).toFixed(0)} MiB)`,
    );

    // The event loop's longest block while every socket is idle, over one keep-alive interval and a
    // second: what the keep-alive's round holds the loop for (at most 10 ms of it is the monitor's resolution).
    let idleLoopMaxMs: number | undefined;
    if (side.servers) {
      for (const server of side.servers) server.send('eld-reset');
      await new Promise((r) => setTimeout(r, Number(process.env.WS_KEEPALIVE_MS ?? 12_000) + 1000));
      for (const server of side.servers) server.send('eld');
      await new Promise((r) => setTimeout(r, 500));
      idleLoopMaxMs = Math.max(...side.servers.map((s) => s.collected('ELD').at(-1)?.maxMs ?? Number.NaN));
      side.log(`idle: the event loop held at most ${idleLoopMaxMs.toFixed(0)} ms at a time over a keep-alive round`);
    }
    const spreads: number[] = [];
    const seqs: number[] = [];
    const cpuBefore = side.pids.map(cpuMsOf);
    // Two rounds of warm-up, not counted.
    for (let round = 0; round < side.rounds + 2; round++) {
      const { seq, startAt } = await side.trigger(round);
      seqs.push(seq);
      // Every generator process reports once all its sockets have the event; a round waits at most 60 s.
      const deadline = Date.now() + 60_000;
      let lines: Record<string, any>[] = [];
      while (Date.now() < deadline) {
        lines = clients.map((c) => c.collected('ROUND').find((r) => r.seq === seq)).filter((r) => r !== undefined);
        if (lines.length === clients.length) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      if (lines.length < clients.length) {
        side.log(`round ${round} (seq ${seq}): not every socket had the event within 60 s`);
        continue;
      }
      const lastAt = Math.max(...lines.map((l) => l.lastAt));
      const at = Math.min(...lines.map((l) => l.at ?? Number.POSITIVE_INFINITY));
      // The commit's line may follow the receipts by a moment: the server prints it after the fan-out's synchronous part.
      let start = startAt(at);
      for (let wait = 0; start === undefined && wait < 100; wait++) {
        await new Promise((r) => setTimeout(r, 20));
        start = startAt(at);
      }
      if (round >= 2) spreads.push(lastAt - start);
      // A pause between rounds, as the fan-out line has, so rounds do not overlap.
      await new Promise((r) => setTimeout(r, 200));
    }
    const cpuMsPerEvent = side.pids.map(cpuMsOf).reduce((sum, ms, i) => sum + ms - cpuBefore[i], 0) / (side.rounds + 2);
    const finals = await Promise.all(
      clients.map((c) => {
        const result = c.result();
        c.send('done');
        return result;
      }),
    );
    let missed = 0;
    // An event is missed by a socket that subscribed and never had it (sockets that failed to open are counted apart).
    const subscribed = opens.reduce((sum, o) => sum + o.subscribed, 0);
    for (const seq of seqs) missed += subscribed - finals.reduce((sum, f) => sum + Number(f.counts[seq] ?? 0), 0);
    const repeated = finals.reduce((sum, f) => sum + f.repeated, 0);
    const outOfOrder = finals.reduce((sum, f) => sum + f.outOfOrder, 0);
    const result = {
      sockets: total,
      openMs,
      openFailures,
      openServerCpuMsPerSocket: openServerCpuMs / total,
      openClientCpuMs: opens.map((o) => o.clientCpuMs),
      rssBefore,
      rssAfter,
      memoryPerSocket,
      idleLoopMaxMs,
      fanoutP50: median(spreads),
      fanoutP95: quantile(spreads, 0.95),
      fanoutMax: Math.max(...spreads),
      serverCpuMsPerEvent: cpuMsPerEvent,
      missed,
      repeated,
      outOfOrder,
      unexpected: finals.find((f) => f.unexpected)?.unexpected,
    };
    side.log(
      `fan-out p50 ${result.fanoutP50.toFixed(0)} ms, p95 ${result.fanoutP95.toFixed(0)} ms; ${missed} missed, ${repeated} repeated, ${outOfOrder} out of order; ${cpuMsPerEvent.toFixed(0)} ms server CPU an event`,
    );
    return result;
  } finally {
    for (const client of clients) await client.stop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
