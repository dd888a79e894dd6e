import { randomUUID } from 'node:crypto';
import {
  DynamoDBClient,
  GetItemCommand,
  ProvisionedThroughputExceededException,
  PutItemCommand,
  TransactionCanceledException,
  TransactWriteItemsCommand,
} from '@aws-sdk/client-dynamodb';
import { createTable, testEndpoint, testRegion } from '../support/dynamo';
import { startPartitionProxy } from '../support/partition-proxy';

/**
 * The partition-limit emulator (test/support/partition-proxy.ts) against DynamoDB Local: what it
 * charges a key, the answers it refuses with, and that the AWS SDK retries them as throttling.
 */
describe('the partition-limit emulator', () => {
  const tableName = `t_${randomUUID().slice(0, 8)}`;
  /** A client of the emulator at `url`: no retries unless asked, so each answer is seen. */
  const clientOf = (url: string, maxAttempts = 1) =>
    new DynamoDBClient({
      endpoint: url,
      region: testRegion(),
      maxAttempts,
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
  /** An item of about `kb` KB in partition `pk`, in the claim index's partition `gsi`. */
  const item = (pk: string, sk: string, kb: number, gsi = 'CLAIMS') => ({
    PK: { S: pk },
    SK: { S: sk },
    GSI4PK: { S: gsi },
    GSI4SK: { S: sk },
    body: { S: 'x'.repeat(kb * 1024 - 100) },
  });

  beforeAll(() => createTable(tableName));

  it('charges a write 1 unit a KB on its key and its index key, 2 in a transaction, and refuses the call past the limit', async () => {
    // 10 units a key, refilled so slowly (0.1 a second) that the test's own pace does not matter.
    const proxy = await startPartitionProxy(testEndpoint(), { wcuPerSecond: 0.1, burstSeconds: 100 });
    const client = clientOf(proxy.url);
    await client.send(new PutItemCommand({ TableName: tableName, Item: item('A', '1', 3) }));
    await client.send(
      new TransactWriteItemsCommand({ TransactItems: [{ Put: { TableName: tableName, Item: item('A', '2', 2, 'OTHER') } }] }),
    );
    const byKey = Object.fromEntries(proxy.counts().map((c) => [c.key, c.wcu]));
    expect(byKey).toEqual({ 'PK=A': 3 + 4, 'GSI4PK=CLAIMS': 3, 'GSI4PK=OTHER': 4 });
    // 7 of the key's 10 units are spent: a 4 KB write now is over the limit, and nothing is written.
    await expect(client.send(new PutItemCommand({ TableName: tableName, Item: item('A', '3', 4) }))).rejects.toBeInstanceOf(
      ProvisionedThroughputExceededException,
    );
    expect(proxy.hottest(1, 'throttled')[0]).toMatchObject({ key: 'PK=A', throttled: 1 });
    // The index partition has 7 units left: an 8 KB write to a fresh base partition in it is
    // refused (a hot index throttles writes to the table).
    await expect(client.send(new PutItemCommand({ TableName: tableName, Item: item('C', '1', 8) }))).rejects.toBeInstanceOf(
      ProvisionedThroughputExceededException,
    );
    expect(proxy.counts().find((c) => c.key === 'GSI4PK=CLAIMS')?.throttled).toBe(1);
    const stored = await clientOf(testEndpoint()).send(
      new GetItemCommand({ TableName: tableName, Key: { PK: { S: 'C' }, SK: { S: '1' } } }),
    );
    expect(stored.Item).toBeUndefined();
  }, 30_000);

  it("answers a throttled transaction as DynamoDB does, and the SDK retries the throughput answer with backoff until the key's units come back", async () => {
    const proxy = await startPartitionProxy(testEndpoint(), { wcuPerSecond: 4, burstSeconds: 1 });
    const transaction = (sk: string) =>
      new TransactWriteItemsCommand({ TransactItems: [{ Put: { TableName: tableName, Item: item('T', sk, 2, 'T') } }] });
    await clientOf(proxy.url).send(transaction('1'));
    const refused = await clientOf(proxy.url)
      .send(transaction('2'))
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(TransactionCanceledException);
    expect((refused as TransactionCanceledException).CancellationReasons?.map((r) => r.Code)).toEqual(['ThrottlingError']);

    // The same call answered ProvisionedThroughputExceededException is retried by the SDK (its
    // standard mode classifies it as throttling) until the bucket has refilled: it succeeds.
    const retried = await startPartitionProxy(testEndpoint(), { wcuPerSecond: 4, burstSeconds: 1, transactionAnswer: 'throughput' });
    await clientOf(retried.url).send(transaction('3'));
    const out = await clientOf(retried.url, 10).send(transaction('4'));
    expect(out.$metadata.attempts).toBeGreaterThan(1);
    expect(retried.throttledCalls.get('TransactWriteItems')).toBe(out.$metadata.attempts! - 1);
  }, 30_000);

  it('charges reads by the bytes answered: half a unit a 4 KB eventually consistent, a whole one strongly consistent', async () => {
    const proxy = await startPartitionProxy(testEndpoint());
    const client = clientOf(proxy.url);
    await clientOf(testEndpoint()).send(new PutItemCommand({ TableName: tableName, Item: item('R', '1', 6) }));
    await client.send(new GetItemCommand({ TableName: tableName, Key: { PK: { S: 'R' }, SK: { S: '1' } } }));
    await client.send(new GetItemCommand({ TableName: tableName, Key: { PK: { S: 'R' }, SK: { S: '1' } }, ConsistentRead: true }));
    expect(proxy.counts()).toEqual([{ key: 'PK=R', wcu: 0, rcu: 1 + 2, calls: 2, throttled: 0 }]);
  }, 30_000);
});
