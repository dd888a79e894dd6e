import {
  ApproveBriefVersionDocument,
  ArchiveProjectDocument,
  ActivityDocument,
  ConfirmLogAttributionDocument,
  CreateAssetDocument,
  CreateBriefVersionDocument,
  CreateInspirationDocument,
  CreateLogDocument,
  CreateMilestoneDocument,
  CreateProjectDocument,
  CreateTenantDocument,
  DeleteAssetDocument,
  DeleteInspirationDocument,
  DeleteMilestoneDocument,
  GetAssetDocument,
  GetBriefDocument,
  GetInspirationDocument,
  GetLogDocument,
  GetMilestoneDocument,
  GetProjectDocument,
  ListAssetsDocument,
  ListBriefVersionsDocument,
  ListInspirationsDocument,
  ListMilestonesDocument,
  ListProjectsDocument,
  LogsByAttributionDocument,
  LogsPageDocument,
  MaterialUsageDocument,
  MeDocument,
  RejectLogAttributionDocument,
  SetMilestoneStatusDocument,
  SetProjectStatusDocument,
  UpdateAssetDocument,
  UpdateInspirationDocument,
  UpdateLogExtractionDocument,
  UpdateMilestoneDocument,
  UpdateProjectDocument,
  UpdateTenantDocument,
} from '../../src/client/gql/graphql';
import { allPages, codeOf, dataOf, Role, STORES, startTestServer, type TestServer } from '../support/server';

