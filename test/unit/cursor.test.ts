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
