import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { signDevToken } from '../../src/auth/jwt';
import { Role } from '../../src/auth/principal';
import { ApproveStepDocument, CreateJobDocument, GetJobDocument, StepsAwaitingReviewDocument } from '../../src/client/gql/graphql';
import { demoId, REVIEW_STEP } from '../../src/demo/demo.data';
import { loadDemo } from '../../src/demo/demo.loader';
import { startSimulator } from '../../src/demo/simulator';
import { dataOf, startTestServer, TEST_SECRET, type TestServer, dynamoDocOf } from '../support/server';
import { stoppedAfter } from '../support/fixtures';
import { OUTBOX_ENTRY } from '../../src/infra/dynamo/write';

describe('the demo', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer();
  });

  const demoItems = async () => {
    const out = await dynamoDocOf(server.app).send(new ScanCommand({ TableName: server.config.tableName }));
    return (
      (out.Items ?? [])
        // Whether an event is still in the outbox (itself, or a commit's entry for its events) is
        // publishing state, removed moments after commit.
        .filter((i) => String(i.PK).startsWith('TENANT#demo') && i.entityType !== OUTBOX_ENTRY)
        .map(({ OUTBOXPK: _pk, OUTBOXSK: _sk, ...item }) => item)
        .sort((a, b) => `${a.PK}${a.SK}`.localeCompare(`${b.PK}${b.SK}`))
    );
  };

  it('loads projects in every status, versioned briefs, milestones, logs, assets with files, inspiration and the three kinds of job — and loading twice changes nothing', async () => {
    const first = await loadDemo(server.app, server.config);
    const before = await demoItems();
    const kinds = (type: string) => before.filter((i) => i.entityType === type);
    expect(
      kinds('Project')
        .map((p) => p.status)
        .sort(),
    ).toEqual(['complete', 'planning', 'production']);
    expect(Math.max(...kinds('Brief').map((b) => b.version))).toBe(3);
    expect(kinds('Milestone')).toHaveLength(4);
    expect(kinds('Log').length).toBeGreaterThanOrEqual(6);
    expect(kinds('MaterialUse').length).toBeGreaterThan(6);
    expect(kinds('Asset').every((a) => a.status === 'ready')).toBe(true);
    expect(kinds('Inspiration')).toHaveLength(3);
    expect(
      kinds('Job')
        .map((j) => j.kind)
        .sort(),
    ).toEqual(['3D_CHARACTER', 'MUSIC_VIDEO', 'PHOTO_EDIT']);

    const second = await loadDemo(server.app, server.config);
    expect(second).toEqual(first);
    expect(await demoItems()).toEqual(before);
  });

  it('has a simulator that drives a job to completion through the API, pausing 3D work for review until approved', async () => {
    await loadDemo(server.app, server.config);
    const secret = new TextEncoder().encode(TEST_SECRET);
    const editor = await signDevToken(secret, { sub: 'person', tenantId: 'demo', roles: [Role.EDITOR] });
    const worker = await signDevToken(secret, { sub: 'demo-worker', tenantId: 'demo', roles: [Role.WORKER] });
    stoppedAfter('demo simulator', startSimulator({ url: server.url, workerToken: worker, editorToken: editor, tickMs: 40 }));
    const photo = dataOf(
      await server.request(
        CreateJobDocument,
        { input: { projectId: demoId('proj', 1), kind: 'PHOTO_EDIT', steps: ['analyze', 'edit', 'export'], inputs: { n: 'sim' } } },
        editor,
      ),
    ).createJob.jobId;
    // Generous: each round of the simulator is a few requests, which a busy machine slows down.
    const waitFor = async (check: () => Promise<boolean>, what: string) => {
      const deadline = Date.now() + 150_000;
      while (!(await check())) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    };
    const statusOf = async (jobId: string) => dataOf(await server.request(GetJobDocument, { jobId }, editor)).job!;
    await waitFor(async () => (await statusOf(photo)).status === 'COMPLETED', 'the photo edit to complete');
    const done = await statusOf(photo);
    expect(done.steps.map((s) => [s.name, s.status, s.artifacts.length])).toEqual([
      ['analyze', 'COMPLETED', 1],
      ['edit', 'COMPLETED', 1],
      ['export', 'COMPLETED', 1],
    ]);

    const robot = demoId('job', 1);
    await waitFor(async () => (await statusOf(robot)).status === 'PAUSED', 'the 3D job to pause for review');
    const review = dataOf(await server.request(StepsAwaitingReviewDocument, {}, editor)).stepsAwaitingReview.nodes;
    expect(review).toContainEqual(expect.objectContaining({ jobId: robot, name: REVIEW_STEP }));
    await server.request(ApproveStepDocument, { jobId: robot, stepName: REVIEW_STEP }, editor);
    await waitFor(async () => (await statusOf(robot)).status === 'COMPLETED', 'the 3D job to complete after approval');
    expect((await statusOf(robot)).steps.find((s) => s.name === REVIEW_STEP)).toMatchObject({
      status: 'COMPLETED',
      approvedBy: 'person',
    });
  }, 400_000);

  it('is ready with a job paused for review and a running job with a minute or more to go as soon as its first round is done', async () => {
    await loadDemo(server.app, server.config);
    const secret = new TextEncoder().encode(TEST_SECRET);
    const editor = await signDevToken(secret, { sub: 'person', tenantId: 'demo', roles: [Role.EDITOR] });
    const worker = await signDevToken(secret, { sub: 'demo-worker', tenantId: 'demo', roles: [Role.WORKER] });
    // The default tick, one a second: "a minute" is 60 of them.
    const simulator = stoppedAfter('demo simulator', startSimulator({ url: server.url, workerToken: worker, editorToken: editor }));
    await simulator.ready;
    const review = simulator.reviewJob();
    expect(review).toBeDefined();
    expect(dataOf(await server.request(GetJobDocument, { jobId: review!.jobId }, editor)).job!.status).toBe('PAUSED');
    const featured = dataOf(await server.request(GetJobDocument, { jobId: simulator.featuredJobId()! }, editor)).job!;
    expect(['QUEUED', 'RUNNING']).toContain(featured.status);
    // Each step of a watched job takes about 22 ticks (a start, 20 reports, a completion): three open steps are over a minute.
    const open = new Set(featured.steps.filter((s) => s.status !== 'COMPLETED').map((s) => s.name));
    expect(open.size).toBeGreaterThanOrEqual(3);
  }, 120_000);
});
