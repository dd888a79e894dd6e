import { randomUUID } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { createDynamo, type Dynamo } from '../../src/infra/dynamo/client';
import { createTable, testEndpoint, testRegion } from '../support/dynamo';
import { codeOf, dataOf, startTestServer, type TestServer } from '../support/server';
import { startStallProxy, type StallProxy } from '../support/stall-proxy';
import { CreateAssetDocument, CreateLogDocument, CreateProjectDocument } from '../../src/client/gql/graphql';
import { fixture } from '../support/fixtures';

/*
 * A read that fails must fail the request, never pass for an empty result. Log.assets reads its
 * assets in one batch (BatchGetItem, or one GetItem each without batching); when those reads time
 * out, the answer must be an error, not a log with `assets: []`. This once made
 * test/e2e/http.test.ts flaky on a busy machine: timed-out reads were dropped as missing items.
 */
const LOGS_WITH_ASSETS = 'query ($projectId: ID!) { logs(projectId: $projectId) { logId assets { assetId } } }';
const ASSETS = 3;

describe.each([
  { loads: 'batched', batchLoads: true, stall: 'BatchGetItem' },
  { loads: 'unbatched', batchLoads: false, stall: 'GetItem' },
])('when the item reads of Log.assets time out ($loads loads)', ({ batchLoads, stall }) => {
  let writer: TestServer;
  let reader: TestServer;
  let proxy: StallProxy;
  let token: string;
  let projectId: string;

  beforeAll(async () => {
    writer = await startTestServer();
    token = await writer.token('stalled-reads');
    projectId = dataOf(await writer.request(CreateProjectDocument, { input: { title: 'P' } }, token)).createProject.projectId;
    const logId = dataOf(await writer.request(CreateLogDocument, { projectId, input: { rawText: 'log' } }, token)).createLog.logId;
    for (let a = 0; a < ASSETS; a++) {
      const input = { type: 'IMAGE' as const, s3Key: `tenants/stalled-reads/${projectId}/${a}.jpg`, linkedLogId: logId };
      dataOf(await writer.request(CreateAssetDocument, { projectId, input }, token));
    }
    // A second server on the same table, whose item reads go through a proxy that never answers
    // them: each is cut by the request budget (a per-attempt timeout well above what a busy
    // machine needs for the calls that do get through).
    proxy = await startStallProxy(testEndpoint(), [stall]);
    reader = await startTestServer({
      env: { TABLE_NAME: writer.config.tableName, DYNAMODB_ENDPOINT: proxy.url, REQUEST_BUDGET_MS: '3000', OUTBOX_SWEEP_MS: '3600000' },
      batchLoads,
    });
  });

  it('the writer itself sees the log with its assets', async () => {
    const res = await writer.raw({ query: LOGS_WITH_ASSETS, variables: { projectId } }, token);
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.logs).toHaveLength(1);
    expect(res.body.data.logs[0].assets).toHaveLength(ASSETS);
  });

  it('answers with an error, not with an empty list of assets, and lets go of the stalled calls', async () => {
    const res = await reader.raw({ query: LOGS_WITH_ASSETS, variables: { projectId } }, token);
    // The reads were sent and stalled: what follows is about their failure.
    expect(proxy.held).toBeGreaterThan(0);
    expect(res.body.data?.logs?.[0]?.assets).not.toEqual([]);
    expect(res.body.errors?.length).toBeGreaterThan(0);
    expect(codeOf(res.body)).toBe('SERVICE_UNAVAILABLE');
    // Every stalled call was given up by the client (its socket closed), none left waiting.
    for (let i = 0; i < 100 && proxy.stalled > 0; i++) await new Promise((r) => setTimeout(r, 50));
    expect(proxy.stalled).toBe(0);
  });
});

describe('a burst of reads larger than the connection pool, against a slow DynamoDB', () => {
  const CALLS = 120;
  let proxy: StallProxy;
  let dynamo: Dynamo;
  let tableName: string;

  beforeAll(async () => {
    tableName = `t_${randomUUID().slice(0, 8)}`;
    await createTable(tableName);
    // DynamoDB Local answering each call 1.5 s late, as it does on a busy machine: longer than
    // the connect timeout (1 s), well within the per-attempt timeout.
    proxy = await startStallProxy(testEndpoint(), [], 1500);
    dynamo = fixture(
      'DynamoDB client',
      createDynamo({ endpoint: proxy.url, region: testRegion(), requestTimeoutMs: 10_000, connectTimeoutMs: 1000 }),
      (d) => d.client.destroy(),
    );
  });

  it('reads every item: a call waiting for a free socket has not failed to connect', async () => {
    const keys = Array.from({ length: CALLS }, (_, i) => ({ PK: `burst#${i}`, SK: 'item' }));
    const results = await Promise.allSettled(keys.map((Key) => dynamo.doc.send(new GetCommand({ TableName: tableName, Key }))));
    const failed = results.filter((r) => r.status === 'rejected');
    expect(failed.map((r) => String(r.reason))).toEqual([]);
  });
});
