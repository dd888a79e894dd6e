import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { processFixture, ROOT } from './processes';
import type { TestServer } from './server';

/*
 * Worker processes of the SDKs' tests (test/e2e/worker-sdk.test.ts, worker-push.test.ts, hand-back.test.ts): a
 * process started with the Python SDK on its path, whose JSON lines the test awaits.
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
