import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTestServer, type TestServer } from '../support/server';
import { tempDir } from '../support/fixtures';
import { processFixture } from '../support/processes';

/*
 * examples/codegen/codegen.ts, run as a frontend developer runs it: against a running server's
 * introspection, generating typed documents and the trusted documents manifest.
 */
describe('examples/codegen/codegen.ts', () => {
  let server: TestServer;
  let out: string;
  beforeAll(async () => {
    server = await startTestServer();
    out = tempDir('codegen-');
  });

  it('generates typed operations and their manifest from the running server', async () => {
    const root = join(__dirname, '../..');
    // Off the event loop's thread, so the server in this process keeps answering.
    const child = spawn(join(root, 'node_modules/.bin/graphql-codegen'), ['--config', 'examples/codegen/codegen.ts'], {
      cwd: root,
      env: { ...process.env, GRAPHQL_URL: server.url, CODEGEN_OUT: `${out}/` },
    });
    processFixture(child);
    let output = '';
    child.stdout.on('data', (c) => (output += c));
    child.stderr.on('data', (c) => (output += c));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect({ code, output: code === 0 ? '' : output }).toEqual({ code: 0, output: '' });
    const generated = readFileSync(join(out, 'graphql.ts'), 'utf8');
    expect(generated).toContain('export const ProjectScreenDocument');
    expect(generated).toContain('export type ProjectScreenQuery = ');
    expect(existsSync(join(out, 'persisted-documents.json'))).toBe(true);
  }, 120_000);
});
