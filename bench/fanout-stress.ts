import 'reflect-metadata';
import './support';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { signDevToken } from '../src/auth/jwt';
import { Role } from '../src/auth/principal';
import { startDynamoDbLocal } from '../src/infra/dynamo/embedded';
import { gql, pinSelf, SECRET, saveResult, serverEnv, startChild } from './support';
import { stressSubscribers } from './stress-subscribers';

/*
 * The fan-out stress check at full size (see stress-subscribers.ts):
 *   node dist/bench/fanout-stress.js [sockets=10000] [rounds=100] [pausedEvery=20] [lateMs=10000]
 * One server (bench/server.ts, on core 0, the production WebSocket keep-alive) and one job; this
 * process (core 1) holds every socket. Every `pausedEvery`th socket stops reading from a tenth of
 * the rounds to a third of them. Exits 1 when any event is missing, repeated, out of order or
 * later than lateMs on a socket that reads, or a paused socket neither caught up, nor was told to
 * resume, nor was closed with 1006 (dropped by the server).
 */
async function main() {
  const [n = 10_000, rounds = 100, pausedEvery = 20, lateMs = 10_000] = process.argv.slice(2).map(Number);
  const dataDir = mkdtempSync(join(tmpdir(), 'stress-'));
  const dynamo = await startDynamoDbLocal({ dataPath: null });
  pinSelf('1');
  const key = new TextEncoder().encode(SECRET);
  const editor = await signDevToken(key, { sub: 'e', tenantId: 'bench', roles: [Role.EDITOR] });
  const worker = await signDevToken(key, { sub: 'w', tenantId: 'bench', roles: [Role.WORKER] });
  const env: Record<string, string> = {
    ...serverEnv(dynamo.endpoint, `stress_${randomUUID().slice(0, 8)}`, dataDir),
    DYNAMODB_TIMEOUT_MS: '2000',
  };
  // The server's log level (silent by default) and keep-alive interval (the production 12 s by default) can be set for a run.
  if (process.env.LOG_LEVEL_SERVER) env.LOG_LEVEL = process.env.LOG_LEVEL_SERVER;
  if (process.env.WS_KEEPALIVE_MS) env.WS_KEEPALIVE_MS = process.env.WS_KEEPALIVE_MS;
  const server = await startChild('server', [], { core: '0', env });
  try {
    const url = server.ready.url as string;
    const projectId = (await gql(url, editor, 'mutation { createProject(input: { title: "Stress" }) { projectId } }')).createProject
      .projectId;
    const { jobId } = (
      await gql(url, editor, `mutation { createJob(input: { projectId: "${projectId}", kind: "STRESS", steps: ["render"] }) { jobId } }`)
    ).createJob;
    await gql(url, worker, `mutation { startStep(jobId: "${jobId}", stepName: "render") { seq } }`);
    const started = performance.now();
    const result = await stressSubscribers({
      url,
      token: editor,
      jobId,
      n,
      rounds,
      pausedEvery,
      pauseFrom: Math.floor(rounds / 10),
      pauseUntil: Math.floor(rounds / 3),
      lateMs,
      allowedSlowCloses: [1006],
      log: (line) => console.log(`${((performance.now() - started) / 1000).toFixed(1)} s: ${line}`),
      trigger: async (round) =>
        (
          await gql(
            url,
            worker,
            `mutation { reportStepProgress(jobId: "${jobId}", stepName: "render", progress: ${(round % 100) / 100}) { seq } }`,
          )
        ).reportStepProgress.seq,
    });
    const lasts = result.rounds.map((r) => r.lastMs).sort((a, b) => a - b);
    const summary = {
      sockets: n,
      rounds: result.rounds.length,
      lastMsP50: lasts[Math.floor(lasts.length / 2)],
      lastMsMax: lasts.at(-1),
      paused: result.paused,
      clientCpu: result.clientCpu,
      failureCount: result.failureCount,
      failures: result.failures,
    };
    console.log(JSON.stringify(summary, null, 2));
    console.log(`saved ${saveResult('fanout-stress', { summary, rounds: result.rounds })}`);
    process.exitCode = result.failureCount > 0 ? 1 : 0;
  } finally {
    await server.stop();
    await dynamo.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
