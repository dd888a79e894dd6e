import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { lockFolder, processStartTime } from '../../src/infra/folder-lock';
import {
  childPids,
  cleanEnv,
  exited,
  gql,
  javaPids,
  MAIN,
  processesOf,
  ROOT,
  startProcess,
  until,
  type Started,
} from '../support/processes';

/*
 * Start and stop as a person at a terminal and a process manager do it, with the real `npm start`
 * (and `npm run demo`) in a process group of its own, as a terminal runs a foreground job. Every
 * way of stopping must end the server, DynamoDB Local and everything else of it within the server's
 * own bound (STOP_LIMIT_MS), with exit code 0 (main.ts exits 1 when it has to give up waiting) and no process left. These start real servers one after another (a few seconds
 * each), so the file takes a minute or two.
 */
jest.setTimeout(180_000);

/**
 * How long a stop may take: the server's own bound, SHUTDOWN_DRAIN_MS (5 s) for requests in flight
 * plus the 5 s main.ts allows for the rest before it exits anyway. A quiet machine stops in 1–3 s
 * (the figures are in each test's result); the limit leaves room for a busy one.
 */
const STOP_LIMIT_MS = 10_000;

const npm = (dataDir: string, args: string[], extra: Record<string, string> = {}) =>
  startProcess('npm', args, cleanEnv({ DATA_DIR: dataDir, ...extra }), true);

/** The server's node process: npm's only child, since the script execs it. */
function serverPid(started: Started): number {
  const children = childPids(started.child.pid!);
  expect(children).toHaveLength(1);
  return children[0];
}

interface Stopped {
  code: number | null;
  ms: number;
  left: string[];
}

/** Sends a signal with `send`, then waits for npm to exit and for every process of the server to be gone. */
async function stopWith(started: Started, dataDir: string, send: () => void): Promise<Stopped> {
  const pgid = started.child.pid!;
  const t0 = Date.now();
  send();
  const code = await exited(started.child);
  await until(() => processesOf(pgid, dataDir).length === 0, Math.max(0, STOP_LIMIT_MS - (Date.now() - t0)));
  return { code, ms: Date.now() - t0, left: processesOf(pgid, dataDir) };
}

