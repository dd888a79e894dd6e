import { QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { keySchemas } from './table';
import { OUTBOX_SHARDS } from './write';

export interface OutboxSnapshot {
  /** Events waiting to be published, counted up to `cap` per shard (the gauge then shows the cap). */
  backlog: number;
  /** Age in seconds of the oldest waiting event; 0 when none waits. */
  oldestAgeSeconds: number;
}

/**
 * The outbox backlog for metrics, read from the OUTBOX index on scrape: per shard one COUNT query
 * (at most `cap` items) and one query for the oldest entry, so 8 small queries. Results are reused
 * for `maxAgeMs`, concurrent scrapes share one read, and each read is bounded by `timeoutMs`; when
 * a read fails (DynamoDB down), the last values are kept.
 */
export class OutboxStats {
  private last?: { at: number; value: OutboxSnapshot };
  private reading?: Promise<OutboxSnapshot>;

  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly options: { maxAgeMs: number; timeoutMs: number; cap: number } = { maxAgeMs: 5_000, timeoutMs: 2_000, cap: 1000 },
  ) {}

  read(): Promise<OutboxSnapshot> {
    if (this.last && Date.now() - this.last.at < this.options.maxAgeMs) return Promise.resolve(this.last.value);
    this.reading ??= this.query()
      .then(
        (value) => {
          this.last = { at: Date.now(), value };
          return value;
        },
        () => this.last?.value ?? { backlog: 0, oldestAgeSeconds: 0 },
      )
      .finally(() => (this.reading = undefined));
    return this.reading;
  }

  private async query(): Promise<OutboxSnapshot> {
    const { pk, sk } = keySchemas.OUTBOX;
    const abortSignal = AbortSignal.timeout(this.options.timeoutMs);
    const shards = await Promise.all(
      Array.from({ length: OUTBOX_SHARDS }, async (_, shard) => {
        const base = {
          TableName: this.tableName,
          IndexName: 'OUTBOX',
          KeyConditionExpression: '#pk = :pk',
          ExpressionAttributeNames: { '#pk': pk },
          ExpressionAttributeValues: { ':pk': `OUTBOX#${shard}` },
        };
        const [count, oldest] = await Promise.all([
          this.doc.send(new QueryCommand({ ...base, Select: 'COUNT', Limit: this.options.cap }), { abortSignal }),
          this.doc.send(
            new QueryCommand({
              ...base,
              Limit: 1,
              ScanIndexForward: true,
              ProjectionExpression: '#sk',
              ExpressionAttributeNames: { '#pk': pk, '#sk': sk },
            }),
            { abortSignal },
          ),
        ]);
        // The sort key is `<ISO time>#<event id>` (see outboxAttributes).
        const sortKey: unknown = oldest.Items?.[0]?.[sk];
        const time = typeof sortKey === 'string' && sortKey ? Date.parse(sortKey.split('#')[0]) : NaN;
        return { count: count.Count ?? 0, oldest: Number.isNaN(time) ? undefined : time };
      }),
    );
    const oldest = Math.min(...shards.map((s) => s.oldest ?? Infinity));
    return {
      backlog: shards.reduce((sum, s) => sum + s.count, 0),
      oldestAgeSeconds: Number.isFinite(oldest) ? Math.max(0, (Date.now() - oldest) / 1000) : 0,
    };
  }
}
