import './support';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { createDynamo } from '../src/infra/dynamo/client';
import { cpuMsOf, median, quantile, report } from './support';

/*
 * The database-bound baseline: the raw SDK Query that GetProjectLogs(first: 50) makes (same key
 * condition, filter, limit and consistency), measured as bench/run.ts measures our server:
 *   1. one query at a time: the latency of each (p50, p95) and this process's CPU per query;
 *   2. `concurrency` loops at once: queries per second and this process's CPU per query.
 * CPU is read from /proc (cpuMsOf) before and after each measured window, as for the server.
 *   node dist/bench/db-baseline.js <endpoint> <table> <tenant> <projectId> <concurrency> <warmupMs> <measureMs>
 */
const [endpoint, table, tenant, projectId, concurrencyText, warmupText, measureText] = process.argv.slice(2);

async function main() {
  const { doc } = createDynamo({ endpoint, region: 'us-east-1', requestTimeoutMs: 10_000 });
  const query = () =>
    doc.send(
      new QueryCommand({
        TableName: table,
        KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :a)',
        FilterExpression: 'attribute_not_exists(#exp) OR #exp > :now',
        ExpressionAttributeNames: { '#pk': 'PK', '#sk': 'SK', '#exp': 'expiresAt' },
        ExpressionAttributeValues: { ':pk': `TENANT#${tenant}`, ':a': `PROJECT#${projectId}#LOG#`, ':now': Math.floor(Date.now() / 1000) },
        Limit: 51,
        ConsistentRead: true,
        ScanIndexForward: true,
      }),
    );
  report('READY', { pid: process.pid });
  /** Runs `concurrency` loops for `ms`; the latency of each query, and this process's CPU (ms) in the window. */
  const run = async (ms: number, concurrency: number) => {
    const latencies: number[] = [];
    const cpuBefore = cpuMsOf(process.pid);
    const until = Date.now() + ms;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (Date.now() < until) {
          const started = performance.now();
          const out = await query();
          latencies.push(performance.now() - started);
          if ((out.Items?.length ?? 0) !== 50) throw new Error(`expected 50 logs, got ${out.Items?.length}`);
        }
      }),
    );
    return { latencies, cpuMsPerQuery: (cpuMsOf(process.pid) - cpuBefore) / latencies.length };
  };
  const warmupMs = Number(warmupText);
  const measureMs = Number(measureText);
  const concurrency = Number(concurrencyText);
  await run(warmupMs, 1);
  const one = await run(measureMs, 1);
  await run(warmupMs, concurrency);
  const many = await run(measureMs, concurrency);
  report('RESULT', {
    p50: median(one.latencies),
    p95: quantile(one.latencies, 0.95),
    cpuMsPerQueryAt1: one.cpuMsPerQuery,
    rps: many.latencies.length / (measureMs / 1000),
    cpuMsPerQuery: many.cpuMsPerQuery,
  });
  process.exit(0);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
