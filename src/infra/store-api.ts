import type { IndexName, Key } from './dynamo/table';
import type { Page, PageRequest } from './dynamo/page';
import type { Item, Write } from './dynamo/write';

/*
 * The store boundary: everything the rest of the server calls on its store, and nothing else. The
 * DynamoDB store (src/infra/dynamo/store.ts) and the PostgreSQL store (src/infra/postgres/store.ts)
 * each implement it once; the committer (src/infra/dynamo/committer.ts), the repositories, the
 * outbox and the system jobs see only this. Items are the entities' items as the declarations derive
 * them (their key, `entityType` and attributes); writes are the structured writes of write.ts, whose
 * conditions each store translates into its own terms.
 */

/** One query over the base table or an index: a partition and at most one sort-key condition. */
export interface QuerySpec {
  index?: IndexName;
  pk: string;
  skPrefix?: string;
  /** Sort keys from the first to the second, both included. */
  skBetween?: [string, string];
  /** Sort keys below this one. */
  skBefore?: string;
  /** Newest (or last) first. */
  descending?: boolean;
  /**
   * The other partitions of a write-sharded index (IndexDeclaration.shards, `pk` being shard 0):
   * every read of the query reads them all and merges them in the sort key's order (ties by the
   * table key), so the query reads as one partition. Its cursors are the positions `pk`'s query
   * gives (queryFingerprint leaves the shards out).
   */
  shards?: readonly string[];
}

/**
 * The attributes a read returns, when not every one: a page's items then hold these (those they
 * have) and what the store itself needs of each item, which it adds: the key, `entityType`, the
 * expiry and the key of the index read (a cursor is an item's position in it). Made once per
 * selection and kept (see EntityModel.projectionOf), so the expression built from it is kept too.
 */
export type Projection = readonly string[];

/**
 * A list the caller computed whole and ordered (ranked search results), to be paged by Store.listPage:
 * its id (what its cursors are bound to), its nodes in order, a node's position (unique in the list),
 * and how two positions compare as the list orders them.
 */
export interface OrderedList<T> {
  listId: string;
  list: readonly T[];
  positionOf: (node: T) => Record<string, unknown>;
  compare: (a: Record<string, unknown>, b: Record<string, unknown>) => number;
}

/** The cache key of an item key, for DataLoader and for ordering batch results. */
export const keyString = (key: Key) => `${key.PK}\u0000${key.SK}`;

/**
 * What the server calls on its store. Every read leaves out items past their `expiresAt`; every
 * method throws what its database throws past the store's own bounded retries, and the errors
 * named below. A store is shared by every request of a process.
 */
export interface StoreApi {
  /**
   * True for a store that indexes the searchable entities' text itself (PostgreSQL's tsvector
   * column): no word items are written for it, and search reads through `searchByWord`.
   */
  readonly indexesText?: boolean;
  /**
   * With `indexesText`: the items of the entity types `types` (searchable entities) of `tenantId`
   * that have a word starting with `word`, newest first within each type. Throws BAD_USER_INPUT when more than
   * `limit` of their words start with it, as queryAll does past its bound, so a search never reads
   * more on one store than on the other.
   */
  searchByWord?(tenantId: string, types: readonly string[], word: string, limit: number): Promise<Item[]>;
  /** Reads one item strongly consistently; null when it is missing or expired. */
  get(key: Key): Promise<Item | null>;
  /** One entry per key, in key order: the item, or null for a miss. Duplicate keys are read once. */
  batchGet(keys: readonly Key[]): Promise<(Item | null)[]>;
  /**
   * One page of `spec` for `tenantId`, forward (`first`/`after`) or backward (`last`/`before`), its
   * cursors opaque and bound to the tenant and the query. BAD_USER_INPUT for a bad size, mixed
   * directions, or a cursor of another tenant or query.
   */
  queryPage(tenantId: string, spec: QuerySpec, page?: PageRequest, projection?: Projection): Promise<Page<Item>>;
  /** One page of several queries merged newest first by `sortAttribute` (write-sharded indexes); forward only. */
  queryMerged(
    tenantId: string,
    listId: string,
    shards: (before?: string) => QuerySpec[],
    sortAttribute: string,
    page?: PageRequest,
  ): Promise<Page<Item>>;
  /** One page of a list the caller computed whole and ordered (see OrderedList). */
  listPage<T>(tenantId: string, ordered: OrderedList<T>, page?: PageRequest): Promise<Page<T>>;
  /**
   * The first `n` live items of `spec`. With `projection`, the items hold only its attributes and
   * what the store needs (see Projection): a caller that needs only the keys reads no more.
   */
  queryFirst(spec: QuerySpec, n: number, projection?: Projection): Promise<Item[]>;
  /** Every live item of `spec`, up to `max`; BAD_USER_INPUT when more exist, so nothing is silently cut. */
  queryAll(spec: QuerySpec, max?: number): Promise<Item[]>;
  /**
   * One page of segment `segment` of `segments` of a scan of every item, from `startKey` (the
   * `next` of the page before). For operators' whole-store jobs (migrations, the drift check).
   */
  scanPage(
    segment: number,
    segments: number,
    limit: number,
    startKey?: Record<string, unknown>,
  ): Promise<{ items: Item[]; read: number; next?: Record<string, unknown> }>;
  /** Removes attributes from an item if it still exists (a vanished item is not recreated). */
  removeAttributes(key: Key, attributes: string[]): Promise<void>;
  /** removeAttributes for each of `keys`. */
  removeAttributesOfEach(keys: readonly Key[], attributes: string[]): Promise<void>;
  /** Deletes the item of each of `keys`, without a transaction (one already gone stays gone). */
  deleteEach(keys: readonly Key[]): Promise<void>;
  /** Commits each of `units` on its own (all or none of a unit's writes) and tells, for each, whether it committed. */
  transactEach(units: readonly (readonly Write[])[]): Promise<boolean[]>;
  /**
   * Writes all of `writes` in one transaction, or none. A failed condition becomes the error that
   * write's `onConditionFailed` returns given the item as it is now (CONFLICT when it has none); a
   * conflict with a concurrent transaction is retried within a bound, then CONFLICT.
   */
  transact(writes: readonly Write[]): Promise<void>;
  /**
   * Sends `writes` in one transaction, once (no retry of this store's own): 'committed', or the
   * reason another attempt may meet what this one did not (a concurrent transaction on one of its
   * items; a throttled partition, with the error it became). A failed condition throws as in
   * `transact`. The committer (src/infra/dynamo/committer.ts) calls it and keeps the one retry loop.
   */
  transactOnce(writes: readonly Write[]): Promise<TransactOutcome>;
}

/** What one transaction came to short of a failed condition (see StoreApi.transactOnce). */
export type TransactOutcome = 'committed' | { reason: 'conflict' | 'throttled'; error: unknown };
