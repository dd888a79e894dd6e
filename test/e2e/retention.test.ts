import {
  ConfirmAssetUploadDocument,
  CreateProjectDocument,
  RequestAssetUploadDocument,
  RequestAssetVersionUploadDocument,
} from '../../src/client/gql/graphql';
import { ARCHIVED_TAG } from '../../src/infra/s3/archive-tag';
import { codeOf, dataOf, startTestServer, type TestServer } from '../support/server';

/*
 * Version retention (issue 19): with keepAssetVersions = 3, confirming versions 4 and 5 archives
 * versions 1 and 2 in the confirming transactions, each with its event; archived versions stay
 * listed, without a URL unless asked, and their objects carry the archive tag the bucket's
 * lifecycle rule acts on (the local S3 has no storage classes, so the tag is what is checked).
 */

interface Target {
  url: string;
  method: string;
  headers: { name: string; value: string }[];
}

const put = (target: Target, body: Buffer) =>
  fetch(target.url, {
    method: target.method,
    body,
    headers: Object.fromEntries(target.headers.filter((h) => h.name !== 'Content-Length').map((h) => [h.name, h.value])),
  });

const VERSIONS = `query($p: ID!, $a: ID!) { asset(projectId: $p, assetId: $a) { latestVersion url
  versions { version status s3Key archivedAt url plain: url includeArchived: url(includeArchived: true) } } }`;

