import type DataLoader from 'dataloader';
import type { Item, Store } from '../infra/dynamo/store';
import type { Key } from './keys';

/**
 * What a repository may use for one request: the caller's tenant and user (from the verified
 * token), the store, and the request's item loader. One scope per request, never shared.
 */
export interface Scope {
  tenantId: string;
  actor: string;
  store: Store;
  items: DataLoader<Key, Item | null>;
  eventRetentionDays: number;
  now(): Date;
}
