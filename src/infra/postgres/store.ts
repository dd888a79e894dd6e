import { type ClientBase, DatabaseError, escapeIdentifier as ident, type Pool } from 'pg';
import { AppError, ErrorCode } from '../../errors';
import { type CursorCodec, invalidCursor } from '../cursor';
import { lazyCursor, Page, type PageRequest, pageShape } from '../dynamo/page';
import { keySchemas, TTL_ATTRIBUTE, type Key } from '../dynamo/table';
import { tenantOfPk } from '../dynamo/entity';
import { isRecord } from '../../guards';
import { type Item, keyedItem, OUTBOX_ENTRY, type Write } from '../dynamo/write';
import { keyOrder, listPage, mergedPage, queryFingerprint } from '../pages';
import { keyString, type OrderedList, type Projection, type QuerySpec, type StoreApi, type TransactOutcome } from '../store-api';
import { classify, isOutage, serviceUnavailable } from '../dependency';
import { type IndexKeyFill, withCrossTenantRead, withTenant } from './apply';
import { onConnection, postgresOutcome } from './outcome';
import { type EntityTable, type EntityTables, type Field, lexeme, type TableQuery } from './items';
import { downstreamEnvelope } from './downstream';
import { CROSS_TENANT_SETTING, DOWNSTREAM_TABLE, OUTBOX_TABLE, SEARCH_KEYS_FUNCTION, SEARCH_VECTOR, TENANT_SETTING } from './schema';

/*
 * The store on PostgreSQL: the store interface over the tables derived from the entity
 * declarations (schema.ts), one row an item (items.ts). Every statement runs in a transaction whose
 * tenant is set for row-level security (withTenant), the tenant taken from the key or query, which
 * begins with it. docs/postgres.md says what it serves and what not yet.
 *
 * Transactions run at READ COMMITTED with row locks: every row a transaction writes or checks is
 * read FOR UPDATE first (in one fixed order, so two transactions never wait on each other in a
 * circle), each write's condition is tested on the locked row by the same rule DynamoDB applies
 * (Write.holdsFor), and only then are the rows written. A row that did not exist cannot be locked:
 * two transactions that both found it absent both INSERT, the second fails on the primary key, and
 * the whole transaction is retried, when it sees the row and tests its condition again. A DynamoDB
 * transaction conditions only the items it names, never a range, so locking exactly those rows gives
 * the same guarantee without SERIALIZABLE's aborts of transactions that merely read near each other.
 */

/** Attempts of a transaction that lost a race on a new row (or a deadlock) before CONFLICT, as on DynamoDB. */
const MAX_TX_ATTEMPTS = 8;
/** The most rows one query reads from one table: a partition larger than this is refused, never cut. */
const MAX_PARTITION_ROWS = 10_000;
/** PostgreSQL's codes of a lost race: unique_violation (a row inserted meanwhile), serialization_failure, deadlock_detected. */
const RACE_CODES = new Set(['23505', '40001', '40P01']);
/** PostgreSQL's code of a foreign key that found no referred row (checked at commit: the keys are deferred). */
const FOREIGN_KEY_VIOLATION = '23503';

/**
 * True when a statement failed because its connection or the server went away, not because of
 * what it asked: PostgreSQL's own word for that (postgresOutcome), or a socket error's code. A
 * plain error without a code (a fault of the server's own code) is not an outage, and stays one.
 */
