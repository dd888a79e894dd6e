import { SYSTEM_TENANT } from '../../src/auth/principal';
import { entities } from '../../src/common/entities';
import { newId } from '../../src/common/ids';
import { searchBackfill } from '../../src/migrations/001-search-backfill';
import { MIGRATION_STAGE, migrateSegment } from '../../src/migrations/migration.segment';
import { put } from '../../src/infra/dynamo/write';
import { createScope } from '../../src/wiring';
import { freshTable, type TestTable } from '../support/dynamo';
import { legacyLog } from '../support/legacy-log';

/*
 * A migration's budget is the run's, shared by the segments still scanning (against DynamoDB
 * Local): one tenant's logs sit in one partition, so one scan segment holds them all; once the
 * other segments are done, that one runs at the whole budget, not at its quarter of it.
 */

const LOGS = 30;
const BUDGET = 20;
const SEGMENTS = 4;

describe("a migration's budget", () => {
  let table: TestTable;
  const jobId = newId('job');

  beforeAll(async () => {
    table = await freshTable();
    const at = new Date().toISOString();
    const projectId = newId('proj');
    // Logs as they were written before logs were searchable, all in the tenant's one partition.
    for (let i = 0; i < LOGS; i += 25) {
      await table.store.transact(
        Array.from({ length: Math.min(25, LOGS - i) }, () =>
          entities.Log.put('one-tenant', legacyLog({ projectId, logId: newId('log') }, at)),
        ),
      );
    }
    // The run's job as its counters stand once the three empty segments are done (only what the segment reads of it).
    const key = entities.Job.keyOf(SYSTEM_TENANT, { jobId });
    await table.store.transact([
      put({
        ...key,
        entityType: entities.Job.type,
        jobId,
        itemCounts: { [MIGRATION_STAGE]: { total: SEGMENTS, running: 1, completed: SEGMENTS - 1, failed: 0 } },
      }),
    ]);
  });

  it('runs the one segment that holds the rows at the whole budget once the others are done', async () => {
    const deps = { store: table.store, eventRetentionDays: 30 };
    // The segment whose scan holds the tenant's partition.
    const segments = await Promise.all(
      Array.from({ length: SEGMENTS }, async (_, segment) => (await table.store.scanPage(segment, SEGMENTS, 100)).items.length),
    );
    const segment = segments.indexOf(Math.max(...segments));
    // Every log is in it (and maybe the job's item, in the system partition).
    expect(segments[segment]).toBeGreaterThanOrEqual(LOGS);
    const started = performance.now();
    const counts = await migrateSegment(
      { store: table.store, scopeOf: (tenantId, actor) => createScope(deps, tenantId, actor) },
      searchBackfill,
      {
        job: { jobId, inputs: { itemsPerSecond: BUDGET } },
        item: { inputs: { segment, segments: SEGMENTS } },
        checkpoint: undefined,
        report: async () => {},
        signal: new AbortController().signal,
      },
    );
    const seconds = (performance.now() - started) / 1000;
    expect(counts).toMatchObject({ scanned: LOGS, rewritten: LOGS });
    // At a quarter of the budget the pace alone takes (LOGS − 1) / 5 = 5.8 s; at the whole, 1.45 s.
    expect(seconds).toBeLessThan(4);
  });
});
