import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, escapeIdentifier } from 'pg';
import { entities } from '../../src/common/entities';
import { spawnPort } from './ports';
import { createRoles, withTenant } from '../../src/infra/postgres/apply';
import { DEFAULT_ROLES, deriveSchema } from '../../src/infra/postgres/schema';
import { fixture, registerFixture } from './fixtures';

export interface PostgresServer {
  port: number;
  /** The superuser initdb made, with `password`. */
  superuser: string;
  password: string;
  /** A connected client (registered, closed after the test or block that asked for it). */
  connect(user: string, password: string, database?: string): Promise<Client>;
  /** Stops the server at once, as a crash would (see LaunchedPostgres). */
  crash(): Promise<void>;
  /** Starts the crashed server again on the same port and data (see LaunchedPostgres). */
  start(): Promise<void>;
}

/**
 * The folder of the machine's PostgreSQL server binaries: PG_BINDIR if set, else `pg_config
 * --bindir` when it holds `postgres` (Debian's libpq-dev has a pg_config without a server), else
 * the newest /usr/lib/postgresql/<version>/bin (Debian's layout). Throws, saying what to install.
 */
function binDir(): string {
  const has = (dir: string) => existsSync(join(dir, 'postgres')) && existsSync(join(dir, 'initdb'));
  const candidates: string[] = [];
  if (process.env.PG_BINDIR) candidates.push(process.env.PG_BINDIR);
  try {
    candidates.push(execFileSync('pg_config', ['--bindir'], { encoding: 'utf8' }).trim());
  } catch {
    // No pg_config on PATH: Debian's own layout below is the next place to look.
  }
  const debian = '/usr/lib/postgresql';
  if (existsSync(debian)) {
    const versions = readdirSync(debian).filter((v) => /^\d+$/.test(v));
    candidates.push(...versions.sort((a, b) => Number(b) - Number(a)).map((v) => join(debian, v, 'bin')));
  }
  const found = candidates.find(has);
  if (!found)
    throw new Error(
      `No PostgreSQL server binaries (looked in ${candidates.join(', ') || 'nothing'}); install Debian's postgresql package.`,
    );
  return found;
}

/**
 * The user the server runs as: this process's own, or, when that is root (which `postgres`
 * refuses), the unprivileged `nobody` of /etc/passwd (uid 65534 if it has none).
 */
function serverUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('nobody:'));
  const [, , uid, gid] = line?.split(':') ?? [];
  return { uid: Number(uid ?? 65534), gid: Number(gid ?? 65534) };
}

/** A PostgreSQL cluster launchPostgres started, and its stop. */
export interface LaunchedPostgres {
  port: number;
  superuser: string;
  password: string;
  /** Stops the server (fast shutdown) and removes its folder; resolves once both are done. */
  stop(): Promise<void>;
  /** Stops the server at once, as a crash would (immediate shutdown: the next start recovers from the WAL); resolves once it has exited. */
  crash(): Promise<void>;
  /** Starts a crashed server again on the same port and data; resolves once it answers. */
  start(): Promise<void>;
}

interface LaunchOptions {
  /** Sessions it takes at most (100 unless given). */
  maxConnections?: number;
  /** Commits are acknowledged once their WAL is written (synchronous_commit on), so that a restart loses none. */
  durableCommits?: boolean;
}

/**
 * Starts a throwaway PostgreSQL cluster from the machine's binaries: initdb in a new temporary
 * folder, then `postgres` on a free 127.0.0.1 port (no Unix socket, no fsync), as `nobody` when
 * the tests run as root, taking up to `maxConnections` sessions. The superuser logs in with a
 * random password (scram-sha-256; no trust login, so roles are really checked). Not registered with
 * the fixture registry (globalSetup starts one for the run, where there is none, and the bench one
 * for its PostgreSQL rows, bench/postgres.ts): the caller stops it. Throws, having removed what it
 * made, when the binaries are missing or the server does not answer within 30 s, with its output.
 */
export async function launchPostgres(options: LaunchOptions = {}): Promise<LaunchedPostgres> {
  const bin = binDir();
  const user = serverUser();
  const root = mkdtempSync(join(tmpdir(), 'postgres-'));
  const removeFolder = () => rmSync(root, { recursive: true, force: true });
  try {
    return await launchIn(bin, user, root, options, removeFolder);
  } catch (error) {
    removeFolder();
    throw error;
  }
}

