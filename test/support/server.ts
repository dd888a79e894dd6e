import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { print } from 'graphql';
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { startApp, type App } from '../../src/app';
import { DynamoStore } from '../../src/infra/dynamo/store';
import { PgStore } from '../../src/infra/postgres/store';
import type { ArchiveManifest } from '../../src/archive/archive.format';
import { signDevToken } from '../../src/auth/jwt';
import { Role } from '../../src/auth/principal';
import { loadConfig, type Config } from '../../src/config';
import { createTable, dropTable, testDynamoEnv, testEndpoint } from './dynamo';
import { registerFixture } from './fixtures';
import { keepAliveClient } from './http-client';
import { startPostgresForServer } from './postgres';
import { waitFor } from './wait';

export const TEST_SECRET = 'test-secret-0123456789abcdef0123456789';

/**
 * The settings of a production server against the run's DynamoDB Local: its table `tableName` is
 * only checked, never made, and S3 is never called at start-up, so a start-up stands or fails on the
 * table and the port alone; `overrides` replace any of them.
 */
export function productionEnv(tableName: string, dataDir: string, overrides: Record<string, string> = {}): Record<string, string> {
  return {
    NODE_ENV: 'production',
    HOST: '127.0.0.1',
    PORT: '0',
    DATA_DIR: dataDir,
    ...testDynamoEnv(),
    TABLE_NAME: tableName,
    S3_BUCKET: 'artissist-test',
    S3_ENDPOINT: 'http://127.0.0.1:9',
    AUTH_JWT_SECRET: TEST_SECRET,
    CURSOR_SECRET: 'test-cursor-secret',
    DYNAMODB_TIMEOUT_MS: '10000',
    LOG_LEVEL: 'silent',
    ...overrides,
  };
}
/** The test servers' operator issuer (AUTH_OPERATOR_SECRET): the only key that signs a valid operator token. */
export const TEST_OPERATOR_SECRET = 'test-operator-secret-0123456789abcdef';

/** A platform operator's token for the test servers and instances (role operator, no tenant), signed by the operator issuer. */
export const testOperatorToken = (sub = 'operator') =>
  signDevToken(new TextEncoder().encode(TEST_OPERATOR_SECRET), { sub, operator: true });

export interface GraphQLResult<T> {
  data?: T | null;
  errors?: Array<{ message: string; path?: string[]; extensions?: Record<string, any> }>;
}

export interface TestServer {
  app: App;
  config: Config;
  url: string;
  /** A token for `tenantId` with `roles` (editor by default), signed by the tenants' issuer. */
  token(tenantId: string, roles?: Role[], sub?: string): Promise<string>;
  /** A platform operator's token (role operator, no tenant), signed by the operator issuer. */
  operatorToken(sub?: string): Promise<string>;
  /** Sends a typed document over real HTTP and returns the parsed body. */
  request<T, V>(document: TypedDocumentNode<T, V>, variables: V, token?: string | null): Promise<GraphQLResult<T>>;
  /** Sends raw text as the query. */
  raw(body: unknown, token?: string | null, headers?: Record<string, string>): Promise<{ status: number; body: any }>;
  /**
   * Starts counting the server's DynamoDB calls (`app.calls`) afresh, once the outbox is done with
   * what earlier writes published: it takes each published event out of the outbox with a call of
   * its own after the write answered, which on a busy machine could land in the count of whatever
   * the test does next.
   */
  resetCalls(): Promise<void>;
  /**
   * Stops the server now, for a test of what stopping does. The fixture registry stops it after
   * the file anyway: no test calls this to clean up.
   */
  stop(): Promise<void>;
}

/**
 * A quick outbox sweeper, for a test of a lost publish (one the sweeper must deliver) that should not
 * wait the production pace (a sweep every 2 s of events over 3 s old). A test server sweeps only
 * when its test asks (this, or an OUTBOX_SWEEP_MS of its own; see startTestServer): a sweep is a
 * Query on each of 4 outbox shards (of 16, in turn), and at 5 sweeps a second an idle test server cost a freshly
 * started DynamoDB Local 2.3 CPU-s in 10 s, against 0.17.
 */
