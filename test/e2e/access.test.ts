import {
  AssetsByTypeDocument,
  CreateAssetDocument,
  CreateInspirationDocument,
  CreateLogDocument,
  CreateProjectDocument,
  ProjectInspirationDocument,
  ProjectsAcrossTenantsDocument,
  RequestAssetUploadDocument,
  TimelineDocument,
  UpdateInspirationDocument,
} from '../../src/client/gql/graphql';
import { OPS_SHARDS } from '../../src/common/entities';
import { allPages, codeOf, dataOf, startTestServer, type TestServer } from '../support/server';

/*
 * The tenant-wide access patterns of issue 19, each through a sparse index: one DynamoDB Query per
 * page and nothing else read (counted on the server's own DynamoDB client).
 */

const PROJECTS = 3;
const IMAGES_PER_PROJECT = 9;
const AUDIO_PER_PROJECT = 2;

/**
 * These tests count the DynamoDB calls of each page, so the server's own timed reads stay out of
 * the window: the outbox sweeper, the job settler's sweep (a Query per shard), the idle
 * system-job runner's look for work, and the rate budgets' read of the tenant's plan (every 5 s).
 */
const QUIET = {
  OUTBOX_SWEEP_MS: '3600000',
  JOB_SETTLE_SWEEP_MS: '3600000',
  SYSTEM_JOB_IDLE_MS: '3600000',
  TENANT_RATE_LIMITS: 'false',
};

