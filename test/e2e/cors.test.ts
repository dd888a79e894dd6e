import { request } from 'node:http';
import { loadConfig } from '../../src/config';
import { startTestServer, type TestServer } from '../support/server';

/** A browser's CORS preflight for a POST with JSON and a bearer token, as a dev server's page sends it. */
function preflight(url: string, origin: string): Promise<{ status: number; headers: Record<string, string | string[] | undefined> }> {
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,authorization' },
    });
    req.on('response', (res) => {
      res.resume();
      resolve({ status: res.statusCode ?? 0, headers: res.headers });
    });
    req.on('error', reject);
    req.end();
  });
}

describe('CORS', () => {
  let dev: TestServer;
  let named: TestServer;
  beforeAll(async () => {
    // NODE_ENV as a developer's machine sets it, without CORS_ORIGINS.
    dev = await startTestServer({ env: { NODE_ENV: 'development' } });
    // What production does when CORS_ORIGINS names the app's origin.
    named = await startTestServer({ env: { CORS_ORIGINS: 'https://app.example' } });
  });

  it('lets a frontend on a localhost dev server call the API in development', async () => {
    for (const origin of ['http://localhost:5173', 'http://127.0.0.1:3000', 'http://localhost']) {
      const res = await preflight(dev.url, origin);
      expect([origin, res.status]).toEqual([origin, 204]);
      expect(res.headers['access-control-allow-origin']).toBe(origin);
      expect(String(res.headers['access-control-allow-headers'])).toMatch(/authorization/i);
    }
    // Only localhost: another site, or a look-alike host, gets no CORS headers.
    for (const origin of ['https://evil.example', 'http://localhost.evil.example:5173', 'https://localhost:5173']) {
      expect((await preflight(dev.url, origin)).headers['access-control-allow-origin']).toBeUndefined();
    }
  });

  it('stays closed in production unless CORS_ORIGINS names the origin', async () => {
    // A production configuration allows no origin by default (its server needs AWS, so the
    // default is read from the configuration; the same list drives the server below).
    const production = loadConfig({
      NODE_ENV: 'production',
      AUTH_JWT_SECRET: 'p'.repeat(40),
      CURSOR_SECRET: 'c'.repeat(40),
      TABLE_NAME: 't',
      DYNAMODB_ENDPOINT: 'http://127.0.0.1:1',
      S3_BUCKET: 'b',
    });
    expect(production.corsOrigins).toEqual([]);
    // With CORS_ORIGINS set, exactly that origin is allowed, and a localhost dev server is not.
    expect((await preflight(named.url, 'https://app.example')).headers['access-control-allow-origin']).toBe('https://app.example');
    expect((await preflight(named.url, 'http://localhost:5173')).headers['access-control-allow-origin']).toBeUndefined();
  });
});
