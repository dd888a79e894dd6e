import { CreateProjectDocument } from '../../src/client/gql/graphql';
import { dataOf, startTestServer, type TestServer } from '../support/server';

describe('reads and writes in one request', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });

  it('sees its own writes: two brief versions and a read-after-write in one operation', async () => {
    const token = await server.token('cache');
    const projectId = dataOf(await server.request(CreateProjectDocument, { input: { title: 'One request' } }, token)).createProject
      .projectId;
    const res = await server.raw(
      {
        query: `mutation($p: ID!) {
          a: createBriefVersion(projectId: $p, input: { requirements: [], deliverables: [], changelogEntry: "one" }) { version }
          b: createBriefVersion(projectId: $p, input: { requirements: [], deliverables: [], changelogEntry: "two" }) { version }
          log: createLog(projectId: $p, input: { rawText: "x" }) { logId }
          asset: createAsset(projectId: $p, input: { type: IMAGE, s3Key: "tenants/cache/a.png" }) { assetId }
        }`,
        variables: { p: projectId },
      },
      token,
    );
    expect(res.body.errors).toBeUndefined();
    expect([res.body.data.a.version, res.body.data.b.version]).toEqual([1, 2]);
  });
});