describe.each(STORES)('entities over HTTP, on %s', (store) => {
  let server: TestServer;
  let token: string;
  let projectId: string;

  beforeAll(async () => {
    server = await startTestServer({ store });
    token = await server.token('studio');
    projectId = dataOf(
      await server.request(
        CreateProjectDocument,
        { input: { title: 'Harbour at Dusk', medium: 'oil', budget: { amount: 1200, currency: 'EUR' } } },
        token,
      ),
    ).createProject.projectId;
  });

  describe('tenant', () => {
    it('is created on first use, then CONFLICTs on explicit creation, and updates with a version', async () => {
      const me = dataOf(await server.request(MeDocument, {}, token));
      expect(me.viewer).toEqual({ userId: 'user-studio', tenantId: 'studio', roles: ['EDITOR'] });
      expect(me.tenant).toMatchObject({ tenantId: 'studio', plan: 'FREE', version: 1 });
      expect(codeOf(await server.request(CreateTenantDocument, { input: { name: 'Again' } }, token))).toBe('CONFLICT');
      const updated = dataOf(await server.request(UpdateTenantDocument, { expectedVersion: 1, input: { name: 'Studio Nine' } }, token));
      expect(updated.updateTenant).toMatchObject({ name: 'Studio Nine', version: 2 });
      const stale = await server.request(UpdateTenantDocument, { expectedVersion: 1, input: { name: 'Stale' } }, token);
      expect(stale.errors?.[0]).toMatchObject({ message: expect.stringMatching(/^Tenant studio /), extensions: { code: 'CONFLICT' } });
      expect(codeOf(await server.request(UpdateTenantDocument, { expectedVersion: 2, input: { plan: 'ENTERPRISE' } }, token))).toBe(
        'BAD_USER_INPUT',
      );
    });

    it('updates on first use too, created with its defaults as reading it would create it', async () => {
      const unread = await server.token('never-read');
      const updated = dataOf(await server.request(UpdateTenantDocument, { expectedVersion: 1, input: { name: 'First' } }, unread));
      expect(updated.updateTenant).toMatchObject({ tenantId: 'never-read', name: 'First', version: 2 });
    });

    it('can be created explicitly by a new tenant', async () => {
      const other = await server.token('fresh-tenant');
      const created = dataOf(await server.request(CreateTenantDocument, { input: { name: 'Fresh' } }, other));
      expect(created.createTenant).toMatchObject({ tenantId: 'fresh-tenant', name: 'Fresh', version: 1 });
    });
  });

  describe('project', () => {
    it('reads, updates with expectedVersion and reports CONFLICT naming the current version', async () => {
      const p = dataOf(await server.request(GetProjectDocument, { projectId }, token)).project!;
      expect(p).toMatchObject({
        title: 'Harbour at Dusk',
        status: 'PLANNING',
        budget: { amount: 1200, currency: 'EUR' },
        version: 1,
        archived: false,
      });
      const u = dataOf(
        await server.request(
          UpdateProjectDocument,
          { projectId, expectedVersion: 1, input: { client: 'Port Authority', medium: null } },
          token,
        ),
      ).updateProject;
      expect(u).toMatchObject({ client: 'Port Authority', medium: null, version: 2 });
      const stale = await server.request(UpdateProjectDocument, { projectId, expectedVersion: 1, input: { title: 'Nope' } }, token);
      expect(stale.errors?.[0]).toMatchObject({ extensions: { code: 'CONFLICT', currentVersion: 2, expectedVersion: 1 } });
      expect(stale.errors?.[0].message).toContain('version 2');
    });

    it('refuses bad input with BAD_USER_INPUT naming the field', async () => {
      const r = await server.request(CreateProjectDocument, { input: { title: '   ' } }, token);
      expect(r.errors?.[0]).toMatchObject({ extensions: { code: 'BAD_USER_INPUT', field: 'title' } });
      const bad = await server.request(GetProjectDocument, { projectId: 'PROJECT#x' }, token);
      expect(codeOf(bad)).toBe('BAD_USER_INPUT');
      const budget = await server.request(CreateProjectDocument, { input: { title: 'x', budget: { amount: -1, currency: 'EUR' } } }, token);
      expect(codeOf(budget)).toBe('BAD_USER_INPUT');
    });

    it('moves planning → production → complete and refuses other moves with from and to', async () => {
      const id = dataOf(await server.request(CreateProjectDocument, { input: { title: 'Status Walk' } }, token)).createProject.projectId;
      const skip = await server.request(SetProjectStatusDocument, { projectId: id, status: 'COMPLETE' }, token);
      expect(skip.errors?.[0].extensions).toMatchObject({ code: 'INVALID_TRANSITION', from: 'planning', to: 'complete' });
      expect(
        dataOf(await server.request(SetProjectStatusDocument, { projectId: id, status: 'PRODUCTION' }, token)).setProjectStatus.status,
      ).toBe('PRODUCTION');
      expect(
        dataOf(await server.request(SetProjectStatusDocument, { projectId: id, status: 'COMPLETE', expectedVersion: 2 }, token))
          .setProjectStatus,
      ).toMatchObject({ status: 'COMPLETE', version: 3 });
      const back = await server.request(SetProjectStatusDocument, { projectId: id, status: 'PLANNING' }, token);
      expect(back.errors?.[0].extensions).toMatchObject({ code: 'INVALID_TRANSITION', from: 'complete', to: 'planning' });
    });

    it('lists by title prefix and by status through the indexes, pages with cursors, and hides archived ones', async () => {
      const titles = Array.from({ length: 23 }, (_, i) => `Sketchbook ${String(i).padStart(2, '0')}`);
      for (const title of titles) await server.request(CreateProjectDocument, { input: { title } }, token);
      const { nodes, sizes } = await allPages(
        async (after) =>
          dataOf(await server.request(ListProjectsDocument, { titlePrefix: 'sketchBOOK', first: 10, after }, token)).projects,
      );
      expect(nodes.map((n) => n.title)).toEqual(titles);
      expect(sizes).toEqual([10, 10, 3]);

      const planning = dataOf(await server.request(ListProjectsDocument, { status: 'PLANNING', first: 100 }, token)).projects.nodes;
      expect(planning.length).toBeGreaterThanOrEqual(24);
      expect(planning.every((p) => p.status === 'PLANNING')).toBe(true);

      const archived = dataOf(await server.request(CreateProjectDocument, { input: { title: 'Sketchbook zz' } }, token)).createProject
        .projectId;
      expect(dataOf(await server.request(ArchiveProjectDocument, { projectId: archived }, token)).archiveProject.archived).toBe(true);
      const active = dataOf(await server.request(ListProjectsDocument, { titlePrefix: 'Sketchbook z', first: 100 }, token)).projects.nodes;
      expect(active).toEqual([]);
      const gone = dataOf(await server.request(ListProjectsDocument, { titlePrefix: 'Sketchbook z', archived: true }, token)).projects
        .nodes;
      expect(gone.map((p) => p.projectId)).toEqual([archived]);
      expect(codeOf(await server.request(ArchiveProjectDocument, { projectId: archived }, token))).toBe('INVALID_TRANSITION');
      // Refused for being archived, not "not found": project() still reads it.
      const late = await server.request(CreateLogDocument, { projectId: archived, input: { rawText: 'late' } }, token);
      expect(late.errors?.[0]).toMatchObject({
        message: `Cannot add to Project ${archived}: it is archived. An archived project takes no new logs, milestones, assets or inspiration links.`,
        extensions: { code: 'INVALID_TRANSITION' },
      });
      expect(
        codeOf(await server.request(CreateLogDocument, { projectId: 'proj_00000000000000000000000000', input: { rawText: 'x' } }, token)),
      ).toBe('NOT_FOUND');
    });
  });

  describe('brief', () => {
    it('keeps immutable versions in numeric order past v9, with the changelog carried forward', async () => {
      for (let v = 1; v <= 12; v++) {
        const created = dataOf(
          await server.request(
            CreateBriefVersionDocument,
            { projectId, input: { requirements: [`req ${v}`], deliverables: ['print'], changelogEntry: `change ${v}` } },
            token,
          ),
        );
        expect(created.createBriefVersion.version).toBe(v);
      }
      const latest = dataOf(await server.request(GetBriefDocument, { projectId }, token)).brief!;
      expect(latest).toMatchObject({ version: 12, label: 'v000012', requirements: ['req 12'] });
      expect(latest.changelog.map((c) => c.version)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
      const v9 = dataOf(await server.request(GetBriefDocument, { projectId, version: 9 }, token)).brief!;
      expect(v9).toMatchObject({ version: 9, requirements: ['req 9'] });
      const { nodes } = await allPages(
        async (after) => dataOf(await server.request(ListBriefVersionsDocument, { projectId, first: 5, after }, token)).briefVersions,
      );
      expect(nodes.map((n) => n.version)).toEqual([12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1]);
      expect(dataOf(await server.request(GetBriefDocument, { projectId, version: 13 }, token)).brief).toBeNull();
    });

    it('records approvals on one version without changing its content, and CONFLICTs a stale next version', async () => {
      const approved = dataOf(
        await server.request(ApproveBriefVersionDocument, { projectId, version: 3, decision: 'APPROVED', comment: 'ok' }, token),
      );
      expect(approved.approveBriefVersion.approvals).toEqual([{ by: 'user-studio', decision: 'APPROVED', comment: 'ok' }]);
      expect(dataOf(await server.request(GetBriefDocument, { projectId, version: 3 }, token)).brief!.requirements).toEqual(['req 3']);
      expect(codeOf(await server.request(ApproveBriefVersionDocument, { projectId, version: 99, decision: 'APPROVED' }, token))).toBe(
        'NOT_FOUND',
      );
      // A number no version can have is the caller's mistake, named as such.
      const below = await server.request(ApproveBriefVersionDocument, { projectId, version: -1, decision: 'APPROVED' }, token);
      expect(below.errors?.[0]).toMatchObject({
        message: 'version must be a whole number of at least 1.',
        extensions: { code: 'BAD_USER_INPUT', field: 'version' },
      });
      const stale = await server.request(
        CreateBriefVersionDocument,
        { projectId, input: { requirements: [], deliverables: [], changelogEntry: 'x', expectedLatestVersion: 11 } },
        token,
      );
      expect(stale.errors?.[0].extensions).toMatchObject({ code: 'CONFLICT', currentVersion: 12 });
    });
  });

  describe('milestone', () => {
    it('is created, updated, moved pending → in_progress → complete, listed and deleted', async () => {
      const ms = dataOf(
        await server.request(
          CreateMilestoneDocument,
          { projectId, input: { name: 'Underpainting', due: '2026-12-01', criteria: ['values blocked'] } },
          token,
        ),
      ).createMilestone;
      expect(ms).toMatchObject({ status: 'PENDING', version: 1 });
      const ref = { projectId, milestoneId: ms.milestoneId };
      expect(
        dataOf(await server.request(UpdateMilestoneDocument, { ...ref, expectedVersion: 1, input: { name: 'Underpainting done' } }, token))
          .updateMilestone,
      ).toMatchObject({ name: 'Underpainting done', due: '2026-12-01', version: 2 });
      expect(
        (await server.request(SetMilestoneStatusDocument, { ...ref, status: 'COMPLETE' }, token)).errors?.[0].extensions,
      ).toMatchObject({ code: 'INVALID_TRANSITION', from: 'pending', to: 'complete' });
      await server.request(SetMilestoneStatusDocument, { ...ref, status: 'IN_PROGRESS' }, token);
      expect(
        dataOf(await server.request(SetMilestoneStatusDocument, { ...ref, status: 'COMPLETE' }, token)).setMilestoneStatus.status,
      ).toBe('COMPLETE');
      await server.request(CreateMilestoneDocument, { projectId, input: { name: 'Glazing' } }, token);
      const listed = dataOf(await server.request(ListMilestonesDocument, { projectId }, token)).milestones.nodes.map((m) => m.name);
      expect(listed).toEqual(['Underpainting done', 'Glazing']);
      expect(dataOf(await server.request(DeleteMilestoneDocument, ref, token)).deleteMilestone.milestoneId).toBe(ms.milestoneId);
      expect(dataOf(await server.request(GetMilestoneDocument, ref, token)).milestone).toBeNull();
      expect(codeOf(await server.request(DeleteMilestoneDocument, ref, token))).toBe('NOT_FOUND');
    });
  });

  describe('log and material usage', () => {
    it('keeps material-use items in step with the log, so usage is answered without a scan', async () => {
      const a = dataOf(
        await server.request(
          CreateLogDocument,
          { projectId, input: { rawText: 'glazed with ultramarine', materials: ['Ultramarine', 'Linseed oil'], timeSpentMinutes: 90 } },
          token,
        ),
      ).createLog;
      const b = dataOf(
        await server.request(
          CreateLogDocument,
          { projectId, input: { rawText: 'sky', materials: ['ultramarine '], timeSpentMinutes: 30 } },
          token,
        ),
      ).createLog;
      let usage = dataOf(await server.request(MaterialUsageDocument, { material: 'ULTRAMARINE' }, token)).materialUsage;
      expect(usage).toMatchObject({ material: 'ultramarine', logCount: 2, totalMinutes: 120 });
      expect(usage.logs.map((l) => l.logId).sort()).toEqual([a.logId, b.logId].sort());

      // Re-extraction drops ultramarine from log a and changes its minutes: both follow.
      const updated = dataOf(
        await server.request(
          UpdateLogExtractionDocument,
          { projectId, logId: a.logId, expectedVersion: 1, input: { materials: ['Linseed oil'], timeSpentMinutes: 60 } },
          token,
        ),
      );
      expect(updated.updateLogExtraction).toMatchObject({ materials: ['Linseed oil'], timeSpentMinutes: 60, version: 2 });
      usage = dataOf(await server.request(MaterialUsageDocument, { material: 'ultramarine' }, token)).materialUsage;
      expect(usage).toMatchObject({ logCount: 1, totalMinutes: 30 });
      expect(dataOf(await server.request(MaterialUsageDocument, { material: 'linseed oil' }, token)).materialUsage.totalMinutes).toBe(60);
      expect(dataOf(await server.request(MaterialUsageDocument, { material: 'linseed' }, token)).materialUsage.logCount).toBe(0);
      expect(
        codeOf(
          await server.request(
            UpdateLogExtractionDocument,
            { projectId, logId: a.logId, expectedVersion: 1, input: { tags: ['x'] } },
            token,
          ),
        ),
      ).toBe('CONFLICT');
    });

    it('settles attribution once and lists logs by attribution status', async () => {
      const log = dataOf(await server.request(CreateLogDocument, { projectId, input: { rawText: 'who did this' } }, token)).createLog;
      const pending = dataOf(await server.request(LogsByAttributionDocument, { status: 'PENDING', first: 100 }, token)).logsByAttribution
        .nodes;
      expect(pending.map((l) => l.logId)).toContain(log.logId);
      expect(
        dataOf(await server.request(ConfirmLogAttributionDocument, { projectId, logId: log.logId }, token)).confirmLogAttribution
          .attributionStatus,
      ).toBe('CONFIRMED');
      expect(
        (await server.request(RejectLogAttributionDocument, { projectId, logId: log.logId }, token)).errors?.[0].extensions,
      ).toMatchObject({
        code: 'INVALID_TRANSITION',
        from: 'confirmed',
        to: 'rejected',
      });
      const confirmed = dataOf(await server.request(LogsByAttributionDocument, { status: 'CONFIRMED' }, token)).logsByAttribution.nodes;
      expect(confirmed.map((l) => l.logId)).toEqual([log.logId]);
      expect(dataOf(await server.request(GetLogDocument, { projectId, logId: log.logId }, token)).log!.attributionStatus).toBe('CONFIRMED');
    });

    it('pages a project with 45 logs in full pages', async () => {
      const p = dataOf(await server.request(CreateProjectDocument, { input: { title: 'Many logs' } }, token)).createProject.projectId;
      const ids: string[] = [];
      for (let i = 0; i < 45; i++)
        ids.push(dataOf(await server.request(CreateLogDocument, { projectId: p, input: { timeSpentMinutes: i } }, token)).createLog.logId);
      const { nodes, sizes } = await allPages(
        async (after) => dataOf(await server.request(LogsPageDocument, { projectId: p, after }, token)).logsConnection,
      );
      expect(sizes).toEqual([20, 20, 5]);
      expect(nodes.map((n) => n.logId)).toEqual(ids);
    });

    it('refuses media refs that are not plain keys of this tenant', async () => {
      const r = await server.request(CreateLogDocument, { projectId, input: { mediaRefs: ['https://evil.example/x.png'] } }, token);
      expect(r.errors?.[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', rule: 'url' });
    });
  });

  describe('asset', () => {
    it('validates keys, links to a log, updates, lists and deletes', async () => {
      const log = dataOf(await server.request(CreateLogDocument, { projectId, input: { rawText: 'photo' } }, token)).createLog;
      for (const [s3Key, rule] of [
        ['s3://bucket/tenants/studio/a.jpg', 'url'],
        ['tenants/studio/a.jpg?X-Amz-Signature=1', 'presigned'],
        ['tenants/studio/../x/a.jpg', 'dot_dot'],
        ['/tenants/studio/a.jpg', 'leading_slash'],
        ['tenants/other/a.jpg', 'tenant_prefix'],
      ]) {
        const r = await server.request(CreateAssetDocument, { projectId, input: { type: 'IMAGE', s3Key } }, token);
        expect(r.errors?.[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', rule });
      }
      const asset = dataOf(
        await server.request(
          CreateAssetDocument,
          { projectId, input: { type: 'IMAGE', s3Key: 'tenants/studio/p/a.jpg', linkedLogId: log.logId, alt: 'a harbour' } },
          token,
        ),
      ).createAsset;
      expect(asset).toMatchObject({ status: 'READY', linkedLogId: log.logId, version: 1 });
      const ref = { projectId, assetId: asset.assetId };
      expect(dataOf(await server.request(GetAssetDocument, ref, token)).asset).toMatchObject({
        alt: 'a harbour',
        linkedLog: { logId: log.logId },
      });
      expect(
        codeOf(
          await server.request(
            CreateAssetDocument,
            { projectId, input: { type: 'IMAGE', s3Key: 'tenants/studio/b.jpg', linkedLogId: 'log_01J00000000000000000000000' } },
            token,
          ),
        ),
      ).toBe('NOT_FOUND');
      expect(
        dataOf(
          await server.request(
            UpdateAssetDocument,
            { ...ref, expectedVersion: 1, input: { alt: 'harbour at dusk', linkedLogId: null } },
            token,
          ),
        ).updateAsset,
      ).toMatchObject({ alt: 'harbour at dusk', linkedLogId: null, version: 2 });
      expect(dataOf(await server.request(ListAssetsDocument, { projectId }, token)).assets.nodes.map((a) => a.assetId)).toEqual([
        asset.assetId,
      ]);
      expect(dataOf(await server.request(DeleteAssetDocument, ref, token)).deleteAsset.assetId).toBe(asset.assetId);
      expect(dataOf(await server.request(GetAssetDocument, ref, token)).asset).toBeNull();
    });
  });

  describe('inspiration', () => {
    it('is created, listed by tag, retagged, updated with a version and deleted', async () => {
      const one = dataOf(
        await server.request(
          CreateInspirationDocument,
          { input: { type: 'TEXT', text: 'fog on water', tags: ['Fog', 'water'], linkedProjectId: projectId } },
          token,
        ),
      ).createInspiration;
      const two = dataOf(
        await server.request(
          CreateInspirationDocument,
          { input: { type: 'IMAGE', s3Key: 'tenants/studio/insp/1.jpg', tags: ['water'] } },
          token,
        ),
      ).createInspiration;
      const byTag = async (tag: string) =>
        dataOf(await server.request(ListInspirationsDocument, { tag }, token)).inspirations.nodes.map((n) => n.inspirationId);
      expect(await byTag('WATER')).toEqual([two.inspirationId, one.inspirationId]);
      expect(await byTag('fog')).toEqual([one.inspirationId]);
      expect(
        dataOf(
          await server.request(
            UpdateInspirationDocument,
            { inspirationId: one.inspirationId, expectedVersion: 1, input: { tags: ['mist'] } },
            token,
          ),
        ).updateInspiration,
      ).toMatchObject({ tags: ['mist'], version: 2 });
      expect(await byTag('fog')).toEqual([]);
      expect(await byTag('mist')).toEqual([one.inspirationId]);
      expect(
        codeOf(
          await server.request(
            UpdateInspirationDocument,
            { inspirationId: one.inspirationId, expectedVersion: 1, input: { text: 'x' } },
            token,
          ),
        ),
      ).toBe('CONFLICT');
      expect(codeOf(await server.request(CreateInspirationDocument, { input: { type: 'IMAGE', s3Key: 'http://x/y.jpg' } }, token))).toBe(
        'BAD_USER_INPUT',
      );
      await server.request(DeleteInspirationDocument, { inspirationId: two.inspirationId }, token);
      expect(await byTag('water')).toEqual([]);
      expect(dataOf(await server.request(GetInspirationDocument, { inspirationId: two.inspirationId }, token)).inspiration).toBeNull();
    });
  });

  describe('activity', () => {
    it('records every mutation with actor, action and time, newest first', async () => {
      const p = dataOf(await server.request(CreateProjectDocument, { input: { title: 'Audited' } }, token)).createProject.projectId;
      await server.request(UpdateProjectDocument, { projectId: p, expectedVersion: 1, input: { client: 'x' } }, token);
      const log = dataOf(await server.request(CreateLogDocument, { projectId: p, input: { rawText: 'r' } }, token)).createLog;
      await server.request(ConfirmLogAttributionDocument, { projectId: p, logId: log.logId }, token);
      // A failed mutation writes no event.
      await server.request(SetProjectStatusDocument, { projectId: p, status: 'COMPLETE' }, token);
      const events = dataOf(await server.request(ActivityDocument, { projectId: p }, token)).activity.nodes;
      expect(events.map((e) => e.action)).toEqual(['log.attribution_confirmed', 'log.created', 'project.updated', 'project.created']);
      expect(events.every((e) => e.actor === 'user-studio' && !Number.isNaN(Date.parse(e.at)))).toBe(true);
      expect(events[3]).toMatchObject({ subjectType: 'Project', subjectId: p });
    });
  });

  describe('roles', () => {
    it('lets a viewer read but not write, with FORBIDDEN', async () => {
      const viewer = await server.token('studio', [Role.VIEWER]);
      expect(dataOf(await server.request(GetProjectDocument, { projectId }, viewer)).project!.projectId).toBe(projectId);
      const r = await server.request(CreateProjectDocument, { input: { title: 'x' } }, viewer);
      expect(r.errors?.[0]).toMatchObject({ extensions: { code: 'FORBIDDEN' } });
      expect(r.data).toBeNull();
    });
  });
});
