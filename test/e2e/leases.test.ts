import { entities } from '../../src/common/entities';
import { claimReadStats, itemWriteStats, keptJobStates, openQueues } from '../../src/job/job.aggregate';
import { stopOnPurpose } from '../support/fixtures';
import { Role, STORES, startTestServer, type TestServer } from '../support/server';

/** Worker leases and claiming (claimWork): exactly-once hand-out, renewal, take-over after a lease runs out, attempts. */
describe.each(STORES)('claiming work with leases, on %s', (store) => {
  /** A lease long enough that none runs out in a test (the claim storm on a busy machine takes seconds), and a short one. */
  let longLease: TestServer;
  let shortLease: TestServer;
  let server: TestServer;
  let editor: string;
  let projectId: string;
  const LEASE_SECONDS = 2;
  const gql = async (token: string, query: string, variables: Record<string, unknown> = {}) =>
    (await server.raw({ query, variables }, token)).body;
  const workerToken = (n: number) => server.token('lease-co', [Role.WORKER], `worker-${n}`);
  const STEP = 'name attempt status worker leaseExpiresAt error { code }';
  const claim = async (token: string, kind?: string) =>
    (await gql(token, `mutation($k: String) { claimWork(kind: $k) { job { jobId status version } step { ${STEP} } } }`, { k: kind })).data
      .claimWork;
  const createJob = async (kind: string, steps: string[], maxAttempts = 3) =>
    (
      await gql(editor, 'mutation($input: CreateJobInput!) { createJob(input: $input) { jobId } }', {
        input: { projectId, kind, steps, maxAttempts, inputs: { n: Math.random() } },
      })
    ).data.createJob.jobId;
  const jobOf = async (jobId: string) =>
    (await gql(editor, `query($j: ID!) { job(jobId: $j) { status version error { code } steps { ${STEP} } } }`, { j: jobId })).data.job;
  /** A new BATCH job of 50 items (the most createJob takes). */
  const batchJob = async (): Promise<string> =>
    (
      await gql(editor, 'mutation($input: CreateJobInput!) { createJob(input: $input) { jobId } }', {
        input: {
          projectId,
          kind: 'BATCH',
          inputs: { label: String(Math.random()) },
          items: Array.from({ length: 50 }, (_, i) => ({ source: `tenants/lease-co/in/${i}.png` })),
        },
      })
    ).data.createJob.jobId;
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  /** How far the short-lease server's clock is ahead of the wall clock: a lease runs out when a test moves it on. */
  let clockAhead = 0;

  /** Points the helpers at one of the two servers, with a project of its own. */
  const use = async (target: TestServer) => {
    server = target;
    editor = await server.token('lease-co', [Role.EDITOR], 'artist');
    projectId = (await gql(editor, 'mutation { createProject(input: { title: "Leases" }) { projectId } }')).data.createProject.projectId;
  };

  beforeAll(async () => {
    [longLease, shortLease] = await Promise.all([
      startTestServer({ store, env: { JOB_LEASE_SECONDS: '600' } }),
      // Its requests' clock runs ahead when a test lets a lease run out, instead of the test waiting for it.
      startTestServer({ store, env: { JOB_LEASE_SECONDS: String(LEASE_SECONDS) }, now: () => new Date(Date.now() + clockAhead) }),
    ]);
  });

  it('hands each of 10 waiting steps to exactly one of 50 workers asking at once, and nothing to the rest', async () => {
    await use(longLease);
    const kind = `BATCH_${Date.now()}`;
    const jobIds = await Promise.all(Array.from({ length: 10 }, () => createJob(kind, ['render'])));
    const tokens = await Promise.all(Array.from({ length: 50 }, (_, n) => workerToken(n)));
    const claims = await Promise.all(tokens.map((token) => claim(token, kind)));
    const won = claims.filter((c) => c !== null);
    expect(won).toHaveLength(10);
    expect(new Set(won.map((c) => c.job.jobId))).toEqual(new Set(jobIds));
    for (const c of won) expect(c.step).toMatchObject({ name: 'render', attempt: 1, status: 'RUNNING' });
    // Each job was claimed once: created at version 1, claimed at version 2.
    for (const jobId of jobIds) expect((await jobOf(jobId)).version).toBe(2);
    expect(await claim(tokens[0], kind)).toBeNull();
  }, 180_000);

  it("hands 40 workers asking at once 40 different items of one job, its group reading the job's claimable items once for all its claims", async () => {
    await use(longLease);
    const jobId = await batchJob();
    const tokens = await Promise.all(Array.from({ length: 40 }, (_, n) => workerToken(100 + n)));
    const groupsBefore = itemWriteStats.batches;
    // Watches (and passes on) the store's Queries, to count those of this job's claimable items.
    const index = entities.WorkItem.query('lease-co', 'claimableInJob', { jobId });
    const queries = jest.spyOn(server.app.store, 'queryFirst');
    const claims = await Promise.all(
      tokens.map(
        async (token) =>
          (await gql(token, 'mutation { claimWork(kind: "BATCH", stage: "process") { job { jobId } item { sequence } } }')).data.claimWork,
      ),
    );
    expect(claims.map((c) => c.job.jobId)).toEqual(Array(40).fill(jobId));
    expect(new Set(claims.map((c) => c.item.sequence)).size).toBe(40);
    // Each claimWork reads its tenant's claimable index once (which names the job); the job's own
    // claimable items are read once a group, however many claims the group holds.
    const groups = itemWriteStats.batches - groupsBefore;
    const ofJob = queries.mock.calls.filter(([spec]) => spec.index === index.index && spec.pk === index.pk).length;
    expect(groups).toBeLessThan(40);
    expect(ofJob).toBeGreaterThan(0);
    expect(ofJob).toBeLessThanOrEqual(groups);
    queries.mockRestore();
  }, 180_000);

  it("lets a busy job's next groups take the candidates the group before them read and left, each item still completed once", async () => {
    await use(longLease);
    const jobId = await batchJob();
    const tokens = await Promise.all(Array.from({ length: 20 }, (_, n) => workerToken(200 + n)));
    const added = await gql(
      tokens[0],
      'mutation($j: ID!, $i: [JSONObject!]!) { addWorkItems(jobId: $j, stage: "process", items: $i) { jobId } }',
      {
        j: jobId,
        i: Array.from({ length: 50 }, (_, i) => ({ source: `tenants/lease-co/in/${50 + i}.png` })),
      },
    );
    expect(added.errors).toBeUndefined();
    const before = { ...claimReadStats };
    const completed: number[] = [];
    // Twenty workers claim and complete 100 items until nothing is left: the job's queue stays busy, so each
    // group decides on the state the last one left (carryOf), candidates included.
    await Promise.all(
      tokens.map(async (token) => {
        for (;;) {
          const claimed = (
            await gql(token, 'mutation { claimWork(kind: "BATCH", stage: "process") { job { jobId } item { sequence attempt } } }')
          ).data.claimWork;
          if (!claimed) return;
          const done = await gql(
            token,
            'mutation($j: ID!, $n: Int!, $a: Int!, $o: JSONObject!) { completeWorkItem(jobId: $j, stage: "process", sequence: $n, attempt: $a, outputs: $o) { status } }',
            {
              j: claimed.job.jobId,
              n: claimed.item.sequence,
              a: claimed.item.attempt,
              o: { result: `tenants/lease-co/out/${claimed.item.sequence}.png` },
            },
          );
          expect(done.errors).toBeUndefined();
          // The tenant's other BATCH jobs (earlier cases') are worked off too, older first.
          if (claimed.job.jobId === jobId) completed.push(claimed.item.sequence);
        }
      }),
    );
    expect(completed.sort((a, b) => a - b)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
    expect((await gql(editor, 'query($j: ID!) { job(jobId: $j) { status } }', { j: jobId })).data.job.status).toBe('COMPLETED');
    // Without the carried candidates every group that holds a claim reads the job's index.
    const groups = claimReadStats.groupsWithClaims - before.groupsWithClaims;
    const reads = claimReadStats.indexReads - before.indexReads;
    expect(reads).toBeGreaterThan(0);
    expect(reads).toBeLessThan(groups);
  }, 180_000);

  it("keeps a busy job's state between one worker's calls, though its queue drains after each, and drops it at shutdown", async () => {
    // A server of its own, to be stopped here.
    const own = await startTestServer({ store, env: { JOB_LEASE_SECONDS: '600' } });
    await use(own);
    const jobId = await batchJob();
    const token = await workerToken(300);
    const before = { ...claimReadStats };
    // One worker, one call at a time: the job's queue drains after each of them.
    for (let n = 0; n < 10; n++) {
      const claimed = (
        await gql(token, 'mutation { claimWork(kind: "BATCH", stage: "process") { job { jobId } item { sequence attempt } } }')
      ).data.claimWork;
      expect(claimed.job.jobId).toBe(jobId);
      const done = await gql(
        token,
        'mutation($j: ID!, $n: Int!, $a: Int!, $o: JSONObject!) { completeWorkItem(jobId: $j, stage: "process", sequence: $n, attempt: $a, outputs: $o) { status } }',
        { j: jobId, n: claimed.item.sequence, a: claimed.item.attempt, o: { result: 'tenants/lease-co/out/x.png' } },
      );
      expect(done.data.completeWorkItem.status).toBe('COMPLETED');
      expect(openQueues(own.app.store)).toBe(0);
      expect(keptJobStates(own.app.store)).toBe(1);
    }
    // Ten claims, each in a group of its own; the first read 40 candidates, which serve the rest
    // (a state is kept for 5 s: a gap longer than that on a loaded machine reads again).
    expect(claimReadStats.groupsWithClaims - before.groupsWithClaims).toBe(10);
    expect(claimReadStats.indexReads - before.indexReads).toBeLessThanOrEqual(3);
    await stopOnPurpose(own.app);
    expect(keptJobStates(own.app.store)).toBe(0);
  });

  it('hands out work created right after a claim found none', async () => {
    await use(longLease);
    const kind = `FRESH_${Date.now()}`;
    const token = await workerToken(1);
    // A claim that found nothing must not keep the next one from work created since (a cached
    // view of the claimable index, say): the job created next is handed out at once, each time.
    for (let n = 0; n < 3; n++) {
      expect(await claim(token, kind)).toBeNull();
      const jobId = await createJob(kind, ['render']);
      expect(await claim(token, kind)).toMatchObject({ job: { jobId }, step: { name: 'render', attempt: 1, status: 'RUNNING' } });
    }
  });

  it("hands a worker the oldest job's work first, in every round (docs/api.md, docs/pipelines.md)", async () => {
    await use(longLease);
    const kind = `ORDER_${Date.now()}`;
    const token = await workerToken(1);
    // Three waiting jobs a round: the worker gets them in the order they were created, 8 rounds
    // out of 8 (a random start in the candidates handed a later job's out first in 3 of 8).
    for (let round = 0; round < 8; round++) {
      const jobIds = [];
      for (let n = 0; n < 3; n++) jobIds.push(await createJob(kind, ['refine']));
      const handed = [];
      for (let n = 0; n < 3; n++) handed.push((await claim(token, kind)).job.jobId);
      expect({ round, handed }).toEqual({ round, handed: jobIds });
    }
  });

  it('renews the lease on every progress report, and hands a held step to nobody else', async () => {
    await use(longLease);
    const kind = `RENEW_${Date.now()}`;
    const jobId = await createJob(kind, ['render']);
    const worker = await workerToken(100);
    const first = await claim(worker, kind);
    expect(first.job.jobId).toBe(jobId);
    expect(await claim(await workerToken(101), kind)).toBeNull();
    // Part of the scenario: the report comes a moment after the claim, so that a lease it renewed
    // ends later than the claim's (both are the clock's time plus the lease, in milliseconds).
    await sleep(20);
    const reported = await gql(
      worker,
      'mutation($j: ID!) { reportStepProgress(jobId: $j, stepName: "render", progress: 0.5, attempt: 1) { steps { leaseExpiresAt } } }',
      {
        j: jobId,
      },
    );
    const renewed = reported.data.reportStepProgress.steps[0].leaseExpiresAt;
    expect(Date.parse(renewed)).toBeGreaterThan(Date.parse(first.step.leaseExpiresAt));
  });

  it('takes a step over as a new attempt when its worker stops reporting, refuses the old worker, and fails the job past its attempts', async () => {
    await use(shortLease);
    const kind = `CRASH_${Date.now()}`;
    const jobId = await createJob(kind, ['render'], 2);
    const crashed = await workerToken(200);
    const rescuer = await workerToken(201);
    const first = await claim(crashed, kind);
    expect(first.step).toMatchObject({ attempt: 1, worker: 'worker-200' });
    clockAhead += LEASE_SECONDS * 1000 + 300;

    const second = await claim(rescuer, kind);
    expect(second.step).toMatchObject({ name: 'render', attempt: 2, status: 'RUNNING', worker: 'worker-201' });
    const afterTakeOver = await jobOf(jobId);
    expect(
      afterTakeOver.steps.map((s: { attempt: number; status: string; error: { code: string } | null }) => [
        s.attempt,
        s.status,
        s.error?.code,
      ]),
    ).toEqual([
      [1, 'FAILED', 'LEASE_EXPIRED'],
      [2, 'RUNNING', undefined],
    ]);

    // The crashed worker comes back: its late completion is refused, naming the attempt that runs now, and changes nothing.
    const late = await gql(crashed, 'mutation($j: ID!) { completeStep(jobId: $j, stepName: "render", attempt: 1) { status } }', {
      j: jobId,
    });
    expect(late.errors[0].extensions).toMatchObject({ code: 'INVALID_TRANSITION', from: 'at attempt 2' });
    expect((await jobOf(jobId)).version).toBe(afterTakeOver.version);

    // The second worker stops too: with no attempts left, the next claim fails the job and hands out nothing.
    clockAhead += LEASE_SECONDS * 1000 + 300;
    expect(await claim(await workerToken(202), kind)).toBeNull();
    expect(await jobOf(jobId)).toMatchObject({ status: 'FAILED', error: { code: 'LEASE_EXPIRED' } });
  });

  it("records the take-over in the job's gapless stream as STEP_RECLAIMED with the new attempt", async () => {
    await use(shortLease);
    const kind = `STREAM_${Date.now()}`;
    const jobId = await createJob(kind, ['render']);
    await claim(await workerToken(300), kind);
    clockAhead += LEASE_SECONDS * 1000 + 300;
    await claim(await workerToken(301), kind);
    const job = await gql(editor, 'query($j: ID!) { job(jobId: $j) { seq } }', { j: jobId });
    expect(job.data.job.seq).toBe(3);
    // The job's stream as stored, read through the server's own store.
    const events = entities.JobEvent.itemsOf(await server.app.store.queryAll(entities.JobEvent.key.prefixOf('lease-co', { jobId })));
    expect(events.map((e) => [e.seq, e.type, e.step && 'attempt' in e.step ? e.step.attempt : undefined])).toEqual([
      [1, 'JOB_CREATED', undefined],
      [2, 'STEP_STARTED', 1],
      [3, 'STEP_RECLAIMED', 2],
    ]);
  });
});
