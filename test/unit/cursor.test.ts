import { JOB_STATUS_SHARDS } from '../../src/common/streams';
import type { AppError } from '../../src/errors';
import { decodeCursor, encodeCursor } from '../../src/events/shard-cursor';
import { CursorCodec } from '../../src/infra/cursor';

describe('CursorCodec', () => {
  const codec = new CursorCodec('secret-1');
  const position = { PK: 'TENANT#a', SK: 'PROJECT#p1' };

  it('round-trips a position for the same tenant and query', async () => {
    const cursor = await codec.encode('a', 'q1', position);
    await expect(codec.decode(cursor, 'a', 'q1')).resolves.toEqual(position);
  });

  it('is opaque: the key does not show in the cursor', async () => {
    const cursor = await codec.encode('a', 'q1', position);
    expect(cursor).not.toContain('PROJECT');
    expect(Buffer.from(cursor.split('.')[3] ?? '', 'base64url').toString()).not.toContain('PROJECT');
  });

  it('rejects a cursor of another tenant or another query with BAD_USER_INPUT', async () => {
    const cursor = await codec.encode('a', 'q1', position);
    await expect(codec.decode(cursor, 'b', 'q1')).rejects.toMatchObject({ extensions: { code: 'BAD_USER_INPUT' } });
    await expect(codec.decode(cursor, 'a', 'q2')).rejects.toMatchObject({ extensions: { code: 'BAD_USER_INPUT' } });
  });

  it('rejects a tampered cursor, garbage, and a cursor made with another key', async () => {
    const cursor = await codec.encode('a', 'q1', position);
    const parts = cursor.split('.');
    parts[3] = parts[3].slice(0, -2) + (parts[3].endsWith('AA') ? 'BB' : 'AA');
    await expect(codec.decode(parts.join('.'), 'a', 'q1')).rejects.toMatchObject({ extensions: { code: 'BAD_USER_INPUT' } });
    await expect(codec.decode('not-a-cursor', 'a', 'q1')).rejects.toMatchObject({ extensions: { code: 'BAD_USER_INPUT' } });
    const other = await new CursorCodec('secret-2').encode('a', 'q1', position);
    await expect(codec.decode(other, 'a', 'q1')).rejects.toMatchObject({ extensions: { code: 'BAD_USER_INPUT' } });
  });
});

describe("the cursor of the tenant's sharded job status stream", () => {
  const positions = Array.from({ length: JOB_STATUS_SHARDS }, (_, shard) => shard * 1000);

  it('names every shard’s position, and reads back as it was written', () => {
    expect(decodeCursor(encodeCursor(positions), 'afterCursor')).toEqual(positions);
  });

  it('refuses, as BAD_USER_INPUT naming the argument, what the server never hands out', () => {
    const refused = (cursor: string) => {
      try {
        decodeCursor(cursor, 'afterCursor');
      } catch (error) {
        return [(error as AppError).code, (error as AppError).extensions?.field];
      }
      return 'accepted';
    };
    const forged = (text: string) => Buffer.from(text).toString('base64url');
    for (const cursor of [
      '',
      'not a cursor!',
      forged(`v2:${positions.join('.')}`),
      forged(`v1:${positions.slice(1).join('.')}`),
      forged(`v1:${[...positions.slice(1), -1].join('.')}`),
      forged(`v1:${[...positions.slice(1), 1.5].join('.')}`),
      forged(`v1:${positions.join('.')}:x`),
    ])
      expect([cursor, refused(cursor)]).toEqual([cursor, ['BAD_USER_INPUT', 'afterCursor']]);
  });
});
