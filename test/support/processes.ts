import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { registerFixture } from './fixtures';

/** The repository root: where `npm start` runs. */
export const ROOT = join(__dirname, '../..');
/** The built server, as `npm start` runs it after building. */
export const MAIN = join(ROOT, 'dist/src/main.js');

/** The environment of a newcomer's shell: no AWS, no DynamoDB configured, a free port. */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, HOME: process.env.HOME, PORT: '0', NODE_ENV: 'development', ...extra };
}

/** How long a child asked to stop (SIGTERM) after its test gets before it is killed. */
const STOP_GRACE_MS = 20_000;

/**
 * Registers a spawned child with the fixture registry and returns it: after its test (or file), a
 * child still running gets SIGTERM (its whole process group when `detached`, as a terminal's
 * Ctrl-C reaches a foreground job), then SIGKILL if it has not exited within 20 s. A test that
 * ends the child itself, to see how it stops, leaves the registry nothing to do.
 */
export function processFixture<C extends ChildProcess>(child: C, options: { detached?: boolean } = {}): C {
  const gone = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    child.once('exit', () => resolve());
    child.once('error', () => resolve());
  });
  registerFixture(`process ${child.pid} (${child.spawnargs.join(' ').slice(0, 160)})`, async () => {
    const signal = (sig: NodeJS.Signals) => {
      try {
        if (options.detached && child.pid) process.kill(-child.pid, sig);
        else if (child.exitCode === null && child.signalCode === null) child.kill(sig);
      } catch {
        // The process (group) is gone already: nothing to end.
      }
    };
    // A detached group may outlive its leader (npm's node, DynamoDB Local's java), so it is
    // signalled even when the leader has exited.
    if (options.detached || (child.exitCode === null && child.signalCode === null)) signal('SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    const graceOver = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), STOP_GRACE_MS)));
    const exitedInTime = await Promise.race([gone.then(() => true), graceOver]);
    clearTimeout(timer);
    if (!exitedInTime) {
      signal('SIGKILL');
      await gone;
    }
  });
  return child;
}

export interface Started {
  child: ChildProcess;
  output: () => string;
  url: string;
  token: string;
}

/**
 * Spawns `command args` and resolves once the start-up banner is out, with the URL and the token
 * it printed. Rejects with the output when it exits first or prints no banner within 90 s.
 * `detached` puts it in a process group of its own, as a terminal does with a foreground job;
 * `cwd` is the folder it runs in (the repository root unless told). The child is a fixture
 * (`processFixture`): whatever of it still runs after the test file is stopped.
 */
export function startProcess(command: string, args: string[], env: NodeJS.ProcessEnv, detached = false, cwd = ROOT): Promise<Started> {
  const child = processFixture(spawn(command, args, { cwd, env, detached, stdio: ['ignore', 'pipe', 'pipe'] }), { detached });
  let output = '';
  child.stdout!.on('data', (c) => (output += c));
  child.stderr!.on('data', (c) => (output += c));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no start-up banner within 90 s:\n${output}`)), 90_000);
    const early = (code: number | null) => reject(new Error(`exited with ${code} during start:\n${output}`));
    child.once('exit', early);
    const check = () => {
      const url = /GraphQL \(HTTP\):\s+(\S+)/.exec(output)?.[1];
      const token = /Development token[^\n]*\n\s+(\S+)/.exec(output)?.[1];
      if (url && token && output.includes('Stop with Ctrl-C')) {
        clearTimeout(timer);
        child.stdout!.off('data', check);
        child.off('exit', early);
        resolve({ child, output: () => output, url, token });
      }
    };
    child.stdout!.on('data', check);
  });
}

/** Resolves with the exit code (null when a signal ended it). */
export const exited = (child: ChildProcess) =>
  new Promise<number | null>((resolve) =>
    child.exitCode !== null || child.signalCode !== null ? resolve(child.exitCode) : child.once('exit', (code) => resolve(code)),
  );

export async function until(condition: () => boolean, ms = 10_000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!condition() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  return condition();
}

interface Proc {
  pid: number;
  ppid: number;
  pgid: number;
  args: string;
}

function processes(): Proc[] {
  const ps = spawnSync('ps', ['-eo', 'pid=,ppid=,pgid=,args='], { encoding: 'utf8' }).stdout;
  return ps
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => {
      const [pid, ppid, pgid, ...args] = line.trim().split(/\s+/);
      return { pid: Number(pid), ppid: Number(ppid), pgid: Number(pgid), args: args.join(' ') };
    });
}

/** Pids of DynamoDB Local java processes whose data lives in `dataDir`. */
export function javaPids(dataDir: string): number[] {
  return processes()
    .filter((p) => p.args.includes('DynamoDBLocal.jar') && p.args.includes(dataDir))
    .map((p) => p.pid);
}

/** The pids of the children of `pid`. */
export function childPids(pid: number): number[] {
  return processes()
    .filter((p) => p.ppid === pid)
    .map((p) => p.pid);
}

/**
 * Every process that belongs to a server started in its own process group `pgid` on `dataDir`:
 * the group itself (npm, node, a shell), and every process that names the data folder (java,
 * its watchdog) with the members of their groups. Each line is "pid args".
 */
export function processesOf(pgid: number, dataDir: string): string[] {
  const all = processes().filter((p) => p.pid !== process.pid);
  const groups = new Set([pgid, ...all.filter((p) => p.args.includes(dataDir)).map((p) => p.pgid)]);
  return all.filter((p) => groups.has(p.pgid) || p.args.includes(dataDir)).map((p) => `${p.pid} ${p.args}`);
}

export async function gql(url: string, token: string, query: string, variables?: object): Promise<any> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ query, variables }),
  });
  return res.json();
}
