import { PutCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { CreateAssetDocument, CreateProjectDocument } from '../../src/client/gql/graphql';
import { dataOf, Role, startTestServer, type TestServer, dynamoDocOf } from '../support/server';

/*
 * The complete audit trail (issue 19): review decisions and download URLs are activity events
 * with who, what and when, and a tenant's activityRetentionDays keeps the trail longer than the
 * server's default, up to forever.
 */

interface TrailEvent {
  action: string;
  actor: string;
  projectId: string | null;
  subjectType: string;
  subjectId: string;
  at: string;
  data: Record<string, unknown>;
}

const TRAIL = 'query($p: ID) { activity(projectId: $p, first: 100) { nodes { action actor projectId subjectType subjectId at data } } }';

describe('the audit trail', () => {
  let server: TestServer;
  let editor: string;
  let worker: string;
  let projectId: string;

  const run = async (query: string, variables: Record<string, unknown> = {}, as = editor) => {
    const res = await server.raw({ query, variables }, as);
    expect(res.body.errors).toBeUndefined();
    return res.body.data;
  };
  const trail = async (p: string | null): Promise<TrailEvent[]> => (await run(TRAIL, { p })).activity.nodes;
  const storedEvents = async () =>
    ((await dynamoDocOf(server.app).send(new ScanCommand({ TableName: server.config.tableName }))).Items ?? []).filter(
      (i) => String(i.PK).startsWith('TENANT#audit#') && i.entityType === 'Event' && (i.stream === 'activity' || i.stream === 'audit'),
    );

  beforeAll(async () => {
    // The counted listing must hold only its own calls: no outbox sweep, job-settle sweep (a Query
    // a shard every 10 s) or idle system-job look (a Query every 30 s) may land in its window.
    server = await startTestServer({ env: { OUTBOX_SWEEP_MS: '3600000', JOB_SETTLE_SWEEP_MS: '3600000', SYSTEM_JOB_IDLE_MS: '3600000' } });
    editor = await server.token('audit', [Role.EDITOR], 'reviewer-1');
    worker = await server.token('audit', [Role.WORKER], 'worker-1');
    projectId = dataOf(await server.request(CreateProjectDocument, { input: { title: 'Audited' } }, editor)).createProject.projectId;
  });

  it('records every download URL handed out: who, which object, for how long, in one write for a list', async () => {
    for (let n = 0; n < 5; n++) {
      await server.request(
        CreateAssetDocument,
        { projectId, input: { type: 'IMAGE', s3Key: `tenants/audit/projects/${projectId}/${n}.png` } },
        editor,
      );
    }
    await server.resetCalls();
    const listed = await run(`{ assets(projectId: "${projectId}") { nodes { s3Key url(expiresIn: 600) } } }`);
    expect(listed.assets.nodes.every((n: { url: string }) => n.url.startsWith('http'))).toBe(true);
    // One query of the assets, one read of the tenant's settings, one transaction for the five records.
    // (The outbox's UpdateItem calls, which clear published events from its index, run after the answer and are left out.)
    const calls = server.app.calls.byCommand;
    expect([calls.get('QueryCommand'), calls.get('BatchGetItemCommand'), calls.get('TransactWriteItemsCommand')]).toEqual([1, 1, 1]);

    const downloads = (await trail(null)).filter((e) => e.action === 'file.download_url_issued');
    expect(downloads).toHaveLength(5);
    for (const d of downloads) {
      expect(d).toMatchObject({ actor: 'reviewer-1', projectId, subjectType: 'File', data: { expiresInSeconds: 600 } });
      expect(d.subjectId).toBe(d.data.s3Key);
    }
    // Reads take no position in the project's stream, which subscribers follow; the timeline has them.
    expect((await trail(projectId)).map((e) => e.action)).not.toContain('file.download_url_issued');
    const timeline = await run('{ timeline(types: ["file.download_url_issued"]) { nodes { data } } }');
    expect(timeline.timeline.nodes).toHaveLength(5);
  });

  it('records each download URL once when graphql-js answers a compiled query again', async () => {
    const other = dataOf(await server.request(CreateProjectDocument, { input: { title: 'Rerun' } }, editor)).createProject.projectId;
    const assetIds: string[] = [];
    for (let n = 0; n < 2; n++) {
      const created = await server.request(
        CreateAssetDocument,
        { projectId: other, input: { type: 'IMAGE', s3Key: `tenants/audit/projects/${other}/${n}.png` } },
        editor,
      );
      assetIds.push(dataOf(created).createAsset.assetId);
    }
    // A stored date no DateTimeISO can serialize (an item written by an older release, say):
    // graphql-jit words that error itself, so the compiled run of the query below is answered by
    // graphql-js again (src/graphql/compiled-queries.ts), which resolves every field a second time.
    const doc = dynamoDocOf(server.app);
    const stored = ((await doc.send(new ScanCommand({ TableName: server.config.tableName }))).Items ?? []).find(
      (item) => item.entityType === 'Asset' && item.assetId === assetIds[0],
    );
    expect(stored).toBeDefined();
    await doc.send(new PutCommand({ TableName: server.config.tableName, Item: { ...stored, createdAt: 'not a date' } }));
    const before = (await trail(null)).filter((e) => e.action === 'file.download_url_issued').length;
    const query = `{ assets(projectId: "${other}") { nodes { assetId url(expiresIn: 900) createdAt } } }`;
    const reruns = server.app.pipeline.queries.counts.rerun;
    const answers: { errors?: unknown[] }[] = [];
    for (let n = 0; n < 3; n++) answers.push((await server.raw({ query }, editor)).body);
    expect(server.app.pipeline.queries.counts.rerun).toBe(reruns + 1);
    expect(answers.map((a) => a.errors?.length)).toEqual([1, 1, 1]);
    // Three requests of two URLs each: six records, not eight.
    const downloads = (await trail(null)).filter((e) => e.action === 'file.download_url_issued');
    expect(downloads.length - before).toBe(6);
  });

  it('records review decisions with who decided and the comment', async () => {
    let n = 0;
    const review = async (decide: (jobId: string) => string) => {
      const job = await run(
        `mutation { createJob(input: { projectId: "${projectId}", kind: "render", steps: ["draft", "final"], inputs: { n: ${n++} } }) { jobId } }`,
      );
      const { jobId } = job.createJob;
      await run(`mutation { startStep(jobId: "${jobId}", stepName: "draft") { status } }`, {}, worker);
      await run(`mutation { pauseStepForReview(jobId: "${jobId}", stepName: "draft") { status } }`, {}, worker);
      await run(decide(jobId));
      return jobId;
    };
    const approved = await review(
      (id) => `mutation { approveStep(jobId: "${id}", stepName: "draft", comment: "Colours are right") { status } }`,
    );
    const rejected = await review((id) => `mutation { rejectStep(jobId: "${id}", stepName: "draft", reason: "Too dark") { status } }`);
    const events = (await trail(projectId)).filter((e) => e.action.startsWith('step.'));
    expect(events).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          action: 'step.approved',
          actor: 'reviewer-1',
          subjectType: 'Job',
          subjectId: approved,
          data: expect.objectContaining({ step: 'draft', decision: 'approved', comment: 'Colours are right' }),
        }),
        expect.objectContaining({
          action: 'step.rejected',
          actor: 'reviewer-1',
          subjectId: rejected,
          data: expect.objectContaining({ step: 'draft', decision: 'rejected', comment: 'Too dark' }),
        }),
      ]),
    );
    expect(events).toHaveLength(2);

    await run(
      `mutation { createBriefVersion(projectId: "${projectId}", input: { requirements: ["r"], deliverables: [], changelogEntry: "v1" }) { version } }`,
    );
    await run(`mutation { approveBriefVersion(projectId: "${projectId}", version: 1, decision: APPROVED, comment: "Go") { version } }`);
    const brief = (await trail(projectId)).find((e) => e.action === 'brief.approval_added');
    expect(brief).toMatchObject({ actor: 'reviewer-1', data: { version: 1, decision: 'approved', comment: 'Go' } });
  });

  it("keeps the trail for the tenant's activityRetentionDays, or forever with 0", async () => {
    const tenant = await run('{ tenant { version } }');
    const defaultDays = server.config.eventRetentionDays;
    const before = new Set((await storedEvents()).map((e) => `${e.PK}${e.SK}`));
    for (const e of await storedEvents()) expect(e.expiresAt - Math.floor(Date.parse(e.at) / 1000)).toBe(defaultDays * 86_400);

    const bad = await server.raw(
      { query: `mutation { updateTenant(expectedVersion: ${tenant.tenant.version}, input: { activityRetentionDays: -1 }) { version } }` },
      editor,
    );
    expect(bad.body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'activityRetentionDays' });

    const tenYears = await run(
      `mutation { updateTenant(expectedVersion: ${tenant.tenant.version}, input: { activityRetentionDays: 3650 }) { version activityRetentionDays } }`,
    );
    expect(tenYears.updateTenant.activityRetentionDays).toBe(3650);
    await run(`mutation { createMilestone(projectId: "${projectId}", input: { name: "kept long" }) { milestoneId } }`);
    await run(`{ assets(projectId: "${projectId}", first: 1) { nodes { url } } }`);
    const long = (await storedEvents()).filter((e) => !before.has(`${e.PK}${e.SK}`));
    // What is written after the change is kept ten years, a download too; the update's own event
    // was written under the setting it replaced.
    expect(long.map((e) => e.action).sort()).toEqual(['file.download_url_issued', 'milestone.created', 'tenant.updated']);
    for (const e of long) {
      const days = e.action === 'tenant.updated' ? defaultDays : 3650;
      expect({ action: e.action, kept: e.expiresAt - Math.floor(Date.parse(e.at) / 1000) }).toEqual({
        action: e.action,
        kept: days * 86_400,
      });
    }

    await run(
      `mutation { updateTenant(expectedVersion: ${tenYears.updateTenant.version}, input: { activityRetentionDays: 0 }) { version } }`,
    );
    await run(`mutation { createMilestone(projectId: "${projectId}", input: { name: "kept forever" }) { milestoneId } }`);
    const seen = new Set(long.map((e) => `${e.PK}${e.SK}`));
    const forever = (await storedEvents()).filter((e) => !before.has(`${e.PK}${e.SK}`) && !seen.has(`${e.PK}${e.SK}`));
    expect(forever.map((e) => e.action).sort()).toEqual(['milestone.created', 'tenant.updated']);
    for (const e of forever) {
      expect({ action: e.action, forever: e.expiresAt === undefined }).toEqual({
        action: e.action,
        forever: e.action !== 'tenant.updated',
      });
    }
  });
});
