import { gunzipSync } from 'node:zlib';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { type ArchiveManifest, sha256Of } from '../../src/archive/archive.format';
import { ArchiveJobs } from '../../src/archive/archive.jobs';
import { Archiver } from '../../src/archive/archive.service';
import { SYSTEM_TENANT } from '../../src/auth/principal';
import { entities } from '../../src/common/entities';
import type { Item } from '../../src/infra/dynamo/store';
import { SystemJobRunner } from '../../src/system-jobs/runner';
import { type ContextDeps, systemJobsEnv } from '../../src/wiring';
import { stoppedAfter, stopOnPurpose } from '../support/fixtures';
import { Role, STORES, startTestServer, type TestServer } from '../support/server';
import { subscribe, wsClient } from '../support/ws';

/*
 * Cold storage (issue 34, part 2), against DynamoDB Local and the local S3, with a test clock:
 * finished jobs past the retention are exported as gzip JSON Lines with a manifest under the
 * tenant's prefix, then removed; a crash between export and removal leaves the job in the table
 * and the next run finishes it without writing a second object; an archived project goes the same
 * way and is restored equal. A run is a system job of kind ARCHIVE in the system partition:
 * concurrent commands on two instances get one job, which completes once; each instance's schedule
 * starts runs; a holder stopped mid-run (as a killed one: its item keeps its lease) is taken over
 * from its checkpoint; and nothing is left running once everything stopped.
 */

const DAY = 86_400_000;
const A = 'cold-a';
const B = 'cold-b';

/** The job the injected crash hits: a throw between its export and its removal, which real parts cannot produce at that point. */
let crashOn: string | undefined;
let ahead = 0;
/** Each job its own request (the same project and kind would be one job by the derived idempotency key). */
let jobs = 0;

