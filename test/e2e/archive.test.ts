import { gunzipSync } from 'node:zlib';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { ArchiveManifest } from '../../src/archive/archive.format';
import { ArchiveSchedule } from '../../src/archive/archive.schedule';
import { Archiver } from '../../src/archive/archive.service';
import type { Item } from '../../src/infra/dynamo/store';
import { Role, startTestServer, type TestServer } from '../support/server';

/*
 * Cold storage (issue 34, part 2), against DynamoDB Local and the local S3, with a test clock:
 * finished jobs past the retention are exported as gzip JSON Lines with a manifest under the
 * tenant's prefix, then removed; a crash between export and removal leaves the job in the table
 * and the next run finishes it without writing a second object; an archived project goes the same
 * way and is restored equal.
 */

const DAY = 86_400_000;
const A = 'cold-a';
const B = 'cold-b';

/** The job the injected crash hits: a throw between its export and its removal, which real parts cannot produce at that point. */
let crashOn: string | undefined;
let ahead = 0;
/** Each job its own request (the same project and kind would be one job by the derived idempotency key). */
let jobs = 0;

describe('cold storage', () => {
  let server: TestServer;
  let editorA: string;
  let workerA: string;
  let editorB: string;
  let workerB: string;
  let admin: string;

  const run = async (query: string, variables: Record<string, unknown>, as: string) => {
    const res = await server.raw({ query, variables }, as);
    expect(res.body.errors).toBeUndefined();
    return res.body.data;
  };
  const runArchive = async () =>
    (await run('mutation { runArchive { jobs projects resumed rows bytes failed } }', {}, admin)).runArchive as Record<string, number>;

  /** Every row of a partition (optionally one sort-key prefix) as the table holds it. */
  const rowsOf = async (pk: string, skPrefix?: string): Promise<Item[]> => {
    const out = await server.app.store['doc'].send(
      new QueryCommand({
        TableName: server.config.tableName,
        KeyConditionExpression: skPrefix ? 'PK = :pk AND begins_with(SK, :sk)' : 'PK = :pk',
        ExpressionAttributeValues: skPrefix ? { ':pk': pk, ':sk': skPrefix } : { ':pk': pk },
        ConsistentRead: true,
      }),
    );
    return out.Items ?? [];
  };
  /** Waits until the outbox has published every event of these rows (it then clears their OUTBOX attributes). */
  const settled = async (read: () => Promise<Item[]>): Promise<Item[]> => {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const rows = await read();
      if (!rows.some((row) => row.OUTBOXPK !== undefined)) return rows;
      if (Date.now() > deadline) throw new Error('the outbox did not publish these events within 30 s');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };
  const objects = async (prefix: string) =>
    (
      (await server.app.files.client.send(new ListObjectsV2Command({ Bucket: server.config.s3.bucket, Prefix: prefix }))).Contents ?? []
    ).map((o) => ({ key: o.Key, etag: o.ETag, size: o.Size }));

  const finishedJob = async (projectId: string, editor: string, worker: string, steps = ['one', 'two']) => {
    const jobId = (
      await run(
        'mutation($i: CreateJobInput!) { createJob(input: $i) { jobId } }',
        { i: { projectId, kind: 'COLD', steps, idempotencyKey: `cold-${++jobs}` } },
        editor,
      )
    ).createJob.jobId;
    for (const s of steps) {
      await run('mutation($j: ID!, $s: String!) { startStep(jobId: $j, stepName: $s) { seq } }', { j: jobId, s }, worker);
      await run('mutation($j: ID!, $s: String!) { completeStep(jobId: $j, stepName: $s) { seq } }', { j: jobId, s }, worker);
    }
    return jobId as string;
  };
  const newProject = async (title: string, editor: string) =>
    (await run('mutation($i: CreateProjectInput!) { createProject(input: $i) { projectId } }', { i: { title } }, editor)).createProject
      .projectId as string;

  beforeAll(async () => {
    server = await startTestServer({
      env: { ARCHIVE_INTERVAL_MS: '0' },
      now: () => new Date(Date.now() + ahead),
      afterArchiveExport: (manifest: ArchiveManifest) => {
        if (manifest.id === crashOn) throw new Error('killed between export and removal');
      },
    });
    editorA = await server.token(A, [Role.EDITOR], 'alice');
    workerA = await server.token(A, [Role.WORKER], 'worker-a');
    editorB = await server.token(B, [Role.EDITOR], 'bob');
    workerB = await server.token(B, [Role.WORKER], 'worker-b');
    admin = await server.token('ops', [Role.ADMIN], 'operator');
  });

  it('exports old finished jobs and removes them; a crash between the two repeats nothing and loses nothing; an archived project restores equal', async () => {
    const projectId = await newProject('Cold jobs', editorA);
    const [first, second] = [await finishedJob(projectId, editorA, workerA), await finishedJob(projectId, editorA, workerA, ['solo'])];
    const running = (
      await run(
        'mutation($i: CreateJobInput!) { createJob(input: $i) { jobId } }',
        { i: { projectId, kind: 'COLD', steps: ['x'], idempotencyKey: 'running' } },
        editorA,
      )
    ).createJob.jobId;
    const other = await finishedJob(await newProject('B jobs', editorB), editorB, workerB);
    // An archived project with children: a log with materials, a milestone, its activity.
    const archivedId = await newProject('Shelved', editorA);
    await run(
      'mutation($p: ID!, $i: CreateLogInput!) { createLog(projectId: $p, input: $i) { logId } }',
      { p: archivedId, i: { rawText: 'Glazed the vase', materials: ['Cobalt Blue', 'linseed'], timeSpentMinutes: 45 } },
      editorA,
    );
    await run(
      'mutation($p: ID!, $i: CreateMilestoneInput!) { createMilestone(projectId: $p, input: $i) { milestoneId } }',
      { p: archivedId, i: { name: 'Fired' } },
      editorA,
    );
    await run('mutation($p: ID!) { archiveProject(projectId: $p, expectedVersion: 1) { archived } }', { p: archivedId }, editorA);

    const jobPk = (tenant: string, jobId: string) => `TENANT#${tenant}#JOB#${jobId}`;
    const held = await settled(() => rowsOf(jobPk(A, first)));
    expect(held.map((r) => r.entityType).sort()).toEqual(['Event', 'Event', 'Event', 'Event', 'Event', 'Job', 'Step', 'Step']);
    const projectRows = async () => {
      const own = await rowsOf(`TENANT#${A}`, `PROJECT#${archivedId}`);
      const events = await rowsOf(`TENANT#${A}#PROJECT#${archivedId}#EVENTS`);
      const materials = (await rowsOf(`TENANT#${A}`, 'MATERIAL#')).filter((r) => r.projectId === archivedId);
      return [...own, ...events, ...materials];
    };
    const projectBefore = await settled(projectRows);
    expect(projectBefore.map((r) => r.entityType).sort()).toEqual(
      ['Event', 'Event', 'Event', 'Event', 'Log', 'MaterialUse', 'MaterialUse', 'Milestone', 'Project', 'StreamHead'].sort(),
    );

    // Nothing is 90 days old yet.
    expect(await runArchive()).toEqual({ jobs: 0, projects: 0, resumed: 0, rows: 0, bytes: 0, failed: 0 });

    // 91 days on, a run that is killed after exporting the first job.
    ahead = 91 * DAY;
    crashOn = first;
    const crashed = await runArchive();
    expect(crashed).toMatchObject({ jobs: 2, projects: 1, resumed: 0, failed: 1 });
    expect(await rowsOf(jobPk(A, first))).toEqual(held);
    const prefixA = `archive/tenants/${A}/`;
    const afterCrash = await objects(`${prefixA}jobs/${first}`);
    expect(afterCrash.map((o) => o.key)).toEqual([`${prefixA}jobs/${first}.jsonl.gz`, `${prefixA}jobs/${first}.manifest.json`]);

    // The exported lines are what the table held.
    const data = await server.app.files.read(`${prefixA}jobs/${first}.jsonl.gz`);
    const lines = gunzipSync(data!.body)
      .toString('utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toEqual(held);
    const manifest = JSON.parse(Buffer.from((await server.app.files.read(`${prefixA}jobs/${first}.manifest.json`))!.body).toString());
    expect(manifest).toMatchObject({ kind: 'job', tenantId: A, id: first, rows: held.length, bytes: data!.body.byteLength });
    expect(manifest.sha256).toMatch(/^[0-9a-f]{64}$/);

    // The next run finishes it without writing again.
    crashOn = undefined;
    expect(await runArchive()).toMatchObject({ jobs: 1, projects: 0, resumed: 1, failed: 0, bytes: 0, rows: held.length });
    expect(await rowsOf(jobPk(A, first))).toEqual([]);
    expect(await objects(`${prefixA}jobs/${first}`)).toEqual(afterCrash);

    // The others: A's second job and B's went; the running job stayed; each under its own tenant's prefix.
    expect(await rowsOf(jobPk(A, second))).toEqual([]);
    expect(await rowsOf(jobPk(B, other))).toEqual([]);
    expect((await rowsOf(jobPk(A, running))).length).toBeGreaterThan(0);
    expect((await objects(`archive/tenants/${B}/`)).map((o) => o.key)).toEqual([
      `archive/tenants/${B}/jobs/${other}.jsonl.gz`,
      `archive/tenants/${B}/jobs/${other}.manifest.json`,
    ]);

    // archivedJob reads it back for its tenant, and for no other.
    const query = '{ archivedJob(jobId: "ID") { jobId rows bytes sha256 job steps items events } }';
    const back = (await run(query.replace('ID', first), {}, editorA)).archivedJob;
    expect(back).toMatchObject({ jobId: first, rows: held.length, sha256: manifest.sha256, items: [] });
    expect(back.job).toMatchObject({ jobId: first, status: 'COMPLETED', version: 5 });
    expect(back.steps.map((s: { name: string }) => s.name).sort()).toEqual(['one', 'two']);
    expect(back.events.map((e: { seq: number }) => e.seq)).toEqual([1, 2, 3, 4, 5]);
    expect(back.job.PK).toBeUndefined();
    expect((await run(query.replace('ID', first), {}, editorB)).archivedJob).toBeNull();
    expect((await run(query.replace('ID', other), {}, editorA)).archivedJob).toBeNull();
    expect((await run(query.replace('ID', other), {}, editorB)).archivedJob.jobId).toBe(other);

    // The archived project went with its children and streams, and comes back equal.
    expect(await projectRows()).toEqual([]);
    expect((await run('query($p: ID!) { project(projectId: $p) { title } }', { p: archivedId }, editorA)).project).toBeNull();
    const restoreQuery = 'mutation($p: ID!) { restoreProject(projectId: $p) { projectId title archived } }';
    const refused = await server.raw({ query: restoreQuery, variables: { p: archivedId } }, editorB);
    expect(refused.body.errors[0].extensions.code).toBe('NOT_FOUND');
    const restored = (await run(restoreQuery, { p: archivedId }, editorA)).restoreProject;
    expect(restored).toEqual({ projectId: archivedId, title: 'Shelved', archived: true });
    expect(await projectRows()).toEqual(projectBefore);
    // Restored on purpose, it stays at the next run (until it changes).
    expect(await runArchive()).toMatchObject({ projects: 0, failed: 0 });
    expect(await projectRows()).toEqual(projectBefore);
  });

  it('runs on one instance at a time: of two schedules asking at once, one takes the lease, and the next run takes it again', async () => {
    const clock = () => new Date(Date.now() + ahead);
    const archiver = new Archiver(server.app.store, server.app.files, { afterDays: 90, fileLimits: server.config.files, now: clock });
    const [one, two] = [1, 2].map(() => new ArchiveSchedule(server.app.store, archiver, { intervalMs: 0, leaseSeconds: 60, now: clock }));
    const results = await Promise.all([one.runNow(), two.runNow()]);
    expect(results.filter((r) => r === null)).toHaveLength(1);
    expect(results.filter((r) => r !== null)).toHaveLength(1);
    // The lease is freed at the end of the run.
    expect(await two.runNow()).toMatchObject({ failed: 0 });
  });
});
