import { createInterface } from 'node:readline';
import './support';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { createDynamo } from '../src/infra/dynamo/client';
import { cpuMsOf, median, quantile, report } from './support';

/*
 * The database-bound baseline: the raw SDK Query that GetProjectLogs(first: 50) makes (same key
 * condition, filter, limit and consistency), measured as bench/run.ts measures our server. It
 * answers each stdin line `run <concurrency> <ms>` with `RESULT {…}`: that many query loops at
 * once for that long, with the p50 and p95 latency, queries per second, and this process's CPU per
 * query, read from /proc (cpuMsOf) before and after the window, as for the server. The bench
 * alternates these windows with our server's, so both sides see the same moments of a busy machine.
 *   node dist/bench/db-baseline.js <endpoint> <table> <tenant> <projectId>
 */
const [endpoint, table, tenant, projectId] = process.argv.slice(2);

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
  const run = async (concurrency: number, ms: number) => {
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
    return {
      p50: median(latencies),
      p95: quantile(latencies, 0.95),
      rps: latencies.length / (ms / 1000),
      cpuMsPerQuery: (cpuMsOf(process.pid) - cpuBefore) / latencies.length,
    };
  };
  createInterface({ input: process.stdin }).on('line', (line) => {
    const [command, concurrency, ms] = line.split(' ');
    if (command !== 'run') return;
    run(Number(concurrency), Number(ms)).then(
      (result) => report('RESULT', result),
      (error) => {
        console.error(error);
        process.exit(1);
      },
    );
  });
  // Exits on SIGTERM (the bench's stop) through process.exit, so that --cpu-prof writes its profile.
  process.on('SIGTERM', () => process.exit(0));
  report('READY', { pid: process.pid });
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
