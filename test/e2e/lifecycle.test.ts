/** @long Started first on a clean clone (test/support/sequencer.js): one of the slowest files. */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { createConnection, createServer, type Server } from 'node:net';
import { join } from 'node:path';
import WebSocket from 'ws';
import { lockFolder, processStartTime } from '../../src/infra/folder-lock';
import { spawnPort } from '../support/ports';
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
  processFixture,
} from '../support/processes';
import { subscribe, wsClient } from '../support/ws';
import { tempDir, fixture } from '../support/fixtures';
import { waitFor } from '../support/wait';

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

/**
 * The restart pauses of the tests that kill DynamoDB Local: what they check (a restart on the
 * same port and data, three failed ones in a row and the exit) is the same at any pause, and the
 * default ones (0.25 s, 1 s, 3 s) spent over 4 s of waiting.
 */
const QUICK_RESTARTS = '50';

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
  const result = { code, ms: Date.now() - t0, left: processesOf(pgid, dataDir) };
  // npm's 'exit' can come before the server's last lines are read: the server writes to the same
  // pipe, and it may end after npm. Its output is whole once the pipe closed (every process holding
  // it ended), which is awaited here, bounded, so that what the test reads of it is all there is.
  await outputClosed(started.child, STOP_LIMIT_MS);
  return result;
}

