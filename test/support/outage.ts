import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { startDynamoDbLocal, type EmbeddedDynamo } from '../../src/infra/dynamo/embedded';
import { registerFixture } from './fixtures';

/** The java process of a DynamoDB Local started by startDynamoDbLocal: `pid` itself, or its java child. */
export function javaPidOf(pid: number): number {
  const comm = (p: number) => readFileSync(`/proc/${p}/comm`, 'utf8').trim();
  if (comm(pid) === 'java') return pid;
  const children = spawnSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' })
    .stdout.split('\n')
    .map((line) => Number(line.trim()))
    .filter((child) => child > 0);
  const java = children.find((child) => {
    try {
      return comm(child) === 'java';
    } catch {
      return false;
    }
  });
  if (!java) throw new Error(`no java process under pid ${pid}`);
  return java;
}

/**
 * A DynamoDB Local of the test's own, on its own port, with its data in a temporary folder (so a
 * restart after SIGKILL finds the table again), that the test can kill, restart on the same port,
 * freeze and thaw. `stop` ends whatever of it is still running; the fixture registry calls it
 * after the test file.
 */
export interface OwnDynamo {
  endpoint: string;
  /** The java process now serving. */
  javaPid(): number;
  kill(): void;
  /** Starts java again with the same command line (same port, same data); resolves once it answers. */
  restart(): Promise<void>;
  freeze(): void;
  thaw(): void;
  stop(): Promise<void>;
}

export async function startOwnDynamo(): Promise<OwnDynamo> {
  const dataPath = mkdtempSync(join(tmpdir(), 'artissist-outage-'));
  // Unsupervised: the test kills and restarts it itself, and an automatic restart would end its outage early.
  // The quick compiler alone (quickStart), as the development server's: a test's own DynamoDB Local
  // serves a few hundred requests, and the optimizing compiler's start cost more CPU than it saved.
  const embedded: EmbeddedDynamo = await startDynamoDbLocal({ dataPath, supervise: false, quickStart: true });
  let java = javaPidOf(embedded.pid);
  // The exact command line, so a restart listens on the same port with the same data.
  const argv = readFileSync(`/proc/${java}/cmdline`, 'utf8').split('\0').filter(Boolean);
  let restarted: ChildProcess | undefined;
  const signal = (sig: NodeJS.Signals) => {
    try {
      process.kill(java, sig);
    } catch {
      // Already gone.
    }
  };
  const stop = registerFixture(`own DynamoDB Local ${embedded.endpoint}`, async () => {
    signal('SIGCONT');
    if (restarted && restarted.exitCode === null && restarted.signalCode === null) {
      const exited = new Promise((resolve) => restarted!.once('exit', resolve));
      restarted.kill('SIGKILL');
      await exited;
    }
    await embedded.stop();
    rmSync(dataPath, { recursive: true, force: true });
  });
  return {
    endpoint: embedded.endpoint,
    javaPid: () => java,
    kill: () => signal('SIGKILL'),
    freeze: () => signal('SIGSTOP'),
    thaw: () => signal('SIGCONT'),
    async restart() {
      restarted = spawn(argv[0], argv.slice(1), { stdio: 'ignore' });
      java = restarted.pid!;
      await waitUntilAnswers(embedded.endpoint, 60_000);
    },
    stop,
  };
}

/** Resolves once DynamoDB at `endpoint` answers ListTables. */
export async function waitUntilAnswers(endpoint: string, timeoutMs: number): Promise<void> {
  const probe = new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 1,
    requestHandler: { requestTimeout: 500, connectionTimeout: 500, throwOnRequestTimeout: true },
  });
  const deadline = Date.now() + timeoutMs;
  try {
    for (;;) {
      try {
        await probe.send(new ListTablesCommand({ Limit: 1 }));
        return;
      } catch (error) {
        if (Date.now() > deadline) throw error;
        await new Promise((r) => setTimeout(r, 50));
      }
    }
  } finally {
    probe.destroy();
  }
}

/** Polls `condition` every 50 ms; resolves with the milliseconds it took, or throws after `timeoutMs`. */
export async function msUntil(condition: () => Promise<boolean>, timeoutMs: number, what: string): Promise<number> {
  const started = Date.now();
  for (;;) {
    if (await condition()) return Date.now() - started;
    if (Date.now() - started > timeoutMs) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
