/** @long Started first on a clean clone (test/support/sequencer.js): one of the slowest files. */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { BatchWriteCommand, type BatchWriteCommandOutput } from '@aws-sdk/lib-dynamodb';
import { entities } from '../../src/common/entities';
import { newId } from '../../src/common/ids';
import { SEARCH_SLOTS_ATTRIBUTE } from '../../src/infra/dynamo/entity';
import { type Item, put } from '../../src/infra/dynamo/write';
import { withTenant } from '../../src/infra/postgres/apply';
import { DEFAULT_ROLES } from '../../src/infra/postgres/schema';
import { Client } from 'pg';
import { testDynamo, testDynamoEnv } from '../support/dynamo';
import { fixture, tempDir } from '../support/fixtures';
import { exited, ROOT } from '../support/processes';
import { Role, STORES, startTestServer, TEST_SECRET, type TestServer } from '../support/server';
import { subscribe, wsClient } from '../support/ws';
import { waitFor as poll } from '../support/wait';
import { legacyLog } from '../support/legacy-log';
import { MIGRATIONS as DECLARED_MIGRATIONS } from '../../src/migrations/migrations';

/*
 * Migrations as system jobs (issue 34), against DynamoDB Local: 2,000 entities written in the
 * shape they had before their declaration changed (before logs and projects were searchable, and
 * projects before their index across tenants): the drift check reports each of them; `npm run
 * migrate` (the built script, a real process) is killed with SIGKILL mid-way and run again, and
 * re-derives each entity exactly once (its version moves by one); 20 user edits made during the
 * run all survive; the drift check then reports nothing and search finds every entity. A second
 * server runs a migration itself, started by the admin mutation, followed over jobProgress.
 * On PostgreSQL (issue 50) the scripts reach the database with DATABASE_URL: 100 old entities, the
 * drift reported by `npm run verify-model`, the backfill run by the script alone through a kill.
 */

const TENANTS = ['mig-a', 'mig-b'];
/** Projects written in the old shape (besides their logs). */
const PROJECTS = 20;
const ENTITIES = 2_000;
const BUDGET = 100;

interface Written {
  tenantId: string;
  projectId: string;
  logId?: string;
  word: string;
}

/**
 * Writes entities straight into the store in their old shape: no word items, no search slots, and
 * projects without GSI3 (an index attribute, which PostgreSQL derives on read, so not old there).
 * On PostgreSQL the rows are put through the store, then their `search_vector` emptied, as a row
 * written before the column was added holds it: the backfill must write it again.
 */
async function writeOldShape(server: TestServer, count: number, projectCount = PROJECTS): Promise<Written[]> {
  const at = new Date().toISOString();
  const rows: Item[] = [];
  const written: Written[] = [];
  const projects: Written[] = [];
  for (let p = 0; p < projectCount; p++) {
    const tenantId = TENANTS[p % TENANTS.length];
    const projectId = newId('proj');
    // No word is the start of another (search matches word prefixes).
    const word = `canvas${p}z`;
    const stored: Item = entities.Project.toItem(tenantId, {
      projectId,
      title: `Old ${word}`,
      status: 'planning',
      archived: false,
      version: 1,
      createdAt: at,
      updatedAt: at,
      createdBy: 'legacy',
    });
    // Written before GSI3 and quotas were kept: no GSI3 attributes, and it has counted nothing.
    const { GSI3PK: _pk, GSI3SK: _sk, quotaCounted: _counted, ...item } = stored;
    rows.push(item);
    projects.push({ tenantId, projectId, word });
  }
  written.push(...projects);
  for (let i = 0; written.length < count; i++) {
    const project = projects[i % projectCount];
    const logId = newId('log');
    const word = `entry${i}z`;
    rows.push(entities.Log.toItem(project.tenantId, legacyLog({ projectId: project.projectId, logId }, at, `Worked on ${word} today`)));
    written.push({ tenantId: project.tenantId, projectId: project.projectId, logId, word });
  }
  for (const row of rows) expect(row[SEARCH_SLOTS_ATTRIBUTE]).toBeUndefined();
  if (server.config.postgres) {
    await writeOldRows(server.app.store, server.config.postgres.url, rows);
    return written;
  }
  const dynamo = fixture('seeding client', testDynamo(), (d) => d.client.destroy());
  const chunks = Array.from({ length: Math.ceil(rows.length / 25) }, (_, i) => rows.slice(i * 25, (i + 1) * 25));
  // A few batches in flight at once: one after another, each waited for DynamoDB Local's round trip.
  const lane = async () => {
    for (let chunk = chunks.shift(); chunk; chunk = chunks.shift()) {
      let pending: Record<string, unknown>[] | undefined = chunk.map((Item) => ({ PutRequest: { Item } }));
      while (pending && pending.length > 0) {
        const out: BatchWriteCommandOutput = await dynamo.doc.send(
          new BatchWriteCommand({ RequestItems: { [server.config.tableName]: pending } }),
        );
        pending = out.UnprocessedItems?.[server.config.tableName];
      }
    }
  };
  await Promise.all(Array.from({ length: 4 }, lane));
  return written;
}

