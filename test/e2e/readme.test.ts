import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../support/processes';
import { startTestServer, TEST_SECRET, type TestServer } from '../support/server';

/*
 * The README's "First queries" block, run in bash exactly as printed but for the URL (the test
 * server's free port instead of 4000) and the signing secret (the test server's, which
 * `npm run token` reads from AUTH_JWT_SECRET as documented).
 */
describe("the README's first queries", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.stop());

  it('run as printed: every request answers without errors, and each shows what its comment says', async () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const block = /## First queries\n\n```sh\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(block).toContain('URL=http://127.0.0.1:4000/graphql\n');
    const script = `set -e\n${block!.replace('URL=http://127.0.0.1:4000/graphql\n', `URL=${server.url}\n`)}`;
    // Asynchronously: the server runs in this process and must keep answering meanwhile.
    const child = spawn('bash', ['-c', script], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, AUTH_JWT_SECRET: TEST_SECRET },
    });
    const run = { stdout: '', stderr: '', status: null as number | null };
    child.stdout.on('data', (c) => (run.stdout += c));
    child.stderr.on('data', (c) => (run.stderr += c));
    run.status = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 0, stderr: '' });
    const answers = run.stdout
      .trim()
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line));
    // createProject's answer went into P; the five others are printed.
    expect(answers).toHaveLength(5);
    expect(answers.filter((a) => a.errors)).toEqual([]);
    const [log, seed, usage, update, activity] = answers.map((a) => a.data);
    expect(log.createLog.logId).toMatch(/^log_/);
    expect(seed.logs).toEqual([{ logId: log.createLog.logId, materials: ['ultramarine', 'linseed oil'], timeSpentMinutes: 90 }]);
    expect(usage.materialUsage).toMatchObject({ logCount: 1, totalMinutes: 90 });
    expect(update.updateProject.version).toBe(2);
    expect(activity.activity.nodes.length).toBeGreaterThanOrEqual(2);
  }, 180_000);
});
