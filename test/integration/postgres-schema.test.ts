import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from 'pg';
import { entities } from '../../src/common/entities';
import { applySchema, createRoles, schemaDrift, withTenant } from '../../src/infra/postgres/apply';
import {
  DEFAULT_ROLES,
  DERIVED_INDEX_COMMENT,
  type DerivedSchema,
  deriveSchema,
  foreignKeySql,
  schemaSql,
  snake,
  type TableDef,
} from '../../src/infra/postgres/schema';
import { type PostgresServer, startPostgres } from '../support/postgres';

/*
 * The PostgreSQL schema derived from the entity declarations, on a real PostgreSQL this file
 * starts (test/support/postgres.ts): it applies on an empty database and again, the drift check
 * sees what is missing, row-level security keeps the server's role in its tenant on every table,
 * and the seed's views return their rows.
 */
const roles = DEFAULT_ROLES;
const passwords = { owner: 'owner-secret', app: 'app-secret' };
const derived: DerivedSchema = deriveSchema(entities, roles);
const table = (entity: string): TableDef => {
  const found = derived.tables.find((t) => t.entity === entity);
  if (!found) throw new Error(`No table for ${entity}.`);
  return found;
};

/** A value of a column's type; texts are all 'k1', so every reference finds the row of its tenant that has that id. */
const SAMPLE: Record<string, unknown> = {
  text: 'k1',
  bigint: 1,
  'double precision': 1.5,
  boolean: true,
  date: '2026-01-01',
  'timestamp with time zone': '2026-01-01T00:00:00Z',
  jsonb: '{}',
  'text[]': [],
};

/** Inserts one row into `t` of the transaction's tenant: every column a sample of its type, `tenant` and `values` over them. */
async function insert(client: Client, t: TableDef, tenant: string, values: Record<string, unknown> = {}) {
  const row: Record<string, unknown> = {
    ...Object.fromEntries(t.columns.map((c) => [c.name, SAMPLE[c.type]])),
    tenant_id: tenant,
    ...values,
  };
  const names = Object.keys(row);
  await client.query(
    `INSERT INTO ${t.name} (${names.map((n) => `"${n}"`).join(', ')}) VALUES (${names.map((_, i) => `$${i + 1}`).join(', ')})`,
    Object.values(row),
  );
}

