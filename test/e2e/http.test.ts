import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import {
  CreateAssetDocument,
  CreateLogDocument,
  CreateProjectDocument,
  ProjectsWithLogsAndAssetsDocument,
} from '../../src/client/gql/graphql';
import { testClient } from '../support/dynamo';
import { captureLogs } from '../support/logs';
import { codeOf, dataOf, startTestServer, type TestServer } from '../support/server';
import { subscribe, wsClient } from '../support/ws';

// The seed's query, character for character.
const SEED_QUERY = 'query GetProjectLogs($projectId: ID!) { logs(projectId: $projectId) { logId materials timeSpentMinutes } }';

describe('the HTTP endpoint', () => {
  let server: TestServer;
  let token: string;

  beforeAll(async () => {
    server = await startTestServer();
    token = await server.token('gallery');
  });

  it('answers the seed GetProjectLogs query verbatim with the project’s logs', async () => {
    const projectId = dataOf(await server.request(CreateProjectDocument, { input: { title: 'Seed' } }, token)).createProject.projectId;
    const a = dataOf(
      await server.request(CreateLogDocument, { projectId, input: { materials: ['charcoal'], timeSpentMinutes: 25 } }, token),
    ).createLog;
    const b = dataOf(
      await server.request(CreateLogDocument, { projectId, input: { materials: ['ink', 'paper'], timeSpentMinutes: 40 } }, token),
    ).createLog;
    const res = await server.raw({ query: SEED_QUERY, variables: { projectId } }, token);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      data: {
        logs: [
          { logId: a.logId, materials: ['charcoal'], timeSpentMinutes: 25 },
          { logId: b.logId, materials: ['ink', 'paper'], timeSpentMinutes: 40 },
        ],
      },
    });
  });

  it('refuses a request without a token (UNAUTHENTICATED) and a bad token with HTTP 401', async () => {
    const anonymous = await server.raw({ query: '{ viewer { tenantId } }' }, null);
    expect(anonymous.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
    expect(anonymous.body.data).toBeNull();
    const bad = await server.raw({ query: '{ viewer { tenantId } }' }, 'not.a.jwt');
    expect(bad.status).toBe(401);
    expect(bad.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
  });

  it('bounds depth, aliases and tokens, and turns batching off', async () => {
    const deep = await server.raw(
      { query: '{ projects { nodes { logs { assets { linkedLog { assets { linkedLog { logId } } } } } } } }' },
      token,
    );
    expect(deep.body.errors[0].message).toMatch(/depth/i);
    const aliases = Array.from({ length: 20 }, (_, i) => `a${i}: viewer { tenantId }`).join(' ');
    const many = await server.raw({ query: `{ ${aliases} }` }, token);
    expect(many.body.errors[0].message).toMatch(/alias/i);
    const tokens = await server.raw({ query: `{ viewer { ${'tenantId '.repeat(1200)} } }` }, token);
    expect(tokens.body.errors[0].message).toMatch(/token/i);
    const batched = await server.raw([{ query: '{ viewer { tenantId } }' }, { query: '{ viewer { tenantId } }' }], token);
    expect(batched.status).toBe(400);
  });

  it('accepts a query by a simple GET (bearer tokens need no CSRF prevention), refuses a mutation by GET with 405, and refuses simple GETs with CSRF_PREVENTION on', async () => {
    const get = (url: string, query: string) =>
      fetch(`${url}?query=${encodeURIComponent(query)}`, { headers: { authorization: `Bearer ${token}` } });
    const query = await get(server.url, '{ viewer { tenantId } }');
    expect(query.status).toBe(200);
    expect(await query.json()).toEqual({ data: { viewer: { tenantId: 'gallery' } } });
    // GraphQL over HTTP: a GET must not change anything.
    const mutation = await get(server.url, 'mutation { createProject(input: { title: "x" }) { projectId } }');
    expect(mutation.status).toBe(405);
    expect(((await mutation.json()) as { errors: Array<{ extensions: { code: string } }> }).errors[0].extensions.code).toBe('BAD_REQUEST');

    // A deployment whose browsers send cookies turns it on.
    const guarded = await startTestServer({ env: { CSRF_PREVENTION: 'true' } });
    const refused = await get(guarded.url, '{ viewer { tenantId } }');
    expect(refused.status).toBe(400);
    expect(await refused.text()).toMatch(/CSRF/i);
    // What docs/clients.md tells a GET client to send then: a header that forces a preflight.
    const preflighted = await fetch(`${guarded.url}?query=${encodeURIComponent('{ viewer { tenantId } }')}`, {
      headers: { authorization: `Bearer ${token}`, 'apollo-require-preflight': 'true' },
    });
    expect(preflighted.status).toBe(200);
  });

  it('answers an oversized or malformed body with a JSON error and stays up', async () => {
    const big = await server.raw({ query: `{ viewer { tenantId } } # ${'x'.repeat(200_000)}` }, token);
    expect(big.status).toBe(413);
    expect(big.body.errors[0].extensions.code).toBe('BAD_REQUEST');
    const broken = await server.raw('{"query": ', token);
    expect(broken.status).toBe(400);
    const ok = await server.raw({ query: '{ viewer { tenantId } }' }, token);
    expect(ok.body).toEqual({ data: { viewer: { tenantId: 'gallery' } } });
  });
});

