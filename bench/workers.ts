import 'reflect-metadata';
import './support';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { PollingSignal, PushSignal, Worker, type WorkSignal } from '../sdk/typescript/src/index';
import { signDevToken } from '../src/auth/jwt';
import { Role } from '../src/auth/principal';
import { startDynamoDbLocal } from '../src/infra/dynamo/embedded';
import { gql, saveResult, SECRET, serverEnv, startChild } from './support';

/*
 * The worker SDK's requests per item and items per second, with work pushed (workSignals, the
 * SDK's default) against the documented polling loop (PollingSignal: 0.25 s, doubling to 5 s while
 * claims find nothing), at 1, 10 and 50 TypeScript workers in this process, against the built server
 * in a child process on DynamoDB Local. Each run: the workers start and go idle, a BATCH job of
 * ITEMS items is created (50 at creation, the rest added 75 at a time), and the run ends when it
 * completed; every HTTP request the workers send is counted (the subscription is one). Then the
 * idle workers are watched for IDLE_MS: their requests in that time are the idle cost.
 * `npm run bench:workers` (`-- --items 1000` for a longer run).
 */

const log = (message: string) => process.stdout.write(`${message}\n`);
const argument = (name: string, fallback: number) => {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? Number(process.argv[at + 1]) : fallback;
};
const ITEMS = argument('items', 200);
const IDLE_MS = argument('idle-ms', 10_000);
const key = new TextEncoder().encode(SECRET);

/** Every request the SDK sends goes through fetch: counted here (the bench's own, made through `own`, are taken out). */
let requests = 0;
let ownRequests = 0;
const own: typeof gql = (...args) => {
  ownRequests++;
  return gql(...args);
};
const realFetch = globalThis.fetch;
globalThis.fetch = (input, init) => {
  requests++;
  return realFetch(input, init);
};

async function main() {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-workers-'));
  const dynamo = await startDynamoDbLocal({ dataPath: null });
  const env = { ...serverEnv(dynamo.endpoint, `bench_${randomUUID().slice(0, 8)}`, dataDir), JOB_LEASE_SECONDS: '600' };
  const server = await startChild('server', [], { env });
  const url = server.ready.url;
  const rows: Array<Record<string, string | number>> = [];
  try {
    for (const workers of [1, 10, 50]) {
      for (const mode of ['push', 'poll'] as const) {
        const tenantId = `bench-${mode}-${workers}`;
        const token = await signDevToken(key, { sub: 'editor', tenantId, roles: [Role.EDITOR, Role.WORKER] });
        const projectId = (await gql(url, token, 'mutation { createProject(input: { title: "Workers" }) { projectId } }')).createProject
          .projectId;
        let completed = 0;
        let done!: () => void;
        const allDone = new Promise<void>((resolve) => (done = resolve));
        const fleet = await Promise.all(
          Array.from({ length: workers }, async (_, n) => {
            const signal: WorkSignal = mode === 'push' ? new PushSignal() : new PollingSignal();
            const worker = new Worker({
              url,
              token: await signDevToken(key, { sub: `w${n}`, tenantId, roles: [Role.WORKER] }),
              handleSignals: false,
              workSignal: signal,
              log: () => {},
            }).stage('BATCH', 'process', (work) => {
              if (++completed === ITEMS) done();
              return { result: `tenants/${tenantId}/out/${work.sequence}.png` };
            });
            return { worker, running: worker.run() };
          }),
        );
        // Idle first: each made its first claims (and, pushed, its subscription).
        await new Promise((resolve) => setTimeout(resolve, 2000));
        const before = requests - ownRequests;
        const started = performance.now();
        const source = (i: number) => ({ source: `tenants/${tenantId}/in/${i}.png` });
        const first = Math.min(50, ITEMS);
        const jobId = (
          await own(url, token, 'mutation($i: CreateJobInput!) { createJob(input: $i) { jobId } }', {
            i: { projectId, kind: 'BATCH', inputs: { label: tenantId }, items: Array.from({ length: first }, (_, i) => source(i)) },
          })
        ).createJob.jobId;
        for (let added = first; added < ITEMS; added += 75) {
          const items = Array.from({ length: Math.min(75, ITEMS - added) }, (_, i) => source(added + i));
          await own(
            url,
            token,
            'mutation($j: ID!, $i: [JSONObject!]!) { addWorkItems(jobId: $j, stage: "process", items: $i) { jobId } }',
            {
              j: jobId,
              i: items,
            },
          );
        }
        await allDone;
        const seconds = (performance.now() - started) / 1000;
        // The requests of the run: the last completions' answers, then the claims that found nothing more.
        await new Promise((resolve) => setTimeout(resolve, 1000));
        const perItem = (requests - ownRequests - before) / ITEMS;
        const idleFrom = requests - ownRequests;
        await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
        const idle = requests - ownRequests - idleFrom;
        for (const { worker } of fleet) worker.stop();
        await Promise.all(fleet.map((f) => f.running));
        const row = {
          workers,
          mode,
          itemsPerSecond: (ITEMS / seconds).toFixed(1),
          requestsPerItem: perItem.toFixed(2),
          idleRequests: idle,
        };
        log(JSON.stringify(row));
        rows.push(row);
      }
    }
  } finally {
    await server.stop();
    await dynamo.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
  log(`\n${ITEMS} items a run, idle ${IDLE_MS / 1000} s; ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, Node ${process.version}\n`);
  log('| workers | pushed: items/s | requests/item | idle requests | polled: items/s | requests/item | idle requests |');
  log('|---|---|---|---|---|---|---|');
  for (const n of [1, 10, 50]) {
    const [p, q] = ['push', 'poll'].map((m) => rows.find((r) => r.workers === n && r.mode === m)!);
    log(
      `| ${n} | ${p.itemsPerSecond} | ${p.requestsPerItem} | ${p.idleRequests} | ${q.itemsPerSecond} | ${q.requestsPerItem} | ${q.idleRequests} |`,
    );
  }
  log(`\nsaved ${saveResult('bench-workers', { items: ITEMS, idleMs: IDLE_MS, rows })}`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
