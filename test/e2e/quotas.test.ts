import { entities } from '../../src/common/entities';
import { usageKey } from '../../src/common/quota';
import { QUOTA_COUNTED_ATTRIBUTE } from '../../src/infra/dynamo/entity';
import { del, put as putItem } from '../../src/infra/dynamo/write';
import { MIGRATIONS } from '../../src/migrations/migrations';
import { dataOf, Role, startTestServer, type GraphQLResult, type TestServer, STORES } from '../support/server';
import { eventually, metricValue } from '../support/ws';

type Target = { url: string; method: string; headers: Array<{ name: string; value: string }> };

/** Uploads `body` exactly as the target says (method and headers), as a browser would. */
const put = (target: Target, body: Buffer) =>
  fetch(target.url, {
    method: target.method,
    body,
    headers: Object.fromEntries(target.headers.filter((h) => h.name !== 'Content-Length').map((h) => [h.name, h.value])),
  });

const CREATE_PROJECT = 'mutation($title: String!) { createProject(input: { title: $title }) { projectId } }';
const USAGE =
  'query($t: ID!) { tenantUsage(tenantId: $t) { plan limits { projects storedBytes runningJobs } quotas { quota used limit } } }';
const SET_PLAN = 'mutation($t: ID!, $limits: PlanLimitsInput) { setTenantPlan(tenantId: $t, plan: STUDIO, limits: $limits) { plan } }';