function connectionLost(error: unknown): boolean {
  if (error instanceof DatabaseError) return isOutage(postgresOutcome(error));
  const outcome = classify(error);
  return outcome === 'unreachable' || outcome === 'timeout';
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const backoff = (attempt: number) => Math.min(1000, 20 * 2 ** attempt) * (0.5 + Math.random());

/** A write's condition failed: the transaction is rolled back, and `commit` says which and on what. */
class ConditionFailed extends Error {
  constructor(
    readonly write: Write,
    readonly current: Item | undefined,
  ) {
    super('A condition failed.');
  }
}

/** Where a keyed index's read starts (after this sort key, in the order of reading) and how many rows it takes at most. */
interface KeyedBound {
  after?: string;
  limit?: number;
}

type Comparison = '<' | '<=' | '>' | '>=';

/**
 * A comparison of a key with `value` as PostgreSQL's text can hold it, which has no NUL: a bound that
 * holds one (the least key above a key `k` is `k` and a NUL, as a reader of a range writes it) is cut
 * at the NUL, and since no key holds a NUL, `key >= k\0…` and `key > k\0…` are `key > k`, and
 * `key <= k\0…` and `key < k\0…` are `key <= k`. Any other value is compared as it is.
 */
function textBound(op: Comparison, value: string): [string, Comparison] {
  const nul = value.indexOf('\u0000');
  if (nul < 0) return [value, op];
  return [value.slice(0, nul), op === '>=' || op === '>' ? '>' : '<='];
}

/**
 * The least text above every text that starts with `prefix`, in byte order: its last character
 * moved on by one. Undefined when that character is a surrogate (the successor would not be the
 * next in UTF-8's order), where the prefix is tested as such.
 */
function prefixEnd(prefix: string): string | undefined {
  const last = prefix.charCodeAt(prefix.length - 1);
  if (prefix === '' || (last >= 0xd800 && last <= 0xdfff) || last === 0xffff) return undefined;
  return `${prefix.slice(0, -1)}${String.fromCharCode(last + 1)}`;
}

/** Rows a fill of index keys reads at a time. */
const FILL_BATCH = 500;

/**
 * The fill of a table's keyed index key columns for applySchema (IndexKeyFill), by the models'
 * code: every row, read across tenants in primary-key order, FILL_BATCH at a time, gets its keys
 * written (EntityTable.indexKeysOf of the item it reads as) under its own tenant's setting, since
 * row-level security binds the schema's owner too. Runs in the caller's transaction.
 */
export function indexKeyFill(tables: EntityTables, schema: string): IndexKeyFill {
  return async (client, def) => {
    const table = tables.tables.find((t) => t.def === def);
    if (!table) throw new Error(`No entity's table is ${def.name}.`);
    const name = `${ident(schema)}.${ident(table.name)}`;
    const key = ['tenant_id', ...table.keyFields.map((f) => f.column.name)];
    const keyList = key.map(ident).join(', ');
    let after: unknown[] | undefined;
    for (;;) {
      await client.query('SELECT set_config($1, $2, true)', [CROSS_TENANT_SETTING, 'read']);
      const where = after ? ` WHERE (${keyList}) > (${key.map((_, i) => `$${i + 1}`).join(', ')})` : '';
      const { rows } = await client.query(`SELECT * FROM ${name}${where} ORDER BY ${keyList} LIMIT ${FILL_BATCH}`, after ?? []);
      await client.query('SELECT set_config($1, $2, true)', [CROSS_TENANT_SETTING, '']);
      for (const row of rows) {
        const tenantId = String(row.tenant_id);
        const keys = Object.entries(table.indexKeysOf(table.itemOf(row), tenantId));
        await client.query('SELECT set_config($1, $2, true)', [TENANT_SETTING, tenantId]);
        await client.query(
          `UPDATE ${name} SET ${keys.map(([column], i) => `${ident(column)} = $${i + 1}`).join(', ')}
            WHERE ${key.map((column, i) => `${ident(column)} = $${keys.length + i + 1}`).join(' AND ')}`,
          [...keys.map(([, value]) => value), ...key.map((column) => row[column])],
        );
      }
      if (rows.length < FILL_BATCH) return;
      after = key.map((column) => rows[rows.length - 1][column]);
    }
  };
}

/** A query PostgreSQL orders itself (EntityTables.ordered). */
type Ordered = { plan: TableQuery; order: Field[] };

/** One write of a transaction with how its row is locked and read, and how it is written. */
interface Target {
  write: Write;
  tenantId: string;
  /** Orders the locks of a transaction (see commit). */
  lockId: string;
  read(client: ClientBase): Promise<Item | undefined>;
  /** Writes the row; a new item that goes downstream is added to `created`. */
  save(client: ClientBase, current: Item | undefined, created: Item[]): Promise<void>;
}

/** One write of a transaction, routed to its table. */
interface Routed {
  write: Write;
  table: EntityTable;
  tenantId: string;
  values: unknown[];
}

export class PgStore implements StoreApi {
  /** Search reads the tables' tsvector column (searchByWord); no word items are written. */
  readonly indexesText = true;

  constructor(
    private readonly pool: Pool,
    private readonly tables: EntityTables,
    private readonly schema: string,
    private readonly cursors: CursorCodec,
    private readonly now: () => number = Date.now,
    /**
     * Queue each new event of a downstream stream in its own transaction (DOWNSTREAM_TABLE), for
     * the relay to send (DOWNSTREAM_URL; src/infra/postgres/downstream.ts). Off, nothing is queued,
     * as a DynamoDB table without its stream records nothing.
     */
    private readonly queueDownstream = false,
  ) {}

  private q(table: EntityTable): string {
    return `${ident(this.schema)}.${ident(table.name)}`;
  }

  /** `item` unless it is past its expiry, which DynamoDB's TTL would remove (lazily, as here). */
  private live(item: Item | undefined): Item | undefined {
    const expires = item?.[TTL_ATTRIBUTE];
    return typeof expires === 'number' && expires <= Math.floor(this.now() / 1000) ? undefined : item;
  }

  /**
   * Runs `work` in a transaction of `tenantId` on a pooled connection. A connection that failed
   * (not a statement PostgreSQL refused) is dropped from the pool rather than handed to the next
   * user. An outage (no connection within the pool's bound, a connection lost, a server shutting
   * down, restarting or recovering) throws SERVICE_UNAVAILABLE with Retry-After, as DynamoDB's
   * does: a commit whose answer was lost may or may not have happened, which a client's retry
   * with the same idempotency key or expected version settles. Anything else is rethrown as it is.
   */
  private async inTenant<T>(tenantId: string | undefined, work: (client: ClientBase) => Promise<T>): Promise<T> {
    // No connection within the pool's bound (PostgreSQL down, or every connection busy): an outage, told as one.
    const client = await this.pool.connect().catch((error: unknown) => {
      throw serviceUnavailable('postgres', postgresOutcome(error), error);
    });
    return onConnection(
      client,
      // No tenant: a read of an index declared across tenants (EntityTables.plan), read-only.
      (c) => (tenantId === undefined ? withCrossTenantRead(c, work) : withTenant(c, tenantId, work)),
      (error, lost) => {
        const known = error instanceof DatabaseError || error instanceof AppError || error instanceof ConditionFailed;
        const outage = lost !== undefined || connectionLost(error);
        // A connection whose server went away (57P01 and the like are DatabaseErrors too) is not handed on.
        return { broke: outage || !known, error: outage ? serviceUnavailable('postgres', postgresOutcome(lost ?? error), error) : error };
      },
    );
  }

  /** The WHERE of one row of `table` by its key values, its parameters numbered from `from`. */
  private keyWhere(table: EntityTable, from: number): string {
    return ['tenant_id', ...table.keyFields.map((f) => f.column.name)].map((c, i) => `${ident(c)} = $${from + i}`).join(' AND ');
  }

  private async readRow(
    client: ClientBase,
    table: EntityTable,
    tenantId: string,
    values: unknown[],
    lock = false,
  ): Promise<Item | undefined> {
    const out = await client.query(`SELECT * FROM ${this.q(table)} WHERE ${this.keyWhere(table, 1)}${lock ? ' FOR UPDATE' : ''}`, [
      tenantId,
      ...values,
    ]);
    return out.rows[0] ? table.itemOf(out.rows[0]) : undefined;
  }

  /**
   * The items of `models` of `tenantId` with a word that starts with `word`: each table read by its
   * tsvector (`@@ 'word':*`) in one transaction, with how many of each row's words start with it, at
   * most `limit` + 1 rows a table. BAD_USER_INPUT when more than `limit` words of them all start
   * with it: the bound the word items' query has on DynamoDB. The search index's GIN index serves it,
   * through the owner's function (schema.ts, SEARCH_INDEX; docs/postgres.md).
   */
  async searchByWord(tenantId: string, types: readonly string[], word: string, limit: number): Promise<Item[]> {
    const tables = this.tables.tables.filter((table) => table.model.search && types.includes(table.model.type));
    const rows = await this.inTenant(tenantId, async (client) => {
      const found: { table: EntityTable; row: Record<string, unknown> }[] = [];
      let words = 0;
      for (const table of tables) {
        // The keys of the rows with the word, from the search index through the owner's function
        // (its GIN index serves it, which row-level security keeps from a query of the table itself),
        // then those rows by their primary key under the table's own policy.
        const key = table.keyFields.map(
          (f, i) => `t.${ident(f.column.name)} = s.item_key[${i + 1}]${f.column.type === 'text' ? '' : `::${f.column.type}`}`,
        );
        const out = await client.query(
          `SELECT t.*, (SELECT count(*) FROM unnest(t.${ident(SEARCH_VECTOR)}) AS w WHERE starts_with(w.lexeme, $2)) AS leading_words
           FROM ${ident(this.schema)}.${ident(SEARCH_KEYS_FUNCTION)}($5, $3::tsquery, $4) AS s (item_key)
           JOIN ${this.q(table)} AS t ON t.tenant_id = $1${key.map((k) => ` AND ${k}`).join('')}`,
          [tenantId, word, `${lexeme(word)}:*`, limit + 1, table.name],
        );
        for (const row of out.rows) {
          words += Number(row.leading_words);
          found.push({ table, row });
        }
        if (words > limit) throw new AppError(ErrorCode.BAD_USER_INPUT, `More than ${limit} words start with "${word}".`);
      }
      return found;
    });
    return rows.flatMap(({ table, row }) => this.live(table.itemOf(row)) ?? []);
  }

  async get(key: Key): Promise<Item | null> {
    const route = this.tables.route(key);
    if (!route) return null;
    const item = await this.inTenant(route.tenantId, (client) => this.readRow(client, route.table, route.tenantId, route.values));
    return this.live(item) ?? null;
  }

  async batchGet(keys: readonly Key[]): Promise<(Item | null)[]> {
    const found = new Map<string, Item>();
    const byTenant = new Map<string, { table: EntityTable; values: unknown[] }[]>();
    for (const key of keys) {
      const route = this.tables.route(key);
      if (!route) continue;
      const list = byTenant.get(route.tenantId) ?? [];
      list.push(route);
      byTenant.set(route.tenantId, list);
    }
    await Promise.all(
      [...byTenant].map(([tenantId, routes]) =>
        this.inTenant(tenantId, async (client) => {
          const byTable = new Map<EntityTable, unknown[][]>();
          for (const { table, values } of routes) byTable.set(table, [...(byTable.get(table) ?? []), values]);
          for (const [table, rows] of byTable) {
            const columns = table.keyFields.map((f) => ident(f.column.name));
            const width = columns.length;
            const tuples = rows.map((_, r) => `(${columns.map((_, c) => `$${2 + r * width + c}`).join(', ')})`).join(', ');
            // A table keyed by its tenant alone (the tenant's own item) has one row a tenant.
            const byKey = width > 0 ? ` AND (${columns.join(', ')}) IN (${tuples})` : '';
            const out = await client.query(`SELECT * FROM ${this.q(table)} WHERE tenant_id = $1${byKey}`, [tenantId, ...rows.flat()]);
            for (const row of out.rows) {
              const item = table.itemOf(row);
              found.set(keyString(item), item);
            }
          }
        }),
      ),
    );
    return keys.map((key) => this.live(found.get(keyString(key))) ?? null);
  }

  /**
   * Every live item of `spec`, in its order: each table that can hold its items is read by the
   * equalities its partition and prefix fix (tenant first, so a primary key or declared index serves
   * it), and each item is then tested on its derived key exactly as DynamoDB tests the key, and
   * ordered by it (then by its table key, where an index's sort keys tie). Reads every matching row
   * of a partition, of `projection`'s columns where it has them (see read): BAD_USER_INPUT past
   * MAX_PARTITION_ROWS of one table. A keyed index's table is read by its key columns instead, in
   * the query's order, after `bound.after` and at most `bound.limit` rows (readKeyed).
   */
  private async items(spec: QuerySpec, projection?: Projection, bound?: KeyedBound): Promise<Item[]> {
    const plans = this.tables.plan(spec);
    const waiting = spec.index === 'OUTBOX';
    if (plans.length === 0 && !waiting) return [];
    const rows = waiting
      ? await this.inTenant(undefined, (client) => this.waitingItems(client, spec.pk))
      : await this.inTenant(plans[0].tenantId, async (client) => {
          const out: Item[] = [];
          for (const plan of plans)
            out.push(...(await (plan.keyed ? this.readKeyed(client, plan, spec, projection, bound) : this.read(client, plan, projection))));
          return out;
        });
    const { pk, sk } = waiting ? keySchemas.OUTBOX : plans[0].keyNames;
    // A write-sharded index's rows are one table's whatever their shard (the plan reads them by
    // their values): each is tested on the shard its derived key names.
    const partitions = new Set([spec.pk, ...(spec.shards ?? [])]);
    const inPartition = (value: unknown) => typeof value === 'string' && partitions.has(value);
    const inRange = (key: string) =>
      spec.skPrefix !== undefined
        ? key.startsWith(spec.skPrefix)
        : spec.skBetween
          ? key >= spec.skBetween[0] && key <= spec.skBetween[1]
          : spec.skBefore !== undefined
            ? key < spec.skBefore
            : true;
    const matching = rows.filter((item) => {
      const key = item[sk];
      return inPartition(item[pk]) && typeof key === 'string' && inRange(key) && this.live(item) !== undefined;
    });
    const order = keyOrder(sk);
    matching.sort((a, b) => (spec.descending ? -order(a, b) : order(a, b)));
    return matching;
  }

  /**
   * The rows of a keyed index's table query (schema.ts, keyedIndexes), as items: those whose stored key is
   * in `spec`'s partitions and sort-key range, and after `bound.after` (in the order of reading), in
   * the query's order, at most `bound.limit` of them (else MAX_PARTITION_ROWS, past
   * which it is BAD_USER_INPUT), unexpired. The index of the key columns serves it, its order and its
   * LIMIT: a page costs the page, as a DynamoDB Query of the index does.
   */
  private async readKeyed(
    client: ClientBase,
    plan: TableQuery,
    spec: QuerySpec,
    projection?: Projection,
    bound: KeyedBound = {},
  ): Promise<Item[]> {
    const keyed = plan.keyed;
    if (!keyed || !plan.index) throw new Error(`${plan.table.name}'s query reads no keyed index.`);
    const params: unknown[] = [];
    const param = (value: unknown) => {
      params.push(value);
      return `$${params.length}`;
    };
    const pk = ident(keyed.pk);
    const sk = ident(keyed.sk);
    // A partition kept whole: its one key; the rows of the shards read are chosen after, by their own
    // shard. A table whose index is not sharded (the claimable indexes' JobWork entries, beside the
    // steps' shards) has rows under shard 0's key alone, read as one range.
    const where = [
      plan.whole !== undefined
        ? `${pk} = ${param(plan.whole)}`
        : spec.shards?.length && plan.index?.shards
          ? `${pk} = ANY(${param([spec.pk, ...spec.shards])}::text[])`
          : `${pk} = ${param(spec.pk)}`,
    ];
    if (plan.tenantId !== undefined) where.push(`tenant_id = ${param(plan.tenantId)}`);
    const compare = (op: Comparison, value: string) => {
      const [held, to] = textBound(op, value);
      where.push(`${sk} ${to} ${param(held)}`);
    };
    if (spec.skPrefix !== undefined) {
      // A key holds no NUL, so no key starts with a prefix that does.
      if (spec.skPrefix.includes('\u0000')) where.push('false');
      else {
        compare('>=', spec.skPrefix);
        const end = prefixEnd(spec.skPrefix);
        if (end === undefined) where.push(`starts_with(${sk}, ${param(spec.skPrefix)})`);
        else compare('<', end);
      }
    }
    if (spec.skBetween) {
      compare('>=', spec.skBetween[0]);
      compare('<=', spec.skBetween[1]);
    }
    if (spec.skBefore !== undefined) compare('<', spec.skBefore);
    const descending = Boolean(spec.descending);
    if (bound.after !== undefined) compare(descending ? '<' : '>', bound.after);
    if (plan.table.columnOf(TTL_ATTRIBUTE))
      where.push(`(expires_at IS NULL OR expires_at > ${param(new Date(Math.floor(this.now() / 1000) * 1000))})`);
    const limit = bound.limit ?? MAX_PARTITION_ROWS + 1;
    const columns = projection && plan.table.indexColumnsOf(projection, plan.index);
    const out = await client.query(
      `SELECT ${columns ? columns.map(ident).join(', ') : '*'} FROM ${this.q(plan.table)} WHERE ${where.join(' AND ')}
        ORDER BY ${sk} ${descending ? 'DESC' : 'ASC'} LIMIT ${limit}`,
      params,
    );
    if (bound.limit === undefined && out.rows.length > MAX_PARTITION_ROWS)
      throw new AppError(ErrorCode.BAD_USER_INPUT, `More than ${MAX_PARTITION_ROWS} ${plan.table.name} match; narrow the request.`);
    return out.rows.map((row) => plan.table.itemOf(row, columns !== undefined, plan.index));
  }

  /**
   * The items waiting in the outbox partition `partition` (across tenants, as DynamoDB's OUTBOX
   * index is), with their OUTBOX attributes: an entry as it was written, an event as its row reads.
   */
  private async waitingItems(client: ClientBase, partition: string): Promise<Item[]> {
    const out = await client.query(`SELECT * FROM ${this.outbox} WHERE outbox_pk = $1 LIMIT ${MAX_PARTITION_ROWS + 1}`, [partition]);
    if (out.rows.length > MAX_PARTITION_ROWS)
      throw new AppError(
        ErrorCode.BAD_USER_INPUT,
        `More than ${MAX_PARTITION_ROWS} items wait in ${partition}; the sweeper reads them in turn.`,
      );
    const items: Item[] = [];
    for (const row of out.rows) {
      const place = { [keySchemas.OUTBOX.pk]: row.outbox_pk, [keySchemas.OUTBOX.sk]: row.outbox_sk };
      if (isRecord(row.entry)) {
        items.push(keyedItem({ ...row.entry, ...place }));
        continue;
      }
      const route = this.tables.route({ PK: row.item_pk, SK: row.item_sk });
      const item = route && (await this.readRow(client, route.table, route.tenantId, route.values));
      if (item) items.push({ ...item, ...place });
    }
    return items;
  }

  /** What waits in the outbox, for the metrics: how many items, and how long the oldest has waited. */
  async outboxSnapshot(): Promise<{ backlog: number; oldestAgeSeconds: number }> {
    const row = await this.inTenant(
      undefined,
      async (client) => (await client.query(`SELECT count(*)::int AS n, min(outbox_sk COLLATE "C") AS oldest FROM ${this.outbox}`)).rows[0],
    );
    const oldest = typeof row?.oldest === 'string' ? Date.parse(row.oldest.split('#')[0]) : Number.NaN;
    return { backlog: Number(row?.n ?? 0), oldestAgeSeconds: Number.isNaN(oldest) ? 0 : Math.max(0, (this.now() - oldest) / 1000) };
  }

  /**
   * The rows of one table query, as items. With a `projection`, only the columns it needs
   * (EntityTable.columnsOf, and for an index the columns its key attributes derive from,
   * indexColumnsOf), as a page PostgreSQL orders reads only its projection's; whole rows where
   * those cannot be told.
   */
  private async read(client: ClientBase, plan: TableQuery, projection?: Projection): Promise<Item[]> {
    const params: unknown[] = [];
    const where: string[] = [];
    if (plan.tenantId !== undefined) {
      params.push(plan.tenantId);
      where.push('tenant_id = $1');
    }
    for (const [column, value] of Object.entries(plan.equal)) {
      params.push(value);
      where.push(`${ident(column)} = $${params.length}`);
    }
    for (const [column, allowed] of Object.entries(plan.within)) {
      params.push(allowed);
      where.push(`${ident(column)} = ANY($${params.length})`);
    }
    const columns = projection && (plan.index ? plan.table.indexColumnsOf(projection, plan.index) : plan.table.columnsOf(projection));
    const out = await client.query(
      `SELECT ${columns ? columns.map(ident).join(', ') : '*'} FROM ${this.q(plan.table)}${where.length > 0 ? ` WHERE ${where.join(' AND ')}` : ''} LIMIT ${MAX_PARTITION_ROWS + 1}`,
      params,
    );
    if (out.rows.length > MAX_PARTITION_ROWS)
      throw new AppError(ErrorCode.BAD_USER_INPUT, `More than ${MAX_PARTITION_ROWS} ${plan.table.name} match; narrow the request.`);
    return out.rows.map((row) => plan.table.itemOf(row, columns !== undefined, plan.index));
  }

  async queryPage(tenantId: string, spec: QuerySpec, page: PageRequest = {}, projection?: Projection): Promise<Page<Item>> {
    const ordered = this.tables.ordered(spec);
    if (ordered) return this.orderedPage(tenantId, spec, ordered, page, projection);
    const plans = spec.index && spec.index !== 'OUTBOX' ? this.tables.plan(spec) : [];
    if (plans.length > 0 && plans.every((plan) => plan.keyed)) return this.keyedPage(tenantId, spec, plans[0].keyNames, page, projection);
    const list = await this.items(spec, projection);
    const { pk, sk } = spec.index ? this.indexKeyNames(spec) : { pk: 'PK', sk: 'SK' };
    const order = keyOrder(sk);
    return listPage(
      this.cursors,
      tenantId,
      {
        listId: queryFingerprint(spec),
        list,
        // The position DynamoDB's cursor holds: the table key, and the index key read.
        positionOf: (item) => ({ PK: item.PK, SK: item.SK, ...(spec.index ? { [pk]: item[pk], [sk]: item[sk] } : {}) }),
        compare: (a, b) => (spec.descending ? -order(a, b) : order(a, b)),
      },
      page,
    );
  }

  /**
   * A page of a query PostgreSQL orders itself (EntityTables.ordered): the rows after (or, backward,
   * before) the cursor's position in key-column order, one more than the page to tell whether more
   * follow, expired rows left out by the query. Cursors and page info are those of listPage. With a
   * `projection`, only its columns are read (EntityTable.columnsOf).
   */
  private async orderedPage(
    tenantId: string,
    spec: QuerySpec,
    ordered: Ordered,
    page: PageRequest,
    projection?: Projection,
  ): Promise<Page<Item>> {
    const { size, backward, cursor, cursorArgument, listId, position } = await this.pageStart(tenantId, spec, page);
    const after =
      position && typeof position.PK === 'string' && typeof position.SK === 'string'
        ? ordered.plan.table.keyOf({ PK: position.PK, SK: position.SK })
        : undefined;
    if (position && !after) throw invalidCursor(cursorArgument);
    const from = after ? ordered.order.map((f) => after.values[ordered.plan.table.keyFields.indexOf(f)]) : undefined;
    // Backward reads the list's order reversed from the cursor, as DynamoDB reads a query flipped.
    const descending = Boolean(spec.descending) !== backward;
    const rows = await this.inTenant(ordered.plan.tenantId, (client) =>
      this.readOrdered(client, ordered, descending, size + 1, from, projection),
    );
    const nodes = rows.slice(0, size);
    if (backward) nodes.reverse();
    const more = rows.length > size;
    return new Page(
      nodes,
      nodes.map((item) => lazyCursor(() => this.cursors.encode(tenantId, listId, { PK: item.PK, SK: item.SK }))),
      backward ? { hasNextPage: cursor !== null, hasPreviousPage: more } : { hasNextPage: more, hasPreviousPage: cursor !== null },
    );
  }

  /**
   * Where a page of `spec` starts: the page's shape, the list's id its cursors are bound to, and the
   * position its cursor names (undefined for the first page). Throws as CursorCodec.decode does.
   */
  private async pageStart(tenantId: string, spec: QuerySpec, page: PageRequest) {
    const shape = pageShape(page);
    const listId = queryFingerprint(spec);
    const position = shape.cursor ? await this.cursors.decode(shape.cursor, tenantId, listId, shape.cursorArgument) : undefined;
    return { ...shape, listId, position };
  }

  /**
   * A page of a query whose every table reads a keyed index (readKeyed): each table's rows after the
   * cursor's index sort key, one more than the page, merged in the query's order. The cursors are
   * listPage's (the table key and the index key read, bound to the tenant and the query), so the two
   * serve one list alike. A position is told by its index sort key alone: every keyed index's sort
   * key ends with the item's own id (or its place in its job), so no two rows of a partition tie.
   */
  private async keyedPage(
    tenantId: string,
    spec: QuerySpec,
    { pk, sk }: { pk: string; sk: string },
    page: PageRequest,
    projection?: Projection,
  ): Promise<Page<Item>> {
    const { size, backward, cursor, cursorArgument, listId, position } = await this.pageStart(tenantId, spec, page);
    const from = position?.[sk];
    if (position && typeof from !== 'string') throw invalidCursor(cursorArgument);
    // Backward reads the list's order reversed from the cursor, as DynamoDB reads a query flipped.
    const descending = Boolean(spec.descending) !== backward;
    const order = keyOrder(sk);
    const reading = (a: Record<string, unknown>, b: Record<string, unknown>) => (descending ? -order(a, b) : order(a, b));
    const read = await this.items({ ...spec, descending }, projection, { after: position ? String(from) : undefined, limit: size + 1 });
    const rows = (position ? read.filter((item) => reading(item, position) > 0) : read).slice(0, size + 1);
    const nodes = rows.slice(0, size);
    if (backward) nodes.reverse();
    const more = rows.length > size;
    const positionOf = (item: Item) => ({ PK: item.PK, SK: item.SK, [pk]: item[pk], [sk]: item[sk] });
    return new Page(
      nodes,
      nodes.map((item) => lazyCursor(() => this.cursors.encode(tenantId, listId, positionOf(item)))),
      backward ? { hasNextPage: cursor !== null, hasPreviousPage: more } : { hasNextPage: more, hasPreviousPage: cursor !== null },
    );
  }

  /**
   * Up to `limit` live rows of an ordered query, in key-column order (descending or not), after
   * `from` (the order columns' values); of `projection`'s columns only when it has them all.
   */
  private async readOrdered(
    client: ClientBase,
    { plan, order }: Ordered,
    descending: boolean,
    limit: number,
    from?: unknown[],
    projection?: Projection,
  ): Promise<Item[]> {
    const params: unknown[] = [plan.tenantId];
    const where = ['tenant_id = $1'];
    for (const [column, value] of Object.entries(plan.equal)) {
      params.push(value);
      where.push(`${ident(column)} = $${params.length}`);
    }
    // Text in byte order (COLLATE "C"), as DynamoDB compares keys; numbers as numbers, which their padded keys order the same.
    const sorted = order.map((f) => `${ident(f.column.name)}${f.column.type === 'text' ? ' COLLATE "C"' : ''}`);
    if (from && sorted.length > 0) {
      const marks = from.map((value) => {
        params.push(value);
        return `$${params.length}`;
      });
      where.push(`(${sorted.join(', ')}) ${descending ? '<' : '>'} (${marks.join(', ')})`);
    }
    if (plan.table.columnOf(TTL_ATTRIBUTE)) {
      params.push(new Date(Math.floor(this.now() / 1000) * 1000));
      where.push(`(expires_at IS NULL OR expires_at > $${params.length})`);
    }
    const by = sorted.length > 0 ? ` ORDER BY ${sorted.map((c) => `${c} ${descending ? 'DESC' : 'ASC'}`).join(', ')}` : '';
    // Fewer columns are less for PostgreSQL to send and for pg to parse: a list of 50 logs read whole
    // spent about a third of the server's CPU on its rows (docs/benchmarks.md, line 2c on PostgreSQL).
    const columns = projection && plan.table.columnsOf(projection);
    const out = await client.query(
      `SELECT ${columns ? columns.map(ident).join(', ') : '*'} FROM ${this.q(plan.table)} WHERE ${where.join(' AND ')}${by} LIMIT ${limit}`,
      params,
    );
    return out.rows.map((row) => plan.table.itemOf(row, columns !== undefined));
  }

  private indexKeyNames(spec: QuerySpec): { pk: string; sk: string } {
    return this.tables.plan(spec)[0]?.keyNames ?? { pk: 'PK', sk: 'SK' };
  }

  queryMerged(
    tenantId: string,
    listId: string,
    shards: (before?: string) => QuerySpec[],
    sortAttribute: string,
    page: PageRequest = {},
  ): Promise<Page<Item>> {
    return mergedPage(this.cursors, (spec, n) => this.queryFirst(spec, n), tenantId, listId, shards, sortAttribute, page);
  }

  listPage<T>(tenantId: string, ordered: OrderedList<T>, page: PageRequest = {}): Promise<Page<T>> {
    return listPage(this.cursors, tenantId, ordered, page);
  }

  async queryFirst(spec: QuerySpec, n: number, projection?: Projection): Promise<Item[]> {
    const ordered = this.tables.ordered(spec);
    if (ordered)
      return this.inTenant(ordered.plan.tenantId, (client) =>
        this.readOrdered(client, ordered, Boolean(spec.descending), n, undefined, projection),
      );
    return (await this.items(spec, projection, { limit: n })).slice(0, n);
  }

  async queryAll(spec: QuerySpec, max = 5000): Promise<Item[]> {
    const items = await this.items(spec);
    if (items.length > max) throw new AppError(ErrorCode.BAD_USER_INPUT, `More than ${max} items match; narrow the request.`);
    return items;
  }

  /**
   * One page of a scan of every tenant's rows (a read-only transaction across tenants, as an index
   * across tenants is read): segment `segment` of `segments` holds every `segments`-th table, read in
   * primary-key order, one table a page; `next` names the table and the key to go on after.
   */
  async scanPage(
    segment: number,
    segments: number,
    limit: number,
    startKey?: Record<string, unknown>,
  ): Promise<{ items: Item[]; read: number; next?: Record<string, unknown> }> {
    const mine = this.tables.tables.filter((_, i) => i % segments === segment);
    const at = startKey ? mine.findIndex((t) => t.name === startKey.table) : 0;
    const table = mine[at];
    if (!table) return { items: [], read: 0 };
    const columns = ['tenant_id', ...table.keyFields.map((f) => f.column.name)].map(ident);
    const after = Array.isArray(startKey?.key) ? startKey.key : undefined;
    const where = after ? ` WHERE (${columns.join(', ')}) > (${columns.map((_, i) => `$${i + 1}`).join(', ')})` : '';
    const rows = await this.inTenant(
      undefined,
      async (client) =>
        (await client.query(`SELECT * FROM ${this.q(table)}${where} ORDER BY ${columns.join(', ')} LIMIT ${limit}`, after ?? [])).rows,
    );
    const last = rows[rows.length - 1];
    const next =
      rows.length === limit && last
        ? { table: table.name, key: ['tenant_id', ...table.keyFields.map((f) => f.column.name)].map((c) => last[c]) }
        : mine[at + 1]
          ? { table: mine[at + 1].name }
          : undefined;
    const items = rows.map((row) => table.itemOf(row));
    return { items: items.filter((item) => this.live(item) !== undefined), read: rows.length, next };
  }

  async removeAttributes(key: Key, attributes: string[]): Promise<void> {
    // Taking an item out of the outbox (the sweeper's, or the writer's once published) removes its outbox row.
    if (attributes.includes(keySchemas.OUTBOX.pk)) {
      const tenantId = tenantOfPk(key.PK);
      await this.inTenant(tenantId, (client) =>
        client.query(`DELETE FROM ${this.outbox} WHERE tenant_id = $1 AND item_pk = $2 AND item_sk = $3`, [tenantId, key.PK, key.SK]),
      );
    }
    const route = this.tables.route(key);
    if (!route) return;
    // An attribute without a column (the outbox's, kept in its own table) is one no row holds: nothing to remove.
    const columns = attributes.flatMap((a) => route.table.columnOf(a)?.name ?? []);
    if (columns.length === 0) return;
    const { table, tenantId, values } = route;
    await this.inTenant(tenantId, async (client) => {
      // A keyed index's key and the words derive from the whole item: read (and locked) first, and
      // written again from the item without the attributes, as every write of the row writes them.
      const current = table.derivesColumns ? await this.readRow(client, table, tenantId, values, true) : undefined;
      if (table.derivesColumns && !current) return;
      let derived: [string, string | null][] = [];
      if (current) {
        const rest: Item = { ...current };
        for (const attribute of attributes) delete rest[attribute];
        derived = Object.entries(table.derivedColumnsOf(rest, tenantId));
      }
      const set = [...columns.map((c) => `${ident(c)} = NULL`), ...derived.map(([c], i) => `${ident(c)} = $${i + 1}`)].join(', ');
      await client.query(`UPDATE ${this.q(table)} SET ${set} WHERE ${this.keyWhere(table, derived.length + 1)}`, [
        ...derived.map(([, value]) => value),
        tenantId,
        ...values,
      ]);
    });
  }

  async removeAttributesOfEach(keys: readonly Key[], attributes: string[]): Promise<void> {
    for (const key of keys) await this.removeAttributes(key, attributes);
  }

  async deleteEach(keys: readonly Key[]): Promise<void> {
    for (const key of keys) {
      const route = this.tables.route(key);
      const tenantId = route?.tenantId ?? tenantOfPk(key.PK);
      await this.inTenant(tenantId, async (client) => {
        // The item's outbox row goes with it (a commit's outbox entry is that row alone).
        await client.query(`DELETE FROM ${this.outbox} WHERE tenant_id = $1 AND item_pk = $2 AND item_sk = $3`, [tenantId, key.PK, key.SK]);
        if (route)
          await client.query(`DELETE FROM ${this.q(route.table)} WHERE ${this.keyWhere(route.table, 1)}`, [tenantId, ...route.values]);
      });
    }
  }

  async transactEach(units: readonly (readonly Write[])[]): Promise<boolean[]> {
    const committed: boolean[] = [];
    for (const unit of units) committed.push((await this.commit(unit)) === undefined);
    return committed;
  }

  async transact(writes: readonly Write[]): Promise<void> {
    const failed = await this.commit(writes);
    if (failed) throw failed instanceof ConditionFailed ? this.conditionError(failed) : failed.error;
  }

  async transactOnce(writes: readonly Write[]): Promise<TransactOutcome> {
    const outcome = await this.commit(writes, 1);
    if (outcome instanceof ConditionFailed) throw this.conditionError(outcome);
    return outcome ?? 'committed';
  }

  /** The error a failed condition becomes: the write's own, or CONFLICT. */
  private conditionError(failed: ConditionFailed): Error {
    const handler = failed.write.onConditionFailed;
    return handler
      ? handler(this.live(failed.current))
      : new AppError(ErrorCode.CONFLICT, 'A concurrent change won; reload and try again.');
  }

  /**
   * Commits `writes` in one transaction (see the file's comment), retrying a lost race with backoff,
   * `attempts` times in all. Resolves with undefined once committed, or with the first write (in
   * their order) whose condition failed and the row it found (then nothing was written); with one
   * attempt, a lost race resolves as a conflict for the committer to retry. Throws CONFLICT when
   * races outlast the bound, and what PostgreSQL throws otherwise. Items wait in the outbox in its own table (a row
   * an event, or a commit's one entry, the only item no declaration makes; OUTBOX_TABLE), written
   * in the same transaction. Throws (a programming error) for a key of no declaration otherwise.
   */
  private async commit(
    writes: readonly Write[],
    attempts = MAX_TX_ATTEMPTS,
  ): Promise<ConditionFailed | { reason: 'conflict'; error: unknown } | undefined> {
    if (writes.length === 0) return undefined;
    const targets: Target[] = writes.map((write) => {
      const route = this.tables.route(write.key);
      if (route) {
        const routed: Routed = { write, ...route };
        return {
          write,
          tenantId: route.tenantId,
          lockId: `${route.table.name}\u0000${JSON.stringify(route.values)}`,
          read: (client) => this.readRow(client, route.table, route.tenantId, route.values, true),
          save: (client, current, created) => this.save(client, routed, current, created),
        };
      }
      // The one item of no declaration: a commit's outbox entry for its several events (withOneOutboxEntry).
      if (write.item?.entityType !== OUTBOX_ENTRY) throw new Error(`No declaration makes the key ${write.key.PK} / ${write.key.SK}.`);
      const tenantId = tenantOfPk(write.key.PK);
      return {
        write,
        tenantId,
        lockId: `${OUTBOX_TABLE.name}\u0000${write.key.PK}\u0000${write.key.SK}`,
        read: (client) => this.readEntry(client, tenantId, write.key),
        save: (client, current) => this.saveEntry(client, tenantId, write, current),
      };
    });
    const tenants = new Set(targets.map((t) => t.tenantId));
    if (tenants.size > 1) throw new Error(`A transaction writes the items of several tenants (${[...tenants].join(', ')}).`);
    const tenantId = targets[0].tenantId;
    const lockOrder = targets.map((t, i) => ({ i, id: t.lockId })).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    for (let attempt = 0; ; attempt++) {
      try {
        await this.inTenant(tenantId, async (client) => {
          const current: (Item | undefined)[] = [];
          for (const { i } of lockOrder) current[i] = await targets[i].read(client);
          targets.forEach((t, i) => {
            if (!t.write.holdsFor(current[i])) throw new ConditionFailed(t.write, current[i]);
          });
          const created: Item[] = [];
          for (const [i, t] of targets.entries()) await t.save(client, current[i], created);
          if (this.queueDownstream) await this.queueEnvelopes(client, tenantId, created);
        });
        return undefined;
      } catch (error) {
        if (error instanceof ConditionFailed) return error;
        if (error instanceof DatabaseError && error.code === FOREIGN_KEY_VIOLATION) throw this.missingReferent(error);
        if (!(error instanceof DatabaseError && error.code && RACE_CODES.has(error.code))) throw error;
        if (attempts === 1) return { reason: 'conflict', error };
        if (attempt + 1 >= attempts) throw new AppError(ErrorCode.CONFLICT, 'The item is being changed by others right now; try again.');
        await sleep(backoff(attempt));
      }
    }
  }

  /**
   * A commit that a foreign key refused: a declared reference (an inspiration's project, an asset's
   * log) names an item the tenant does not have. BAD_USER_INPUT naming the attribute, as the value
   * came from a client's input; DynamoDB, which holds no references, would have stored it.
   */
  private missingReferent(error: DatabaseError): Error {
    const reference = error.constraint ? this.tables.referenceOf(error.constraint) : undefined;
    if (!reference) return error;
    return new AppError(
      ErrorCode.BAD_USER_INPUT,
      `${reference.attribute} names nothing of yours: a ${reference.table.model.type}'s ${reference.attribute} must name an existing item.`,
      { field: reference.attribute },
    );
  }

  private get outbox(): string {
    return `${ident(this.schema)}.${ident(OUTBOX_TABLE.name)}`;
  }

  /** The outbox row of the item at `key` made to say where `item` waits (its OUTBOX attributes), or removed when it waits nowhere. */
  private async placeInOutbox(client: ClientBase, tenantId: string, key: Key, item: Item | undefined): Promise<void> {
    const pk = item?.[keySchemas.OUTBOX.pk];
    const sk = item?.[keySchemas.OUTBOX.sk];
    if (typeof pk !== 'string' || typeof sk !== 'string') {
      await client.query(`DELETE FROM ${this.outbox} WHERE tenant_id = $1 AND item_pk = $2 AND item_sk = $3`, [tenantId, key.PK, key.SK]);
      return;
    }
    const entry = item?.entityType === OUTBOX_ENTRY ? JSON.stringify(item) : null;
    const expires = item?.[TTL_ATTRIBUTE];
    await client.query(
      `INSERT INTO ${this.outbox} (tenant_id, item_pk, item_sk, outbox_pk, outbox_sk, entry, expires_at) VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (tenant_id, item_pk, item_sk) DO UPDATE SET outbox_pk = $4, outbox_sk = $5, entry = $6, expires_at = $7`,
      [tenantId, key.PK, key.SK, pk, sk, entry, typeof expires === 'number' ? new Date(expires * 1000) : null],
    );
  }

  /**
   * Queues the envelopes of the items a commit created that go downstream (downstreamEnvelope: the
   * events of a downstream stream not put back by a restore), after the commit's locks, with one
   * time for them all (the statement's start, later than every commit that held a lock this one
   * waited for): the relay sends by that time, then by key, which orders one stream's positions
   * however the commit's writes were listed.
   */
  private async queueEnvelopes(client: ClientBase, tenantId: string, created: Item[]): Promise<void> {
    const queued = created.flatMap((item) => {
      const envelope = downstreamEnvelope(item);
      return envelope ? [{ item, envelope }] : [];
    });
    if (queued.length === 0) return;
    await client.query(
      `INSERT INTO ${ident(this.schema)}.${ident(DOWNSTREAM_TABLE.name)} (tenant_id, item_pk, item_sk, envelope, queued_at)
       SELECT $1, q.pk, q.sk, q.envelope, statement_timestamp() FROM unnest($2::text[], $3::text[], $4::jsonb[]) AS q (pk, sk, envelope)`,
      [tenantId, queued.map((q) => q.item.PK), queued.map((q) => q.item.SK), queued.map((q) => JSON.stringify(q.envelope))],
    );
  }

  /** A commit's outbox entry (an item of no declaration), locked, as the item it is; undefined when there is none. */
  private async readEntry(client: ClientBase, tenantId: string, key: Key): Promise<Item | undefined> {
    const out = await client.query(`SELECT entry FROM ${this.outbox} WHERE tenant_id = $1 AND item_pk = $2 AND item_sk = $3 FOR UPDATE`, [
      tenantId,
      key.PK,
      key.SK,
    ]);
    const entry: unknown = out.rows[0]?.entry;
    return isRecord(entry) ? keyedItem({ ...entry }) : undefined;
  }

  private async saveEntry(client: ClientBase, tenantId: string, write: Write, current: Item | undefined): Promise<void> {
    if (write.action.op === 'ConditionCheck') return;
    await this.placeInOutbox(client, tenantId, write.key, write.applyTo(current));
  }

  /** Makes one write on its locked row (`current`, undefined when there was none). */
  private async save(
    client: ClientBase,
    { write, table, tenantId, values }: Routed,
    current: Item | undefined,
    created: Item[],
  ): Promise<void> {
    if (write.action.op === 'ConditionCheck') return;
    const next = write.applyTo(current);
    const key = [tenantId, ...values];
    // A put places its item in the outbox or takes it out, as its OUTBOX attributes say; a delete takes it out.
    if (write.action.op !== 'Update') await this.placeInOutbox(client, tenantId, write.key, next);
    if (!next) {
      if (current) await client.query(`DELETE FROM ${this.q(table)} WHERE ${this.keyWhere(table, 1)}`, key);
      return;
    }
    const row = table.rowOf(next, { tenantId, values });
    const columns = Object.keys(row);
    if (!current) {
      // A new item is what DynamoDB's stream records as an INSERT, the only record the Pipe sends.
      created.push(next);
      // A plain INSERT: a row another transaction inserted meanwhile fails it (23505), and the retry tests the condition on that row.
      await client.query(
        `INSERT INTO ${this.q(table)} (${columns.map(ident).join(', ')}) VALUES (${columns.map((_, i) => `$${i + 1}`).join(', ')})`,
        Object.values(row),
      );
      return;
    }
    const keyColumns = new Set(['tenant_id', ...table.keyFields.map((f) => f.column.name)]);
    const changed = columns.filter((c) => !keyColumns.has(c));
    if (changed.length === 0) return;
    await client.query(
      `UPDATE ${this.q(table)} SET ${changed.map((c, i) => `${ident(c)} = $${i + 1}`).join(', ')} WHERE ${this.keyWhere(table, changed.length + 1)}`,
      [...changed.map((c) => row[c]), ...key],
    );
  }
}
