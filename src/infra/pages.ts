import { createHash } from 'node:crypto';
import { AppError, ErrorCode } from '../errors';
import type { CursorCodec } from './cursor';
import { lazyCursor, Page, type PageRequest, pageShape } from './dynamo/page';
import type { Item } from './dynamo/write';
import type { OrderedList, QuerySpec } from './store-api';

/*
 * The pages every store makes the same way, whatever reads its items: a list computed whole and
 * ordered, and the merge of a write-sharded index's shards. Their cursors are opaque, made by the
 * one CursorCodec, and bound to the tenant and the list.
 */

/** A fingerprint of a query, which binds its cursors to it. */
export function queryFingerprint(spec: QuerySpec): string {
  return createHash('sha256')
    .update(
      JSON.stringify([spec.index ?? '', spec.pk, spec.skPrefix ?? '', spec.skBetween ?? '', spec.skBefore ?? '', Boolean(spec.descending)]),
    )
    .digest('base64url')
    .slice(0, 22);
}

/**
 * One page of a list the caller computed whole and ordered (see OrderedList), forward
 * (`first`/`after`) or backward (`last`/`before`). `positionOf` is a node's position (unique in
 * the list) and `compare` orders two positions as the list does, so a page starts at the right
 * place even when the list changed since the cursor was made. A node's cursor is its position,
 * bound to the tenant and `listId` like any cursor. Throws BAD_USER_INPUT for a bad size, for
 * mixed directions, or for a cursor of another tenant or list.
 */
export async function listPage<T>(
  cursors: CursorCodec,
  tenantId: string,
  { listId, list, positionOf, compare }: OrderedList<T>,
  page: PageRequest = {},
): Promise<Page<T>> {
  const { size, backward, cursor, cursorArgument } = pageShape(page);
  const position = cursor ? await cursors.decode(cursor, tenantId, listId, cursorArgument) : undefined;
  const side = backward ? -1 : 1;
  const rest = position ? list.filter((node) => Math.sign(compare(positionOf(node), position)) === side) : list;
  const nodes = backward ? rest.slice(Math.max(0, rest.length - size)) : rest.slice(0, size);
  const more = rest.length > size;
  return new Page(
    nodes,
    nodes.map((node) => lazyCursor(() => cursors.encode(tenantId, listId, positionOf(node)))),
    backward ? { hasNextPage: cursor !== null, hasPreviousPage: more } : { hasNextPage: more, hasPreviousPage: cursor !== null },
  );
}

/**
 * One page of several queries merged, newest first by `sortAttribute`: for write-sharded indexes,
 * where one logical list is spread over shards. `shards(before)` gives the per-shard queries
 * for items sorting below `before`; `queryFirst` reads a shard's first items. The cursor is the
 * item's sort value, bound to the tenant and `listId` like any cursor. Such a list pages forward
 * only: BAD_USER_INPUT for `last`/`before`.
 */
export async function mergedPage(
  cursors: CursorCodec,
  queryFirst: (spec: QuerySpec, n: number) => Promise<Item[]>,
  tenantId: string,
  listId: string,
  shards: (before?: string) => QuerySpec[],
  sortAttribute: string,
  page: PageRequest = {},
): Promise<Page<Item>> {
  const { size: first, backward, cursor } = pageShape(page);
  if (backward) {
    throw new AppError(ErrorCode.BAD_USER_INPUT, 'This list pages forward only: use first and after.', { field: 'last' });
  }
  const before = cursor ? String((await cursors.decode(cursor, tenantId, listId)).before) : undefined;
  const parts = await Promise.all(shards(before).map((spec) => queryFirst(spec, first + 1)));
  const sortKey = (item: Item) => String(item[sortAttribute]);
  const merged = parts.flat().sort((a, b) => (sortKey(a) < sortKey(b) ? 1 : sortKey(a) > sortKey(b) ? -1 : 0));
  const nodes = merged.slice(0, first);
  return new Page(
    nodes,
    nodes.map((item) => lazyCursor(() => cursors.encode(tenantId, listId, { before: item[sortAttribute] }))),
    { hasNextPage: merged.length > first, hasPreviousPage: cursor !== null },
  );
}

/** How items are ordered by the key attribute `sk`, then by their table key: DynamoDB's order of the key strings. */
export function keyOrder(sk: string): (a: Record<string, unknown>, b: Record<string, unknown>) => number {
  const parts = sk === 'SK' ? ['SK', 'PK'] : [sk, 'PK', 'SK'];
  return (a, b) => {
    for (const part of parts) {
      const x = String(a[part] ?? '');
      const y = String(b[part] ?? '');
      if (x !== y) return x < y ? -1 : 1;
    }
    return 0;
  };
}

/** One read of one shard of a query: up to `n` items from after `startKey`, and the key to read on from (undefined at its end). */
export type ShardRead = (
  spec: QuerySpec,
  n: number,
  startKey?: Record<string, unknown>,
) => Promise<{ items: Item[]; lastKey?: Record<string, unknown> }>;

/**
 * The first `want` items of a write-sharded query (QuerySpec.shards) in its order, each shard read
 * from `startOf(pk)` on (a page's cursor, placed in each shard): a merge that reads each shard only
 * as far as the merged list needs. Every shard is read at once, a share of `want` each; then only
 * the shards whose read stops before the `want`-th item so far are read on, until every item up to
 * the `want`-th is one that no shard's unread part can precede (each round moves at least one
 * shard on, so it ends). `order` compares two items in the query's direction of reading.
 */
export async function mergeShards(
  spec: QuerySpec,
  want: number,
  order: (a: Item, b: Item) => number,
  read: ShardRead,
  startOf: (pk: string) => Record<string, unknown> | undefined = () => undefined,
): Promise<Item[]> {
  const shards = [spec.pk, ...(spec.shards ?? [])].map((pk) => {
    const items: Item[] = [];
    return { spec: { ...spec, pk, shards: undefined }, items, next: startOf(pk), done: false };
  });
  // A first read of a share of the page (and a little more) from each shard: evenly spread jobs
  // fill a page in one round.
  let limit = Math.min(want, Math.ceil((2 * want) / shards.length) + 1);
  let toRead = shards;
  for (;;) {
    await Promise.all(
      toRead.map(async (shard) => {
        const out = await read(shard.spec, limit, shard.next);
        shard.items.push(...out.items);
        shard.next = out.lastKey;
        shard.done = out.lastKey === undefined;
      }),
    );
    const merged = shards.flatMap((shard) => shard.items).sort(order);
    const open = shards.filter((shard) => !shard.done);
    // An item is settled when no open shard's unread part can come before it: it is at or before
    // every open shard's last item read (an open shard that read nothing yet settles nothing).
    const settled = merged.filter((item) =>
      open.every((shard) => shard.items.length > 0 && order(item, shard.items[shard.items.length - 1]) <= 0),
    );
    if (open.length === 0 || settled.length >= want) return (open.length === 0 ? merged : settled).slice(0, want);
    // Read on the open shards that stop before the want-th item so far (every open one when there are fewer).
    const bound = merged[want - 1];
    toRead = open.filter((shard) => shard.items.length === 0 || !bound || order(shard.items[shard.items.length - 1], bound) < 0);
    limit = Math.max(1, want - settled.length);
  }
}
