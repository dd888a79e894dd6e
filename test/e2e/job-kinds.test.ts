import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { REVIEW_STEP } from '../../src/demo/demo.data';
import { loadDemo } from '../../src/demo/demo.loader';
import { JOB_KINDS, type JobKindDeclaration } from '../../src/job/job.kinds';
import { fixture } from '../support/fixtures';
import { Role, startTestServer, type TestServer, dynamoDocOf } from '../support/server';

/** One strict fan-out stage whose items get one attempt each: the first failure fails the stage and the job. */
const STRICT: JobKindDeclaration = {
  description: 'Numbered items, one attempt each; none may fail.',
  inputs: { label: { kind: 'string', required: true } },
  stages: [{ name: 'process', phase: 'processing', fanOut: { inputs: { n: { kind: 'int', required: true } }, outputs: {}, attempts: 1 } }],
};

/** Declared pipelines (src/job/job.kinds.ts): stages, typed inputs and outputs, review, phases, and the job's lifecycle. */
describe('declared job kinds', () => {
  let server: TestServer;
  let editor: string;
  let worker: string;
  let projectId: string;
  const gql = async (token: string, query: string, variables: Record<string, unknown> = {}) =>
    (await server.raw({ query, variables }, token)).body;
  const JOB = 'jobId status phase currentStep version plan { name } inputs steps { name attempt status outputs }';
  const create = (input: Record<string, unknown>) =>
    gql(editor, `mutation($input: CreateJobInput!) { createJob(input: $input) { ${JOB} } }`, { input: { projectId, ...input } });
  const act = (mutation: string, jobId: string, stepName: string, extra = '') =>
    gql(worker, `mutation($j: ID!, $s: String!) { ${mutation}(jobId: $j, stepName: $s${extra}) { ${JOB} } }`, { j: jobId, s: stepName });
  const musicInputs = { characterImage: 'tenants/studio-k/hero.png', audioBackingTrack: 'tenants/studio-k/track.mp3' };
  const itemsOfJob = async (jobId: string) => {
    const out = await dynamoDocOf(server.app).send(new ScanCommand({ TableName: server.config.tableName }));
    return (out.Items ?? []).filter((item) => String(item.PK).endsWith(`#JOB#${jobId}`));
  };

  beforeAll(async () => {
    server = await startTestServer();
    editor = await server.token('studio-k', [Role.EDITOR], 'artist');
    worker = await server.token('studio-k', [Role.WORKER], 'gpu');
    projectId = (await gql(editor, 'mutation { createProject(input: { title: "Kinds" }) { projectId } }')).data.createProject.projectId;
  });

  it('lists the three seed pipelines with their stages, phases and fields', async () => {
    const kinds = (
      await gql(editor, '{ jobKinds { name stages { name phase review outputs { name } } inputs { name type required s3Key } } }')
    ).data.jobKinds;
    expect(kinds.map((k: { name: string }) => k.name)).toEqual(['3D_CHARACTER', 'MUSIC_VIDEO', 'PHOTO_EDIT', 'BATCH']);
    const music = kinds.find((k: { name: string }) => k.name === 'MUSIC_VIDEO');
    expect(music.stages.map((s: { phase: string }) => s.phase)).toEqual(['generating_scenes', 'processing', 'composing']);
    expect(music.inputs).toContainEqual({ name: 'characterImage', type: 'string', required: true, s3Key: true });
  });

  it('plans a declared kind from its stages and shows its phases as it runs', async () => {
    const created = await create({ kind: 'MUSIC_VIDEO', inputs: musicInputs });
    expect(created.errors).toBeUndefined();
    const job = created.data.createJob;
    expect(job.plan.map((p: { name: string }) => p.name)).toEqual(['generate-scenes', 'render-scenes', 'compose']);
    expect(job.phase).toBe('pending');
    expect((await act('startStep', job.jobId, 'generate-scenes')).data.startStep.phase).toBe('generating_scenes');
    const missing = await act('completeStep', job.jobId, 'generate-scenes', ', outputs: {}');
    expect(missing.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'outputs.sceneCount' });
    const unknown = await act('completeStep', job.jobId, 'generate-scenes', ', outputs: { sceneCount: 8, scenes: [] }');
    expect(unknown.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'outputs.scenes' });
    const done = (await act('completeStep', job.jobId, 'generate-scenes', ', outputs: { sceneCount: 8 }')).data.completeStep;
    expect(done.steps[0]).toMatchObject({ status: 'COMPLETED', outputs: { sceneCount: 8 } });
    // render-scenes is a fan-out stage: workers claim its items, not its step (test/e2e/fanout.test.ts).
    // The job reaches it in the same commit as the completion; with no items it opens and completes
    // there and then, so the answer already shows the job at compose.
    expect(done.phase).toBe('composing');
    expect(done.steps.find((s: { name: string }) => s.name === 'render-scenes')).toMatchObject({ status: 'COMPLETED' });
    expect((await act('startStep', job.jobId, 'render-scenes')).errors[0].extensions.code).toBe('INVALID_TRANSITION');
    const now = await gql(editor, 'query($j: ID!) { job(jobId: $j) { phase currentStep } }', { j: job.jobId });
    expect(now.data.job).toEqual({ phase: 'composing', currentStep: 'compose' });
  });

  it('refuses inputs that break the declaration with BAD_USER_INPUT naming the field, and creates nothing', async () => {
    const before = (await gql(editor, `{ jobs(projectId: "${projectId}") { nodes { jobId } } }`)).data.jobs.nodes.length;
    const cases: [Record<string, unknown>, string][] = [
      [{ kind: 'MUSIC_VIDEO', inputs: { ...musicInputs, characterImage: 'https://example.com/hero.png' } }, 'inputs.characterImage'],
      [{ kind: 'MUSIC_VIDEO', inputs: { characterImage: musicInputs.characterImage } }, 'inputs.audioBackingTrack'],
      [{ kind: 'MUSIC_VIDEO', inputs: { ...musicInputs, audioBackingTrack: 'tenants/another/track.mp3' } }, 'inputs.audioBackingTrack'],
      [{ kind: 'PHOTO_EDIT', inputs: { s3TempKey: 'tenants/studio-k/p.jpg', fileSize: 'big', fileType: 'image/jpeg' } }, 'inputs.fileSize'],
      [
        { kind: 'PHOTO_EDIT', inputs: { s3TempKey: 'tenants/studio-k/p.jpg', fileSize: 10, fileType: 'image/jpeg', colour: 'red' } },
        'inputs.colour',
      ],
      [{ kind: 'PHOTO_EDIT', inputs: 'not an object' }, 'inputs'],
      [{ kind: 'NOT_DECLARED' }, 'steps'],
    ];
    for (const [input, field] of cases) {
      const res = await create(input);
      expect({ field, extensions: res.errors?.[0]?.extensions }).toEqual({
        field,
        extensions: expect.objectContaining({ code: 'BAD_USER_INPUT', field }),
      });
    }
    expect((await gql(editor, `{ jobs(projectId: "${projectId}") { nodes { jobId } } }`)).data.jobs.nodes.length).toBe(before);
  });

  it('keeps the free-form plan of a request that names its steps, under a declared kind name too', async () => {
    const res = await create({ kind: 'PHOTO_EDIT', steps: ['edit'], inputs: { anything: true } });
    expect(res.data.createJob.plan).toEqual([{ name: 'edit' }]);
    await act('startStep', res.data.createJob.jobId, 'edit');
    expect((await act('completeStep', res.data.createJob.jobId, 'edit')).data.completeStep.status).toBe('COMPLETED');
  });

  it('pauses a stage declared for review when it completes, until a person approves it', async () => {
    const { jobId } = (await create({ kind: '3D_CHARACTER', inputs: { prompt: 'a knight' } })).data.createJob;
    for (const stage of ['text-to-image', 'refine', '3d', 'retopo']) {
      await act('startStep', jobId, stage);
      expect((await act('completeStep', jobId, stage)).data.completeStep.status).toBe('RUNNING');
    }
    await act('startStep', jobId, 'rig');
    const paused = (await act('completeStep', jobId, 'rig')).data.completeStep;
    expect(paused).toMatchObject({ status: 'PAUSED', phase: 'rigging' });
    // A reason past its bound is refused, as an approval's comment is, not cut short; the step stays paused.
    const long = await gql(editor, 'mutation($j: ID!, $r: String!) { rejectStep(jobId: $j, stepName: "rig", reason: $r) { status } }', {
      j: jobId,
      r: 'x'.repeat(2001),
    });
    expect(long.errors[0]).toMatchObject({
      message: 'reason must be at most 2000 characters, got 2001.',
      extensions: { code: 'BAD_USER_INPUT', field: 'reason' },
    });
    const approved = await gql(editor, 'mutation($j: ID!) { approveStep(jobId: $j, stepName: "rig") { status currentStep } }', {
      j: jobId,
    });
    expect(approved.data.approveStep).toEqual({ status: 'RUNNING', currentStep: 'anim' });
  });

  it('tells a worker why a command is refused in words that hold: a pause without required outputs, an item of a failed stage, retryJob and addWorkItems out of turn', async () => {
    // A worker's pause of a stage that requires outputs: approving it would complete the step (and make its asset) without them.
    const music = (await create({ kind: 'MUSIC_VIDEO', inputs: { ...musicInputs, characterImage: 'tenants/studio-k/hero-refused.png' } }))
      .data.createJob;
    await act('startStep', music.jobId, 'generate-scenes');
    const paused = await act('pauseStepForReview', music.jobId, 'generate-scenes');
    expect(paused.errors).toEqual([
      expect.objectContaining({
        message: `Cannot pause for review Step generate-scenes of job ${music.jobId}: it is RUNNING without its outputs. Its stage requires outputs (sceneCount), which an approval would complete it without: complete it with them (completeStep).`,
        extensions: expect.objectContaining({ code: 'INVALID_TRANSITION', allowed: [] }),
      }),
    ]);
    expect(
      (await act('completeStep', music.jobId, 'generate-scenes', ', outputs: { sceneCount: 2 }')).data.completeStep.steps[0],
    ).toMatchObject({
      status: 'COMPLETED',
      outputs: { sceneCount: 2 },
    });

    // Two items held; the first one's failure fails the strict stage and the job. The other's worker is told so.
    // The kind is this test's own, declared for it alone: the first test lists the declared kinds.
    fixture('the TEST_STRICT kind', (JOB_KINDS.TEST_STRICT = STRICT), () => delete JOB_KINDS.TEST_STRICT);
    const strict = (
      await gql(editor, 'mutation($input: CreateJobInput!) { createJob(input: $input) { jobId } }', {
        input: { projectId, kind: 'TEST_STRICT', inputs: { label: 'strict' }, items: [{ n: 1 }, { n: 2 }] },
      })
    ).data.createJob.jobId;
    const claim = 'mutation { claimWork(kind: "TEST_STRICT") { item { sequence attempt } } }';
    expect((await gql(worker, claim)).data.claimWork.item).toEqual({ sequence: 1, attempt: 1 });
    expect((await gql(worker, claim)).data.claimWork.item).toEqual({ sequence: 2, attempt: 1 });
    const itemAct = (mutation: string, sequence: number, extra: string) =>
      gql(worker, `mutation($j: ID!) { ${mutation}(jobId: $j, stage: "process", sequence: ${sequence}, attempt: 1${extra}) { status } }`, {
        j: strict,
      });
    expect((await itemAct('failWorkItem', 1, ', code: "BROKEN", message: "broken"')).data.failWorkItem.status).toBe('FAILED');
    const late = await itemAct('completeWorkItem', 2, ', outputs: {}');
    expect(late.errors).toEqual([
      expect.objectContaining({
        message: `Cannot complete an item of Stage process of job ${strict}: it is FAILED at process, and that needs it RUNNING at process. Its items are worked on only while the job runs that stage, and the job failed (see its error): drop this item's work.`,
        extensions: expect.objectContaining({ code: 'INVALID_TRANSITION' }),
      }),
    ]);

    // retryJob of a job still running its fan-out stage is refused as the job's command, not for the items it says failed.
    const running = (
      await gql(editor, 'mutation($input: CreateJobInput!) { createJob(input: $input) { jobId } }', {
        input: { projectId, kind: 'TEST_STRICT', inputs: { label: 'running' }, items: [{ n: 1 }] },
      })
    ).data.createJob.jobId;
    const retried = await gql(editor, 'mutation($j: ID!) { retryJob(jobId: $j) { status } }', { j: running });
    expect(retried.errors[0].message).toMatch(
      new RegExp(`^Cannot retry Job ${running}: it is RUNNING, and that needs it FAILED\\. A job RUNNING accepts `),
    );
    // Items added to a cancelled job: it has finished, with no list of what it would need.
    await gql(editor, 'mutation($j: ID!) { cancelJob(jobId: $j) { status } }', { j: running });
    const added = await gql(worker, 'mutation($j: ID!) { addWorkItems(jobId: $j, stage: "process", items: [{ n: 2 }]) { status } }', {
      j: running,
    });
    expect(added.errors[0].message).toBe(`Cannot add items to Job ${running}: it is CANCELLED. It has finished.`);
  });

  it("has one review stage for 3D_CHARACTER, which the declaration, the demo and GraphiQL's CreateJob tab agree on", async () => {
    const kinds = (await gql(editor, '{ jobKinds { name stages { name review } } }')).data.jobKinds;
    const declared = kinds
      .find((k: { name: string }) => k.name === '3D_CHARACTER')
      .stages.filter((s: { review: boolean }) => s.review)
      .map((s: { name: string }) => s.name);
    expect(declared).toHaveLength(1);
    // The stage the demo's simulator and README wait at.
    expect(REVIEW_STEP).toBe(declared[0]);

    /** Runs a job's stages in order with a worker of its tenant, and returns the stage it paused at (or its status). */
    const pausedAt = async (token: string, jobId: string): Promise<string> => {
      for (let guard = 0; guard < 10; guard++) {
        const now = (await gql(token, 'query($j: ID!) { job(jobId: $j) { status currentStep } }', { j: jobId })).data.job;
        if (now.status !== 'QUEUED' && now.status !== 'RUNNING') return now.status === 'PAUSED' ? now.currentStep : now.status;
        await gql(token, 'mutation($j: ID!, $s: String!) { startStep(jobId: $j, stepName: $s) { seq } }', { j: jobId, s: now.currentStep });
        const done = await gql(token, 'mutation($j: ID!, $s: String!) { completeStep(jobId: $j, stepName: $s) { seq } }', {
          j: jobId,
          s: now.currentStep,
        });
        expect(done.errors).toBeUndefined();
      }
      throw new Error(`job ${jobId} did not pause within its stages`);
    };

    // The demo's 3D job, as the demo loads it.
    await loadDemo(server.app, server.config);
    const demoEditor = await server.token('demo', [Role.EDITOR], 'person');
    const demoWorker = await server.token('demo', [Role.WORKER], 'demo-worker');
    const queued = (await gql(demoEditor, '{ jobsByStatus(status: QUEUED, first: 20) { nodes { jobId kind } } }')).data.jobsByStatus.nodes;
    const demoRobot = queued.find((j: { kind: string }) => j.kind === '3D_CHARACTER');
    expect(await pausedAt(demoWorker, demoRobot.jobId)).toBe(declared[0]);

    // GraphiQL's CreateJob tab, run as the page gives it (on the demo tenant, the page's token's).
    const html = await (await fetch(server.url, { headers: { accept: 'text/html' } })).text();
    const config = JSON.parse(/<script id="graphiql-config" type="application\/json">(.*?)<\/script>/s.exec(html)![1]);
    const tab = config.tabs.find((t: { query: string }) => t.query.includes('mutation CreateJob'));
    const variables = JSON.parse(tab.variables);
    expect(variables.input.kind).toBe('3D_CHARACTER');
    const made = await gql(demoEditor, tab.query, variables);
    expect(made.errors).toBeUndefined();
    expect(await pausedAt(demoWorker, made.data.createJob.jobId)).toBe(declared[0]);
  });

  it('lets a new request take over the idempotency key of a cancelled job, and deletes finished jobs with everything under them', async () => {
    const input = { kind: 'MUSIC_VIDEO', inputs: musicInputs, idempotencyKey: `mv-${Date.now()}` };
    const first = (await create(input)).data.createJob;
    expect((await create(input)).data.createJob.jobId).toBe(first.jobId);
    const running = await gql(editor, 'mutation($j: ID!) { deleteJob(jobId: $j) { jobId } }', { j: first.jobId });
    expect(running.errors[0].extensions).toMatchObject({ code: 'INVALID_TRANSITION', from: 'QUEUED' });
    await gql(editor, 'mutation($j: ID!) { cancelJob(jobId: $j) { status } }', { j: first.jobId });
    // The cancelled job's step attempts took its expiry, so they go with it.
    const items = await itemsOfJob(first.jobId);
    const job = items.find((i) => i.SK === 'JOB');
    const steps = items.filter((i) => String(i.SK).startsWith('STEP#'));
    expect(steps.length).toBe(3);
    for (const step of steps) expect(step.expiresAt).toBe(job?.expiresAt);

    const second = (await create(input)).data.createJob;
    expect(second.jobId).not.toBe(first.jobId);
    expect((await create(input)).data.createJob.jobId).toBe(second.jobId);

    const deleted = await gql(editor, 'mutation($j: ID!) { deleteJob(jobId: $j) { jobId status } }', { j: first.jobId });
    expect(deleted.data.deleteJob).toEqual({ jobId: first.jobId, status: 'CANCELLED' });
    expect(await itemsOfJob(first.jobId)).toEqual([]);
    expect((await gql(editor, 'query($j: ID!) { job(jobId: $j) { jobId } }', { j: first.jobId })).data.job).toBeNull();
    const activity = (await gql(editor, `{ activity(projectId: "${projectId}", first: 5) { nodes { action subjectId } } }`)).data.activity
      .nodes;
    expect(activity).toContainEqual({ action: 'job.deleted', subjectId: first.jobId });
    const again = await gql(editor, 'mutation($j: ID!) { deleteJob(jobId: $j) { jobId } }', { j: first.jobId });
    expect(again.errors[0].extensions.code).toBe('NOT_FOUND');
  });
});