/** writeOldShape's rows on PostgreSQL: put through the store, a transaction per tenant and 100 rows (projects first, which logs refer to). */
async function writeOldRows(store: TestServer['app']['store'], databaseUrl: string, rows: Item[]): Promise<void> {
  for (const tenantId of TENANTS) {
    const own = rows.filter((row) => row.PK === `TENANT#${tenantId}`);
    for (let i = 0; i < own.length; i += 100) await store.transact(own.slice(i, i + 100).map(put));
  }
  const client = fixture('old-shape client', new Client({ connectionString: databaseUrl }), (c) => c.end());
  await client.connect();
  for (const tenantId of TENANTS)
    await withTenant(client, tenantId, async () => {
      for (const table of ['projects', 'logs']) await client.query(`UPDATE ${DEFAULT_ROLES.schema}.${table} SET search_vector = NULL`);
    });
}

async function gql(server: TestServer, token: string, query: string, variables: Record<string, unknown> = {}) {
  const { body } = await server.raw({ query, variables }, token);
  if (body.errors) throw new Error(JSON.stringify(body.errors));
  return body.data;
}

const MIGRATIONS = `{ migrations { id state jobId progress rewriteRate counts { scanned rewritten unchanged skipped conflicts } } }`;
const DRIFT = `{ modelDrift(maxSamples: 2) { drifted undeclared types { entityType checked drifted fields { field items } samples { pk sk fields } } } }`;

/**
 * Runs the built `npm run migrate` script (or another operators' tool, `script`) against the
 * server's store, reached directly: its DynamoDB table, or its PostgreSQL as the server's role
 * (DATABASE_URL). Resolves its process and output.
 */
function runMigrate(server: TestServer, dataDir: string, args: string[] = [], script = 'migrate') {
  const store = server.config.postgres
    ? { DATABASE_URL: server.config.postgres.url }
    : { ...testDynamoEnv(), TABLE_NAME: server.config.tableName };
  const child: ChildProcess = spawn(process.execPath, [join(ROOT, `dist/src/scripts/${script}.js`), ...args], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      NODE_ENV: 'development',
      DATA_DIR: dataDir,
      ...store,
      AUTH_JWT_SECRET: TEST_SECRET,
      CURSOR_SECRET: 'test-cursor-secret',
      DYNAMODB_TIMEOUT_MS: '10000',
      // A killed holder's segments are taken over this soon after its last report.
      JOB_LEASE_SECONDS: '3',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (c) => (output += c));
  child.stderr?.on('data', (c) => (output += c));
  return { child, output: () => output };
}

/**
 * Reads until `done` says yes, through the tests' one polling loop (test/support/wait.ts), every
 * 500 ms: what it reads here (the migrations query: the entries, the job and its items) moves once
 * a segment's page is checkpointed, every second or more, so reading more often only costs
 * DynamoDB Local's CPU (every 100 ms, 520 queries in the first test). A timeout names the last read.
 */
