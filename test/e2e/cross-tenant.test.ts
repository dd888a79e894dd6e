import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { SignJWT } from 'jose';
import {
  CreateAssetDocument,
  CreateBriefVersionDocument,
  CreateInspirationDocument,
  CreateLogDocument,
  CreateProjectDocument,
  MeDocument,
} from '../../src/client/gql/graphql';
import { globalIdOf, isNodeType } from '../../src/common/global-id';
import { buildAppSchema } from '../../src/schema';
import { signDevToken } from '../../src/auth/jwt';
import { dataOf, Role, STORES, startTestServer, TEST_OPERATOR_SECRET, TEST_SECRET, type TestServer, dynamoDocOf } from '../support/server';
import { rowsOfTenant } from '../support/postgres';
import { listArguments, sampleInput, standardChildren } from '../support/standard';
import { subscribe, wsClient } from '../support/ws';

const MARK = 'SECRET-OF-A';

interface Ids {
  jobId: string;
  /** A's BATCH job, whose work items wait to be claimed. */
  batchJobId: string;
  /** A's BATCH job whose one item failed past its attempts: a dead letter. */
  deadJobId: string;
  projectId: string;
  logId: string;
  /** A's standard project children by type: one id of each, and A's cursors for its lists. */
  standard: Record<string, { id: string; cursors: Record<string, string> }>;
  assetId: string;
  inspirationId: string;
  cursors: Record<string, string>;
}

type Case = (ids: Ids) => { query: string; variables?: Record<string, unknown> };

/**
 * One case per root field: tenant B's request aimed at tenant A's ids and cursors. The test
 * checks that this table covers every field of the schema, so a new field cannot be forgotten.
 */
/**
 * The root fields of the platform's operator (besides the *AcrossTenants lists): every tenant's
 * caller, its admin included, gets FORBIDDEN. tenantUsage is an operator's for any tenant, and a
 * tenant admin's for its own only: for A's, B gets FORBIDDEN whatever its roles.
 */
const OPERATOR_ONLY = new Set(['setPoolShare', 'tenantUsage', 'setTenantPlan', 'runArchive', 'migrations', 'runMigrations', 'modelDrift']);
const operatorOnly = (field: string) => field.endsWith('AcrossTenants') || OPERATOR_ONLY.has(field);

