import type { Client } from 'pg';
import { entities } from '../../src/common/entities';
import type { AppError } from '../../src/errors';
import { CursorCodec } from '../../src/infra/cursor';
import type { AnyModel, Attribute } from '../../src/infra/dynamo/entity';
import { event, type Item, OUTBOX_SHARDS, outboxPartition, put, update, withOneOutboxEntry } from '../../src/infra/dynamo/write';
import { applySchema, createRoles, schemaDrift, withCrossTenantRead, withTenant } from '../../src/infra/postgres/apply';
import { EntityTables } from '../../src/infra/postgres/items';
import { DEFAULT_ROLES, deriveSchema } from '../../src/infra/postgres/schema';
import { openPostgres, type Postgres } from '../../src/infra/postgres/start';
import { indexKeyFill } from '../../src/infra/postgres/store';
import type { QuerySpec } from '../../src/infra/store-api';
import { driftOf } from '../../src/common/drift';
import { legacyLog } from '../support/legacy-log';
import { type PostgresServer, startPostgres } from '../support/postgres';
import { waitFor } from '../support/wait';

/*
 * The PostgreSQL store under the store interface, on a real PostgreSQL this file starts: items of
 * the declared entities routed to their tables and read back as written, transactions all or
 * nothing with their conditions tested on locked rows, racing creates of one key, and row-level
 * security in every transaction (the tenant's, or the read-only one across tenants). The API's
 * behaviour on both stores is the contract tests' (test/e2e, `describe.each(STORES)`).
 */
const passwords = { owner: 'owner-secret', app: 'app-secret' };
const derived = deriveSchema(entities);

/** A value of each key placeholder's kind: a number where the attribute is one, a text otherwise. */
function sampleKeyValues(model: AnyModel): Record<string, unknown> {
  const attributes: Record<string, Attribute> = model.attributes;
  return Object.fromEntries(model.keyFields.map((field) => [field, attributes[field]?.kind === 'int' ? 7 : `${field}-1`]));
}

const project = (tenantId: string, projectId: string, title = 'Harbour at Dusk'): Item =>
  entities.Project.toItem(tenantId, {
    projectId,
    title,
    status: 'planning',
    archived: false,
    deadline: '2026-12-24',
    budget: { amount: 1200.5, currency: 'EUR' },
    version: 1,
    createdAt: '2026-01-02T03:04:05.678Z',
    updatedAt: '2026-01-02T03:04:05.678Z',
    createdBy: 'artist',
    quotaCounted: 1,
    searchSlots: ['harbour', 'at', 'dusk'],
  });

/** A statement the store sent, with its parameters. */
interface Sent {
  text: string;
  values: unknown[];
}

/**
 * The statements the store sends on `pool`'s connections while `work` runs (what PostgreSQL is
 * asked for). A pooled connection is watched once however often it is acquired, and given its own
 * query back after.
 */
async function statementsOf(pool: Postgres['bus']['pool'], work: () => Promise<unknown>): Promise<Sent[]> {
  const sent: Sent[] = [];
  type Queries = { query: (...args: never[]) => unknown };
  const watched = new Map<Queries, Queries['query']>();
  const watch = (client: Queries) => {
    if (watched.has(client)) return;
    const query = client.query;
    watched.set(client, query);
    client.query = (...args: never[]) => {
      if (typeof args[0] === 'string') sent.push({ text: args[0], values: Array.isArray(args[1]) ? args[1] : [] });
      return query.apply(client, args);
    };
  };
  pool.on('acquire', watch);
  try {
    await work();
  } finally {
    pool.removeListener('acquire', watch);
    for (const [client, query] of watched) client.query = query;
  }
  return sent;
}

/** A plan node of EXPLAIN's JSON, with what this file reads of it. */
interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  'Actual Rows': number;
  'Rows Removed by Filter'?: number;
  Plans?: PlanNode[];
}

const nodesOf = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodesOf)];

