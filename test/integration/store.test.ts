import { type Item, put as putItem, update as updateItem } from '../../src/infra/dynamo/write';
import { freshTable, type TestTable } from '../support/dynamo';

describe('Store against DynamoDB Local', () => {
  let table: TestTable;
  let clock = Date.now();

  beforeAll(async () => {
    table = await freshTable({ now: () => clock });
  });

  const put = (items: Item[]) => Promise.all(items.map((item) => table.store.transact([putItem(item)])));

  it('reads 250 keys in key order with null for misses, in ceil(250/100) BatchGetItem calls', async () => {
    const items = Array.from({ length: 240 }, (_, i) => ({ PK: 'TENANT#b', SK: `ITEM#${String(i).padStart(3, '0')}`, n: i }));
    for (let i = 0; i < items.length; i += 25) await put(items.slice(i, i + 25));
    const keys = [
      ...items.map(({ PK, SK }) => ({ PK, SK })),
      ...Array.from({ length: 10 }, (_, i) => ({ PK: 'TENANT#b', SK: `MISSING#${i}` })),
    ].reverse();
    table.dynamo.calls.reset();
    const got = await table.store.batchGet(keys);
    expect(table.dynamo.calls.byCommand.get('BatchGetItemCommand')).toBe(3);
    expect(got).toHaveLength(250);
    expect(got.slice(0, 10)).toEqual(Array(10).fill(null));
    expect(got.slice(10).map((item) => item?.n)).toEqual(items.map((i) => i.n).reverse());
  });

  it('pages through a partition with cursors: every item once, in order, pages full', async () => {
    const items = Array.from({ length: 45 }, (_, i) => ({ PK: 'TENANT#p', SK: `ROW#${String(i).padStart(2, '0')}` }));
    await put(items);
    const seen: string[] = [];
    const sizes: number[] = [];
    let after: string | null = null;
    for (;;) {
      const page = await table.store.queryPage('p', { pk: 'TENANT#p', skPrefix: 'ROW#' }, { first: 20, after });
      seen.push(...page.nodes.map((n) => n.SK));
      sizes.push(page.nodes.length);
      if (!page.pageInfo.hasNextPage) break;
      after = await page.pageInfo.endCursor;
    }
    expect(sizes).toEqual([20, 20, 5]);
    expect(seen).toEqual(items.map((i) => i.SK));
  });

  it('pages the same partition backward with last/before: every item once, each page in list order, pages full', async () => {
    const spec = { pk: 'TENANT#p', skPrefix: 'ROW#' };
    const pages: string[][] = [];
    let before: string | null = null;
    for (;;) {
      const page = await table.store.queryPage('p', spec, { last: 20, before });
      pages.unshift(page.nodes.map((n) => n.SK));
      if (!page.pageInfo.hasPreviousPage) break;
      before = await page.pageInfo.startCursor;
    }
    expect(pages.map((p) => p.length)).toEqual([5, 20, 20]);
    expect(pages.flat()).toEqual(Array.from({ length: 45 }, (_, i) => `ROW#${String(i).padStart(2, '0')}`));
    // Each edge's cursor is the cursor of its node: after the 3rd edge comes the 4th row.
    const head = await table.store.queryPage('p', spec, { first: 5 });
    const third = await head.edges[2].cursor;
    expect((await table.store.queryPage('p', spec, { first: 1, after: third })).nodes[0].SK).toBe('ROW#03');
    expect((await table.store.queryPage('p', spec, { last: 1, before: third })).nodes[0].SK).toBe('ROW#01');
  });

  it('refuses a cursor used for another query or another tenant', async () => {
    const page = await table.store.queryPage('p', { pk: 'TENANT#p', skPrefix: 'ROW#' }, { first: 5 });
    await expect(
      table.store.queryPage('p', { pk: 'TENANT#p', skPrefix: 'ROW#', descending: true }, { after: await page.pageInfo.endCursor }),
    ).rejects.toMatchObject({
      extensions: { code: 'BAD_USER_INPUT' },
    });
    await expect(
      table.store.queryPage('q', { pk: 'TENANT#p', skPrefix: 'ROW#' }, { after: await page.pageInfo.endCursor }),
    ).rejects.toMatchObject({
      extensions: { code: 'BAD_USER_INPUT' },
    });
  });

  it('caps first at 100 and refuses 0 or more', async () => {
    await expect(table.store.queryPage('p', { pk: 'TENANT#p' }, { first: 101 })).rejects.toMatchObject({
      extensions: { code: 'BAD_USER_INPUT' },
    });
    await expect(table.store.queryPage('p', { pk: 'TENANT#p' }, { first: 0 })).rejects.toMatchObject({
      extensions: { code: 'BAD_USER_INPUT' },
    });
    const page = await table.store.queryPage('p', { pk: 'TENANT#p' });
    expect(page.nodes).toHaveLength(20);
  });

  it('never returns expired items, and still fills a page past them', async () => {
    const nowSeconds = Math.floor(clock / 1000);
    // Interleave: every other item expired a minute ago.
    const items = Array.from({ length: 30 }, (_, i) => ({
      PK: 'TENANT#e',
      SK: `EV#${String(i).padStart(2, '0')}`,
      expiresAt: i % 2 === 0 ? nowSeconds - 60 : nowSeconds + 3600,
    }));
    await put(items);
    const page = await table.store.queryPage('e', { pk: 'TENANT#e' }, { first: 10 });
    expect(page.nodes).toHaveLength(10);
    expect(page.nodes.every((n) => Number(n.expiresAt) > nowSeconds)).toBe(true);
    expect(page.pageInfo.hasNextPage).toBe(true);
    // Backward too: the last 10 live items, past the expired ones between them.
    const tail = await table.store.queryPage('e', { pk: 'TENANT#e' }, { last: 10 });
    expect(tail.nodes.map((n) => n.SK)).toEqual(
      items
        .filter((_, i) => i % 2 === 1)
        .slice(-10)
        .map((i) => i.SK),
    );
    expect(tail.pageInfo).toMatchObject({ hasPreviousPage: true, hasNextPage: false });
    expect(await table.store.get({ PK: 'TENANT#e', SK: 'EV#00' })).toBeNull();
    expect(await table.store.get({ PK: 'TENANT#e', SK: 'EV#01' })).not.toBeNull();
    const batch = await table.store.batchGet([
      { PK: 'TENANT#e', SK: 'EV#00' },
      { PK: 'TENANT#e', SK: 'EV#01' },
    ]);
    expect(batch.map((b) => b?.SK ?? null)).toEqual([null, 'EV#01']);
    // Two hours on, every item has expired.
    clock += 2 * 3600 * 1000;
    expect((await table.store.queryPage('e', { pk: 'TENANT#e' })).nodes).toEqual([]);
    expect(await table.store.get({ PK: 'TENANT#e', SK: 'EV#01' })).toBeNull();
  });

  it('removes attributes from 150 items in TransactWriteItems of 100, skipping vanished items without recreating them', async () => {
    const items = Array.from({ length: 150 }, (_, i) => ({
      PK: 'TENANT#r',
      SK: `EV#${String(i).padStart(3, '0')}`,
      x: 'a',
      y: 'b',
      keep: i,
    }));
    for (let i = 0; i < items.length; i += 25) await put(items.slice(i, i + 25));
    const vanished = Array.from({ length: 5 }, (_, i) => ({ PK: 'TENANT#r', SK: `GONE#${i}` }));
    // The vanished keys come first, so the first transaction is cancelled by their conditions and sent again without them.
    const keys = [...vanished, ...items.map(({ PK, SK }) => ({ PK, SK }))];
    table.dynamo.calls.reset();
    await table.store.removeAttributesOfEach(keys, ['x', 'y']);
    expect(Object.fromEntries(table.dynamo.calls.byCommand)).toEqual({ TransactWriteItemsCommand: 3 });
    const after = await table.store.batchGet(keys);
    expect(after.slice(0, 5)).toEqual(Array(5).fill(null));
    expect(after.slice(5).map((item) => [item?.keep, item?.x, item?.y])).toEqual(items.map((i) => [i.keep, undefined, undefined]));
    // One key is one UpdateItem, as the transaction's extra cost buys nothing then.
    await put([{ PK: 'TENANT#r', SK: 'ONE', x: 'a' }]);
    table.dynamo.calls.reset();
    await table.store.removeAttributesOfEach(
      [
        { PK: 'TENANT#r', SK: 'ONE' },
        { PK: 'TENANT#r', SK: 'ONE' },
      ],
      ['x'],
    );
    expect(Object.fromEntries(table.dynamo.calls.byCommand)).toEqual({ UpdateItemCommand: 1 });
    expect(await table.store.get({ PK: 'TENANT#r', SK: 'ONE' })).toEqual({ PK: 'TENANT#r', SK: 'ONE' });
  });

  it('deletes 60 items in BatchWriteItems of 25, once each, leaving missing keys missing', async () => {
    const items = Array.from({ length: 60 }, (_, i) => ({ PK: 'TENANT#d', SK: `ROW#${String(i).padStart(2, '0')}`, n: i }));
    for (let i = 0; i < items.length; i += 25) await put(items.slice(i, i + 25));
    const keys = items.map(({ PK, SK }) => ({ PK, SK }));
    const missing = { PK: 'TENANT#d', SK: 'NEVER' };
    table.dynamo.calls.reset();
    await table.store.deleteEach([...keys, keys[0], missing]);
    // 61 distinct keys: three calls.
    expect(Object.fromEntries(table.dynamo.calls.byCommand)).toEqual({ BatchWriteItemCommand: 3 });
    expect(await table.store.batchGet([...keys, missing])).toEqual(Array(61).fill(null));
  });

  it('commits 60 units in two transactions, leaving out those whose condition failed and splitting units that share a key', async () => {
    await put([0, 1, 2].map((i) => ({ PK: 'TENANT#u', SK: `NEW#${i}`, taken: true })));
    // 60 units of one conditional put each (3 of them taken already), then 2 units that add to one counter.
    const units = [
      ...Array.from({ length: 60 }, (_, i) => [putItem({ PK: 'TENANT#u', SK: `NEW#${i}`, n: i }).ifNew()]),
      [updateItem({ PK: 'TENANT#u', SK: 'COUNTER' }).addNumber('n', 1)],
      [updateItem({ PK: 'TENANT#u', SK: 'COUNTER' }).addNumber('n', 1)],
    ];
    table.dynamo.calls.reset();
    const committed = await table.store.transactEach(units);
    expect(committed).toEqual([false, false, false, ...Array(59).fill(true)]);
    // The first transaction (57 puts that could commit, 3 that could not, and the first counter unit) is sent again without the 3.
    expect(Object.fromEntries(table.dynamo.calls.byCommand)).toEqual({ TransactWriteItemsCommand: 3 });
    const rows = await table.store.batchGet(Array.from({ length: 60 }, (_, i) => ({ PK: 'TENANT#u', SK: `NEW#${i}` })));
    expect(rows.map((row) => row?.n ?? row?.taken)).toEqual([true, true, true, ...Array.from({ length: 57 }, (_, i) => i + 3)]);
    expect((await table.store.get({ PK: 'TENANT#u', SK: 'COUNTER' }))?.n).toBe(2);
  });
});