describe('asset version retention', () => {
  let server: TestServer;
  let token: string;
  let projectId: string;
  let assetId: string;

  const versions = async () =>
    (await server.raw({ query: VERSIONS, variables: { p: projectId, a: assetId } }, token)).body.data.asset as {
      latestVersion: number;
      url: string | null;
      versions: {
        version: number;
        status: string;
        s3Key: string;
        archivedAt: string | null;
        plain: string | null;
        includeArchived: string | null;
      }[];
    };
  const events = async () =>
    (await server.raw({ query: `{ activity(projectId: "${projectId}", first: 100) { nodes { action position data } } }` }, token)).body.data
      .activity.nodes as { action: string; position: number; data: Record<string, unknown> }[];

  /** Uploads and confirms the next version (the first one creates the asset). */
  async function addVersion(n: number) {
    const body = Buffer.from(`version ${n}`);
    const input = { fileName: `v${n}.txt`, contentType: 'text/plain', size: body.length };
    const upload =
      n === 1
        ? dataOf(await server.request(RequestAssetUploadDocument, { projectId, input: { ...input, type: 'DOCUMENT' } }, token))
            .requestAssetUpload
        : dataOf(await server.request(RequestAssetVersionUploadDocument, { projectId, assetId, input }, token)).requestAssetVersionUpload;
    assetId = upload.asset.assetId;
    expect((await put(upload.upload, body)).status).toBe(200);
    return dataOf(await server.request(ConfirmAssetUploadDocument, { projectId, assetId }, token)).confirmAssetUpload;
  }

  beforeAll(async () => {
    server = await startTestServer();
    token = await server.token('keep3');
    projectId = dataOf(await server.request(CreateProjectDocument, { input: { title: 'Retention' } }, token)).createProject.projectId;
    await server.raw({ query: '{ tenant { version } }' }, token);
  });

  it('refuses a keepAssetVersions outside 1–100', async () => {
    for (const keep of [0, 101]) {
      const res = await server.raw(
        { query: `mutation { updateTenant(expectedVersion: 1, input: { keepAssetVersions: ${keep} }) { version } }` },
        token,
      );
      expect(res.body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'keepAssetVersions' });
    }
  });

  it('keeps the latest 3: versions 4 and 5 archive 1 and 2 in their own transactions, with events and tags', async () => {
    const set = await server.raw(
      { query: 'mutation { updateTenant(expectedVersion: 1, input: { keepAssetVersions: 3 }) { keepAssetVersions } }' },
      token,
    );
    expect(set.body.data.updateTenant.keepAssetVersions).toBe(3);
    for (const n of [1, 2, 3]) await addVersion(n);
    expect((await versions()).versions.map((v) => v.status)).toEqual(['READY', 'READY', 'READY']);

    await addVersion(4);
    let now = await versions();
    expect(now.versions.map((v) => v.status)).toEqual(['ARCHIVED', 'READY', 'READY', 'READY']);
    let trail = await events();
    const archived1 = trail.find((e) => e.action === 'asset.version_archived' && e.data.version === 1);
    const confirmed4 = trail.find((e) => e.action === 'asset.upload_confirmed' && e.data.version === 4);
    // One unit of work: the archive event sits right before the confirmation in the project's stream.
    expect(archived1?.position).toBe((confirmed4?.position ?? 0) - 1);

    await addVersion(5);
    now = await versions();
    expect(now.versions.map((v) => v.status)).toEqual(['ARCHIVED', 'ARCHIVED', 'READY', 'READY', 'READY']);
    expect(now.latestVersion).toBe(5);
    trail = await events();
    expect(trail.filter((e) => e.action === 'asset.version_archived').map((e) => e.data.version)).toEqual([2, 1]);
    const archived2 = trail.find((e) => e.action === 'asset.version_archived' && e.data.version === 2);
    const confirmed5 = trail.find((e) => e.action === 'asset.upload_confirmed' && e.data.version === 5);
    expect(archived2?.position).toBe((confirmed5?.position ?? 0) - 1);

    // Reading an archived version says so: listed, with archivedAt, and no URL unless asked.
    for (const v of now.versions) {
      const isArchived = v.version <= 2;
      expect({ v: v.version, archivedAt: Boolean(v.archivedAt), plain: Boolean(v.plain), asked: Boolean(v.includeArchived) }).toEqual({
        v: v.version,
        archivedAt: isArchived,
        plain: !isArchived,
        asked: true,
      });
    }
    expect(now.url).toEqual(expect.any(String));

    // The objects of archived versions carry the tag the lifecycle rule acts on; the others none.
    for (const v of now.versions) {
      const tags = await server.app.files.tags(v.s3Key);
      expect({ v: v.version, tag: tags[ARCHIVED_TAG.key] }).toEqual({ v: v.version, tag: v.version <= 2 ? ARCHIVED_TAG.value : undefined });
    }
    console.log(`retention: keep 3, 5 versions → statuses ${now.versions.map((v) => v.status).join(', ')}`);
  });

  it('keeps every version without the setting, up to the cap', async () => {
    const other = await server.token('keep-all');
    const p = dataOf(await server.request(CreateProjectDocument, { input: { title: 'All' } }, other)).createProject.projectId;
    const body = Buffer.from('x');
    const input = { fileName: 'x.txt', contentType: 'text/plain', size: 1 };
    const first = dataOf(
      await server.request(RequestAssetUploadDocument, { projectId: p, input: { ...input, type: 'DOCUMENT' } }, other),
    ).requestAssetUpload;
    await put(first.upload, body);
    await server.request(ConfirmAssetUploadDocument, { projectId: p, assetId: first.asset.assetId }, other);
    for (let n = 2; n <= 5; n++) {
      const next = dataOf(
        await server.request(RequestAssetVersionUploadDocument, { projectId: p, assetId: first.asset.assetId, input }, other),
      ).requestAssetVersionUpload;
      await put(next.upload, body);
      expect(
        codeOf(await server.request(ConfirmAssetUploadDocument, { projectId: p, assetId: first.asset.assetId }, other)),
      ).toBeUndefined();
    }
    const res = await server.raw({ query: VERSIONS, variables: { p, a: first.asset.assetId } }, other);
    expect(res.body.data.asset.versions.map((v: { status: string }) => v.status)).toEqual(Array(5).fill('READY'));
  });
});
