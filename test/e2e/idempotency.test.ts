import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { CreateProjectDocument } from '../../src/client/gql/graphql';
import { entities } from '../../src/common/entities';
import { clientRecordKey } from '../../src/common/idempotency';
import { put } from '../../src/infra/dynamo/write';
import { dataOf, dynamoDocOf, STORES, startTestServer, type TestServer } from '../support/server';

/*
 * Idempotent creates (issue 19): every create mutation takes an idempotencyKey; a repeat with the
 * same key and arguments returns the first result and writes nothing, other arguments are refused
 * with IDEMPOTENCY_KEY_REUSED, and concurrent duplicates make one entity and one event. A contract
 * test: every case runs on each store (DynamoDB, PostgreSQL).
 */

/** Every create mutation but createJob (which takes its key in its input; its own test below) and createTenant (one per tenant). */
const creates = (projectId: string) => ({
  createProject: { args: 'input: { title: "Idem" }', id: 'projectId' },
  createLog: { args: `projectId: "${projectId}", input: { rawText: "idem" }`, id: 'logId' },
  createAsset: { args: `projectId: "${projectId}", input: { type: IMAGE, s3Key: "tenants/idem/a.png" }`, id: 'assetId' },
  createMilestone: { args: `projectId: "${projectId}", input: { name: "idem" }`, id: 'milestoneId' },
  createScene: { args: `projectId: "${projectId}", input: { sequence: 1, prompt: "idem" }`, id: 'sceneId' },
  createInspiration: { args: 'input: { type: TEXT, text: "idem" }', id: 'inspirationId' },
  createBriefVersion: {
    args: `projectId: "${projectId}", input: { requirements: ["r"], deliverables: [], changelogEntry: "idem" }`,
    id: 'version',
  },
});