async function launchIn(
  bin: string,
  user: { uid: number; gid: number } | undefined,
  root: string,
  options: LaunchOptions,
  removeFolder: () => void,
): Promise<LaunchedPostgres> {
  const maxConnections = options.maxConnections ?? 100;
  const data = join(root, 'data');
  mkdirSync(data, { mode: 0o700 });
  const superuser = 'postgres';
  const password = randomBytes(12).toString('hex');
  const pwfile = join(root, 'pwfile');
  writeFileSync(pwfile, password, { mode: 0o600 });
  if (user) for (const path of [root, data, pwfile]) chownSync(path, user.uid, user.gid);
  const as = user ? { uid: user.uid, gid: user.gid } : {};

  execFileSync(
    join(bin, 'initdb'),
    [
      '-D',
      data,
      '-U',
      superuser,
      `--pwfile=${pwfile}`,
      '--auth=scram-sha-256',
      '-E',
      'UTF8',
      '--locale=C',
      '--no-sync',
      '--no-instructions',
    ],
    { ...as, cwd: root, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  const port = await spawnPort();
  let server = await serve(bin, as, root, data, port, maxConnections, options);
  let stopped = false;
  return {
    port,
    superuser,
    password,
    async stop() {
      stopped = true;
      await server.stop('SIGINT');
      removeFolder();
    },
    crash: () => server.stop('SIGQUIT'),
    async start() {
      if (stopped) throw new Error('PostgreSQL was stopped and its folder removed; it cannot start again.');
      server = await serve(bin, as, root, data, port, maxConnections, options);
    },
  };
}

/**
 * Starts `postgres` on the cluster in `data` and resolves once it accepts connections; its `stop`
 * sends `signal` (SIGINT: a fast shutdown; SIGQUIT: an immediate one, as a crash, so the next start
 * recovers from the WAL) and resolves once it has exited. Throws, having stopped it, when it does
 * not answer within 30 s, with its output.
 */
async function serve(
  bin: string,
  as: { uid?: number; gid?: number },
  root: string,
  data: string,
  port: number,
  maxConnections: number,
  options: LaunchOptions,
): Promise<{ stop(signal: 'SIGINT' | 'SIGQUIT'): Promise<void> }> {
  const child = spawn(
    join(bin, 'postgres'),
    [
      '-D',
      data,
      '-p',
      String(port),
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'unix_socket_directories=',
      '-c',
      'fsync=off',
      // Off, a commit is acknowledged before its WAL is written, and an immediate shutdown loses it:
      // a cluster that is restarted under writers (durableCommits) keeps it on. fsync stays off,
      // since only the server restarts, never the machine under it.
      '-c',
      `synchronous_commit=${options.durableCommits ? 'on' : 'off'}`,
      '-c',
      'full_page_writes=off',
      '-c',
      `max_connections=${maxConnections}`,
    ],
    { ...as, cwd: root, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let output = '';
  // PostgreSQL logs this line once it accepts connections: the start is awaited on it.
  let announceReady: () => void;
  const announced = new Promise<void>((resolve) => (announceReady = resolve));
  child.stderr?.on('data', (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-4000);
    if (output.includes('ready to accept connections')) announceReady();
  });
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.once('error', (error) => {
      output += String(error);
      resolve();
    });
  });
  const stop = async (signal: 'SIGINT' | 'SIGQUIT') => {
    // SIGINT is PostgreSQL's fast shutdown: it ends the sessions and stops without waiting for them.
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    await exited;
  };
  let timer: NodeJS.Timeout | undefined;
  const started = await Promise.race([
    announced.then(() => 'ready' as const),
    exited.then(() => 'exited' as const),
    new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), 30_000))),
  ]);
  clearTimeout(timer);
  if (started !== 'ready') {
    await stop('SIGINT');
    throw new Error(`PostgreSQL did not start on port ${port} (${started === 'late' ? 'not within 30 s' : 'it exited'}):\n${output}`);
  }
  return { stop };
}

/**
 * Starts a throwaway PostgreSQL cluster of its own (launchPostgres), registered with the fixture
 * registry, which stops the server (fast shutdown) and removes its folder after the file, block or
 * test that started it: for a test of the cluster itself (its schema, roles and rights), or of a
 * restart (the run's shared cluster serves other files, so it cannot be restarted). Throws
 * when the binaries are missing or the server does not answer within 30 s, with its output.
 */
