import type DataLoader from 'dataloader';
import type { Item, OrderedList, Page, PageRequest, Projection, QuerySpec, Store } from '../infra/dynamo/store';
import type { UnitWrite } from '../infra/dynamo/write';
import type { CommitHooks } from '../infra/dynamo/committer';
import type { BoundTenant } from './bound-tenant';
import type { SharedItemReads } from '../infra/shared-reads';
import type { FilesService } from './files/files.service';
import type { IdPrefix } from './ids';
import type { Key } from './keys';

/**
 * What a repository may use for one request: the caller's tenant and user (from the verified
 * token), the store, and the request's item loader. One scope per request, never shared.
 */
export interface Scope {
  /**
   * The caller's tenant, bound when the scope was made (from the verified token, or the lease a
   * pool worker holds): every key, object key and stream of the request is built through it.
   */
  tenant: BoundTenant;
  actor: string;
  store: Store;
  items: DataLoader<Key, Item | null>;
  /**
   * A strongly consistent read of one item that starts after this call and is shared with every
   * caller of the same key meanwhile, across requests (see SharedReads): for reads that bursts of
   * callers make at once, such as the head a subscription reads when it starts. Not cached.
   */
  shared: Pick<SharedItemReads<Item>, 'get' | 'page' | 'query'>;
  /**
   * Reads one page of a query of this tenant. Pages asked for together (a list field under each
   * of several parents) are read in parallel and handed back together, so the loads they cause
   * next fall into one batch. With `projection`, its items hold only those attributes and the
   * keys (see Projection): a page is kept for the request by its query, request and projection,
   * so a read that asks for more than an earlier one is read anew, never handed the fewer.
   */
  page(spec: QuerySpec, request?: PageRequest, projection?: Projection): Promise<Page<Item>>;
  /**
   * One page of several queries merged newest first by `sortAttribute` (Store.queryMerged: the
   * shards of a write-sharded index), its cursors bound to this tenant and `listId`.
   */
  pageMerged(listId: string, shards: (before?: string) => QuerySpec[], sortAttribute: string, request?: PageRequest): Promise<Page<Item>>;
  /**
   * One page of a list computed whole and ordered (Store.listPage: ranked search results), its
   * cursors bound to this tenant and `listId`.
   */
  pageOfList<T>(ordered: OrderedList<T>, request?: PageRequest): Promise<Page<T>>;
  eventRetentionDays: number;
  /** Makes the id of a new entity (`<prefix>_<ULID>`); the demo loader supplies fixed ones. */
  newId(prefix: IdPrefix): string;
  /** S3 for this caller (upload targets, download URLs), confined to the tenant's prefix. */
  files: FilesService;
  /**
   * Commits `writes` as one unit of work (see commitUnit): one transaction, then the request's
   * cached reads are dropped and the unit's events published.
   */
  commit(writes: readonly UnitWrite[]): Promise<void>;
  /**
   * Decides a unit of work on the items at `keys` (null where none exists) and commits it with
   * this caller's hooks, in the queue of the stream `queue` heads: read again and decided again
   * when an item moved before the commit (see Committer.decideUnit, which says what it throws).
   */
  decide<T>(queue: Key, keys: readonly Key[], decide: (items: (Item | null)[]) => { writes: readonly UnitWrite[]; value: T }): Promise<T>;
  /** What happens around this caller's commits (its caches dropped, its events published, its tenant's settings applied): an aggregate's units carry them to the committer. */
  commitHooks(): CommitHooks;
  now(): Date;
}