describe('batched reads (DataLoader) on a nested query', () => {
  const PROJECTS = 5;
  const LOGS = 4;
  const ASSETS_PER_LOG = 6;
  let batched: TestServer;
  let unbatched: TestServer;
  let token: string;

  beforeAll(async () => {
    // The outbox sweeper and the job settler's sweep (a Query per shard every 10 s) share the
    // DynamoDB client; keep them out of the measured requests, which a busy machine can stretch
    // past a sweep. The tenants' rate budgets read the tenant's plan every few seconds (a GetItem),
    // which is not what this test counts either; nor is the idle system-job runner's look for work
    // (a Query every 30 s), which could land in the unbatched server's longer window.
    const quiet = {
      OUTBOX_SWEEP_MS: '3600000',
      JOB_SETTLE_SWEEP_MS: '3600000',
      SYSTEM_JOB_IDLE_MS: '3600000',
      TENANT_RATE_LIMITS: 'false',
    };
    batched = await startTestServer({ env: quiet });
    // The same table, served with loaders that read one item per call and cache nothing.
    unbatched = await startTestServer({ env: { ...quiet, TABLE_NAME: batched.config.tableName }, batchLoads: false });
    token = await batched.token('nested');
    for (let p = 0; p < PROJECTS; p++) {
      const projectId = dataOf(await batched.request(CreateProjectDocument, { input: { title: `P${p}` } }, token)).createProject.projectId;
      for (let l = 0; l < LOGS; l++) {
        const logId = dataOf(await batched.request(CreateLogDocument, { projectId, input: { rawText: `log ${l}` } }, token)).createLog
          .logId;
        await Promise.all(
          Array.from({ length: ASSETS_PER_LOG }, (_, a) =>
            batched.request(
              CreateAssetDocument,
              { projectId, input: { type: 'IMAGE', s3Key: `tenants/nested/${projectId}/${logId}/${a}.jpg`, linkedLogId: logId } },
              token,
            ),
          ),
        );
      }
    }
  });

  async function run(server: TestServer) {
    await server.resetCalls();
    const data = dataOf(await server.request(ProjectsWithLogsAndAssetsDocument, { first: 20 }, token));
    return { data, calls: Object.fromEntries(server.app.calls.byCommand), total: server.app.calls.total };
  }

  it('makes exactly the batched minimum of DynamoDB calls: 1 + projects + ceil(assets / 100)', async () => {
    const { data, calls, total } = await run(batched);
    const assets = data.projects.nodes.flatMap((p) => p.logs.flatMap((l) => l.assets));
    expect(data.projects.nodes).toHaveLength(PROJECTS);
    expect(assets).toHaveLength(PROJECTS * LOGS * ASSETS_PER_LOG);
    expect(calls).toEqual({ QueryCommand: 1 + PROJECTS, BatchGetItemCommand: Math.ceil(assets.length / 100) });
    expect(total).toBe(1 + PROJECTS + 2);
  });

  it('does more calls without loaders, for the same answer', async () => {
    const withLoaders = await run(batched);
    const without = await run(unbatched);
    expect(without.data).toEqual(withLoaders.data);
    expect(without.calls).toEqual({ QueryCommand: 1 + PROJECTS, GetItemCommand: PROJECTS * LOGS * ASSETS_PER_LOG });
    expect(without.total).toBeGreaterThan(withLoaders.total * 10);
  });
});