export async function startPostgres(options: Pick<LaunchOptions, 'durableCommits'> = {}): Promise<PostgresServer> {
  const { port, superuser, password, stop, crash, start } = await launchPostgres(options);
  registerFixture(`postgres :${port}`, stop);
  return {
    port,
    superuser,
    password,
    crash,
    start,
    async connect(login, secret, database = 'postgres') {
      // No 'error' listener: the registry ends clients before the server (later registrations
      // first), so an idle client's error means the server died under the test, which should be loud.
      const client = new Client({ host: '127.0.0.1', port, user: login, password: secret, database });
      await client.connect();
      return fixture(`postgres client ${login}`, client, (c) => c.end());
    },
  };
}

/** What a server on the run's PostgreSQL needs of it: where it is, and its superuser's and roles' passwords. */
interface SharedCluster {
  port: number;
  superuser: string;
  password: string;
  /** The passwords of DEFAULT_ROLES' owner and app roles, made once for the cluster. */
  owner: string;
  app: string;
}

export interface PostgresBroker {
  port: number;
  /** Stops the cluster, if one was started, and stops listening. */
  close(): Promise<void>;
}

/**
 * The run's PostgreSQL, started on demand: globalSetup starts this broker (a socket on 127.0.0.1 in
 * jest's own process), and the first test server that runs on PostgreSQL asks it, which starts one
 * cluster (launchPostgres) with the roles of docs/postgres.md; every later ask gets the same one.
 * A run without PostgreSQL cases starts none. Each asker reads one line of JSON (SharedCluster),
 * or `{"error": …}` when the cluster could not start.
 *
 * One cluster for the run instead of one for each server: an initdb and a server start cost about
 * two CPU-seconds, and the suite started some twenty. Each server still gets a database of its own
 * (startPostgresForServer), so no server sees another's rows, and two files never share one.
 */
export function startPostgresBroker(): Promise<PostgresBroker> {
  // The start's outcome, its failure kept as a value: every asker is answered with it, and close
  // knows there is nothing to stop.
  let cluster: Promise<{ launched: LaunchedPostgres; shared: SharedCluster } | { error: Error }> | undefined;
  const start = async () => {
    // Three files at a time, each with up to three servers and their pools and listeners.
    const launched = await launchPostgres({ maxConnections: 400 });
    const admin = new Client({ host: '127.0.0.1', port: launched.port, user: launched.superuser, password: launched.password });
    try {
      await admin.connect();
      const passwords = { owner: randomBytes(9).toString('hex'), app: randomBytes(9).toString('hex') };
      await createRoles(admin, DEFAULT_ROLES, passwords, 'postgres');
      return { launched, shared: { port: launched.port, superuser: launched.superuser, password: launched.password, ...passwords } };
    } catch (error) {
      await launched.stop();
      throw error;
    } finally {
      await admin.end();
    }
  };
  const ensure = () =>
    (cluster ??= start().catch((error: unknown) => ({ error: error instanceof Error ? error : new Error(String(error)) })));
  const server = createServer((socket) => {
    socket.on('error', () => {
      // The asker went away (its file failed or ended): nothing is owed to it.
    });
    void ensure().then((started) =>
      socket.end(`${JSON.stringify('error' in started ? { error: started.error.message } : started.shared)}\n`),
    );
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      if (address === null || typeof address === 'string') {
        reject(new Error('the PostgreSQL broker has no TCP address'));
        return;
      }
      resolve({
        port: address.port,
        async close() {
          await new Promise<void>((done) => server.close(() => done()));
          // A cluster that failed to start has nothing to stop (its error was every asker's answer).
          const started = await cluster;
          if (started && 'launched' in started) await started.launched.stop();
        },
      });
    });
  });
}

/** Asks the broker on `port` for the run's cluster; rejects with the broker's error, or if it cannot be reached. */
function askBroker(port: number): Promise<SharedCluster> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host: '127.0.0.1' });
    let answer = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (answer += chunk));
    socket.once('error', reject);
    socket.once('close', () => {
      try {
        const parsed = JSON.parse(answer) as SharedCluster | { error: string };
        if ('error' in parsed) reject(new Error(`The run's PostgreSQL did not start: ${parsed.error}`));
        else resolve(parsed);
      } catch {
        reject(new Error(`The PostgreSQL broker answered: ${JSON.stringify(answer)}`));
      }
    });
  });
}