async function waitFor<T>(read: () => Promise<T>, done: (value: T) => boolean, what: () => string, ms = 120_000): Promise<T> {
  let last: T | undefined;
  const found = await poll(
    async () => {
      last = await read();
      return done(last) ? { value: last } : undefined;
    },
    () => `${what()} (last read: ${JSON.stringify(last)})`,
    { ms, everyMs: 500 },
  );
  return found.value;
}

describe('migrations as system jobs', () => {
  let server: TestServer;
  let admin: string;
  let dataDir: string;
  let written: Written[];

  beforeAll(async () => {
    // This server leaves the migration's segments to the script (SYSTEM_JOB_SLOTS 0), so the
    // script's kill is what the test sees; the second describe has the server run one itself.
    server = await startTestServer({ env: { SYSTEM_JOB_SLOTS: '0' } });
    admin = await server.operatorToken();
    dataDir = tempDir('artissist-migrate-');
    written = await writeOldShape(server, ENTITIES);
    // Writing 2,000 entities took 60–190 s on two busy cores.
  }, 300_000);

  it('reports the drift of every old entity, runs the backfill once each through a kill and concurrent edits, and leaves no drift', async () => {
    const before = (await gql(server, admin, DRIFT)).modelDrift;
    const byType = Object.fromEntries(before.types.map((t: { entityType: string }) => [t.entityType, t]));
    expect(byType.Log).toMatchObject({ checked: ENTITIES - PROJECTS, drifted: ENTITIES - PROJECTS });
    expect(byType.Log.fields).toEqual([{ field: 'searchWords', items: ENTITIES - PROJECTS }]);
    expect(byType.Project.drifted).toBe(PROJECTS);
    expect(byType.Project.fields).toEqual(
      expect.arrayContaining([
        { field: 'GSI3PK', items: PROJECTS },
        { field: 'searchWords', items: PROJECTS },
        { field: 'quotaCounted', items: PROJECTS },
      ]),
    );
    expect(byType.Log.samples[0].fields).toEqual(['searchWords']);
    expect(before.drifted).toBe(ENTITIES);
    const viewer = await server.token(TENANTS[0], [Role.EDITOR]);
    const findsBefore = await gql(server, viewer, `query($t: String!) { search(text: $t) { nodes { score } } }`, { t: 'entry0z' });
    expect(findsBefore.search.nodes).toHaveLength(0);

    // First run: killed outright once a quarter of the entities are rewritten.
    const first = runMigrate(server, dataDir, ['--items-per-second', String(BUDGET)]);
    await waitFor(
      async () => (await gql(server, admin, MIGRATIONS)).migrations[0],
      (m) => (m.counts?.rewritten ?? 0) >= ENTITIES / 4,
      () => `the first run to rewrite a quarter (its output: ${first.output()})`,
    );
    first.child.kill('SIGKILL');
    await exited(first.child);
    const atKill = (await gql(server, admin, MIGRATIONS)).migrations[0];
    expect(atKill.state).toBe('RUNNING');
    expect(atKill.counts.rewritten).toBeLessThan(ENTITIES);

    // Second run: takes the segments over from their checkpoints once the leases ran out; users edit meanwhile.
    const second = runMigrate(server, dataDir, ['--items-per-second', String(BUDGET)]);
    const startedAt = Date.now();
    await waitFor(
      async () => (await gql(server, admin, MIGRATIONS)).migrations[0],
      (m) => m.counts.rewritten > atKill.counts.rewritten,
      () => `the second run to take over (its output: ${second.output()})`,
    );
    const edited = written.filter((w) => w.logId).slice(-20);
    let userConflicts = 0;
    await Promise.all(
      edited.map(async (w, n) => {
        const token = await server.token(w.tenantId, [Role.EDITOR]);
        // A client's edit with optimistic locking: on CONFLICT it reads again and sends its edit again.
        for (;;) {
          const { log } = await gql(server, token, `query($p: ID!, $l: ID!) { log(projectId: $p, logId: $l) { version } }`, {
            p: w.projectId,
            l: w.logId,
          });
          const { body } = await server.raw(
            {
              query: `mutation($p: ID!, $l: ID!, $v: Int!, $m: [String!]) { updateLogExtraction(projectId: $p, logId: $l, expectedVersion: $v, input: { materials: $m }) { version } }`,
              variables: { p: w.projectId, l: w.logId, v: log.version, m: [`ochre${n}z`] },
            },
            token,
          );
          if (!body.errors) break;
          expect(body.errors[0].extensions.code).toBe('CONFLICT');
          userConflicts++;
        }
      }),
    );
    const exitCode = await exited(second.child);
    const elapsed = (Date.now() - startedAt) / 1000;
    expect({ exitCode, output: exitCode === 0 ? '' : second.output() }).toEqual({ exitCode: 0, output: '' });
    const after = (await gql(server, admin, MIGRATIONS)).migrations[0];
    expect(after.state).toBe('APPLIED');
    const rewrittenSecond = after.counts.rewritten - atKill.counts.rewritten;
    // The budget holds for the run as a whole: its rewrites never ran ahead of it.
    expect(rewrittenSecond / elapsed).toBeLessThanOrEqual(BUDGET * 1.05);
    process.stdout.write(
      `migration: second run rewrote ${rewrittenSecond} in ${elapsed.toFixed(1)} s (${(rewrittenSecond / elapsed).toFixed(1)}/s against a budget of ${BUDGET}/s); ` +
        `counts ${JSON.stringify(after.counts)}; ${userConflicts} user conflicts retried\n`,
    );

    // Exactly once: an entity no user touched moved from version 1 to 2; an edited one keeps its edit.
    // Read in batches of 100 (strongly consistent, like a get): 2,000 gets one after another took seconds.
    const editedIds = new Set(edited.map((w) => w.logId));
    const items = await server.app.store.batchGet(
      written.map((w) =>
        w.logId
          ? entities.Log.keyOf(w.tenantId, { projectId: w.projectId, logId: w.logId })
          : entities.Project.keyOf(w.tenantId, { projectId: w.projectId }),
      ),
    );
    for (const [i, w] of written.entries()) {
      const item = items[i];
      if (!item) throw new Error(`${w.logId ?? w.projectId} is gone`);
      if (w.logId && editedIds.has(w.logId)) {
        expect(item.materials).toEqual([`ochre${edited.findIndex((e) => e.logId === w.logId)}z`]);
        expect(Number(item.version)).toBeGreaterThanOrEqual(2);
        expect(Number(item.version)).toBeLessThanOrEqual(3);
      } else {
        expect({ id: w.logId ?? w.projectId, version: item.version }).toEqual({ id: w.logId ?? w.projectId, version: 2 });
      }
    }

    const drift = (await gql(server, admin, DRIFT)).modelDrift;
    expect(drift.types.filter((t: { drifted: number }) => t.drifted > 0)).toEqual([]);
    expect(drift.drifted).toBe(0);

    // Search finds every entity by its word, and every edit by its new material.
    for (const w of written.filter((_, i) => i % 97 === 0 || i < PROJECTS)) {
      const token = await server.token(w.tenantId, [Role.VIEWER]);
      const found = await gql(
        server,
        token,
        `query($t: String!) { search(text: $t, first: 5) { nodes { entity { ... on Log { logId } ... on Project { projectId } } } } }`,
        {
          t: w.word,
        },
      );
      const ids = found.search.nodes.map((n: { entity: { logId?: string; projectId?: string } }) => n.entity.logId ?? n.entity.projectId);
      expect(ids).toContain(w.logId ?? w.projectId);
    }
    for (const [n, w] of edited.entries()) {
      const token = await server.token(w.tenantId, [Role.VIEWER]);
      const found = await gql(server, token, `query($t: String!) { search(text: $t) { nodes { entity { ... on Log { logId } } } } }`, {
        t: `ochre${n}z`,
      });
      expect(found.search.nodes.map((x: { entity: { logId: string } }) => x.entity.logId)).toEqual([w.logId]);
    }

    // Run again: nothing is pending, nothing is written.
    const third = runMigrate(server, dataDir);
    expect(await exited(third.child)).toBe(0);
    expect(third.output()).toContain('001-search-backfill: APPLIED');
  }, 300_000);
});

