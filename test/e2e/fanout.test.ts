import { PutCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { openQueues } from '../../src/job/job.aggregate';
import { dynamoDocOf, Role, startTestServer, type TestServer } from '../support/server';
import { Pulse, waitFor } from '../support/wait';
import { subscribe, wsClient } from '../support/ws';

/**
 * Fan-out stages of work items (job.aggregate.ts): parallel workers through claimWork, exact counters,
 * the job's gapless stream, leases and attempts of items, failure policies, typed item fields, and
 * a stage whose outputs become an asset. Real DynamoDB Local, a real server, concurrent requests.
 */
describe('fan-out stages of work items', () => {
  let longLease: TestServer;
  let shortLease: TestServer;
  const LEASE_SECONDS = 2;
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  /** How far the short-lease server's clock is ahead of the wall clock: a lease runs out when a test moves it on. */
  let clockAhead = 0;
  let tenantCounter = 0;

  beforeAll(async () => {
    [longLease, shortLease] = await Promise.all([
      startTestServer({ env: { JOB_LEASE_SECONDS: '600' } }),
      // Its requests' clock runs ahead when a test lets a lease run out, instead of the test waiting for it.
      startTestServer({ env: { JOB_LEASE_SECONDS: String(LEASE_SECONDS) }, now: () => new Date(Date.now() + clockAhead) }),
    ]);
  });

  const ITEM = 'stage sequence status attempt maxAttempt worker error { code message } outputs';
  const JOB = 'jobId status version seq currentStep progress phase error { code } itemCounts { total pending running completed failed }';

  /** A tenant of its own (the claimable index is per tenant), with an editor, a project and worker tokens. */
  async function tenant(server: TestServer) {
    const tenantId = `fan-${Date.now()}-${++tenantCounter}`;
    const editor = await server.token(tenantId, [Role.EDITOR], 'artist');
    const gql = async (token: string, query: string, variables: Record<string, unknown> = {}) =>
      (await server.raw({ query, variables }, token)).body;
    const projectId = (await gql(editor, 'mutation { createProject(input: { title: "Fan-out" }) { projectId } }')).data.createProject
      .projectId;
    const worker = (n: number) => server.token(tenantId, [Role.WORKER], `worker-${n}`);
    const key = (name: string) => `tenants/${tenantId}/${name}`;
    const createJob = async (input: Record<string, unknown>) => {
      const out = await gql(editor, `mutation($input: CreateJobInput!) { createJob(input: $input) { ${JOB} } }`, {
        input: { projectId, ...input },
      });
      if (out.errors) throw new Error(JSON.stringify(out.errors));
      return out.data.createJob;
    };
    const claim = async (token: string, kind?: string, stage?: string) => {
      const out = await gql(
        token,
        `mutation($k: String, $s: String) { claimWork(kind: $k, stage: $s) { job { jobId } step { name attempt status } item { ${ITEM} } } }`,
        { k: kind, s: stage },
      );
      if (out.errors) throw new Error(JSON.stringify(out.errors));
      return out.data.claimWork;
    };
    /** Claims until something is handed out: a failed BATCH attempt waits for its retry backoff (about a second) first. */
    const claimWhenReady = async (token: string, kind?: string, stage?: string) => {
      const deadline = Date.now() + 15_000;
      for (;;) {
        const claimed = await claim(token, kind, stage);
        if (claimed) return claimed;
        if (Date.now() > deadline) throw new Error('nothing to claim within 15 s');
        await sleep(50);
      }
    };
    const complete = (token: string, jobId: string, stage: string, sequence: number, attempt: number, outputs: unknown) =>
      gql(
        token,
        `mutation($j: ID!, $st: String!, $n: Int!, $a: Int!, $o: JSONObject!) { completeWorkItem(jobId: $j, stage: $st, sequence: $n, attempt: $a, outputs: $o) { ${ITEM} } }`,
        { j: jobId, st: stage, n: sequence, a: attempt, o: outputs },
      );
    const fail = (token: string, jobId: string, stage: string, sequence: number, attempt: number) =>
      gql(
        token,
        `mutation($j: ID!, $st: String!, $n: Int!, $a: Int!) { failWorkItem(jobId: $j, stage: $st, sequence: $n, attempt: $a, code: "RENDER", message: "The renderer crashed.") { ${ITEM} } }`,
        { j: jobId, st: stage, n: sequence, a: attempt },
      );
    const addItems = (token: string, jobId: string, stage: string, items: unknown[]) =>
      gql(token, `mutation($j: ID!, $s: String!, $i: [JSONObject!]!) { addWorkItems(jobId: $j, stage: $s, items: $i) { ${JOB} } }`, {
        j: jobId,
        s: stage,
        i: items,
      });
    const job = async (jobId: string) =>
      (
        await gql(
          editor,
          `query($j: ID!) { job(jobId: $j) { ${JOB} steps { name attempt status } items(first: 100) { nodes { ${ITEM} } } } }`,
          {
            j: jobId,
          },
        )
      ).data.job;
    return { tenantId, editor, gql, projectId, worker, key, createJob, claim, claimWhenReady, complete, fail, addItems, job };
  }

  it('20 workers complete a 100-item stage through claimWork: each item once, exact counters, one stage completion, a gapless stream replayable from 0', async () => {
    const t = await tenant(longLease);
    const batch = (from: number, n: number) => Array.from({ length: n }, (_, i) => ({ source: t.key(`in/${from + i}.png`) }));
    const created = await t.createJob({ kind: 'BATCH', items: batch(1, 50) });
    const jobId = created.jobId;
    const feeder = await t.worker(0);
    const added = await t.addItems(feeder, jobId, 'process', batch(51, 50));
    expect(added.errors).toBeUndefined();
    expect(added.data.addWorkItems.itemCounts).toMatchObject({ total: 100, pending: 100 });

    // A client follows the job live from its start.
    const client = wsClient(longLease.url, t.editor);
    const live = subscribe(
      client,
      'subscription($j: ID!) { jobProgress(jobId: $j, afterSeq: 0) { seq type item { sequence status } step { name status } } }',
      {
        j: jobId,
      },
    );
    await live.ack;

    const completions: number[] = [];
    let finished = false;
    // A worker that got nothing waits for another's completion while others hold items (the
    // stage's last items are under way); once nobody holds one, it waits for the job to complete,
    // reading its status only (reading the whole job, its 100 items, every 20 ms here was most of
    // the items this test had DynamoDB Local parse: 2,830 read in all; it is read in full below).
    const completed = new Pulse();
    let held = 0;
    const status = async () => (await t.gql(t.editor, 'query($j: ID!) { job(jobId: $j) { status } }', { j: jobId })).data.job.status;
    const workers = await Promise.all(Array.from({ length: 20 }, (_, n) => t.worker(n + 1)));
    await Promise.all(
      workers.map(async (token) => {
        for (let guard = 0; guard < 500 && !finished; guard++) {
          const asked = completed.next();
          const claimed = await t.claim(token, 'BATCH', 'process');
          if (!claimed) {
            if (held > 0) await asked;
            else finished = (await waitFor(async () => (await status()) === 'COMPLETED', 'the job completed')) === true;
            continue;
          }
          held++;
          const { sequence, attempt } = claimed.item;
          const done = await t.complete(token, jobId, 'process', sequence, attempt, { result: t.key(`out/${sequence}.png`) });
          held--;
          completed.beat();
          expect(done.errors).toBeUndefined();
          completions.push(sequence);
        }
      }),
    );

    expect(completions.sort((a, b) => a - b)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
    // The job's group-commit queue is gone once no change is under way (the server runs in this process).
    expect(openQueues(longLease.app.store)).toBe(0);
    const final = await t.job(jobId);
    expect(final).toMatchObject({
      status: 'COMPLETED',
      progress: 1,
      itemCounts: { total: 100, pending: 0, running: 0, completed: 100, failed: 0 },
    });
    expect(final.items.nodes).toHaveLength(100);
    for (const item of final.items.nodes) expect(item).toMatchObject({ status: 'COMPLETED', attempt: 1 });

    // Created, stage started, items added, 100 started, 100 completed, stage completed.
    const total = 1 + 1 + 1 + 100 + 100 + 1;
    expect(final.seq).toBe(total);
    const events = await live.waitFor(total, 60_000);
    await live.done;
    expect(events.map((e: { seq: number }) => e.seq)).toEqual(Array.from({ length: total }, (_, i) => i + 1));
    const count = (type: string) => events.filter((e: { type: string }) => e.type === type).length;
    expect(count('ITEM_COMPLETED')).toBe(100);
    expect(
      new Set(
        events.filter((e: { type: string }) => e.type === 'ITEM_COMPLETED').map((e: { item: { sequence: number } }) => e.item.sequence),
      ).size,
    ).toBe(100);
    expect(
      events.filter((e: { type: string; step?: { name: string } }) => e.type === 'STEP_COMPLETED' && e.step?.name === 'process'),
    ).toHaveLength(1);

    // A client that joins later replays the whole stream from 0, identical.
    const replay = subscribe(
      client,
      'subscription($j: ID!) { jobProgress(jobId: $j, afterSeq: 0) { seq type item { sequence status } step { name status } } }',
      {
        j: jobId,
      },
    );
    await replay.ack;
    expect(await replay.waitFor(total, 30_000)).toEqual(events);
  }, 300_000);

  it('opens a first stage that fans out in the commit that creates the job, so a worker told of the job claims behind no second transaction', async () => {
    const t = await tenant(longLease);
    const { jobId } = await t.createJob({ kind: 'BATCH', items: [{ source: t.key('in/1.png') }] });
    const { job } = (
      await t.gql(t.editor, 'query($j: ID!) { job(jobId: $j) { status version createdAt startedAt steps { name status } } }', { j: jobId })
    ).data;
    // Decided together: the stage started at the job's creation, and no later change moved the job on (JOB_CREATED, STEP_STARTED).
    expect(job).toMatchObject({ status: 'RUNNING', version: 2, startedAt: job.createdAt, steps: [{ name: 'process', status: 'RUNNING' }] });
    const claimed = await t.claim(await t.worker(1), 'BATCH', 'process');
    expect(claimed.item).toMatchObject({ sequence: 1, attempt: 1, status: 'RUNNING' });
  });

  it('hands out items that became claimable at once in sequence order, 9 before 10 (the index sorts by time, then sequence as a number)', async () => {
    const t = await tenant(longLease);
    await t.createJob({ kind: 'BATCH', items: Array.from({ length: 12 }, (_, i) => ({ source: t.key(`in/${i + 1}.png`) })) });
    const worker = await t.worker(1);
    const order: number[] = [];
    for (let n = 0; n < 12; n++) order.push((await t.claim(worker, 'BATCH', 'process')).item.sequence);
    expect(order).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
  });

  it('migration 003-claim-order lists items written with their sequence unpadded in sequence order again', async () => {
    const t = await tenant(longLease);
    const { jobId } = await t.createJob({
      kind: 'BATCH',
      items: Array.from({ length: 12 }, (_, i) => ({ source: t.key(`in/${i + 1}.png`) })),
    });
    const { tableName } = longLease.config;
    const doc = longLease.config.postgres ? undefined : dynamoDocOf(longLease.app);
    const stored = async () =>
      ((await doc?.send(new ScanCommand({ TableName: tableName })))?.Items ?? []).filter(
        (row) => row.entityType === 'WorkItem' && row.jobId === jobId,
      );
    // As written before the index padded the sequence (10 before 2). PostgreSQL derives the index
    // from the declaration on every read, so it has no entry written the old way to age.
    for (const row of await stored())
      await doc?.send(new PutCommand({ TableName: tableName, Item: { ...row, GSI4SK: String(row.GSI4SK).replace(/#0+(\d+)$/, '#$1') } }));
    const admin = await longLease.operatorToken();
    await t.gql(admin, 'mutation { runMigrations(itemsPerSecond: 400) { id } }');
    await waitFor(
      async () => {
        const { data } = await t.gql(admin, '{ migrations { id state } }');
        return (
          data.migrations.every((m: { state: string }) => m.state === 'APPLIED') &&
          data.migrations.some((m: { id: string }) => m.id === '003')
        );
      },
      'every migration applied',
      { ms: 90_000, everyMs: 200 },
    );
    for (const row of await stored()) expect(row.GSI4SK).toMatch(/#process#\d{5}$/);
    const worker = await t.worker(1);
    const order: number[] = [];
    for (let n = 0; n < 12; n++) order.push((await t.claim(worker, 'BATCH', 'process')).item.sequence);
    expect(order).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
  }, 120_000);

  it('hands each of 10 claimable items to exactly one of 50 workers asking at once, and nothing to the other 40', async () => {
    const t = await tenant(longLease);
    const { jobId } = await t.createJob({ kind: 'BATCH', items: Array.from({ length: 10 }, (_, i) => ({ source: t.key(`${i}.png`) })) });
    const tokens = await Promise.all(Array.from({ length: 50 }, (_, n) => t.worker(n)));
    const claims = await Promise.all(tokens.map((token) => t.claim(token, 'BATCH')));
    const won = claims.filter((c) => c !== null);
    expect(won).toHaveLength(10);
    expect(new Set(won.map((c) => c.item.sequence))).toEqual(new Set(Array.from({ length: 10 }, (_, i) => i + 1)));
    for (const c of won)
      expect(c).toMatchObject({ job: { jobId }, step: { name: 'process', status: 'RUNNING' }, item: { status: 'RUNNING', attempt: 1 } });
    expect((await t.job(jobId)).itemCounts).toMatchObject({ total: 10, running: 10, pending: 0 });
    expect(await t.claim(tokens[0], 'BATCH')).toBeNull();
  }, 180_000);

  it('takes an item over as attempt 2 after its lease, refuses the old worker, and fails it past its attempts', async () => {
    const t = await tenant(shortLease);
    const { jobId } = await t.createJob({ kind: 'BATCH', items: [{ source: t.key('a.png') }] });
    const crashed = await t.worker(1);
    const first = await t.claim(crashed, 'BATCH');
    expect(first.item).toMatchObject({ sequence: 1, attempt: 1, worker: 'worker-1' });
    clockAhead += LEASE_SECONDS * 1000 + 300;

    // The rescuer's first claim ends attempt 1 (LEASE_EXPIRED); attempt 2 waits for BATCH's retry
    // backoff, then the rescuer holds it.
    const rescuer = await t.worker(2);
    const second = await t.claimWhenReady(rescuer, 'BATCH');
    expect(second.item).toMatchObject({ sequence: 1, attempt: 2, status: 'RUNNING', worker: 'worker-2', error: { code: 'LEASE_EXPIRED' } });
    const before = await t.job(jobId);
    const late = await t.complete(crashed, jobId, 'process', 1, 1, { result: t.key('late.png') });
    expect(late.errors[0].extensions).toMatchObject({ code: 'INVALID_TRANSITION', from: 'at attempt 2' });
    expect((await t.job(jobId)).version).toBe(before.version);

    // BATCH items have 2 attempts: the rescuer stops too, and the next claim fails the item (and,
    // one failed item of one being past the stage's 25 %, the job), handing out nothing.
    clockAhead += LEASE_SECONDS * 1000 + 300;
    expect(await t.claim(await t.worker(3), 'BATCH')).toBeNull();
    const after = await t.job(jobId);
    expect(after).toMatchObject({ status: 'FAILED', error: { code: 'ITEMS_FAILED' }, itemCounts: { failed: 1, running: 0 } });
    expect(after.items.nodes[0]).toMatchObject({ status: 'FAILED', attempt: 2, error: { code: 'LEASE_EXPIRED' } });
    const events = (await t.gql(t.editor, 'query($j: ID!) { job(jobId: $j) { seq } }', { j: jobId })).data.job.seq;
    expect(events).toBe(after.seq);
  }, 60_000);

  it('tells a worker naming a past attempt that it is over, and one naming an attempt that never was that it never was; a retried failure is ITEM_ATTEMPT_FAILED, ITEM_FAILED only past the attempts', async () => {
    const t = await tenant(longLease);
    const { jobId } = await t.createJob({ kind: 'BATCH', items: [{ source: t.key('a.png') }] });
    const token = await t.worker(1);
    expect((await t.claim(token, 'BATCH')).item).toMatchObject({ sequence: 1, attempt: 1 });
    // Attempt 1 fails; BATCH items have 2 attempts, so the item waits for attempt 2 (after its backoff).
    expect((await t.fail(token, jobId, 'process', 1, 1)).data.failWorkItem).toMatchObject({ status: 'PENDING', attempt: 2 });
    const what = `Item 1 of stage process of job ${jobId}`;
    // A late call during the backoff is told that attempt 2 waits, not that it was tried.
    const waiting = (await t.gql(t.editor, 'query($j: ID!) { job(jobId: $j) { items { nodes { availableAt } } } }', { j: jobId })).data.job
      .items.nodes[0].availableAt;
    const early = await t.complete(token, jobId, 'process', 1, 1, { result: t.key('late.png') });
    expect(early.errors[0].message).toBe(
      `Cannot complete ${what} as attempt 1: that attempt is over (it failed or its lease ran out), and the item waits, PENDING, for attempt 2, claimable from ${waiting}. Drop the work of attempt 1.`,
    );
    expect((await t.claimWhenReady(token, 'BATCH')).item).toMatchObject({ sequence: 1, attempt: 2, status: 'RUNNING' });

    const late = await t.complete(token, jobId, 'process', 1, 1, { result: t.key('late.png') });
    expect(late.errors[0].message).toBe(
      `Cannot complete ${what} as attempt 1: that attempt is over (it failed or its lease ran out), and the item was tried again: it is at attempt 2 now. Drop the work of attempt 1.`,
    );
    expect(late.errors[0].extensions).toMatchObject({ code: 'INVALID_TRANSITION', from: 'at attempt 2', to: 'attempt 1' });
    const never = await t.complete(token, jobId, 'process', 1, 7, { result: t.key('never.png') });
    expect(never.errors[0].message).toBe(
      `Cannot complete ${what} as attempt 7: the item never had an attempt 7; it is at attempt 2. Name the attempt that claimWork or startStep gave you.`,
    );
    expect(never.errors[0].extensions).toMatchObject({ code: 'INVALID_TRANSITION', from: 'at attempt 2', to: 'attempt 7' });

    // Attempt 2, the last, fails: now the item has failed, and the job with it (one of one is past 25 %).
    expect((await t.fail(token, jobId, 'process', 1, 2)).data.failWorkItem).toMatchObject({ status: 'FAILED', attempt: 2 });
    const after = await t.job(jobId);
    expect(after).toMatchObject({ status: 'FAILED', itemCounts: { failed: 1 } });
    const client = wsClient(longLease.url, t.editor);
    const replay = subscribe(client, 'subscription($j: ID!) { jobProgress(jobId: $j, afterSeq: 0) { seq type item { attempt status } } }', {
      j: jobId,
    });
    await replay.ack;
    const events: Array<{ type: string; item: { attempt: number; status: string } | null }> = await replay.waitFor(after.seq);
    const itemEvents = events.filter((e) => e.type.startsWith('ITEM_')).map((e) => [e.type, e.item?.attempt, e.item?.status]);
    expect(itemEvents).toEqual([
      ['ITEM_STARTED', 1, 'RUNNING'],
      ['ITEM_ATTEMPT_FAILED', 2, 'PENDING'],
      ['ITEM_STARTED', 2, 'RUNNING'],
      ['ITEM_FAILED', 2, 'FAILED'],
    ]);
  }, 60_000);

  it('fails a strict stage at its first failed item; retryWorkItem reopens it; the scenes read as seed 001 with presigned URLs', async () => {
    const t = await tenant(longLease);
    const job = await t.createJob({
      kind: 'MUSIC_VIDEO',
      maxAttempts: 1,
      inputs: { characterImage: t.key('hero.png'), audioBackingTrack: t.key('track.mp3') },
    });
    const w = await t.worker(1);
    const generate = await t.claim(w, 'MUSIC_VIDEO');
    expect(generate.step.name).toBe('generate-scenes');
    const scenes = [1, 2, 3].map((n) => ({
      prompt: `Scene ${n}`,
      negativePrompt: 'no text',
      durationSeconds: 4.5,
      audioClip: t.key(`clips/${n}.mp3`),
      needsLipSync: n === 2,
    }));
    expect((await t.addItems(w, job.jobId, 'render-scenes', scenes)).errors).toBeUndefined();
    const completed = await t.gql(
      w,
      'mutation($j: ID!) { completeStep(jobId: $j, stepName: "generate-scenes", attempt: 1, outputs: { sceneCount: 3 }) { currentStep phase } }',
      { j: job.jobId },
    );
    expect(completed.data.completeStep).toEqual({ currentStep: 'render-scenes', phase: 'processing' });

    const one = await t.claim(w, 'MUSIC_VIDEO', 'render-scenes');
    expect((await t.fail(w, job.jobId, 'render-scenes', one.item.sequence, 1)).data.failWorkItem).toMatchObject({ status: 'FAILED' });
    expect(await t.job(job.jobId)).toMatchObject({ status: 'FAILED', error: { code: 'ITEMS_FAILED' }, itemCounts: { failed: 1 } });
    expect(await t.claim(w, 'MUSIC_VIDEO', 'render-scenes')).toBeNull();

    const retried = await t.gql(
      t.editor,
      'mutation($j: ID!, $n: Int!) { retryWorkItem(jobId: $j, stage: "render-scenes", sequence: $n) { status attempt } }',
      { j: job.jobId, n: one.item.sequence },
    );
    expect(retried.data.retryWorkItem).toEqual({ status: 'PENDING', attempt: 2 });
    expect(await t.job(job.jobId)).toMatchObject({ status: 'RUNNING', currentStep: 'render-scenes', itemCounts: { failed: 0 } });
    for (let n = 0; n < 3; n++) {
      const c = await t.claim(w, 'MUSIC_VIDEO', 'render-scenes');
      const outputs = {
        videoClip: t.key(`video/${c.item.sequence}.mp4`),
        ...(c.item.sequence === 2 ? { lipSyncedClip: t.key('video/2-lips.mp4') } : {}),
      };
      expect((await t.complete(w, job.jobId, 'render-scenes', c.item.sequence, c.item.attempt, outputs)).errors).toBeUndefined();
    }
    const read = await t.gql(
      t.editor,
      'query($j: ID!) { job(jobId: $j) { currentStep phase scenes { sequence status prompt negativePrompt durationSeconds needsLipSync audioClip videoClip lipSyncedClip retryCount errorMessage videoClipUrl lipSyncedClipUrl } } }',
      { j: job.jobId },
    );
    const view = read.data.job;
    expect(view).toMatchObject({ currentStep: 'compose', phase: 'composing' });
    expect(view.scenes).toHaveLength(3);
    const retriedScene = view.scenes.find((s: { sequence: number }) => s.sequence === one.item.sequence);
    expect(retriedScene).toMatchObject({ status: 'completed', retryCount: 1 });
    const lips = view.scenes.find((s: { sequence: number }) => s.sequence === 2);
    expect(lips).toMatchObject({
      needsLipSync: true,
      lipSyncedClip: t.key('video/2-lips.mp4'),
      durationSeconds: 4.5,
      negativePrompt: 'no text',
    });
    expect(lips.videoClipUrl).toMatch(/X-Amz-Signature=/);
    expect(lips.lipSyncedClipUrl).toMatch(/X-Amz-Signature=/);

    // A stage holds up to 10,000 scenes: they are read a page at a time, after the last one seen.
    const page = async (limit: number | null, afterSequence: number | null) =>
      t.gql(t.editor, 'query($j: ID!, $l: Int, $a: Int) { job(jobId: $j) { scenes(limit: $l, afterSequence: $a) { sequence } } }', {
        j: job.jobId,
        l: limit,
        a: afterSequence,
      });
    expect((await page(2, null)).data.job.scenes).toEqual([{ sequence: 1 }, { sequence: 2 }]);
    expect((await page(2, 2)).data.job.scenes).toEqual([{ sequence: 3 }]);
    expect((await page(null, 3)).data.job.scenes).toEqual([]);
    expect((await page(1001, null)).errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'limit' });
  }, 60_000);

  it('fails a threshold stage only past its threshold, and a retried item reopens it', async () => {
    const t = await tenant(longLease);
    // BATCH: 2 attempts an item, and the stage fails when more than 25 % of its items fail (2 of 8 may).
    const { jobId } = await t.createJob({ kind: 'BATCH', items: Array.from({ length: 8 }, (_, i) => ({ source: t.key(`${i}.png`) })) });
    const w = await t.worker(1);
    // Fails whichever item claimWork hands out (a failed attempt waits for its next one, after its backoff).
    const failOne = async () => {
      const c = await t.claimWhenReady(w, 'BATCH', 'process');
      expect((await t.fail(w, jobId, 'process', c.item.sequence, c.item.attempt)).errors).toBeUndefined();
    };
    // Fail attempts until two items have failed past their attempts: 2 of 8 is 25 %, not past it.
    while ((await t.job(jobId)).itemCounts.failed < 2) await failOne();
    expect(await t.job(jobId)).toMatchObject({ status: 'RUNNING', itemCounts: { failed: 2 } });
    while ((await t.job(jobId)).itemCounts.failed < 3) await failOne();
    const failed = await t.job(jobId);
    expect(failed).toMatchObject({ status: 'FAILED', error: { code: 'ITEMS_FAILED' }, itemCounts: { total: 8, failed: 3 } });

    const third = failed.items.nodes.filter((i: { status: string }) => i.status === 'FAILED')[2];
    const retried = await t.gql(
      t.editor,
      'mutation($j: ID!, $n: Int!) { retryWorkItem(jobId: $j, stage: "process", sequence: $n) { status } }',
      {
        j: jobId,
        n: third.sequence,
      },
    );
    expect(retried.data.retryWorkItem.status).toBe('PENDING');
    expect(await t.job(jobId)).toMatchObject({ status: 'RUNNING', itemCounts: { failed: 2 } });
    // The rest complete, those waiting for their backoff once it ends.
    while ((await t.job(jobId)).status === 'RUNNING') {
      const c = await t.claimWhenReady(w, 'BATCH', 'process');
      expect((await t.complete(w, jobId, 'process', c.item.sequence, c.item.attempt, { result: t.key('r.png') })).errors).toBeUndefined();
    }
    expect(await t.job(jobId)).toMatchObject({ status: 'COMPLETED', itemCounts: { total: 8, completed: 6, failed: 2, pending: 0 } });
  }, 60_000);

  it('refuses bad item inputs and outputs with BAD_USER_INPUT naming the field', async () => {
    const t = await tenant(longLease);
    const job = await t.createJob({
      kind: 'MUSIC_VIDEO',
      inputs: { characterImage: t.key('hero.png'), audioBackingTrack: t.key('track.mp3') },
    });
    const w = await t.worker(1);
    const cases: [unknown, string][] = [
      [{ prompt: 'x', audioClip: 'https://bucket.s3.amazonaws.com/a.mp3?X-Amz-Signature=1' }, 'items[0].audioClip'],
      [{ negativePrompt: 'no prompt' }, 'items[0].prompt'],
      [{ prompt: 'x', durationSeconds: 'long' }, 'items[0].durationSeconds'],
      [{ prompt: 'x', audioClip: 'tenants/someone-else/a.mp3' }, 'items[0].audioClip'],
      [{ prompt: 'x', unknownField: 1 }, 'items[0].unknownField'],
    ];
    for (const [item, field] of cases) {
      const out = await t.addItems(w, job.jobId, 'render-scenes', [item]);
      expect(out.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field });
    }
    const created = await t.gql(t.editor, 'mutation($input: CreateJobInput!) { createJob(input: $input) { jobId } }', {
      input: { projectId: t.projectId, kind: 'BATCH', items: [{ source: 42 }] },
    });
    expect(created.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'items[0].source' });

    // A completion's outputs are checked against the stage's item outputs.
    const { jobId } = await t.createJob({ kind: 'BATCH', items: [{ source: t.key('a.png') }] });
    const c = await t.claim(w, 'BATCH');
    const bad = await t.complete(w, jobId, 'process', c.item.sequence, 1, { result: 'https://example.com/r.png' });
    expect(bad.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'outputs.result' });
    expect((await t.job(jobId)).itemCounts).toMatchObject({ running: 1, completed: 0 });
    // A worker cannot start or complete a fan-out stage's step itself.
    const direct = await t.gql(w, 'mutation($j: ID!) { completeStep(jobId: $j, stepName: "process") { status } }', { j: jobId });
    expect(direct.errors[0].extensions.code).toBe('INVALID_TRANSITION');
  }, 60_000);

  it('leaves a new asset version in the project, linked to the job, in the transaction that completes an asset stage', async () => {
    const t = await tenant(longLease);
    const { jobId } = await t.createJob({
      kind: 'PHOTO_EDIT',
      inputs: { s3TempKey: t.key('tmp/p.jpg'), fileSize: 1000, fileType: 'image/jpeg' },
    });
    const w = await t.worker(1);
    const outputs: Record<string, unknown> = {
      analyze: { analysisResult: { faces: 1 } },
      edit: { editResult: { filter: 'warm' } },
      finalize: { s3FinalKey: t.key('final/p.jpg') },
    };
    const assetsOf = async () =>
      (
        await t.gql(
          t.editor,
          'query($p: ID!) { assets(projectId: $p) { nodes { assetId type s3Key status latestVersion jobId metadata } } }',
          {
            p: t.projectId,
          },
        )
      ).data.assets.nodes;
    for (const stage of ['analyze', 'edit', 'finalize']) {
      expect(await assetsOf()).toEqual([]);
      const c = await t.claim(w, 'PHOTO_EDIT');
      expect(c.step.name).toBe(stage);
      if (stage === 'finalize') {
        // A completion refused (an attempt that is not the current one) writes no asset either.
        const refused = await t.gql(
          w,
          'mutation($j: ID!, $o: JSONObject) { completeStep(jobId: $j, stepName: "finalize", attempt: 2, outputs: $o) { status } }',
          {
            j: jobId,
            o: outputs.finalize,
          },
        );
        expect(refused.errors[0].extensions.code).toBe('INVALID_TRANSITION');
        expect(await assetsOf()).toEqual([]);
      }
      const done = await t.gql(
        w,
        'mutation($j: ID!, $s: String!, $o: JSONObject) { completeStep(jobId: $j, stepName: $s, attempt: 1, outputs: $o) { status } }',
        {
          j: jobId,
          s: stage,
          o: outputs[stage],
        },
      );
      expect(done.errors).toBeUndefined();
    }
    const assets = await assetsOf();
    expect(assets).toEqual([
      expect.objectContaining({ type: 'IMAGE', s3Key: t.key('final/p.jpg'), status: 'READY', latestVersion: 1, jobId }),
    ]);
    expect(assets[0].metadata).toMatchObject({ s3FinalKey: t.key('final/p.jpg'), step: 'finalize', kind: 'PHOTO_EDIT' });
    const activity = await t.gql(t.editor, 'query($p: ID!) { activity(projectId: $p, first: 5) { nodes { action data } } }', {
      p: t.projectId,
    });
    expect(activity.data.activity.nodes[0]).toMatchObject({ action: 'asset.created', data: { jobId, step: 'finalize' } });
  }, 60_000);
});
