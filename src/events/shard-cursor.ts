import { JOB_STATUS_SHARDS } from '../common/streams';
import { badInput } from '../errors';

/*
 * The cursor of a sharded stream (the tenant's job status changes, JOB_STATUS_SHARDS shards): where
 * a subscriber stands in every shard at once, as one opaque text. A position of one stream is one
 * number; a sharded stream's is one number a shard, so a message of it carries this cursor and a
 * resume passes it back (`afterCursor`). Clients treat it as opaque: its form may change, and
 * the server says what it accepts by refusing the rest with BAD_USER_INPUT.
 */

const VERSION = 'v1';

/** The cursor of `positions`, one per shard in shard order. */
export function encodeCursor(positions: readonly number[]): string {
  return Buffer.from(`${VERSION}:${positions.join('.')}`, 'utf8').toString('base64url');
}

/**
 * The positions a cursor names, one per shard; throws BAD_USER_INPUT naming `argument` for a text
 * this server did not hand out (not base64url, another version, another number of shards, or a
 * position that is not a whole number of 0 or more).
 */
export function decodeCursor(cursor: string, argument: string): number[] {
  const refuse = () =>
    badInput(`${argument} is not a cursor this stream gave out; resume with the cursor of the last message you received.`, argument);
  if (!/^[A-Za-z0-9_-]{1,400}$/.test(cursor)) throw refuse();
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const [version, list, ...rest] = text.split(':');
  if (version !== VERSION || list === undefined || rest.length > 0) throw refuse();
  const parts = list.split('.');
  if (parts.length !== JOB_STATUS_SHARDS || parts.some((part) => !/^\d{1,12}$/.test(part))) throw refuse();
  return parts.map(Number);
}
