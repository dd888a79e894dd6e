import './support';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { createDynamo } from '../src/infra/dynamo/client';
import { report } from './support';

/*
 * The database-bound baseline: the raw SDK Query that GetProjectLogs(first: 50) makes (same key
 * condition, filter, limit and consistency), in a loop at the same concurrency as the HTTP load.
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
  const run = async (ms: number) => {
    let done = 0;
    const until = Date.now() + ms;
    await Promise.all(
      Array.from({ length: Number(concurrencyText) }, async () => {
        while (Date.now() < until) {
          const out = await query();
          if ((out.Items?.length ?? 0) !== 50) throw new Error(`expected 50 logs, got ${out.Items?.length}`);
          done++;
        }
      }),
    );
    return done;
  };
  await run(Number(warmupText));
  const done = await run(Number(measureText));
  report('RESULT', { rps: done / (Number(measureText) / 1000) });
  process.exit(0);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
