import { Client, Pool, TypeOverrides } from 'pg';
import { logger } from '../../logger';
import type { AnyModel } from '../dynamo/entity';
import type { CursorCodec } from '../cursor';
import { applySchema, schemaDrift } from './apply';
import { EntityTables } from './items';
import { deriveSchema } from './schema';
import { DownstreamRelay } from './downstream';
import { indexKeyFill, PgStore } from './store';

/*
 * The PostgreSQL store as the server starts it (DATABASE_URL; src/app.ts): a pool of the server's
 * connections, the schema applied or checked, a readiness probe, and the pool's end at stop.
 */

/** What the server holds of its PostgreSQL. */
export interface Postgres {
  store: PgStore;
  /** What the event bus through LISTEN/NOTIFY takes (see createEventBus): the pool it notifies on, the URL it listens with, the schema. */
  bus: { url: string; pool: Pool; schema: string };
  /**
   * Applies the derived schema with the owner's connection (DATABASE_OWNER_URL) and resolves
   * 'applied'; without one, checks the database against it and resolves 'verified', or throws naming
   * every difference (as verifyTable refuses a table that lacks an index).
   */
  ready(): Promise<'applied' | 'verified'>;
  /** The relay of events downstream, when DOWNSTREAM_URL is set (started and stopped by the app). */
  downstream?: DownstreamRelay;
  /** Resolves once PostgreSQL answers a query on one of the pool's connections. */
  probe(signal: AbortSignal): Promise<void>;
  /** Ends the pool's connections. */
  close(): Promise<void>;
}

/** A `date` column as its text (`2026-01-01`), as the item holds it, never a Date at local midnight. */
const DATE_OID = 1082;
const parsers = new TypeOverrides();
parsers.setTypeParser(DATE_OID, (value: string) => value);

export function openPostgres(
  settings: { url: string; ownerUrl?: string; downstream?: { url: string; retryMs: number; pollMs: number } },
  models: Readonly<Record<string, AnyModel>>,
  cursors: CursorCodec,
  options: { poolWaitMs: number; now?: () => number },
): Postgres {
  const derived = deriveSchema(models);
  // The pool's bound covers both opening a connection and waiting for a busy pool's next free one,
  // so it is a request's whole budget, not a TCP connect's: a burst waits its turn instead of failing.
  const pool = new Pool({ connectionString: settings.url, connectionTimeoutMillis: options.poolWaitMs, types: parsers });
  // An idle connection's error (the server restarted) is the pool's to drop; the next query connects anew.
  pool.on('error', () => {});
  const tables = new EntityTables(models, derived);
  const store = new PgStore(pool, tables, derived.roles.schema, cursors, options.now, Boolean(settings.downstream));
  return {
    store,
    downstream: settings.downstream ? new DownstreamRelay(pool, derived.roles.schema, settings.downstream) : undefined,
    bus: { url: settings.url, pool, schema: derived.roles.schema },
    async ready() {
      if (settings.ownerUrl) {
        const owner = new Client({ connectionString: settings.ownerUrl, connectionTimeoutMillis: options.poolWaitMs });
        await owner.connect();
        try {
          await applySchema(owner, derived, indexKeyFill(tables, derived.roles.schema));
        } finally {
          await owner.end();
        }
        return 'applied';
      }
      const client = await pool.connect();
      try {
        const drift = await schemaDrift(client, derived);
        if (drift.length > 0) throw new Error(`The PostgreSQL schema differs from the declarations: ${drift.join('; ')}.`);
      } finally {
        client.release();
      }
      return 'verified';
    },
    async probe(signal) {
      const answered = pool.query('SELECT 1');
      // A query that fails before the probe gives up fails the probe (the race below); one that
      // fails after it (the signal aborted first) is told here, or nobody would see it.
      answered.catch((err) => {
        if (signal.aborted) logger.warn({ err }, 'a PostgreSQL readiness query failed after its probe gave up');
      });
      await Promise.race([
        answered,
        new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true })),
      ]);
    },
    close: () => pool.end(),
  };
}