describe('the PostgreSQL store', () => {
  let pg: PostgresServer;
  let app: Client;
  let postgres: Postgres;

  beforeAll(async () => {
    pg = await startPostgres();
    await createRoles(await pg.connect(pg.superuser, pg.password), DEFAULT_ROLES, passwords, 'postgres');
    await applySchema(await pg.connect(DEFAULT_ROLES.owner, passwords.owner), derived);
    app = await pg.connect(DEFAULT_ROLES.app, passwords.app);
    const url = `postgres://${DEFAULT_ROLES.app}:${passwords.app}@127.0.0.1:${pg.port}/postgres`;
    postgres = openPostgres({ url }, entities, new CursorCodec('s'), { poolWaitMs: 30_000 });
  });

  afterAll(() => postgres.close());

  /**
   * The first two pages of `first` items of `spec`, and the statements the second page's read sent
   * (a page past the first reads from its cursor's place, where a partition read whole would not).
   */
  async function twoPages(tenantId: string, spec: QuerySpec, first: number) {
    const one = await postgres.store.queryPage(tenantId, spec, { first });
    let two: readonly Item[] = [];
    const sent = await statementsOf(postgres.bus.pool, async () => {
      two = (await postgres.store.queryPage(tenantId, spec, { first, after: await one.pageInfo.endCursor })).nodes;
    });
    return { nodes: [...one.nodes, ...two], sent };
  }

  /** The rows each table's statement of `sent` reads in its scans, explained as the server's role runs it (row-level security on). */
  async function rowsReadBy(tenantId: string, sent: Sent[], tables: readonly string[]): Promise<Record<string, number>> {
    const rowsRead: Record<string, number> = {};
    for (const table of tables) {
      const [read] = sent.filter((s) => s.text.includes(`FROM "artissist"."${table}"`));
      const out = await withTenant(app, tenantId, () => app.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${read.text}`, read.values));
      const scans = nodesOf(out.rows[0]['QUERY PLAN'][0].Plan).filter((node) => node['Node Type'].includes('Scan'));
      rowsRead[table] = scans.reduce((n, node) => n + node['Actual Rows'] + (node['Rows Removed by Filter'] ?? 0), 0);
    }
    return rowsRead;
  }

  /** Statistics for the planner: tables filled in a test are planned as large as they are. */
  async function analyze(...tables: string[]): Promise<void> {
    const owner = await pg.connect(DEFAULT_ROLES.owner, passwords.owner);
    await owner.query(`ANALYZE ${tables.join(', ')}`).finally(() => owner.end());
  }

  it("routes every declaration's keys to its own table, and a key no declaration makes to none", () => {
    const tables = new EntityTables(entities, derived);
    for (const [name, model] of Object.entries(entities)) {
      const key = model.key.keyFrom('t1', sampleKeyValues(model));
      expect({ name, table: tables.route(key)?.table.def.entity }).toEqual({ name, table: name });
    }
    // The DynamoDB outbox's entry of a unit's events has no table (docs/postgres.md).
    expect(tables.route({ PK: 'TENANT#t1#JOB#j', SK: 'OUTBOX#EVENT#0000000001' })).toBeUndefined();
  });

  it('reads an item back as it was written: its attributes, dates, documents and lists, and its key, type and index attributes derived again', async () => {
    const item = project('t1', 'proj_roundtrip');
    await postgres.store.transact([put(item).ifNew()]);
    expect(await postgres.store.get({ PK: item.PK, SK: item.SK })).toEqual(item);
    const [byStatus] = await postgres.store.queryAll(entities.Project.query('t1', 'byStatus', { archived: false, status: 'planning' }));
    expect(byStatus).toEqual(item);
  });

  it('pages a partition that PostgreSQL orders itself in the order of its keys, both ways, however long its ids', async () => {
    const tables = new EntityTables(entities, derived);
    const spec = entities.Milestone.key.prefixOf('t1', { projectId: 'proj_pages' });
    // A project's milestones are ordered by SQL (their id ends the key); an index's list is read whole.
    expect(tables.ordered(spec)).toBeDefined();
    expect(tables.ordered(entities.Project.query('t1', 'byStatus', { archived: false, status: 'planning' }))).toBeUndefined();
    const ids = [
      'ms_a',
      'ms_a0',
      'ms_B',
      'ms_b',
      'ms_01J00000000000000000000000',
      'ms_z',
      ...Array.from({ length: 19 }, (_, i) => `ms_${i}`),
    ];
    const milestone = (projectId: string, milestoneId: string) =>
      entities.Milestone.toItem('t1', {
        projectId,
        milestoneId,
        name: milestoneId,
        criteria: [],
        status: 'pending',
        version: 1,
        createdAt: '2026-01-02T03:04:05.678Z',
        updatedAt: '2026-01-02T03:04:05.678Z',
        createdBy: 'artist',
      });
    await postgres.store.transactEach([...ids.map((id) => [put(milestone('proj_pages', id))]), [put(milestone('proj_other', 'ms_c'))]]);
    const expected = ids.map((id) => milestone('proj_pages', id).SK).sort();
    const forward: string[] = [];
    let after: string | null = null;
    do {
      const page = await postgres.store.queryPage('t1', spec, { first: 7, after });
      forward.push(...page.nodes.map((n) => n.SK));
      after = page.pageInfo.hasNextPage ? await page.pageInfo.endCursor : null;
    } while (after);
    expect(forward).toEqual(expected);
    const backward: string[][] = [];
    let before: string | null = null;
    do {
      const page = await postgres.store.queryPage('t1', spec, { last: 7, before });
      backward.unshift(page.nodes.map((n) => n.SK));
      before = page.pageInfo.hasPreviousPage ? await page.pageInfo.startCursor : null;
    } while (before);
    expect(backward.flat()).toEqual(expected);
    expect(backward.map((p) => p.length)).toEqual([4, 7, 7, 7]);
    expect((await postgres.store.queryFirst({ ...spec, descending: true }, 3)).map((n) => n.SK)).toEqual(expected.slice(-3).reverse());
  });

  it("reads of a page PostgreSQL orders itself take its projection's columns only, as DynamoDB's take its attributes", async () => {
    const log = entities.Log.toItem('t1', {
      ...legacyLog({ projectId: 'proj_projected', logId: 'log_projected' }, '2026-01-02T03:04:05.678Z', 'oil on linen'),
      materials: ['oil'],
      timeSpentMinutes: 12,
    });
    await postgres.store.transact([put(log)]);
    const spec = entities.Log.key.prefixOf('t1', { projectId: 'proj_projected' });
    const projection = entities.Log.projectionOf(['materials', 'timeSpentMinutes']);
    const [read] = (await postgres.store.queryPage('t1', spec, { first: 5 }, projection)).nodes;
    // The key, the type and what the projection names that the item holds: no other attribute, no index attribute.
    const named = ['PK', 'SK', 'entityType', ...(projection ?? [])];
    expect(read).toEqual(Object.fromEntries(Object.entries(log).filter(([attribute]) => named.includes(attribute))));
    // Without a projection, the whole item.
    expect((await postgres.store.queryPage('t1', spec, { first: 5 })).nodes).toEqual([log]);
    // queryFirst takes one too: an empty one leaves the key, the type and the attributes the key is
    // made of (what a deleted job's purge reads), none of the log's other attributes.
    const [keysOnly] = await postgres.store.queryFirst(spec, 5, []);
    expect(keysOnly).toMatchObject({ PK: log.PK, SK: log.SK, entityType: log.entityType });
    expect(Object.keys(keysOnly).filter((attribute) => !['PK', 'SK', 'entityType', 'projectId', 'logId'].includes(attribute))).toEqual([]);
  });

  it("reads of an index's page take its projection's columns and its key's, as DynamoDB's projected query of an index", async () => {
    const projects = ['proj_idx_a', 'proj_idx_b', 'proj_idx_c'].map((id) => project('t3', id));
    await postgres.store.transact(projects.map(put));
    const spec = entities.Project.query('t3', 'byStatus', { archived: false, status: 'planning' });
    const projection = entities.Project.projectionOf(['title']);
    let first: Awaited<ReturnType<Postgres['store']['queryPage']>> | undefined;
    let next: typeof first;
    const sent = await statementsOf(postgres.bus.pool, async () => {
      first = await postgres.store.queryPage('t3', spec, { first: 2 }, projection);
      next = await postgres.store.queryPage('t3', spec, { first: 2, after: await first.pageInfo.endCursor }, projection);
    });
    if (!first || !next) throw new Error('The pages were not read.');
    // Read from the table: the tenant, the key, the version and title the projection names, and the
    // index's key as its key columns hold it (byStatus's partition formats the archived flag: a keyed index).
    const selects = sent.map((s) => s.text).filter((text) => text.includes('FROM "artissist"."projects"'));
    expect(selects).toHaveLength(2);
    for (const text of selects)
      expect(text).toMatch(/^SELECT "tenant_id", "project_id", "version", "title", "by_status_pk", "by_status_sk" FROM/);
    // Each node: its key, type, index key and those attributes; no other (no budget, deadline, search slots, other index's key).
    const named = ['PK', 'SK', 'entityType', 'GSI1PK', 'GSI1SK', 'projectId', 'version', 'title'];
    const expected = projects.map((p) => Object.fromEntries(Object.entries(p).filter(([attribute]) => named.includes(attribute))));
    expect([...first.nodes, ...next.nodes]).toEqual(expected);
    expect(next.pageInfo.hasNextPage).toBe(false);
    // Without a projection, whole items.
    expect((await postgres.store.queryPage('t3', spec, { first: 5 })).nodes).toEqual(projects);
  });

  it("reads an index whose key code computes by its key columns: a claim's first items and a page after a cursor are index scans that read the rows they return and one", async () => {
    const at = (n: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString();
    const jobId = 'job_01J00000000000000000000KEY';
    // 100 waiting items of one job, claimable from one second after another; a claim takes the oldest 10.
    const items = Array.from({ length: 100 }, (_, i) =>
      entities.WorkItem.toItem('tk', {
        jobId,
        stage: 'render',
        sequence: i + 1,
        kind: 'MUSIC_VIDEO',
        status: 'PENDING',
        attempt: 1,
        maxAttempt: 3,
        progress: 0,
        inputs: {},
        availableAt: at(i),
        version: 1,
        createdAt: at(0),
        updatedAt: at(0),
        createdBy: 'u',
      }),
    );
    await postgres.store.transact(items.map(put));
    const claim = { ...entities.WorkItem.query('tk', 'claimableInJob', { jobId }), skBefore: `${at(100)}$` };
    let claimed: Item[] = [];
    const claimSql = await statementsOf(postgres.bus.pool, async () => {
      claimed = await postgres.store.queryFirst(claim, 10);
    });
    expect(claimed.map((item) => item.sequence)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    // Read on after the last, as the dead letters' reader does: from its key and a NUL, which PostgreSQL's text cannot hold.
    const { index, pk } = claim;
    const on = await postgres.store.queryFirst({ index, pk, skBetween: [`${claimed[9].GSI4SK}\u0000`, '\uffff'] }, 2);
    expect(on.map((item) => item.sequence)).toEqual([11, 12]);

    // 60 projects by title; the second page of 5.
    const projects = Array.from({ length: 60 }, (_, i) =>
      project('tk', `proj_key_${String(i).padStart(2, '0')}`, `Title ${String(i).padStart(2, '0')}`),
    );
    await postgres.store.transact(projects.map(put));
    const byTitle = entities.Project.query('tk', 'byTitle', { archived: false });
    const first = await postgres.store.queryPage('tk', byTitle, { first: 5 });
    let second: readonly Item[] = [];
    const pageSql = await statementsOf(postgres.bus.pool, async () => {
      second = (await postgres.store.queryPage('tk', byTitle, { first: 5, after: await first.pageInfo.endCursor })).nodes;
    });
    expect(second.map((p) => p.projectId)).toEqual(['proj_key_05', 'proj_key_06', 'proj_key_07', 'proj_key_08', 'proj_key_09']);

    // The planner's statistics of the rows written, as autovacuum keeps them (the owner's to make).
    await analyze('work_items', 'projects');
    // Each read's statement, explained as the server's role runs it (row-level security on): the
    // keyed index's scan, under a LIMIT, reads no row it does not return but the one that tells whether more follow.
    const explain = async (sent: Sent[], table: string, index: string, limit: number) => {
      const [read] = sent.filter((s) => s.text.includes(`FROM "artissist"."${table}"`));
      const out = await withTenant(app, 'tk', () => app.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${read.text}`, read.values));
      const nodes = nodesOf(out.rows[0]['QUERY PLAN'][0].Plan);
      const scan = nodes.find((node) => node['Index Name'] === index);
      expect({ limited: nodes[0]['Node Type'], scan: scan?.['Node Type'] }).toEqual({ limited: 'Limit', scan: 'Index Scan' });
      expect((scan?.['Actual Rows'] ?? Infinity) + (scan?.['Rows Removed by Filter'] ?? 0)).toBeLessThanOrEqual(limit);
    };
    await explain(claimSql, 'work_items', 'work_items_claimable_in_job_key', 10);
    await explain(pageSql, 'projects', 'projects_by_title_key', 6);
  });

  it("reads a claim's candidates of the partition steps and job work entries share by both tables' key columns: the oldest of each, not every claimable entry of the tenant", async () => {
    const at = (n: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString();
    // 300 jobs at a fan-out stage, each one claimable entry of the tenant's claimable partition.
    const entries = Array.from({ length: 300 }, (_, i) =>
      entities.JobWork.toItem('tw', {
        jobId: `job_01J000000000000000000${String(i).padStart(5, '0')}`,
        kind: 'MUSIC_VIDEO',
        name: 'render',
        claimable: true,
        inPool: false,
        availableAt: at(i),
        priority: 5,
        version: 1,
        createdAt: at(0),
        updatedAt: at(0),
      }),
    );
    for (let i = 0; i < entries.length; i += 100) await postgres.store.transact(entries.slice(i, i + 100).map(put));
    await analyze('job_works');
    for (const [index, values] of [
      ['claimable', {}],
      ['claimableOfKind', { kind: 'MUSIC_VIDEO' }],
      ['claimableOfStage', { kind: 'MUSIC_VIDEO', name: 'render', stage: 'render' }],
    ] as const) {
      const claim = { ...entities.Step.query('tw', index, values), skBefore: `${at(1000)}$` };
      let found: Item[] = [];
      const sent = await statementsOf(postgres.bus.pool, async () => {
        found = await postgres.store.queryFirst(claim, 10);
      });
      expect({ index, jobs: found.map((item) => item.jobId) }).toEqual({ index, jobs: entries.slice(0, 10).map((e) => e.jobId) });
      // The job work entries' statement, explained as the server's role runs it: at most the 10 asked for read.
      const [read] = sent.filter((s) => s.text.includes('FROM "artissist"."job_works"'));
      const out = await withTenant(app, 'tw', () => app.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${read.text}`, read.values));
      const scans = nodesOf(out.rows[0]['QUERY PLAN'][0].Plan).filter((node) => node['Node Type'].includes('Scan'));
      const rowsRead = scans.reduce((n, node) => n + node['Actual Rows'] + (node['Rows Removed by Filter'] ?? 0), 0);
      // (Shown with the count when it fails: more than 10 read is the whole partition read.)
      expect({ index, rowsRead }).toEqual({ index, rowsRead: Math.min(rowsRead, 10) });
    }
  });

  it("pages the tenant's activity timeline, a partition of the tenant's whole event tables, by their key columns: a page reads the page and one of each", async () => {
    const at = (n: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString();
    const id = (n: number) => `evt_01J00000000000000000${String(n).padStart(4, '0')}`;
    const event = { actor: 'artist', subjectType: 'Project', subjectId: 'proj_tl' };
    // 150 events of a project's and 150 of the tenant's own, interleaved in time.
    const events = Array.from({ length: 300 }, (_, n) =>
      n % 2 === 0
        ? entities.ProjectEvent.toItem('tt', {
            ...event,
            projectId: 'proj_tl',
            position: n / 2 + 1,
            eventId: id(n),
            at: at(n),
            action: 'log.created',
          })
        : entities.TenantEvent.toItem('tt', { ...event, ulid: id(n), eventId: id(n), at: at(n), action: 'tenant.updated' }),
    );
    for (let i = 0; i < events.length; i += 100) await postgres.store.transact(events.slice(i, i + 100).map(put));
    await analyze('project_events', 'tenant_events');
    const { nodes, sent } = await twoPages('tt', entities.ProjectEvent.query('tt', 'timeline', {}, { descending: true }), 5);
    expect(nodes.map((e) => e.eventId)).toEqual([299, 298, 297, 296, 295, 294, 293, 292, 291, 290].map(id));
    const rowsRead = await rowsReadBy('tt', sent, ['project_events', 'tenant_events']);
    // (Shown with the counts when it fails: 150 a table is the whole partition read.)
    expect(rowsRead).toEqual({ project_events: Math.min(rowsRead.project_events, 6), tenant_events: Math.min(rowsRead.tenant_events, 6) });
  });

  it("pages the timeline of one action, a partition of the tenant's event tables as large as the action is common, by their key columns: a page reads the page and one of each", async () => {
    const at = (n: number) => new Date(Date.UTC(2026, 0, 2, 0, 0, n)).toISOString();
    const id = (n: number) => `evt_01J00000000000000001${String(n).padStart(4, '0')}`;
    const event = { actor: 'artist', subjectType: 'Project', subjectId: 'proj_ta' };
    // 300 events, a project's and the tenant's own interleaved in time, every other pair of them a log's.
    const events = Array.from({ length: 300 }, (_, n) => {
      const action = Math.floor(n / 2) % 2 === 0 ? 'log.created' : 'asset.created';
      return n % 2 === 0
        ? entities.ProjectEvent.toItem('ta', { ...event, projectId: 'proj_ta', position: n / 2 + 1, eventId: id(n), at: at(n), action })
        : entities.TenantEvent.toItem('ta', { ...event, ulid: id(n), eventId: id(n), at: at(n), action });
    });
    for (let i = 0; i < events.length; i += 100) await postgres.store.transact(events.slice(i, i + 100).map(put));
    await analyze('project_events', 'tenant_events');
    const byAction = entities.ProjectEvent.query('ta', 'timelineByAction', { action: 'log.created' }, { descending: true });
    const { nodes, sent } = await twoPages('ta', byAction, 5);
    const logs = events.filter((e) => e.action === 'log.created').map((e) => e.eventId);
    expect(nodes.map((e) => e.eventId)).toEqual(logs.reverse().slice(0, 10));
    const rowsRead = await rowsReadBy('ta', sent, ['project_events', 'tenant_events']);
    // (Shown with the counts when it fails: more than 6 a table is the action's whole partition read.)
    expect(rowsRead).toEqual({ project_events: Math.min(rowsRead.project_events, 6), tenant_events: Math.min(rowsRead.tenant_events, 6) });
  });

  it("pages a project's jobs by their key columns: a page reads the page and one, not every job of the project", async () => {
    const at = (n: number) => new Date(Date.UTC(2026, 0, 3, 0, 0, n)).toISOString();
    const jobs = Array.from({ length: 300 }, (_, n) =>
      entities.Job.toItem('tj', {
        jobId: `job_01J000000000000000001${String(n).padStart(5, '0')}`,
        projectId: 'proj_jobs',
        kind: 'PHOTO_EDIT',
        status: 'COMPLETED',
        plan: [],
        attempts: {},
        progress: 1,
        completedSteps: 0,
        failedSteps: 0,
        maxAttempts: 3,
        version: 1,
        createdAt: at(n),
        updatedAt: at(n),
        createdBy: 'artist',
      }),
    );
    await postgres.store.transact([put(project('tj', 'proj_jobs'))]);
    for (let i = 0; i < jobs.length; i += 100) await postgres.store.transact(jobs.slice(i, i + 100).map(put));
    await analyze('jobs');
    const byProject = entities.Job.query('tj', 'byProject', { projectId: 'proj_jobs' }, { descending: true });
    const { nodes, sent } = await twoPages('tj', byProject, 5);
    const newest = jobs.map((job) => job.jobId).reverse();
    expect(nodes.map((job) => job.jobId)).toEqual(newest.slice(0, 10));
    const { jobs: rowsRead } = await rowsReadBy('tj', sent, ['jobs']);
    // (Shown with the count when it fails: 300 is the project's whole partition read.)
    expect(rowsRead).toBe(Math.min(rowsRead, 6));
  });

  it('pages logs by attribution status by their key columns, as every index whose sort key joins several values: a page reads the page and one', async () => {
    const at = (n: number) => new Date(Date.UTC(2026, 0, 4, 0, 0, n)).toISOString();
    const logs = Array.from({ length: 300 }, (_, n) =>
      entities.Log.toItem(
        'tl',
        legacyLog({ projectId: 'proj_logs', logId: `log_01J000000000000000001${String(n).padStart(5, '0')}` }, at(n), `entry ${n}`),
      ),
    );
    await postgres.store.transact([put(project('tl', 'proj_logs'))]);
    for (let i = 0; i < logs.length; i += 100) await postgres.store.transact(logs.slice(i, i + 100).map(put));
    await analyze('logs');
    const byAttribution = entities.Log.query('tl', 'byAttribution', { attributionStatus: 'pending' }, { descending: true });
    const { nodes, sent } = await twoPages('tl', byAttribution, 5);
    expect(nodes.map((log) => log.logId)).toEqual(
      logs
        .map((log) => log.logId)
        .reverse()
        .slice(0, 10),
    );
    const { logs: rowsRead } = await rowsReadBy('tl', sent, ['logs']);
    // (Shown with the count when it fails: 300 is the status's whole partition read.)
    expect(rowsRead).toBe(Math.min(rowsRead, 6));
  });

  it("writes a keyed index's key again when a write names some columns only: an item whose attribute is removed is found where the index now places it", async () => {
    const jobId = 'job_01J0000000000000000REMOVED';
    const at = '2026-01-01T00:00:00.000Z';
    const item = entities.WorkItem.toItem('tr', {
      jobId,
      stage: 'render',
      sequence: 1,
      kind: 'MUSIC_VIDEO',
      status: 'PENDING',
      attempt: 1,
      maxAttempt: 3,
      progress: 0,
      inputs: {},
      // Backed off far into the future: not claimable before then.
      availableAt: '2099-01-01T00:00:00.000Z',
      version: 1,
      createdAt: at,
      updatedAt: at,
      createdBy: 'u',
    });
    await postgres.store.transact([put(item)]);
    const claim = { ...entities.WorkItem.query('tr', 'claimableInJob', { jobId }), skBefore: '2027-01-01T00:00:00.000Z$' };
    expect(await postgres.store.queryFirst(claim, 10)).toEqual([]);
    // Its backoff removed (removeAttributes: an UPDATE of that column alone), it is claimable from when it was made.
    await postgres.store.removeAttributes({ PK: item.PK, SK: item.SK }, ['availableAt']);
    const found = await postgres.store.queryFirst(claim, 10);
    expect(found.map((i) => [i.sequence, i.availableAt, i.GSI4SK])).toEqual([[1, undefined, `${at}#render#00001`]]);
  });

  it("finds a word through the search index's GIN index as the server's role: its transaction reads the matching rows, none of the tenant's others", async () => {
    const projects = Array.from({ length: 30 }, (_, i) =>
      project('ts', `proj_s_${String(i).padStart(3, '0')}`, i % 10 === 0 ? `Sunset ${i}` : `Harbour ${i}`),
    );
    await postgres.store.transact(projects.map(put));
    let found: Item[] = [];
    const sent = await statementsOf(postgres.bus.pool, async () => {
      found = await postgres.store.searchByWord('ts', ['Project'], 'sun', 1000);
    });
    expect(found.map((p) => p.projectId).sort()).toEqual(['proj_s_000', 'proj_s_010', 'proj_s_020']);
    // The store's statement again, as the server's role in its tenant's transaction, and what that
    // transaction read of each table (PostgreSQL's counters of the transaction under way).
    const [search] = sent.filter((s) => s.text.includes('"artissist"."projects"'));
    // Other tenants' words, 20,000 rows written straight into the index by its owner, and the
    // planner's statistics as autovacuum keeps them.
    const writer = await pg.connect(DEFAULT_ROLES.owner, passwords.owner);
    await writer
      .query(
        `INSERT INTO search_index SELECT 'other', 'projects', ARRAY['proj_o_' || i], 'harbour dusk'::tsvector FROM generate_series(1, 20000) AS i;
         ANALYZE search_index`,
      )
      .finally(() => writer.end());
    // With sequential scans off, the planner takes an index where it may (whether one pays is the
    // data's to say; a prefix's GIN scan is priced high). For the server's role, row-level security
    // never lets the tsvector's GIN index serve `@@` (it read the tenant's rows by the primary key:
    // all 30 of them); through the search function, the search index's GIN index does.
    const read = await withTenant(app, 'ts', async () => {
      await app.query('SET LOCAL enable_seqscan = off');
      expect((await app.query(search.text, search.values)).rows).toHaveLength(3);
      const out = await app.query(
        `SELECT relname, seq_scan::int AS seq, idx_scan::int AS idx, idx_tup_fetch::int AS fetched FROM pg_stat_xact_user_tables
          WHERE relname IN ('projects', 'search_index') ORDER BY relname`,
      );
      return out.rows;
    });
    // The search index by its GIN index: the 3 rows with the word, none of the 20,027 others (the
    // projects are then joined by their primary key, in whichever join this small a table gets).
    expect(read).toEqual([
      { relname: 'projects', seq: 0, idx: expect.any(Number), fetched: expect.any(Number) },
      { relname: 'search_index', seq: 0, idx: 1, fetched: 3 },
    ]);
    // The server's role cannot read the search index itself, only search it through the function.
    await expect(withTenant(app, 'ts', () => app.query('SELECT * FROM search_index'))).rejects.toThrow(/permission denied/);
    // A database made before the search index gets it filled with every tenant's words when the schema is applied.
    const owner = await pg.connect(DEFAULT_ROLES.owner, passwords.owner);
    try {
      await owner.query('DROP TABLE search_index');
      expect(await schemaDrift(owner, derived)).toEqual(['missing table search_index']);
      await applySchema(owner, derived);
      expect(await schemaDrift(owner, derived)).toEqual([]);
    } finally {
      await owner.end();
    }
    expect((await postgres.store.searchByWord('ts', ['Project'], 'sun', 1000)).length).toBe(3);
    expect((await postgres.store.searchByWord('ts', ['Project'], 'harbour', 1000)).length).toBe(27);
  });

  it("shows a row whose keyed index columns lag behind its values (an UPDATE by hand in SQL) as index drift, and the migration's rewrite puts it where the index finds it", async () => {
    const item = project('th', 'proj_by_hand', 'Alpha');
    await postgres.store.transact([put(item)]);
    await withTenant(app, 'th', () => app.query(`UPDATE projects SET title = 'Zulu' WHERE project_id = 'proj_by_hand'`));
    const titles = async () =>
      (await postgres.store.queryAll(entities.Project.query('th', 'byTitle', { archived: false }))).map((p) => [p.title, p.GSI2SK]);
    // Still where its old title put it: the SQL wrote no key.
    expect(await titles()).toEqual([['Zulu', 'alpha#proj_by_hand']]);
    const stored = await postgres.store.get({ PK: item.PK, SK: item.SK });
    if (!stored) throw new Error('The project is gone.');
    // What the drift check (modelDrift) and a 'reindex' migration read: the index key as stored, not as derived again.
    expect(driftOf(entities.Project, stored)).toContain('GSI2SK');
    // The migration's rewrite (src/migrations/migration.segment.ts, reindexed): the item with its index attributes derived again.
    await postgres.store.transact([put({ ...stored, ...entities.Project.indexAttributes('th', stored) })]);
    expect(await titles()).toEqual([['Zulu', 'zulu#proj_by_hand']]);
    expect(driftOf(entities.Project, (await postgres.store.get({ PK: item.PK, SK: item.SK })) ?? item)).not.toContain('GSI2SK');
  });

  it('fills the key columns of a table made before them, in the transaction that adds them, from the items its rows hold', async () => {
    const owner = await pg.connect(DEFAULT_ROLES.owner, passwords.owner);
    try {
      const spec = entities.Project.query('tk', 'byTitle', { archived: false });
      const before = (await postgres.store.queryFirst(spec, 3)).map((p) => p.projectId);
      expect(before).toHaveLength(3);
      // As a database made before keyed indexes: the columns (and their index) are not there.
      await owner.query('ALTER TABLE projects DROP COLUMN by_title_pk, DROP COLUMN by_title_sk');
      // Applied without the models' code, the columns cannot be filled: refused, nothing added.
      await expect(applySchema(owner, derived)).rejects.toThrow(/projects lack index key columns/);
      await applySchema(owner, derived, indexKeyFill(new EntityTables(entities, derived), DEFAULT_ROLES.schema));
      expect(await schemaDrift(owner, derived)).toEqual([]);
      expect((await postgres.store.queryFirst(spec, 3)).map((p) => p.projectId)).toEqual(before);
      // Every tenant's rows got their keys.
      expect((await postgres.store.queryAll(entities.Project.query('t3', 'byTitle', { archived: false }))).length).toBe(3);
    } finally {
      await owner.end();
    }
  });

  it('lets exactly one of 20 concurrent creates of one key commit; the others get the failure with the item as it is', async () => {
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) =>
        postgres.store.transact([
          put(project('t1', 'proj_race', `Writer ${i}`)).ifNew((current) => new Error(`taken by ${current?.title}`)),
        ]),
      ),
    );
    const winner = results.findIndex((r) => r.status === 'fulfilled');
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const reasons = results.flatMap((r) => (r.status === 'rejected' ? [String(r.reason)] : []));
    expect(reasons).toEqual(Array(19).fill(`Error: taken by Writer ${winner}`));
  });

  it('tests a create again when another transaction inserted its row meanwhile: the loser of the race gets the failure, not a silent success', async () => {
    // The row is inserted by a transaction held open, so the store's create finds no row to lock,
    // inserts, and waits on the primary key until that transaction commits.
    const racer = await pg.connect(DEFAULT_ROLES.app, passwords.app);
    const admin = await pg.connect(pg.superuser, pg.password);
    await racer.query('BEGIN');
    await racer.query("SELECT set_config('app.tenant_id', 't1', true)");
    await racer.query(
      "INSERT INTO projects (tenant_id, project_id, title, status, archived) VALUES ('t1', 'proj_held', 'First', 'planning', false)",
    );
    const create = postgres.store.transact([
      put(project('t1', 'proj_held', 'Second')).ifNew((current) => new Error(`taken by ${current?.title}`)),
    ]);
    // Its outcome is taken at once (a rejection nobody awaited yet would be reported as unhandled), and asserted below.
    const outcome = create.then(
      () => 'committed',
      (error: Error) => error.message,
    );
    await waitFor(
      async () =>
        (await admin.query("SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE 'INSERT INTO%'")).rowCount,
      "the store's insert waiting on the held row",
    );
    await racer.query('COMMIT');
    expect(await outcome).toContain('taken by First');
  });

  it('commits all of a transaction or nothing: a failed condition on its second write leaves the first unwritten', async () => {
    const first = project('t1', 'proj_first');
    const stale = put(project('t1', 'proj_roundtrip', 'Stale')).ifVersion(9);
    await expect(postgres.store.transact([put(first).ifNew(), stale])).rejects.toMatchObject({ extensions: { code: 'CONFLICT' } });
    expect(await postgres.store.get({ PK: first.PK, SK: first.SK })).toBeNull();
    // An update of a missing item makes it, as DynamoDB's does (a counter from 0).
    const usage = entities.TenantUsage.keyOf('t1', {});
    await postgres.store.transact([update(usage).addNumber('projects', 2)]);
    await postgres.store.transact([update(usage).addNumber('projects', -1)]);
    expect((await postgres.store.get(usage))?.projects).toBe(1);
  });

  it("sets the transaction's tenant: one tenant's query sees nothing of another's, and a transaction of two tenants is refused", async () => {
    await postgres.store.transact([put(project('t2', 'proj_other'))]);
    const t1 = await postgres.store.queryAll(entities.Project.query('t1', 'byStatus', { archived: false, status: 'planning' }));
    expect(t1.map((p) => p.projectId)).not.toContain('proj_other');
    await expect(postgres.store.transact([put(project('t1', 'proj_x')), put(project('t2', 'proj_y'))])).rejects.toThrow(/several tenants/);
    const error = await postgres.store.transact([put(project('t1', 'proj_roundtrip')).ifNew()]).catch((e: AppError) => e);
    expect(error).toMatchObject({ extensions: { code: 'CONFLICT' } });
  });

  it("keeps waiting events in the outbox table in their commit: the sweeper's query finds them across tenants, and they leave when taken out", async () => {
    const tenantEvent = (tenantId: string, ulid: string) =>
      event({
        ...entities.TenantEvent.toItem(tenantId, {
          ulid,
          eventId: ulid,
          at: '2026-01-02T03:04:05.000Z',
          actor: 'artist',
          action: 'tenant.updated',
          subjectType: 'Tenant',
          subjectId: tenantId,
        }),
        eventId: ulid,
        at: '2026-01-02T03:04:05.000Z',
      });
    // One event alone waits as itself; a commit's two wait as one entry that names them (withOneOutboxEntry).
    await postgres.store.transact([tenantEvent('t1', 'evt_a')]);
    const many = withOneOutboxEntry([tenantEvent('t2', 'evt_b'), tenantEvent('t2', 'evt_c')]);
    await postgres.store.transact(many.writes);
    const waiting = async () =>
      (
        await Promise.all(
          Array.from({ length: OUTBOX_SHARDS }, (_, shard) =>
            postgres.store.queryFirst({ index: 'OUTBOX', pk: outboxPartition(shard), skBefore: '2027' }, 500),
          ),
        )
      ).flat();
    const found = await waiting();
    expect(found.map((item) => [item.entityType, item.eventId ?? item.outboxEvents]).sort()).toEqual([
      ['Event', 'evt_a'],
      ['OutboxEntry', [expect.objectContaining({ SK: 'EVENT#evt_b' }), expect.objectContaining({ SK: 'EVENT#evt_c' })]],
    ]);
    expect(await postgres.store.outboxSnapshot()).toMatchObject({ backlog: 2 });
    const single = found.find((item) => item.entityType === 'Event');
    if (!single || !many.entry) throw new Error('Both waiting items were found above.');
    await postgres.store.removeAttributesOfEach([single], ['OUTBOXPK', 'OUTBOXSK']);
    await postgres.store.deleteEach([many.entry]);
    expect(await waiting()).toEqual([]);
    // The events themselves stay, out of the outbox.
    expect(await postgres.store.get({ PK: single.PK, SK: single.SK })).toMatchObject({ eventId: 'evt_a' });
  });

  it('refuses a reference to an item the tenant does not have with BAD_USER_INPUT naming the attribute (a foreign key, checked at commit)', async () => {
    const inspiration = entities.Inspiration.toItem('t1', {
      inspirationId: 'insp_1',
      type: 'text',
      text: 'dusk light',
      tags: [],
      linkedProjectId: 'proj_missing',
      version: 1,
      createdAt: '2026-01-02T03:04:05.678Z',
      updatedAt: '2026-01-02T03:04:05.678Z',
      createdBy: 'artist',
    });
    await expect(postgres.store.transact([put(inspiration)])).rejects.toMatchObject({
      extensions: { code: 'BAD_USER_INPUT', field: 'linkedProjectId' },
    });
    // Another tenant's project of that id is none of t1's either.
    await postgres.store.transact([put(project('t2', 'proj_missing'))]);
    await expect(postgres.store.transact([put(inspiration)])).rejects.toMatchObject({ extensions: { field: 'linkedProjectId' } });
    await postgres.store.transact([put(project('t1', 'proj_missing'))]);
    await postgres.store.transact([put(inspiration)]);
  });

  it("reads the operators' list of every tenant's projects from its 16 numbered shards, merged in order, and pages it", async () => {
    const written = Array.from({ length: 20 }, (_, i) => {
      const at = new Date(Date.UTC(2026, 2, 1, 0, 0, i)).toISOString();
      const projectId = `proj_ops${String(i).padStart(2, '0')}`;
      return entities.Project.toItem(['t1', 't2', 't3'][i % 3], {
        projectId,
        title: `Ops ${i}`,
        status: 'production',
        archived: false,
        version: 1,
        createdAt: at,
        updatedAt: at,
        createdBy: 'artist',
        quotaCounted: 1,
        searchSlots: ['ops', String(i)],
      });
    });
    await postgres.store.transactEach(written.map((item) => [put(item)]));
    const spec = entities.Project.query('', 'acrossTenants', { archived: false, status: 'production' }, { descending: true });
    expect(spec.pk).toBe('PROJECT_STATUS#production#0');
    expect(spec.shards).toHaveLength(15);
    const newestFirst = [...written].reverse().map((item) => item.projectId);
    const all = await postgres.store.queryAll(spec);
    expect(all.map((item) => item.projectId)).toEqual(newestFirst);
    // Each project's entry is in its shard, a numbered one (shard 0's too), spread over most of them.
    expect(all.every((item) => /^PROJECT_STATUS#production#\d+$/.test(String(item.GSI3PK)))).toBe(true);
    expect(new Set(all.map((item) => item.GSI3PK)).size).toBeGreaterThanOrEqual(8);
    const paged: unknown[] = [];
    let after: string | null = null;
    for (;;) {
      const page = await postgres.store.queryPage('t1', spec, { first: 7, after });
      paged.push(...page.nodes.map((item) => item.projectId));
      if (!page.pageInfo.hasNextPage) break;
      after = await page.pageInfo.endCursor;
    }
    expect(paged).toEqual(newestFirst);
  });

  it('opens every tenant to reading only in the transaction across tenants, and never to writing', async () => {
    const seen = await withCrossTenantRead(app, async (client) => (await client.query('SELECT tenant_id FROM projects')).rows);
    expect(new Set(seen.map((r) => r.tenant_id))).toEqual(new Set(['t1', 't2', 't3', 'th', 'tj', 'tk', 'tl', 'ts']));
    // The setting admits SELECT only: in a transaction of t1 that sets it too, t2's row is seen but neither changed nor deleted.
    const changed = await withTenant(app, 't1', async (client) => {
      await client.query("SELECT set_config('app.cross_tenant', 'read', true)");
      const updated = await client.query("UPDATE projects SET title = 'taken' WHERE tenant_id = 't2'");
      const deleted = await client.query("DELETE FROM projects WHERE tenant_id = 't2'");
      return [updated.rowCount, deleted.rowCount];
    });
    expect(changed).toEqual([0, 0]);
    await expect(
      withTenant(app, 't1', async (client) => {
        await client.query("SELECT set_config('app.cross_tenant', 'read', true)");
        await client.query(
          "INSERT INTO projects (tenant_id, project_id, title, status, archived) VALUES ('t2', 'p', 't', 'planning', false)",
        );
      }),
    ).rejects.toThrow(/row-level security/);
    // Without the setting, a transaction without a tenant sees no row at all.
    expect((await app.query('SELECT count(*)::int AS n FROM projects')).rows[0].n).toBe(0);
  });
});
