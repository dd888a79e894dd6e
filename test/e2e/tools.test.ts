import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { jwtVerify } from 'jose';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { cleanEnv, exited, gql, MAIN, ROOT, startProcess, until, type Started, processFixture } from '../support/processes';
import { tempDir } from '../support/fixtures';
import { waitFor } from '../support/wait';

/**
 * Runs a tool (node with `args`) to its end and collects its output, without blocking this
 * process: spawnSync stopped the event loop, so the test's fetch sockets missed the server
 * closing them after its keep-alive timeout, and the next request met "other side closed".
 */
function run(args: string[], options: { cwd: string; env: NodeJS.ProcessEnv; timeout?: number }) {
  return new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: options.cwd, env: options.env, timeout: options.timeout ?? 60_000 });
    processFixture(child);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    child.once('error', reject);
    child.once('close', (status) => resolve({ status, stdout, stderr }));
  });
}

/*
 * The development tools find a running server by themselves: `npm start` with PORT and DATA_DIR
 * set (a free port, a data folder elsewhere), then `npm run token` and `npm run worker:demo` from
 * another shell that has neither, as a newcomer runs them. None of them leaves a stray `.data`.
 */
const TOKEN = join(ROOT, 'dist/src/scripts/token.js');
const WORKER = join(ROOT, 'dist/src/scripts/worker-demo.js');
const ARCHIVE = join(ROOT, 'dist/src/scripts/archive.js');
const EVENTS_TAIL = join(ROOT, 'dist/src/scripts/events-tail.js');
/** A shell without PORT or DATA_DIR. */
const bareEnv = (extra: Record<string, string> = {}) => ({ PATH: process.env.PATH, HOME: process.env.HOME, ...extra });
const pointer = (pid: number) => join(tmpdir(), `artissist-${userInfo().uid}`, `${pid}.json`);