/** Resolves once `child`'s output pipes closed (Node's 'close'), or after `ms` (what is then left shows in `left`). */
function outputClosed(child: ChildProcess, ms: number): Promise<void> {
  if (child.stdout?.closed !== false && child.stderr?.closed !== false) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    child.once('close', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/** How a TCP connection to `port` on 127.0.0.1 ends: 'connected', or the error's code. */
function connectOutcome(port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = createConnection({ port, host: '127.0.0.1' });
    socket.once('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });
}

/** Waits until a connection to `port` succeeds. */
async function connectsNow(port: number, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while ((await connectOutcome(port)) !== 'connected') {
    if (Date.now() > deadline) throw new Error(`port ${port} did not answer within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * Starts what is going on at `moment` and resolves once it is under way; `end()` waits for it to
 * finish (its requests fail or are cut by the stop, which is expected). Nothing for the start-up
 * and idle moments.
 */
async function activity(moment: string, server: Started): Promise<{ end(): Promise<void> }> {
  const none = { end: async () => {} };
  if (moment === 'start-up' || moment === 'idle') return none;
  const { url, token } = server;
  const project = await gql(url, token, 'mutation { createProject(input: { title: "Stops" }) { projectId } }');
  const projectId: string = project.data.createProject.projectId;
  const createLog = () =>
    gql(
      url,
      token,
      `mutation { createLog(projectId: "${projectId}", input: { materials: ["clay"], timeSpentMinutes: 1 }) { logId } }`,
    ).catch(cutByStop);
  if (moment === 'mid-query') {
    // Queries in flight when the signal comes: they finish within the drain, or are cut.
    let going = true;
    const loops = Array.from({ length: 4 }, async () => {
      while (going)
        await gql(url, token, `{ logs(projectId: "${projectId}") { logId } }`).catch((error) => {
          cutByStop(error);
          going = false;
        });
    });
    return {
      end: async () => {
        going = false;
        await Promise.all(loops);
      },
    };
  }
  if (moment === 'mid-subscription') {
    // A live subscription receiving events when the signal comes.
    const client = wsClient(url, token);
    const live = subscribe(client, `subscription { projectActivity(projectId: "${projectId}") { position } }`);
    await live.ack;
    let going = true;
    const writer = (async () => {
      while (going) if ((await createLog()) === undefined) going = false;
    })();
    await live.waitFor(1);
    return {
      end: async () => {
        going = false;
        await writer;
      },
    };
  }
  // mid-outbox-flush: a burst of writes whose events the outbox is still publishing.
  const burst = Promise.all(Array.from({ length: 8 }, createLog));
  return { end: async () => void (await burst) };
}

/**
 * A request the stop cut off is expected: its connection refused or reset (fetch's TypeError, by
 * name: it comes from outside jest's realm) or its answer cut short (SyntaxError reading the body).
 * Anything else is the test's failure, so it is thrown on.
 */
function cutByStop(error: unknown): undefined {
  // Not `instanceof`: an error from outside jest's realm is no instance of this realm's Object.
  const name = typeof error === 'object' && error !== null && 'name' in error ? error.name : undefined;
  if (name === 'TypeError' || name === 'SyntaxError') return undefined;
  throw error;
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
  const newDataDir = () => tempDir('artissist-life-');
  const start = async (dataDir: string, args = ['start'], extra: Record<string, string> = {}) => {
    const started = await npm(dataDir, args, extra);
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

  it('Ctrl-C while DynamoDB Local boots stops cleanly, without calling the stop a failed start-up', async () => {
    const dataDir = newDataDir();
    const child = processFixture(
      spawn('npm', ['start'], { cwd: ROOT, env: cleanEnv({ DATA_DIR: dataDir, PORT: String(await spawnPort()) }), detached: true }),
      { detached: true },
    );
    let output = '';
    child.stdout.on('data', (c) => (output += c));
    child.stderr.on('data', (c) => (output += c));
    // The JVM takes seconds to answer: the signal comes while the start-up (which says it starts
    // the local S3 once it runs) still waits for it.
    expect(await until(() => output.includes('Starting the local S3'), 60_000)).toBe(true);
    const server: Started = { child, output: () => output, url: '', token: '' };
    const stopped = await stopWith(server, dataDir, () => process.kill(-child.pid!, 'SIGINT'));
    expect(stopped).toEqual({ code: 0, ms: expect.any(Number), left: [] });
    const after = output.split('SIGINT: stopping')[1] ?? '';
    expect(after).toContain('Stopped.');
    expect(after).not.toMatch(/failed/i);
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

    // A request sent once the server has said it is stopping: the stop closes the listener in the
    // same turn as it says so, before anything else, so the request is refused.
    let refused: unknown;
    const late = until(() => server.output().includes('SIGTERM: stopping'), STOP_LIMIT_MS).then(() =>
      fetch(server.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"query":"{ __typename }"}' }).then(
        (res) => (refused = `served with ${res.status}`),
        (error: Error & { cause?: { code?: string } }) => (refused = error.cause?.code),
      ),
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

  it('12 stops at random moments, by SIGINT and SIGTERM to node, npm and the group, each close the listener at once and end cleanly', async () => {
    /*
     * Each stop starts its own `npm start`, reaches a moment, waits a random 0–300 ms and sends the
     * signal; about 5 s per stop, two stops at a time. The start-up moment is the one that hung: the
     * port already answers, but the table is still being created. A fresh data folder there makes
     * the start create it; the other moments share their lane's folder, whose table exists, which
     * starts faster.
     * Every signal reaches every target at two moments or more; SIGTERM to the node process alone,
     * idle, is stop 7 (it had a server and a test of its own before, which checked less).
     */
    const moments = ['start-up', 'idle', 'mid-query', 'mid-subscription', 'mid-outbox-flush'] as const;
    const results: string[] = [];
    // Two lanes of six stops, one beside the other, each with a shared folder of its own (a data
    // folder serves one server at a time): stops 1–6 and 7–12.
    const lane = async (from: number) => {
      const shared = newDataDir();
      for (let i = from; i < from + 6; i++) {
        const moment = moments[i % moments.length];
        const signal = i % 2 ? 'SIGINT' : 'SIGTERM';
        const target = (['node', 'npm', 'group'] as const)[Math.floor(i / 2) % 3];
        const dataDir = moment === 'start-up' ? newDataDir() : shared;
        const port = await spawnPort();
        const url = `http://127.0.0.1:${port}/graphql`;
        let server: Started;
        if (moment === 'start-up') {
          // As soon as the port answers: the banner, printed once the start-up is over, is not waited for.
          const child = processFixture(
            spawn('npm', ['start'], { cwd: ROOT, env: cleanEnv({ DATA_DIR: dataDir, PORT: String(port) }), detached: true }),
            { detached: true },
          );
          let output = '';
          child.stdout.on('data', (c) => (output += c));
          child.stderr.on('data', (c) => (output += c));
          server = { child, output: () => output, url, token: '' };
          await connectsNow(port, 90_000);
        } else {
          server = await start(dataDir, ['start'], { PORT: String(port) });
        }
        const traffic = await activity(moment, server);
        await new Promise((r) => setTimeout(r, Math.random() * 300));
        const node = serverPid(server);
        const send = () =>
          target === 'node' ? process.kill(node, signal) : process.kill(target === 'npm' ? server.child.pid! : -server.child.pid!, signal);
        const t0 = Date.now();
        let refusedAfterMs: number | undefined;
        const refusal = (async () => {
          while (Date.now() - t0 < STOP_LIMIT_MS) {
            // Timed from when the refused attempt was made, not from when this loop heard of it: on a
            // busy machine the answer of a refused connect waits for this process's turn (a run at
            // load 15 heard one 1,099 ms in, of a stop that had ended at 691 ms).
            const attemptAt = Date.now();
            if ((await connectOutcome(port)) === 'ECONNREFUSED') return (refusedAfterMs = attemptAt - t0);
          }
        })();
        const stopped = await stopWith(server, dataDir, send);
        await refusal;
        await traffic.end();
        const label = `stop ${i + 1}: ${signal} to ${target} ${moment}`;
        results.push(`${label}: ${stopped.ms} ms, listener closed after ${refusedAfterMs} ms`);
        const after = server.output().split(`${signal}: stopping`)[1] ?? '';
        expect({ label, ...stopped, stoppedLine: after.includes('Stopped.') }).toEqual({
          label,
          code: 0,
          ms: expect.any(Number),
          left: [],
          stoppedLine: true,
        });
        expect(stopped.ms).toBeLessThan(STOP_LIMIT_MS);
        // "At once": the listener closes before anything else of the stop, whatever is in flight.
        expect({ label, refusedAfterMs }).toEqual({ label, refusedAfterMs: expect.any(Number) });
        // Refused while the stop was still under way (the process had not yet ended), and soon:
        // 3 s, where a quiet machine takes under 50 ms; a clean-clone run, whose first minutes run
        // this file beside the scale, pool and migration files on two cores, saw 2,165 ms.
        expect(refusedAfterMs).toBeLessThan(stopped.ms);
        expect(refusedAfterMs).toBeLessThan(3000);
        // The embedded parts stop last: nothing of the server found DynamoDB gone (a request that ran
        // out of its own budget on a busy machine is logged as `deadline`, which is no such sign).
        expect({ label, after }).toEqual({ label, after: expect.not.stringMatching(/is failing \(unreachable\)|took longer|"level":50/) });
      }
    };
    const lanes = await Promise.allSettled([lane(0), lane(6)]);
    const failed = lanes.find((l): l is PromiseRejectedResult => l.status === 'rejected');
    if (failed) throw failed.reason;
    results.sort((a, b) => Number(/^stop (\d+)/.exec(a)![1]) - Number(/^stop (\d+)/.exec(b)![1]));
    console.log(results.join('\n'));
  });

  it('restarts a killed DynamoDB Local on the same port and data, and queries succeed again', async () => {
    const dataDir = newDataDir();
    // The project is written by a first run that stops cleanly, and the kill comes in a second run
    // on the same data. DynamoDB Local can lose the last writes it acknowledged when it is killed
    // right after them: a write followed at once by a SIGKILL was gone after the restart in 5 of 19
    // tries (2026-11-30; and in 3 runs of this test on busy machines), where after a clean stop
    // none of 11 was. What this test holds the server to is the restart on the same port and data,
    // not DynamoDB Local's durability of its last write, which the server cannot give it.
    const first = await start(dataDir, ['start']);
    const made = await gql(first.url, first.token, 'mutation { createProject(input: { title: "Survives" }) { projectId } }');
    const projectId = made.data.createProject.projectId;
    expect(await stopWith(first, dataDir, () => process.kill(-first.child.pid!, 'SIGTERM'))).toEqual({
      code: 0,
      ms: expect.any(Number),
      left: [],
    });
    const server = await start(dataDir, ['start'], { EMBEDDED_RESTART_BACKOFF_MS: QUICK_RESTARTS });
    const [java] = javaPids(dataDir);

    process.kill(java, 'SIGKILL');
    expect(await until(() => server.output().includes('DynamoDB Local restarted.'), 60_000)).toBe(true);
    expect(server.output()).toContain('DynamoDB Local stopped unexpectedly (killed by SIGKILL); restarting it');
    const [restarted] = javaPids(dataDir);
    expect(restarted).not.toBe(java);
    // A DynamoDB Local just restarted (a cold JVM) on a busy machine can miss the first request's
    // deadline; the server then answers SERVICE_UNAVAILABLE with a retry time, which a client acts
    // on, so this one does too, within a bounded window, and no other answer is accepted.
    const codes: string[] = [];
    const again = await waitFor(
      async () => {
        const answer = await gql(server.url, server.token, `{ project(projectId: "${projectId}") { title } }`);
        if (answer.data?.project) return answer;
        codes.push(answer.errors?.[0]?.extensions?.code);
        return undefined;
      },
      () => `the project read after the restart (${codes.join(', ')})`,
      { ms: 20_000, everyMs: 250 },
    );
    expect(codes.filter((code) => code !== 'SERVICE_UNAVAILABLE')).toEqual([]);
    expect(again.data.project.title).toBe('Survives');

    const stopped = await stopWith(server, dataDir, () => process.kill(-server.child.pid!, 'SIGTERM'));
    expect(stopped).toEqual({ code: 0, ms: expect.any(Number), left: [] });
  });

  it('exits non-zero with a clear message when DynamoDB Local cannot be restarted 3 times in a row', async () => {
    const dataDir = newDataDir();
    // The port is taken within a few milliseconds of java's death (below), long before a restarted
    // JVM could bind it (a second or more), so the pauses need not leave it time.
    const server = await start(dataDir, ['start'], { EMBEDDED_RESTART_BACKOFF_MS: QUICK_RESTARTS });
    const port = Number(/DynamoDB Local is up at http:\/\/127\.0\.0\.1:(\d+)/.exec(server.output())![1]);
    const [java] = javaPids(dataDir);

    // Kill it and take its port, so that every restart fails to bind. The port's new holder ends
    // every connection at once, as a program that speaks another protocol would: the server's
    // DynamoDB calls meanwhile fail at once rather than wait out their timeouts (a holder that
    // never answers held the stop below until its 10 s bound, whose exit code is 1 as well).
    process.kill(java, 'SIGKILL');
    expect(await until(() => !running(java), 5000)).toBe(true);
    let blocker: Server | undefined;
    for (let i = 0; i < 50 && !blocker; i++) {
      blocker = await new Promise<Server | undefined>((resolve) => {
        const s = createServer((socket) => socket.destroy()).once('error', () => resolve(undefined));
        s.listen(port, '127.0.0.1', () => resolve(fixture('port blocker', s, (b) => b.close())));
      });
      if (!blocker) await new Promise((r) => setTimeout(r, 20));
    }
    expect(blocker).toBeDefined();
    const code = await exited(server.child);
    expect(code).toBe(1);
    // Its last lines may still be in the pipe at npm's exit (see stopWith).
    await outputClosed(server.child, STOP_LIMIT_MS);
    expect(server.output()).toContain('DynamoDB Local could not be restarted: 3 restarts in a row failed');
    expect(server.output()).toContain('Address already in use');
    // It gave up and stopped within its bound, not by the bound's own exit.
    expect(server.output()).toContain('Stopped.');
    expect(server.output()).not.toContain('Stopping took longer');
    expect(await until(() => processesOf(server.child.pid!, dataDir).length === 0, STOP_LIMIT_MS)).toBe(true);
  });
});

describe('the data folder lock', () => {
  let dir: string;
  beforeEach(() => (dir = tempDir('artissist-lock-')));

  /** A real other process that takes the lock on `dir`, says "locked", and holds it until killed. */
  async function holder(): Promise<{ pid: number; kill(): Promise<void> }> {
    const script = `require(${JSON.stringify(join(ROOT, 'dist/src/infra/folder-lock.js'))}).lockFolder(${JSON.stringify(dir)}, 'x').then(() => { console.log('locked'); setInterval(() => {}, 1000); })`;
    const child = processFixture(spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] }));
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
    await expect(lockFolder(dir, 'The folder')).rejects.toThrow(`is in use by process ${other.pid}`);
    await other.kill();
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
