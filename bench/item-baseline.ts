import './support';
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { createDynamo } from '../src/infra/dynamo/client';
import { report } from './support';

/*
 * The floor for work serialized on one item: `total` conditional UpdateItem calls that each move
 * one item's version by one (read the version, update on condition it is unchanged, re-read and
 * retry on a lost race), made by `concurrency` callers at once on DynamoDB Local. A job's item
 * completions are serialized on the job's version the same way, so this is the rate a job cannot
 * beat with one change per write.
 *   node dist/bench/item-baseline.js <endpoint> <table> <concurrency> <total>
 */
const [endpoint, table, concurrencyText, totalText] = process.argv.slice(2);

async function main() {
  const { doc } = createDynamo({ endpoint, region: 'us-east-1', requestTimeoutMs: 10_000 });
  const Key = { PK: `BENCH#${process.pid}#${Date.now()}`, SK: 'ITEM' };
  await doc.send(new PutCommand({ TableName: table, Item: { ...Key, version: 0 } }));
  report('READY', { pid: process.pid });
  const total = Number(totalText);
  let done = 0;
  let lost = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: Number(concurrencyText) }, async () => {
      while (done < total) {
        const read = await doc.send(new GetCommand({ TableName: table, Key, ConsistentRead: true }));
        const version = Number(read.Item?.version ?? 0);
        try {
          await doc.send(
            new UpdateCommand({
              TableName: table,
              Key,
              UpdateExpression: 'SET #v = :next',
              ConditionExpression: '#v = :v',
              ExpressionAttributeNames: { '#v': 'version' },
              ExpressionAttributeValues: { ':v': version, ':next': version + 1 },
            }),
          );
          done++;
        } catch (error) {
          if (!(error instanceof Error && error.name === 'ConditionalCheckFailedException')) throw error;
          lost++;
        }
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  report('RESULT', { rate: done / seconds, seconds, done, lostPerUpdate: lost / done });
  process.exit(0);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
