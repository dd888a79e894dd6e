import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { Client, escapeIdentifier } from 'pg';
import { createRoles } from '../src/infra/postgres/apply';
import { DEFAULT_ROLES } from '../src/infra/postgres/schema';
import { launchPostgres } from '../test/support/postgres';
import { cpuMsOf } from './support';

/** A database of the bench's PostgreSQL, with what a server and a peer need to reach it. */
export interface BenchDatabase {
  /** The server's role (`artissist_app`, bound by row-level security). */
  url: string;
  /** The schema's owner, with which a development server applies the derived schema. */
  ownerUrl: string;
}

/** The bench's PostgreSQL cluster: its databases, its processes' CPU, and its stop. */
export interface BenchPostgres {
  /** A new database for one line, with the roles of docs/postgres.md allowed into it. */
  database(): Promise<BenchDatabase>;
  /** CPU time (ms, user + system) the cluster's processes have used so far (see clusterCpuMs). */
  cpuMs(): number;
  stop(): Promise<void>;
}

/**
 * Starts a throwaway PostgreSQL cluster for the bench's PostgreSQL rows, as the tests start theirs
 * (test/support/postgres.ts: a temporary folder, a free port, no fsync and commits acknowledged
 * before their WAL is written, so that it is compared with an in-memory DynamoDB Local on equal
 * terms), with the two roles a server runs with. Not pinned: like DynamoDB Local, it may use both
 * cores. Throws when the machine has no PostgreSQL server binaries (Debian's `postgresql`).
 */
export async function startBenchPostgres(): Promise<BenchPostgres> {
  const launched = await launchPostgres({ maxConnections: 200 });
  const admin = () => new Client({ host: '127.0.0.1', port: launched.port, user: launched.superuser, password: launched.password });
  const passwords = { owner: randomBytes(9).toString('hex'), app: randomBytes(9).toString('hex') };
  let postmaster: number;
  const setup = admin();
  try {
    await setup.connect();
    await createRoles(setup, DEFAULT_ROLES, passwords, 'postgres');
    // The session's backend is a child of the postmaster: its parent is the cluster's root process.
    const backend = (await setup.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0].pid;
    postmaster = parentOf(backend);
  } catch (error) {
    await setup.end().catch(() => undefined);
    await launched.stop();
    throw error;
  }
  await setup.end();
  return {
    async database() {
      const name = `bench_${randomBytes(4).toString('hex')}`;
      const client = admin();
      await client.connect();
      try {
        await client.query(`CREATE DATABASE ${escapeIdentifier(name)}`);
        await client.query(`GRANT CREATE, CONNECT ON DATABASE ${escapeIdentifier(name)} TO ${escapeIdentifier(DEFAULT_ROLES.owner)}`);
        await client.query(`GRANT CONNECT ON DATABASE ${escapeIdentifier(name)} TO ${escapeIdentifier(DEFAULT_ROLES.app)}`);
      } finally {
        await client.end();
      }
      const url = (user: string, password: string) => `postgres://${user}:${password}@127.0.0.1:${launched.port}/${name}`;
      return { url: url(DEFAULT_ROLES.app, passwords.app), ownerUrl: url(DEFAULT_ROLES.owner, passwords.owner) };
    },
    cpuMs: () => clusterCpuMs(postmaster),
    stop: () => launched.stop(),
  };
}

/** The parent process id of `pid`, from /proc. */
function parentOf(pid: number): number {
  // Field 4 of stat, counted after the command's closing parenthesis (a command may hold spaces).
  return Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')[1]);
}

/**
 * CPU time (ms) of the postmaster and of every process it started (its backends, one per session,
 * and its background workers), as now. A session that ended takes its CPU with it, so a window is
 * read while the servers' pools keep their sessions open.
 */
function clusterCpuMs(postmaster: number): number {
  let total = cpuMsOf(postmaster);
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cpu = parentOf(Number(entry)) === postmaster ? cpuMsOf(Number(entry)) : 0;
      if (Number.isFinite(cpu)) total += cpu;
    } catch {
      // The process ended between the listing and the read: what it used is gone with it.
    }
  }
  return total;
}
