import {
  type AttributeValue,
  type CancellationReason,
  QueryCommand as QueryItemsCommand,
  TransactionCanceledException,
} from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  BatchWriteCommand,
  GetCommand,
  ScanCommand,
  TransactWriteCommand,
  UpdateCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import { marshall, unmarshall, type marshallOptions } from '@aws-sdk/util-dynamodb';
import { AppError, ErrorCode } from '../../errors';
import { throttledCancellation } from '../dependency';
import type { CursorCodec } from '../cursor';
import { lazyCursor, Page, type PageRequest, pageShape } from './page';
import { keyOrder, listPage, mergedPage, mergeShards, queryFingerprint, type ShardRead } from '../pages';
import { keySchemas, TTL_ATTRIBUTE, type IndexName, type Key } from './table';
import { keyedItem, MAX_TRANSACTION_ITEMS, transactRequest, update, type Item, type Write } from './write';
import { keyString, type OrderedList, type Projection, type QuerySpec, type StoreApi, type TransactOutcome } from '../store-api';

export type { Item, Write };

export type { OrderedList, Projection, QuerySpec, TransactOutcome } from '../store-api';
/** What the server calls on a store (the interface this class implements); the name the server's code uses. */
export type Store = StoreApi;

/** A projection as a Query takes it: its expression and the attribute names that expression uses. */
interface ProjectionInput {
  expression: string;
  names: Record<string, string>;
}

/** Each projection's input by the index it reads (the index's key is added to it), made on first use. */
const projectionInputs = new WeakMap<Projection, Map<string, ProjectionInput>>();

/** What a Query of `index` sends for `projection`: its attributes and those the store needs, each once. */
function projectionInput(projection: Projection, index: IndexName | undefined): ProjectionInput {
  let byIndex = projectionInputs.get(projection);
  if (!byIndex) projectionInputs.set(projection, (byIndex = new Map()));
  const made = byIndex.get(index ?? 'TABLE');
  if (made) return made;
  const indexKey = index ? [keySchemas[index].pk, keySchemas[index].sk] : [];
  const attributes = [...new Set([keySchemas.TABLE.pk, keySchemas.TABLE.sk, 'entityType', TTL_ATTRIBUTE, ...indexKey, ...projection])];
  const names = Object.fromEntries(attributes.map((name, i) => [`#p${i}`, name]));
  const input = { expression: Object.keys(names).join(', '), names };
  byIndex.set(index ?? 'TABLE', input);
  return input;
}

export { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, Page, type PageRequest } from './page';

const BATCH_GET_LIMIT = 100;
/** DynamoDB's limit of requests in one BatchWriteItem. */
const BATCH_WRITE_LIMIT = 25;
/** The document client's marshalling options (client.ts), for the values a Query sends. */
const MARSHALL: marshallOptions = { removeUndefinedValues: true, convertClassInstanceToMap: false };
const MAX_TX_ATTEMPTS = 8;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const backoff = (attempt: number) => Math.min(1000, 20 * 2 ** attempt) * (0.5 + Math.random());

export { keyString };

/** `keys` without repeats (a batch call refuses a key twice), as bare keys, in first-seen order. */
const distinctKeys = (keys: readonly Key[]): Key[] => [
  ...new Map(keys.map((key) => [keyString(key), { PK: key.PK, SK: key.SK }])).values(),
];

/**
 * Sends `keys` through `send` `size` at a time; `send` answers the keys its call left unprocessed,
 * which are sent again with backoff. Throws after 20 rounds that still left some (`command` names
 * the call in the message), or what `send` throws.
 */
async function inBatches(keys: Key[], size: number, command: string, send: (batch: Key[]) => Promise<Key[]>): Promise<void> {
  for (let i = 0; i < keys.length; i += size) {
    let pending = keys.slice(i, i + size);
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt > 20) throw new Error(`${command} left ${pending.length} keys unprocessed after ${attempt} attempts.`);
      if (attempt > 0) await sleep(backoff(attempt));
      pending = await send(pending);
    }
  }
}

/**
 * The store: the only code that talks to the table. It never returns an item past its
 * `expiresAt`, because DynamoDB's TTL deletes lazily (and DynamoDB Local never does).
 */