describe.each(STORES)('idempotent creates, on %s', (store) => {
  let server: TestServer;
  let token: string;
  let projectId: string;

  const run = async (query: string, as = token) => (await server.raw({ query }, as)).body;
  /** The record of the client's key `key` sent by the test's user (`user-idem`), read through the server's store. */
  const recordOf = async (key: string) =>
    entities.CreateRequest.found(
      await server.app.store.get(entities.CreateRequest.keyOf('idem', { key: clientRecordKey('user-idem', key) })),
    );
  const activity = async (of: string | null) => {
    const arg = of ? `projectId: "${of}", ` : '';
    return (await run(`{ activity(${arg}first: 100) { nodes { action subjectId } } }`)).data.activity.nodes as {
      action: string;
      subjectId: string;
    }[];
  };

  beforeAll(async () => {
    server = await startTestServer({ store });
    token = await server.token('idem');
    projectId = dataOf(await server.request(CreateProjectDocument, { input: { title: 'Idempotency' } }, token)).createProject.projectId;
  });

  it('makes one log and one event for 50 concurrent createLog with one key, and returns it to all of them', async () => {
    const query = `mutation { createLog(projectId: "${projectId}", input: { rawText: "once", materials: ["clay"] }, idempotencyKey: "log-50") { logId rawText } }`;
    const results = await Promise.all(Array.from({ length: 50 }, () => run(query)));
    const errors = results.flatMap((r) => r.errors ?? []);
    expect(errors).toEqual([]);
    const ids = new Set(results.map((r) => r.data.createLog.logId));
    expect(ids.size).toBe(1);
    const [logId] = ids;
    const logs = (await run(`{ logs(projectId: "${projectId}", first: 100) { logId rawText } }`)).data.logs;
    expect(logs.filter((l: { rawText: string }) => l.rawText === 'once')).toEqual([{ logId, rawText: 'once' }]);
    const events = (await activity(projectId)).filter((e) => e.subjectId === logId);
    expect(events.map((e) => e.action)).toEqual(['log.created']);
    const usage = (await run('{ materialUsage(material: "clay") { logCount } }')).data.materialUsage;
    expect(usage.logCount).toBe(1);
    console.log(`idempotency: 50 concurrent createLog with one key → ${ids.size} log, ${events.length} event, ${errors.length} errors`);
  });

  it('refuses the key with other arguments, or for another operation, with IDEMPOTENCY_KEY_REUSED', async () => {
    const first = await run(
      `mutation { createLog(projectId: "${projectId}", input: { rawText: "a" }, idempotencyKey: "reuse-1") { logId } }`,
    );
    expect(first.errors).toBeUndefined();
    const changed = await run(
      `mutation { createLog(projectId: "${projectId}", input: { rawText: "b" }, idempotencyKey: "reuse-1") { logId } }`,
    );
    expect(changed.errors[0].extensions).toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED', field: 'idempotencyKey' });
    expect(changed.data).toBeNull();
    const other = await run(
      `mutation { createMilestone(projectId: "${projectId}", input: { name: "a" }, idempotencyKey: "reuse-1") { milestoneId } }`,
    );
    expect(other.errors[0].extensions.code).toBe('IDEMPOTENCY_KEY_REUSED');
    const bad = await run(
      `mutation { createLog(projectId: "${projectId}", input: { rawText: "a" }, idempotencyKey: "no spaces") { logId } }`,
    );
    expect(bad.errors[0].extensions.code).toBe('BAD_USER_INPUT');
  });

  it('takes a field sent as null for the same request as one that omits it (a retry may spell it either way), for every create', async () => {
    const project = await run('mutation { createProject(input: { title: "nul" }, idempotencyKey: "null-1") { projectId } }');
    const again = await run('mutation { createProject(input: { title: "nul", medium: null }, idempotencyKey: "null-1") { projectId } }');
    expect(again).toEqual(project);
    const log = await run(
      `mutation { createLog(projectId: "${projectId}", input: { rawText: "nul", tags: null }, idempotencyKey: "null-2") { logId } }`,
    );
    expect(
      await run(`mutation { createLog(projectId: "${projectId}", input: { rawText: "nul" }, idempotencyKey: "null-2") { logId } }`),
    ).toEqual(log);
    // A different value is still another request.
    const other = await run('mutation { createProject(input: { title: "nul", medium: "oil" }, idempotencyKey: "null-1") { projectId } }');
    expect(other.errors[0].extensions.code).toBe('IDEMPOTENCY_KEY_REUSED');
  });

  it('makes every create mutation return its first result for a repeat, with one event', async () => {
    for (const [mutation, { args, id }] of Object.entries(creates(projectId))) {
      const query = `mutation { ${mutation}(${args}, idempotencyKey: "every-${mutation}") { ${id} } }`;
      const first = await run(query);
      const again = await run(query);
      expect({ mutation, errors: first.errors ?? again.errors }).toEqual({ mutation, errors: undefined });
      expect({ mutation, id: again.data[mutation][id] }).toEqual({ mutation, id: first.data[mutation][id] });
    }
    // One event each: the project's children in its stream, the project and inspiration in the tenant's.
    const actions = [...(await activity(projectId)), ...(await activity(null))].map((e) => e.action);
    const count = (action: string) => actions.filter((a) => a === action).length;
    expect(count('milestone.created')).toBe(1);
    expect(count('scene.created')).toBe(1);
    expect(count('asset.created')).toBe(1);
    expect(count('brief.version_created')).toBe(1);
    expect(count('inspiration.created')).toBe(1);
  });

  it('makes one job for 20 concurrent createJob with one key, through the same key record as every other create', async () => {
    const input = `{ projectId: "${projectId}", kind: "IDEM_JOB", steps: ["a", "b"], inputs: { n: 1 }, idempotencyKey: "job-20" }`;
    const query = `mutation { createJob(input: ${input}) { jobId } }`;
    const results = await Promise.all(Array.from({ length: 20 }, () => run(query)));
    expect(results.flatMap((r) => r.errors ?? [])).toEqual([]);
    const ids = new Set(results.map((r) => r.data.createJob.jobId));
    expect(ids.size).toBe(1);
    const [jobId] = ids;
    const jobs = (await run(`{ jobs(projectId: "${projectId}", first: 100) { nodes { jobId kind } } }`)).data.jobs.nodes;
    expect(jobs.filter((j: { kind: string }) => j.kind === 'IDEM_JOB')).toEqual([{ jobId, kind: 'IDEM_JOB' }]);
    // The key is recorded by a CreateRequest naming the job, as every create's is.
    expect(await recordOf('job-20')).toMatchObject({ entity: 'Job', target: { PK: expect.stringContaining(`#JOB#${jobId}`), SK: 'JOB' } });
    if (store === 'dynamodb') {
      // On DynamoDB's one table no record of another kind exists (PostgreSQL has no table for one to be in).
      const items = (await dynamoDocOf(server.app).send(new ScanCommand({ TableName: server.config.tableName }))).Items ?? [];
      expect(items.filter((i) => i.entityType === 'CreateRequest' && i.entity === 'Job')).toHaveLength(1);
      expect(items.filter((i) => i.entityType === 'Idempotency')).toEqual([]);
    }
    // A client's key is its user's, as for every other create; a derived key (no key given) is the tenant's.
    const other = await server.token('idem', undefined, 'someone-else');
    expect((await run(query, other)).data.createJob.jobId).not.toBe(jobId);
    const unkeyed = `mutation { createJob(input: { projectId: "${projectId}", kind: "IDEM_JOB", steps: ["a"] }) { jobId } }`;
    const mine = (await run(unkeyed)).data.createJob.jobId;
    expect((await run(unkeyed, other)).data.createJob.jobId).toBe(mine);
    console.log(`idempotency: 20 concurrent createJob with one key → ${ids.size} job`);
  });

  it('makes the upload requests that create an asset or an inspiration idempotent too, with a fresh URL for the same object', async () => {
    const asset = `mutation($size: Int!) { requestAssetUpload(projectId: "${projectId}", input: { type: IMAGE, fileName: "a.png", contentType: "image/png", size: $size }, idempotencyKey: "upload-1") { asset { assetId s3Key } upload { url } } }`;
    const first = await server.raw({ query: asset, variables: { size: 3 } }, token);
    const again = await server.raw({ query: asset, variables: { size: 3 } }, token);
    expect(again.body.errors).toBeUndefined();
    expect(again.body.data.requestAssetUpload.asset).toEqual(first.body.data.requestAssetUpload.asset);
    const path = (url: string) => new URL(url).pathname;
    expect(path(again.body.data.requestAssetUpload.upload.url)).toBe(path(first.body.data.requestAssetUpload.upload.url));
    const other = await server.raw({ query: asset, variables: { size: 4 } }, token);
    expect(other.body.errors[0].extensions.code).toBe('IDEMPOTENCY_KEY_REUSED');
    const assetId = first.body.data.requestAssetUpload.asset.assetId;
    expect((await activity(projectId)).filter((e) => e.subjectId === assetId).map((e) => e.action)).toEqual(['asset.upload_requested']);

    const inspiration = `mutation { requestInspirationUpload(input: { type: IMAGE, fileName: "i.png", contentType: "image/png", size: 3 }, idempotencyKey: "upload-2") { inspiration { inspirationId s3Key } upload { url } } }`;
    const one = (await server.raw({ query: inspiration }, token)).body.data.requestInspirationUpload;
    const two = (await server.raw({ query: inspiration }, token)).body.data.requestInspirationUpload;
    expect(two.inspiration).toEqual(one.inspiration);
    expect(path(two.upload.url)).toBe(path(one.upload.url));
    const id = one.inspiration.inspirationId;
    expect((await activity(null)).filter((e) => e.subjectId === id).map((e) => e.action)).toEqual(['inspiration.upload_requested']);
  });

  it('keeps one user’s keys apart from another’s', async () => {
    const query = `mutation { createProject(input: { title: "Mine" }, idempotencyKey: "per-user") { projectId } }`;
    const mine = await run(query);
    const theirs = await run(query, await server.token('idem', undefined, 'someone-else'));
    expect(theirs.data.createProject.projectId).not.toBe(mine.data.createProject.projectId);
  });

  it('forgets a key after its window: a record past its expiry no longer answers', async () => {
    const query = `mutation { createProject(input: { title: "Window" }, idempotencyKey: "window-1") { projectId } }`;
    const first = (await run(query)).data.createProject.projectId;
    // Age the key's record past its window, through the server's own store (DynamoDB's TTL deletes
    // lazily; either store ignores an expired item at once).
    const record = await recordOf('window-1');
    expect(record?.target.SK).toBe(`PROJECT#${first}`);
    if (!record) return;
    await server.app.store.transact([put({ ...record, expiresAt: Math.floor(Date.now() / 1000) - 1 })]);
    const second = (await run(query)).data.createProject.projectId;
    expect(second).not.toBe(first);
  });
});
