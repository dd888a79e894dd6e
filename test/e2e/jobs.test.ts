import {
  ApproveStepDocument,
  CancelJobDocument,
  CompleteStepDocument,
  CreateJobDocument,
  CreateProjectDocument,
  FailStepDocument,
  GetJobDocument,
  JobsAcrossTenantsDocument,
  JobsByStatusDocument,
  MyJobsDocument,
  PauseStepForReviewDocument,
  ProjectJobsDocument,
  RejectStepDocument,
  ReportStepProgressDocument,
  RetryJobDocument,
  StartStepDocument,
  StepsAwaitingReviewDocument,
} from '../../src/client/gql/graphql';
import { allPages, codeOf, dataOf, QUICK_OUTBOX_SWEEP, Role, STORES, startTestServer, type TestServer } from '../support/server';
import { JOB_PROGRESS, subscribe, wsClient, metricValue, eventually } from '../support/ws';
import { Client } from 'pg';
import { LISTEN_APPLICATION } from '../../src/infra/pubsub-postgres';
import { startTcpProxy } from '../support/tcp-proxy';
import { stopOnPurpose } from '../support/fixtures';

/**
 * The outbox backlog gauge read from the store at most every 100 ms instead of every 5 s
 * (METRICS_STORE_READ_MS): the tests that await it emptied waited out the production period.
 */
const CURRENT_BACKLOG = { METRICS_STORE_READ_MS: '100' };

const SEVEN = ['text-to-image', 'refine', '3d', 'retopo', 'rig', 'anim', 'export'];