describe('the PostgreSQL schema derived from the declarations', () => {
  let pg: PostgresServer;
  let admin: Client;
  let owner: Client;
  let app: Client;

  beforeAll(async () => {
    pg = await startPostgres();
    admin = await pg.connect(pg.superuser, pg.password);
    await createRoles(admin, roles, passwords, 'postgres');
    owner = await pg.connect(roles.owner, passwords.owner);
  });

  it('derives a typed table per entity, keyed by tenant first, with the declared indexes and references', () => {
    expect(derived.tables).toHaveLength(Object.keys(entities).length);
    for (const t of derived.tables) expect(t.primaryKey[0]).toBe('tenant_id');
    const jobs = table('Job');
    expect(jobs.name).toBe('jobs');
    expect(jobs.primaryKey).toEqual(['tenant_id', 'job_id']);
    const type = (t: TableDef, column: string) => t.columns.find((c) => c.name === column)?.type;
    expect([
      type(jobs, 'project_id'),
      type(jobs, 'priority'),
      type(jobs, 'progress'),
      type(jobs, 'plan'),
      type(jobs, 'started_at'),
    ]).toEqual(['text', 'bigint', 'double precision', 'jsonb', 'timestamp with time zone']);
    expect(type(table('Milestone'), 'criteria')).toBe('text[]');
    expect(type(table('Project'), 'archived')).toBe('boolean');
    expect(jobs.columns.find((c) => c.name === 'version')).toMatchObject({ type: 'bigint', notNull: true });
    expect(jobs.foreignKeys).toEqual([
      expect.objectContaining({ columns: ['tenant_id', 'project_id'], table: 'projects', references: ['tenant_id', 'project_id'] }),
    ]);
    // A reference to an entity keyed under its parent (a log under its project) gets a unique index on its id.
    expect(table('Asset').foreignKeys).toEqual([expect.objectContaining({ table: 'logs', setNull: 'linked_log_id' })]);
    expect(table('Log').indexes).toContainEqual(
      expect.objectContaining({ name: 'logs_id_key', columns: ['tenant_id', 'log_id'], unique: true }),
    );
    // A key that code computes (a predicate's membership, a derived claim time, a format, a write shard)
    // or that joins several values is kept in two columns, indexed while in the index: a membership of
    // values (the paused steps) leaves the others' columns NULL.
    const steps = table('Step');
    expect(steps.indexes.find((i) => i.name === 'steps_awaiting_review_key')).toEqual({
      name: 'steps_awaiting_review_key',
      columns: ['awaiting_review_pk', 'awaiting_review_sk'],
      where: `"awaiting_review_pk" IS NOT NULL`,
    });
    expect(table('WorkItem').indexes.find((i) => i.name === 'work_items_claimable_in_job_key')).toEqual({
      name: 'work_items_claimable_in_job_key',
      columns: ['claimable_in_job_pk', 'claimable_in_job_sk'],
      where: `"claimable_in_job_pk" IS NOT NULL`,
    });
    expect(table('WorkItem').columns.find((c) => c.name === 'claimable_in_job_sk')).toEqual({
      name: 'claimable_in_job_sk',
      type: 'text',
      notNull: false,
      collation: 'C',
    });
    // Keyed: the indexes whose key code computes or whose partition is a tenant's whole table, those whose partition one of them shares,
    // those that order an entity's rows by one of these indexes' sort keys, and no other.
    const keyed = derived.tables.flatMap((t) => Object.keys(t.indexKeys ?? {}).map((index) => `${t.entity}.${index}`));
    expect(keyed.sort()).toEqual(
      [
        'Project.byStatus',
        'Project.byTitle',
        'Project.acrossTenants',
        'SearchWord.byWord',
        'Job.byStatus',
        'Job.acrossTenants',
        'Job.byCreator',
        'Step.claimable',
        'Step.claimableOfKind',
        'Step.claimableOfStage',
        'WorkItem.claimableInJob',
        'WorkItem.deadLetters',
        'WorkItem.deadLettersAcrossTenants',
        'JobWork.pool',
        // Keyed as the steps' index whose partition each shares.
        'JobWork.claimable',
        'JobWork.claimableOfKind',
        'JobWork.claimableOfStage',
        // Keyed as a partition of the tenant's whole table (TYPE#EVENT).
        'ProjectEvent.timeline',
        'TenantEvent.timeline',
        'JobSettle.pending',
        // Keyed as ordering their entity's rows by a keyed index's sort key (the timeline's, a creator's jobs'), and each as
        // a sort key of several values too.
        'ProjectEvent.timelineByAction',
        'TenantEvent.timelineByAction',
        'Job.byProject',
        // Keyed as a sort key of several values, read a page at a time after a cursor that names them all.
        'Asset.byType',
        'Inspiration.byProject',
        'Log.byAttribution',
        'Scene.byStatus',
        'Step.awaitingReview',
      ].sort(),
    );
    // An index of columns (a project's event by id, one value): the tenant first, then its templates' values.
    const plain = table('ProjectEvent').indexes.find((i) => !i.name.endsWith('_key') && i.columns.includes('event_id'));
    expect(plain?.columns).toEqual(['tenant_id', 'project_id', 'event_id']);
    expect(derived.views.map((v) => v.name)).toEqual(['v_jobs_in_progress', 'v_steps_needing_review', 'v_assets_by_type']);
  });

  it('shows in docs/postgres.md statements the derivation makes, as it makes them', () => {
    const docs = readFileSync(join(__dirname, '../../docs/postgres.md'), 'utf8');
    const sql = /```sql\n([\s\S]*?)```/.exec(docs)?.[1] ?? '';
    const flat = (statement: string) => statement.replace(/\s+/g, ' ').trim();
    const shown = sql
      .split(/;\s*\n/)
      .map(flat)
      .filter(Boolean);
    const made = new Set([
      ...schemaSql(derived).map(flat),
      ...derived.tables.flatMap((t) => t.foreignKeys.map((fk) => flat(foreignKeySql(roles.schema, t, fk)))),
    ]);
    expect(shown.length).toBeGreaterThan(5);
    expect(shown.filter((statement) => !made.has(statement.replace(/;$/, '')))).toEqual([]);
  });

  it('applies on an empty database, then again without change, and the drift check finds nothing', async () => {
    expect(await schemaDrift(owner, derived)).toContain('missing table jobs');
    await applySchema(owner, derived);
    expect(await schemaDrift(owner, derived)).toEqual([]);
    await applySchema(owner, derived);
    expect(await schemaDrift(owner, derived)).toEqual([]);
  });

  it('reports a dropped column, index, policy and forced row-level security, and applying again restores them', async () => {
    await applySchema(owner, derived);
    await owner.query('ALTER TABLE milestones DROP COLUMN due');
    await owner.query('DROP INDEX projects_by_title_key');
    await owner.query('DROP POLICY tenant_isolation ON scenes');
    await owner.query('ALTER TABLE logs NO FORCE ROW LEVEL SECURITY');
    expect((await schemaDrift(owner, derived)).sort()).toEqual(
      [
        'missing column milestones.due',
        'missing index projects_by_title_key on projects',
        'missing policy tenant_isolation on scenes',
        'row-level security is not forced on logs',
      ].sort(),
    );
    await applySchema(owner, derived);
    expect(await schemaDrift(owner, derived)).toEqual([]);
  });

  it('reports a function, trigger, keyed index column and keyed index altered or dropped, each by name, and applying again restores the ones it makes', async () => {
    await applySchema(owner, derived);
    await owner.query('ALTER FUNCTION search_keys(text, tsquery, integer) SECURITY INVOKER');
    await owner.query('GRANT EXECUTE ON FUNCTION search_keys(text, tsquery, integer) TO PUBLIC');
    await owner.query(
      `CREATE OR REPLACE FUNCTION search_index_sync() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
         SET search_path = pg_catalog, pg_temp AS $f$ BEGIN RETURN NULL; END $f$`,
    );
    await owner.query('DROP TRIGGER search_index_sync ON logs');
    await owner.query('ALTER TABLE projects DISABLE TRIGGER search_index_sync');
    await owner.query('DROP INDEX jobs_by_status_key');
    // The keyed index again under its name, without its sort key or its predicate.
    await owner.query('CREATE INDEX jobs_by_status_key ON jobs (by_status_pk)');
    await owner.query('ALTER TABLE work_items ALTER COLUMN claimable_in_job_sk TYPE text COLLATE "default"');
    expect((await schemaDrift(owner, derived)).sort()).toEqual(
      [
        'column work_items.claimable_in_job_sk is collated as its type, declared C',
        'function search_index_sync() has another body than the derived one',
        'function search_keys(text, tsquery, integer) is not SECURITY DEFINER',
        'function search_keys(text, tsquery, integer) may be executed by PUBLIC, derived artissist_app only',
        'index jobs_by_status_key on jobs is CREATE INDEX jobs_by_status_key ON jobs USING btree (by_status_pk), ' +
          'derived CREATE INDEX jobs_by_status_key ON jobs USING btree (by_status_pk, by_status_sk) WHERE (by_status_pk IS NOT NULL)',
        'missing trigger search_index_sync on logs',
        'trigger search_index_sync on projects is disabled',
      ].sort(),
    );
    await owner.query('DROP FUNCTION search_keys(text, tsquery, integer)');
    expect(await schemaDrift(owner, derived)).toContain('missing function search_keys(text, tsquery, integer)');
    // A column is never retyped by applySchema (its rows may hold what the new type refuses): the drift check says so until a migration does.
    await applySchema(owner, derived);
    expect(await schemaDrift(owner, derived)).toEqual(['column work_items.claimable_in_job_sk is collated as its type, declared C']);
    await owner.query('ALTER TABLE work_items ALTER COLUMN claimable_in_job_sk TYPE text COLLATE "C"');
    expect(await schemaDrift(owner, derived)).toEqual([]);
  });

  it('drops on applying an index the derivation no longer makes, leaving one made by hand, so a database made before ends as a fresh one', async () => {
    await applySchema(owner, derived);
    // As the derivation before keyed indexes left a database: each keyed index a plain index of its
    // templates' columns under the plain name (jobs_by_status), and a GIN index of each tsvector.
    const before = derived.tables.flatMap((t) =>
      Object.keys(t.indexKeys ?? {}).map((name) => ({ table: t.name, name: `${t.name}_${snake(name)}` })),
    );
    for (const { table: t, name } of before) await owner.query(`CREATE INDEX ${name} ON ${t} (tenant_id, created_at)`);
    await owner.query('CREATE INDEX projects_search_vector ON projects USING gin (search_vector)');
    // An index of the derivation's whose declaration is gone, and an analyst's own index.
    await owner.query(`CREATE INDEX jobs_by_kind ON jobs (tenant_id, kind); COMMENT ON INDEX jobs_by_kind IS '${DERIVED_INDEX_COMMENT}'`);
    await owner.query('CREATE INDEX report_jobs_by_kind ON jobs (kind)');
    expect(await schemaDrift(owner, derived)).toEqual(
      expect.arrayContaining([
        'index jobs_by_status on jobs is no longer derived',
        'index projects_search_vector on projects is no longer derived',
        'index jobs_by_kind on jobs is no longer derived',
      ]),
    );
    expect(before.length).toBeGreaterThan(10);
    await applySchema(owner, derived);
    expect(await schemaDrift(owner, derived)).toEqual([]);
    const indexes = async () =>
      (await owner.query(`SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = $1 ORDER BY indexname`, [roles.schema])).rows;
    const left = await indexes();
    expect(left.map((i) => i.indexname)).toContain('report_jobs_by_kind');
    // Identical to a fresh database's: the same indexes with the same definitions.
    await owner.query('DROP INDEX report_jobs_by_kind');
    const migrated = await indexes();
    await owner.query(`DROP SCHEMA ${roles.schema} CASCADE`);
    await applySchema(owner, derived);
    expect(await indexes()).toEqual(migrated);
  });

  describe("as the server's role", () => {
    beforeAll(async () => {
      // Applied here too (a no-op after the tests above), so these tests hold or fail on their own.
      await applySchema(owner, derived);
      app = await pg.connect(roles.app, passwords.app);
      // A row in every table for each of two tenants, each written under its own tenant.
      for (const tenant of ['A', 'B']) {
        await withTenant(app, tenant, async () => {
          for (const t of derived.tables) await insert(app, t, tenant);
        });
      }
    });

    it('sees only its tenant’s rows in every table, with a query that names no tenant, and none without a tenant', async () => {
      for (const t of derived.tables) {
        const rows = await withTenant(app, 'A', async () => (await app.query(`SELECT tenant_id FROM ${t.name}`)).rows);
        expect({ table: t.name, rows }).toEqual({ table: t.name, rows: [{ tenant_id: 'A' }] });
      }
      // Without a tenant (no transaction set one), no table shows a row.
      for (const t of derived.tables)
        expect({ table: t.name, rows: (await app.query(`SELECT * FROM ${t.name}`)).rows }).toEqual({ table: t.name, rows: [] });
      // The setting ended with its transaction: nothing carries to the connection's next user.
      expect((await app.query("SELECT current_setting('app.tenant_id', true) AS tenant")).rows[0].tenant).toBe('');
    });

    it('cannot insert, update or delete another tenant’s row in any table, nor insert one without a tenant', async () => {
      for (const t of derived.tables) {
        await expect(withTenant(app, 'A', () => insert(app, t, 'B'))).rejects.toThrow(/violates row-level security policy/);
        // Nor, without a tenant, a row of any.
        await expect(insert(app, t, 'A')).rejects.toThrow(/violates row-level security policy/);
        const changed = await withTenant(app, 'A', async () => {
          const updated = await app.query(`UPDATE ${t.name} SET version = version + 1 WHERE tenant_id = 'B'`);
          const deleted = await app.query(`DELETE FROM ${t.name} WHERE tenant_id = 'B'`);
          return [updated.rowCount, deleted.rowCount];
        });
        expect({ table: t.name, changed }).toEqual({ table: t.name, changed: [0, 0] });
        // Moving its own row to the other tenant is refused too (the policy's WITH CHECK).
        await expect(withTenant(app, 'A', () => app.query(`UPDATE ${t.name} SET tenant_id = 'B'`))).rejects.toThrow(
          /violates row-level security policy/,
        );
      }
      const b = await withTenant(app, 'B', async () => (await app.query('SELECT count(*)::int AS n FROM projects')).rows[0].n);
      expect(b).toBe(1);
    });

    it('cannot turn row-level security off, drop the policy, or become the owner', async () => {
      await expect(app.query('ALTER TABLE projects DISABLE ROW LEVEL SECURITY')).rejects.toThrow(/must be owner/);
      await expect(app.query('ALTER TABLE projects NO FORCE ROW LEVEL SECURITY')).rejects.toThrow(/must be owner/);
      await expect(app.query('DROP POLICY tenant_isolation ON projects')).rejects.toThrow(/must be owner/);
      await expect(app.query(`SET ROLE ${roles.owner}`)).rejects.toThrow(/permission denied to set role/);
      await expect(app.query('SET row_security = off')).resolves.toBeDefined();
      // With row_security off, a query that policies would filter fails instead of bypassing them.
      await expect(withTenant(app, 'A', () => app.query('SELECT * FROM projects'))).rejects.toThrow(/row-level security/);
      await app.query('RESET row_security');
      const role = (await admin.query('SELECT rolsuper, rolbypassrls FROM pg_roles WHERE rolname = $1', [roles.app])).rows[0];
      expect(role).toEqual({ rolsuper: false, rolbypassrls: false });
    });

    it("reads the seed's views: running jobs, steps paused for review, ready assets with their latest version, its tenant's only", async () => {
      const versions = [
        { version: 1, s3Key: 'a/1', status: 'ready', createdAt: '2026-01-01T00:00:00Z' },
        { version: 2, s3Key: 'a/2', status: 'ready', createdAt: '2026-01-02T00:00:00Z' },
      ];
      for (const tenant of ['A', 'B']) {
        await withTenant(app, tenant, async () => {
          await insert(app, table('Job'), tenant, { job_id: 'running', status: 'RUNNING' });
          await insert(app, table('Job'), tenant, { job_id: 'queued', status: 'QUEUED' });
          await insert(app, table('Step'), tenant, { job_id: 'running', name: 'rig', status: 'PAUSED' });
          await insert(app, table('Step'), tenant, { job_id: 'running', name: 'model', status: 'RUNNING' });
          await insert(app, table('Asset'), tenant, {
            asset_id: 'ready',
            status: 'ready',
            latest_version: 2,
            versions: JSON.stringify(versions),
          });
          await insert(app, table('Asset'), tenant, { asset_id: 'uploading', status: 'uploading', versions: '[]' });
        });
      }
      const views = await withTenant(app, 'A', async () => ({
        jobs: (await app.query('SELECT tenant_id, job_id FROM v_jobs_in_progress')).rows,
        steps: (await app.query('SELECT tenant_id, job_id, name FROM v_steps_needing_review')).rows,
        assets: (await app.query('SELECT tenant_id, asset_id, type, latest_version_metadata FROM v_assets_by_type')).rows,
      }));
      expect(views).toEqual({
        jobs: [{ tenant_id: 'A', job_id: 'running' }],
        steps: [{ tenant_id: 'A', job_id: 'running', name: 'rig' }],
        assets: [{ tenant_id: 'A', asset_id: 'ready', type: 'k1', latest_version_metadata: versions[1] }],
      });
    });
  });
});