const cases: Record<string, Case> = {
  // Queries
  viewer: () => ({ query: '{ viewer { tenantId userId } }' }),
  tenant: () => ({ query: '{ tenant { tenantId name } }' }),
  project: (i) => ({ query: `{ project(projectId: "${i.projectId}") { projectId title } }` }),
  projects: (i) => ({ query: `query($a: String) { projects(after: $a) { nodes { title } } }`, variables: { a: i.cursors.projects } }),
  brief: (i) => ({ query: `{ brief(projectId: "${i.projectId}") { requirements } }` }),
  briefVersions: (i) => ({
    query: `query($a: String) { briefVersions(projectId: "${i.projectId}", after: $a) { nodes { requirements } } }`,
    variables: { a: i.cursors.briefVersions },
  }),
  log: (i) => ({ query: `{ log(projectId: "${i.projectId}", logId: "${i.logId}") { rawText } }` }),
  logs: (i) => ({ query: `{ logs(projectId: "${i.projectId}") { logId rawText materials } }` }),
  logsConnection: (i) => ({
    query: `query($a: String) { logsConnection(projectId: "${i.projectId}", after: $a) { nodes { rawText } } }`,
    variables: { a: i.cursors.logsConnection },
  }),
  logsByAttribution: (i) => ({
    query: `query($a: String) { logsByAttribution(status: PENDING, after: $a) { nodes { rawText } } }`,
    variables: { a: i.cursors.logsByAttribution },
  }),
  materialUsage: () => ({ query: `{ materialUsage(material: "${MARK}-pigment") { logCount totalMinutes logs { rawText } } }` }),
  asset: (i) => ({ query: `{ asset(projectId: "${i.projectId}", assetId: "${i.assetId}") { s3Key alt url versions { url } } }` }),
  // Both ways of listing: a project's, and by type across the tenant (with A's cursor of each).
  assets: (i) => ({
    query: `query($a: String, $b: String) { assets(projectId: "${i.projectId}", after: $a) { nodes { alt } } byType: assets(type: IMAGE, after: $b) { nodes { assetId alt s3Key } } }`,
    variables: { a: i.cursors.assets, b: i.cursors.assetsByType },
  }),
  inspiration: (i) => ({ query: `{ inspiration(inspirationId: "${i.inspirationId}") { text } }` }),
  inspirations: (i) => ({
    query: `query($a: String, $b: String) { inspirations(tag: "${MARK}", after: $a) { nodes { text } } byProject: inspirations(projectId: "${i.projectId}", after: $b) { nodes { text inspirationId } } }`,
    variables: { a: i.cursors.inspirations, b: i.cursors.inspirationsByProject },
  }),
  activity: (i) => ({
    query: `query($a: String) { activity(projectId: "${i.projectId}", after: $a) { nodes { action data } } }`,
    variables: { a: i.cursors.activity },
  }),
  timeline: (i) => ({
    query: `query($a: String, $b: String) { timeline(after: $a) { nodes { action data projectId } } typed: timeline(types: ["log.created", "asset.created"], after: $b) { nodes { action data } } }`,
    variables: { a: i.cursors.timeline, b: i.cursors.timelineTyped },
  }),
  // A's words (every searchable field of A's holds them), with A's cursor; B's search without a cursor is checked below.
  search: (i) => ({
    query: `query($a: String) { search(text: "${MARK}", after: $a) { nodes { score matchedFields entity { id __typename ... on Project { title } ... on Log { rawText } ... on Asset { alt } ... on Inspiration { text } } } } }`,
    variables: { a: i.cursors.search },
  }),
  job: (i) => ({
    query: `{ job(jobId: "${i.jobId}") { kind steps { name } } batch: job(jobId: "${i.batchJobId}") { kind itemCounts { total } stageItemCounts { stage } items { nodes { inputs } } scenes { prompt videoClipUrl } } }`,
  }),
  jobs: (i) => ({
    query: `query($a: String) { jobs(projectId: "${i.projectId}", after: $a) { nodes { kind } } }`,
    variables: { a: i.cursors.jobs },
  }),
  jobsByStatus: (i) => ({
    query: `query($a: String) { jobsByStatus(status: PAUSED, after: $a) { nodes { kind jobId } } }`,
    variables: { a: i.cursors.jobsByStatus },
  }),
  myJobs: (i) => ({ query: `query($a: String) { myJobs(after: $a) { nodes { kind } } }`, variables: { a: i.cursors.myJobs } }),
  stepsAwaitingReview: (i) => ({
    query: `query($a: String) { stepsAwaitingReview(after: $a) { nodes { jobId name } } }`,
    variables: { a: i.cursors.stepsAwaitingReview },
  }),
  jobsAcrossTenants: () => ({ query: '{ jobsAcrossTenants(status: PAUSED) { nodes { jobId kind } } }' }),
  projectsAcrossTenants: () => ({ query: '{ projectsAcrossTenants(status: PLANNING) { nodes { projectId title tenantId } } }' }),
  deadLettersAcrossTenants: () => ({
    query: '{ deadLettersAcrossTenants(kind: "BATCH", stage: "process") { nodes { jobId tenantId inputs } } }',
  }),
  // Mutations
  createJob: (i) => ({ query: `mutation { createJob(input: { projectId: "${i.projectId}", kind: "x", steps: ["a"] }) { jobId } }` }),
  startStep: (i) => ({ query: `mutation { startStep(jobId: "${i.jobId}", stepName: "render") { status } }` }),
  reportStepProgress: (i) => ({
    query: `mutation { reportStepProgress(jobId: "${i.jobId}", stepName: "render", progress: 0.5) { status } }`,
  }),
  completeStep: (i) => ({ query: `mutation { completeStep(jobId: "${i.jobId}", stepName: "render") { status } }` }),
  failStep: (i) => ({ query: `mutation { failStep(jobId: "${i.jobId}", stepName: "render", code: "x", message: "y") { status } }` }),
  pauseStepForReview: (i) => ({ query: `mutation { pauseStepForReview(jobId: "${i.jobId}", stepName: "render") { status } }` }),
  handBackStep: (i) => ({ query: `mutation { handBackStep(jobId: "${i.jobId}", stepName: "render") { status } }` }),
  approveStep: (i) => ({ query: `mutation { approveStep(jobId: "${i.jobId}", stepName: "render") { status kind } }` }),
  rejectStep: (i) => ({ query: `mutation { rejectStep(jobId: "${i.jobId}", stepName: "render", reason: "no") { status } }` }),
  cancelJob: (i) => ({ query: `mutation { cancelJob(jobId: "${i.jobId}") { status } }` }),
  retryJob: (i) => ({ query: `mutation { retryJob(jobId: "${i.jobId}") { status } }` }),
  deleteJob: (i) => ({ query: `mutation { deleteJob(jobId: "${i.jobId}") { status } }` }),
  // A has a job waiting to be claimed: B's workers must never be handed it.
  claimWork: () => ({
    query:
      'mutation { claimWork { job { jobId kind } step { name } item { inputs } } items: claimWork(kind: "BATCH", stage: "process") { job { jobId } item { inputs } } }',
  }),
  addWorkItems: (i) => ({
    query: `mutation { addWorkItems(jobId: "${i.batchJobId}", stage: "process", items: [{ source: "tenants/tenant-b/x.png" }]) { jobId } }`,
  }),
  reportWorkItemProgress: (i) => ({
    query: `mutation { reportWorkItemProgress(jobId: "${i.batchJobId}", stage: "process", sequence: 1, attempt: 1, progress: 0.5) { inputs } }`,
  }),
  completeWorkItem: (i) => ({
    query: `mutation { completeWorkItem(jobId: "${i.batchJobId}", stage: "process", sequence: 1, attempt: 1, outputs: { result: "tenants/tenant-b/r.png" }) { inputs } }`,
  }),
  failWorkItem: (i) => ({
    query: `mutation { failWorkItem(jobId: "${i.batchJobId}", stage: "process", sequence: 1, attempt: 1, code: "x", message: "y") { inputs } }`,
  }),
  handBackWorkItem: (i) => ({
    query: `mutation { handBackWorkItem(jobId: "${i.batchJobId}", stage: "process", sequence: 1, attempt: 1) { inputs } }`,
  }),
  retryWorkItem: (i) => ({ query: `mutation { retryWorkItem(jobId: "${i.batchJobId}", stage: "process", sequence: 1) { inputs } }` }),
  // Operators only: a tenant, its admin included, cannot give itself (or take from A) a larger share of the pools.
  setPoolShare: () => ({ query: 'mutation { setPoolShare(tenantId: "tenant-a", weight: 1000) { weight } }' }),
  // Operators only for A's: a tenant (its admin included) can neither read A's usage nor raise its own (or A's) plan.
  tenantUsage: () => ({ query: '{ tenantUsage(tenantId: "tenant-a") { plan quotas { quota used limit } } }' }),
  setTenantPlan: () => ({ query: 'mutation { setTenantPlan(tenantId: "tenant-a", plan: ENTERPRISE) { plan } }' }),
  // Cold storage is read under the caller's own prefix: A's job id names nothing of B's (the archive
  // test reads an archived job of A's as B too, test/e2e/archive.test.ts).
  archivedJob: (i) => ({ query: `{ archivedJob(jobId: "${i.jobId}") { jobId job steps events } }` }),
  restoreProject: (i) => ({ query: `mutation { restoreProject(projectId: "${i.projectId}") { projectId title } }` }),
  // Operators only: a tenant, its admin included, cannot start the server's archive run.
  runArchive: () => ({ query: 'mutation { runArchive { jobs projects } }' }),
  // Operators only: the server's own migrations and the drift check read and write every tenant's items.
  migrations: () => ({ query: '{ migrations { id state jobId counts { rewritten } } }' }),
  runMigrations: () => ({ query: 'mutation { runMigrations(itemsPerSecond: 1) { id state } }' }),
  modelDrift: () => ({ query: '{ modelDrift(maxSamples: 50) { drifted types { entityType samples { pk sk } } } }' }),
  deadLetters: (i) => ({
    query: 'query($a: String) { deadLetters(kind: "BATCH", stage: "process", after: $a) { nodes { jobId inputs error { message } } } }',
    variables: { a: i.cursors.deadLetters },
  }),
  // Aimed at A's job with a dead letter: B's replay reads only B's dead letters, so it finds none.
  replayDeadLetters: (i) => ({
    query: `mutation { replayDeadLetters(filter: { kind: "BATCH", stage: "process", jobId: "${i.deadJobId}" }) { reopened skipped remaining } }`,
  }),
  jobKinds: () => ({ query: '{ jobKinds { name stages { name phase } } }' }),
  createTenant: () => ({ query: 'mutation { createTenant(input: { name: "B" }) { tenantId name } }' }),
  updateTenant: () => ({ query: 'mutation { updateTenant(expectedVersion: 1, input: { name: "B2" }) { tenantId name } }' }),
  createProject: () => ({ query: 'mutation { createProject(input: { title: "B project" }) { projectId title } }' }),
  updateProject: (i) => ({
    query: `mutation { updateProject(projectId: "${i.projectId}", expectedVersion: 1, input: { title: "hijack" }) { title } }`,
  }),
  setProjectStatus: (i) => ({ query: `mutation { setProjectStatus(projectId: "${i.projectId}", status: PRODUCTION) { status } }` }),
  archiveProject: (i) => ({ query: `mutation { archiveProject(projectId: "${i.projectId}") { archived } }` }),
  createBriefVersion: (i) => ({
    query: `mutation { createBriefVersion(projectId: "${i.projectId}", input: { requirements: ["x"], deliverables: [], changelogEntry: "x" }) { version changelog { summary } } }`,
  }),
  approveBriefVersion: (i) => ({
    query: `mutation { approveBriefVersion(projectId: "${i.projectId}", version: 1, decision: APPROVED) { requirements } }`,
  }),
  createLog: (i) => ({ query: `mutation { createLog(projectId: "${i.projectId}", input: { rawText: "x" }) { logId } }` }),
  updateLogExtraction: (i) => ({
    query: `mutation { updateLogExtraction(projectId: "${i.projectId}", logId: "${i.logId}", expectedVersion: 1, input: { materials: [] }) { rawText } }`,
  }),
  confirmLogAttribution: (i) => ({
    query: `mutation { confirmLogAttribution(projectId: "${i.projectId}", logId: "${i.logId}") { rawText } }`,
  }),
  rejectLogAttribution: (i) => ({
    query: `mutation { rejectLogAttribution(projectId: "${i.projectId}", logId: "${i.logId}") { rawText } }`,
  }),
  createAsset: (i) => ({
    query: `mutation { createAsset(projectId: "${i.projectId}", input: { type: IMAGE, s3Key: "tenants/tenant-b/x.jpg", linkedLogId: "${i.logId}" }) { assetId } }`,
  }),
  updateAsset: (i) => ({
    query: `mutation { updateAsset(projectId: "${i.projectId}", assetId: "${i.assetId}", expectedVersion: 1, input: { alt: "x" }) { s3Key } }`,
  }),
  requestAssetUpload: (i) => ({
    query: `mutation { requestAssetUpload(projectId: "${i.projectId}", input: { type: IMAGE, fileName: "x.png", contentType: "image/png", size: 3 }) { asset { assetId } upload { url } } }`,
  }),
  requestAssetVersionUpload: (i) => ({
    query: `mutation { requestAssetVersionUpload(projectId: "${i.projectId}", assetId: "${i.assetId}", input: { fileName: "x.png", contentType: "image/png", size: 3 }) { version upload { url } } }`,
  }),
  confirmAssetUpload: (i) => ({
    query: `mutation { confirmAssetUpload(projectId: "${i.projectId}", assetId: "${i.assetId}") { s3Key url } }`,
  }),
  deleteAsset: (i) => ({ query: `mutation { deleteAsset(projectId: "${i.projectId}", assetId: "${i.assetId}") { s3Key } }` }),
  createInspiration: (i) => ({
    query: `mutation { createInspiration(input: { type: TEXT, text: "x", linkedProjectId: "${i.projectId}" }) { inspirationId } }`,
  }),
  requestInspirationUpload: (i) => ({
    query: `mutation { requestInspirationUpload(input: { type: IMAGE, fileName: "x.png", contentType: "image/png", size: 3, linkedProjectId: "${i.projectId}" }) { inspiration { inspirationId } } }`,
  }),
  confirmInspirationUpload: (i) => ({ query: `mutation { confirmInspirationUpload(inspirationId: "${i.inspirationId}") { text url } }` }),
  updateInspiration: (i) => ({
    query: `mutation { updateInspiration(inspirationId: "${i.inspirationId}", expectedVersion: 1, input: { text: "x" }) { text } }`,
  }),
  deleteInspiration: (i) => ({ query: `mutation { deleteInspiration(inspirationId: "${i.inspirationId}") { text } }` }),
  // A's global ids, of every Node type: B gets null for each, exactly as for an id that names nothing.
  node: (i) => ({ query: 'query($id: ID!) { node(id: $id) { id __typename } }', variables: { id: nodeIdsOf(i)[0] } }),
  nodes: (i) => ({ query: 'query($ids: [ID!]!) { nodes(ids: $ids) { id __typename } }', variables: { ids: nodeIdsOf(i) } }),
};

