import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer } from 'node:net';
import { join } from 'node:path';

/*
 * The embedded default as a newcomer runs it: the built server (`node dist/src/main.js`, what
 * `npm start` runs after building) with no DynamoDB configured, so it starts its own DynamoDB Local.
 */
const MAIN = join(__dirname, '../../dist/src/main.js');

function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, PORT: '0', NODE_ENV: 'development', ...extra };
  return env;
}

interface Started {
  child: ChildProcess;
  output: () => string;
  url: string;
  token: string;
}

function start(dataDir: string): Promise<Started> {
  const child = spawn(process.execPath, [MAIN], { env: cleanEnv({ DATA_DIR: dataDir }), stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (c) => (output += c));
  child.stderr!.on('data', (c) => (output += c));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no start-up banner within 60 s:\n${output}`)), 60_000);
    child.on('exit', (code) => reject(new Error(`exited with ${code} during start:\n${output}`)));
    const check = () => {
      const url = /GraphQL \(HTTP\):\s+(\S+)/.exec(output)?.[1];
      const token = /Development token[^\n]*\n\s+(\S+)/.exec(output)?.[1];
      if (url && token && output.includes('Stop with Ctrl-C')) {
        clearTimeout(timer);
        child.stdout!.off('data', check);
        resolve({ child, output: () => output, url, token });
      }
    };
    child.stdout!.on('data', check);
  });
}

/** Pids of DynamoDB Local java processes whose data lives in `dataDir`. */
function javaPids(dataDir: string): number[] {
  const ps = spawnSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' }).stdout;
  return ps
    .split('\n')
    .filter((line) => line.includes('DynamoDBLocal.jar') && line.includes(dataDir) && !line.includes('/bin/sh'))
    .map((line) => Number(line.trim().split(/\s+/)[0]));
}

async function gql(url: string, token: string, query: string, variables?: object) {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify({ query, variables }) });
  return res.json() as Promise<any>;
}

const exited = (child: ChildProcess) => new Promise<number | null>((resolve) => (child.exitCode !== null ? resolve(child.exitCode) : child.once('exit', (code) => resolve(code))));

async function until(condition: () => boolean, ms = 10_000) {
  const deadline = Date.now() + ms;
  while (!condition() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  return condition();
}

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
    await gql(first.url, first.token, `mutation { createLog(projectId: "${projectId}", input: { materials: ["clay"], timeSpentMinutes: 12 }) { logId } }`);
    const seed = await gql(first.url, first.token, 'query GetProjectLogs($projectId: ID!) { logs(projectId: $projectId) { logId materials timeSpentMinutes } }', { projectId });
    expect(seed.data.logs).toEqual([{ logId: expect.stringMatching(/^log_/), materials: ['clay'], timeSpentMinutes: 12 }]);

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
    const result = spawnSync(process.execPath, [MAIN], { env: cleanEnv({ DATA_DIR: dataDir, PATH: '/nonexistent' }), encoding: 'utf8', timeout: 30_000 });
    expect(result.status).toBe(1);
    expect(result.stdout).toMatch(/Java 17 or newer is required/);
  });

  it('reports a taken port clearly and exits non-zero', async () => {
    const blocker = createServer().listen(0, '127.0.0.1');
    await new Promise((r) => blocker.once('listening', r));
    const port = (blocker.address() as { port: number }).port;
    try {
      const result = spawnSync(process.execPath, [MAIN], { env: cleanEnv({ DATA_DIR: dataDir, PORT: String(port) }), encoding: 'utf8', timeout: 60_000 });
      expect(result.status).toBe(1);
      expect(result.stdout).toContain(`port ${port} on 127.0.0.1 is in use`);
      expect(javaPids(dataDir)).toEqual([]);
    } finally {
      blocker.close();
    }
  });
});