/** Whether a process is running (signal 0 only asks). */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('npm start: every way of stopping stops everything', () => {
  const dirs: string[] = [];
  const servers: Started[] = [];
  const newDataDir = () => {
    const dir = mkdtempSync(join(tmpdir(), 'artissist-life-'));
    dirs.push(dir);
    return dir;
  };
  const start = async (dataDir: string, args = ['start'], extra: Record<string, string> = {}) => {
    const started = await npm(dataDir, args, extra);
    servers.push(started);
    return started;
  };

  beforeAll(() => {
    if (!existsSync(MAIN)) throw new Error('dist/ is missing: run `npm run build` first (npm test does).');
    // Build once here if sources changed since the last build, so no start below runs tsc while
    // another test file loads dist/.
    const built = spawnSync(process.execPath, [join(ROOT, 'src/scripts/ensure-built.cjs')], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 120_000,
    });
    expect(built.status).toBe(0);
  });

  afterAll(async () => {
    // A failed test may leave its server running: stop its whole group, then its folders.
    for (const s of servers) if (s.child.exitCode === null && s.child.signalCode === null) process.kill(-s.child.pid!, 'SIGKILL');
    for (const dir of dirs) {
      await until(() => javaPids(dir).length === 0, 10_000);
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('Ctrl-C (SIGINT to the process group) after a fresh start that printed no error', async () => {
    const dataDir = newDataDir();
    const server = await start(dataDir);
    // The first thing a newcomer sees: no level-50 log line and no word "error" anywhere.
    expect(server.output()).toContain('Created table Artissist');
    expect(server.output()).not.toContain('"level":50');
    expect(server.output()).not.toMatch(/error/i);
    expect((await gql(server.url, server.token, '{ viewer { tenantId } }')).data.viewer.tenantId).toBe('demo');
    expect(javaPids(dataDir)).toHaveLength(1);

    const stopped = await stopWith(server, dataDir, () => process.kill(-server.child.pid!, 'SIGINT'));
    expect(stopped).toEqual({ code: 0, ms: expect.any(Number), left: [] });
    expect(stopped.ms).toBeLessThan(STOP_LIMIT_MS);
    expect(server.output()).toContain('SIGINT: stopping');
  });

  it('SIGTERM to the process group: the listener closes at once, and a stalled WebSocket peer does not hold the exit', async () => {
    const dataDir = newDataDir();
    const server = await start(dataDir);
    // A WebSocket peer that stops reading: it will never see, let alone answer, the close frame.
    const peer = new WebSocket(server.url.replace(/^http/, 'ws'), 'graphql-transport-ws');
    await new Promise((resolve, reject) => peer.once('open', resolve).once('error', reject));
    peer.send(JSON.stringify({ type: 'connection_init', payload: { authorization: `Bearer ${server.token}` } }));
    await new Promise((resolve) => peer.once('message', resolve));
    (peer as unknown as { _socket: { pause(): void } })._socket.pause();
    const node = serverPid(server);

    let refused: unknown;
    const late = new Promise<void>((resolve) =>
      setTimeout(() => {
        fetch(server.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"query":"{ __typename }"}' })
          .then(
            (res) => (refused = `served with ${res.status}`),
            (error: Error & { cause?: { code?: string } }) => (refused = error.cause?.code),
          )
          .finally(resolve);
      }, 300),
    );
    const stopped = await stopWith(server, dataDir, () => process.kill(-server.child.pid!, 'SIGTERM'));
    await late;
    peer.terminate();
    expect(refused).toBe('ECONNREFUSED');
    expect(stopped).toEqual({ code: 0, ms: expect.any(Number), left: [] });
    // The stalled peer must not hold the stop: past the server's bound main.ts would exit 1, not 0.
    expect(stopped.ms).toBeLessThan(STOP_LIMIT_MS);
    expect(running(node)).toBe(false);
  });

  it('SIGTERM to the npm process alone (npm run demo), and a second server on the same data folder refuses to start', async () => {
    const dataDir = newDataDir();
    const server = await start(dataDir, ['run', 'demo']);
    expect(server.output()).toContain('Demo loaded');
    const node = serverPid(server);

    const second = spawnSync(process.execPath, [MAIN], {
      cwd: ROOT,
      env: cleanEnv({ DATA_DIR: dataDir }),
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(second.status).toBe(1);
    expect(second.stdout).toContain(`is in use by process ${node}`);
    expect(javaPids(dataDir)).toHaveLength(1);
    // The demo's simulator has been driving jobs all along (a few requests a second), and logs
    // none of them at the default level: the banner stays the last thing on the screen.
    const afterBanner = server.output().split('Stop with Ctrl-C.')[1] ?? '';
    expect(afterBanner).not.toContain('graphql request');

    const stopped = await stopWith(server, dataDir, () => process.kill(server.child.pid!, 'SIGTERM'));
    expect(stopped).toEqual({ code: 0, ms: expect.any(Number), left: [] });
    expect(stopped.ms).toBeLessThan(STOP_LIMIT_MS);
  });

  it('SIGTERM to the node server process alone', async () => {
    const dataDir = newDataDir();
    const server = await start(dataDir);
    const node = serverPid(server);
    const stopped = await stopWith(server, dataDir, () => process.kill(node, 'SIGTERM'));
    expect(stopped).toEqual({ code: 0, ms: expect.any(Number), left: [] });
    expect(stopped.ms).toBeLessThan(STOP_LIMIT_MS);
  });

  it('restarts a killed DynamoDB Local on the same port and data, and queries succeed again', async () => {
    const dataDir = newDataDir();
    const server = await start(dataDir);
    const made = await gql(server.url, server.token, 'mutation { createProject(input: { title: "Survives" }) { projectId } }');
    const projectId = made.data.createProject.projectId;
    const [java] = javaPids(dataDir);

    process.kill(java, 'SIGKILL');
    expect(await until(() => server.output().includes('DynamoDB Local restarted.'), 60_000)).toBe(true);
    expect(server.output()).toContain('DynamoDB Local stopped unexpectedly (killed by SIGKILL); restarting it');
    const [restarted] = javaPids(dataDir);
    expect(restarted).not.toBe(java);
    const again = await gql(server.url, server.token, `{ project(projectId: "${projectId}") { title } }`);
    expect(again.data.project.title).toBe('Survives');

    const stopped = await stopWith(server, dataDir, () => process.kill(-server.child.pid!, 'SIGTERM'));
    expect(stopped).toEqual({ code: 0, ms: expect.any(Number), left: [] });
  });

  it('exits non-zero with a clear message when DynamoDB Local cannot be restarted 3 times in a row', async () => {
    const dataDir = newDataDir();
    const server = await start(dataDir);
    const port = Number(/DynamoDB Local is up at http:\/\/127\.0\.0\.1:(\d+)/.exec(server.output())![1]);
    const [java] = javaPids(dataDir);

    // Kill it and take its port, so that every restart fails to bind.
    process.kill(java, 'SIGKILL');
    expect(await until(() => !running(java), 5000)).toBe(true);
    let blocker: Server | undefined;
    for (let i = 0; i < 50 && !blocker; i++) {
      blocker = await new Promise<Server | undefined>((resolve) => {
        const s = createServer().once('error', () => resolve(undefined));
        s.listen(port, '127.0.0.1', () => resolve(s));
      });
      if (!blocker) await new Promise((r) => setTimeout(r, 20));
    }
    expect(blocker).toBeDefined();
    try {
      const code = await exited(server.child);
      expect(code).toBe(1);
      expect(server.output()).toContain('DynamoDB Local could not be restarted: 3 restarts in a row failed');
      expect(server.output()).toContain('Address already in use');
      expect(await until(() => processesOf(server.child.pid!, dataDir).length === 0, STOP_LIMIT_MS)).toBe(true);
    } finally {
      blocker!.close();
    }
  });
});

describe('the data folder lock', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'artissist-lock-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** A real other process that takes the lock on `dir`, says "locked", and holds it until killed. */
  async function holder(): Promise<{ pid: number; kill(): Promise<void> }> {
    const script = `require(${JSON.stringify(join(ROOT, 'dist/src/infra/folder-lock.js'))}).lockFolder(${JSON.stringify(dir)}, 'x').then(() => { console.log('locked'); setInterval(() => {}, 1000); })`;
    const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise((resolve) => child.stdout.once('data', resolve));
    return {
      pid: child.pid!,
      kill: async () => {
        child.kill('SIGKILL');
        await exited(child);
      },
    };
  }

  it('refuses while a live process holds it, naming the pid, and takes it over once that process died without releasing it', async () => {
    const other = await holder();
    try {
      await expect(lockFolder(dir, 'The folder')).rejects.toThrow(`is in use by process ${other.pid}`);
    } finally {
      await other.kill();
    }
    const lock = await lockFolder(dir, 'The folder');
    lock.release();
  });

  it('is not fooled by a reused pid: a live process that started at another time does not hold it', async () => {
    // This process is alive, but the lock says its holder started at another time: a pid reused after a reboot.
    const now = processStartTime(process.pid);
    expect(now).toEqual(expect.any(Number));
    writeFileSync(join(dir, '.lock'), JSON.stringify({ pid: process.pid, startTime: now! + 1 }));
    const lock = await lockFolder(dir, 'The folder');
    expect(existsSync(join(dir, '.lock'))).toBe(true);
    lock.release();
    expect(existsSync(join(dir, '.lock'))).toBe(false);
  });
});
