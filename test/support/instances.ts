import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testRegion } from './dynamo';
import { registerFixture } from './fixtures';
import { TEST_OPERATOR_SECRET, TEST_SECRET } from './server';

const MAIN = join(__dirname, '../../dist/src/main.js');

export interface Instance {
  child: ChildProcess;
  url: string;
  output(): string;
  /** SIGTERM, then waits for the exit: for tests of stopping; the fixture registry does it after the file. */
  stop(): Promise<void>;
  /** SIGKILL: the instance dies as a crashed machine would, without closing anything. */
  kill(): Promise<void>;
}

/**
 * One server process, as a deployment runs it: DynamoDB (and Redis, when given) configured,
 * nothing embedded. Resolves once it prints its URL. Registered with the fixture registry, which
 * stops it after the test file, also when it never started.
 */
export function startInstance(env: Record<string, string>): Promise<Instance> {
  // Each instance keeps its embedded S3 files in a folder of its own, as separate machines would.
  const dataDir = mkdtempSync(join(tmpdir(), 'artissist-instance-'));
  const child = spawn(process.execPath, [MAIN], {
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      NODE_ENV: 'development',
      HOST: '127.0.0.1',
      PORT: '0',
      AUTH_JWT_SECRET: TEST_SECRET,
      AUTH_OPERATOR_SECRET: TEST_OPERATOR_SECRET,
      CURSOR_SECRET: 'c',
      // See test/support/server.ts: a busy 2-core machine, and tests not about timeouts.
      DYNAMODB_TIMEOUT_MS: '10000',
      REQUEST_BUDGET_MS: '30000',
      DATA_DIR: dataDir,
      // This worker's database in the run's DynamoDB Local (test/support/environment.ts): a child process
      // gets the environment given here, not the one jest gives the test file.
      AWS_REGION: testRegion(),
      // No change stream unless the test asks for one (see test/support/environment.ts).
      TABLE_STREAM: process.env.TABLE_STREAM ?? 'off',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (c) => (output += c));
  child.stderr!.on('data', (c) => (output += c));
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => {
      rmSync(dataDir, { recursive: true, force: true });
      resolve();
    });
    child.once('error', () => resolve());
  });
  const running = () => child.exitCode === null && child.signalCode === null;
  const stop = registerFixture(`instance pid ${child.pid}`, async () => {
    if (running()) child.kill('SIGTERM');
    await exited;
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`instance did not start:\n${output}`)), 60_000);
    const early = (code: number | null) => {
      // The start-up timer goes too, or it would keep the test process alive for its minute.
      clearTimeout(timer);
      reject(new Error(`instance exited with ${code}:\n${output}`));
    };
    child.once('exit', early);
    const check = () => {
      const url = /GraphQL \(HTTP\):\s+(\S+)/.exec(output)?.[1];
      if (!url) return;
      clearTimeout(timer);
      child.off('exit', early);
      child.stdout!.off('data', check);
      resolve({
        child,
        url,
        output: () => output,
        stop,
        async kill() {
          if (running()) child.kill('SIGKILL');
          await exited;
        },
      });
    };
    child.stdout!.on('data', check);
  });
}

/** A GraphQL request over HTTP; rejects on a network error, resolves with the parsed body otherwise. */
export async function gqlAt(url: string, token: string, query: string, variables: Record<string, unknown> = {}) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ query, variables }),
    signal: AbortSignal.timeout(30_000),
  });
  return (await res.json()) as { data?: any; errors?: Array<{ message: string; extensions?: { code?: string } }> };
}
