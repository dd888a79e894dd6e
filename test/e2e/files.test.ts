import {
  AssetFilesDocument,
  ConfirmAssetUploadDocument,
  ConfirmInspirationUploadDocument,
  DeleteInspirationDocument,
  GetInspirationDocument,
  RequestInspirationUploadDocument,
  CreateInspirationDocument,
  CreateProjectDocument,
  DeleteAssetDocument,
  RequestAssetUploadDocument,
  RequestAssetVersionUploadDocument,
} from '../../src/client/gql/graphql';
import { codeOf, dataOf, startTestServer, type TestServer } from '../support/server';
import { eventually } from '../support/ws';

type Target = { url: string; method: string; headers: Array<{ name: string; value: string }> };

/** Uploads `body` the way a browser or curl would: exactly the target's method and headers. */
const put = (target: Target, body: Buffer, headers?: Record<string, string>) =>
  fetch(target.url, {
    method: target.method,
    body,
    headers: headers ?? Object.fromEntries(target.headers.filter((h) => h.name !== 'Content-Length').map((h) => [h.name, h.value])),
  });

describe('files in S3 (embedded s3rver)', () => {
  let server: TestServer;
  let token: string;
  let projectId: string;

  beforeAll(async () => {
    server = await startTestServer();
    token = await server.token('files');
    projectId = dataOf(await server.request(CreateProjectDocument, { input: { title: 'Files' } }, token)).createProject.projectId;
  });

  const request = async (fileName: string, body: Buffer, contentType = 'image/png') =>
    dataOf(
      await server.request(
        RequestAssetUploadDocument,
        { projectId, input: { type: 'IMAGE', fileName, contentType, size: body.length } },
        token,
      ),
    ).requestAssetUpload;

  it('uploads through the returned target, confirms, downloads the same bytes, then keeps a second version with its own key', async () => {
    const v1 = Buffer.from('first version \u{1F3A8}');
    const started = await request('Harbour at Dusk (final).png', v1);
    expect(started.asset).toMatchObject({ status: 'UPLOADING' });
    expect(started.asset.s3Key).toBe(`tenants/files/projects/${projectId}/assets/${started.asset.assetId}/v1/Harbour-at-Dusk-final-.png`);
    // The URL binds type and size, and carries no checksum of an empty body (real S3 would refuse it).
    const url = new URL(started.upload.url);
    expect(url.searchParams.get('X-Amz-SignedHeaders')).toBe('content-length;content-type;host');
    expect([...url.searchParams.keys()].filter((k) => k.toLowerCase().startsWith('x-amz-checksum-'))).toEqual([]);
    expect((await put(started.upload, v1)).status).toBe(200);
    const ref = { projectId, assetId: started.asset.assetId };
    expect(dataOf(await server.request(ConfirmAssetUploadDocument, ref, token)).confirmAssetUpload).toMatchObject({
      status: 'READY',
      latestVersion: 1,
      size: v1.length,
    });

    const read = dataOf(await server.request(AssetFilesDocument, ref, token)).asset!;
    expect(Buffer.from(await (await fetch(read.url!)).arrayBuffer())).toEqual(v1);

    const v2 = Buffer.from('second, longer version of the file');
    const next = dataOf(
      await server.request(
        RequestAssetVersionUploadDocument,
        { ...ref, input: { fileName: 'harbour-v2.png', contentType: 'image/png', size: v2.length } },
        token,
      ),
    ).requestAssetVersionUpload;
    expect(next).toMatchObject({ version: 2, asset: { status: 'READY', latestVersion: 1 } });
    await put(next.upload, v2);
    await server.request(ConfirmAssetUploadDocument, ref, token);
    const history = dataOf(await server.request(AssetFilesDocument, ref, token)).asset!;
    expect(history.latestVersion).toBe(2);
    expect(history.versions.map((v) => [v.version, v.status, v.fileName])).toEqual([
      [1, 'READY', 'Harbour at Dusk (final).png'],
      [2, 'READY', 'harbour-v2.png'],
    ]);
    expect(history.versions[1].s3Key).toMatch(/\/v2\/harbour-v2\.png$/);
    expect(Buffer.from(await (await fetch(history.url!)).arrayBuffer())).toEqual(v2);
    expect(Buffer.from(await (await fetch(history.versions[0].url!)).arrayBuffer())).toEqual(v1);
  });

  it('refuses at confirm an upload whose size or type differs from what was declared, leaving the asset UPLOADING', async () => {
    const declared = Buffer.from('twelve bytes');
    const sized = await request('a.png', declared);
    // s3rver does not check signed headers (real S3 refuses these PUTs); confirm checks again.
    await put(sized.upload, Buffer.from('a different length body'), { 'Content-Type': 'image/png' });
    const r = await server.request(ConfirmAssetUploadDocument, { projectId, assetId: sized.asset.assetId }, token);
    expect(r.errors?.[0]).toMatchObject({ extensions: { code: 'BAD_USER_INPUT', reason: 'UPLOAD_MISMATCH' } });
    expect(r.errors?.[0].message).toMatch(/23 bytes of image\/png, but the upload declared 12 bytes/);

    const typed = await request('b.png', declared);
    await put(typed.upload, declared, { 'Content-Type': 'text/html' });
    const t = await server.request(ConfirmAssetUploadDocument, { projectId, assetId: typed.asset.assetId }, token);
    expect(t.errors?.[0].extensions).toMatchObject({ reason: 'UPLOAD_MISMATCH' });
    const still = dataOf(await server.request(AssetFilesDocument, { projectId, assetId: typed.asset.assetId }, token)).asset!;
    expect(still).toMatchObject({ status: 'UPLOADING', latestVersion: null, url: null });
  });

  it('fails a confirm without an upload cleanly, and a second confirm of a ready asset', async () => {
    const started = await request('never.png', Buffer.from('x'));
    const r = await server.request(ConfirmAssetUploadDocument, { projectId, assetId: started.asset.assetId }, token);
    expect(r.errors?.[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', reason: 'UPLOAD_MISSING' });
    await put(started.upload, Buffer.from('x'));
    await server.request(ConfirmAssetUploadDocument, { projectId, assetId: started.asset.assetId }, token);
    expect(codeOf(await server.request(ConfirmAssetUploadDocument, { projectId, assetId: started.asset.assetId }, token))).toBe(
      'INVALID_TRANSITION',
    );
  });

  it('refuses an expired download URL, and a lifetime above the maximum', async () => {
    const body = Buffer.from('short-lived');
    const started = await request('s.png', body);
    await put(started.upload, body);
    const ref = { projectId, assetId: started.asset.assetId };
    await server.request(ConfirmAssetUploadDocument, ref, token);
    const url = dataOf(await server.request(AssetFilesDocument, { ...ref, expiresIn: 1 }, token)).asset!.url!;
    expect(new URL(url).searchParams.get('X-Amz-Expires')).toBe('1');
    // Refused once its second is over (S3 checks the expiry against its own clock).
    expect(
      await eventually(
        async () => (await fetch(url)).status,
        (status) => status === 403,
      ),
    ).toBe(403);
    const tooLong = await server.request(AssetFilesDocument, { ...ref, expiresIn: 7200 }, token);
    expect(tooLong.errors?.[0]).toMatchObject({ extensions: { code: 'BAD_USER_INPUT', field: 'expiresIn' } });
    expect(new URL(dataOf(await server.request(AssetFilesDocument, ref, token)).asset!.url!).searchParams.get('X-Amz-Expires')).toBe(
      '3600',
    );
  });

  it('refuses uploads over the size limit or with a malformed content type', async () => {
    const big = await server.request(
      RequestAssetUploadDocument,
      { projectId, input: { type: 'MODEL', fileName: 'x.glb', contentType: 'model/gltf-binary', size: 600 * 1024 * 1024 } },
      token,
    );
    expect(big.errors?.[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'size' });
    const odd = await server.request(
      RequestAssetUploadDocument,
      { projectId, input: { type: 'IMAGE', fileName: 'x', contentType: 'not a type', size: 1 } },
      token,
    );
    expect(odd.errors?.[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'contentType' });
  });

  it('deletes every version’s object with the asset', async () => {
    const body = Buffer.from('to be deleted');
    const started = await request('d.png', body);
    await put(started.upload, body);
    const ref = { projectId, assetId: started.asset.assetId };
    await server.request(ConfirmAssetUploadDocument, ref, token);
    const url = dataOf(await server.request(AssetFilesDocument, ref, token)).asset!.url!;
    expect((await fetch(url)).status).toBe(200);
    await server.request(DeleteAssetDocument, ref, token);
    expect((await fetch(url)).status).toBe(404);
  });

  it('leaves the object of an asset that createAsset registered where it was: deleting the registration deletes no other asset’s file', async () => {
    const body = Buffer.from('kept');
    const started = await request('kept.png', body);
    await put(started.upload, body);
    const ref = { projectId, assetId: started.asset.assetId };
    await server.request(ConfirmAssetUploadDocument, ref, token);
    const url = dataOf(await server.request(AssetFilesDocument, ref, token)).asset!.url!;
    // A second asset registers the first one's object, then is deleted.
    const registered = await server.raw(
      {
        query: 'mutation($p: ID!, $k: String!) { createAsset(projectId: $p, input: { type: IMAGE, s3Key: $k }) { assetId } }',
        variables: { p: projectId, k: started.asset.s3Key },
      },
      token,
    );
    const second = { projectId, assetId: registered.body.data.createAsset.assetId };
    expect(dataOf(await server.request(DeleteAssetDocument, second, token)).deleteAsset.assetId).toBe(second.assetId);
    expect((await fetch(url)).status).toBe(200);
    // The asset whose upload made it still deletes it.
    await server.request(DeleteAssetDocument, ref, token);
    expect((await fetch(url)).status).toBe(404);
  });

  it('gives tenant B no URL for tenant A’s asset or inspiration', async () => {
    const body = Buffer.from('private');
    const started = await request('p.png', body);
    await put(started.upload, body);
    const ref = { projectId, assetId: started.asset.assetId };
    await server.request(ConfirmAssetUploadDocument, ref, token);
    const other = await server.token('intruder');
    expect(dataOf(await server.request(AssetFilesDocument, ref, other)).asset).toBeNull();
    expect(codeOf(await server.request(ConfirmAssetUploadDocument, ref, other))).toBe('NOT_FOUND');
    expect(codeOf(await server.request(CreateInspirationDocument, { input: { type: 'IMAGE', s3Key: started.asset.s3Key } }, other))).toBe(
      'BAD_USER_INPUT',
    );
  });

  it('uploads an inspiration file the same way, and deletes it with the inspiration', async () => {
    const body = Buffer.from('a mood board');
    const started = dataOf(
      await server.request(
        RequestInspirationUploadDocument,
        { input: { type: 'IMAGE', fileName: 'mood board.jpg', contentType: 'image/jpeg', size: body.length, tags: ['mood'] } },
        token,
      ),
    ).requestInspirationUpload;
    const id = started.inspiration.inspirationId;
    expect(started.inspiration).toMatchObject({ fileStatus: 'UPLOADING', s3Key: `tenants/files/inspiration/${id}/mood-board.jpg` });
    expect(codeOf(await server.request(ConfirmInspirationUploadDocument, { inspirationId: id }, token))).toBe('BAD_USER_INPUT');
    await put(started.upload, body);
    const confirmed = dataOf(await server.request(ConfirmInspirationUploadDocument, { inspirationId: id }, token)).confirmInspirationUpload;
    expect(confirmed.fileStatus).toBe('READY');
    expect(Buffer.from(await (await fetch(confirmed.url!)).arrayBuffer())).toEqual(body);
    await server.request(DeleteInspirationDocument, { inspirationId: id }, token);
    expect(dataOf(await server.request(GetInspirationDocument, { inspirationId: id }, token)).inspiration).toBeNull();
    expect((await fetch(confirmed.url!)).status).toBe(404);
  });

  it('lets an unconfirmed upload expire', async () => {
    const quick = await startTestServer({ env: { UPLOAD_EXPIRY_HOURS: '0' } });
    const t = await quick.token('files');
    const p = dataOf(await quick.request(CreateProjectDocument, { input: { title: 'x' } }, t)).createProject.projectId;
    const started = dataOf(
      await quick.request(
        RequestAssetUploadDocument,
        { projectId: p, input: { type: 'IMAGE', fileName: 'e.png', contentType: 'image/png', size: 1 } },
        t,
      ),
    ).requestAssetUpload;
    expect(dataOf(await quick.request(AssetFilesDocument, { projectId: p, assetId: started.asset.assetId }, t)).asset).toBeNull();
    expect(codeOf(await quick.request(ConfirmAssetUploadDocument, { projectId: p, assetId: started.asset.assetId }, t))).toBe('NOT_FOUND');
  });
});