describe.each(STORES)("a tenant's plan quotas, checked in the write's own transaction, on %s", (store) => {
  let server: TestServer;
  let admin: string;

  beforeAll(async () => {
    server = await startTestServer({ store });
    admin = await server.operatorToken();
  });

  const gql = async (token: string, query: string, variables: Record<string, unknown> = {}) =>
    (await server.raw({ query, variables }, token)).body as GraphQLResult<any>;
  const usedOf = async (tenantId: string, quota: string): Promise<number> => {
    const usage = dataOf(await gql(admin, USAGE, { t: tenantId })).tenantUsage;
    return usage.quotas.find((q: { quota: string }) => q.quota === quota).used;
  };
  const setLimits = async (tenantId: string, limits: Record<string, number>) => dataOf(await gql(admin, SET_PLAN, { t: tenantId, limits }));
  /** A tenant allowed 3 running jobs, with a project and a createJob of free-form one-step jobs (inputs `n` differ, so none repeats another). */
  const jobsOfTenant = async (tenantId: string) => {
    const token = await server.token(tenantId);
    await setLimits(tenantId, { runningJobs: 3 });
    const projectId = dataOf(await gql(token, CREATE_PROJECT, { title: 'Jobs' })).createProject.projectId;
    const createJob = (n: string) =>
      gql(token, 'mutation($i: CreateJobInput!) { createJob(input: $i) { jobId } }', {
        i: { projectId, kind: 'quota', steps: ['render'], inputs: { n } },
      });
    return { token, createJob };
  };

  it('lets exactly one of 50 concurrent createProject through when one slot is left; the counter equals the projects; archiving frees the slot', async () => {
    const token = await server.token('quota-projects');
    await setLimits('quota-projects', { projects: 5 });
    for (let i = 0; i < 4; i++) dataOf(await gql(token, CREATE_PROJECT, { title: `P${i}` }));

    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => gql(token, CREATE_PROJECT, { title: `Race ${i}` })));
    const won = results.filter((r) => r.data?.createProject);
    const refused = results.filter((r) => r.errors?.[0]?.extensions?.code === 'QUOTA_EXCEEDED');
    expect(won).toHaveLength(1);
    expect(refused).toHaveLength(49);
    // The refusal names the quota and its limit.
    expect(refused[0].errors![0].extensions).toMatchObject({ quota: 'projects', limit: 5, requested: 1 });

    const listed = dataOf(await gql(token, '{ projects(first: 100) { nodes { projectId } } }')).projects.nodes;
    expect(listed).toHaveLength(5);
    expect(await usedOf('quota-projects', 'projects')).toBe(5);

    // A refused write changed nothing: one more is still refused, and the counter stays.
    expect((await gql(token, CREATE_PROJECT, { title: 'One too many' })).errors?.[0]?.extensions?.code).toBe('QUOTA_EXCEEDED');
    expect(await usedOf('quota-projects', 'projects')).toBe(5);
    // Counted by the plan (a bounded label), never by the tenant's id.
    expect(await metricValue(server.url, 'artissist_tenant_quota_refusals_total{plan="studio",quota="projects"}')).toBe(50);

    // Archiving a project frees its slot (the quota bounds the projects a tenant works on).
    dataOf(await gql(token, 'mutation($p: ID!) { archiveProject(projectId: $p) { projectId } }', { p: listed[0].projectId }));
    expect(await usedOf('quota-projects', 'projects')).toBe(4);
    dataOf(await gql(token, CREATE_PROJECT, { title: 'In the freed slot' }));
    expect(await usedOf('quota-projects', 'projects')).toBe(5);
  });

  it('holds running jobs to the plan: of 20 concurrent createJob with one slot left exactly 1 starts; a finished job frees its slot', async () => {
    const { token, createJob } = await jobsOfTenant('quota-jobs');
    const first = [dataOf(await createJob('a')).createJob.jobId, dataOf(await createJob('b')).createJob.jobId];
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => createJob(`race-${i}`)));
    expect(results.filter((r) => r.data?.createJob)).toHaveLength(1);
    const refused = results.filter((r) => r.errors?.[0]?.extensions?.code === 'QUOTA_EXCEEDED');
    expect(refused).toHaveLength(19);
    expect(refused[0].errors![0].extensions).toMatchObject({ quota: 'runningJobs', limit: 3, requested: 1 });
    expect(await usedOf('quota-jobs', 'runningJobs')).toBe(3);
    // A cancelled job no longer counts; its slot takes a new job.
    dataOf(await gql(token, 'mutation($j: ID!) { cancelJob(jobId: $j) { status } }', { j: first[0] }));
    expect(await usedOf('quota-jobs', 'runningJobs')).toBe(2);
    dataOf(await createJob('c'));
    expect(await usedOf('quota-jobs', 'runningJobs')).toBe(3);
  });

  it('holds running jobs to the plan while slots are freed at once: creates racing cancels never pass the limit, and the usage stays exact', async () => {
    const { token, createJob } = await jobsOfTenant('quota-churn');
    const running = [];
    for (const n of ['a', 'b', 'c']) running.push(dataOf(await createJob(n)).createJob.jobId as string);
    // Each cancel frees a slot on one of the tenant's release shards while 12 creates race for the slots.
    const [cancels, creates] = await Promise.all([
      Promise.all(running.map((j) => gql(token, 'mutation($j: ID!) { cancelJob(jobId: $j) { status } }', { j }))),
      Promise.all(Array.from({ length: 12 }, (_, i) => createJob(`churn-${i}`))),
    ]);
    expect(cancels.map((r) => r.errors)).toEqual([undefined, undefined, undefined]);
    const made = creates.filter((r) => r.data?.createJob).length;
    expect(creates.filter((r) => r.errors?.[0]?.extensions?.code === 'QUOTA_EXCEEDED')).toHaveLength(12 - made);
    expect(made).toBeLessThanOrEqual(3);
    expect(await usedOf('quota-churn', 'runningJobs')).toBe(made);
    // What is left of the limit is exactly what the counter and the shards say: the rest fill it, one more does not fit.
    for (let i = made; i < 3; i++) dataOf(await createJob(`fill-${i}`));
    expect((await createJob('over')).errors?.[0]?.extensions?.code).toBe('QUOTA_EXCEEDED');
    expect(await usedOf('quota-churn', 'runningJobs')).toBe(3);
  });

  it('holds a job to the plan’s items per job, at createJob and for concurrent addWorkItems', async () => {
    const tenantId = 'quota-items';
    const token = await server.token(tenantId, [Role.EDITOR, Role.WORKER]);
    await setLimits(tenantId, { itemsPerJob: 5 });
    const projectId = dataOf(await gql(token, CREATE_PROJECT, { title: 'Items' })).createProject.projectId;
    const items = (from: number, n: number) => Array.from({ length: n }, (_, i) => ({ source: `tenants/${tenantId}/in/${from + i}.png` }));
    const createJob = (n: number, label: string) =>
      gql(token, 'mutation($i: CreateJobInput!) { createJob(input: $i) { jobId } }', {
        i: { projectId, kind: 'BATCH', inputs: { label }, items: items(1, n) },
      });
    // Six items at creation are one too many, and make no job.
    const tooMany = await createJob(6, 'six');
    expect(tooMany.errors?.[0]?.extensions).toMatchObject({ code: 'QUOTA_EXCEEDED', quota: 'itemsPerJob', limit: 5, requested: 6 });
    const jobId = dataOf(await createJob(3, 'three')).createJob.jobId;
    // Ten workers add one item each at once: exactly the two that fit are added.
    const added = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        gql(token, 'mutation($j: ID!, $i: [JSONObject!]!) { addWorkItems(jobId: $j, stage: "process", items: $i) { jobId } }', {
          j: jobId,
          i: items(10 + i, 1),
        }),
      ),
    );
    expect(added.filter((r) => r.data?.addWorkItems)).toHaveLength(2);
    expect(added.filter((r) => r.errors?.[0]?.extensions?.code === 'QUOTA_EXCEEDED')).toHaveLength(8);
    const job = dataOf(await gql(token, 'query($j: ID!) { job(jobId: $j) { itemCounts { total } } }', { j: jobId })).job;
    expect(job.itemCounts).toEqual({ total: 5 });
  });

  it('refuses an upload that would pass the stored-bytes quota at request, and at confirmation', async () => {
    const tenantId = 'quota-bytes';
    const token = await server.token(tenantId);
    await setLimits(tenantId, { storedBytes: 1000 });
    const projectId = dataOf(await gql(token, CREATE_PROJECT, { title: 'Files' })).createProject.projectId;
    const request = (size: number) =>
      gql(
        token,
        'mutation($p: ID!, $size: Int!) { requestAssetUpload(projectId: $p, input: { type: IMAGE, fileName: "f.png", contentType: "image/png", size: $size }) { asset { assetId } upload { url method headers { name value } } } }',
        { p: projectId, size },
      );
    const confirm = (assetId: string) =>
      gql(token, 'mutation($p: ID!, $a: ID!) { confirmAssetUpload(projectId: $p, assetId: $a) { status size } }', {
        p: projectId,
        a: assetId,
      });

    // At request: more than the whole quota is refused before any upload.
    const tooBig = await request(1001);
    expect(tooBig.errors?.[0]?.extensions).toMatchObject({ code: 'QUOTA_EXCEEDED', quota: 'storedBytes', limit: 1000, requested: 1001 });

    // Two uploads that each fit what is left are both started...
    const first = dataOf(await request(400)).requestAssetUpload;
    const second = dataOf(await request(700)).requestAssetUpload;
    expect((await put(first.upload, Buffer.alloc(400, 1))).status).toBe(200);
    expect((await put(second.upload, Buffer.alloc(700, 2))).status).toBe(200);
    expect(dataOf(await confirm(first.asset.assetId)).confirmAssetUpload).toMatchObject({ status: 'READY', size: 400 });
    expect(await usedOf(tenantId, 'storedBytes')).toBe(400);

    // ...but at confirmation the second would take the tenant to 1,100 bytes: refused, nothing changed.
    const refused = await confirm(second.asset.assetId);
    expect(refused.errors?.[0]?.extensions).toMatchObject({ code: 'QUOTA_EXCEEDED', quota: 'storedBytes', requested: 700 });
    expect(await usedOf(tenantId, 'storedBytes')).toBe(400);
    const still = dataOf(
      await gql(token, 'query($p: ID!, $a: ID!) { asset(projectId: $p, assetId: $a) { status } }', {
        p: projectId,
        a: second.asset.assetId,
      }),
    );
    expect(still.asset.status).toBe('UPLOADING');

    // Now that 400 are stored, a request for 700 more is refused at request.
    expect((await request(700)).errors?.[0]?.extensions).toMatchObject({ code: 'QUOTA_EXCEEDED', quota: 'storedBytes' });

    // Deleting the stored asset frees its bytes, and the waiting upload confirms.
    dataOf(
      await gql(token, 'mutation($p: ID!, $a: ID!) { deleteAsset(projectId: $p, assetId: $a) { assetId } }', {
        p: projectId,
        a: first.asset.assetId,
      }),
    );
    expect(await usedOf(tenantId, 'storedBytes')).toBe(0);
    expect(dataOf(await confirm(second.asset.assetId)).confirmAssetUpload).toMatchObject({ status: 'READY', size: 700 });
    expect(await usedOf(tenantId, 'storedBytes')).toBe(700);
  });

  it("shows an operator a tenant's usage against its plan, and lets only operators change the plan", async () => {
    const editor = await server.token('quota-plan');
    dataOf(await gql(editor, CREATE_PROJECT, { title: 'One' }));
    const usage = dataOf(await gql(admin, USAGE, { t: 'quota-plan' })).tenantUsage;
    expect(usage).toMatchObject({
      plan: 'FREE',
      quotas: expect.arrayContaining([{ quota: 'projects', used: 1, limit: usage.limits.projects }]),
    });
    // An editor can neither read it nor change its own plan, by setTenantPlan or updateTenant.
    expect((await gql(editor, USAGE, { t: 'quota-plan' })).errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    expect((await gql(editor, SET_PLAN, { t: 'quota-plan', limits: { projects: 1_000_000 } })).errors?.[0]?.extensions?.code).toBe(
      'FORBIDDEN',
    );
    const tenant = dataOf(await gql(editor, '{ tenant { version } }')).tenant;
    const upgrade = await gql(editor, 'mutation($v: Int!) { updateTenant(expectedVersion: $v, input: { plan: ENTERPRISE }) { plan } }', {
      v: tenant.version,
    });
    expect(upgrade.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    // A limit must be a whole number from 0.
    expect((await gql(admin, SET_PLAN, { t: 'quota-plan', limits: { projects: -1 } })).errors?.[0]?.extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      field: 'projects',
    });
  });

  it('counts in what was written before quotas were kept: the recount migration, beside concurrent creates, leaves the counter exact and refuses no usage already had', async () => {
    const tenantId = 'quota-legacy';
    const token = await server.token(tenantId);
    await setLimits(tenantId, { projects: 100 });
    const legacy: string[] = [];
    for (let i = 0; i < 12; i++) legacy.push(dataOf(await gql(token, CREATE_PROJECT, { title: `Old ${i}` })).createProject.projectId);
    // As an older release wrote them: no record of what each counted, and no counter.
    const store = server.app.store;
    for (const projectId of legacy) {
      const item = await store.get(entities.Project.keyOf(tenantId, { projectId }));
      const { [QUOTA_COUNTED_ATTRIBUTE]: _counted, ...older } = item!;
      await store.transact([putItem(older)]);
    }
    await store.transact([del(usageKey(tenantId))]);
    expect(await usedOf(tenantId, 'projects')).toBe(0);
    const drift = dataOf(await gql(admin, '{ modelDrift { types { entityType fields { field items } } } }')).modelDrift;
    const projectDrift = drift.types.find((t: { entityType: string }) => t.entityType === 'Project');
    expect(projectDrift.fields).toContainEqual({ field: QUOTA_COUNTED_ATTRIBUTE, items: 12 });

    // Editing an uncounted project counts it in, and is not refused even at a limit it is already past.
    await setLimits(tenantId, { projects: 0 });
    const edited = await gql(
      token,
      'mutation($p: ID!) { updateProject(projectId: $p, expectedVersion: 1, input: { title: "Edited" }) { projectId } }',
      { p: legacy[0] },
    );
    expect(edited.errors).toBeUndefined();
    expect(await usedOf(tenantId, 'projects')).toBe(1);
    await setLimits(tenantId, { projects: 100 });

    // The recount runs while 10 projects are created at once; the counter ends equal to the projects.
    const started = dataOf(await gql(admin, 'mutation { runMigrations { id state } }')).runMigrations;
    expect(started.map((m: { id: string }) => m.id)).toEqual(MIGRATIONS.map((m) => m.id));
    const created = await Promise.all(Array.from({ length: 10 }, (_, i) => gql(token, CREATE_PROJECT, { title: `New ${i}` })));
    expect(created.filter((r) => r.errors)).toEqual([]);
    await eventually(
      async () => dataOf(await gql(admin, '{ migrations { id state } }')).migrations as Array<{ state: string }>,
      (all) => all.every((m) => m.state === 'APPLIED'),
      120_000,
    );
    expect(await usedOf(tenantId, 'projects')).toBe(22);
    const listed = dataOf(await gql(token, '{ projects(first: 100) { nodes { projectId } } }')).projects.nodes;
    expect(listed).toHaveLength(22);
    const after = dataOf(await gql(admin, '{ modelDrift { drifted } }')).modelDrift;
    expect(after.drifted).toBe(0);
    // Counted once: the migration run again changes nothing.
    dataOf(await gql(admin, 'mutation { runMigrations { id } }'));
    expect(await usedOf(tenantId, 'projects')).toBe(22);
  }, 180_000);
});