/** A list query's arguments as GraphQL text (enum values by name, unquoted). */
const argumentText = (args: Record<string, unknown>) =>
  Object.entries(args)
    .map(([name, value]) => `${name}: ${value}`)
    .join(', ');

// The cases of each standard project child, derived from its declaration: a new child's fields are
// covered without an edit here.
for (const { model, names } of standardChildren) {
  const mine = (i: Ids) => i.standard[model.type];
  const ref = (i: Ids) => `projectId: "${i.projectId}", ${model.idField}: "${mine(i).id}"`;
  const id = model.idField;
  cases[names.single] = (i) => ({ query: `{ ${names.single}(${ref(i)}) { ${id} } }` });
  cases[names.plural] = (i) => ({
    query: `query($a: String) { ${names.plural}(projectId: "${i.projectId}", after: $a) { nodes { ${id} } } }`,
    variables: { a: mine(i).cursors[names.plural] },
  });
  cases[names.create] = (i) => ({
    query: `mutation($input: Create${model.type}Input!) { ${names.create}(projectId: "${i.projectId}", input: $input) { ${id} } }`,
    variables: { input: sampleInput(model, 'tenant-b', 'b') },
  });
  cases[names.update] = (i) => ({ query: `mutation { ${names.update}(${ref(i)}, expectedVersion: 1, input: {}) { ${id} } }` });
  const next = model.targets(model.states[0] ?? '')[0];
  if (names.setStatus && next) {
    cases[names.setStatus] = (i) => ({ query: `mutation { ${names.setStatus}(${ref(i)}, status: ${next.toUpperCase()}) { ${id} } }` });
  }
  cases[names.delete] = (i) => ({ query: `mutation { ${names.delete}(${ref(i)}) { ${id} } }` });
  for (const list of names.lists) {
    cases[list] = (i) => ({
      query: `query($a: String) { ${list}(${argumentText(listArguments(model, list))}, after: $a) { nodes { ${id} } } }`,
      variables: { a: mine(i).cursors[list] },
    });
  }
}

