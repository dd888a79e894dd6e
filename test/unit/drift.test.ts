import { DriftReport, driftOf, modelOf } from '../../src/common/drift';
import { entities } from '../../src/common/entities';
import { indexedWords } from '../../src/common/search';
import { checkpointOf, Pace } from '../../src/migrations/migration.segment';
import { MIGRATIONS } from '../../src/migrations/migrations';
import type { Item } from '../../src/infra/dynamo/write';

/*
 * The drift check's comparison (src/common/drift.ts) and the pieces of a migration's segment that
 * need no table: an item as its declaration writes it has no drift; each way an older shape differs
 * is named; items of shared types are told apart by their key.
 */

const at = '2026-01-01T00:00:00.000Z';
const project = () =>
  entities.Project.toItem('acme', {
    projectId: 'proj_01J00000000000000000000000',
    title: 'Blue whale mural',
    status: 'planning',
    archived: false,
    version: 1,
    createdAt: at,
    updatedAt: at,
    createdBy: 'u',
    searchSlots: [...indexedWords(entities.Project.search!, { title: 'Blue whale mural' }).keys()],
  });

describe('drift', () => {
  it('finds nothing in an item as its declaration writes it', () => {
    expect(driftOf(entities.Project, project())).toEqual([]);
  });

  it('names a missing index attribute, a stale one, missing search words and a key that moved', () => {
    const stored: Item = project();
    const { GSI3PK: _pk, ...noOps } = stored;
    expect(driftOf(entities.Project, noOps)).toEqual(['GSI3PK']);
    expect(driftOf(entities.Project, { ...project(), GSI1PK: 'TENANT#acme#PROJECT_STATUS#production' })).toEqual(['GSI1PK']);
    const { searchSlots: _slots, ...unsearchable } = project();
    expect(driftOf(entities.Project, unsearchable)).toEqual(['searchWords']);
    expect(driftOf(entities.Project, { ...project(), SK: 'PROJECT#elsewhere' })).toEqual(['SK']);
    // Written before quotas were kept (it counted nothing), or counted as it was before archiving.
    const { quotaCounted: _counted, ...uncounted } = project();
    expect(driftOf(entities.Project, uncounted)).toEqual(['quotaCounted']);
    expect(driftOf(entities.Project, { ...project(), quotaCounted: 0 })).toEqual(['quotaCounted']);
  });

  it("names a work item still listed in the tenant's claimable index (written before items were claimed through their job) as drift", () => {
    const item = entities.WorkItem.toItem('acme', {
      jobId: 'job_01J00000000000000000000000',
      stage: 'render-scenes',
      sequence: 1,
      kind: 'MUSIC_VIDEO',
      status: 'PENDING',
      attempt: 1,
      maxAttempt: 3,
      progress: 0,
      inputs: {},
      availableAt: at,
      version: 1,
      createdAt: at,
      updatedAt: at,
      createdBy: 'u',
    });
    expect(driftOf(entities.WorkItem, item)).toEqual([]);
    const legacy = { ...item, GSI4PK: 'TENANT#acme#WORK#CLAIMABLE', GSI4SK: `${at}#job_01J00000000000000000000000#render-scenes#1` };
    expect(driftOf(entities.WorkItem, legacy)).toEqual(expect.arrayContaining(['GSI4PK', 'GSI4SK']));
    // Listed in its job's claim index with its sequence unpadded (10 before 2): drift that 003-claim-order rewrites.
    expect((item as Item).GSI4SK).toBe(`${at}#render-scenes#00001`);
    expect(driftOf(entities.WorkItem, { ...item, GSI4SK: `${at}#render-scenes#1` })).toEqual(['GSI4SK']);
    expect(MIGRATIONS.find((m) => m.name === 'claim-order')).toMatchObject({ id: '003', entities: ['WorkItem'], change: 'rederive' });
  });

  it('tells the declarations of a shared type apart by their key', () => {
    // A stream's head keeps its project only in its key: the key is read back through each template.
    const head = { PK: 'TENANT#acme#PROJECT#proj_01J00000000000000000000000#JOBSTATUS', SK: 'HEAD', entityType: 'StreamHead', position: 3 };
    expect(modelOf(head)).toBe(entities.ProjectJobStatusHead);
    expect(driftOf(entities.ProjectJobStatusHead, head)).toEqual([]);
    expect(modelOf({ ...head, PK: 'TENANT#acme#JOBSTATUS' })).toBe(entities.TenantJobStatusHead);
    expect(modelOf({ PK: 'TENANT#acme', SK: 'X', entityType: 'NoSuchType' })).toBeUndefined();
  });

  it('adds up per type with samples, and merges segments', () => {
    const a = new DriftReport(1);
    const b = new DriftReport(1);
    const { searchSlots: _s, ...old } = project();
    a.add(project());
    a.add(old);
    b.add(old);
    b.add({ PK: 'TENANT#acme', SK: 'X', entityType: 'NoSuchType' });
    // A tenant's usage counters and release shards (kept by ADD alone, with no entity type) and a commit's outbox entry are no undeclared items.
    b.add({ PK: 'TENANT#acme', SK: 'USAGE', projects: 3 });
    b.add({ PK: 'TENANT#acme#USAGE#5', SK: 'USAGE', runningJobs: -2 });
    b.add({ PK: 'TENANT#acme#PROJECT#p#EVENTS', SK: 'OUTBOX#EVENT#000000000001', entityType: 'OutboxEntry', outboxEvents: [] });
    a.merge(b);
    expect(a.drifted).toBe(2);
    expect(a.undeclared).toBe(1);
    expect(a.byType()).toEqual([
      {
        entityType: 'Project',
        checked: 3,
        drifted: 2,
        fields: { searchWords: 2 },
        samples: [{ PK: 'TENANT#acme', SK: old.SK, fields: ['searchWords'] }],
      },
      { entityType: 'TenantUsage', checked: 1, drifted: 0, fields: {}, samples: [] },
      { entityType: 'TenantUsageRelease', checked: 1, drifted: 0, fields: {}, samples: [] },
    ]);
  });
});

describe('a migration segment', () => {
  it('reads a checkpoint it wrote, and starts afresh from none or a malformed one', () => {
    const written = {
      next: { PK: 'a', SK: 'b' },
      read: 7,
      counts: { scanned: 5, rewritten: 3, unchanged: 2, skipped: 0, conflicts: 1 },
      done: false,
    };
    expect(checkpointOf(written)).toEqual(written);
    expect(checkpointOf(undefined)).toEqual({
      read: 0,
      counts: { scanned: 0, rewritten: 0, unchanged: 0, skipped: 0, conflicts: 0 },
      done: false,
    });
    expect(checkpointOf({ next: 'x', read: 'y' })).toMatchObject({ next: undefined, read: 0 });
  });

  it('paces writes to its budget', async () => {
    const pace = new Pace(50);
    const signal = new AbortController().signal;
    const started = performance.now();
    for (let i = 0; i < 11; i++) await pace.take(signal);
    // Eleven takes at 50 a second: ten gaps of 20 ms.
    expect(performance.now() - started).toBeGreaterThanOrEqual(195);
  });

  it('declares its migrations numbered in order, once each', () => {
    const ids = MIGRATIONS.map((m) => m.id);
    expect(ids).toEqual([...ids].sort());
    expect(new Set(ids).size).toBe(ids.length);
    expect(MIGRATIONS[0]).toMatchObject({ id: '001', name: 'search-backfill', change: 'rederive' });
  });
});