describe('`npm run migrate` and `npm run verify-model` on PostgreSQL', () => {
  let server: TestServer;
  let written: Written[];

  beforeAll(async () => {
    // The server runs no segment (SYSTEM_JOB_SLOTS 0): the script is the migration's only runner.
    server = await startTestServer({ store: 'postgres', env: { SYSTEM_JOB_SLOTS: '0' } });
    written = await writeOldShape(server, 100, 4);
  }, 60_000);

  it('reach the database with DATABASE_URL: the drift reported, the backfill run by the script through a kill, applied, nothing drifted after', async () => {
    const admin = await server.operatorToken();
    const dataDir = tempDir('artissist-migrate-pg-');
    const drift = async () => {
      const check = runMigrate(server, dataDir, ['--json'], 'verify-model');
      const code = await exited(check.child);
      return { code, report: JSON.parse(check.output()) };
    };
    const before = await drift();
    // The placeholder project of the server's own jobs is declared as it is; the 200 old entities are not.
    expect({ code: before.code, drifted: before.report.drifted }).toEqual({ code: 1, drifted: 100 });

    // Killed once a quarter is rewritten, then run again: the second run takes the segments over once their leases ran out.
    const first = runMigrate(server, dataDir, ['--items-per-second', '25']);
    await waitFor(
      async () => (await gql(server, admin, MIGRATIONS)).migrations[0],
      (m) => (m.counts?.rewritten ?? 0) >= 25,
      () => `the first run to rewrite a quarter (its output: ${first.output()})`,
    );
    first.child.kill('SIGKILL');
    await exited(first.child);
    const atKill = (await gql(server, admin, MIGRATIONS)).migrations[0];
    expect(atKill.state).toBe('RUNNING');
    const second = runMigrate(server, dataDir, ['--items-per-second', '25']);
    const exitCode = await exited(second.child);
    expect({ exitCode, output: exitCode === 0 ? '' : second.output() }).toEqual({ exitCode: 0, output: '' });
    expect(second.output()).toContain('001-search-backfill: APPLIED');
    const after = (await gql(server, admin, MIGRATIONS)).migrations;
    expect(after.map((m: { state: string }) => m.state)).toEqual(DECLARED_MIGRATIONS.map(() => 'APPLIED'));
    // Each old entity rewritten exactly once through the kill: from version 1 to 2.
    const items = await server.app.store.batchGet(
      written.map((w) =>
        w.logId
          ? entities.Log.keyOf(w.tenantId, { projectId: w.projectId, logId: w.logId })
          : entities.Project.keyOf(w.tenantId, { projectId: w.projectId }),
      ),
    );
    expect(new Set(items.map((item) => item?.version))).toEqual(new Set([2]));

    expect(await drift()).toMatchObject({ code: 0, report: { drifted: 0 } });
    const old = written.find((w) => w.logId && w.tenantId === TENANTS[0]);
    const editor = await server.token(TENANTS[0], [Role.EDITOR]);
    const found = await gql(server, editor, `query($t: String!) { search(text: $t) { nodes { entity { ... on Log { logId } } } } }`, {
      t: old?.word,
    });
    expect(found.search.nodes.map((n: { entity: { logId?: string } }) => n.entity.logId)).toEqual([old?.logId]);
  }, 120_000);
});

