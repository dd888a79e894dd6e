import { entities } from '../../src/common/entities';
import type { Scope } from '../../src/common/scope';
import { searchBackfill } from '../../src/migrations/001-search-backfill';
import { indexShards } from '../../src/migrations/004-index-shards';
import { migrateSegment } from '../../src/migrations/migration.segment';
import { createScope, type ContextDeps } from '../../src/wiring';
import { type Item, put as putItem } from '../../src/infra/dynamo/write';
import { freshTable, type TestTable } from '../support/dynamo';
import { legacyLog } from '../support/legacy-log';
import { storedJob } from '../support/job-item';

/*
 * A migration's rewrite that loses its race to a user's edit (against DynamoDB Local), made by an
 * instance still on the old code during a rolling deploy (so in the old shape): the rewrite is
 * conditioned on the version it read, so it fails, reads the entity again and re-derives it from
 * the user's change; the user's edit stays, and its words are indexed. (An edit through today's
 * write path derives the words itself, and the migration then finds nothing to do: the e2e test.)
 */

const LOG = { projectId: 'proj_01J00000000000000000000000', logId: 'log_01J00000000000000000000000' };

describe('a migration racing a user', () => {
  let table: TestTable;
  let deps: ContextDeps;

  beforeAll(async () => {
    table = await freshTable();
    deps = { store: table.store, eventRetentionDays: 30 };
    const at = new Date().toISOString();
    // The log as it was written before logs were searchable: no word items, no search slots.
    await table.store.transact([entities.Log.put('acme', legacyLog(LOG, at))]);
  });

  it('re-derives the entity on the user’s change, which it keeps', async () => {
    let raced = false;
    // The user's edit commits between the migration's read and its commit: the one moment a race
    // can hit, which two real processes cannot be timed to meet on every run. The edit itself is
    // a real write through the standard path. The hook is the store's batched read: the
    // migration's change reads the entity there (in the committer's group, mutate.ts withLock),
    // and the edit commits right after that read.
    const store: ContextDeps['store'] = Object.create(table.store);
    store.batchGet = async (keys) => {
      const read = await table.store.batchGet(keys);
      if (!raced && keys.some((key) => key.SK === entities.Log.keyOf('acme', LOG).SK)) {
        raced = true;
        // An instance still on the old code (a rolling deploy) writes the edit in the old shape,
        // on condition of the version it read, as every write does.
        const current = await table.store.get(entities.Log.keyOf('acme', LOG));
        if (!entities.Log.is(current)) throw new Error('The log was not stored.');
        await table.store.transact([entities.Log.put('acme', { ...current, rawText: 'fresh charcoal study', version: 2 }).ifVersion(1)]);
      }
      return read;
    };
    const scopeOf = (tenantId: string, actor: string): Scope => createScope({ ...deps, store }, tenantId, actor);
    const reports: Record<string, unknown>[] = [];
    const counts = await migrateSegment({ store: table.store, scopeOf }, searchBackfill, {
      job: { inputs: { itemsPerSecond: 1000 } },
      item: { inputs: { segment: 0, segments: 1 } },
      checkpoint: undefined,
      report: async (_progress, checkpoint) => {
        if (checkpoint) reports.push(checkpoint);
      },
      signal: new AbortController().signal,
    });
    expect(raced).toBe(true);
    expect(counts).toEqual({ scanned: 1, rewritten: 1, unchanged: 0, skipped: 0, conflicts: 1 });
    expect(reports.at(-1)).toMatchObject({ done: true, counts });
    const stored = entities.Log.found(await table.store.get(entities.Log.keyOf('acme', LOG)));
    // The user's edit (version 2) stands; the migration's rewrite of it is version 3.
    expect(stored).toMatchObject({ rawText: 'fresh charcoal study', version: 3 });
    expect([...(stored?.searchSlots ?? [])].sort()).toEqual(['charcoal', 'fresh', 'study']);
  });

  it('re-indexes a job in place, and leaves one its own writer changed meanwhile as that writer put it', async () => {
    const at = new Date().toISOString();
    const job = storedJob('acme', {
      jobId: 'job_01J00000000000000000000001',
      projectId: LOG.projectId,
      kind: 'RACE',
      status: 'RUNNING',
      version: 4,
      at,
    });
    const key = entities.Job.keyOf('acme', { jobId: job.jobId });
    const logical = entities.Job.query('acme', 'byStatus', { status: 'RUNNING' }).pk;
    expect((job as Item).GSI1PK).not.toBe(logical);
    // As a server of before wrote it: in shard 0 of the status index.
    await table.store.transact([putItem({ ...job, GSI1PK: logical })]);
    let raced = false;
    // The job's own writer (a worker's report, through the new code) commits between the
    // migration's read and its write: the one moment a race can hit, which two real processes
    // cannot be timed to meet on every run. Its write is a real one, conditioned as the
    // aggregate's are.
    // The hook is the store's one transaction, which the committer sends the migration's write through.
    const store: typeof table.store = Object.create(table.store);
    store.transactOnce = async (writes) => {
      if (!raced) {
        raced = true;
        await table.store.transact([putItem({ ...job, progress: 0.5, version: 5 }).ifVersion(4)]);
      }
      return table.store.transactOnce(writes);
    };
    const counts = await migrateSegment(
      { store, scopeOf: (tenantId, actor) => createScope({ ...deps, store }, tenantId, actor) },
      indexShards,
      {
        job: { inputs: { itemsPerSecond: 1000 } },
        item: { inputs: { segment: 0, segments: 1 } },
        checkpoint: undefined,
        report: async () => {},
        signal: new AbortController().signal,
      },
    );
    expect(raced).toBe(true);
    // Lost to the writer, read again, and found as declared: the writer's put derived the shard.
    expect(counts).toMatchObject({ rewritten: 0, unchanged: 1, conflicts: 1 });
    expect(await table.store.get(key)).toMatchObject({ version: 5, progress: 0.5, GSI1PK: (job as Item).GSI1PK });
  });
});