describe.each(STORES)('jobs, steps and live progress, on %s', (store) => {
  let server: TestServer;
  let editor: string;
  let worker: string;
  let projectId: string;

  beforeAll(async () => {
    server = await startTestServer({ store, env: CURRENT_BACKLOG });
    editor = await server.token('studio', [Role.EDITOR], 'artist');
    worker = await server.token('studio', [Role.WORKER], 'gpu-worker');
    projectId = dataOf(await server.request(CreateProjectDocument, { input: { title: 'Robot' } }, editor)).createProject.projectId;
  });

  const createJob = async (steps: string[], extra: Record<string, unknown> = {}) =>
    dataOf(
      await server.request(
        CreateJobDocument,
        { input: { projectId, kind: '3D_CHARACTER', steps, inputs: { prompt: `robot ${Math.random()}` }, ...extra } },
        editor,
      ),
    ).createJob;

  it('shows a 7-step job driven by a worker to a subscriber in order, with no gap', async () => {
    const job = await createJob(SEVEN);
    expect(job).toMatchObject({ status: 'QUEUED', seq: 1, currentStep: 'text-to-image' });
    const client = wsClient(server.url, editor);
    const sub = subscribe(client, JOB_PROGRESS, { jobId: job.jobId, afterSeq: 0 });
    for (const name of SEVEN) {
      await server.request(StartStepDocument, { jobId: job.jobId, stepName: name }, worker);
      await server.request(ReportStepProgressDocument, { jobId: job.jobId, stepName: name, progress: 0.5 }, worker);
      await server.request(
        CompleteStepDocument,
        { jobId: job.jobId, stepName: name, artifacts: [`tenants/studio/jobs/${job.jobId}/${name}.bin`], metrics: { ms: 10 } },
        worker,
      );
    }
    const events = await sub.waitFor(1 + 3 * SEVEN.length);
    expect(events.map((e) => e.seq)).toEqual(Array.from({ length: 22 }, (_, i) => i + 1));
    expect(events.every((e) => e.prevSeq === e.seq - 1)).toBe(true);
    expect(events[0].type).toBe('JOB_CREATED');
    expect(events.slice(1, 4).map((e) => e.type)).toEqual(['STEP_STARTED', 'STEP_PROGRESS', 'STEP_COMPLETED']);
    expect(events[events.length - 1].job).toMatchObject({ status: 'COMPLETED', progress: 1, completedSteps: 7, currentStep: null });
    expect(events.filter((e) => e.type === 'STEP_COMPLETED').map((e) => e.step.name)).toEqual(SEVEN);
    expect(events.find((e) => e.type === 'STEP_PROGRESS' && e.step.name === 'rig')!.job.progress).toBeCloseTo(4.5 / 7, 3);
    const final = dataOf(await server.request(GetJobDocument, { jobId: job.jobId }, editor)).job!;
    expect(final).toMatchObject({ status: 'COMPLETED', seq: 22, version: 22, completedSteps: 7 });
    expect(final.steps.map((s) => s.artifacts[0])).toEqual(SEVEN.map((n) => `tenants/studio/jobs/${job.jobId}/${n}.bin`));
    expect(final.finishedAt).toEqual(expect.any(String));
  });

  it('lets a person approve a paused step, and reject one, which fails the job until retried', async () => {
    const approved = await createJob(['render', 'upscale']);
    await server.request(StartStepDocument, { jobId: approved.jobId, stepName: 'render' }, worker);
    expect(
      dataOf(await server.request(PauseStepForReviewDocument, { jobId: approved.jobId, stepName: 'render' }, worker)).pauseStepForReview
        .status,
    ).toBe('PAUSED');
    const review = dataOf(await server.request(StepsAwaitingReviewDocument, { first: 100 }, editor)).stepsAwaitingReview.nodes;
    expect(review).toContainEqual(expect.objectContaining({ jobId: approved.jobId, name: 'render', attempt: 1, status: 'PAUSED' }));
    // A worker may not approve its own step.
    expect(codeOf(await server.request(ApproveStepDocument, { jobId: approved.jobId, stepName: 'render' }, worker))).toBe('FORBIDDEN');
    const after = dataOf(await server.request(ApproveStepDocument, { jobId: approved.jobId, stepName: 'render' }, editor)).approveStep;
    expect(after).toMatchObject({ status: 'RUNNING', currentStep: 'upscale', completedSteps: 1 });
    const approvedStep = dataOf(await server.request(GetJobDocument, { jobId: approved.jobId }, editor)).job!.steps[0];
    expect(approvedStep).toMatchObject({ status: 'COMPLETED', approvedBy: 'artist', decidedAt: expect.any(String) });
    expect(
      dataOf(await server.request(StepsAwaitingReviewDocument, {}, editor)).stepsAwaitingReview.nodes.map((s) => s.jobId),
    ).not.toContain(approved.jobId);

    const rejected = await createJob(['render', 'upscale']);
    await server.request(StartStepDocument, { jobId: rejected.jobId, stepName: 'render' }, worker);
    await server.request(PauseStepForReviewDocument, { jobId: rejected.jobId, stepName: 'render' }, worker);
    const failed = dataOf(
      await server.request(RejectStepDocument, { jobId: rejected.jobId, stepName: 'render', reason: 'wrong style' }, editor),
    ).rejectStep;
    expect(failed).toMatchObject({ status: 'FAILED', error: { code: 'REJECTED', message: 'wrong style' } });
    expect(
      (await server.request(StartStepDocument, { jobId: rejected.jobId, stepName: 'upscale' }, worker)).errors?.[0].extensions,
    ).toMatchObject({ code: 'INVALID_TRANSITION', from: 'FAILED' });
    const retried = dataOf(await server.request(RetryJobDocument, { jobId: rejected.jobId }, editor)).retryJob;
    expect(retried).toMatchObject({ status: 'RUNNING', currentStep: 'render' });
    expect(retried.steps.filter((s) => s.name === 'render').map((s) => [s.attempt, s.status])).toEqual([
      [1, 'FAILED'],
      [2, 'PENDING'],
    ]);
  });

  it('retries a failed step while attempts remain, then fails the job with its error and retry count', async () => {
    const job = await createJob(['encode'], { maxAttempts: 2 });
    await server.request(StartStepDocument, { jobId: job.jobId, stepName: 'encode' }, worker);
    const first = dataOf(
      await server.request(FailStepDocument, { jobId: job.jobId, stepName: 'encode', code: 'GPU_OOM', message: 'out of memory' }, worker),
    ).failStep;
    expect(first).toMatchObject({ status: 'RUNNING', failedSteps: 0, error: { code: 'GPU_OOM', retryCount: 0 } });
    await server.request(StartStepDocument, { jobId: job.jobId, stepName: 'encode' }, worker);
    const second = dataOf(
      await server.request(FailStepDocument, { jobId: job.jobId, stepName: 'encode', code: 'GPU_OOM', message: 'again' }, worker),
    ).failStep;
    expect(second).toMatchObject({ status: 'FAILED', failedSteps: 1, error: { code: 'GPU_OOM', message: 'again', retryCount: 1 } });
    const read = dataOf(await server.request(GetJobDocument, { jobId: job.jobId }, editor)).job!;
    expect(read.steps.map((s) => [s.attempt, s.status, s.error?.message])).toEqual([
      [1, 'FAILED', 'out of memory'],
      [2, 'FAILED', 'again'],
    ]);
    expect(dataOf(await server.request(RetryJobDocument, { jobId: job.jobId }, editor)).retryJob.steps.map((s) => s.attempt)).toEqual([
      1, 2, 3,
    ]);
  });

  it('cancels a job, skipping its pending steps, and refuses illegal moves with from and to', async () => {
    const job = await createJob(['a', 'b', 'c']);
    expect((await server.request(StartStepDocument, { jobId: job.jobId, stepName: 'b' }, worker)).errors?.[0].extensions).toMatchObject({
      code: 'INVALID_TRANSITION',
    });
    await server.request(StartStepDocument, { jobId: job.jobId, stepName: 'a' }, worker);
    expect(
      (await server.request(ReportStepProgressDocument, { jobId: job.jobId, stepName: 'a', progress: 1.5 }, worker)).errors?.[0].extensions
        ?.code,
    ).toBe('BAD_USER_INPUT');
    const cancelled = dataOf(await server.request(CancelJobDocument, { jobId: job.jobId }, editor)).cancelJob;
    expect(cancelled.status).toBe('CANCELLED');
    expect(cancelled.steps.map((s) => s.status)).toEqual(['RUNNING', 'SKIPPED', 'SKIPPED']);
    // A worker still on the cancelled job is told so with a code of its own, so it can drop the work.
    expect((await server.request(CompleteStepDocument, { jobId: job.jobId, stepName: 'a' }, worker)).errors?.[0].extensions).toMatchObject({
      code: 'JOB_CANCELLED',
      jobId: job.jobId,
      cancelledAt: expect.any(String),
    });
    expect((await server.request(CancelJobDocument, { jobId: job.jobId }, editor)).errors?.[0].extensions).toMatchObject({
      code: 'INVALID_TRANSITION',
      from: 'CANCELLED',
      to: 'CANCELLED',
    });
  });

  it('refuses step artifacts that are not plain keys of the tenant', async () => {
    const job = await createJob(['x']);
    await server.request(StartStepDocument, { jobId: job.jobId, stepName: 'x' }, worker);
    const r = await server.request(CompleteStepDocument, { jobId: job.jobId, stepName: 'x', artifacts: ['s3://bucket/out.png'] }, worker);
    expect(r.errors?.[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', rule: 'url' });
  });

  it('delivers all 100 events committed while a subscriber was away, once each and in order, after it resubscribes', async () => {
    const job = await createJob(['long-render']);
    await server.request(StartStepDocument, { jobId: job.jobId, stepName: 'long-render' }, worker);
    const first = wsClient(server.url, editor);
    const before = subscribe(first, JOB_PROGRESS, { jobId: job.jobId, afterSeq: 2 });
    await server.request(ReportStepProgressDocument, { jobId: job.jobId, stepName: 'long-render', progress: 0.001 }, worker);
    const [seen] = await before.waitFor(1);
    expect(seen.seq).toBe(3);
    await first.dispose();

    for (let i = 1; i <= 100; i++) {
      await server.request(ReportStepProgressDocument, { jobId: job.jobId, stepName: 'long-render', progress: i / 101 }, worker);
    }
    const second = wsClient(server.url, editor);
    const after = subscribe(second, JOB_PROGRESS, { jobId: job.jobId, afterSeq: seen.seq });
    const events = await after.waitFor(100);
    // A few more live events after the replay: no duplicates, no gaps.
    for (let i = 0; i < 3; i++)
      await server.request(ReportStepProgressDocument, { jobId: job.jobId, stepName: 'long-render', progress: 0.995 }, worker);
    await after.waitFor(103);
    expect(after.received.map((e) => e.seq)).toEqual(Array.from({ length: 103 }, (_, i) => seen.seq + 1 + i));
    expect(events.slice(0, 100).map((e) => e.step.progress)).toEqual(Array.from({ length: 100 }, (_, i) => (i + 1) / 101));
  });

  it('creates one job for 100 concurrent duplicate createJob calls, returns it to all of them, and refuses a client key used again with other arguments', async () => {
    const input = {
      projectId,
      kind: 'MUSIC_VIDEO',
      steps: ['scene-1', 'scene-2'],
      inputs: { song: 'x', scenes: 2 },
      seed: '42',
      modelVersion: 'v3',
    };
    const results = await Promise.all(Array.from({ length: 100 }, () => server.request(CreateJobDocument, { input }, editor)));
    const ids = new Set(results.map((r) => dataOf(r).createJob.jobId));
    expect(ids.size).toBe(1);
    const listed = await allPages(
      async (after) => dataOf(await server.request(ProjectJobsDocument, { projectId, first: 100, after }, editor)).jobs,
    );
    expect(listed.nodes.filter((j) => j.kind === 'MUSIC_VIDEO')).toHaveLength(1);
    // Another seed is another job; the same client key with the same arguments is the same job
    // (a null where a field was omitted is the same request).
    const other = dataOf(await server.request(CreateJobDocument, { input: { ...input, seed: '43' } }, editor)).createJob.jobId;
    expect(ids.has(other)).toBe(false);
    const keyed = await Promise.all([
      server.request(CreateJobDocument, { input: { ...input, inputs: { n: 1 }, idempotencyKey: 'order-77' } }, editor),
      server.request(CreateJobDocument, { input: { ...input, inputs: { n: 1 }, idempotencyKey: 'order-77', provider: null } }, editor),
    ]);
    expect(dataOf(keyed[0]).createJob.jobId).toBe(dataOf(keyed[1]).createJob.jobId);
    // The key with other arguments is refused, as every other create refuses it, and makes nothing.
    const reused = await server.request(CreateJobDocument, { input: { ...input, inputs: { n: 2 }, idempotencyKey: 'order-77' } }, editor);
    expect(reused.errors?.[0]).toMatchObject({
      message: expect.stringContaining('idempotencyKey "order-77" was used for another request'),
      extensions: { code: 'IDEMPOTENCY_KEY_REUSED', field: 'idempotencyKey' },
    });
    // Two requests with one key and other arguments at once: one makes its job, the other is refused.
    const racing = await Promise.all(
      [3, 4].map((n) => server.request(CreateJobDocument, { input: { ...input, inputs: { n }, idempotencyKey: 'order-78' } }, editor)),
    );
    expect(racing.map((r) => (r.errors ? codeOf(r) : 'created')).sort()).toEqual(['IDEMPOTENCY_KEY_REUSED', 'created']);
    const jobs = await allPages(
      async (after) => dataOf(await server.request(ProjectJobsDocument, { projectId, first: 100, after }, editor)).jobs,
    );
    expect(jobs.nodes.filter((j) => j.kind === 'MUSIC_VIDEO')).toHaveLength(4);
  });

  it('lets exactly one of 20 concurrent completeStep calls on one step succeed', async () => {
    const job = await createJob(['one', 'two']);
    await server.request(StartStepDocument, { jobId: job.jobId, stepName: 'one' }, worker);
    const results = await Promise.all(
      Array.from({ length: 20 }, () => server.request(CompleteStepDocument, { jobId: job.jobId, stepName: 'one' }, worker)),
    );
    expect(results.filter((r) => r.data?.completeStep)).toHaveLength(1);
    expect(results.filter((r) => r.errors).map((r) => r.errors![0].extensions)).toEqual(
      Array(19).fill(expect.objectContaining({ code: 'INVALID_TRANSITION', from: 'COMPLETED', to: 'COMPLETED' })),
    );
    const read = dataOf(await server.request(GetJobDocument, { jobId: job.jobId }, editor)).job!;
    expect(read).toMatchObject({ completedSteps: 1, currentStep: 'two', seq: 3 });
  });

  it("lists a project's jobs, jobs by status, the caller's history newest first, and — for admins — all tenants' jobs by status", async () => {
    const other = await server.token('other-studio', [Role.EDITOR], 'someone');
    const otherProject = dataOf(await server.request(CreateProjectDocument, { input: { title: 'Other' } }, other)).createProject.projectId;
    const theirs = dataOf(
      await server.request(CreateJobDocument, { input: { projectId: otherProject, kind: 'PHOTO_EDIT', steps: ['edit'] } }, other),
    ).createJob.jobId;
    const mine = [await createJob(['p']), await createJob(['q'])].map((j) => j.jobId);
    const history = dataOf(await server.request(MyJobsDocument, { first: 2 }, editor)).myJobs.nodes;
    expect(history.map((j) => j.jobId)).toEqual([mine[1], mine[0]]);
    expect(history.every((j) => j.createdBy === 'artist')).toBe(true);
    const queued = await allPages(
      async (after) => dataOf(await server.request(JobsByStatusDocument, { status: 'QUEUED', first: 3, after }, editor)).jobsByStatus,
    );
    expect(queued.nodes.map((j) => j.jobId)).toEqual(expect.arrayContaining(mine));
    expect(queued.nodes.map((j) => j.jobId)).not.toContain(theirs);

    expect(codeOf(await server.request(JobsAcrossTenantsDocument, { status: 'QUEUED' }, editor))).toBe('FORBIDDEN');
    const admin = await server.operatorToken();
    const across = await allPages(
      async (after) =>
        dataOf(await server.request(JobsAcrossTenantsDocument, { status: 'QUEUED', first: 2, after }, admin)).jobsAcrossTenants,
    );
    const ids = across.nodes.map((j) => j.jobId);
    expect(ids).toEqual(expect.arrayContaining([...mine, theirs]));
    expect(new Set(ids).size).toBe(ids.length);
    const times = across.nodes.map((j) => j.updatedAt);
    expect([...times].sort().reverse()).toEqual(times);
  });

  // PostgreSQL's own: without Redis, instances on one PostgreSQL carry events through LISTEN/NOTIFY.
  // On DynamoDB the bus between instances is Redis (redis.test.ts); without it, there is none.
  if (store === 'postgres')
    it('carries events to a second instance on the same PostgreSQL without Redis, in order and once, also across a killed LISTEN connection', async () => {
      const settings = server.config.postgres!;
      expect(server.config.redisUrl).toBeUndefined();
      // The second instance reaches PostgreSQL through a proxy, so that its LISTEN connection can be
      // kept from coming back while events are published (the proxy refuses new connections).
      const proxy = await startTcpProxy(`http://${new URL(settings.url).host}`);
      const viaProxy = new URL(settings.url);
      viaProxy.port = new URL(proxy.url).port;
      // Without the owner's connection it checks the schema the first one applied.
      const two = await startTestServer({ store, env: { DATABASE_URL: viaProxy.toString() } });
      const job = await createJob(['a', 'b', 'c', 'd']);
      const sub = subscribe(wsClient(two.url, editor), JOB_PROGRESS, { jobId: job.jobId, afterSeq: 1 });
      await sub.ack;
      const run = async (step: string, metrics?: Record<string, unknown>) => {
        dataOf(await server.request(StartStepDocument, { jobId: job.jobId, stepName: step }, worker));
        dataOf(await server.request(CompleteStepDocument, { jobId: job.jobId, stepName: step, metrics }, worker));
      };
      await run('a');
      // An event too large for a notification (8000 bytes) goes as a hint: the subscriber reads it from the store.
      await run('b', { log: 'x'.repeat(9000) });
      expect((await sub.waitFor(4)).map((e) => [e.seq, e.type])).toEqual([
        [2, 'STEP_STARTED'],
        [3, 'STEP_COMPLETED'],
        [4, 'STEP_STARTED'],
        [5, 'STEP_COMPLETED'],
      ]);

      // Every LISTEN connection killed; the first instance's comes back, the second's cannot yet.
      proxy.refuse(true);
      const app = new Client({ connectionString: settings.url });
      await app.connect();
      try {
        // This file's database only: the run's other files have servers on the same cluster.
        const listening = async () =>
          (
            await app.query('SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND datname = current_database()', [
              LISTEN_APPLICATION,
            ])
          ).rows.map((r) => r.pid);
        const killed = await listening();
        expect(killed).toHaveLength(2);
        await app.query('SELECT pg_terminate_backend(pid) FROM unnest($1::int[]) AS pid', [killed]);
        await eventually(listening, (pids) => pids.length === 1 && !killed.includes(pids[0]), 10_000);
        // Published while the second instance listens to nothing: every notification of these is lost to it.
        await run('c');
        await run('d');
        await eventually(
          () => metricValue(server.url, 'artissist_outbox_backlog'),
          (n) => n === 0,
          10_000,
        );
        expect(sub.received).toHaveLength(4);
        proxy.refuse(false);
        // Its next connection LISTENs, then the subscriber reads what it missed from the stream's positions.
        await sub.waitFor(8);
        await sub.done;
        expect(sub.received.map((e) => e.seq)).toEqual([2, 3, 4, 5, 6, 7, 8, 9]);
        expect(sub.received.at(-1)!.job.status).toBe('COMPLETED');

        // Stopped, the second instance holds no LISTEN connection: by its own count, and by PostgreSQL's.
        await eventually(listening, (pids) => pids.length === 2, 10_000);
        expect(two.app.held().bus_connections).toBe(1);
        await stopOnPurpose(two);
        expect(two.app.held()).toEqual({ lease_watches: 0, bound_workers: 0, rate_draws: 0, rate_sockets: 0, bus_connections: 0 });
        await eventually(listening, (pids) => pids.length === 1, 10_000);
        expect(server.app.held().bus_connections).toBe(1);
      } finally {
        await app.end();
      }
    });
});

// With a server of its own, whose publishes of chosen events fail.
describe.each(STORES)('the outbox sweeper, on %s', (store) => {
  let server: TestServer;
  let editor: string;
  let worker: string;
  let projectId: string;
  // Events of one job whose publish is made to fail, as if the process died between commit and publish.
  const lostEvents = new Set<string>();

  beforeAll(async () => {
    server = await startTestServer({
      store,
      env: { ...QUICK_OUTBOX_SWEEP, ...CURRENT_BACKLOG },
      failPublish: (event) => lostEvents.has(event.eventId),
    });
    editor = await server.token('studio', [Role.EDITOR], 'artist');
    worker = await server.token('studio', [Role.WORKER], 'gpu-worker');
    projectId = dataOf(await server.request(CreateProjectDocument, { input: { title: 'Robot' } }, editor)).createProject.projectId;
  });

  const createJob = async (steps: string[]) =>
    dataOf(
      await server.request(CreateJobDocument, { input: { projectId, kind: '3D_CHARACTER', steps, inputs: { prompt: 'robot' } } }, editor),
    ).createJob;

  it('delivers an event whose publish failed after commit through the sweeper, once', async () => {
    const job = await createJob(['crashy']);
    const client = wsClient(server.url, editor);
    const sub = subscribe(client, JOB_PROGRESS, { jobId: job.jobId, afterSeq: 1 });
    // Subscribed (acknowledged) before the event whose publish fails is written.
    await sub.ack;
    lostEvents.add(`${job.jobId}:2`);
    await server.request(StartStepDocument, { jobId: job.jobId, stepName: 'crashy' }, worker);
    // The sweeper (every 200 ms, for events older than 300 ms) publishes it.
    const [event] = await sub.waitFor(1, 5_000);
    expect(event).toMatchObject({ seq: 2, type: 'STEP_STARTED' });
    // Once the sweep has taken it out of the outbox, nothing is left for a sweep to publish again,
    // and the next event of the stream comes after the swept one with no second copy between them.
    await eventually(
      () => metricValue(server.url, 'artissist_outbox_backlog'),
      (n) => n === 0,
    );
    expect(await server.app.outbox.sweep()).toBe(0);
    await server.request(ReportStepProgressDocument, { jobId: job.jobId, stepName: 'crashy', progress: 0.5 }, worker);
    await sub.waitFor(2, 5_000);
    expect(sub.received.map((e) => e.seq)).toEqual([2, 3]);
  });
});