describe.each(STORES)('a migration run by the server itself, on %s', (store) => {
  let server: TestServer;
  let written: Written[];

  beforeAll(async () => {
    server = await startTestServer({ store, env: { SYSTEM_JOB_SLOTS: '4', SYSTEM_JOB_IDLE_MS: '200' } });
    written = await writeOldShape(server, 200, 4);
  }, 60_000);

  it('is started by the admin mutation, runs on the server, and is followed over jobProgress by admins only', async () => {
    const admin = await server.operatorToken();
    const editor = await server.token(TENANTS[0], [Role.EDITOR]);
    const refused = await server.raw({ query: 'mutation { runMigrations { id } }' }, editor);
    expect(refused.body.errors[0].extensions.code).toBe('FORBIDDEN');
    // A tenant cannot make a job of the server's own kind, nor sees the kind offered.
    const made = await server.raw(
      { query: 'mutation { createJob(input: { projectId: "proj_01J00000000000000000000000", kind: "MIGRATION" }) { jobId } }' },
      editor,
    );
    expect(made.body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'kind' });
    const kinds = (await gql(server, editor, '{ jobKinds { name } }')).jobKinds.map((k: { name: string }) => k.name);
    expect(kinds).not.toContain('MIGRATION');

    const started = (await gql(server, admin, 'mutation { runMigrations(itemsPerSecond: 400) { id state jobId itemsPerSecond } }'))
      .runMigrations;
    // The first not applied starts; the next waits for it.
    expect(started[0]).toEqual({ id: '001', state: 'RUNNING', jobId: expect.stringMatching(/^job_/), itemsPerSecond: 400 });
    expect(started.slice(1).map((m: { id: string; state: string }) => [m.id, m.state])).toEqual(
      DECLARED_MIGRATIONS.slice(1).map((m) => [m.id, 'PENDING']),
    );
    const applied = await waitFor(
      async () => (await gql(server, admin, MIGRATIONS)).migrations[0],
      (m) => m.state === 'APPLIED',
      () => 'the server to apply the migration',
    );
    // On PostgreSQL the store also holds the placeholder project the server's own jobs refer to
    // (docs/postgres.md), scanned and found as declared.
    const placeholders = store === 'postgres' ? 1 : 0;
    expect(applied.counts).toMatchObject({ scanned: 200 + placeholders, rewritten: 200, unchanged: placeholders });
    expect((await gql(server, admin, DRIFT)).modelDrift.drifted).toBe(0);
    // The backfill wrote what search reads (word items; on PostgreSQL the row's search_vector).
    const old = written.find((w) => w.logId && w.tenantId === TENANTS[0]);
    const found = await gql(server, editor, `query($t: String!) { search(text: $t) { nodes { entity { ... on Log { logId } } } } }`, {
      t: old?.word,
    });
    expect(found.search.nodes.map((n: { entity: { logId?: string } }) => n.entity.logId)).toEqual([old?.logId]);

    // The job's stream, replayed from its start: each segment's progress and completion, then the job's.
    const client = wsClient(server.url, admin);
    const events = subscribe(
      client,
      `subscription($j: ID!) { jobProgress(jobId: $j, afterSeq: 0, system: true) { type item { sequence status } job { status } } }`,
      {
        j: started[0].jobId,
      },
    );
    await events.done;
    expect(events.errors).toEqual([]);
    const types = events.received.map((e: { type: string }) => e.type);
    expect(types.filter((t: string) => t === 'ITEM_COMPLETED')).toHaveLength(4);
    expect(events.received.at(-1)?.job.status).toBe('COMPLETED');

    // Another tenant's editor cannot follow it.
    const outsider = wsClient(server.url, editor);
    const denied = subscribe(outsider, `subscription($j: ID!) { jobProgress(jobId: $j, system: true) { type } }`, { j: started[0].jobId });
    await denied.done;
    expect(JSON.stringify(denied.errors)).toContain('FORBIDDEN');

    // Each applied once, the next started after the one before it: running again starts nothing.
    const allApplied = await waitFor(
      async () => (await gql(server, admin, '{ migrations { state jobId } }')).migrations as Array<{ state: string; jobId: string }>,
      (all) => all.every((m) => m.state === 'APPLIED'),
      () => 'every migration to be applied',
    );
    expect(allApplied[0].jobId).toBe(started[0].jobId);
    // The budget given is the run's: the migration started after the first ran within it too.
    expect((await gql(server, admin, '{ migrations { id itemsPerSecond } }')).migrations).toEqual(
      DECLARED_MIGRATIONS.map((m) => ({ id: m.id, itemsPerSecond: 400 })),
    );
    const again = (await gql(server, admin, 'mutation { runMigrations { state jobId } }')).runMigrations;
    expect(again).toEqual(allApplied);
  }, 120_000);
});
