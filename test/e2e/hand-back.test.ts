import { signDevToken } from '../../src/auth/jwt';
import { BoundTenant } from '../../src/common/bound-tenant';
import { committerOf } from '../../src/infra/dynamo/committer';
import { JOB_AGGREGATE, jobQueueId } from '../../src/job/job.aggregate';
import type { JobGroup } from '../../src/job/job.decider';
import { JOB_KINDS } from '../../src/job/job.kinds';
import { restoredAfter } from '../support/fixtures';
import { Role, startTestServer, TEST_SECRET, type TestServer } from '../support/server';
import { waitFor } from '../support/wait';
import { batchJob, gqlAs, PYTHON_WORKER, startWorker } from '../support/worker-process';
import { subscribe, wsClient } from '../support/ws';

// A single step with a retry backoff (the server runs in this process): a failed attempt waits for
// it, a handed-back one does not.
JOB_KINDS.TEST_HAND_BACK_STEP = {
  description: 'One single step whose failed attempts wait a minute.',
  inputs: { label: { kind: 'string', required: true } },
  stages: [{ name: 'render', phase: 'processing', retryBackoff: { initialSeconds: 60, factor: 2, maxSeconds: 600, jitter: 0 } }],
};

// One fan-out stage of its own, so that the claims of the unanswered-claim test take its items alone.
JOB_KINDS.TEST_UNANSWERED = {
  description: 'One fan-out stage of numbered items.',
  inputs: { label: { kind: 'string', required: true } },
  stages: [{ name: 'process', phase: 'processing', fanOut: { inputs: { n: { kind: 'int', required: true } }, outputs: {} } }],
};

/**
 * Hand-back (handBackStep, handBackWorkItem): a worker releases a lease it holds; the unit is
 * claimable at once by another worker, the attempt is not counted as failed, no backoff applies,
 * and the job's stream says so; the Python SDK hands back what it holds when SIGTERMed. Real
 * DynamoDB Local, a real server, workers over HTTP and Python worker processes; the lease is long
 * (600 s), so nothing here is claimable by a lease running out.
 */