export class DynamoStore implements StoreApi {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    readonly tableName: string,
    private readonly cursors: CursorCodec,
    private readonly now: () => number = Date.now,
  ) {}

  private live(raw: Record<string, unknown> | undefined): Item | null {
    if (!raw) return null;
    const expires = raw[TTL_ATTRIBUTE];
    return typeof expires === 'number' && expires <= Math.floor(this.now() / 1000) ? null : keyedItem(raw);
  }

  /** Reads one item strongly consistently; null when it is missing or expired. */
  async get(key: Key): Promise<Item | null> {
    const out = await this.doc.send(new GetCommand({ TableName: this.tableName, Key: key, ConsistentRead: true }));
    return this.live(out.Item);
  }

  /**
   * Reads many items with BatchGetItem, 100 keys a call, retrying UnprocessedKeys with backoff
   * until all are read. Returns one entry per key, in key order: the item, or null for a miss.
   * Duplicate keys are read once.
   */
  async batchGet(keys: readonly Key[]): Promise<(Item | null)[]> {
    const found = new Map<string, Record<string, unknown>>();
    await inBatches(distinctKeys(keys), BATCH_GET_LIMIT, 'BatchGetItem', async (pending) => {
      const out = await this.doc.send(new BatchGetCommand({ RequestItems: { [this.tableName]: { Keys: pending, ConsistentRead: true } } }));
      for (const item of out.Responses?.[this.tableName] ?? []) found.set(keyString({ PK: String(item.PK), SK: String(item.SK) }), item);
      return (out.UnprocessedKeys?.[this.tableName]?.Keys ?? []).map((key) => ({ PK: String(key.PK), SK: String(key.SK) }));
    });
    return keys.map((key) => this.live(found.get(keyString(key))));
  }

  private queryInput(spec: QuerySpec, limit: number, startKey?: Record<string, unknown>, projection?: Projection) {
    const projected = projection ? projectionInput(projection, spec.index) : undefined;
    const schema = keySchemas[spec.index ?? 'TABLE'];
    const [sk, values]: [string, Record<string, unknown>] = spec.skPrefix
      ? [' AND begins_with(#sk, :a)', { ':a': spec.skPrefix }]
      : spec.skBetween
        ? [' AND #sk BETWEEN :a AND :b', { ':a': spec.skBetween[0], ':b': spec.skBetween[1] }]
        : spec.skBefore
          ? [' AND #sk < :a', { ':a': spec.skBefore }]
          : ['', {}];
    return {
      TableName: this.tableName,
      IndexName: spec.index,
      KeyConditionExpression: `#pk = :pk${sk}`,
      FilterExpression: 'attribute_not_exists(#exp) OR #exp > :now',
      ExpressionAttributeNames: { '#pk': schema.pk, '#exp': TTL_ATTRIBUTE, ...(sk ? { '#sk': schema.sk } : {}), ...projected?.names },
      ProjectionExpression: projected?.expression,
      ExpressionAttributeValues: { ':pk': spec.pk, ':now': Math.floor(this.now() / 1000), ...values },
      ScanIndexForward: !spec.descending,
      Limit: limit,
      ExclusiveStartKey: startKey,
      ConsistentRead: spec.index ? undefined : true,
    };
  }

  /**
   * One Query call: its items and the key to read on from. It is sent as DynamoDB's own command,
   * its values marshalled and its items unmarshalled here by util-dynamodb with the document
   * client's options, which is all the document client does for it; the document client also
   * walks every input and output object once more to find what to convert (lib-dynamodb's
   * processKeysInObj), which for a page of 50 items was about 4 % of a read's CPU.
   */
  private async query(input: ReturnType<DynamoStore['queryInput']>): Promise<{ items: Item[]; lastKey?: Record<string, unknown> }> {
    const out = await this.doc.send(
      new QueryItemsCommand({
        ...input,
        ExpressionAttributeValues: marshall(input.ExpressionAttributeValues, MARSHALL),
        ExclusiveStartKey: input.ExclusiveStartKey ? marshall(input.ExclusiveStartKey, MARSHALL) : undefined,
      }),
    );
    return {
      items: out.Items?.map((item) => keyedItem(unmarshall(item))) ?? [],
      lastKey: out.LastEvaluatedKey ? unmarshall(out.LastEvaluatedKey) : undefined,
    };
  }

  /** The position of `item` in a query over `spec`: its table key plus the index key. */
  private positionOf(spec: QuerySpec, item: Item): Record<string, unknown> {
    const position: Record<string, unknown> = { PK: item.PK, SK: item.SK };
    if (spec.index) {
      const { pk, sk } = keySchemas[spec.index];
      position[pk] = item[pk];
      position[sk] = item[sk];
    }
    return position;
  }

  /**
   * Reads one page of `spec` for `tenantId`: forward (`first` after the cursor `after`) or, with
   * `last`/`before`, backward (the same query read in the opposite direction from the cursor, the
   * items turned back into the list's order). A page holds `first` (or `last`) items, 20 when
   * omitted and at most 100, whenever that many live items exist (expired items are skipped,
   * reading on as needed). Each item's cursor is its position in `spec`, so a cursor from either
   * direction is valid in both. With `projection`, the items hold only its attributes and what the
   * store needs (see Projection); a cursor does not depend on it. Throws BAD_USER_INPUT for a bad
   * size, for mixed directions, or for a cursor of another tenant or query.
   */
  async queryPage(tenantId: string, spec: QuerySpec, page: PageRequest = {}, projection?: Projection): Promise<Page<Item>> {
    const { size, backward, cursor, cursorArgument } = pageShape(page);
    // The query's fingerprint (a SHA-256) only when a cursor is read or made: most pages make none.
    let fingerprint: string | undefined;
    const queryId = () => (fingerprint ??= queryFingerprint(spec));
    let startKey = cursor ? await this.cursors.decode(cursor, tenantId, queryId(), cursorArgument) : undefined;
    // DynamoDB reads from an exclusive start key in either direction, so a backward page is the
    // same query with its direction flipped.
    const read = backward ? { ...spec, descending: !spec.descending } : spec;
    let items: Item[] = [];
    // Read one more than asked, so a full page knows whether another follows.
    if (read.shards) {
      // A write-sharded index: the cursor's place (its sort key, then its table key) in each shard.
      const from = startKey;
      const { pk, sk } = keySchemas[read.index ?? 'TABLE'];
      items = await mergeShards(read, size + 1, this.orderOf(read), this.shardRead(projection), (shard) =>
        from ? { ...from, [pk]: shard, [sk]: from[sk] } : undefined,
      );
    } else
      do {
        const out = await this.query(this.queryInput(read, size + 1 - items.length, startKey, projection));
        items.push(...out.items);
        startKey = out.lastKey;
      } while (items.length <= size && startKey);
    const nodes = items.slice(0, size);
    if (backward) nodes.reverse();
    const more = items.length > size;
    // A cursor names an item that was in the list, so a page read from one has that item (or its
    // place) on its other side.
    return new Page(
      nodes,
      nodes.map((item) => lazyCursor(() => this.cursors.encode(tenantId, queryId(), this.positionOf(spec, item)))),
      backward ? { hasNextPage: cursor !== null, hasPreviousPage: more } : { hasNextPage: more, hasPreviousPage: cursor !== null },
    );
  }

  /**
   * One page of several queries merged, newest first by `sortAttribute`: for write-sharded indexes,
   * where one logical list is spread over shards. `shards(before)` gives the per-shard queries
   * for items sorting below `before`. The cursor is the item's sort value, bound to the tenant and
   * `listId` like any cursor. Such a list pages forward only: BAD_USER_INPUT for `last`/`before`.
   */
  async queryMerged(
    tenantId: string,
    listId: string,
    shards: (before?: string) => QuerySpec[],
    sortAttribute: string,
    page: PageRequest = {},
  ): Promise<Page<Item>> {
    return mergedPage(this.cursors, (spec, n) => this.queryFirst(spec, n), tenantId, listId, shards, sortAttribute, page);
  }

  /**
   * One page of a list the caller computed whole and ordered (see OrderedList), forward
   * (`first`/`after`) or backward (`last`/`before`). `positionOf` is a node's position (unique in
   * the list) and `compare` orders two positions as the list does, so a page starts at the right
   * place even when the list changed since the cursor was made. A node's cursor is its position,
   * bound to the tenant and `listId` like any cursor. Throws BAD_USER_INPUT for a bad size, for
   * mixed directions, or for a cursor of another tenant or list.
   */
  async listPage<T>(tenantId: string, ordered: OrderedList<T>, page: PageRequest = {}): Promise<Page<T>> {
    return listPage(this.cursors, tenantId, ordered, page);
  }

  /** Reads the first `n` live items of `spec`. */
  async queryFirst(spec: QuerySpec, n: number, projection?: Projection): Promise<Item[]> {
    if (spec.shards) return mergeShards(spec, n, this.orderOf(spec), this.shardRead(projection));
    const items: Item[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const out = await this.query(this.queryInput(spec, n - items.length, startKey, projection));
      items.push(...out.items);
      startKey = out.lastKey;
    } while (items.length < n && startKey);
    return items;
  }

  /**
   * One page of segment `segment` of a parallel scan of the whole table in `segments` segments
   * (DynamoDB's Segment and TotalSegments), strongly consistent, from `startKey` (the `next` of
   * the page before; none for the segment's start). `next` is undefined at the segment's end.
   * Expired items are left out of `items`, but counted in `read`. For operators' whole-table
   * jobs (migrations, the drift check), never for a request.
   */
  async scanPage(
    segment: number,
    segments: number,
    limit: number,
    startKey?: Record<string, unknown>,
  ): Promise<{ items: Item[]; read: number; next?: Record<string, unknown> }> {
    const out = await this.doc.send(
      new ScanCommand({
        TableName: this.tableName,
        Segment: segment,
        TotalSegments: segments,
        Limit: limit,
        ConsistentRead: true,
        ExclusiveStartKey: startKey,
      }),
    );
    const read = out.Items ?? [];
    return { items: read.flatMap((item) => this.live(item) ?? []), read: read.length, next: out.LastEvaluatedKey };
  }

  /** Removes attributes from an item if it still exists (a vanished item is not recreated). */
  async removeAttributes(key: Key, attributes: string[]): Promise<void> {
    const names = Object.fromEntries(attributes.map((a, i) => [`#a${i}`, a]));
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: key,
          UpdateExpression: `REMOVE ${Object.keys(names).join(', ')}`,
          ConditionExpression: 'attribute_exists(PK)',
          ExpressionAttributeNames: names,
        }),
      );
    } catch (error) {
      if (!(error instanceof Error && error.name === 'ConditionalCheckFailedException')) throw error;
    }
  }

  /**
   * Deletes the item of each of `keys` (one already gone stays gone: a delete recreates nothing):
   * BatchWriteItem, 25 keys a call, without a transaction (1 WRU a delete, not 2), its unprocessed
   * keys sent again with backoff. Throws what a call throws, or after 20 rounds that left keys
   * unprocessed (then some of the items may have been deleted).
   */
  async deleteEach(keys: readonly Key[]): Promise<void> {
    await inBatches(distinctKeys(keys), BATCH_WRITE_LIMIT, 'BatchWriteItem', async (pending) => {
      const out = await this.doc.send(
        new BatchWriteCommand({ RequestItems: { [this.tableName]: pending.map((key) => ({ DeleteRequest: { Key: key } })) } }),
      );
      return (out.UnprocessedItems?.[this.tableName] ?? []).flatMap((request) => {
        const key = request.DeleteRequest?.Key;
        return key ? [{ PK: String(key.PK), SK: String(key.SK) }] : [];
      });
    });
  }

  /**
   * Removes `attributes` from each item of `keys` that still exists (a vanished item is not
   * recreated): one UpdateItem for one key, transactions of many for more (transactEach), so many
   * removals cost one call instead of one each. Throws what the calls throw past transactEach's
   * bounds (then some of the removals may have been made).
   */
  async removeAttributesOfEach(keys: readonly Key[], attributes: string[]): Promise<void> {
    const distinct = [...new Map(keys.map((key) => [`${key.PK}\u0000${key.SK}`, key])).values()];
    if (distinct.length === 1) return this.removeAttributes(distinct[0], attributes);
    await this.transactEach(
      distinct.map((key) => [attributes.reduce((write, attribute) => write.remove(attribute), update(key)).ifExists()]),
    );
  }

  /**
   * Commits each of `units` (the writes of each go together, all or none) and tells, for each,
   * whether it committed (false: one of its conditions failed). Units are packed into
   * TransactWriteItems of up to 100 writes, a key at most once in each, so many small units cost a
   * few calls instead of one each. A transaction is all or nothing, so when some of its units'
   * conditions fail those are left out and the rest sent again; a conflict with another
   * transaction is retried with backoff, as `transact` does (sendTransaction). Throws CONFLICT when
   * conflicts outlast that bound, and what the calls throw (then the units of other transactions
   * may have committed).
   */
  async transactEach(units: readonly (readonly Write[])[]): Promise<boolean[]> {
    const committed = units.map(() => false);
    // Packs the units, in order, into transactions within DynamoDB's limits.
    const packs: number[][] = [];
    let pack: number[] = [];
    let writes = 0;
    let keys = new Set<string>();
    units.forEach((unit, u) => {
      const unitKeys = unit.map((w) => `${w.key.PK}\u0000${w.key.SK}`);
      if (pack.length > 0 && (writes + unit.length > MAX_TRANSACTION_ITEMS || unitKeys.some((k) => keys.has(k)))) {
        packs.push(pack);
        pack = [];
        writes = 0;
        keys = new Set();
      }
      pack.push(u);
      writes += unit.length;
      for (const k of unitKeys) keys.add(k);
    });
    if (pack.length > 0) packs.push(pack);
    for (let remaining of packs) {
      let attempts = 0;
      while (remaining.length > 0) {
        const sent = remaining.flatMap((u) => units[u].map(() => u));
        const reasons = await this.sendTransaction(remaining.flatMap((u) => units[u]));
        if (reasons === 'committed') {
          for (const u of remaining) committed[u] = true;
          break;
        }
        if (!Array.isArray(reasons)) {
          if (++attempts >= MAX_TX_ATTEMPTS) throw reasons.reason === 'throttled' ? reasons.error : contendedItem();
          await sleep(backoff(attempts));
          continue;
        }
        // Each round leaves out at least one unit (one whose condition failed), so this ends.
        const failed = new Set(reasons.flatMap((r, i) => (r.Code === 'ConditionalCheckFailed' ? [sent[i]] : [])));
        remaining = remaining.filter((u) => !failed.has(u));
      }
    }
    return committed;
  }

  /** Reads every live item of `spec`, up to `max`; throws when more exist, so nothing is silently cut. */
  async queryAll(spec: QuerySpec, max = 5000): Promise<Item[]> {
    if (spec.shards) return mergeShards(spec, max + 1, this.orderOf(spec), this.shardRead()).then((items) => this.atMost(items, max));
    return this.atMost(await this.queryAllOf(spec, max), max);
  }

  /** `items`, or BAD_USER_INPUT when they are more than `max` (see queryAll). */
  private atMost(items: Item[], max: number): Item[] {
    if (items.length > max) throw new AppError(ErrorCode.BAD_USER_INPUT, `More than ${max} items match; narrow the request.`);
    return items;
  }

  /** Every live item of one partition's query, stopping once more than `max` are read. */
  private async queryAllOf(spec: QuerySpec, max: number): Promise<Item[]> {
    const items: Item[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const out = await this.query(this.queryInput(spec, 1000, startKey));
      items.push(...out.items);
      startKey = out.lastKey;
    } while (startKey && items.length <= max);
    return items;
  }

  /** The order a query reads its items in: by the sort key of its index (then the table key), in its direction. */
  private orderOf(spec: QuerySpec): (a: Item, b: Item) => number {
    const order = keyOrder(keySchemas[spec.index ?? 'TABLE'].sk);
    return spec.descending ? (a, b) => order(b, a) : order;
  }

  /** One Query of one shard of a write-sharded query (see mergeShards), of `projection`'s attributes when given. */
  private shardRead(projection?: Projection): ShardRead {
    return async (spec, n, startKey) => this.query(this.queryInput(spec, n, startKey, projection));
  }

  /**
   * Writes all of `writes` in one TransactWriteItems, or none of them. A failed condition becomes
   * the error that write's `onConditionFailed` returns (CONFLICT when it has none). A conflict with
   * a concurrent transaction or a throttled partition is retried with backoff (MAX_TX_ATTEMPTS in
   * all), so it ends in success, in the condition failure the other writer caused, in CONFLICT
   * past the bound, or SERVICE_UNAVAILABLE for throttling past it; never in a bare internal error.
   * This is the retry of writes made outside the committer (src/infra/dynamo/committer.ts), which
   * calls transactOnce and keeps the one retry loop of its own.
   */
  async transact(writes: readonly Write[]): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      const outcome = await this.transactOnce(writes);
      if (outcome === 'committed') return;
      if (attempt >= MAX_TX_ATTEMPTS) throw outcome.reason === 'throttled' ? outcome.error : contendedItem();
      await sleep(backoff(attempt));
    }
  }

  /**
   * Sends `writes` in one TransactWriteItems, once (the SDK's own retries of a failed call
   * aside). Resolves 'committed'; or, when DynamoDB cancelled the transaction for a reason another
   * attempt may not meet, `{ reason }`: 'conflict' (a concurrent transaction on one of its items)
   * or 'throttled' (a partition's throughput refused it, with `error` the SERVICE_UNAVAILABLE it
   * became: DynamoDB cancels it with ThrottlingError reasons, which the SDK does not retry).
   * Throws the failed write's `onConditionFailed` error (CONFLICT without one) when a condition
   * failed (then nothing was written), and whatever else the call throws.
   */
  async transactOnce(writes: readonly Write[]): Promise<TransactOutcome> {
    const reasons = await this.sendTransaction(writes);
    if (!Array.isArray(reasons)) return reasons;
    const failed = reasons.findIndex((r) => r.Code === 'ConditionalCheckFailed');
    const raw = reasons[failed].Item;
    const current = raw ? (isMarshalled(raw) ? unmarshall(raw) : raw) : undefined;
    const handler = writes[failed]?.onConditionFailed;
    throw handler
      ? handler(this.live(current) ?? undefined)
      : new AppError(ErrorCode.CONFLICT, 'A concurrent change won; reload and try again.');
  }

  /**
   * Sends `writes` in one TransactWriteItems, once. Resolves 'committed', the cancellation reasons
   * when a condition failed (nothing was written), or a reason to send it again (see
   * transactOnce); throws whatever else the call throws.
   */
  private async sendTransaction(writes: readonly Write[]): Promise<TransactOutcome | CancellationReason[]> {
    try {
      await this.doc.send(new TransactWriteCommand(transactRequest(this.tableName, writes)));
      return 'committed';
    } catch (error) {
      if (throttledCancellation(error instanceof Error && error.cause !== undefined ? error.cause : error))
        return { reason: 'throttled', error };
      if (!(error instanceof TransactionCanceledException)) throw error;
      const reasons = error.CancellationReasons ?? [];
      if (reasons.some((r) => r.Code === 'ConditionalCheckFailed')) return reasons;
      if (!reasons.some((r) => r.Code === 'TransactionConflict')) throw error;
      return { reason: 'conflict', error };
    }
  }
}

/** The error of a write whose items other transactions kept changing past the retry bound. */
const contendedItem = () => new AppError(ErrorCode.CONFLICT, 'The item is being changed by others right now; try again.');

/** True when a cancellation's item came in DynamoDB's attribute-value form (the SDK types it as either). */
function isMarshalled(value: object): value is Record<string, AttributeValue> {
  const first = Object.values(value)[0];
  return (
    typeof first === 'object' &&
    first !== null &&
    Object.keys(first).length === 1 &&
    /^(S|N|B|SS|NS|BS|M|L|NULL|BOOL)$/.test(Object.keys(first)[0])
  );
}