export const QUICK_OUTBOX_SWEEP = { OUTBOX_SWEEP_MS: '200', OUTBOX_GRACE_MS: '300' } as const;

/** The stores a server runs on; a contract test runs its cases on each (`describe.each(STORES)`). */
export const STORES = ['dynamodb', 'postgres'] as const;
export type StoreName = (typeof STORES)[number];

/**
 * Starts the real server in this process on a free 127.0.0.1 port, against the run's DynamoDB
 * Local and a new table. It is registered with the fixture registry (test/support/fixtures.ts),
 * which stops it and drops its table after the test file.
 */
export async function startTestServer(
  options: {
    env?: Record<string, string>;
    batchLoads?: boolean;
    /** False: list reads return whole items whatever the query selects (see ContextDeps.projectReads). */
    projectReads?: boolean;
    failPublish?: (event: Record<string, any>) => boolean;
    /** The requests' clock (Scope.now), for tests of rules bound in time; the wall clock when omitted. */
    now?: () => Date;
    /** Called between an archive's export and its removal (a throw: a crash there). */
    afterArchiveExport?: (manifest: ArchiveManifest) => void | Promise<void>;
    /**
     * The store it runs on: the run's DynamoDB Local, or a PostgreSQL of its own (see STORES). By
     * default DynamoDB, unless TEST_STORE=postgres, which runs any test file's servers on PostgreSQL.
     * With `env.DATABASE_URL` it runs on that PostgreSQL instead of one of its own.
     */
    store?: StoreName;
  } = {},
): Promise<TestServer> {
  const store: StoreName = options.store ?? (process.env.TEST_STORE === 'postgres' ? 'postgres' : 'dynamodb');
  // The embedded S3 keeps its files here; the folder goes when the server stops.
  const dataDir = mkdtempSync(join(tmpdir(), 'artissist-test-'));
  registerFixture(`data folder ${dataDir}`, () => rmSync(dataDir, { recursive: true, force: true }));
  const config = loadConfig({
    NODE_ENV: 'test',
    DATA_DIR: dataDir,
    PORT: '0',
    HOST: '127.0.0.1',
    ...testDynamoEnv(),
    TABLE_NAME: `t_${randomUUID().slice(0, 8)}`,
    AUTH_JWT_SECRET: TEST_SECRET,
    AUTH_OPERATOR_SECRET: TEST_OPERATOR_SECRET,
    CURSOR_SECRET: 'test-cursor-secret',
    // DynamoDB Local on a busy 2-core machine can take seconds to answer a burst; the production
    // defaults (2 s an attempt, 5 s a request) would turn that into SERVICE_UNAVAILABLE in tests
    // that are not about timeouts. Tests of timeouts and outages set their own values.
    DYNAMODB_TIMEOUT_MS: '10000',
    REQUEST_BUDGET_MS: '30000',
    // No change stream unless the test asks for one (see test/support/environment.ts).
    TABLE_STREAM: process.env.TABLE_STREAM ?? 'off',
    // No outbox sweep unless the test asks for one (QUICK_OUTBOX_SWEEP, or a pace of its own): the
    // writer publishes each event it commits, and a test whose publishes must be lost (failPublish,
    // Redis stopped) sets the sweeper's pace. At the production pace (4 Queries every 2 s) four idle
    // servers cost DynamoDB Local 0.9-1.9 CPU-s in 15 s, against 0.25-0.3 without it, and the
    // suite's servers stay up for some thousands of seconds in all.
    OUTBOX_SWEEP_MS: '3600000',
    // A PostgreSQL of its own, unless the test names one (a second instance on another's database).
    ...(store === 'postgres' && !options.env?.DATABASE_URL ? await startPostgresForServer() : {}),
    ...options.env,
  });
  // A production server only checks its table: here the test makes it, as the deploy template would.
  if (config.postgres) {
    // The server applies the schema itself (DATABASE_OWNER_URL); its PostgreSQL goes with the test's fixtures.
  } else if (!config.dynamo.createTable) await createTable(config.tableName, { stream: config.dynamo.stream });
  // A table the app makes itself in the run's DynamoDB Local goes too (createTable registers its own).
  else if (config.dynamo.endpoint === testEndpoint()) registerFixture(`table ${config.tableName}`, () => dropTable(config.tableName));
  const app = await startApp(config, {
    batchLoads: options.batchLoads,
    projectReads: options.projectReads,
    failPublish: options.failPublish,
    now: options.now,
    afterArchiveExport: options.afterArchiveExport,
  });
  const stop = registerFixture(`test server ${app.url}`, () => app.stop());
  // A contract test's case on PostgreSQL must run on it, not fall back to the default.
  if ((store === 'postgres') !== app.store instanceof PgStore) throw new Error(`The server does not run on ${store}.`);
  const secret = new TextEncoder().encode(TEST_SECRET);
  const post = keepAliveClient();
  const raw = async (body: unknown, token?: string | null, headers: Record<string, string> = {}) => {
    const res = await post(app.url, typeof body === 'string' ? body : JSON.stringify(body), {
      'content-type': 'application/json',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...headers,
    });
    const text = res.text;
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // Not JSON: the test looks at the text.
    }
    return { status: res.status, body: parsed };
  };
  return {
    app,
    config,
    url: app.url,
    token: (tenantId, roles = [Role.EDITOR], sub = `user-${tenantId}`) => signDevToken(secret, { sub, tenantId, roles }),
    operatorToken: testOperatorToken,
    async request(document, variables, token) {
      return (await raw({ query: print(document), variables }, token)).body as GraphQLResult<any>;
    },
    raw,
    async resetCalls() {
      await waitFor(
        async () => app.outbox.held === 0,
        () => `the outbox still holds ${app.outbox.held} publications`,
        { everyMs: 5 },
      );
      app.calls.reset();
    },
    stop,
  };
}

