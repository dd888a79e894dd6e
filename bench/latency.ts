import 'reflect-metadata';
import './support';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { startApp } from '../src/app';
import { signDevToken } from '../src/auth/jwt';
import { Role } from '../src/auth/principal';
import { loadConfig } from '../src/config';
import { startDynamoDbLocal } from '../src/infra/dynamo/embedded';
import type { Write } from '../src/infra/dynamo/write';
import { BENCH_PLANS, quantile, saveResult } from './support';

/*
 * Commit-to-receipt delay of job events: the time from the moment DynamoDB acknowledged a step
 * change's transaction to the moment a graphql-ws subscriber (in this process, so one clock) has
 * the event. Usage: npm run bench:latency [-- --events 200]
 */
async function main() {
  const events = Number(process.argv[process.argv.indexOf('--events') + 1]) || 200;
  const dynamo = await startDynamoDbLocal({ dataPath: null });
  const secret = 'bench-secret-bench-secret-bench-secret';
  const app = await startApp(
    loadConfig({
      NODE_ENV: 'test',
      PORT: '0',
      DYNAMODB_ENDPOINT: dynamo.endpoint,
      AUTH_JWT_SECRET: secret,
      CURSOR_SECRET: 'c',
      ...BENCH_PLANS,
    }),
  );
  const committedAt = new Map<string, number>();
  const transact = app.store.transact.bind(app.store);
  app.store.transact = async (writes: readonly Write[]) => {
    await transact(writes);
    const now = performance.now();
    for (const w of writes) if (w.isEvent && w.item?.stream === 'job') committedAt.set(String(w.item.eventId), now);
  };
  const key = new TextEncoder().encode(secret);
  const editor = await signDevToken(key, { sub: 'e', tenantId: 'bench', roles: [Role.EDITOR, Role.WORKER] });
  const gql = async (query: string) => {
    const res = await fetch(app.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${editor}` },
      body: JSON.stringify({ query }),
    });
    const body = (await res.json()) as any;
    if (body.errors) throw new Error(JSON.stringify(body.errors));
    return body.data;
  };
  const projectId = (await gql('mutation { createProject(input: { title: "bench" }) { projectId } }')).createProject.projectId;
  const jobId = (await gql(`mutation { createJob(input: { projectId: "${projectId}", kind: "BENCH", steps: ["render"] }) { jobId } }`))
    .createJob.jobId;
  await gql(`mutation { startStep(jobId: "${jobId}", stepName: "render") { seq } }`);

  const client = createClient({
    url: app.url.replace('http', 'ws'),
    webSocketImpl: WebSocket,
    connectionParams: { authorization: `Bearer ${editor}` },
  });
  const delays: number[] = [];
  let waiting: (() => void) | undefined;
  client.subscribe<{ jobProgress: { eventId: string } }>(
    { query: `subscription { jobProgress(jobId: "${jobId}") { eventId } }` },
    {
      next: ({ data }) => {
        const at = performance.now();
        const committed = committedAt.get(data!.jobProgress.eventId);
        // The acknowledgement (the first message) is no committed event: it is not timed.
        if (committed === undefined) return;
        delays.push(at - committed);
        waiting?.();
      },
      error: (e) => console.error(e),
      complete: () => {},
    },
  );
  await new Promise((r) => setTimeout(r, 300));
  // Warm-up, then the measured events, one at a time so each delay is its own.
  for (let i = 0; i < 20 + events; i++) {
    if (i === 20) delays.length = 0;
    const received = new Promise<void>((r) => (waiting = r));
    await gql(`mutation { reportStepProgress(jobId: "${jobId}", stepName: "render", progress: ${(i % 100) / 100}) { seq } }`);
    await received;
  }
  const result = {
    events: delays.length,
    medianMs: Number(quantile(delays, 0.5).toFixed(2)),
    p95Ms: Number(quantile(delays, 0.95).toFixed(2)),
    maxMs: Number(Math.max(...delays).toFixed(2)),
    node: process.version,
  };
  console.log(
    `commit → subscriber receipt over ${result.events} events: median ${result.medianMs} ms, p95 ${result.p95Ms} ms, max ${result.maxMs} ms`,
  );
  console.log(`saved ${saveResult('latency', result)}`);
  await client.dispose();
  await app.stop();
  await dynamo.stop();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
