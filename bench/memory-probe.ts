import 'reflect-metadata';
import './support';
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { signDevToken } from '../src/auth/jwt';
import { Role } from '../src/auth/principal';
import { startDynamoDbLocal } from '../src/infra/dynamo/embedded';
import { settledRssOf, startChild } from './support';

/** Splits memory per graphql-ws connection from memory per subscription (node dist/bench/memory-probe.js [n]). */
async function main() {
  const n = Number(process.argv[2] ?? 5000);
  const dynamo = await startDynamoDbLocal({ dataPath: null });
  const key = new TextEncoder().encode('bench-secret-bench-secret-bench-secret');
  const editor = await signDevToken(key, { sub: 'e', tenantId: 'bench', roles: [Role.EDITOR] });
  for (const subscribe of [false, true]) {
    const env = {
      NODE_ENV: 'development',
      PORT: '0',
      DYNAMODB_ENDPOINT: dynamo.endpoint,
      TABLE_NAME: `m_${randomUUID().slice(0, 8)}`,
      AUTH_JWT_SECRET: 'bench-secret-bench-secret-bench-secret',
      CURSOR_SECRET: 'c',
      DATA_DIR: mkdtempSync(join(tmpdir(), 'mp-')),
      LOG_LEVEL: 'silent',
      WS_KEEPALIVE_MS: '600000',
    };
    const server = await startChild('server', [], {
      core: '0',
      env,
      nodeArgs: process.env.HEAP
        ? ['--heapsnapshot-signal=SIGHUP', `--diagnostic-dir=${process.env.HEAP}/${subscribe ? 'with' : 'without'}`]
        : [],
    });
    const gql = async (q: string) =>
      (
        (await (
          await fetch(server.ready.url, {
            method: 'POST',
            headers: { 'content-type': 'application/json', authorization: `Bearer ${editor}` },
            body: JSON.stringify({ query: q }),
          })
        ).json()) as any
      ).data;
    const projectId = (await gql('mutation { createProject(input: { title: "m" }) { projectId } }')).createProject.projectId;
    const jobId = (await gql(`mutation { createJob(input: { projectId: "${projectId}", kind: "K", steps: ["render"] }) { jobId } }`))
      .createJob.jobId;
    await new Promise((r) => setTimeout(r, 1000));
    const before = await settledRssOf(server.ready.pid);
    const clients = await startChild('fanout-client', ['ours', server.ready.url, String(n), '0', editor, editor, jobId], {
      core: '1',
      env: subscribe ? {} : { BENCH_NO_SUBSCRIBE: '1' },
    });
    const after = await settledRssOf(server.ready.pid);
    console.log(`${subscribe ? 'connection + subscription' : 'connection only'}: ${((after - before) / n / 1024).toFixed(1)} KiB each`);
    if (process.env.HEAP) {
      process.kill(server.ready.pid, 'SIGHUP');
      await new Promise((r) => setTimeout(r, 8000));
    }
    await clients.stop();
    await server.stop();
  }
  await dynamo.stop();
}
main().catch((e) => {
  console.error(e);
  process.exit(1);
});
