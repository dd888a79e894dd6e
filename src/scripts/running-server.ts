import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join, resolve } from 'node:path';

/*
 * How the development tools (`npm run token`, `npm run worker:demo`, the codegen example) find a
 * running server without being told its port or data folder: while `npm start` runs, it writes
 * `server.json` into its data folder, and a pointer to that folder into a per-user folder under
 * the system's temporary directory, both removed when it stops. A server killed outright leaves
 * them behind; they name its process id, so a reader tells a live server from a dead one.
 *
 * This module uses nothing but Node itself, so the codegen example can import it as it is.
 */

/** What a running development server says about itself. */
export interface RunningServer {
  /** The GraphQL URL, with the port it really listens on (PORT=0 included). */
  url: string;
  /** The absolute data folder: its `dev-jwt-secret` signs the server's development tokens. */
  dataDir: string;
  /** Where the signing secret comes from: the data folder's file, or AUTH_JWT_SECRET (which is never written down). */
  secret: 'data-folder' | 'AUTH_JWT_SECRET';
  /** Where its operator secret comes from (see Config.auth.operator): the data folder's file, AUTH_OPERATOR_SECRET, or none (a JWKS). */
  operatorSecret?: 'data-folder' | 'AUTH_OPERATOR_SECRET' | 'none';
  pid: number;
  /** The folder `npm start` ran in: tools run in the same checkout prefer its servers. */
  cwd: string;
  /** The DynamoDB endpoint it uses (DynamoDB Local's when embedded; absent for AWS), for `npm run events:tail`. */
  dynamoEndpoint?: string;
  /** Its table. */
  tableName?: string;
}

export const SERVER_FILE = 'server.json';
const SECRET_FILE = 'dev-jwt-secret';
const OPERATOR_SECRET_FILE = 'dev-operator-secret';

const registryDir = () => join(tmpdir(), `artissist-${userInfo().uid}`);

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return error instanceof Error && 'code' in error && error.code === 'EPERM';
  }
}

function isRunningServer(value: unknown): value is RunningServer {
  if (typeof value !== 'object' || value === null) return false;
  const v: Record<string, unknown> = { ...value };
  return typeof v.url === 'string' && typeof v.dataDir === 'string' && typeof v.pid === 'number' && typeof v.cwd === 'string';
}