describe('in production mode', () => {
  let server: TestServer;

  beforeAll(async () => {
    // Production refuses the embedded S3; these tests touch no file, so a bucket that is never reached will do.
    server = await startTestServer({ env: { NODE_ENV: 'production', S3_BUCKET: 'unused', S3_ENDPOINT: 'http://127.0.0.1:9' } });
  });

  it('turns introspection off by default', async () => {
    const res = await server.raw({ query: '{ __schema { types { name } } }' }, await server.token('prod'));
    expect(res.body.errors[0].message).toMatch(/introspection/i);
  });

  it('turns introspection off over WebSocket and SSE too, not only over HTTP', async () => {
    const token = await server.token('prod');
    const query = '{ __schema { queryType { name } } }';
    const client = wsClient(server.url, token);
    const overSocket = subscribe(client, query);
    await overSocket.done;
    expect(overSocket.received).toEqual([]);
    expect(JSON.stringify(overSocket.errors)).toContain('GRAPHQL_VALIDATION_FAILED');
    expect(JSON.stringify(overSocket.errors)).not.toContain('"queryType"');
    const overSse = await fetch(server.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', authorization: `Bearer ${token}` },
      body: JSON.stringify({ query }),
    });
    const text = await overSse.text();
    expect(text).toContain('GRAPHQL_VALIDATION_FAILED');
    expect(text).not.toContain('"queryType"');
  });

  it('masks an internal failure as INTERNAL with no detail or stack, and keeps serving', async () => {
    const token = await server.token('prod');
    const logs = captureLogs();
    // Remove the table under the running server: DynamoDB now fails every call.
    const client = testClient();
    await client.send(new DeleteTableCommand({ TableName: server.config.tableName }));
    client.destroy();
    const res = await server.raw({ query: 'mutation { createProject(input: { title: "x" }) { projectId } }' }, token);
    expect(res.body.errors).toEqual([
      {
        message: 'Internal server error.',
        locations: [{ line: 1, column: 12 }],
        path: ['createProject'],
        extensions: { code: 'INTERNAL', requestId: expect.any(String) },
      },
    ]);
    expect(JSON.stringify(res.body)).not.toMatch(/ResourceNotFound|stack|at /);
    // The cause is not lost: the server logs it, with the request's id, at error level.
    const logged = logs.entries().filter((entry) => entry.msg === 'graphql operation failed unexpectedly (INTERNAL)');
    expect(logged).toEqual([
      expect.objectContaining({
        level: 50,
        requestId: res.body.errors[0].extensions.requestId,
        path: ['createProject'],
        err: expect.objectContaining({ message: expect.stringMatching(/non-existent table|ResourceNotFound/i), stack: expect.any(String) }),
      }),
    ]);
    const still = await server.raw({ query: '{ viewer { tenantId } }' }, token);
    expect(codeOf(still.body)).toBeUndefined();
    expect(still.body.data.viewer.tenantId).toBe('prod');
  });
});
