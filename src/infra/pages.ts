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
