import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { cleanEnv, exited, gql, javaPids, MAIN, startProcess, until } from '../support/processes';

/*
 * The embedded default as a newcomer runs it: the built server (`node dist/src/main.js`, what
 * `npm start` runs after building) with no DynamoDB configured, so it starts its own DynamoDB Local.
 * test/e2e/lifecycle.test.ts runs the real `npm start` and stops it every way there is.
 */
const start = (dataDir: string) => startProcess(process.execPath, [MAIN], cleanEnv({ DATA_DIR: dataDir }));

describe('npm start (embedded default)', () => {
  let dataDir: string;

  beforeAll(() => {
    if (!existsSync(MAIN)) throw new Error('dist/ is missing: run `npm run build` first (npm test does).');
    dataDir = mkdtempSync(join(tmpdir(), 'artissist-start-'));
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('starts DynamoDB Local, serves the seed query with the printed token, and leaves no java behind on SIGTERM', async () => {
    const first = await start(dataDir);
    expect(first.output()).toContain('Created table Artissist');
    expect(javaPids(dataDir)).toHaveLength(1);
    const project = await gql(first.url, first.token, 'mutation { createProject(input: { title: "Kept" }) { projectId } }');
    const projectId = project.data.createProject.projectId;
    await gql(
      first.url,
      first.token,
      `mutation { createLog(projectId: "${projectId}", input: { materials: ["clay"], timeSpentMinutes: 12 }) { logId } }`,
    );
    const seed = await gql(
      first.url,
      first.token,
      'query GetProjectLogs($projectId: ID!) { logs(projectId: $projectId) { logId materials timeSpentMinutes } }',
      { projectId },
    );
    expect(seed.data.logs).toEqual([{ logId: expect.stringMatching(/^log_/), materials: ['clay'], timeSpentMinutes: 12 }]);
    // The banner's "Try it" lines work when pasted into a shell as they are.
    const pasted = /Try it[^\n]*\n((?: {2}\S[^\n]*\n){2})/.exec(first.output())?.[1];
    expect(pasted).toMatch(/^ {2}TOKEN=\S+\n {2}curl /);
    const curl = spawnSync('bash', ['-c', pasted ?? 'false'], { encoding: 'utf8', timeout: 30_000 });
    expect(curl.status).toBe(0);
    expect(JSON.parse(curl.stdout)).toEqual({ data: { viewer: { tenantId: 'demo', roles: ['EDITOR'] } } });
    // The README's sample banner shows the lines the server prints, in the order it prints them.
    const labels = (text: string) => [...text.matchAll(/^([A-Z][\w ()]*?): {2,}\S/gm)].map((m) => m[1]);
    const readme = readFileSync(join(__dirname, '../../README.md'), 'utf8');
    const sample = /```\nStarting DynamoDB Local[\s\S]*?```/.exec(readme)?.[0] ?? '';
    expect(labels(first.output()).length).toBeGreaterThan(5);
    expect(labels(sample)).toEqual(labels(first.output()));

    first.child.kill('SIGTERM');
    expect(await exited(first.child)).toBe(0);
    expect(await until(() => javaPids(dataDir).length === 0)).toBe(true);

    // A restart keeps the data and the development signing key, so the old token still works.
    const second = await start(dataDir);
    expect(second.output()).toContain('Using table Artissist');
    const again = await gql(second.url, first.token, `{ project(projectId: "${projectId}") { title } }`);
    expect(again.data.project.title).toBe('Kept');

    // Even a hard kill of the server takes DynamoDB Local down with it.
    second.child.kill('SIGKILL');
    await exited(second.child);
    expect(await until(() => javaPids(dataDir).length === 0)).toBe(true);
  });

  it('says Java 17+ is needed and exits non-zero when java is missing', () => {
    const result = spawnSync(process.execPath, [MAIN], {
      env: cleanEnv({ DATA_DIR: dataDir, PATH: '/nonexistent' }),
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(result.status).toBe(1);
    expect(result.stdout).toMatch(/Java 17 or newer is required/);
  });

  it('reports a taken port clearly and exits non-zero', async () => {
    const blocker = createServer().listen(0, '127.0.0.1');
    await new Promise((r) => blocker.once('listening', r));
    const port = (blocker.address() as { port: number }).port;
    try {
      const result = spawnSync(process.execPath, [MAIN], {
        env: cleanEnv({ DATA_DIR: dataDir, PORT: String(port) }),
        encoding: 'utf8',
        timeout: 60_000,
      });
      expect(result.status).toBe(1);
      expect(result.stdout).toContain(`port ${port} on 127.0.0.1 is in use`);
      expect(javaPids(dataDir)).toEqual([]);
    } finally {
      blocker.close();
    }
  });
});