describe('assets by type and time, and inspiration by project', () => {
  let server: TestServer;
  let token: string;
  const projectIds: string[] = [];
  const imageIds: string[] = [];

  beforeAll(async () => {
    // The outbox sweeper shares the DynamoDB client; keep its queries out of the counted requests.
    server = await startTestServer({ env: QUIET });
    token = await server.token('browse');
    for (let p = 0; p < PROJECTS; p++) {
      const projectId = dataOf(await server.request(CreateProjectDocument, { input: { title: `Browse ${p}` } }, token)).createProject
        .projectId;
      projectIds.push(projectId);
      // Other children of the project, which a list by type must never read.
      await server.request(CreateLogDocument, { projectId, input: { rawText: 'not an asset' } }, token);
    }
    // Interleaved over the projects, so the newest-first order crosses projects.
    for (let n = 0; n < IMAGES_PER_PROJECT; n++) {
      for (const projectId of projectIds) {
        const created = dataOf(
          await server.request(
            CreateAssetDocument,
            { projectId, input: { type: 'IMAGE', s3Key: `tenants/browse/${projectId}/${n}.png` } },
            token,
          ),
        ).createAsset;
        imageIds.push(created.assetId);
        if (n < AUDIO_PER_PROJECT) {
          await server.request(
            CreateAssetDocument,
            { projectId, input: { type: 'AUDIO', s3Key: `tenants/browse/${projectId}/${n}.wav` } },
            token,
          );
        }
      }
    }
    // An upload never confirmed is not ready, so it is not browsable.
    dataOf(
      await server.request(
        RequestAssetUploadDocument,
        { projectId: projectIds[0], input: { type: 'IMAGE', fileName: 'pending.png', contentType: 'image/png', size: 3 } },
        token,
      ),
    );
  });

  it('pages through the ready images of every project, newest first, with one Query a page and no other read', async () => {
    const calls: Record<string, number>[] = [];
    const { nodes, sizes } = await allPages(async (after) => {
      await server.resetCalls();
      const page = dataOf(await server.request(AssetsByTypeDocument, { type: 'IMAGE', first: 10, after }, token)).assets;
      calls.push(Object.fromEntries(server.app.calls.byCommand));
      return page;
    });
    expect(sizes).toEqual([10, 10, 7]);
    expect(calls).toEqual(sizes.map(() => ({ QueryCommand: 1 })));
    expect(nodes.map((n) => n.assetId)).toEqual([...imageIds].reverse());
    expect(new Set(nodes.map((n) => n.type))).toEqual(new Set(['IMAGE']));
    expect(new Set(nodes.map((n) => n.projectId))).toEqual(new Set(projectIds));
    console.log(
      `assets by type: ${nodes.length} images in pages of ${sizes.join(', ')}; DynamoDB calls per page: ${JSON.stringify(calls)}`,
    );
  });

  it('bounds the list by creation time, from included and to left out', async () => {
    const all = dataOf(await server.request(AssetsByTypeDocument, { type: 'IMAGE', first: 100 }, token)).assets.nodes;
    // Newest first: take the window from the 20th newest up to (not including) the 5th newest.
    const from = all[19].createdAt;
    const to = all[4].createdAt;
    const expected = all.filter((n) => n.createdAt >= from && n.createdAt < to).map((n) => n.assetId);
    const { nodes } = await allPages(
      async (after) => dataOf(await server.request(AssetsByTypeDocument, { type: 'IMAGE', from, to, first: 4, after }, token)).assets,
    );
    expect(nodes.map((n) => n.assetId)).toEqual(expected);
    expect(expected.length).toBeGreaterThanOrEqual(10);
    const audio = dataOf(await server.request(AssetsByTypeDocument, { type: 'AUDIO', first: 100 }, token)).assets.nodes;
    expect(audio).toHaveLength(PROJECTS * AUDIO_PER_PROJECT);
  });

  it('refuses a list that names neither a project nor a type, or an empty time window', async () => {
    const none = await server.raw({ query: '{ assets { nodes { assetId } } }' }, token);
    expect(none.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    const both = await server.raw({ query: `{ assets(projectId: "${projectIds[0]}", type: IMAGE) { nodes { assetId } } }` }, token);
    expect(both.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    const at = '2026-01-01T00:00:00.000Z';
    expect(codeOf(await server.request(AssetsByTypeDocument, { type: 'IMAGE', from: at, to: at }, token))).toBe('BAD_USER_INPUT');
    // The existing per-project list is unchanged.
    const project = await server.raw({ query: `{ assets(projectId: "${projectIds[1]}", first: 100) { nodes { assetId } } }` }, token);
    expect(project.body.data.assets.nodes).toHaveLength(IMAGES_PER_PROJECT + AUDIO_PER_PROJECT);
  });

  it("lists a project's inspiration, newest first, one Query a page, and follows a change of the link", async () => {
    const [p0, p1] = projectIds;
    const linked: string[] = [];
    for (let n = 0; n < 7; n++) {
      const input = { type: 'TEXT' as const, text: `idea ${n}`, tags: [], linkedProjectId: n % 3 === 2 ? p1 : p0 };
      const made = dataOf(await server.request(CreateInspirationDocument, { input }, token)).createInspiration;
      if (input.linkedProjectId === p0) linked.push(made.inspirationId);
    }
    await server.request(CreateInspirationDocument, { input: { type: 'TEXT', text: 'unlinked', tags: [] } }, token);
    const calls: number[] = [];
    const { nodes, sizes } = await allPages(async (after) => {
      await server.resetCalls();
      const page = dataOf(await server.request(ProjectInspirationDocument, { projectId: p0, first: 2, after }, token)).inspirations;
      calls.push(server.app.calls.total);
      return page;
    });
    expect(nodes.map((n) => n.inspirationId)).toEqual([...linked].reverse());
    expect(sizes).toEqual([2, 2, 1]);
    expect(calls).toEqual([1, 1, 1]);

    // Linking it to another project moves it there in the same write.
    const moved = linked[0];
    dataOf(
      await server.request(UpdateInspirationDocument, { inspirationId: moved, expectedVersion: 1, input: { linkedProjectId: p1 } }, token),
    );
    const p0Now = dataOf(await server.request(ProjectInspirationDocument, { projectId: p0, first: 100 }, token)).inspirations.nodes;
    const p1Now = dataOf(await server.request(ProjectInspirationDocument, { projectId: p1, first: 100 }, token)).inspirations.nodes;
    expect(p0Now.map((n) => n.inspirationId)).not.toContain(moved);
    expect(p1Now.map((n) => n.inspirationId)).toContain(moved);
    const both = await server.raw({ query: `{ inspirations(projectId: "${p0}", tag: "x") { nodes { text } } }` }, token);
    expect(both.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
  });
});

describe('the timeline: a tenant’s activity across its projects', () => {
  let server: TestServer;
  let token: string;
  /** Every event's action and time, newest first, as the tenant's writes made them. */
  let made: number;

  beforeAll(async () => {
    server = await startTestServer({ env: QUIET });
    token = await server.token('timeline');
    const projects: string[] = [];
    for (let p = 0; p < 3; p++) {
      projects.push(
        dataOf(await server.request(CreateProjectDocument, { input: { title: `Timeline ${p}` } }, token)).createProject.projectId,
      );
    }
    for (let n = 0; n < 4; n++) {
      for (const projectId of projects) {
        await server.request(CreateLogDocument, { projectId, input: { rawText: `log ${n}` } }, token);
        if (n < 2)
          await server.request(CreateAssetDocument, { projectId, input: { type: 'IMAGE', s3Key: `tenants/timeline/${n}.png` } }, token);
      }
    }
    // The tenant's own activity (no project) is in the timeline too.
    await server.request(CreateInspirationDocument, { input: { type: 'TEXT', text: 'unlinked', tags: [] } }, token);
    // Another tenant's activity never is.
    const other = await server.token('timeline-other');
    await server.request(CreateProjectDocument, { input: { title: 'Not yours' } }, other);
    made = 3 + 12 + 6 + 1;
  });

  it('pages through every event of every project, newest first, with one Query a page', async () => {
    const calls: Record<string, number>[] = [];
    const { nodes, sizes } = await allPages(async (after) => {
      await server.resetCalls();
      const page = dataOf(await server.request(TimelineDocument, { first: 5, after }, token)).timeline;
      calls.push(Object.fromEntries(server.app.calls.byCommand));
      return page;
    });
    expect(nodes).toHaveLength(made);
    expect(sizes).toEqual([5, 5, 5, 5, 2]);
    expect(calls).toEqual(sizes.map(() => ({ QueryCommand: 1 })));
    const times = nodes.map((n) => n.at);
    expect(times).toEqual([...times].sort().reverse());
    expect(nodes.map((n) => n.action)).not.toContain('tenant.created');
    expect(new Set(nodes.map((n) => n.projectId ?? 'tenant')).size).toBe(4);
    expect(nodes.map((n) => n.action)).toContain('inspiration.created');
    console.log(`timeline: ${nodes.length} events in pages of ${sizes.join(', ')}; DynamoDB calls per page: ${JSON.stringify(calls)}`);
  });

  it('filters by action: one Query a page for one, one per action merged for several', async () => {
    const logs = await allPages(
      async (after) => dataOf(await server.request(TimelineDocument, { types: ['log.created'], first: 5, after }, token)).timeline,
    );
    expect(logs.nodes).toHaveLength(12);
    expect(new Set(logs.nodes.map((n) => n.action))).toEqual(new Set(['log.created']));

    const calls: number[] = [];
    const both = await allPages(async (after) => {
      await server.resetCalls();
      const page = dataOf(
        await server.request(TimelineDocument, { types: ['asset.created', 'project.created'], first: 4, after }, token),
      ).timeline;
      calls.push(server.app.calls.byCommand.get('QueryCommand') ?? 0);
      return page;
    });
    expect(both.nodes).toHaveLength(9);
    expect(both.sizes).toEqual([4, 4, 1]);
    expect(calls).toEqual([2, 2, 2]);
    const times = both.nodes.map((n) => n.at);
    expect(times).toEqual([...times].sort().reverse());
    expect(new Set(both.nodes.map((n) => n.eventId)).size).toBe(9);
  });

  it('bounds the timeline by time, from included and to left out, with and without types', async () => {
    const all = dataOf(await server.request(TimelineDocument, { first: 100 }, token)).timeline.nodes;
    const from = all[15].at;
    const to = all[3].at;
    const inWindow = all.filter((n) => n.at >= from && n.at < to);
    const window = await allPages(
      async (after) => dataOf(await server.request(TimelineDocument, { from, to, first: 3, after }, token)).timeline,
    );
    expect(window.nodes.map((n) => n.eventId)).toEqual(inWindow.map((n) => n.eventId));
    const types = ['log.created', 'asset.created'];
    const typed = await allPages(
      async (after) => dataOf(await server.request(TimelineDocument, { from, to, types, first: 2, after }, token)).timeline,
    );
    expect(typed.nodes.map((n) => n.eventId)).toEqual(inWindow.filter((n) => types.includes(n.action)).map((n) => n.eventId));
    const tooMany = await server.request(TimelineDocument, { types: Array.from({ length: 11 }, (_, i) => `a.${i}`) }, token);
    expect(codeOf(tooMany)).toBe('BAD_USER_INPUT');
  });
});

describe('projects across tenants, for operators', () => {
  let server: TestServer;
  let admin: string;
  const planning = new Map<string, string>();

  beforeAll(async () => {
    server = await startTestServer({ env: QUIET });
    admin = await server.operatorToken();
    for (const tenant of ['studio-a', 'studio-b', 'studio-c']) {
      const token = await server.token(tenant);
      for (let n = 0; n < 4; n++) {
        const made = dataOf(await server.request(CreateProjectDocument, { input: { title: `${tenant} ${n}` } }, token)).createProject;
        planning.set(made.projectId, tenant);
      }
      const moving = dataOf(await server.request(CreateProjectDocument, { input: { title: `${tenant} live` } }, token)).createProject;
      await server.raw({ query: `mutation { setProjectStatus(projectId: "${moving.projectId}", status: PRODUCTION) { status } }` }, token);
    }
  });

  it('pages through one status of every tenant, most recently changed first, reading each shard a page at least once and seldom more', async () => {
    const calls: number[] = [];
    const { nodes, sizes } = await allPages(async (after) => {
      await server.resetCalls();
      const page = dataOf(
        await server.request(ProjectsAcrossTenantsDocument, { status: 'PLANNING', first: 5, after }, admin),
      ).projectsAcrossTenants;
      calls.push(server.app.calls.byCommand.get('QueryCommand') ?? 0);
      return page;
    });
    expect(sizes).toEqual([5, 5, 2]);
    // Each page reads every shard for a share of it, and reads on only in a shard that held more of
    // the page than its share (QuerySpec.shards, mergeShards): at most one more round each here.
    expect(calls).toHaveLength(3);
    for (const queries of calls) {
      expect(queries).toBeGreaterThanOrEqual(OPS_SHARDS);
      expect(queries).toBeLessThanOrEqual(2 * OPS_SHARDS);
    }
    expect(new Map(nodes.map((n) => [n.projectId, n.tenantId]))).toEqual(planning);
    const changed = nodes.map((n) => n.updatedAt);
    expect(changed).toEqual([...changed].sort().reverse());
    const live = dataOf(await server.request(ProjectsAcrossTenantsDocument, { status: 'PRODUCTION' }, admin)).projectsAcrossTenants.nodes;
    expect(live.map((n) => n.tenantId).sort()).toEqual(['studio-a', 'studio-b', 'studio-c']);
    console.log(`projects across tenants: ${nodes.length} in pages of ${sizes.join(', ')}; Queries per page: ${calls.join(', ')}`);
  });

  it('is for admins only', async () => {
    const editor = await server.token('studio-a');
    expect(codeOf(await server.request(ProjectsAcrossTenantsDocument, { status: 'PLANNING' }, editor))).toBe('FORBIDDEN');
  });
});