function read(file: string): RunningServer | undefined {
  try {
    const parsed: unknown = JSON.parse(readFileSync(file, 'utf8'));
    return isRunningServer(parsed) && alive(parsed.pid) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Records this process as the server of `dataDir` at `url` (the data folder must exist already:
 * nothing is created but the two small files). Returns the function that removes them again,
 * which never throws. A file that cannot be written or removed is told to `onFailure`, and the
 * server goes on.
 */
export function announceServer(server: Omit<RunningServer, 'pid' | 'cwd'>, onFailure: (error: unknown) => void): () => void {
  const me: RunningServer = { ...server, dataDir: resolve(server.dataDir), pid: process.pid, cwd: process.cwd() };
  const own = join(me.dataDir, SERVER_FILE);
  const pointer = join(registryDir(), `${process.pid}.json`);
  const written: string[] = [];
  try {
    if (existsSync(me.dataDir)) {
      writeFileSync(own, `${JSON.stringify(me, null, 2)}\n`);
      written.push(own);
    }
    mkdirSync(registryDir(), { recursive: true, mode: 0o700 });
    writeFileSync(pointer, `${JSON.stringify(me)}\n`);
    written.push(pointer);
  } catch (error) {
    // Only a convenience for the tools: a read-only folder must not stop the server, but the person
    // who then finds that `npm run token` does not see it is told why.
    onFailure(error);
  }
  return () => {
    for (const file of written) {
      try {
        rmSync(file, { force: true });
      } catch (error) {
        // A file left behind misleads no tool (read() checks that its pid is alive), but is told.
        onFailure(error);
      }
    }
  };
}

/**
 * The running development server a tool should talk to, or undefined when none runs:
 * the one of `DATA_DIR` when it is set (and no other); else the one of `./.data`; else the live
 * server started in this folder (npm runs every script in the package's folder, so `npm start`
 * and `npm run token` meet there). Throws when several were started here and nothing says which,
 * naming their data folders.
 */
export function findRunningServer(env: NodeJS.ProcessEnv = process.env): RunningServer | undefined {
  if (env.DATA_DIR) return read(join(resolve(env.DATA_DIR), SERVER_FILE));
  const local = read(join(resolve('.data'), SERVER_FILE));
  if (local) return local;
  let names: string[] = [];
  try {
    names = readdirSync(registryDir());
  } catch {
    return undefined;
  }
  const live: RunningServer[] = [];
  for (const name of names) {
    const server = read(join(registryDir(), name));
    if (server) live.push(server);
    // A pointer left by a server that was killed outright.
    else rmSync(join(registryDir(), name), { force: true });
  }
  const here = live.filter((s) => s.cwd === process.cwd());
  if (here.length > 1) {
    throw new Error(
      `Several servers are running (data folders ${here.map((s) => s.dataDir).join(', ')}): set DATA_DIR to the one you mean.`,
    );
  }
  return here[0];
}

/** Where a tool finds one of the server's HS256 secrets: its variable, its file in the data folder, and how server.json names its source. */
interface SecretSource {
  variable: 'AUTH_JWT_SECRET' | 'AUTH_OPERATOR_SECRET';
  file: string;
  source: (server: RunningServer) => string | undefined;
  /** What it is called in a message: "development signing secret". */
  name: string;
}

/** Reads the secret `from` names, creating nothing; throws, saying what to do, when there is none. */
function readSecret(from: SecretSource, server: RunningServer | undefined, env: NodeJS.ProcessEnv): Uint8Array {
  const given = env[from.variable];
  if (given) return new TextEncoder().encode(given);
  const source = server && from.source(server);
  if (server && source === from.variable)
    throw new Error(`The server at ${server.url} signs with ${from.variable}: set the same ${from.variable} here.`);
  if (server && source === 'none')
    throw new Error(`The server at ${server.url} has no ${from.name}: its tokens come from a JWKS, issued by your identity provider.`);
  const dataDir = server?.dataDir ?? resolve(env.DATA_DIR ?? '.data');
  const file = join(dataDir, from.file);
  if (!existsSync(file)) {
    throw new Error(
      `No ${from.name} in ${dataDir}: start the server first (npm start), set DATA_DIR to its data folder, or set ${from.variable}.`,
    );
  }
  return new TextEncoder().encode(readFileSync(file, 'utf8').trim());
}

/**
 * The HS256 secret a tool signs development tokens with, read without creating anything:
 * AUTH_JWT_SECRET when set; else the running server's data folder's; else the one in `DATA_DIR`
 * (or `./.data`) that a server left there. Throws, saying what to do, when there is none: a
 * missing secret is never generated here, so a tool leaves no stray data folder behind.
 */
export function signingSecret(server: RunningServer | undefined, env: NodeJS.ProcessEnv = process.env): Uint8Array {
  return readSecret(
    { variable: 'AUTH_JWT_SECRET', file: SECRET_FILE, source: (s) => s.secret, name: 'development signing secret' },
    server,
    env,
  );
}

/**
 * The HS256 secret a tool signs development operator tokens with (role operator; see
 * TokenVerifier), read as signingSecret reads the tenants' one: AUTH_OPERATOR_SECRET when set;
 * else the running server's data folder's `dev-operator-secret`; else the one in `DATA_DIR` (or
 * `./.data`). Throws, saying what to do, when there is none or the server takes a JWKS's.
 */
export function operatorSigningSecret(server: RunningServer | undefined, env: NodeJS.ProcessEnv = process.env): Uint8Array {
  return readSecret(
    { variable: 'AUTH_OPERATOR_SECRET', file: OPERATOR_SECRET_FILE, source: (s) => s.operatorSecret, name: 'development operator secret' },
    server,
    env,
  );
}

/**
 * The secret a tool that only signs (`npm run token`) uses: AUTH_JWT_SECRET as it is, without
 * looking for a server at all (so several running servers are no reason to refuse), else the
 * running server's, as `signingSecret` finds it. Throws what `findRunningServer` and
 * `signingSecret` throw.
 */
export function secretToSignWith(env: NodeJS.ProcessEnv = process.env): Uint8Array {
  return signingSecret(env.AUTH_JWT_SECRET ? undefined : findRunningServer(env), env);
}
