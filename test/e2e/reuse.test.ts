import { Role, startTestServer, type TestServer } from '../support/server';
import { subscribe, wsClient } from '../support/ws';

/**
 * Reuse by content hash (src/job/job.reuse.ts, seed 000's pipeline idempotency): a step or item of
 * a stage declared reusable whose key fields, seed and model version match a completed one of the
 * same tenant within the declared time completes at once from its stored outputs, with an event
 * naming the source, and no worker is ever handed it. Real DynamoDB Local, a real server; the
 * server's clock is moved (not waited for) to see a record's time run out.
 */
describe('reuse of completed work by content hash', () => {
  let server: TestServer;
  /** How far the server's clock is ahead of the wall clock (the TTL test moves it). */
  let clockAhead = 0;
  let tenantCounter = 0;

  beforeAll(async () => {
    server = await startTestServer({ env: { JOB_LEASE_SECONDS: '600' }, now: () => new Date(Date.now() + clockAhead) });
  });
  afterEach(() => {
    clockAhead = 0;
  });

  const ITEM = 'stage sequence status attempt outputs reusedFrom { jobId stage sequence completedAt }';
  const JOB =
    'jobId status version seq currentStep progress seed modelVersion reuse itemCounts { total pending running completed failed } steps { name attempt status artifacts outputs reusedFrom { jobId stage sequence } }';
  const EVENT = 'seq type step { name status } item { sequence status } reused { stage sequence from { jobId stage sequence } }';

  /** A tenant of its own (reuse is per tenant) with an editor, two projects and a worker. */
  async function tenant() {
    const tenantId = `reuse-${Date.now()}-${++tenantCounter}`;
    const editor = await server.token(tenantId, [Role.EDITOR], 'artist');
    const worker = await server.token(tenantId, [Role.WORKER], 'gpu');
    const gql = async (token: string, query: string, variables: Record<string, unknown> = {}) => {
      const out = (await server.raw({ query, variables }, token)).body;
      if (out.errors) throw new Error(JSON.stringify(out.errors));
      return out.data;
    };
    const project = async (title: string) =>
      (await gql(editor, 'mutation($t: String!) { createProject(input: { title: $t }) { projectId } }', { t: title })).createProject
        .projectId;
    const [first, second] = [await project('First'), await project('Second')];
    const key = (name: string) => `tenants/${tenantId}/${name}`;
    const createJob = async (input: Record<string, unknown>) =>
      (await gql(editor, `mutation($input: CreateJobInput!) { createJob(input: $input) { ${JOB} } }`, { input })).createJob;
    const job = async (jobId: string) =>
      (await gql(editor, `query($j: ID!) { job(jobId: $j) { ${JOB} items(first: 10) { nodes { ${ITEM} } } } }`, { j: jobId })).job;
    const claim = async (kind: string, stage?: string) =>
      (
        await gql(
          worker,
          `mutation($k: String, $s: String) { claimWork(kind: $k, stage: $s) { job { jobId } step { name attempt } item { ${ITEM} } } }`,
          { k: kind, s: stage },
        )
      ).claimWork;
    const startStep = (jobId: string, stepName: string) =>
      gql(worker, 'mutation($j: ID!, $s: String!) { startStep(jobId: $j, stepName: $s) { status } }', { j: jobId, s: stepName });
    const completeStep = (jobId: string, stepName: string, artifacts: string[], outputs?: Record<string, unknown>) =>
      gql(
        worker,
        'mutation($j: ID!, $s: String!, $a: [String!], $o: JSONObject) { completeStep(jobId: $j, stepName: $s, artifacts: $a, outputs: $o) { currentStep } }',
        { j: jobId, s: stepName, a: artifacts, o: outputs },
      );
    const completeItem = (jobId: string, stage: string, sequence: number, attempt: number, outputs: Record<string, unknown>) =>
      gql(
        worker,
        `mutation($j: ID!, $st: String!, $n: Int!, $a: Int!, $o: JSONObject!) { completeWorkItem(jobId: $j, stage: $st, sequence: $n, attempt: $a, outputs: $o) { ${ITEM} } }`,
        { j: jobId, st: stage, n: sequence, a: attempt, o: outputs },
      );
    const addItems = async (jobId: string, stage: string, items: unknown[]) =>
      (
        await gql(
          worker,
          'mutation($j: ID!, $s: String!, $i: [JSONObject!]!) { addWorkItems(jobId: $j, stage: $s, items: $i) { itemCounts { total pending running completed failed } } }',
          { j: jobId, s: stage, i: items },
        )
      ).addWorkItems;
    /** The job's whole stream, replayed from 0 up to its current seq. */
    const events = async (jobId: string) => {
      const { seq } = await job(jobId);
      const client = wsClient(server.url, editor);
      const replay = subscribe(client, `subscription($j: ID!) { jobProgress(jobId: $j, afterSeq: 0) { ${EVENT} } }`, { j: jobId });
      await replay.ack;
      return replay.waitFor(seq, 30_000);
    };
    return { first, second, key, createJob, job, claim, startStep, completeStep, completeItem, addItems, events };
  }

  type Tenant = Awaited<ReturnType<typeof tenant>>;

  const scenes = (t: Tenant) =>
    [1, 2, 3].map((n) => ({ prompt: `Scene ${n}`, durationSeconds: 4, audioClip: t.key(`clips/${n}.mp3`), needsLipSync: n === 2 }));
  const musicInputs = (t: Tenant) => ({ characterImage: t.key('hero.png'), audioBackingTrack: t.key('track.mp3') });

  /** Runs a MUSIC_VIDEO job through its worker: generate-scenes, every claimable scene, compose. */
  async function runMusicVideo(t: Tenant, jobId: string) {
    await t.startStep(jobId, 'generate-scenes');
    await t.completeStep(jobId, 'generate-scenes', [], { sceneCount: 3 });
    for (let guard = 0; guard < 10; guard++) {
      const claimed = await t.claim('MUSIC_VIDEO', 'render-scenes');
      if (!claimed) break;
      const { sequence, attempt } = claimed.item;
      await t.completeItem(jobId, 'render-scenes', sequence, attempt, { videoClip: t.key(`video/${jobId}/${sequence}.mp4`) });
    }
    await t.startStep(jobId, 'compose');
    await t.completeStep(jobId, 'compose', [], { video: t.key(`video/${jobId}.mp4`) });
    expect((await t.job(jobId)).status).toBe('COMPLETED');
  }

  it("completes a job's scenes from another project's completed ones with the same inputs and model version, without a claim", async () => {
    const t = await tenant();
    const source = await t.createJob({
      projectId: t.first,
      kind: 'MUSIC_VIDEO',
      inputs: musicInputs(t),
      modelVersion: 'render-v1',
      items: scenes(t),
    });
    await runMusicVideo(t, source.jobId);

    // The same scenes in another project of the tenant, with the same model version: they complete
    // in createJob's own transaction from the stored clips.
    const again = await t.createJob({
      projectId: t.second,
      kind: 'MUSIC_VIDEO',
      inputs: musicInputs(t),
      modelVersion: 'render-v1',
      items: scenes(t),
    });
    expect(again).toMatchObject({ modelVersion: 'render-v1', reuse: true, status: 'QUEUED', currentStep: 'generate-scenes' });
    expect(again.itemCounts).toEqual({ total: 3, pending: 0, running: 0, completed: 3, failed: 0 });
    const items = (await t.job(again.jobId)).items.nodes;
    for (const item of items) {
      expect(item).toMatchObject({
        status: 'COMPLETED',
        outputs: { videoClip: t.key(`video/${source.jobId}/${item.sequence}.mp4`) },
        reusedFrom: { jobId: source.jobId, stage: 'render-scenes', sequence: item.sequence },
      });
    }
    // No worker is handed any of them, before or after the job reaches their stage, and the stage
    // completes by itself once it opens: the job goes straight on to compose.
    expect(await t.claim('MUSIC_VIDEO', 'render-scenes')).toBeNull();
    await t.startStep(again.jobId, 'generate-scenes');
    expect((await t.completeStep(again.jobId, 'generate-scenes', [], { sceneCount: 3 })).completeStep.currentStep).toBe('compose');
    expect(await t.claim('MUSIC_VIDEO', 'render-scenes')).toBeNull();
    const after = await t.job(again.jobId);
    expect(after).toMatchObject({ status: 'RUNNING', currentStep: 'compose' });
    expect(after.itemCounts).toEqual({ total: 3, pending: 0, running: 0, completed: 3, failed: 0 });

    const stream = await t.events(again.jobId);
    expect(stream.map((e: { type: string }) => e.type)).toEqual([
      'JOB_CREATED',
      'ITEMS_REUSED',
      'STEP_STARTED',
      'STEP_COMPLETED',
      'STEP_STARTED',
      'STEP_COMPLETED',
    ]);
    expect(stream.map((e: { seq: number }) => e.seq)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(stream[1].reused).toEqual(
      [1, 2, 3].map((n) => ({ stage: 'render-scenes', sequence: n, from: { jobId: source.jobId, stage: 'render-scenes', sequence: n } })),
    );
  }, 120_000);

  it('completes a scene added to a running stage from a stored one at once, and the stage when its last item is done', async () => {
    const t = await tenant();
    const source = await t.createJob({ projectId: t.first, kind: 'MUSIC_VIDEO', inputs: musicInputs(t), items: scenes(t) });
    await runMusicVideo(t, source.jobId);

    const fresh = { prompt: 'A new scene', durationSeconds: 4, audioClip: t.key('clips/new.mp3') };
    const job = await t.createJob({ projectId: t.second, kind: 'MUSIC_VIDEO', inputs: musicInputs(t), items: [fresh] });
    expect(job.itemCounts).toMatchObject({ total: 1, pending: 1, completed: 0 });
    await t.startStep(job.jobId, 'generate-scenes');
    await t.completeStep(job.jobId, 'generate-scenes', [], { sceneCount: 2 });
    // Added while the stage runs: the stored scene completes in the add's own transaction.
    const added = await t.addItems(job.jobId, 'render-scenes', [scenes(t)[1]]);
    expect(added.itemCounts).toEqual({ total: 2, pending: 1, running: 0, completed: 1, failed: 0 });
    // The only work a worker gets is the new scene.
    const claimed = await t.claim('MUSIC_VIDEO', 'render-scenes');
    expect(claimed.item).toMatchObject({ sequence: 1, reusedFrom: null });
    expect(await t.claim('MUSIC_VIDEO', 'render-scenes')).toBeNull();
    await t.completeItem(job.jobId, 'render-scenes', 1, claimed.item.attempt, { videoClip: t.key('video/new.mp4') });
    const after = await t.job(job.jobId);
    expect(after).toMatchObject({ status: 'RUNNING', currentStep: 'compose' });
    expect(after.itemCounts).toEqual({ total: 2, pending: 0, running: 0, completed: 2, failed: 0 });
    const reused = (await t.events(job.jobId)).filter((e: { type: string }) => e.type === 'ITEMS_REUSED');
    expect(reused).toHaveLength(1);
    expect(reused[0].reused).toEqual([
      { stage: 'render-scenes', sequence: 2, from: { jobId: source.jobId, stage: 'render-scenes', sequence: 2 } },
    ]);
  }, 120_000);

  it('runs the same scenes on a worker for another model version, for another seed, and for a job that asks not to reuse', async () => {
    const t = await tenant();
    const source = await t.createJob({
      projectId: t.first,
      kind: 'MUSIC_VIDEO',
      inputs: musicInputs(t),
      modelVersion: 'v1',
      items: scenes(t),
    });
    await runMusicVideo(t, source.jobId);
    const cases = [{ modelVersion: 'v2' }, { modelVersion: 'v1', seed: '42' }, { modelVersion: 'v1', reuse: false }];
    for (const extra of cases) {
      const job = await t.createJob({ projectId: t.second, kind: 'MUSIC_VIDEO', inputs: musicInputs(t), items: scenes(t), ...extra });
      expect(job.reuse).toBe(extra.reuse ?? true);
      expect(job.itemCounts).toEqual({ total: 3, pending: 3, running: 0, completed: 0, failed: 0 });
      await t.startStep(job.jobId, 'generate-scenes');
      await t.completeStep(job.jobId, 'generate-scenes', [], { sceneCount: 3 });
      const claimed = await t.claim('MUSIC_VIDEO', 'render-scenes');
      expect(claimed).toMatchObject({ job: { jobId: job.jobId }, item: { status: 'RUNNING', reusedFrom: null } });
      expect((await t.events(job.jobId)).map((e: { type: string }) => e.type)).not.toContain('ITEMS_REUSED');
      // Finish it so the next case's claims find only their own job's scenes.
      await t.completeItem(job.jobId, 'render-scenes', claimed.item.sequence, 1, { videoClip: t.key('v.mp4') });
      for (let guard = 0; guard < 5; guard++) {
        const next = await t.claim('MUSIC_VIDEO', 'render-scenes');
        if (!next) break;
        await t.completeItem(job.jobId, 'render-scenes', next.item.sequence, 1, { videoClip: t.key('v.mp4') });
      }
      expect((await t.job(job.jobId)).currentStep).toBe('compose');
    }
  }, 120_000);

  it('completes the steps before the review from a completed job, when a job reaches them or at creation, never claimable', async () => {
    const t = await tenant();
    const inputs = { prompt: 'a knight in tin armour' };
    const same = { kind: '3D_CHARACTER', inputs, seed: '7', modelVersion: 'm1' };
    const artifactOf = (jobId: string, step: string) => t.key(`jobs/${jobId}/${step}.bin`);
    const run = async (jobId: string, step: string) => {
      await t.startStep(jobId, step);
      return (await t.completeStep(jobId, step, [artifactOf(jobId, step)])).completeStep.currentStep;
    };
    const a = await t.createJob({ projectId: t.first, ...same });
    const b = await t.createJob({ projectId: t.second, ...same, idempotencyKey: `b-${Date.now()}` });
    // A runs text-to-image and refine first. B's text-to-image was current before A's record
    // existed, so a worker runs it; when it completes, B reaches refine, which completes from A's
    // in the same transaction, and B waits at 3d.
    await run(a.jobId, 'text-to-image');
    await run(a.jobId, 'refine');
    expect(await run(b.jobId, 'text-to-image')).toBe('3d');
    const reached = await t.job(b.jobId);
    expect(reached.steps.find((s: { name: string }) => s.name === 'refine')).toMatchObject({
      status: 'COMPLETED',
      artifacts: [artifactOf(a.jobId, 'refine')],
      reusedFrom: { jobId: a.jobId, stage: 'refine', sequence: null },
    });
    expect(await t.claim('3D_CHARACTER', 'refine')).toBeNull();
    expect((await t.events(b.jobId)).map((e: { type: string; step?: { name: string } }) => `${e.type} ${e.step?.name}`)).toEqual([
      'JOB_CREATED undefined',
      'STEP_STARTED text-to-image',
      'STEP_COMPLETED text-to-image',
      'STEP_REUSED refine',
    ]);
    // 3d has no record yet: A's and B's are both a worker's.
    const claimed = [await t.claim('3D_CHARACTER', '3d'), await t.claim('3D_CHARACTER', '3d')];
    expect(claimed.map((c) => c.job.jobId).sort()).toEqual([a.jobId, b.jobId].sort());
    await t.completeStep(a.jobId, '3d', [artifactOf(a.jobId, '3d')]);
    await run(a.jobId, 'retopo');

    // A third job with the same prompt, seed and model version completes all four at creation, in
    // createJob's transaction, and waits at the review stage; no worker is handed any of them.
    const c = await t.createJob({ projectId: t.second, ...same, idempotencyKey: `c-${Date.now()}` });
    expect(c).toMatchObject({ status: 'RUNNING', currentStep: 'rig', seed: '7', modelVersion: 'm1', reuse: true });
    // text-to-image's record is B's: a later completion with the key replaces it. refine's is A's:
    // B's refine was itself reused, which records nothing.
    const sources: Record<string, string> = { 'text-to-image': b.jobId, refine: a.jobId, '3d': a.jobId, retopo: a.jobId };
    for (const [step, from] of Object.entries(sources)) {
      expect(c.steps.find((s: { name: string }) => s.name === step)).toMatchObject({
        status: 'COMPLETED',
        artifacts: [artifactOf(from, step)],
        reusedFrom: { jobId: from, stage: step, sequence: null },
      });
    }
    for (const step of Object.keys(sources)) expect(await t.claim('3D_CHARACTER', step)).toBeNull();
    const stream = await t.events(c.jobId);
    expect(stream.map((e: { type: string; step?: { name: string } }) => `${e.type} ${e.step?.name}`)).toEqual([
      'JOB_CREATED undefined',
      'STEP_REUSED text-to-image',
      'STEP_REUSED refine',
      'STEP_REUSED 3d',
      'STEP_REUSED retopo',
    ]);
    expect(stream[1].reused).toEqual([
      { stage: 'text-to-image', sequence: null, from: { jobId: b.jobId, stage: 'text-to-image', sequence: null } },
    ]);

    // A job that asks not to reuse runs them all on workers.
    const d = await t.createJob({ projectId: t.first, ...same, reuse: false });
    expect(d).toMatchObject({ status: 'QUEUED', currentStep: 'text-to-image', reuse: false });
    expect(await t.claim('3D_CHARACTER', 'text-to-image')).toMatchObject({ job: { jobId: d.jobId } });
  }, 120_000);

  it('uses a record within its declared time and not after it', async () => {
    const t = await tenant();
    const inputs = { prompt: 'a robot made of teapots' };
    const a = await t.createJob({ projectId: t.first, kind: '3D_CHARACTER', inputs, modelVersion: 'm1' });
    await t.startStep(a.jobId, 'text-to-image');
    await t.completeStep(a.jobId, 'text-to-image', [t.key('a.bin')]);
    // text-to-image is reusable for 72 hours. The server's clock is moved instead of waited for.
    const hours = (n: number) => n * 3_600_000;
    clockAhead = hours(71);
    const within = await t.createJob({ projectId: t.second, kind: '3D_CHARACTER', inputs, modelVersion: 'm1', idempotencyKey: 'within' });
    expect(within.currentStep).toBe('refine');
    clockAhead = hours(72) + 60_000;
    const past = await t.createJob({ projectId: t.second, kind: '3D_CHARACTER', inputs, modelVersion: 'm1', idempotencyKey: 'past' });
    expect(past).toMatchObject({ status: 'QUEUED', currentStep: 'text-to-image' });
    expect(past.steps.find((s: { name: string }) => s.name === 'text-to-image')).toMatchObject({ status: 'PENDING', reusedFrom: null });
    expect(await t.claim('3D_CHARACTER', 'text-to-image')).toMatchObject({ job: { jobId: past.jobId } });
  }, 120_000);
});