/**
 * A new database in the run's PostgreSQL (started on the first ask, see startPostgresBroker), or in
 * a cluster of its own when the tests run without jest's globalSetup, with the settings a server
 * takes to run on it: DATABASE_URL as the server's role, bound by row-level security, and
 * DATABASE_OWNER_URL as the schema's owner, with which it applies the schema. The owner may create
 * in that database only; the database is dropped (its sessions ended) after the test, block or file
 * that asked for it, which comes after the server's own stop (registered later, disposed first).
 */
export async function startPostgresForServer(): Promise<ServerDatabase> {
  const brokerPort = Number(process.env.TEST_POSTGRES_BROKER_PORT);
  if (brokerPort > 0) return databaseIn(await askBroker(brokerPort));
  return (await startPostgresOfServer()).env;
}

/** The settings a server takes to run on a database (see startPostgresForServer). */
export interface ServerDatabase {
  DATABASE_URL: string;
  DATABASE_OWNER_URL: string;
}

/**
 * A cluster of its own (startPostgres, with `options`) with the roles of docs/postgres.md, and a
 * database in it for a server (`env`, as startPostgresForServer makes): for a test that restarts
 * PostgreSQL under a server, which the run's shared cluster cannot be for one file.
 */
export async function startPostgresOfServer(
  options: Pick<LaunchOptions, 'durableCommits'> = {},
): Promise<{ env: ServerDatabase; cluster: PostgresServer }> {
  const own = await startPostgres(options);
  // Ended here, not left open for the file: a restart would end it with an error nobody listens to.
  const admin = new Client({ host: '127.0.0.1', port: own.port, user: own.superuser, password: own.password });
  await admin.connect();
  const passwords = { owner: randomBytes(9).toString('hex'), app: randomBytes(9).toString('hex') };
  try {
    await createRoles(admin, DEFAULT_ROLES, passwords, 'postgres');
  } finally {
    await admin.end();
  }
  return { env: await databaseIn({ port: own.port, superuser: own.superuser, password: own.password, ...passwords }), cluster: own };
}

/** A new database in `cluster` for a server, dropped after the test, block or file (see startPostgresForServer). */
async function databaseIn(cluster: SharedCluster): Promise<ServerDatabase> {
  const database = `s_${randomBytes(6).toString('hex')}`;
  const admin = () => new Client({ host: '127.0.0.1', port: cluster.port, user: cluster.superuser, password: cluster.password });
  const create = admin();
  await create.connect();
  try {
    await create.query(`CREATE DATABASE ${escapeIdentifier(database)}`);
    registerFixture(`postgres database ${database}`, async () => {
      const drop = admin();
      await drop.connect();
      try {
        await drop.query(`DROP DATABASE IF EXISTS ${escapeIdentifier(database)} WITH (FORCE)`);
      } finally {
        await drop.end();
      }
    });
    await create.query(`GRANT CREATE, CONNECT ON DATABASE ${escapeIdentifier(database)} TO ${escapeIdentifier(DEFAULT_ROLES.owner)}`);
    await create.query(`GRANT CONNECT ON DATABASE ${escapeIdentifier(database)} TO ${escapeIdentifier(DEFAULT_ROLES.app)}`);
  } finally {
    await create.end();
  }
  const url = (user: string, password: string) => `postgres://${user}:${password}@127.0.0.1:${cluster.port}/${database}`;
  return { DATABASE_URL: url(DEFAULT_ROLES.app, cluster.app), DATABASE_OWNER_URL: url(DEFAULT_ROLES.owner, cluster.owner) };
}

/**
 * Every row of `tenantId` in every derived table of the database at `databaseUrl` (a server's
 * DATABASE_URL: its role sees the tenant's rows only), each with its table's name, in a stable
 * order: what a test compares before and after to see that nothing of the tenant changed.
 */
export async function rowsOfTenant(databaseUrl: string, tenantId: string): Promise<Record<string, unknown>[]> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return await withTenant(client, tenantId, async () => {
      const rows: Record<string, unknown>[] = [];
      const derived = deriveSchema(entities);
      for (const table of [...derived.tables, ...derived.storeTables]) {
        const out = await client.query(`SELECT * FROM ${escapeIdentifier(DEFAULT_ROLES.schema)}.${escapeIdentifier(table.name)}`);
        rows.push(...out.rows.map((row) => ({ table: table.name, ...row })));
      }
      return rows.sort((x, y) => JSON.stringify(x).localeCompare(JSON.stringify(y)));
    });
  } finally {
    await client.end();
  }
}
