import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { PushSignal, type Work, Worker } from '../../sdk/typescript/src/index';
import { registerFixture } from './fixtures';
import { processFixture, ROOT } from './processes';
import type { TestServer } from './server';

/*
 * Worker processes of the SDKs' tests (test/e2e/worker-sdk.test.ts, worker-push.test.ts, hand-back.test.ts,
 * work-signals.test.ts): a process started with the Python SDK on its path, whose JSON lines the test
 * awaits, and the TypeScript SDK's worker on pushed signals in this process.
 */

/** The Python worker the tests run (test/fixtures/workers/batch_worker.py). */
export const PYTHON_WORKER = join(ROOT, 'test/fixtures/workers/batch_worker.py');

/** A worker process and the JSON lines it printed. */
export interface Proc {
  child: ChildProcess;
  lines: any[];
  output(): string;
  /** The first line (printed so far or later) that `match` accepts; rejects with the output after `ms`. */
  until(match: (line: any) => boolean, what: string, ms?: number): Promise<any>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>;
}

/** Starts a worker process (its own process group when `detached`, as a shell's job is) and follows its JSON lines. */
export function startWorker(
  command: string,
  args: string[],
  env: Record<string, string>,
  options: { cwd?: string; detached?: boolean } = {},
): Proc {
  const child = processFixture(
    spawn(command, args, {
      cwd: options.cwd ?? ROOT,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, PYTHONPATH: join(ROOT, 'sdk/python'), PYTHONDONTWRITEBYTECODE: '1', ...env },
      detached: options.detached,
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
    { detached: options.detached },
  );
  const lines: any[] = [];
  const waiters = new Set<() => void>();
  let output = '';
  let partial = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    output += chunk;
    partial += chunk;
    const complete = partial.split('\n');
    partial = complete.pop()!;
    for (const line of complete) if (line.startsWith('{')) lines.push(JSON.parse(line));
    for (const wake of waiters) wake();
  });
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal, at: Date.now() })),
  );
  const until = (match: (line: any) => boolean, what: string, ms = 20_000) =>
    new Promise<any>((resolve, reject) => {
      const check = () => {
        const found = lines.find(match);
        if (!found) return;
        clearTimeout(timer);
        waiters.delete(check);
        resolve(found);
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`no ${what} within ${ms} ms; the worker printed:\n${output}`));
      }, ms);
      waiters.add(check);
      check();
    });
  return { child, lines, output: () => output, until, exited };
}

/** Runs a GraphQL operation on `server` as `token`; throws naming the errors when it has any (the worker tests' gql). */
export async function gqlAs(server: TestServer, token: string, query: string, variables: Record<string, unknown> = {}): Promise<any> {
  const { body } = await server.raw({ query, variables }, token);
  if (body.errors) throw new Error(`GraphQL errors: ${JSON.stringify(body.errors)}`);
  return body.data;
}

/**
 * Creates a BATCH job in `projectId` of `tenant`, one item per entry of `params` (what
 * test/fixtures/workers/batch_worker.py does with it), through `gql`; resolves with its id.
 */
export async function batchJob(
  gql: (query: string, variables: Record<string, unknown>) => Promise<any>,
  tenant: string,
  projectId: string,
  params: Record<string, unknown>[],
): Promise<string> {
  const data = await gql('mutation($input: CreateJobInput!) { createJob(input: $input) { jobId } }', {
    input: {
      projectId,
      kind: 'BATCH',
      inputs: { label: String(Math.random()) },
      items: params.map((p, n) => ({ source: `tenants/${tenant}/in/${n}.png`, params: p })),
    },
  });
  return data.createJob.jobId;
}

/**
 * A Python worker process on pushed signals (PUSH=1) at `url` as `token` (the fixture's BATCH
 * handler, test/fixtures/workers/batch_worker.py); resolves once the SDK told its subscription
 * acknowledged (its on_state hook's `subscribed`).
 */
export async function pythonPushWorker(url: string, token: string, name: string, env: Record<string, string> = {}): Promise<Proc> {
  const proc = startWorker('python3', [PYTHON_WORKER], { ARTISSIST_URL: url, ARTISSIST_TOKEN: token, PUSH: '1', ...env });
  await proc.until((l) => l.event === 'subscribed', `${name}'s subscription`);
  return proc;
}

/**
 * True while the SDK's last word on the worker is `idle` (its on_state / onState hook): subscribed,
 * every claim found nothing, and sending nothing until a signal or its 30 s fallback.
 */
export function isIdle(worker: Proc | TsPushWorker): boolean {
  if ('states' in worker) return worker.states.at(-1)?.state === 'idle';
  // The fixture prints a line per signal heard, claim and state: after `idle`, any line says it left it.
  return worker.lines.at(-1)?.event === 'idle';
}

/** How many times the SDK told the worker `idle` so far. */
export function idleCount(worker: Proc | TsPushWorker): number {
  return 'states' in worker
    ? worker.states.filter((s) => s.state === 'idle').length
    : worker.lines.filter((l) => l.event === 'idle').length;
}

/** A TypeScript worker of tsPushWorker, with what it met, each with when (Date.now). */
export interface TsPushWorker {
  worker: Worker;
  /** Its run: resolves once it stopped. */
  running: Promise<void>;
  started: Array<{ work: Work; at: number }>;
  aborted: Array<{ work: Work; code: string; at: number }>;
  signals: Array<{ type: string; at: number }>;
  /** What the SDK told its onState hook, as it was reached. */
  states: Array<{ state: string; at: number }>;
}

/**
 * A TypeScript SDK worker in this process on pushed signals at `url` as `token`, whose BATCH
 * handler waits until its signal aborts (or returns at once when `returns` says so). It is stopped
 * by the fixture registry after the test, whatever the test met (a running worker holds its
 * connection open).
 */
export function tsPushWorker(
  url: string,
  token: string,
  name: string,
  options: { graceMs?: number; returns?: (work: Work) => boolean } = {},
): TsPushWorker {
  const started: TsPushWorker['started'] = [];
  const signals: TsPushWorker['signals'] = [];
  const aborted: TsPushWorker['aborted'] = [];
  const states: TsPushWorker['states'] = [];
  const worker = new Worker({
    url,
    token,
    graceMs: options.graceMs ?? 30_000,
    handleSignals: false,
    log: () => {},
    onState: (state) => states.push({ state, at: Date.now() }),
    workSignal: new PushSignal(30_000, 1000, (signal) => signals.push({ type: signal.type, at: Date.now() })),
  }).stage('BATCH', 'process', async (work) => {
    started.push({ work, at: Date.now() });
    if (!options.returns?.(work)) {
      await new Promise((resolve) => work.signal.addEventListener('abort', resolve));
      aborted.push({ work, code: (work.signal.reason as { code: string }).code, at: Date.now() });
    }
    return { result: `tenants/${work.tenantId}/out/${work.sequence}.png` };
  });
  const running = worker.run();
  registerFixture(`TypeScript worker ${name}`, async () => {
    worker.stop();
    worker.giveUp();
    // run() resolves once its hand-backs are answered; it rejects only with a claim refused for good
    // (or no handler, or kinds it could not read), which the test that made the worker should see.
    await running;
  });
  return { worker, running, started, aborted, signals, states };
}
