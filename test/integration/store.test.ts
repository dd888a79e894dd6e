import { type Item, put as putItem, update as updateItem } from '../../src/infra/dynamo/write';
import { freshTable, type TestTable } from '../support/dynamo';
import { DriftReport } from '../../src/common/drift';
import { entities } from '../../src/common/entities';
import { newId } from '../../src/common/ids';
import { indexShards } from '../../src/migrations/004-index-shards';
import { opsShards } from '../../src/migrations/005-ops-shards';
import { opsJobsByStatus } from '../../src/job/job.keys';
import { migrateSegment } from '../../src/migrations/migration.segment';
import type { MigrationDeclaration } from '../../src/migrations/migration';
import { createScope } from '../../src/wiring';
import { storedJob } from '../support/job-item';

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

  it("reads a partition's first items with the store's own attributes only, for an empty projection (what a deleted job's purge reads)", async () => {
    const items = Array.from({ length: 12 }, (_, i) => ({
      PK: 'TENANT#k',
      SK: `ROW#${String(i).padStart(2, '0')}`,
      n: i,
      outputs: { result: `tenants/k/out/${i}.png` },
    }));
    await put(items);
    const read = await table.store.queryFirst({ pk: 'TENANT#k' }, 10, []);
    expect(read).toEqual(items.slice(0, 10).map(({ PK, SK }) => ({ PK, SK })));
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

  describe("a write-sharded index: a tenant's jobs by status, over 16 shards by job", () => {
    const TENANT = 'shard-co';
    const JOBS = 40;
    const spec = entities.Job.query(TENANT, 'byStatus', { status: 'QUEUED' }, { descending: true });
    // Three jobs a second, so several share a time and their ids order them.
    const jobs = Array.from({ length: JOBS }, (_, i) => {
      const at = new Date(Date.UTC(2026, 0, 1, 0, 0, Math.floor(i / 3))).toISOString();
      return storedJob(TENANT, {
        jobId: newId('job'),
        projectId: 'proj_01J00000000000000000000000',
        kind: 'SHARDS',
        status: 'QUEUED',
        version: 1,
        at,
      });
    });
    /** The list as one partition would hold it: newest change first. */
    const sortKey = (job: Item) => String(job.GSI1SK);
    const expected = [...jobs].sort((a, b) => (sortKey(a) < sortKey(b) ? 1 : -1)).map((job) => job.jobId);
    const stored = async () => entities.Job.itemsOf(await table.store.batchGet(jobs.map(({ PK, SK }) => ({ PK, SK }))));
    /**
     * After a 'reindex' migration: no job drifts from its declaration, each is in place (a job's
     * version is its stream's position, and its time places it in the list), and the index
     * partition `attribute` holds them spread over 10 shards or more.
     */
    const expectSpreadInPlace = async (attribute: 'GSI1PK' | 'GSI3PK') => {
      const after = new DriftReport();
      const now = await stored();
      for (const job of now) after.add(job);
      expect(after.drifted).toBe(0);
      expect(now.map(({ jobId, version, updatedAt }) => ({ jobId, version, updatedAt }))).toEqual(
        jobs.map(({ jobId, updatedAt }) => ({ jobId, version: 1, updatedAt })),
      );
      expect(new Set(now.map((job: Item) => job[attribute])).size).toBeGreaterThanOrEqual(10);
    };
    /** Runs `migration` over the table as one segment, at once: what it counted. */
    const migrate = (migration: MigrationDeclaration) => {
      const scopeOf = (tenantId: string, actor: string) => createScope({ store: table.store, eventRetentionDays: 30 }, tenantId, actor);
      return migrateSegment({ store: table.store, scopeOf }, migration, {
        job: { inputs: { itemsPerSecond: 1000 } },
        item: { inputs: { segment: 0, segments: 1 } },
        checkpoint: undefined,
        report: async () => {},
        signal: new AbortController().signal,
      });
    };
    /** Every page of the list forward (`first`) or backward (`last`), in list order, and their sizes. */
    const pages = async (direction: 'first' | 'last', size: number) => {
      const ids: string[][] = [];
      let cursor: string | null = null;
      for (;;) {
        const page = await table.store.queryPage(
          TENANT,
          spec,
          direction === 'first' ? { first: size, after: cursor } : { last: size, before: cursor },
        );
        const nodes = entities.Job.itemsOf(page.nodes).map((job) => job.jobId);
        if (direction === 'first') ids.push(nodes);
        else ids.unshift(nodes);
        if (!(direction === 'first' ? page.pageInfo.hasNextPage : page.pageInfo.hasPreviousPage)) break;
        cursor = await (direction === 'first' ? page.pageInfo.endCursor : page.pageInfo.startCursor);
      }
      return ids;
    };

    it('lists jobs written before the sharding (all in shard 0), and migration 004 moves them to their shards in place', async () => {
      // As a server of before wrote them: the index's partition key without a shard.
      await put(jobs.map((job) => ({ ...job, GSI1PK: spec.pk, GSI4PK: `TENANT#${TENANT}#USER#artist#JOBS` })));
      const before = new DriftReport();
      for (const job of await stored()) before.add(job);
      const moved = jobs.filter((job: Item) => job.GSI1PK !== spec.pk).length;
      expect(moved).toBeGreaterThan(JOBS / 2);
      expect(before.byType()).toEqual([
        expect.objectContaining({ entityType: 'Job', drifted: moved, fields: { GSI1PK: moved, GSI4PK: moved } }),
      ]);
      // Read as one list meanwhile: shard 0 holds them all.
      expect((await pages('first', 7)).flat()).toEqual(expected);

      const counts = await migrate(indexShards);
      expect(counts).toMatchObject({ rewritten: moved, unchanged: JOBS - moved, skipped: 0, conflicts: 0 });
      await expectSpreadInPlace('GSI1PK');
    });

    it('pages the list spanning the shards forward and backward in its order, without a gap or a repeat, pages full', async () => {
      // The list spans the shards (the 40 jobs' entries over 10 or more of the 16 partitions).
      expect(new Set((await stored()).map((job: Item) => job.GSI1PK)).size).toBeGreaterThanOrEqual(10);
      const forward = await pages('first', 7);
      expect(forward.map((page) => page.length)).toEqual([7, 7, 7, 7, 7, 5]);
      expect(forward.flat()).toEqual(expected);
      const backward = await pages('last', 7);
      expect(backward.map((page) => page.length)).toEqual([5, 7, 7, 7, 7, 7]);
      expect(backward.flat()).toEqual(expected);
      // A cursor of either direction is valid in both: after the 10th job come the 11th and on.
      const head = await table.store.queryPage(TENANT, spec, { first: 10 });
      const tenth = await head.edges[9].cursor;
      const next = await table.store.queryPage(TENANT, spec, { first: 3, after: tenth });
      expect(entities.Job.itemsOf(next.nodes).map((job) => job.jobId)).toEqual(expected.slice(10, 13));
      const previous = await table.store.queryPage(TENANT, spec, { last: 3, before: tenth });
      expect(entities.Job.itemsOf(previous.nodes).map((job) => job.jobId)).toEqual(expected.slice(6, 9));
      // queryFirst and queryAll read the shards merged too.
      expect((await table.store.queryFirst(spec, 12)).map((job) => job.jobId)).toEqual(expected.slice(0, 12));
      expect((await table.store.queryAll(spec)).map((job) => job.jobId)).toEqual(expected);
    });

    it("lists jobs in the operators' index of 4 shards of before, and migration 005 spreads them over its 16 in place", async () => {
      /** This tenant's jobs of the status as the operators' list reads them (every shard, merged), newest first. */
      const listed = async () =>
        entities.Job.itemsOf(await table.store.queryAll(opsJobsByStatus('QUEUED')))
          .filter((job) => job.PK.startsWith(`TENANT#${TENANT}#`))
          .map((job) => job.jobId);
      // As a server of before wrote them: each job in its shard of 4, by a hash of its id.
      const oldShard = (id: string) => {
        let hash = 0;
        for (const char of id) hash = (hash * 31 + char.charCodeAt(0)) | 0;
        return Math.abs(hash) % 4;
      };
      const oldKey = (job: Item) => `JOB_STATUS#QUEUED#${oldShard(String(job.jobId))}`;
      await put((await stored()).map((job) => ({ ...job, GSI3PK: oldKey(job) })));
      const moved = jobs.filter((job: Item) => job.GSI3PK !== oldKey(job)).length;
      expect(moved).toBeGreaterThan(JOBS / 2);
      const before = new DriftReport();
      for (const job of await stored()) before.add(job);
      expect(before.byType()).toEqual([expect.objectContaining({ entityType: 'Job', drifted: moved, fields: { GSI3PK: moved } })]);
      // Listed meanwhile, in order: the 4 shards of before are among the 16 every read merges.
      expect(await listed()).toEqual(expected);

      const counts = await migrate(opsShards);
      expect(counts).toMatchObject({ rewritten: moved, skipped: 0, conflicts: 0 });
      await expectSpreadInPlace('GSI3PK');
      expect(await listed()).toEqual(expected);
    });
  });

  it("spreads single steps' claimable entries over the shards by job, keeps a fan-out stage's and unmarked steps' in shard 0, and one merged read finds them all in order", async () => {
    const TENANT = 'claim-shard-co';
    const at = (n: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString();
    const step = (n: number, singleStep?: true) =>
      entities.Step.toItem(TENANT, {
        jobId: newId('job'),
        kind: 'SHARDS',
        name: 'render',
        order: 1,
        attempt: 1,
        progress: 0,
        artifacts: [],
        status: 'PENDING',
        current: true,
        updatedAt: at(n),
        ...(singleStep ? { singleStep } : {}),
      });
    // 24 single steps (stepWrite marks them), 4 steps of before (no mark) and 4 fan-out stages' JobWork entries.
    const single = Array.from({ length: 24 }, (_, i) => step(i, true));
    const unmarked = Array.from({ length: 4 }, (_, i) => step(24 + i));
    const fanOut = Array.from({ length: 4 }, (_, i) =>
      entities.JobWork.toItem(TENANT, {
        jobId: newId('job'),
        kind: 'SHARDS',
        name: 'render',
        claimable: true,
        inPool: false,
        availableAt: at(28 + i),
        priority: 5,
        version: 1,
        createdAt: at(0),
        updatedAt: at(0),
      }),
    );
    const whole = `TENANT#${TENANT}#WORK#CLAIMABLE`;
    expect(new Set(single.map((item: Item) => item.GSI4PK)).size).toBeGreaterThanOrEqual(6);
    expect(single.every((item: Item) => String(item.GSI4PK).startsWith(whole))).toBe(true);
    for (const item of [...unmarked, ...fanOut] as Item[]) {
      expect(item.GSI4PK).toBe(whole);
      expect(item.GSI3PK).toBe(`${whole}#SHARDS#render`);
    }
    const everything = [...single, ...unmarked, ...fanOut];
    await put(everything);
    // What is stored is what the model derives: no drift.
    const report = new DriftReport();
    for (const item of everything) report.add(item);
    expect(report.drifted).toBe(0);
    // A claim that knows of no work reads the shards merged: all of them, oldest first.
    const spec = entities.Step.query(TENANT, 'claimable', {});
    expect(spec.shards).toHaveLength(7);
    const read = await table.store.queryFirst({ ...spec, skBefore: `${at(60)}$` }, 40);
    expect(read.map((item) => item.jobId)).toEqual(everything.map((item) => item.jobId));
    // Shard 0 alone (a claim of a fan-out stage) holds the fan-out entries and the unmarked steps.
    const { shards: _shards, ...shardZero } = spec;
    const zero = await table.store.queryFirst({ ...shardZero, skBefore: `${at(60)}$` }, 40);
    expect(new Set(zero.map((item) => item.jobId))).toEqual(
      new Set([...unmarked, ...fanOut, ...single.filter((item: Item) => item.GSI4PK === whole)].map((item) => item.jobId)),
    );
  });
});
