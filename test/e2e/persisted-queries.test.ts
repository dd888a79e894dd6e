import { createHash } from 'node:crypto';
import { startTestServer, type TestServer } from '../support/server';

/*
 * Apollo's automatic persisted queries (APQ): a client sends the document's SHA-256 alone and
 * registers the document once when the server does not know it. Every way of getting it wrong is
 * the client's mistake and gets a code of its own, never INTERNAL.
 */
describe('automatic persisted queries', () => {
  let server: TestServer;
  let token: string;
  beforeAll(async () => {
    server = await startTestServer();
    token = await server.token('apq');
  });

  const query = '{ viewer { tenantId } }';
  const sha = createHash('sha256').update(query).digest('hex');
  const apq = (hash: unknown, version = 1) => ({ extensions: { persistedQuery: { version, sha256Hash: hash } } });

  it('asks for an unknown hash, registers it with its document, then runs it by hash alone', async () => {
    const unknown = await server.raw(apq(sha), token);
    expect(unknown.body.errors[0].extensions.code).toBe('PERSISTED_QUERY_NOT_FOUND');
    const registered = await server.raw({ query, ...apq(sha) }, token);
    expect(registered.body.data.viewer.tenantId).toBe('apq');
    const byHash = await server.raw(apq(sha), token);
    expect([byHash.status, byHash.body.data?.viewer.tenantId]).toEqual([200, 'apq']);
  });

  it('answers a hash that does not match its document, or an unknown APQ version, with a 400 and a code of its own', async () => {
    const mismatch = await server.raw({ query, ...apq('0'.repeat(64)) }, token);
    expect([mismatch.status, mismatch.body.errors[0].extensions.code]).toEqual([400, 'PERSISTED_QUERY_HASH_MISMATCH']);
    const version = await server.raw({ query, ...apq(sha, 2) }, token);
    expect([version.status, version.body.errors[0].extensions.code]).toEqual([400, 'PERSISTED_QUERY_NOT_SUPPORTED']);
  });
});
