import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, escapeIdentifier } from 'pg';
import { entities } from '../../src/common/entities';
import { freePort } from '../../src/infra/free-port';
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

/**
 * Starts a throwaway PostgreSQL cluster from the machine's binaries: initdb in a new temporary
 * folder, then `postgres` on a free 127.0.0.1 port (no Unix socket, no fsync), as `nobody` when
 * the tests run as root. The superuser logs in with a random password (scram-sha-256; no trust
 * login, so roles are really checked). Registered with the fixture registry, which stops the
 * server (fast shutdown) and removes the folder after the file, block or test that started it.
 * Throws when the binaries are missing or the server does not answer within 30 s, with its output.
 */
export async function startPostgres(): Promise<PostgresServer> {
  const bin = binDir();
  const user = serverUser();
  const root = mkdtempSync(join(tmpdir(), 'postgres-'));
  registerFixture(`folder ${root}`, () => rmSync(root, { recursive: true, force: true }));
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
  const port = await freePort();
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
      '-c',
      'synchronous_commit=off',
      '-c',
      'full_page_writes=off',
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
  registerFixture(`postgres :${port}`, async () => {
    // SIGINT is PostgreSQL's fast shutdown: it ends the sessions and stops without waiting for them.
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGINT');
    await exited;
  });

  const open = async (login: string, secret: string, database = 'postgres') => {
    // No 'error' listener: the registry ends clients before the server (later registrations
    // first), so an idle client's error means the server died under the test, which should be loud.
    const client = new Client({ host: '127.0.0.1', port, user: login, password: secret, database });
    await client.connect();
    return client;
  };
  let timer: NodeJS.Timeout | undefined;
  const started = await Promise.race([
    announced.then(() => 'ready' as const),
    exited.then(() => 'exited' as const),
    new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), 30_000))),
  ]);
  clearTimeout(timer);
  if (started !== 'ready')
    throw new Error(`PostgreSQL did not start on port ${port} (${started === 'late' ? 'not within 30 s' : 'it exited'}):\n${output}`);
  return {
    port,
    superuser,
    password,
    async connect(login, secret, database) {
      return fixture(`postgres client ${login}`, await open(login, secret, database), (client) => client.end());
    },
  };
}

/**
 * A new PostgreSQL (startPostgres) with the roles of docs/postgres.md made on its `postgres`
 * database, and the settings a server takes to run on it: DATABASE_URL as the server's role, bound by
 * row-level security, and DATABASE_OWNER_URL as the schema's owner, with which it applies the schema.
 */
export async function startPostgresForServer(): Promise<{ DATABASE_URL: string; DATABASE_OWNER_URL: string }> {
  const pg = await startPostgres();
  const admin = await pg.connect(pg.superuser, pg.password);
  const passwords = { owner: randomBytes(9).toString('hex'), app: randomBytes(9).toString('hex') };
  await createRoles(admin, DEFAULT_ROLES, passwords, 'postgres');
  const url = (user: string, password: string) => `postgres://${user}:${password}@127.0.0.1:${pg.port}/postgres`;
  return { DATABASE_URL: url(DEFAULT_ROLES.app, passwords.app), DATABASE_OWNER_URL: url(DEFAULT_ROLES.owner, passwords.owner) };
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