describe.each(STORES)('cold storage, on %s', (store) => {
  let server: TestServer;
  let editorA: string;
  let workerA: string;
  let editorB: string;
  let workerB: string;
  let admin: string;

  const run = (query: string, variables: Record<string, unknown>, as: string) => gql(server, query, variables, as);
  const runArchive = async () =>
    (await run('mutation { runArchive { jobs projects resumed rows bytes failed } }', {}, admin)).runArchive as Record<string, number>;

  /** Every row of a partition (optionally one sort-key prefix) as the table holds it. */
  const rowsOf = (pk: string, skPrefix?: string): Promise<Item[]> => server.app.store.queryAll({ pk, skPrefix });
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
    // Each store's cases start on today's clock (the cases move it on; it is shared by the file).
    ahead = 0;
    crashOn = undefined;
    server = await startTestServer({
      store,
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
    admin = await server.operatorToken();
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
    // An HTTP client (fetch decompresses what says Content-Encoding: gzip) gets the bytes the checksum names.
    const downloaded = await fetch(await server.app.files.presignDownload(`${prefixA}jobs/${first}.jsonl.gz`, 60));
    expect(sha256Of(new Uint8Array(await downloaded.arrayBuffer()))).toBe(manifest.sha256);
    expect(downloaded.headers.get('content-type')).toBe('application/gzip');

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
    // Every row as exported; its old events marked restored (so they do not go downstream again),
    // and one new event, the restore's, at the next position of its activity.
    const projectAfter = await settled(projectRows);
    const restoreEvent = projectAfter.find((r) => r.action === 'project.restored');
    expect(restoreEvent).toMatchObject({ SK: 'EVENT#000000000005', position: 5, actor: 'alice' });
    expect(restoreEvent?.restoredAt).toBeUndefined();
    expect(projectAfter.filter((r) => r !== restoreEvent)).toEqual(
      projectBefore.map((r) =>
        r.entityType === 'Event' ? { ...r, restoredAt: expect.any(String) } : r.entityType === 'StreamHead' ? { ...r, position: 5 } : r,
      ),
    );
    // A second restore finds it in the table, and says so.
    const again = await server.raw({ query: restoreQuery, variables: { p: archivedId } }, editorA);
    expect(again.body.errors[0].extensions).toMatchObject({ code: 'CONFLICT', currentVersion: 2 });
    expect(again.body.errors[0].message).toBe(
      `Project ${archivedId} is in the table (at version 2): only a project the archive moved to cold storage can be restored.`,
    );
    // Restored on purpose, it stays at the next run (until it changes).
    expect(await runArchive()).toMatchObject({ projects: 0, failed: 0 });
    expect(await projectRows()).toEqual(projectAfter);
  });

  it('runs as one system job of kind ARCHIVE: concurrent commands on two instances join it, it completes once, and its progress is followed over jobProgress', async () => {
    const clock = () => new Date(Date.now() + ahead);
    // A second instance of the server's archive over the same table: its own starter and waiter.
    const other = secondInstance(server, clock, { intervalMs: FAR_PERIOD });
    // A job of the running server finished 91 days ago, for the run to move.
    const projectId = await newProject('Raced', editorA);
    const old = await finishedJob(projectId, editorA, workerA);
    await settled(() => rowsOf(`TENANT#${A}#JOB#${old}`));
    ahead += 91 * DAY;
    const query = 'mutation { runArchive { jobId status progress jobs projects resumed rows bytes failed } }';
    const answers = await Promise.all([
      run(query, {}, admin).then((d) => d.runArchive),
      run(query, {}, admin).then((d) => d.runArchive),
      other.archive.runNow(),
    ]);
    // One job for all three, completed, with one result.
    const jobId = answers[0].jobId;
    expect(jobId).toMatch(/^job_/);
    for (const answer of answers) expect(answer).toEqual({ ...answers[0], jobId, status: 'COMPLETED', progress: 1 });
    expect(answers[0]).toMatchObject({ jobs: 1, projects: 0, failed: 0 });
    expect(await rowsOf(`TENANT#${A}#JOB#${old}`)).toEqual([]);
    // The schedule of either instance finds this period's run made, and starts none.
    expect(await other.archive.start('schedule')).toBeNull();

    // A job of the archive kind in the system partition, whose one item ran once (one attempt) and gave the result.
    const jobs = systemJobsEnv(other.deps).systemJobs();
    const job = await jobs.get(jobId);
    expect(job).toMatchObject({ kind: 'ARCHIVE', status: 'COMPLETED', PK: `TENANT#${SYSTEM_TENANT}#JOB#${jobId}` });
    const items = (await jobs.items.page(jobId, 'move', { first: 10 })).nodes;
    expect(items.map((i) => [i.status, i.attempt])).toEqual([['COMPLETED', 1]]);
    expect(items[0].outputs).toEqual({ jobs: 1, projects: 0, resumed: 0, rows: 8, bytes: answers[0].bytes, failed: 0 });
    // An admin reads it among the system's jobs; no tenant reads it as its own.
    const systemJob = `query($j: ID!) { job(jobId: $j, system: true) { kind status progress } }`;
    expect((await run(systemJob, { j: jobId }, admin)).job).toEqual({ kind: 'ARCHIVE', status: 'COMPLETED', progress: 1 });
    expect((await server.raw({ query: `{ job(jobId: "${jobId}") { jobId } }` }, editorA)).body.data.job).toBeNull();

    // Its stream, replayed from the start by an admin: the item's progress and completion, once, then the job's.
    const client = wsClient(server.url, admin);
    const events = subscribe(
      client,
      'subscription($j: ID!) { jobProgress(jobId: $j, afterSeq: 0, system: true) { type item { sequence status progress } job { status } } }',
      { j: jobId },
    );
    await events.done;
    expect(events.errors).toEqual([]);
    const types = events.received.map((e: { type: string }) => e.type);
    expect(types.filter((t: string) => t === 'ITEM_COMPLETED')).toHaveLength(1);
    expect(types).toContain('ITEM_PROGRESS');
    expect(events.received.at(-1)?.job.status).toBe('COMPLETED');

    // Once it finished, the next command starts a new run.
    const next = (await run(query, {}, admin)).runArchive;
    expect(next).toMatchObject({ status: 'COMPLETED', jobs: 0, failed: 0 });
    expect(next.jobId).not.toBe(jobId);
    // Following a run by its id answers it again, without starting one; an id that is no archive run is NOT_FOUND.
    const followed = (await run('mutation($j: ID) { runArchive(jobId: $j) { jobId status jobs } }', { j: jobId }, admin)).runArchive;
    expect(followed).toEqual({ jobId, status: 'COMPLETED', jobs: 1 });
    const unknown = await server.raw({ query: 'mutation { runArchive(jobId: "job_01J00000000000000000000000") { jobId } }' }, admin);
    expect(unknown.body.errors[0].extensions.code).toBe('NOT_FOUND');
  });

  it("starts runs from each instance's schedule, run by the instances' runners, and leaves no timer, wait or runner behind when stopped", async () => {
    const clock = () => new Date(Date.now() + ahead);
    const pointer = async () => (await server.app.store.get(entities.SystemLease.keyOf(SYSTEM_TENANT, { name: 'archive' })))?.holder;
    const before = await pointer();
    // Two instances whose schedules tick every 200 ms; what they start is run by the server's runner.
    const [one, two] = [secondInstance(server, clock, { intervalMs: 200 }), secondInstance(server, clock, { intervalMs: 200 })];
    one.runner.start();
    two.runner.start();
    one.archive.startSchedule();
    two.archive.startSchedule();
    expect(one.archive.idle).toBe(false);
    const deadline = Date.now() + 30_000;
    while ((await pointer()) === before) {
      if (Date.now() > deadline) throw new Error('no schedule started a run within 30 s');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await Promise.all([stopOnPurpose(one.archive), stopOnPurpose(two.archive)]);
    expect([one.archive.idle, two.archive.idle]).toEqual([true, true]);
    // The run a tick started completes on the instances' runners.
    const started = String(await pointer());
    const jobs = systemJobsEnv(one.deps).systemJobs();
    const deadlineDone = Date.now() + 30_000;
    while ((await jobs.get(started))?.status !== 'COMPLETED') {
      if (Date.now() > deadlineDone) throw new Error('the scheduled run did not complete within 30 s');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect((await jobs.get(started))?.kind).toBe('ARCHIVE');
    await Promise.all([stopOnPurpose(one.runner), stopOnPurpose(two.runner)]);
    expect([one.runner.idle, two.runner.idle]).toEqual([true, true]);
    // The server's own runner (it ran this file's other runs) and archive are released by its stop.
    expect(server.app.systemJobs.idle).toBe(false);
    await stopOnPurpose(server);
    expect(server.app.systemJobs.idle).toBe(true);
    expect(server.app.archive.idle).toBe(true);
  });
});

/** Lease of this file's second server: a stopped holder's item is taken over this soon. */
const LEASE_SECONDS = 2;

describe('a cold-storage run whose holder is killed', () => {
  let server: TestServer;
  let editor: string;
  let worker: string;
  let admin: string;
  let later = 0;
  const clock = () => new Date(Date.now() + later);

  beforeAll(async () => {
    // This server runs no system job itself (SYSTEM_JOB_SLOTS=0): the test's two holders do. Its
    // requests have the default budget (the tests' is longer), which bounds runArchive's wait.
    server = await startTestServer({
      env: { ARCHIVE_INTERVAL_MS: '0', SYSTEM_JOB_SLOTS: '0', JOB_LEASE_SECONDS: String(LEASE_SECONDS), REQUEST_BUDGET_MS: '5000' },
      now: clock,
    });
    editor = await server.token('cold-k', [Role.EDITOR], 'kay');
    worker = await server.token('cold-k', [Role.WORKER], 'worker-k');
    admin = await server.operatorToken();
  });

  it('is taken over from its checkpoint by another holder once its lease runs out, and the run counts what both moved', async () => {
    const call = (query: string, variables: Record<string, unknown>, as: string) => gql(server, query, variables, as);
    const projectId = (await call('mutation { createProject(input: { title: "Killed" }) { projectId } }', {}, editor)).createProject
      .projectId;
    const old: string[] = [];
    for (let i = 0; i < 3; i++) {
      const jobId = (
        await call(
          'mutation($i: CreateJobInput!) { createJob(input: $i) { jobId } }',
          { i: { projectId, kind: 'COLD', steps: ['solo'], idempotencyKey: `killed-${i}` } },
          editor,
        )
      ).createJob.jobId;
      await call('mutation($j: ID!) { startStep(jobId: $j, stepName: "solo") { seq } }', { j: jobId }, worker);
      await call('mutation($j: ID!) { completeStep(jobId: $j, stepName: "solo") { seq } }', { j: jobId }, worker);
      old.push(jobId);
    }
    later = 91 * DAY;

    // The first holder stops (as a killed one would: it completes nothing and keeps its lease)
    // once it exported its second job; the hook holds it there until the stop is under way.
    let exported = 0;
    let reached!: () => void;
    const atSecond = new Promise<void>((resolve) => (reached = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const first = secondInstance(server, clock, { intervalMs: 0, jobLeaseSeconds: LEASE_SECONDS }, async () => {
      if (++exported !== 2) return;
      reached();
      await released;
    });
    const firstRunner = first.runner;
    const jobId = await first.archive.start('operator');
    firstRunner.start();
    await atSecond;
    const stopping = stopOnPurpose(firstRunner);
    release();
    await stopping;
    expect(firstRunner.idle).toBe(true);
    // A repository per read: its reads are cached like a request's.
    const item = async () => (await systemJobsEnv(first.deps).systemJobs().items.page(String(jobId), 'move', { first: 1 })).nodes[0];
    const left = await item();
    expect(left).toMatchObject({ status: 'RUNNING', attempt: 1 });
    expect(left.checkpoint).toMatchObject({ phase: 'jobs', result: { jobs: 2, failed: 0 } });

    // The operator's command joins the run under way rather than starting one.
    const asked = Date.now();
    const joined = (await call('mutation { runArchive { jobId status } }', {}, admin)).runArchive;
    // With no holder to finish it, the wait ends within the request's budget, answering where the run stands.
    expect(Date.now() - asked).toBeLessThan(5000);
    expect(joined.jobId).toBe(jobId);
    expect(joined.status).toBe('RUNNING');

    // A second holder claims the item once the lease ran out (a new attempt) and finishes the run from the checkpoint.
    const second = secondInstance(server, clock, { intervalMs: 0, jobLeaseSeconds: LEASE_SECONDS });
    const secondRunner = second.runner;
    secondRunner.start();
    const deadline = Date.now() + 60_000;
    let outcome: Record<string, unknown> = joined;
    while (outcome.status !== 'COMPLETED') {
      if (Date.now() > deadline) throw new Error(`the run was not taken over within 60 s: ${JSON.stringify(outcome)}`);
      outcome = (
        await call('mutation($j: ID) { runArchive(jobId: $j) { jobId status jobs projects resumed failed } }', { j: jobId }, admin)
      ).runArchive;
    }
    // Three jobs moved: two by the first holder (carried in the checkpoint), one by the second.
    expect(outcome).toEqual({ jobId, status: 'COMPLETED', jobs: 3, projects: 0, resumed: 0, failed: 0 });
    expect(await item()).toMatchObject({ status: 'COMPLETED', attempt: 2 });
    // Each job exported once (its data and manifest) and gone from the table.
    for (const id of old) {
      expect((await objectsOf(server, `archive/tenants/cold-k/jobs/${id}`)).length).toBe(2);
      expect(await server.app.store.get({ PK: `TENANT#cold-k#JOB#${id}`, SK: 'JOB' })).toBeNull();
    }
    await stopOnPurpose(secondRunner);
    expect(secondRunner.idle).toBe(true);
    // The server's archive, which waited for the run, holds nothing once stopped.
    await stopOnPurpose(server);
    expect(server.app.archive.idle).toBe(true);
  }, 120_000);
});

/** A period no test crosses (2^40 ms, about 35 years): the schedule's period is the same throughout the file. */
const FAR_PERIOD = 2 ** 40;

/**
 * Another instance of the server's archive over `server`'s table and bucket: its starter
 * (ArchiveJobs) and its own system-job runner (started by the test when it wants one), which the
 * starter wakes as a server's does. `afterExport` is the test's hook between an export and its
 * removal. Both are stopped by the fixture registry after the file.
 */
function secondInstance(
  server: TestServer,
  now: () => Date,
  options: { intervalMs: number; jobLeaseSeconds?: number },
  afterExport?: () => Promise<void>,
) {
  const jobLeaseSeconds = options.jobLeaseSeconds ?? server.config.jobLeaseSeconds;
  const deps: ContextDeps = {
    store: server.app.store,
    eventRetentionDays: server.config.eventRetentionDays,
    jobLeaseSeconds,
    now,
    wakeSystemJobs: () => runner.wake(),
  };
  const env = systemJobsEnv(deps);
  const archiver = new Archiver(server.app.store, server.app.files, { afterDays: 90, fileLimits: server.config.files, now, afterExport });
  const archive = stoppedAfter('second archive instance', new ArchiveJobs(env, archiver, { intervalMs: options.intervalMs }));
  const runner = stoppedAfter(
    'second system-job runner',
    new SystemJobRunner(env.systemJobs, [archive.handler()], { slots: 1, idleMs: 100, leaseSeconds: jobLeaseSeconds }),
  );
  return { deps, archive, runner };
}

/** Runs one operation as `as` and answers its data, expecting no error. */
async function gql(server: TestServer, query: string, variables: Record<string, unknown>, as: string) {
  const res = await server.raw({ query, variables }, as);
  expect(res.body.errors).toBeUndefined();
  return res.body.data;
}

async function objectsOf(server: TestServer, prefix: string) {
  const listed = await server.app.files.client.send(new ListObjectsV2Command({ Bucket: server.config.s3.bucket, Prefix: prefix }));
  return listed.Contents ?? [];
}
