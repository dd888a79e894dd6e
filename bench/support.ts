import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from '../src/infra/free-port';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
process.env.LOG_LEVEL ??= 'silent';

/** The q-quantile (0..1) of `values`, by the nearest-rank method. */
export function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

export const median = (values: number[]) => quantile(values, 0.5);

/** Writes a run's figures as JSON under bench/results (git-ignored). */
export function saveResult(name: string, data: unknown): string {
  const dir = join(__dirname, '../../bench/results');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${name}-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  writeFileSync(file, `${JSON.stringify(data, null, 2)}\n`);
  return file;
}

export const hasTaskset = spawnSync('taskset', ['-V']).status === 0;

/** Pins this process (all its threads) to `cores`, where taskset exists. */
export function pinSelf(cores: string): void {
  pinProcess(process.pid, cores);
}

/** Pins every thread of process `pid` to `cores` (a taskset list such as `0-1`); nothing without taskset. */
export function pinProcess(pid: number, cores: string): void {
  if (hasTaskset) spawnSync('taskset', ['-a', '-p', '-c', cores, String(pid)], { stdio: 'ignore' });
}

export interface Child {
  child: ChildProcess;
  /** The JSON printed after `READY ` by the child. */
  ready: Record<string, any>;
  /** Resolves with the JSON the child prints after `RESULT `. */
  result(): Promise<Record<string, any>>;
  /** Writes one line to the child's stdin. */
  send(line: string): void;
  /** Every `<prefix> {json}` line the child has printed since it started. */
  collected(prefix: string): Record<string, any>[];
  stop(): Promise<void>;
}

/**
 * The children startChild started that have not exited. A run that fails between a child's start
 * and its stop (a thrown error ends the bench) would leave it running, serving and profiling
 * after the bench is gone; they are killed when this process exits.
 */
const liveChildren = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of liveChildren) child.kill('SIGKILL');
});

/**
 * Runs a compiled bench script (`dist/bench/<name>.js`) in a child process, pinned to `core`
 * where taskset exists, and waits for its `READY {json}` line. It is killed when the bench exits,
 * if it is still running then.
 */
export function startChild(
  name: string,
  args: string[],
  options: { core?: string; env?: Record<string, string>; script?: string; nodeArgs?: string[] } = {},
): Promise<Child> {
  const script = options.script ?? join(__dirname, `${name}.js`);
  const node = [process.execPath, '--max-old-space-size=4096', '--expose-gc', ...(options.nodeArgs ?? []), script, ...args];
  const command = hasTaskset && options.core ? ['taskset', '-c', options.core, ...node] : node;
  const child = spawn(command[0], command.slice(1), { env: { ...process.env, ...options.env }, stdio: ['pipe', 'pipe', 'pipe'] });
  liveChildren.add(child);
  child.once('exit', () => liveChildren.delete(child));
  let output = '';
  const waiters: Array<(line: string) => void> = [];
  child.stdout!.on('data', (chunk) => {
    output += chunk;
    let newline: number;
    while ((newline = output.indexOf('\n')) >= 0) {
      const line = output.slice(0, newline);
      output = output.slice(newline + 1);
      for (const w of [...waiters]) w(line);
    }
  });
  let errors = '';
  child.stderr!.on('data', (chunk) => (errors += chunk));
  const seen: string[] = [];
  waiters.push((line) => {
    if (/^[A-Z]+ \{/.test(line)) seen.push(line);
  });
  // One exit listener for the child's life: a listener per awaited line would pass Node's limit of
  // ten (MaxListenersExceededWarning) when the bench asks a child for hundreds of results.
  const exitFailures = new Set<(error: Error) => void>();
  const exited = new Promise<void>((resolve) =>
    child.once('exit', (code) => {
      for (const fail of exitFailures) fail(new Error(`${name} exited with ${code}\n${errors}`));
      resolve();
    }),
  );
  const nextLine = (prefix: string, timeoutMs: number) =>
    new Promise<Record<string, any>>((resolve, reject) => {
      const settle = () => {
        clearTimeout(timer);
        exitFailures.delete(fail);
        const at = waiters.indexOf(waiter);
        if (at >= 0) waiters.splice(at, 1);
      };
      const fail = (error: Error) => {
        settle();
        reject(error);
      };
      const timer = setTimeout(() => fail(new Error(`${name}: no ${prefix} line within ${timeoutMs} ms\n${errors}`)), timeoutMs);
      const waiter = (line: string) => {
        if (!line.startsWith(`${prefix} `)) return;
        settle();
        resolve(JSON.parse(line.slice(prefix.length + 1)));
      };
      if (child.exitCode !== null || child.signalCode !== null) {
        fail(new Error(`${name} exited with ${child.exitCode}\n${errors}`));
        return;
      }
      exitFailures.add(fail);
      waiters.push(waiter);
    });
  return nextLine('READY', 120_000).then((ready) => ({
    child,
    ready,
    result: () => nextLine('RESULT', 600_000),
    send: (line: string) => child.stdin!.write(`${line}\n`),
    collected: (prefix: string) => seen.filter((l) => l.startsWith(`${prefix} `)).map((l) => JSON.parse(l.slice(prefix.length + 1))),
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
      // A process warning (MaxListenersExceededWarning and the like) is a finding of the run, not noise.
      const warnings = errors.split('\n').filter((line) => /Warning/.test(line));
      if (warnings.length) process.stderr.write(`${name} printed warnings:\n${warnings.join('\n')}\n`);
    },
  }));
}

