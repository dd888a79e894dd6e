import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Role } from '../../src/auth/principal';
import { startTestServer, type TestServer } from '../support/server';
import { rawConnection } from '../support/ws';
import { fixture } from '../support/fixtures';

/*
 * Trusted documents: the server locked to the manifest `npm run codegen` writes
 * (src/client/gql/persisted-documents.json, checked fresh by the codegen test). Operations from
 * it run over HTTP and WebSocket, by hash or by their exact text; nothing else runs.
 */
const MANIFEST = join(__dirname, '../../src/client/gql/persisted-documents.json');
const manifest = JSON.parse(readFileSync(MANIFEST, 'utf8')) as Record<string, string>;
const entry = (prefix: string) => {
  const found = Object.entries(manifest).find(([, text]) => text.startsWith(prefix));
  if (!found) throw new Error(`no operation starting with ${prefix} in the manifest`);
  return { id: found[0], hash: found[0].replace(/^sha256:/, ''), text: found[1] };
};

describe('trusted documents only', () => {
  let server: TestServer;
  let token: string;
  beforeAll(async () => {
    server = await startTestServer({ env: { PERSISTED_DOCUMENTS: MANIFEST, TRUSTED_DOCUMENTS_ONLY: 'true' } });
    token = await server.token('trusted', [Role.EDITOR, Role.WORKER]);
  });

  /** A new job in a new project, both created by their manifest mutations' hashes. */
  async function jobByHash(title: string): Promise<string> {
    const project = await server.raw({ documentId: entry('mutation CreateProject').id, variables: { input: { title } } }, token);
    const projectId = project.body.data.createProject.projectId;
    const job = await server.raw(
      { documentId: entry('mutation CreateJob').id, variables: { input: { projectId, kind: 'K', steps: ['a'] } } },
      token,
    );
    return job.body.data.createJob.jobId;
  }

  it('runs a manifest operation over HTTP by its hash, its document id or its exact text', async () => {
    const list = entry('query ListProjects');
    const byHash = await server.raw({ extensions: { persistedQuery: { version: 1, sha256Hash: list.hash } }, variables: {} }, token);
    expect([byHash.status, byHash.body.data?.projects?.nodes]).toEqual([200, []]);
    const byId = await server.raw({ documentId: list.id, variables: {} }, token);
    expect([byId.status, byId.body.data?.projects?.nodes]).toEqual([200, []]);
    const byText = await server.raw({ query: list.text, variables: {} }, token);
    expect([byText.status, byText.body.data?.projects?.nodes]).toEqual([200, []]);
  });

  it('refuses any other operation, and an unknown hash, with a 400 and a code of its own', async () => {
    const other = await server.raw({ query: '{ viewer { tenantId } }' }, token);
    expect([other.status, other.body.errors[0].extensions.code]).toEqual([400, 'TRUSTED_DOCUMENT_REQUIRED']);
    expect(other.body.errors[0].extensions.requestId).toEqual(expect.any(String));
    const unknown = await server.raw({ extensions: { persistedQuery: { version: 1, sha256Hash: 'f'.repeat(64) } } }, token);
    expect([unknown.status, unknown.body.errors[0].extensions.code]).toEqual([400, 'PERSISTED_QUERY_NOT_FOUND']);
    // A manifest document changed by one character is another document.
    const edited = await server.raw({ query: `${entry('query ListProjects').text} ` }, token);
    expect(edited.body.errors[0].extensions.code).toBe('TRUSTED_DOCUMENT_REQUIRED');
  });

  it('runs a manifest subscription over WebSocket by hash and refuses any other', async () => {
    const jobId = await jobByHash('T');
    const socket = await rawConnection(server.url, token);
    const watch = entry('subscription');
    // graphql-ws requires a query string: a client sending by hash sends an empty one.
    socket.send({
      type: 'subscribe',
      id: 'ok',
      payload: { query: '', variables: { jobId, afterSeq: 0 }, extensions: { persistedQuery: { version: 1, sha256Hash: watch.hash } } },
    });
    const first = await socket.next('next', 5000, 'ok');
    expect(first.payload.data.jobProgress.type).toBe('SUBSCRIBED');
    socket.send({ type: 'subscribe', id: 'no', payload: { query: `subscription { jobProgress(jobId: "${jobId}") { seq } }` } });
    const refused = await socket.next('error', 5000, 'no');
    expect(refused.payload[0].extensions.code).toBe('TRUSTED_DOCUMENT_REQUIRED');
  });

  it('runs a manifest subscription over SSE by its hash, with GET as an EventSource sends it, and refuses other text', async () => {
    const jobId = await jobByHash('SSE');
    const watch = entry('subscription');
    const url = new URL(server.url);
    url.searchParams.set('extensions', JSON.stringify({ persistedQuery: { version: 1, sha256Hash: watch.hash } }));
    url.searchParams.set('variables', JSON.stringify({ jobId, afterSeq: 0 }));
    const abort = fixture('SSE stream', new AbortController(), (a) => a.abort());
    const headers = { accept: 'text/event-stream', authorization: `Bearer ${token}` };
    const response = await fetch(url, { headers, signal: abort.signal });
    expect(response.status).toBe(200);
    const reader = response.body!.getReader();
    let text = '';
    while (!text.includes('event: next')) text += new TextDecoder().decode((await reader.read()).value);
    expect(text).toMatch(/"type":"SUBSCRIBED"/);
    const other = new URL(server.url);
    other.searchParams.set('query', `subscription { jobProgress(jobId: "${jobId}") { seq } }`);
    const refused = await fetch(other, { headers });
    expect(refused.status).toBe(400);
    const body = (await refused.json()) as { errors: Array<{ extensions: { code: string } }> };
    expect(body.errors[0].extensions.code).toBe('TRUSTED_DOCUMENT_REQUIRED');
  });
});