/** A's entities as global ids, one of each Node type. */
function nodeIdsOf(i: Ids): string[] {
  const { projectId, jobId } = i;
  return [
    globalIdOf('Log', { projectId, logId: i.logId }),
    globalIdOf('Tenant', { tenantId: 'tenant-a' }),
    globalIdOf('Project', { projectId }),
    globalIdOf('Brief', { projectId, version: 1 }),
    ...standardChildren.map(({ model }) => {
      if (!isNodeType(model.type)) throw new Error(`${model.type} is no Node type.`);
      return globalIdOf(model.type, { projectId, [model.idField]: i.standard[model.type].id });
    }),
    globalIdOf('Asset', { projectId, assetId: i.assetId }),
    globalIdOf('Inspiration', { inspirationId: i.inspirationId }),
    globalIdOf('Job', { jobId }),
    globalIdOf('Step', { jobId, order: 1, name: 'render', attempt: 1 }),
  ];
}

describe.each(STORES)('tenant isolation, on %s', (store) => {
  let server: TestServer;
  let a: string;
  let b: string;
  /** Tenant B's own administrator: everything in B, nothing of A's. */
  let bAdmin: string;
  /** The platform's operator, signed by the operator issuer. */
  let operator: string;
  let ids: Ids;

  /** Everything the store holds of `tenantId`: DynamoDB's items under its key prefix, or its rows in every PostgreSQL table. */
  const itemsOf = async (tenantId: string): Promise<Record<string, unknown>[]> => {
    if (server.config.postgres) return rowsOfTenant(server.config.postgres.url, tenantId);
    const out = await dynamoDocOf(server.app).send(new ScanCommand({ TableName: server.config.tableName }));
    return (out.Items ?? [])
      .filter((item) => String(item.PK).startsWith(`TENANT#${tenantId}`))
      .sort((x, y) => `${x.PK}${x.SK}`.localeCompare(`${y.PK}${y.SK}`));
  };

  beforeAll(async () => {
    server = await startTestServer({ store });
    a = await server.token('tenant-a');
    // B may do everything but admin's cross-tenant reads, so every mutation reaches the data layer.
    b = await server.token('tenant-b', [Role.EDITOR, Role.WORKER]);
    bAdmin = await server.token('tenant-b', [Role.ADMIN], 'admin-tenant-b');
    operator = await server.operatorToken();
    await server.request(MeDocument, {}, a);
    const projectId = dataOf(await server.request(CreateProjectDocument, { input: { title: `${MARK} project` } }, a)).createProject
      .projectId;
    await server.request(CreateProjectDocument, { input: { title: `${MARK} second` } }, a);
    const logId = dataOf(
      await server.request(
        CreateLogDocument,
        { projectId, input: { rawText: `${MARK} log`, materials: [`${MARK}-pigment`], timeSpentMinutes: 5 } },
        a,
      ),
    ).createLog.logId;
    await server.request(CreateLogDocument, { projectId, input: { rawText: `${MARK} log 2` } }, a);
    // Two of each standard project child, created from its declaration, and A's cursors for its lists.
    const standard: Ids['standard'] = {};
    for (const { model, names } of standardChildren) {
      const create = `mutation($p: ID!, $input: Create${model.type}Input!) { ${names.create}(projectId: $p, input: $input) { ${model.idField} } }`;
      const made: string[] = [];
      for (const _ of [1, 2]) {
        const res = await server.raw({ query: create, variables: { p: projectId, input: sampleInput(model, 'tenant-a', MARK) } }, a);
        expect({ type: model.type, errors: res.body.errors }).toEqual({ type: model.type, errors: undefined });
        made.push(res.body.data[names.create][model.idField]);
      }
      standard[model.type] = { id: made[0], cursors: {} };
    }
    const assetId = dataOf(
      await server.request(
        CreateAssetDocument,
        { projectId, input: { type: 'IMAGE', s3Key: 'tenants/tenant-a/secret.jpg', alt: MARK, linkedLogId: logId } },
        a,
      ),
    ).createAsset.assetId;
    await server.request(CreateAssetDocument, { projectId, input: { type: 'IMAGE', s3Key: 'tenants/tenant-a/secret2.jpg', alt: MARK } }, a);
    await server.request(
      CreateBriefVersionDocument,
      { projectId, input: { requirements: [MARK], deliverables: [], changelogEntry: MARK } },
      a,
    );
    await server.request(
      CreateBriefVersionDocument,
      { projectId, input: { requirements: [MARK], deliverables: [], changelogEntry: MARK } },
      a,
    );
    const inspirationId = dataOf(
      await server.request(CreateInspirationDocument, { input: { type: 'TEXT', text: MARK, tags: [MARK], linkedProjectId: projectId } }, a),
    ).createInspiration.inspirationId;
    await server.request(CreateInspirationDocument, { input: { type: 'TEXT', text: MARK, tags: [MARK], linkedProjectId: projectId } }, a);
    const worker = await server.token('tenant-a', [Role.WORKER], 'user-tenant-a');
    const jobIds: string[] = [];
    for (const n of [1, 2]) {
      const created = await server.raw(
        {
          query: `mutation { createJob(input: { projectId: "${projectId}", kind: "${MARK}", steps: ["render"], inputs: { n: ${n} } }) { jobId } }`,
        },
        a,
      );
      const jobId = created.body.data.createJob.jobId as string;
      jobIds.push(jobId);
      await server.raw({ query: `mutation { startStep(jobId: "${jobId}", stepName: "render") { status } }` }, worker);
      await server.raw({ query: `mutation { pauseStepForReview(jobId: "${jobId}", stepName: "render") { status } }` }, worker);
    }

    // A job of A's that waits for a worker, so claimWork has something of A's to (not) hand out.
    await server.raw(
      {
        query: `mutation { createJob(input: { projectId: "${projectId}", kind: "${MARK}", steps: ["render"], inputs: { n: 3 } }) { jobId } }`,
      },
      a,
    );

    // A dead letter of A's: a BATCH job whose one item fails both its attempts (the second after
    // the stage's retry backoff), made before any other of A's items can be claimed.
    const dead = await server.raw(
      {
        query: `mutation { createJob(input: { projectId: "${projectId}", kind: "BATCH", inputs: { label: "${MARK}" }, items: [{ source: "tenants/tenant-a/${MARK}-dead.png" }] }) { jobId } }`,
      },
      a,
    );
    const deadJobId = dead.body.data.createJob.jobId as string;
    for (const attempt of [1, 2]) {
      const deadline = Date.now() + 15_000;
      let claimed = null;
      while (!claimed && Date.now() < deadline) {
        claimed = (await server.raw({ query: 'mutation { claimWork(kind: "BATCH") { job { jobId } item { attempt } } }' }, worker)).body
          .data.claimWork;
        if (!claimed) await new Promise((r) => setTimeout(r, 50));
      }
      expect(claimed).toEqual({ job: { jobId: deadJobId }, item: { attempt } });
      const failed = await server.raw(
        {
          query: `mutation { failWorkItem(jobId: "${deadJobId}", stage: "process", sequence: 1, attempt: ${attempt}, code: "${MARK}", message: "${MARK}") { status } }`,
        },
        worker,
      );
      expect(failed.body.data.failWorkItem.status).toBe(attempt === 1 ? 'PENDING' : 'FAILED');
    }

    // A BATCH job of A's whose two work items wait to be claimed.
    const batch = await server.raw(
      {
        query: `mutation { createJob(input: { projectId: "${projectId}", kind: "BATCH", inputs: { label: "${MARK}" }, items: [{ source: "tenants/tenant-a/${MARK}-1.png" }, { source: "tenants/tenant-a/${MARK}-2.png" }] }) { jobId } }`,
      },
      a,
    );
    const batchJobId = batch.body.data.createJob.jobId as string;

    // A's own cursors for every list, taken from first pages of size 1.
    const cursor = async (query: string) => {
      const res = await server.raw({ query }, a);
      const connection = Object.values(res.body.data)[0] as { pageInfo: { endCursor: string } };
      expect(connection.pageInfo.endCursor).toEqual(expect.any(String));
      return connection.pageInfo.endCursor;
    };
    ids = {
      jobId: jobIds[0],
      batchJobId,
      deadJobId,
      projectId,
      logId,
      standard,
      assetId,
      inspirationId,
      cursors: {
        projects: await cursor('{ projects(first: 1) { pageInfo { endCursor } } }'),
        briefVersions: await cursor(`{ briefVersions(projectId: "${projectId}", first: 1) { pageInfo { endCursor } } }`),
        logsConnection: await cursor(`{ logsConnection(projectId: "${projectId}", first: 1) { pageInfo { endCursor } } }`),
        logsByAttribution: await cursor('{ logsByAttribution(status: PENDING, first: 1) { pageInfo { endCursor } } }'),
        assets: await cursor(`{ assets(projectId: "${projectId}", first: 1) { pageInfo { endCursor } } }`),
        assetsByType: await cursor('{ assets(type: IMAGE, first: 1) { pageInfo { endCursor } } }'),
        inspirationsByProject: await cursor(`{ inspirations(projectId: "${projectId}", first: 1) { pageInfo { endCursor } } }`),
        inspirations: await cursor(`{ inspirations(tag: "${MARK}", first: 1) { pageInfo { endCursor } } }`),
        activity: await cursor(`{ activity(projectId: "${projectId}", first: 1) { pageInfo { endCursor } } }`),
        timeline: await cursor('{ timeline(first: 1) { pageInfo { endCursor } } }'),
        timelineTyped: await cursor('{ timeline(types: ["log.created", "asset.created"], first: 1) { pageInfo { endCursor } } }'),
        jobs: await cursor(`{ jobs(projectId: "${projectId}", first: 1) { pageInfo { endCursor } } }`),
        jobsByStatus: await cursor('{ jobsByStatus(status: PAUSED, first: 1) { pageInfo { endCursor } } }'),
        myJobs: await cursor('{ myJobs(first: 1) { pageInfo { endCursor } } }'),
        stepsAwaitingReview: await cursor('{ stepsAwaitingReview(first: 1) { pageInfo { endCursor } } }'),
        deadLetters: await cursor('{ deadLetters(kind: "BATCH", stage: "process", first: 1) { pageInfo { endCursor } } }'),
        // A finds its own items by these words: B's search for them below is not empty by accident.
        search: await cursor(`{ search(text: "${MARK}", first: 1) { pageInfo { endCursor } } }`),
      },
    };
    for (const { model, names } of standardChildren) {
      const mine = ids.standard[model.type];
      mine.cursors[names.plural] = await cursor(`{ ${names.plural}(projectId: "${projectId}", first: 1) { pageInfo { endCursor } } }`);
      for (const list of names.lists) {
        mine.cursors[list] = await cursor(`{ ${list}(${argumentText(listArguments(model, list))}, first: 1) { pageInfo { endCursor } } }`);
      }
    }
  });

  it('has a case for every query and mutation in the schema', () => {
    const schema = buildAppSchema();
    // Subscriptions are covered by the WebSocket isolation test.
    const fields = [...Object.keys(schema.getQueryType()!.getFields()), ...Object.keys(schema.getMutationType()?.getFields() ?? {})];
    expect(Object.keys(cases).sort()).toEqual(fields.sort());
  });

  it.each([
    ['B (an editor and worker)', () => b],
    ["B's admin", () => bAdmin],
  ])("gives tenant %s none of A's data and changes nothing of A's, for every field", async (_who, tokenOf) => {
    // A's finished jobs are settled first (their items take their expiry: the server's own sweep,
    // which would otherwise change A's items while B's requests run).
    await server.app.settler.sweep();
    const before = await itemsOf('tenant-a');
    expect(before.length).toBeGreaterThan(20);
    const secrets = [
      MARK.toLowerCase(),
      ids.jobId,
      ids.batchJobId,
      ids.deadJobId,
      ids.projectId,
      ids.logId,
      ...Object.values(ids.standard).map((s) => s.id),
      ids.assetId,
      ids.inspirationId,
      'tenant-a',
      // A's global ids: node/nodes would return them for anything they found.
      ...nodeIdsOf(ids),
    ];
    for (const [field, make] of Object.entries(cases)) {
      const { query, variables } = make(ids);
      const res = await server.raw({ query, variables }, tokenOf());
      expect({ field, status: res.status }).toEqual({ field, status: 200 });
      const data = JSON.stringify(res.body.data ?? null).toLowerCase();
      for (const secret of secrets) {
        if (data.includes(secret.toLowerCase())) throw new Error(`${field} leaked ${secret} to tenant B: ${data}`);
      }
      const codes = [...new Set((res.body.errors ?? []).map((e: { extensions: { code: string } }) => e.extensions.code))];
      // The operator's fields are refused outright, to B's admin too.
      if (operatorOnly(field)) expect({ field, codes }).toEqual({ field, codes: ['FORBIDDEN'] });
      // Every other request that named A's things either found nothing or failed with a client code.
      else
        for (const code of codes)
          expect({ field, code }).toEqual({ field, code: expect.stringMatching(/^(NOT_FOUND|BAD_USER_INPUT|CONFLICT)$/) });
    }
    expect(await itemsOf('tenant-a')).toEqual(before);
  });

  it("gives a pool worker without a lease nothing of A's, for every field but claiming", async () => {
    // A's finished jobs are settled first (their items take their expiry: the server's own sweep,
    // which would otherwise change A's items while B's requests run).
    await server.app.settler.sweep();
    const before = await itemsOf('tenant-a');
    const pool = await signDevToken(new TextEncoder().encode(TEST_SECRET), { sub: 'gpu', pool: { kinds: ['BATCH', 'x'] } });
    for (const [field, make] of Object.entries(cases)) {
      // Claiming is what a pool worker is for: it is handed any tenant's work with a lease (test/e2e/pools.test.ts).
      if (field === 'claimWork') continue;
      const { query, variables } = make(ids);
      const res = await server.raw({ query, variables }, pool);
      const codes = (res.body.errors ?? []).map((e: { extensions: { code: string } }) => e.extensions.code);
      // Every field is refused outright; none answers data.
      expect({ field, codes: [...new Set(codes)] }).toEqual({ field, codes: ['FORBIDDEN'] });
      expect({ field, data: JSON.stringify(res.body.data ?? null) }).toEqual({ field, data: expect.not.stringContaining(MARK) });
    }
    expect(await itemsOf('tenant-a')).toEqual(before);
  });

  it("rejects A's cursors as `before` of a backward page for B, on every list that pages backward", async () => {
    const schema = buildAppSchema();
    const query = schema.getQueryType()!.getFields();
    // The backward twin of each list case: A's cursors as `before` instead of `after`.
    const backward = Object.entries(cases).filter(([field]) => query[field]?.args.some((arg) => arg.name === 'before'));
    expect(backward.map(([field]) => field)).toEqual(expect.arrayContaining(['projects', 'logsConnection', 'jobs', 'activity', 'assets']));
    let checked = 0;
    for (const [field, make] of backward) {
      const { query: text, variables } = make(ids);
      // `logs` (the seed's list) takes no cursor in its case.
      if (!text.includes('after: $')) continue;
      checked++;
      const res = await server.raw({ query: text.replaceAll('after: $', 'last: 1, before: $'), variables }, b);
      expect({ field, status: res.status }).toEqual({ field, status: 200 });
      const codes = (res.body.errors ?? []).map((e: { extensions: { code: string; field?: string } }) => [
        e.extensions.code,
        e.extensions.field,
      ]);
      expect({ field, codes: [...new Set(codes.map(String))] }).toEqual({ field, codes: ['BAD_USER_INPUT,before'] });
      expect(JSON.stringify(res.body.data ?? null)).not.toContain(MARK);
    }
    expect(checked).toBe(backward.length - 1);
  });

  it("rejects A's cursors for B with BAD_USER_INPUT", async () => {
    const res = await server.raw(
      { query: 'query($a: String) { projects(after: $a) { nodes { title } } }', variables: { a: ids.cursors.projects } },
      b,
    );
    expect(res.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    // B's own search for A's words (which A finds: its cursor above came from a page of hits) finds nothing.
    const search = await server.raw(
      {
        query: `{ search(text: "${MARK}") { nodes { score entity { id __typename ... on Project { title } ... on Log { rawText } ... on Asset { alt } ... on Inspiration { text } } } } }`,
      },
      b,
    );
    expect(search.body).toEqual({ data: { search: { nodes: [] } } });
  });

  it("refuses the system partition (the server's own jobs) to a tenant, on every field that takes `system`", async () => {
    const schema = buildAppSchema();
    // Every root field with a `system` argument, found from the schema, so a new one is covered too.
    const withSystem = [schema.getQueryType(), schema.getSubscriptionType()].flatMap((type) =>
      Object.values(type!.getFields())
        .filter((f) => f.args.some((arg) => arg.name === 'system'))
        .map((f) => `${type!.name}.${f.name}`),
    );
    expect(withSystem.sort()).toEqual(['Query.job', 'Query.jobsByStatus', 'Subscription.jobProgress', 'Subscription.jobStatusChanges']);
    // B's admin is refused as B's editor is: the server's own jobs are the operator's.
    for (const token of [b, bAdmin]) {
      for (const query of [
        '{ job(jobId: "job_01J00000000000000000000000", system: true) { jobId } }',
        '{ jobsByStatus(status: RUNNING, system: true) { nodes { jobId } } }',
      ]) {
        expect((await server.raw({ query }, token)).body.errors[0].extensions.code).toBe('FORBIDDEN');
      }
      for (const query of [
        'subscription { jobProgress(jobId: "job_01J00000000000000000000000", system: true) { type } }',
        'subscription { jobStatusChanges(system: true) { type } }',
      ]) {
        const refused = subscribe(wsClient(server.url, token), query);
        await refused.done;
        const errors = refused.errors;
        expect(JSON.stringify(errors)).toContain('FORBIDDEN');
      }
    }
  });
  it("gives B's admin its own tenant's usage, and refuses it A's and any plan of its own choosing", async () => {
    const own = await server.raw({ query: '{ tenantUsage(tenantId: "tenant-b") { tenantId plan quotas { quota used } } }' }, bAdmin);
    expect(own.body.errors).toBeUndefined();
    expect(own.body.data.tenantUsage).toMatchObject({ tenantId: 'tenant-b', plan: 'FREE' });
    // Without tenantId: the token's own tenant, the only one a tenant's admin reads.
    const implicit = await server.raw({ query: '{ tenantUsage { tenantId } }' }, bAdmin);
    expect(implicit.body).toEqual({ data: { tenantUsage: { tenantId: 'tenant-b' } } });
    const theirs = await server.raw({ query: '{ tenantUsage(tenantId: "tenant-a") { tenantId plan } }' }, bAdmin);
    expect(theirs.body.errors.map((e: { extensions: { code: string } }) => e.extensions.code)).toEqual(['FORBIDDEN']);
    expect(theirs.body.data).toBeNull();
    // Its own plan is not its admin's to choose either: the operator sets plans.
    const version = (await server.raw({ query: '{ tenant { version } }' }, bAdmin)).body.data.tenant.version;
    const upgrade = await server.raw(
      { query: `mutation { updateTenant(expectedVersion: ${version}, input: { plan: ENTERPRISE }) { plan } }` },
      bAdmin,
    );
    expect(upgrade.body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'plan' });
    for (const query of [
      'mutation { setTenantPlan(tenantId: "tenant-b", plan: ENTERPRISE) { plan } }',
      'mutation { setPoolShare(tenantId: "tenant-b", weight: 1000) { weight } }',
    ]) {
      expect((await server.raw({ query }, bAdmin)).body.errors[0].extensions.code).toBe('FORBIDDEN');
    }
  });

  it("refuses a token of the tenants' issuer that claims the role operator, whatever else it claims", async () => {
    // Signed with the tenants' key (AUTH_JWT_SECRET), as a tenant's identity provider could sign anything.
    const tenantKey = new TextEncoder().encode(TEST_SECRET);
    const forged = (claims: Record<string, unknown>) =>
      new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setSubject('mallory').setExpirationTime('1h').sign(tenantKey);
    for (const claims of [
      { roles: ['operator'] },
      { tenantId: 'tenant-b', roles: ['admin', 'operator'] },
      { tenantId: 'tenant-b', roles: 'operator' },
    ]) {
      const res = await server.raw(
        { query: 'mutation { setTenantPlan(tenantId: "tenant-a", plan: ENTERPRISE) { plan } }' },
        await forged(claims),
      );
      expect({ claims, status: res.status, code: res.body.errors?.[0]?.extensions?.code }).toEqual({
        claims,
        status: 401,
        code: 'UNAUTHENTICATED',
      });
    }
    // And the operator issuer's key makes operators only: a tenant admin's claims signed with it are refused too.
    const operatorKey = new TextEncoder().encode(TEST_OPERATOR_SECRET);
    const misused = await new SignJWT({ tenantId: 'tenant-b', roles: ['admin'] })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('ops')
      .setExpirationTime('1h')
      .sign(operatorKey);
    expect((await server.raw({ query: '{ viewer { tenantId } }' }, misused)).status).toBe(401);
    expect((await server.raw({ query: '{ tenantUsage(tenantId: "tenant-a") { plan } }' }, misused)).status).toBe(401);
  });

  it("gives the operator every operator field, and none of a tenant's fields", async () => {
    const before = await itemsOf('tenant-a');
    // Every operator field answers the operator, on A's data and across tenants.
    const answers: Record<string, string> = {
      jobsAcrossTenants: '{ jobsAcrossTenants(status: PAUSED) { nodes { jobId } } }',
      projectsAcrossTenants: '{ projectsAcrossTenants(status: PLANNING) { nodes { projectId tenantId } } }',
      deadLettersAcrossTenants: '{ deadLettersAcrossTenants(kind: "BATCH", stage: "process") { nodes { jobId tenantId } } }',
      tenantUsage: '{ tenantUsage(tenantId: "tenant-a") { tenantId plan } }',
      migrations: '{ migrations { id state } }',
      modelDrift: '{ modelDrift(maxSamples: 1) { drifted } }',
      // The writes go to a tenant of their own, so A's items stay as they were for the check below.
      setTenantPlan:
        'mutation { setTenantPlan(tenantId: "tenant-ops", plan: STUDIO, limits: { projects: 7 }) { plan limits { projects } } }',
      setPoolShare: 'mutation { setPoolShare(tenantId: "tenant-ops", weight: 1000) { weight } }',
      runArchive: 'mutation { runArchive { jobs projects } }',
      runMigrations: 'mutation { runMigrations { id state } }',
    };
    expect(Object.keys(cases).filter(operatorOnly).sort()).toEqual(Object.keys(answers).sort());
    const data: Record<string, unknown> = {};
    for (const [field, query] of Object.entries(answers)) {
      const res = await server.raw({ query }, operator);
      expect({ field, errors: res.body.errors }).toEqual({ field, errors: undefined });
      data[field] = res.body.data[field];
    }
    expect(JSON.stringify(data.jobsAcrossTenants)).toContain(ids.jobId);
    expect(JSON.stringify(data.projectsAcrossTenants)).toContain(ids.projectId);
    expect(JSON.stringify(data.deadLettersAcrossTenants)).toContain(ids.deadJobId);
    expect(data.tenantUsage).toEqual({ tenantId: 'tenant-a', plan: 'FREE' });
    expect(data.setTenantPlan).toEqual({ plan: 'STUDIO', limits: { projects: 7 } });
    expect(data.setPoolShare).toEqual({ weight: 1000 });
    // The server's own jobs, through the fields that take `system`.
    const system = await server.raw({ query: '{ jobsByStatus(status: COMPLETED, system: true) { nodes { jobId } } }' }, operator);
    expect(system.body.errors).toBeUndefined();
    // No tenant's field: an operator's token names no tenant, and reads none through them.
    for (const [field, make] of Object.entries(cases)) {
      if (operatorOnly(field)) continue;
      const { query, variables } = make(ids);
      const res = await server.raw({ query, variables }, operator);
      const codes = [...new Set((res.body.errors ?? []).map((e: { extensions: { code: string } }) => e.extensions.code))];
      expect({ field, codes }).toEqual({ field, codes: ['FORBIDDEN'] });
      expect({ field, data: JSON.stringify(res.body.data ?? null) }).toEqual({ field, data: expect.not.stringContaining(MARK) });
    }
    expect(await itemsOf('tenant-a')).toEqual(before);
  });
});