describe('handing work back', () => {
  let server: TestServer;
  let editor: string;
  let projectId: string;
  const secret = new TextEncoder().encode(TEST_SECRET);
  const gql = async (token: string, query: string, variables: Record<string, unknown> = {}) =>
    (await server.raw({ query, variables }, token)).body;
  const codeOf = (out: { errors?: Array<{ extensions?: { code?: string } }> }) => out.errors?.[0]?.extensions?.code;
  const worker = (n: number) => server.token('handback-co', [Role.WORKER], `worker-${n}`);
  const CLAIM =
    'mutation($k: String) { claimWork(kind: $k) { lease job { jobId } step { name attempt status } item { sequence attempt status } } }';
  const HAND_BACK_ITEM =
    'mutation($j: ID!, $n: Int!, $a: Int!, $l: String) { handBackWorkItem(jobId: $j, stage: "process", sequence: $n, attempt: $a, lease: $l) { status attempt maxAttempt availableAt } }';
  const HAND_BACK_STEP =
    'mutation($j: ID!, $a: Int, $l: String) { handBackStep(jobId: $j, stepName: "render", attempt: $a, lease: $l) { status steps { attempt status } } }';
  const FAIL_ITEM =
    'mutation($j: ID!, $n: Int!, $a: Int!) { failWorkItem(jobId: $j, stage: "process", sequence: $n, attempt: $a, code: "GPU_LOST", message: "gone") { status attempt } }';
  /** The types and attempts of a job's events, replayed from its stream. */
  const eventsOf = async (jobId: string) => {
    const seq = (await gql(editor, 'query($j: ID!) { job(jobId: $j) { seq } }', { j: jobId })).data.job.seq;
    const replay = subscribe(
      wsClient(server.url, editor),
      'subscription($j: ID!) { jobProgress(jobId: $j, afterSeq: 0) { type step { attempt status } item { attempt status } } }',
      {
        j: jobId,
      },
    );
    await replay.ack;
    const events: Array<{
      type: string;
      step: { attempt: number; status: string } | null;
      item: { attempt: number; status: string } | null;
    }> = await replay.waitFor(seq);
    replay.stop();
    return events.map((e) => [e.type, (e.item ?? e.step)?.attempt, (e.item ?? e.step)?.status]);
  };

  beforeAll(async () => {
    server = await startTestServer({ env: { JOB_LEASE_SECONDS: '600' } });
    editor = await server.token('handback-co', [Role.EDITOR], 'artist');
    projectId = (await gql(editor, 'mutation { createProject(input: { title: "Hand-back" }) { projectId } }')).data.createProject.projectId;
  });

  it('makes a handed-back item claimable by another worker at once, with no backoff and no attempt counted', async () => {
    const created = await gql(editor, 'mutation($input: CreateJobInput!) { createJob(input: $input) { jobId } }', {
      input: { projectId, kind: 'BATCH', inputs: { label: 'hand-back' }, items: [{ source: 'tenants/handback-co/in/a.png' }] },
    });
    const jobId = created.data.createJob.jobId;
    const [first, second, third] = await Promise.all([worker(1), worker(2), worker(3)]);
    expect((await gql(first, CLAIM, { k: 'BATCH' })).data.claimWork.item).toMatchObject({ sequence: 1, attempt: 1 });
    // Handed back: PENDING at once for attempt 2, and BATCH's two attempts are still both to come (maxAttempt 3).
    const released = (await gql(first, HAND_BACK_ITEM, { j: jobId, n: 1, a: 1 })).data.handBackWorkItem;
    expect(released).toMatchObject({ status: 'PENDING', attempt: 2, maxAttempt: 3 });
    // The stage's retry backoff (1 s and more) does not apply: another worker claims it now.
    expect((await gql(second, CLAIM, { k: 'BATCH' })).data.claimWork.item).toMatchObject({ sequence: 1, attempt: 2, status: 'RUNNING' });
    // The released attempt is over for its worker, with the error every report on an ended attempt gets.
    const late = await gql(first, HAND_BACK_ITEM, { j: jobId, n: 1, a: 1 });
    expect(codeOf(late)).toBe('INVALID_TRANSITION');
    expect(late.errors[0].message).toMatch(/as attempt 1: that attempt is over .* it is at attempt 2 now/);
    // A failure now is the item's first counted one: it waits for another attempt instead of failing.
    expect((await gql(second, FAIL_ITEM, { j: jobId, n: 1, a: 2 })).data.failWorkItem).toMatchObject({ status: 'PENDING', attempt: 3 });
    // Only a running item can be handed back.
    expect(codeOf(await gql(third, HAND_BACK_ITEM, { j: jobId, n: 1, a: 3 }))).toBe('INVALID_TRANSITION');
    expect(await eventsOf(jobId)).toEqual(
      expect.arrayContaining([
        ['ITEM_STARTED', 1, 'RUNNING'],
        ['ITEM_HANDED_BACK', 2, 'PENDING'],
        ['ITEM_STARTED', 2, 'RUNNING'],
        ['ITEM_ATTEMPT_FAILED', 3, 'PENDING'],
      ]),
    );
    // Its item would come back after the backoff: cancelled, so no later test's claim meets it.
    await gql(editor, 'mutation($j: ID!) { cancelJob(jobId: $j) { status } }', { j: jobId });
  }, 60_000);

  it('keeps a handed-back item in its place: the next claim takes it before the items that waited behind it', async () => {
    // Three items waiting; the first is taken and handed back while the other two still wait. A
    // stopping worker's unit must not go to the end of a long queue (npm run soak:workers: with
    // 1,000 items waiting, a handed-back item waited seconds for every item behind it).
    const created = await gql(editor, 'mutation($input: CreateJobInput!) { createJob(input: $input) { jobId } }', {
      input: {
        projectId,
        kind: 'BATCH',
        inputs: { label: 'place' },
        items: ['p1', 'p2', 'p3'].map((name) => ({ source: `tenants/handback-co/in/${name}.png` })),
      },
    });
    const jobId = created.data.createJob.jobId;
    const [first, second] = await Promise.all([worker(31), worker(32)]);
    expect((await gql(first, CLAIM, { k: 'BATCH' })).data.claimWork.item).toMatchObject({ sequence: 1, attempt: 1 });
    await gql(first, HAND_BACK_ITEM, { j: jobId, n: 1, a: 1 });
    expect((await gql(second, CLAIM, { k: 'BATCH' })).data.claimWork.item).toMatchObject({ sequence: 1, attempt: 2 });
    await gql(editor, 'mutation($j: ID!) { cancelJob(jobId: $j) { status } }', { j: jobId });
  }, 60_000);

  it.each([
    ['after', 'the hand-back'],
    ['before', 'the claim'],
  ])(
    'lets a claim decided in the same group as a hand-back take the handed-back item at once, in its place (the claim queued %s it)',
    async (order, queuedFirst) => {
      // Two items; the first is held by one worker. Its hand-back and another worker's claim queue
      // behind a command that holds the job's queue, so the committer decides them in one group: the
      // claim must see the item the hand-back put back in line, as a later group's would. A claim
      // queued first is no exception: the hand-back is queued ahead of it (Committer.submit's `ahead`),
      // or it would take the second item and leave the handed-back one to the next claim.
      const created = await gql(editor, 'mutation($input: CreateJobInput!) { createJob(input: $input) { jobId } }', {
        input: {
          projectId,
          kind: 'BATCH',
          inputs: { label: `same group, ${queuedFirst} first` },
          items: ['g1', 'g2'].map((name) => ({ source: `tenants/handback-co/in/${name}-${order}.png` })),
        },
      });
      const jobId = created.data.createJob.jobId;
      const [first, second] =
        queuedFirst === 'the hand-back' ? await Promise.all([worker(41), worker(42)]) : await Promise.all([worker(43), worker(44)]);
      expect((await gql(first, CLAIM, { k: 'BATCH' })).data.claimWork.item).toMatchObject({ sequence: 1, attempt: 1 });
      const committer = committerOf(server.app.store);
      const queue = jobQueueId(new BoundTenant('handback-co'), jobId);
      const submits = restoredAfter(jest.spyOn(committer, 'submit'));
      const queued = (n: number) =>
        waitFor(async () => submits.mock.calls.filter(([id]) => id === queue).length >= n, `${n} commands queued on the job`, {
          everyMs: 5,
        });
      // The holder: its read waits for the gate and then fails, which answers it alone and leaves
      // the commands behind it to the next group (the committer's rule for a failed read).
      let open = () => {};
      const gate = new Promise<void>((resolve) => {
        open = resolve;
      });
      const held = committer.submit<JobGroup, never>(
        queue,
        {
          type: JOB_AGGREGATE,
          load: async () => {
            await gate;
            throw new Error('held the queue');
          },
          units: () => [],
        },
        [],
        () => {
          throw new Error('never decided');
        },
      );
      const handBack = () => gql(first, HAND_BACK_ITEM, { j: jobId, n: 1, a: 1 });
      const claim = () => gql(second, CLAIM, { k: 'BATCH' });
      const [handedBack, claimed] = await (async () => {
        if (queuedFirst === 'the hand-back') {
          const handing = handBack();
          await queued(2);
          const claiming = claim();
          await queued(3);
          return [handing, claiming];
        }
        const claiming = claim();
        await queued(2);
        const handing = handBack();
        await queued(3);
        return [handing, claiming];
      })();
      open();
      await expect(held).rejects.toThrow('held the queue');
      expect((await handedBack).data.handBackWorkItem).toMatchObject({ status: 'PENDING', attempt: 2 });
      expect((await claimed).data.claimWork.item).toMatchObject({ sequence: 1, attempt: 2, status: 'RUNNING' });
      await gql(editor, 'mutation($j: ID!) { cancelJob(jobId: $j) { status } }', { j: jobId });
    },
    60_000,
  );

  it("makes a handed-back step claimable at once as a new attempt, not counted against the job's attempts", async () => {
    const created = await gql(editor, 'mutation($input: CreateJobInput!) { createJob(input: $input) { jobId } }', {
      input: { projectId, kind: 'TEST_HAND_BACK_STEP', inputs: { label: 'step' }, maxAttempts: 1 },
    });
    const jobId = created.data.createJob.jobId;
    const [first, second] = await Promise.all([worker(11), worker(12)]);
    expect((await gql(first, CLAIM, { k: 'TEST_HAND_BACK_STEP' })).data.claimWork.step).toMatchObject({ attempt: 1, status: 'RUNNING' });
    // A wrong attempt is refused as on every report; the right one releases the step.
    expect(codeOf(await gql(first, HAND_BACK_STEP, { j: jobId, a: 2 }))).toBe('INVALID_TRANSITION');
    const released = (await gql(first, HAND_BACK_STEP, { j: jobId, a: 1 })).data.handBackStep;
    expect(released.status).toBe('RUNNING');
    expect(released.steps).toEqual([
      { attempt: 1, status: 'HANDED_BACK' },
      { attempt: 2, status: 'PENDING' },
    ]);
    // The stage's backoff (60 s) does not apply, and one attempt of maxAttempts 1 is still to come.
    expect((await gql(second, CLAIM, { k: 'TEST_HAND_BACK_STEP' })).data.claimWork.step).toMatchObject({ attempt: 2, status: 'RUNNING' });
    expect(
      codeOf(
        await gql(first, 'mutation($j: ID!) { reportStepProgress(jobId: $j, stepName: "render", attempt: 1, progress: 0.5) { status } }', {
          j: jobId,
        }),
      ),
    ).toBe('INVALID_TRANSITION');
    // Its one counted attempt fails: the job fails, as maxAttempts 1 says.
    const failed = await gql(
      second,
      'mutation($j: ID!) { failStep(jobId: $j, stepName: "render", attempt: 2, code: "GPU_LOST", message: "gone") { status } }',
      {
        j: jobId,
      },
    );
    expect(failed.data.failStep.status).toBe('FAILED');
    expect(await eventsOf(jobId)).toEqual([
      ['JOB_CREATED', undefined, undefined],
      ['STEP_STARTED', 1, 'RUNNING'],
      ['STEP_HANDED_BACK', 2, 'PENDING'],
      ['STEP_STARTED', 2, 'RUNNING'],
      ['STEP_FAILED', 2, 'FAILED'],
    ]);
  }, 60_000);

  it('lets a pool worker hand back what its lease names, and nothing else; another pool worker takes it at once', async () => {
    const created = await gql(editor, 'mutation($input: CreateJobInput!) { createJob(input: $input) { jobId } }', {
      input: { projectId, kind: 'BATCH', inputs: { label: 'pool' }, items: [{ source: 'tenants/handback-co/in/p.png' }] },
    });
    const jobId = created.data.createJob.jobId;
    const [gpu1, gpu2] = await Promise.all(
      ['gpu-hb-1', 'gpu-hb-2'].map((sub) => signDevToken(secret, { sub, pool: { kinds: ['BATCH'] } })),
    );
    // The pool may hold other tenants' BATCH items from other files' runs: claim until this job's item comes.
    const claimOurs = async (token: string) => {
      for (;;) {
        const claimed = (await gql(token, CLAIM, { k: 'BATCH' })).data.claimWork;
        if (!claimed) throw new Error(`no BATCH work for ${token.slice(-6)}`);
        if (claimed.job.jobId === jobId) return claimed;
      }
    };
    const held = await claimOurs(gpu1);
    const ref = { j: jobId, n: held.item.sequence, a: held.item.attempt };
    // Without the lease, or with another worker's: refused as every pool report is.
    expect(codeOf(await gql(gpu1, HAND_BACK_ITEM, { ...ref, l: null }))).toBe('FORBIDDEN');
    expect(codeOf(await gql(gpu2, HAND_BACK_ITEM, { ...ref, l: held.lease }))).toBe('FORBIDDEN');
    expect((await gql(gpu1, HAND_BACK_ITEM, { ...ref, l: held.lease })).data.handBackWorkItem).toMatchObject({ status: 'PENDING' });
    expect((await claimOurs(gpu2)).item).toMatchObject({ attempt: held.item.attempt + 1, status: 'RUNNING' });
  }, 60_000);

  it('hands back at once the unit of a claim whose answer failed (a field its worker selected was refused), so it waits for no lease', async () => {
    const itemOf = async (jobId: string) =>
      (
        await gql(editor, 'query($j: ID!) { job(jobId: $j) { itemCounts { running } items { nodes { status attempt maxAttempt } } } }', {
          j: jobId,
        })
      ).data.job;
    const newJob = async (label: string) =>
      (
        await gql(editor, 'mutation($input: CreateJobInput!) { createJob(input: $input) { jobId } }', {
          input: { projectId, kind: 'TEST_UNANSWERED', inputs: { label }, items: [{ n: 1 }] },
        })
      ).data.createJob.jobId as string;
    const claimSelecting = (fields: string) =>
      `mutation${fields.includes('$first') ? '($first: Int)' : ''} { claimWork(kind: "TEST_UNANSWERED") { lease item { sequence attempt } ${fields} } }`;

    // A tenant's worker asks for a page larger than any allowed (in a variable, which is read as the field
    // resolves): the claim was made, then its answer refused.
    const jobId = await newJob('tenant');
    const token = await worker(31);
    const refused = await gql(token, claimSelecting('job { items(first: $first) { nodes { sequence } } }'), { first: 1000 });
    expect(refused.data).toEqual({ claimWork: null });
    expect(refused.errors).toEqual([
      expect.objectContaining({ path: ['claimWork', 'job', 'items'], extensions: expect.objectContaining({ code: 'BAD_USER_INPUT' }) }),
    ]);
    // Handed back, not held until its lease (600 s here) runs out: waiting, its attempt not counted, no longer running.
    expect(await itemOf(jobId)).toEqual({
      itemCounts: { running: 0 },
      items: { nodes: [{ status: 'PENDING', attempt: 2, maxAttempt: 4 }] },
    });
    expect((await gql(token, claimSelecting('job { jobId }'))).data.claimWork).toMatchObject({
      item: { sequence: 1, attempt: 2 },
      job: { jobId },
    });

    // The same through Apollo Server's own request pipeline, which runs what the POST route does not (a query string here).
    const viaApollo = await newJob('apollo');
    const res = await fetch(`${server.url}?via=apollo`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: claimSelecting('job { items(first: $first) { nodes { sequence } } }'), variables: { first: 1000 } }),
    });
    const answered: any = await res.json();
    expect(answered).toMatchObject({ data: { claimWork: null }, errors: [{ path: ['claimWork', 'job', 'items'] }] });
    expect(await itemOf(viaApollo)).toEqual({
      itemCounts: { running: 0 },
      items: { nodes: [{ status: 'PENDING', attempt: 2, maxAttempt: 4 }] },
    });

    // Taken again, so that the pool's claims below find the next job's item alone.
    expect((await gql(token, claimSelecting('job { jobId }'))).data.claimWork).toMatchObject({ job: { jobId: viaApollo } });

    // A pool worker reads nothing of a tenant's job but its own unit: the claim is made, then its answer is FORBIDDEN.
    const pooledJob = await newJob('pool');
    const gpu = await signDevToken(secret, { sub: 'gpu-unanswered', pool: { kinds: ['TEST_UNANSWERED'] } });
    const forbidden = await gql(gpu, claimSelecting('job { jobId items { nodes { sequence } } }'));
    expect(forbidden.data).toEqual({ claimWork: null });
    expect(codeOf(forbidden)).toBe('FORBIDDEN');
    expect(await itemOf(pooledJob)).toEqual({
      itemCounts: { running: 0 },
      items: { nodes: [{ status: 'PENDING', attempt: 2, maxAttempt: 4 }] },
    });
    // Its tenant's pool load went back down with it: the next pool claim takes the same item at once.
    expect((await gql(gpu, claimSelecting('tenantId job { jobId }'))).data.claimWork).toMatchObject({
      item: { sequence: 1, attempt: 2 },
      job: { jobId: pooledJob },
    });
    expect(await eventsOf(pooledJob)).toEqual([
      ['JOB_CREATED', undefined, undefined],
      ['STEP_STARTED', 1, 'RUNNING'],
      ['ITEM_STARTED', 1, 'RUNNING'],
      ['ITEM_HANDED_BACK', 2, 'PENDING'],
      ['ITEM_STARTED', 2, 'RUNNING'],
    ]);
  }, 60_000);

  it('refuses a hand-back on a cancelled job with JOB_CANCELLED', async () => {
    const created = await gql(editor, 'mutation($input: CreateJobInput!) { createJob(input: $input) { jobId } }', {
      input: { projectId, kind: 'BATCH', inputs: { label: 'cancelled' }, items: [{ source: 'tenants/handback-co/in/c.png' }] },
    });
    const jobId = created.data.createJob.jobId;
    const token = await worker(21);
    const claimed = (await gql(token, CLAIM, { k: 'BATCH' })).data.claimWork;
    expect(claimed.job.jobId).toBe(jobId);
    await gql(editor, 'mutation($j: ID!) { cancelJob(jobId: $j) { status } }', { j: jobId });
    expect(codeOf(await gql(token, HAND_BACK_ITEM, { j: jobId, n: 1, a: claimed.item.attempt }))).toBe('JOB_CANCELLED');
  }, 60_000);

  it('Python SDK: 30 items by 3 worker processes, each SIGTERMed in turn while serving (its item in hand handed back) and restarted: every item completed once, none waiting for a lease', async () => {
    // Moved here from worker-push.test (an @alone file): it bounds no latency that another file's
    // load would bend, only that no hand-back waited for a lease, and this file's are 600 s.
    // A tenant of its own: a tenant-bound worker serves every job of its tenant.
    const tenant = 'handback-fleet';
    const fleetEditor = await server.token(tenant, [Role.EDITOR], 'artist');
    const gqlFleet = (query: string, variables: Record<string, unknown> = {}) => gqlAs(server, fleetEditor, query, variables);
    const fleetProject = (await gqlFleet('mutation { createProject(input: { title: "Fleet" }) { projectId } }')).createProject.projectId;
    /** A Python worker on pushed signals (PUSH=1), once it has subscribed. */
    const python = async (sub: string) => {
      const token = await server.token(tenant, [Role.WORKER], sub);
      const proc = startWorker('python3', [PYTHON_WORKER], {
        ARTISSIST_URL: server.url,
        ARTISSIST_TOKEN: token,
        PUSH: '1',
        GRACE_SECONDS: '0.05',
      });
      await proc.until((l) => l.event === 'signal' && l.type === 'SUBSCRIBED', `${sub}'s subscription`);
      return proc;
    };
    // Each attempt holds its item for a moment (no renewal is due in it), so a SIGTERM most often lands mid-item.
    const jobId = await batchJob(
      gqlFleet,
      tenant,
      fleetProject,
      Array.from({ length: 30 }, () => ({ hold: { 1: 0.15, 2: 0.15, 3: 0.15 } })),
    );
    const startedAt = Date.now();
    const workers = await Promise.all([1, 2, 3].map((n) => python(`py-fleet-${n}`)));
    const all = [...workers];
    for (let n = 0; n < 3; n++) {
      // Each worker in turn, once it holds an item: stopped, and a new one started in its place.
      const target = workers[n];
      await target.until((l) => l.event === 'claimed', `a claim of worker ${n + 1}`);
      target.child.kill('SIGTERM');
      expect(await target.exited).toMatchObject({ code: 0 });
      workers[n] = await python(`py-fleet-${n + 1}-again`);
      all.push(workers[n]);
    }
    let last: any;
    const job = await waitFor(
      async () => {
        last = (await gqlFleet('query($j: ID!) { job(jobId: $j) { status itemCounts { total completed failed } } }', { j: jobId })).job;
        return ['COMPLETED', 'FAILED', 'CANCELLED'].includes(last.status) && last;
      },
      () =>
        `job ${jobId} finished (now ${JSON.stringify(last?.itemCounts)}); the workers printed:\n${all.map((w) => w.output()).join('\n---\n')}`,
    );
    expect(job.status).toBe('COMPLETED');
    expect(job.itemCounts).toEqual({ total: 30, completed: 30, failed: 0 });
    // No hand-back waited for a lease (600 s): the whole job took seconds.
    expect(Date.now() - startedAt).toBeLessThan(30_000);
    const handedBack = all.flatMap((w) => w.lines.filter((l) => l.event === 'cancelled' && l.code === 'WORKER_STOPPED'));
    console.log(`Python fleet: 30 items, ${handedBack.length} handed back on SIGTERM, done in ${Date.now() - startedAt} ms`);
    for (const w of workers) w.child.kill('SIGTERM');
    for (const w of workers) expect(await w.exited).toMatchObject({ code: 0 });
  });
});