/** The data of a result, failing the test with the errors when there are any. */
export function dataOf<T>(result: GraphQLResult<T>): T {
  if (result.errors?.length || !result.data) throw new Error(`GraphQL errors: ${JSON.stringify(result.errors)}`);
  return result.data;
}

/** The `extensions.code` of the first error. */
export function codeOf(result: GraphQLResult<unknown>): string | undefined {
  return result.errors?.[0]?.extensions?.code;
}

export { Role };

export interface Connection<N> {
  nodes: N[];
  pageInfo: { endCursor?: string | null; hasNextPage: boolean };
}

/** Follows endCursor until the last page; returns every node and each page's size. */
export async function allPages<N>(fetchPage: (after: string | null) => Promise<Connection<N>>): Promise<{ nodes: N[]; sizes: number[] }> {
  const nodes: N[] = [];
  const sizes: number[] = [];
  let after: string | null = null;
  for (let guard = 0; guard < 1000; guard++) {
    const page: Connection<N> = await fetchPage(after);
    nodes.push(...page.nodes);
    sizes.push(page.nodes.length);
    if (!page.pageInfo.hasNextPage) return { nodes, sizes };
    after = page.pageInfo.endCursor ?? null;
  }
  throw new Error('More than 1000 pages: the cursor does not advance.');
}

/**
 * The DynamoDB document client of a server running on DynamoDB, for a test that reads what the table
 * holds or watches the requests sent. Throws for a server on another store: such a test is DynamoDB's own.
 */
export function dynamoDocOf(app: App): DynamoDBDocumentClient {
  if (!(app.store instanceof DynamoStore)) throw new Error('This server does not run on DynamoDB.');
  return app.store['doc'];
}
