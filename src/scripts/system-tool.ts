import { signDevToken } from '../auth/jwt';
import { entities } from '../common/entities';
import { loadConfig, type Config } from '../config';
import { CursorCodec } from '../infra/cursor';
import { createDynamo } from '../infra/dynamo/client';
import { DynamoStore } from '../infra/dynamo/store';
import { openPostgres } from '../infra/postgres/start';
import { ensureSystemProject } from '../system-jobs/runner';
import { Migrations } from '../migrations/migration.service';
import { systemJobsEnv, type ContextDeps } from '../wiring';
import { findRunningServer, operatorSigningSecret } from './running-server';

/*
 * Where the operators' tools for the server's own jobs (`npm run migrate`, `npm run verify-model`)
 * do their work. With a store of their own to reach (DATABASE_URL for PostgreSQL, DYNAMODB_ENDPOINT,
 * or AWS with TABLE_NAME) they work on it directly, as one more instance of the server's system-job
 * runner. With the
 * embedded default, whose DynamoDB Local belongs to the running development server (or with
 * `--url` of a server), they ask that server through its operator API (runMigrations, migrations,
 * modelDrift), with an operator development token signed like `npm run token -- --operator`'s.
 */

/** The store (a DynamoDB table, or PostgreSQL), reached directly. */
export interface TableTarget {
  kind: 'table';
  config: Config;
  deps: ContextDeps;
  migrations: Migrations;
  close(): Promise<void>;
}

/** The running development server, reached through its API. */
export interface ServerTarget {
  kind: 'server';
  url: string;
  /** Runs one GraphQL operation as an operator; throws with the first error's message and code. */
  request<T>(query: string, variables?: Record<string, unknown>): Promise<T>;
}

/**
 * The target of this run (see the top of this file): the server at `url` when given, else the
 * table when one is configured, else the running development server. Throws, saying what to do,
 * when there is none.
 */
export async function toolTarget(url?: string): Promise<TableTarget | ServerTarget> {
  const config = loadConfig();
  if (!url && config.postgres) {
    const postgres = openPostgres(config.postgres, entities, new CursorCodec(config.cursorSecret), { poolWaitMs: config.requestBudgetMs });
    try {
      // As a server starts on it: the schema applied with DATABASE_OWNER_URL, else checked (a
      // difference stops the tool, named), and the placeholder project the server's own jobs name.
      await postgres.ready();
      await ensureSystemProject(postgres.store, new Date());
    } catch (error) {
      await postgres.close();
      throw error;
    }
    // No outbox here, as on DynamoDB: the events of its writes wait in the outbox table for a server's sweeper.
    const deps: ContextDeps = {
      store: postgres.store,
      eventRetentionDays: config.eventRetentionDays,
      jobLeaseSeconds: config.jobLeaseSeconds,
    };
    return { kind: 'table', config, deps, migrations: new Migrations(systemJobsEnv(deps)), close: () => postgres.close() };
  }
  if (!url && !config.dynamo.embedded) {
    const dynamo = createDynamo({
      endpoint: config.dynamo.endpoint,
      region: config.dynamo.region,
      requestTimeoutMs: config.dynamo.requestTimeoutMs,
      connectTimeoutMs: config.connectTimeoutMs,
    });
    const store = new DynamoStore(dynamo.doc, config.tableName, new CursorCodec(config.cursorSecret));
    // No outbox here: the events of its writes wait in the outbox index for a server's sweeper.
    const deps: ContextDeps = { store, eventRetentionDays: config.eventRetentionDays, jobLeaseSeconds: config.jobLeaseSeconds };
    return {
      kind: 'table',
      config,
      deps,
      migrations: new Migrations(systemJobsEnv(deps)),
      close: async () => dynamo.client.destroy(),
    };
  }
  const server = url ? undefined : findRunningServer();
  const endpoint = url ?? server?.url;
  if (!endpoint)
    throw new Error(
      'No store to reach: start the server (npm start), pass --url of a running one, or set DATABASE_URL (PostgreSQL), DYNAMODB_ENDPOINT, or TABLE_NAME with AWS credentials.',
    );
  const token = await signDevToken(operatorSigningSecret(server), { sub: 'operator', operator: true }, { expiresIn: '1h' });
  return {
    kind: 'server',
    url: endpoint,
    async request<T>(query: string, variables: Record<string, unknown> = {}): Promise<T> {
      const response = await fetch(endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ query, variables }),
      });
      // The server's answer, as its schema says (JSON.parse types nothing; the schema is the contract).
      const body: { data?: T; errors?: { message: string; extensions?: { code?: string } }[] } = JSON.parse(await response.text());
      const error = body.errors?.[0];
      if (error) throw new Error(`${error.message} (${error.extensions?.code ?? response.status})`);
      if (!body.data) throw new Error(`The server answered ${response.status} without data.`);
      return body.data;
    },
  };
}
