import { DescribeTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  ExpiredIteratorException,
  GetRecordsCommand,
  type GetRecordsCommandOutput,
  GetShardIteratorCommand,
  type _Record,
  type Shard,
} from '@aws-sdk/client-dynamodb-streams';

/*
 * A reader of the table's change stream, as the deploy template's Pipe reads it in AWS: every
 * shard, in order within each shard, from the stream's oldest record (TRIM_HORIZON) or from now
 * (LATEST). Locally it reads DynamoDB Local's stream for `npm run events:tail` and for the test
 * that every committed event leaves the table once. One reader per stream and process: it keeps
 * each shard's iterator between polls.
 */

/** Where a shard is read from when the reader first sees it. */
export type StreamStart = 'TRIM_HORIZON' | 'LATEST';

/** Records per GetRecords call (DynamoDB's maximum is 1,000). */
const RECORDS_PER_CALL = 1000;

export class StreamReader {
  /** The next iterator of each shard being read; null once a closed shard is read to its end. */
  private readonly iterators = new Map<string, string | null>();

  constructor(
    private readonly streams: DynamoDBStreamsClient,
    readonly streamArn: string,
    private readonly start: StreamStart,
  ) {}

  /**
   * The reader of `tableName`'s stream at `endpoint` (DynamoDB Local when given; AWS otherwise).
   * Throws when the table has no stream on.
   */
  static async open(client: DynamoDBClient, tableName: string, start: StreamStart, endpoint?: string): Promise<StreamReader> {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    const arn = Table?.LatestStreamArn;
    if (!arn || Table?.StreamSpecification?.StreamEnabled !== true)
      throw new Error(`Table ${tableName} has no stream on; the server turns it on when it makes or checks a local table.`);
    const region = await client.config.region();
    const streams = new DynamoDBStreamsClient({
      region,
      endpoint,
      // DynamoDB Local accepts any credentials (as createDynamo does for a local endpoint).
      ...(endpoint && !process.env.AWS_ACCESS_KEY_ID ? { credentials: { accessKeyId: 'local', secretAccessKey: 'local' } } : {}),
    });
    return new StreamReader(streams, arn, start);
  }

  private async shards(): Promise<Shard[]> {
    const shards: Shard[] = [];
    let after: string | undefined;
    do {
      const { StreamDescription } = await this.streams.send(
        new DescribeStreamCommand({ StreamArn: this.streamArn, ExclusiveStartShardId: after }),
      );
      shards.push(...(StreamDescription?.Shards ?? []));
      after = StreamDescription?.LastEvaluatedShardId;
    } while (after);
    return shards;
  }

  private async iteratorOf(shardId: string, fresh: boolean): Promise<string | null> {
    // A shard that appears after the reader began (a split) is read from its start, so nothing
    // committed since the reader began is skipped.
    const type = fresh ? 'TRIM_HORIZON' : this.start;
    const out = await this.streams.send(
      new GetShardIteratorCommand({ StreamArn: this.streamArn, ShardId: shardId, ShardIteratorType: type }),
    );
    return out.ShardIterator ?? null;
  }

  /**
   * The records committed since the last poll (on the first, since the start point), shard by
   * shard, each shard's in commit order. Parents are read before their children because
   * DescribeStream lists them first. Throws what the stream's API threw.
   */
  async poll(): Promise<_Record[]> {
    const first = this.iterators.size === 0;
    const records: _Record[] = [];
    for (const shard of await this.shards()) {
      const id = shard.ShardId;
      if (!id) continue;
      if (!this.iterators.has(id)) this.iterators.set(id, await this.iteratorOf(id, !first));
      for (;;) {
        const iterator = this.iterators.get(id);
        if (!iterator) break;
        let out: GetRecordsCommandOutput;
        try {
          out = await this.streams.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: RECORDS_PER_CALL }));
        } catch (error) {
          // An iterator lives 15 minutes; a reader paused longer starts the shard again from its
          // oldest record (at least once, as the Pipe delivers too).
          if (!(error instanceof ExpiredIteratorException)) throw error;
          this.iterators.set(id, await this.iteratorOf(id, true));
          continue;
        }
        records.push(...(out.Records ?? []));
        this.iterators.set(id, out.NextShardIterator ?? null);
        // An open shard answers with no records once it is read up to now.
        if (!out.Records?.length) break;
      }
    }
    return records;
  }

  close(): void {
    this.streams.destroy();
  }
}