describe('npm run token and npm run worker:demo against a server started with PORT and DATA_DIR', () => {
  let folder: string;
  let dataDir: string;
  let server: Started;

  beforeAll(async () => {
    if (!existsSync(MAIN)) throw new Error('dist/ is missing: run `npm run build` first (npm test does).');
    folder = tempDir('artissist-tools-');
    dataDir = join(folder, 'elsewhere');
    // PORT=0: a port no tool could guess.
    server = await startProcess(process.execPath, [MAIN], cleanEnv({ DATA_DIR: dataDir, PORT: '0' }), false, folder);
  }, 120_000);

  it('mints a token the server accepts, from the same folder with neither setting, and from anywhere with DATA_DIR', async () => {
    const here = await run([TOKEN, '--tenant', 'acme', '--roles', 'viewer'], {
      cwd: folder,
      env: bareEnv(),
    });
    expect({ status: here.status, stderr: here.stderr }).toEqual({ status: 0, stderr: '' });
    const viewer = await gql(server.url, here.stdout.trim(), '{ viewer { tenantId roles } }');
    expect(viewer.data.viewer).toEqual({ tenantId: 'acme', roles: ['VIEWER'] });

    const elsewhere = tempDir('artissist-tools-other-');
    const named = await run([TOKEN], { cwd: elsewhere, env: bareEnv({ DATA_DIR: dataDir }) });
    expect(named.status).toBe(0);
    expect((await gql(server.url, named.stdout.trim(), '{ viewer { tenantId } }')).data.viewer.tenantId).toBe('demo');
    // Nothing was written where the tools ran.
    expect(existsSync(join(elsewhere, '.data'))).toBe(false);
    expect(existsSync(join(folder, '.data'))).toBe(false);
  });

  it('signs with AUTH_JWT_SECRET when it is set, even where several servers run; without it says to set DATA_DIR', async () => {
    // Two live servers announced for one folder: this process and the server stand in for them
    // (both alive, so neither pointer is taken for a dead server's), and only this folder sees them.
    const shared = tempDir('artissist-tools-several-');
    const pointers = [process.pid, server.child.pid!].map((pid, i) => {
      const file = join(tmpdir(), `artissist-${userInfo().uid}`, `several-${pid}-${i}.json`);
      writeFileSync(file, JSON.stringify({ url: server.url, dataDir: join(shared, `data-${i}`), secret: 'data-folder', pid, cwd: shared }));
      return file;
    });
    try {
      const refused = await run([TOKEN], { cwd: shared, env: bareEnv() });
      expect({ status: refused.status, stderr: refused.stderr }).toEqual({
        status: 1,
        stderr: expect.stringMatching(/^Several servers are running \(data folders .*\): set DATA_DIR to the one you mean\.\n$/),
      });
      const signed = await run([TOKEN, '--tenant', 'acme'], { cwd: shared, env: bareEnv({ AUTH_JWT_SECRET: 'several-servers-secret' }) });
      expect({ status: signed.status, stderr: signed.stderr }).toEqual({ status: 0, stderr: '' });
      const { payload } = await jwtVerify(signed.stdout.trim(), new TextEncoder().encode('several-servers-secret'));
      expect(payload).toMatchObject({ tenantId: 'acme', roles: ['editor'] });
    } finally {
      for (const file of pointers) rmSync(file, { force: true });
    }
  });

  it('worker:demo says what to do when it finds no running server (no retry loop), and explains itself with --help', async () => {
    // An empty temporary folder hides every running server's pointer, the test's own included.
    const empty = tempDir('artissist-tools-none-');
    const none = await run([WORKER], {
      cwd: empty,
      env: bareEnv({ TMPDIR: empty }),
      timeout: 30_000,
    });
    expect({ status: none.status, stderr: none.stderr.trim() }).toEqual({
      status: 1,
      stderr: 'No running server found: start one with `npm start` (or `npm run demo`) first, or pass --url.',
    });
    const help = await run([WORKER, '--help'], {
      cwd: empty,
      env: bareEnv({ TMPDIR: empty }),
      timeout: 30_000,
    });
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('npm run worker:demo -- [--url');
    expect(existsSync(join(empty, '.data'))).toBe(false);
  });

  it('drives the server it finds with worker:demo', async () => {
    const token = (await run([TOKEN], { cwd: folder, env: bareEnv() })).stdout.trim();
    // The simulator starts its jobs in the tenant's first project.
    await gql(server.url, token, 'mutation { createProject(input: { title: "Driven" }) { projectId } }');
    const worker = processFixture(
      spawn(process.execPath, [WORKER, '--tick-ms', '200'], {
        cwd: folder,
        env: bareEnv(),
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    );
    let output = '';
    worker.stdout.on('data', (c) => (output += c));
    worker.stderr.on('data', (c) => (output += c));
    expect(await until(() => output.includes('Stop with Ctrl-C'), 30_000)).toBe(true);
    expect(output).toContain(`Driving the demo tenant's jobs at ${server.url} `);
    // It works through the API: the demo tenant gets a job whose steps it moves.
    await waitFor(
      async () => {
        const jobs = await gql(server.url, token, '{ jobsByStatus(status: RUNNING) { nodes { steps { status } } } }');
        return (jobs.data?.jobsByStatus.nodes ?? []).flatMap((j: { steps: { status: string }[] }) => j.steps).length;
      },
      "a running job of the demo tenant's with steps",
      { ms: 60_000 },
    );
    worker.kill('SIGTERM');
    await exited(worker);
    expect(existsSync(join(folder, '.data'))).toBe(false);
  }, 120_000);

  it('runs the archive on the server it finds (npm run archive) and tails its table stream (npm run events:tail)', async () => {
    const archived = await run([ARCHIVE], { cwd: folder, env: bareEnv() });
    // A run not finished within one request's wait is asked for again, with a progress line on
    // stderr each time (a busy machine); nothing else may be there.
    const progress = archived.stderr.split('\n').filter((line) => line !== '');
    expect(
      progress.filter((line) => !/^archive run job_\w+: (QUEUED|RUNNING) \d+%, \d+ jobs and \d+ projects moved so far$/.test(line)),
    ).toEqual([]);
    expect(archived.status).toBe(0);
    // Nothing of this server is 90 days old.
    expect(JSON.parse(archived.stdout)).toEqual({ runArchive: { jobs: 0, projects: 0, resumed: 0, rows: 0, bytes: 0, failed: 0 } });

    const token = (await run([TOKEN], { cwd: folder, env: bareEnv() })).stdout.trim();
    const made = await gql(server.url, token, 'mutation { createProject(input: { title: "Tailed" }) { projectId } }');
    const projectId = made.data.createProject.projectId;
    // The stream of the server's embedded DynamoDB Local, found through its server.json: the project's creation is there.
    const tailed = async () => {
      const tail = await run([EVENTS_TAIL, '--from-start', '--once'], { cwd: folder, env: bareEnv() });
      expect({ status: tail.status, stderr: tail.stderr }).toEqual({ status: 0, stderr: '' });
      const printed: { detail: { action: string; subject: { id: string } } }[] = tail.stdout
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line));
      return printed.some((e) => e.detail.action === 'project.created' && e.detail.subject.id === projectId);
    };
    // DynamoDB Local puts a commit on its stream a moment after it: polled until it is there.
    const deadline = Date.now() + 30_000;
    let found = await tailed();
    while (!found && Date.now() < deadline) {
      // Each try is a run of the command (its own process, hundreds of ms): no pause between them.
      found = await tailed();
    }
    expect(found).toBe(true);
  }, 120_000);

  it('generates typed operations with the codegen example from the server it finds (DATA_DIR names it; no GRAPHQL_URL)', async () => {
    const out = tempDir('artissist-tools-codegen-');
    // Off this thread, as the example-codegen test runs it; from the checkout, where its operations are.
    const child = spawn(join(ROOT, 'node_modules/.bin/graphql-codegen'), ['--config', 'examples/codegen/codegen.ts'], {
      cwd: ROOT,
      env: bareEnv({ DATA_DIR: dataDir, CODEGEN_OUT: `${out}/` }),
    });
    processFixture(child);
    let output = '';
    child.stdout.on('data', (c) => (output += c));
    child.stderr.on('data', (c) => (output += c));
    const code = await exited(child);
    expect({ code, output: code === 0 ? '' : output }).toEqual({ code: 0, output: '' });
    expect(existsSync(join(out, 'graphql.ts'))).toBe(true);
    // It was this server that answered the introspection (its request log says so).
    expect(server.output()).toContain('"operationName":"IntrospectionQuery"');
  }, 120_000);

  it('says what to do, and creates nothing, when no server ran with that data folder', async () => {
    const empty = tempDir('artissist-tools-none-');
    const missing = join(empty, 'never-used');
    const result = await run([TOKEN], { cwd: empty, env: bareEnv({ DATA_DIR: missing }) });
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/No development signing secret in .*never-used: start the server first/);
    expect([existsSync(missing), existsSync(join(empty, '.data'))]).toEqual([false, false]);
  });

  it('takes back what it announced when it stops', async () => {
    expect(existsSync(join(dataDir, 'server.json'))).toBe(true);
    expect(existsSync(pointer(server.child.pid!))).toBe(true);
    server.child.kill('SIGTERM');
    expect(await exited(server.child)).toBe(0);
    expect([existsSync(join(dataDir, 'server.json')), existsSync(pointer(server.child.pid!))]).toEqual([false, false]);
    // A tool asked now finds no server, and still writes nothing.
    mkdirSync(join(folder, 'after'));
    const after = await run([WORKER], { cwd: join(folder, 'after'), env: bareEnv(), timeout: 30_000 });
    expect(after.status).toBe(1);
    expect(existsSync(join(folder, 'after', '.data'))).toBe(false);
  }, 60_000);
});
