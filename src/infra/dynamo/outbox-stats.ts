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
 * Counts for metrics read from the store on scrape (the outbox backlog: `source` tableOutbox on
 * DynamoDB, the outbox table on PostgreSQL; PostgreSQL's downstream queue). Results are reused for
 * `maxAgeMs`, concurrent scrapes (and the several gauges of one snapshot) share one read, and each
 * read is bounded by `timeoutMs` (its signal aborts, and a source that ignores it is no longer
 * waited for); when a read fails or is late (the store down or frozen), the last values are kept,
 * `empty` before any, so a scrape during an outage still answers.
 */
export class CachedSnapshot<T> {
  private last?: { at: number; value: T };
  private reading?: Promise<T>;

  constructor(
    private readonly source: (signal: AbortSignal) => Promise<T>,
    private readonly empty: T,
    private readonly options: { maxAgeMs: number; timeoutMs: number } = { maxAgeMs: 5_000, timeoutMs: 2_000 },
  ) {}

  read(): Promise<T> {
    if (this.last && Date.now() - this.last.at < this.options.maxAgeMs) return Promise.resolve(this.last.value);
    this.reading ??= this.bounded()
      .then(
        (value) => {
          this.last = { at: Date.now(), value };
          return value;
        },
        () => this.last?.value ?? this.empty,
      )
      .finally(() => (this.reading = undefined));
    return this.reading;
  }

  /** One read of the source, rejected once `timeoutMs` have passed. */
  private bounded(): Promise<T> {
    const signal = AbortSignal.timeout(this.options.timeoutMs);
    const late = new Promise<never>((_, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true }));
    return Promise.race([this.source(signal), late]);
  }
}

/**
 * The outbox backlog of a DynamoDB table, from its OUTBOX index: per shard one COUNT query (at most
 * `cap` items) and one query for the oldest entry, so 8 small queries, aborted by `signal`.
 */
export function tableOutbox(doc: DynamoDBDocumentClient, tableName: string, cap = 1000): (signal: AbortSignal) => Promise<OutboxSnapshot> {
  return async (abortSignal) => {
    const { pk, sk } = keySchemas.OUTBOX;
    const shards = await Promise.all(
      Array.from({ length: OUTBOX_SHARDS }, async (_, shard) => {
        const base = {
          TableName: tableName,
          IndexName: 'OUTBOX',
          KeyConditionExpression: '#pk = :pk',
          ExpressionAttributeNames: { '#pk': pk },
          ExpressionAttributeValues: { ':pk': `OUTBOX#${shard}` },
        };
        const [count, oldest] = await Promise.all([
          doc.send(new QueryCommand({ ...base, Select: 'COUNT', Limit: cap }), { abortSignal }),
          doc.send(
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
  };
}