/** Resident memory of a process, in bytes (Linux). */
export function rssOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) * 1024;
}

/*
 * A bench child started with --expose-gc collects garbage on SIGUSR2, so memory is sampled after
 * what setting up connections left behind is gone: retained memory, not transient garbage.
 */
process.on('SIGUSR2', () => (globalThis as { gc?: () => void }).gc?.());

/** Asks a bench child to collect garbage, then waits for its memory to settle, and returns its RSS. */
export async function settledRssOf(pid: number): Promise<number> {
  process.kill(pid, 'SIGUSR2');
  await new Promise((r) => setTimeout(r, 1500));
  return rssOf(pid);
}

/**
 * CPU time (user + system, ms) a process has used so far, all its threads, from /proc; NaN where
 * there is no /proc. Unlike latency, it depends little on how busy the rest of the machine is.
 */
export function cpuMsOf(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    // utime and stime are fields 14 and 15 of stat, in clock ticks (100 a second on Linux).
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return Number.NaN;
  }
}

/** A child's way to report: one line the parent waits for. */
export function report(kind: 'READY' | 'RESULT' | 'ROUND', data: unknown): void {
  process.stdout.write(`${kind} ${JSON.stringify(data)}\n`);
}

/** The JWT secret of every bench server and the tokens signed for it. */
export const SECRET = 'bench-secret-bench-secret-bench-secret';

/** One GraphQL request to a bench server; throws on any error in the answer. */
export async function gql(url: string, token: string, query: string, variables: Record<string, unknown> = {}) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await res.json()) as { data?: any; errors?: unknown };
  if (body.errors) throw new Error(JSON.stringify(body.errors));
  return body.data;
}

/** The environment of a bench server (see bench/server.ts), on `endpoint`'s DynamoDB Local and its own table. */
/**
 * The benches measure the server, not a plan: every tenant's rate budgets are set far above what a
 * bench sends. They are still drawn on every operation, so what the draws cost is in the figures.
 */
export const BENCH_PLANS = {
  PLAN_LIMITS: JSON.stringify({
    free: { requestsPerSecond: 1e9, userRequestsPerSecond: 1e9, costPerSecond: 1e12, workerRequestsPerSecond: 1e9 },
  }),
};

export function serverEnv(endpoint: string, table: string, dataDir: string): Record<string, string> {
  return {
    ...BENCH_PLANS,
    NODE_ENV: 'development',
    PORT: '0',
    // The fan-out bench opens subscriptions 250 at a time; DynamoDB Local pinned beside the server
    // answers such a burst slower than the 2 s production default, which would fail subscribes
    // the bench then waits for. It measures delivery, not overload.
    DYNAMODB_TIMEOUT_MS: '10000',
    DYNAMODB_ENDPOINT: endpoint,
    TABLE_NAME: table,
    AUTH_JWT_SECRET: SECRET,
    CURSOR_SECRET: 'c',
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    // The fan-out line holds up to 10,000 sockets at once, above the per-instance defaults.
    WS_MAX_CONNECTIONS: '12000',
    HTTP_MAX_CONNECTIONS: '14000',
    // The tables the bench's servers make have no change stream, as the test suite's have none
    // (TABLE_STREAM): no line reads it, DynamoDB's stream costs a writer nothing, and DynamoDB
    // Local's costs a write about 40 % more of its CPU (measured on a group's transaction of 41
    // puts), which would weigh on the work-item lines by how many rows an item writes, not by
    // anything DynamoDB would charge. BENCH_TABLE_STREAM=on measures with it.
    TABLE_STREAM: process.env.BENCH_TABLE_STREAM === 'on' ? 'on' : 'off',
  };
}

/** A throwaway redis-server on a free port (no persistence), killed when this process exits. */
export async function startRedis(): Promise<{ url: string; stop(): void }> {
  const port = await freePort();
  const child: ChildProcess = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  process.once('exit', () => child.kill('SIGKILL'));
  await new Promise<void>((resolve, reject) => {
    let output = '';
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`redis-server exited with ${code}: ${output}`)));
    child.stdout!.on('data', (chunk) => {
      output += chunk;
      if (output.includes('Ready to accept connections')) resolve();
    });
  });
  return { url: `redis://127.0.0.1:${port}`, stop: () => child.kill('SIGTERM') };
}
