import { escapeIdentifier as ident, escapeLiteral as literal } from 'pg';
import { type AnyModel, type Attribute, type AttributeKind, type IndexDeclaration, isCondition, placeholdersOf } from '../dynamo/entity';

/*
 * The PostgreSQL schema, derived from the same entity declarations as the DynamoDB table
 * (src/common/entities.ts, read through src/infra/dynamo/entity.ts): a table per entity, a typed
 * column per declared attribute, the key templates' values as the primary key (tenant first), the
 * declared indexes as B-tree indexes, the declared references as foreign keys, and the seed's three
 * views. Nothing is listed per entity here except those views, which the seed names. Building the
 * statements is pure; src/infra/postgres/apply.ts sends them and checks a database against them.
 *
 * This module is in the infra layer, which may not import the declarations themselves (a higher
 * layer): callers pass the models (`deriveSchema(entities)`).
 */

/** Who owns the schema, and the role the server connects as (see docs/postgres.md). */
export interface SchemaRoles {
  /** The PostgreSQL schema (namespace) the tables live in. */
  schema: string;
  /** Owns the tables and applies the schema; the server never connects as it. */
  owner: string;
  /** The server's role: reads and writes rows, owns nothing, and has no BYPASSRLS, so row-level security binds it. */
  app: string;
}

export const DEFAULT_ROLES: SchemaRoles = { schema: 'artissist', owner: 'artissist_owner', app: 'artissist_app' };

/** The setting that carries the request's tenant, set per transaction (see withTenant in apply.ts). */
export const TENANT_SETTING = 'app.tenant_id';

/** The name of every table's row-level security policy. */
export const TENANT_POLICY = 'tenant_isolation';

/**
 * The setting that opens a read-only transaction to every tenant's rows: set (to `read`) only by the
 * store's reads of an index declared across tenants (the server's sweeps, pool claims, operators'
 * lists; see withCrossTenantRead in apply.ts). It admits SELECT only: no row of another tenant is
 * ever written, and a transaction without it sees its own tenant's rows alone.
 */
export const CROSS_TENANT_SETTING = 'app.cross_tenant';

/** The tsvector column of a searchable entity's table: the words search finds it by. */
export const SEARCH_VECTOR = 'search_vector';

/** The name of the policy that CROSS_TENANT_SETTING opens. */
export const CROSS_TENANT_POLICY = 'cross_tenant_read';

export interface Column {
  name: string;
  /** As PostgreSQL's format_type() prints it, so the drift check compares it as it is. */
  type: string;
  notNull: boolean;
  /** A SQL default expression, or undefined. */
  default?: string;
  /** `C`: compared and ordered byte by byte, as DynamoDB compares keys (an index key's columns). */
  collation?: 'C';
}

/**
 * The two columns that hold a keyed index's key (see keyedIndexes): its partition and sort key as the
 * DynamoDB index holds them (`TENANT#t1#WORK#CLAIMABLE`, `2026-01-01T00:00:00.000Z#job_1#render`),
 * NULL while the row is not in the index.
 */
export interface IndexKeyColumns {
  pk: string;
  sk: string;
}

export interface IndexDef {
  name: string;
  columns: string[];
  unique?: boolean;
  /** The WHERE of a partial index, or undefined for an index of every row. */
  where?: string;
  /** A GIN index (the text's tsvector) rather than a B-tree. */
  gin?: boolean;
}

export interface ForeignKeyDef {
  name: string;
  columns: string[];
  table: string;
  references: string[];
  /** The column an optional reference clears when the referred row goes (PostgreSQL 15's `SET NULL (col)`). */
  setNull?: string;
}

export interface TableDef {
  /** The declaration's name in the entities map (`ProjectEvent`). */
  entity: string;
  name: string;
  columns: Column[];
  primaryKey: string[];
  indexes: IndexDef[];
  foreignKeys: ForeignKeyDef[];
  /** The key columns of each keyed index (see keyedIndexes), by its declaration's name. */
  indexKeys?: Record<string, IndexKeyColumns>;
  /**
   * Names an earlier derivation gave indexes of this table that this one does not make (a declared
   * index's other form, plain or keyed; the tsvector's GIN index): applySchema drops them where a
   * database made before has them, as it drops a derived index (DERIVED_INDEX_COMMENT) no
   * declaration derives any more.
   */
  retiredIndexes?: string[];
}

export interface ViewDef {
  name: string;
  /** The SELECT, with the schema's tables named in full. */
  select: string;
}

export interface DerivedSchema {
  roles: SchemaRoles;
  /** A table per entity. */
  tables: TableDef[];
  /** The store's own tables, of no entity: the outbox (OUTBOX_TABLE) and what waits to go downstream (DOWNSTREAM_TABLE). */
  storeTables: TableDef[];
  views: ViewDef[];
  /**
   * The searchable tables' words as the search index holds them (see SEARCH_INDEX), with the owner's
   * functions and the triggers that keep and search it; none when no entity searches.
   */
  search?: { table: TableDef; sources: TableDef[]; functions: FunctionDef[]; triggers: TriggerDef[] };
}

/**
 * The words of every searchable row, for full-text search under row-level security
 * (docs/postgres.md#full-text-search-a-tsvector-column-and-a-gin-index-the-servers-role-can-use): `@@` is not leakproof, so
 * PostgreSQL keeps it from an index below a table's policy, and the searchable tables' GIN indexes
 * serve no query of the server's role. This table is read only by a function of the owner's
 * (`search_keys`, SECURITY DEFINER), which names the transaction's tenant itself, as the policy
 * does; its row-level security is enabled but not forced, so that function, its owner's, reads it
 * through the GIN index of its words (the word's rows of every tenant, then those of the tenant: a
 * GIN index that leads with the tenant, through `btree_gin`, reads the tenant's whole posting list),
 * and the server's role has no right on it at all. A trigger of the owner's (`search_index_sync`) keeps it with every
 * insert, update and delete of a searchable row, in the same transaction.
 */
export const SEARCH_INDEX: TableDef = {
  entity: '',
  name: 'search_index',
  columns: [
    { name: 'tenant_id', type: 'text', notNull: true },
    { name: 'item_table', type: 'text', notNull: true },
    { name: 'item_key', type: 'text[]', notNull: true },
    { name: 'search_vector', type: 'tsvector', notNull: true },
  ],
  // Its key leads with the row's key, not the tenant: no B-tree then serves the search function's
  // query (the tenant and the table, equal for thousands of rows), whose index is the words'.
  primaryKey: ['item_key', 'item_table', 'tenant_id'],
  indexes: [{ name: 'search_index_words', columns: ['search_vector'], gin: true }],
  foreignKeys: [],
};

/** The owner's function that finds a tenant's rows by their words (see SEARCH_INDEX): `search_keys(table, tsquery, limit)`. */
export const SEARCH_KEYS_FUNCTION = 'search_keys';
/** The owner's trigger function (and the triggers' name) that keeps SEARCH_INDEX. */
export const SEARCH_SYNC_FUNCTION = 'search_index_sync';

/**
 * The seed's `outbox`: one row for each item waiting in the outbox (an event not yet published,
 * or a commit's one entry for its several events), keyed by the item's key, in the order the
 * sweeper reads it (`outbox_pk`, `outbox_sk`: DynamoDB's OUTBOX index key). An event's row points
 * at its event's row; an entry's holds the entry itself (`entry`), since no entity declares it.
 */
export const OUTBOX_TABLE: TableDef = {
  entity: '',
  name: 'outbox',
  columns: [
    { name: 'tenant_id', type: 'text', notNull: true },
    { name: 'item_pk', type: 'text', notNull: true },
    { name: 'item_sk', type: 'text', notNull: true },
    { name: 'outbox_pk', type: 'text', notNull: true },
    { name: 'outbox_sk', type: 'text', notNull: true },
    { name: 'entry', type: 'jsonb', notNull: false },
    { name: 'expires_at', type: 'timestamp with time zone', notNull: false },
  ],
  primaryKey: ['tenant_id', 'item_pk', 'item_sk'],
  indexes: [{ name: 'outbox_waiting', columns: ['outbox_pk', 'outbox_sk'] }],
  foreignKeys: [],
};

/**
 * Events waiting to go downstream (docs/postgres.md#events-downstream): one row for each new event
 * of a downstream stream, written in the event's own transaction when DOWNSTREAM_URL is set, with
 * the envelope it goes as (src/infra/dynamo/downstream.ts, the Pipe's on DynamoDB). The relay
 * (downstream.ts) sends the rows in `queued_at` order and deletes each once the receiver took it;
 * one it refused `attempts` times in all is parked (`failed_at`, `last_error`), not sent again.
 * `queued_at` is the time of the statement that queues a commit's events, after the commit's
 * locks: one stream's events commit one after another under its head's lock, so a later commit's
 * are queued later, and one commit's share the time and are ordered by their keys (positions).
 */
export const DOWNSTREAM_TABLE: TableDef = {
  entity: '',
  name: 'downstream',
  columns: [
    { name: 'tenant_id', type: 'text', notNull: true },
    { name: 'item_pk', type: 'text', notNull: true },
    { name: 'item_sk', type: 'text', notNull: true },
    { name: 'envelope', type: 'jsonb', notNull: true },
    { name: 'queued_at', type: 'timestamp with time zone', notNull: true },
    { name: 'attempts', type: 'bigint', notNull: true, default: '0' },
    { name: 'failed_at', type: 'timestamp with time zone', notNull: false },
    { name: 'last_error', type: 'text', notNull: false },
  ],
  primaryKey: ['tenant_id', 'item_pk', 'item_sk'],
  indexes: [{ name: 'downstream_waiting', columns: ['queued_at'], where: 'failed_at IS NULL' }],
  foreignKeys: [],
};

/** `linkedLogId` → `linked_log_id`. */
export const snake = (name: string): string => name.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();

/** The table of a declaration: `ProjectEvent` → `project_events`. */
export const tableName = (entity: string): string => `${snake(entity)}s`;

/**
 * Column types by attribute kind. Integers are `bigint`: sizes in bytes and the tenant's stored
 * bytes pass 2^31, and epoch seconds (an upload's deadline) will in 2038. Enums are text (their
 * values are checked by the API before a write, as on DynamoDB). Only JSON attributes (documents,
 * shapes, lists of shapes) are jsonb.
 */
const TYPES: Record<AttributeKind, string> = {
  string: 'text',
  id: 'text',
  enum: 'text',
  int: 'bigint',
  float: 'double precision',
  boolean: 'boolean',
  date: 'date',
  dateTime: 'timestamp with time zone',
  json: 'jsonb',
  strings: 'text[]',
};

/** PostgreSQL truncates longer identifiers silently, which would make two names one. */
const MAX_IDENTIFIER = 63;

function checkedName(name: string): string {
  if (name.length > MAX_IDENTIFIER) throw new Error(`The derived name ${name} is longer than PostgreSQL's ${MAX_IDENTIFIER} characters.`);
  return name;
}

/** A declared membership value as a SQL literal (a `when` lists booleans, numbers and texts). */
function sqlValue(value: unknown): string {
  if (typeof value === 'boolean' || typeof value === 'number') return String(value);
  if (typeof value === 'string') return literal(value);
  throw new Error(`An index membership value of type ${typeof value} has no SQL form.`);
}

/** A membership of allowed values as SQL: `{ status: ['PAUSED'] }` → `"status" IN ('PAUSED')`, each attribute's test ANDed. */
const membershipSql = (when: Record<string, readonly unknown[]>): string =>
  Object.entries(when)
    .map(([attribute, allowed]) => `${ident(snake(attribute))} IN (${allowed.map(sqlValue).join(', ')})`)
    .join(' AND ');

/**
 * The columns of one entity: tenant first, then the key template's values, the declared
 * attributes, the status machine's attribute, and what the server adds to every item.
 *
 * The declarations say which of what the server adds an entity keeps (`keeps`) only in its type,
 * not at run time (EntityModel does not hold it), so every table has the four: `version` for
 * optimistic locking, the times and the author. `expires_at` is there only where the entity
 * declares a TTL. Index keys are not columns (the indexes below replace them); the word slots and
 * what an item counted against its quota are, where the entity searches or counts (`search_slots`,
 * `quota_counted`), because later writes compare against them.
 */
function columnsOf(model: AnyModel, key: readonly string[]): Column[] {
  const columns = new Map<string, Column>();
  const add = (column: Column) => {
    if (!columns.has(column.name)) columns.set(column.name, column);
  };
  add({ name: 'tenant_id', type: 'text', notNull: true });
  const attributes: Record<string, Attribute> = model.attributes;
  for (const field of key) add({ name: snake(field), type: TYPES[attributes[field]?.kind ?? 'string'], notNull: true });
  for (const [name, attribute] of Object.entries(attributes)) {
    add({ name: snake(name), type: TYPES[attribute.kind], notNull: attribute.required === true && !attribute.nullable });
  }
  if (model.status) add({ name: snake(model.status.attribute), type: 'text', notNull: true });
  add({ name: 'version', type: 'bigint', notNull: true, default: '1' });
  add({ name: 'created_at', type: 'timestamp with time zone', notNull: false });
  add({ name: 'updated_at', type: 'timestamp with time zone', notNull: false });
  add({ name: 'created_by', type: 'text', notNull: false });
  if (model.ttl) add({ name: 'expires_at', type: 'timestamp with time zone', notNull: false });
  // What the model derives onto an item and later writes compare against: the word slots of a
  // searchable entity (its word rows change by them) and what an item has counted against its quota.
  if (model.search) add({ name: 'search_slots', type: 'text[]', notNull: false });
  // The words of its searchable attributes, as the store writes them with every row (items.ts), for search.
  if (model.search) add({ name: SEARCH_VECTOR, type: 'tsvector', notNull: false });
  if (model.quota) add({ name: 'quota_counted', type: 'bigint', notNull: false });
  return [...columns.values()];
}

/**
 * Whether an index's key is computed by code rather than made of columns as they are: a value it
 * derives (a claim time, a rank, a write shard), a format of a value it names (a normalized title,
 * a flag as a word, a padded number), a write shard's suffix, or a membership predicate. SQL cannot
 * match or order such a key by the columns, so the key itself is kept in two columns the store writes
 * with every row (IndexKeyColumns, from the same model code as DynamoDB's index attributes), and
 * its B-tree index serves the query with its order and LIMIT, as the DynamoDB index does.
 */
export function isKeyed(declared: IndexDeclaration): boolean {
  const named = new Set([...placeholdersOf(declared.pk), ...placeholdersOf(declared.sk)]);
  return Boolean(
    declared.derive || declared.shards || isCondition(declared.when) || Object.keys(declared.format ?? {}).some((n) => named.has(n)),
  );
}

/**
 * The declared indexes kept keyed: those whose key code computes (isKeyed); those whose partition
 * key names no value of the item (`TYPE#EVENT`: the tenant's activity timeline), a partition as
 * large as the tenant's whole table; those whose sort key joins several values, read a page at a
 * time after a cursor that names them all; those whose partition (the same DynamoDB index and partition
 * key template) a keyed index of another entity shares, as the job work entries' claimable
 * partitions are the steps'; and those that order an entity's rows by the sort key template of
 * one of its own keyed indexes, a part of the rows that index orders, in its order (the timeline
 * of one action, of the timeline; a project's jobs, of a creator's). A query of such a partition
 * reads each table by its key columns in the key's order and takes the first rows of each (a
 * claim's candidates, a page), where a table read by its columns is read whole, to be ordered in
 * the process.
 */
export function keyedIndexes(models: Readonly<Record<string, AnyModel>>): ReadonlySet<IndexDeclaration> {
  const declared = Object.values(models).flatMap((model) => Object.values<IndexDeclaration>(model.indexes));
  // A sort key that joins several values (`{createdAt}#{logId}`) is read a page at a time after a
  // cursor that names them all, which the key columns serve in the key's order as one value.
  const own = (d: IndexDeclaration) => isKeyed(d) || placeholdersOf(d.pk).length === 0 || placeholdersOf(d.sk).length > 1;
  const partition = (d: IndexDeclaration) => `${d.index}\u0000${d.crossTenant ? 'across' : 'tenant'}\u0000${d.pk}`;
  const keyedPartitions = new Set(declared.filter(own).map(partition));
  const shared = (d: IndexDeclaration) => own(d) || keyedPartitions.has(partition(d));
  return new Set(
    Object.values(models).flatMap((model) => {
      const indexes = Object.values<IndexDeclaration>(model.indexes);
      // The sort key templates a keyed index of the entity orders its rows by.
      const keyedOrders = new Set(indexes.filter(shared).map((d) => d.sk));
      return indexes.filter((d) => shared(d) || keyedOrders.has(d.sk));
    }),
  );
}

/** The key columns of a keyed index (`claimableInJob` → `claimable_in_job_pk`, `claimable_in_job_sk`). */
const indexKeyColumns = (name: string): IndexKeyColumns => ({ pk: `${snake(name)}_pk`, sk: `${snake(name)}_sk` });

/**
 * One declared index as a B-tree index: the placeholders of its partition and sort key templates,
 * in order, as columns, after `tenant_id` (a cross-tenant index's templates say where the tenant
 * goes, if anywhere). Left out: placeholders the index derives from the item (a write shard, a
 * rank), which exist only to spread or order DynamoDB's partitions, and the templates' constant
 * text. A placeholder's format (normalized text, a zero-padded number) orders the DynamoDB key; the
 * column holds the value itself, which orders the same for numbers and needs the store to
 * normalize a text's query as the key did.
 *
 * A membership of allowed values (`when: { status: ['PAUSED'] }`) becomes a partial index
 * (`WHERE status IN ('PAUSED')`). A keyed index (keyedIndexes: a key or membership that code
 * computes, a partition of the tenant's whole table, or a partition such an index shares) is
 * instead a B-tree index of its two key columns, partial to the rows in it.
 */
function indexOf(
  table: string,
  name: string,
  declared: IndexDeclaration,
  columnNames: ReadonlySet<string>,
  keyed: boolean,
): IndexDef | undefined {
  if (keyed) {
    const { pk, sk } = indexKeyColumns(name);
    // Named apart from the column index a database made before may hold under the plain name.
    return { name: checkedName(`${table}_${snake(name)}_key`), columns: [pk, sk], where: `${ident(pk)} IS NOT NULL` };
  }
  const derived = new Set(Object.keys(declared.derive ?? {}));
  const fields = [...placeholdersOf(declared.pk), ...placeholdersOf(declared.sk)].filter((field) => !derived.has(field));
  const columns = [...new Set([...(declared.crossTenant ? [] : ['tenant_id']), ...fields.map(snake)])];
  const unknown = columns.filter((column) => !columnNames.has(column));
  if (unknown.length > 0) throw new Error(`Index ${name} of ${table} names ${unknown.join(', ')}, which ${table} has no column for.`);
  if (columns.length === 0) return undefined;
  const when = declared.when;
  const where = when && !isCondition(when) ? membershipSql(when) : undefined;
  return { name: checkedName(`${table}_${snake(name)}`), columns, where };
}

/**
 * The schema the declarations derive, with the roles that own and use it. Throws (a programming
 * error in a declaration) when an index names an attribute the entity lacks, a reference names an
 * id prefix no entity has, a derived name is too long for PostgreSQL, or an entity the seed's views
 * read (Job, Step, Asset) is missing.
 */
export function deriveSchema(models: Readonly<Record<string, AnyModel>>, roles: SchemaRoles = DEFAULT_ROLES): DerivedSchema {
  const byPrefix = new Map<string, string>();
  for (const [entity, model] of Object.entries(models)) if (model.idPrefix) byPrefix.set(model.idPrefix, entity);

  const keyed = keyedIndexes(models);
  const tables: TableDef[] = Object.entries(models).map(([entity, model]) => {
    const name = checkedName(tableName(entity));
    const key = model.keyFields.filter((field) => field !== 'tenantId');
    const columns = columnsOf(model, key);
    const indexKeys: Record<string, IndexKeyColumns> = {};
    for (const [indexName, declared] of Object.entries<IndexDeclaration>(model.indexes)) {
      if (!keyed.has(declared)) continue;
      indexKeys[indexName] = indexKeyColumns(indexName);
      for (const column of Object.values(indexKeys[indexName])) {
        if (columns.some((c) => c.name === column))
          throw new Error(`${name}.${column}, the key of index ${indexName}, is an attribute's column too.`);
        columns.push({ name: column, type: 'text', notNull: false, collation: 'C' });
      }
    }
    const columnNames = new Set(columns.map((c) => c.name));
    const indexes = Object.entries(model.indexes).flatMap(
      ([indexName, declared]) => indexOf(name, indexName, declared, columnNames, keyed.has(declared)) ?? [],
    );
    // The tsvector has no GIN index here: under row-level security none would serve the server's
    // role, as `@@` is not leakproof. Its words are indexed in SEARCH_INDEX, which a trigger keeps.
    const made = new Set(indexes.map((index) => index.name));
    const retiredIndexes = [
      ...Object.keys(model.indexes).flatMap((indexName) => [`${name}_${snake(indexName)}`, `${name}_${snake(indexName)}_key`]),
      `${name}_${SEARCH_VECTOR}`,
    ].filter((retired) => !made.has(retired));
    return { entity, name, columns, primaryKey: ['tenant_id', ...key.map(snake)], indexes, foreignKeys: [], indexKeys, retiredIndexes };
  });
  const byEntity = new Map(tables.map((table) => [table.entity, table]));

  // A declared reference (`attr.id({ ref: 'proj' })`) is a foreign key to the entity whose ids have
  // that prefix, within the same tenant. The referred column must be unique within the tenant: it
  // is the entity's own id (a ULID), so where the primary key has more (a log's project) a unique
  // index on (tenant_id, id) is derived for it. Deferred to the commit, so a transaction may write
  // the two rows in either order, as one DynamoDB transaction does. A parent (a milestone's
  // project) is not a foreign key: in the DynamoDB design a child may outlive its parent (events
  // kept after a delete, children a TTL removes later), which the store step is to decide on.
  for (const [entity, model] of Object.entries(models)) {
    const table = byEntity.get(entity);
    if (!table) continue;
    const attributes: Record<string, Attribute> = model.attributes;
    for (const [attribute, declared] of Object.entries(attributes)) {
      if (!declared.ref) continue;
      const target = byPrefix.get(declared.ref);
      const referred = target === undefined ? undefined : byEntity.get(target);
      if (!target || !referred) throw new Error(`${entity}.${attribute} refers to id prefix ${declared.ref}, which no entity has.`);
      const idColumn = snake(models[target].idField);
      if (
        referred.primaryKey.join() !== ['tenant_id', idColumn].join() &&
        !referred.indexes.some((i) => i.name === `${referred.name}_id_key`)
      ) {
        referred.indexes.push({ name: checkedName(`${referred.name}_id_key`), columns: ['tenant_id', idColumn], unique: true });
      }
      const column = snake(attribute);
      const optional = !(declared.required === true);
      table.foreignKeys.push({
        name: checkedName(`${table.name}_${column}_fkey`),
        columns: ['tenant_id', column],
        table: referred.name,
        references: ['tenant_id', idColumn],
        setNull: optional ? column : undefined,
      });
    }
  }

  const sources = tables.filter((table) => table.columns.some((c) => c.name === SEARCH_VECTOR));
  return {
    roles,
    tables,
    storeTables: [OUTBOX_TABLE, DOWNSTREAM_TABLE],
    views: seedViews(models, byEntity, roles.schema),
    search:
      sources.length > 0
        ? { table: SEARCH_INDEX, sources, functions: searchFunctions(roles.schema), triggers: searchTriggers(sources) }
        : undefined,
  };
}

/**
 * The seed's three views (seeds/000: "jobs with status running", "steps with status paused",
 * "assets joined with latest_version metadata"), over the derived tables and columns. Their
 * filters come from the declarations where one says it: the steps awaiting review and the assets
 * by type are those indexes' memberships; the running status is checked against the job's machine.
 */
function seedViews(models: Readonly<Record<string, AnyModel>>, tables: ReadonlyMap<string, TableDef>, schema: string): ViewDef[] {
  const table = (entity: string) => {
    const found = tables.get(entity);
    if (!found) throw new Error(`The seed's views read ${entity}, which is not declared.`);
    return `${ident(schema)}.${ident(found.name)}`;
  };
  const membership = (entity: string, index: string): string => {
    const when = models[entity]?.indexes[index]?.when;
    if (!when || isCondition(when)) throw new Error(`${entity}.${index} declares no membership of values for a view to filter by.`);
    return membershipSql(when);
  };
  const job = models.Job;
  const running = 'RUNNING';
  if (!job?.status || !(running in job.status.transitions)) throw new Error(`The job's status machine has no ${running} status.`);
  // The latest version's entry of the asset's version list (a JSON list of declared shapes), as
  // the seed's asset_versions row would hold it.
  const assets = table('Asset');
  const assetColumns = (tables.get('Asset')?.columns ?? []).map((c) => `a.${ident(c.name)}`).join(', ');
  return [
    {
      name: 'v_jobs_in_progress',
      select: `SELECT * FROM ${table('Job')} WHERE ${ident(snake(job.status.attribute))} = ${literal(running)}`,
    },
    { name: 'v_steps_needing_review', select: `SELECT * FROM ${table('Step')} WHERE ${membership('Step', 'awaitingReview')}` },
    {
      name: 'v_assets_by_type',
      select:
        `SELECT ${assetColumns}, latest.entry AS latest_version_metadata FROM ${assets} AS a ` +
        `LEFT JOIN LATERAL (SELECT entry FROM jsonb_array_elements(a.versions) AS entry ` +
        `WHERE (entry->>'version')::bigint = a.latest_version LIMIT 1) AS latest ON true ` +
        `WHERE ${membership('Asset', 'byType')}`,
    },
  ];
}

const q = (schema: string, name: string) => `${ident(schema)}.${ident(name)}`;
const list = (columns: readonly string[]) => columns.map(ident).join(', ');

/** `col type [NOT NULL] [DEFAULT …]`. */
export const columnSql = (c: Column) =>
  `${ident(c.name)} ${c.type}${c.collation ? ` COLLATE ${ident(c.collation)}` : ''}${c.notNull ? ' NOT NULL' : ''}${c.default ? ` DEFAULT ${c.default}` : ''}`;

/** The statement that makes `index` on `table` (named in full) unless an index of its name exists. */
export const indexSql = (table: string, index: IndexDef): string =>
  `CREATE ${index.unique ? 'UNIQUE ' : ''}INDEX IF NOT EXISTS ${ident(index.name)} ON ${table}${index.gin ? ' USING gin' : ''} (${list(index.columns)})${index.where ? ` WHERE ${index.where}` : ''}`;

/**
 * The comment every derived index carries: what tells applySchema and the drift check an index of
 * the schema's derivation (dropped once no declaration derives it) from one an operator or analyst
 * made (left alone).
 */
export const DERIVED_INDEX_COMMENT = 'artissist: derived from the entity declarations';

const derivedIndexComment = (schema: string, index: IndexDef) =>
  `COMMENT ON INDEX ${q(schema, index.name)} IS ${literal(DERIVED_INDEX_COMMENT)}`;

/** The policy's test: the row's tenant is the transaction's (no setting: no row, as NULL matches nothing). */
export const tenantCheck = `tenant_id = current_setting(${literal(TENANT_SETTING)}, true)`;

/**
 * The statements that make the schema, each one safe to run again (IF NOT EXISTS, or dropped and
 * made again: policies and views, which hold no data). Foreign keys are left out: PostgreSQL has no
 * `ADD CONSTRAINT IF NOT EXISTS`, so applySchema adds the missing ones (see foreignKeySql).
 */
export function schemaSql(derived: DerivedSchema): string[] {
  const { schema, app } = derived.roles;
  const out = [`CREATE SCHEMA IF NOT EXISTS ${ident(schema)}`, `GRANT USAGE ON SCHEMA ${ident(schema)} TO ${ident(app)}`];
  for (const view of derived.views) out.push(`DROP VIEW IF EXISTS ${q(schema, view.name)}`);
  for (const table of [...derived.tables, ...derived.storeTables]) {
    const name = q(schema, table.name);
    out.push(`CREATE TABLE IF NOT EXISTS ${name} (${table.columns.map(columnSql).join(', ')}, PRIMARY KEY (${list(table.primaryKey)}))`);
    // A column declared after the table was made is added (a derived migration); a new NOT NULL
    // column without a default fails on a table with rows, which then needs a migration of its own.
    for (const column of table.columns) out.push(`ALTER TABLE ${name} ADD COLUMN IF NOT EXISTS ${columnSql(column)}`);
    // Each marked as derived, so that applySchema finds it to drop once the declarations no longer derive it.
    for (const index of table.indexes) out.push(indexSql(name, index), derivedIndexComment(schema, index));
    // FORCE: the owner is bound too, so no query of any role but a superuser's reads across tenants.
    out.push(`ALTER TABLE ${name} ENABLE ROW LEVEL SECURITY`, `ALTER TABLE ${name} FORCE ROW LEVEL SECURITY`);
    out.push(`DROP POLICY IF EXISTS ${ident(TENANT_POLICY)} ON ${name}`);
    out.push(`CREATE POLICY ${ident(TENANT_POLICY)} ON ${name} USING (${tenantCheck}) WITH CHECK (${tenantCheck})`);
    out.push(`DROP POLICY IF EXISTS ${ident(CROSS_TENANT_POLICY)} ON ${name}`);
    out.push(
      `CREATE POLICY ${ident(CROSS_TENANT_POLICY)} ON ${name} FOR SELECT USING (current_setting(${literal(CROSS_TENANT_SETTING)}, true) = 'read')`,
    );
    out.push(`GRANT SELECT, INSERT, UPDATE, DELETE ON ${name} TO ${ident(app)}`);
  }
  if (derived.search) out.push(...searchIndexSql(derived.roles, derived.search));
  for (const view of derived.views) {
    // security_invoker: a view otherwise reads its tables with its owner's rights, and the owner's
    // policy is the same, but an owner that is a superuser (or gains BYPASSRLS) would read every
    // tenant through it; with it, the reader's own policy applies.
    out.push(`CREATE VIEW ${q(schema, view.name)} WITH (security_invoker = true) AS ${view.select}`);
    out.push(`GRANT SELECT ON ${q(schema, view.name)} TO ${ident(app)}`);
  }
  return out;
}

/**
 * A function of the schema's owner, as derived: made SECURITY DEFINER with a fixed search_path, so
 * nothing of the caller's changes what it names. The drift check compares each part with the
 * catalog (apply.ts, schemaDrift).
 */
export interface FunctionDef {
  name: string;
  /** Its parameters as the statement declares them (`item_table text, query tsquery, lim integer`). */
  params: string;
  /** Its argument types alone, as PostgreSQL's identity of it names them (`text, tsquery, integer`). */
  signature: string;
  /** As pg_get_function_result prints it (`SETOF text[]`, `trigger`). */
  returns: string;
  /** What goes between RETURNS and SECURITY DEFINER, beside the language (`STABLE`, `ROWS 10`). */
  attributes: string;
  /** The PL/pgSQL body, as the catalog keeps it (prosrc). */
  body: string;
  /** Executable by the server's role alone (EXECUTE revoked from PUBLIC); otherwise PostgreSQL's default. */
  appOnly: boolean;
}

/** The `search_path` every derived function runs with (its proconfig entry). */
export const FUNCTION_SEARCH_PATH = 'pg_catalog, pg_temp';

/** A trigger, as derived: AFTER INSERT OR UPDATE OR DELETE, FOR EACH ROW, calling the schema's `function` with `args`. */
export interface TriggerDef {
  name: string;
  table: string;
  function: string;
  args: string[];
}

/** The statement that makes (or replaces) a derived function. */
export function functionSql(schema: string, f: FunctionDef): string {
  return (
    `CREATE OR REPLACE FUNCTION ${q(schema, f.name)}(${f.params}) RETURNS ${f.returns} LANGUAGE plpgsql ${f.attributes ? `${f.attributes} ` : ''}` +
    `SECURITY DEFINER SET search_path = ${FUNCTION_SEARCH_PATH} AS $f$${f.body}$f$`
  );
}

/**
 * The search index's functions (see SEARCH_INDEX): the trigger function that keeps it, and the
 * search function, which only the server's role may execute.
 */
function searchFunctions(schema: string): FunctionDef[] {
  const table = q(schema, SEARCH_INDEX.name);
  const keyOf = (row: string) =>
    `ARRAY(SELECT to_jsonb(${row}) ->> c.name FROM unnest(TG_ARGV) WITH ORDINALITY AS c (name, n) ORDER BY c.n)`;
  return [
    {
      name: SEARCH_SYNC_FUNCTION,
      params: '',
      signature: '',
      returns: 'trigger',
      attributes: '',
      appOnly: false,
      body: `
BEGIN
  IF TG_OP = 'DELETE' OR (TG_OP = 'UPDATE' AND NEW.${SEARCH_VECTOR} IS NULL) THEN
    DELETE FROM ${table} WHERE tenant_id = OLD.tenant_id AND item_table = TG_TABLE_NAME AND item_key = ${keyOf('OLD')};
  END IF;
  IF TG_OP <> 'DELETE' AND NEW.${SEARCH_VECTOR} IS NOT NULL THEN
    INSERT INTO ${table} (tenant_id, item_table, item_key, ${SEARCH_VECTOR}) VALUES (NEW.tenant_id, TG_TABLE_NAME, ${keyOf('NEW')}, NEW.${SEARCH_VECTOR})
      ON CONFLICT (${list(SEARCH_INDEX.primaryKey)}) DO UPDATE SET ${SEARCH_VECTOR} = EXCLUDED.${SEARCH_VECTOR};
  END IF;
  RETURN NULL;
END
`,
    },
    // PL/pgSQL's EXECUTE plans the query with its values, as a query of the store's is planned (a SQL
    // function's body is planned blind to them, and then prefers a scan of the tenant's rows); ROWS
    // tells the caller's plan it returns a few keys, which it then joins by primary key.
    {
      name: SEARCH_KEYS_FUNCTION,
      params: 'item_table text, query tsquery, lim integer',
      signature: 'text, tsquery, integer',
      returns: 'SETOF text[]',
      attributes: 'STABLE ROWS 10',
      appOnly: true,
      body: `
BEGIN
  RETURN QUERY EXECUTE 'SELECT i.item_key FROM ${table.replace(/'/g, "''")} AS i WHERE i.tenant_id = current_setting(${literal(TENANT_SETTING).replace(/'/g, "''")}, true) AND i.item_table = $1 AND i.${SEARCH_VECTOR} @@ $2 LIMIT $3'
    USING item_table, query, lim;
END
`,
    },
  ];
}

/** The trigger on each searchable table that keeps the search index (see SEARCH_INDEX), named by the row's key columns. */
const searchTriggers = (sources: readonly TableDef[]): TriggerDef[] =>
  sources.map((source) => ({
    name: SEARCH_SYNC_FUNCTION,
    table: source.name,
    function: SEARCH_SYNC_FUNCTION,
    args: source.primaryKey.slice(1),
  }));

/** The statement that makes a derived trigger. */
export const triggerSql = (schema: string, t: TriggerDef): string =>
  `CREATE TRIGGER ${ident(t.name)} AFTER INSERT OR UPDATE OR DELETE ON ${q(schema, t.table)} FOR EACH ROW EXECUTE FUNCTION ${q(schema, t.function)}(${t.args.map(literal).join(', ')})`;

/**
 * The search index's statements (see SEARCH_INDEX): the table, its GIN index and its policy (enabled, not forced; no grant to the server's
 * role), its functions (searchFunctions) and a trigger on each searchable table.
 */
function searchIndexSql({ schema, app }: SchemaRoles, search: NonNullable<DerivedSchema['search']>): string[] {
  const table = q(schema, SEARCH_INDEX.name);
  const index = SEARCH_INDEX.indexes[0];
  const out = [
    `CREATE TABLE IF NOT EXISTS ${table} (${SEARCH_INDEX.columns.map(columnSql).join(', ')}, PRIMARY KEY (${list(SEARCH_INDEX.primaryKey)}))`,
    indexSql(table, index),
    derivedIndexComment(schema, index),
    `ALTER TABLE ${table} ENABLE ROW LEVEL SECURITY`,
    `DROP POLICY IF EXISTS ${ident(TENANT_POLICY)} ON ${table}`,
    `CREATE POLICY ${ident(TENANT_POLICY)} ON ${table} USING (${tenantCheck}) WITH CHECK (${tenantCheck})`,
  ];
  for (const f of search.functions) {
    out.push(functionSql(schema, f));
    if (!f.appOnly) continue;
    out.push(`REVOKE ALL ON FUNCTION ${q(schema, f.name)}(${f.signature}) FROM PUBLIC`);
    out.push(`GRANT EXECUTE ON FUNCTION ${q(schema, f.name)}(${f.signature}) TO ${ident(app)}`);
  }
  for (const trigger of search.triggers) {
    out.push(`DROP TRIGGER IF EXISTS ${ident(trigger.name)} ON ${q(schema, trigger.table)}`);
    out.push(triggerSql(schema, trigger));
  }
  return out;
}

/**
 * The statement that fills the search index with `source`'s rows (see SEARCH_INDEX), for a table
 * made before it: run by the owner in a transaction that reads across tenants (its policies bind
 * the owner too).
 */
export function searchIndexFillSql(schema: string, source: TableDef): string {
  const key = source.primaryKey.slice(1).map((c) => `${ident(c)}::text`);
  return (
    `INSERT INTO ${q(schema, SEARCH_INDEX.name)} (tenant_id, item_table, item_key, ${SEARCH_VECTOR}) ` +
    `SELECT tenant_id, ${literal(source.name)}, ARRAY[${key.join(', ')}]::text[], ${SEARCH_VECTOR} FROM ${q(schema, source.name)} ` +
    `WHERE ${SEARCH_VECTOR} IS NOT NULL ON CONFLICT DO NOTHING`
  );
}

/** The statement that adds one foreign key (see ForeignKeyDef). */
export function foreignKeySql(schema: string, table: TableDef, fk: ForeignKeyDef): string {
  return (
    `ALTER TABLE ${q(schema, table.name)} ADD CONSTRAINT ${ident(fk.name)} FOREIGN KEY (${list(fk.columns)}) ` +
    `REFERENCES ${q(schema, fk.table)} (${list(fk.references)})` +
    `${fk.setNull ? ` ON DELETE SET NULL (${ident(fk.setNull)})` : ''} DEFERRABLE INITIALLY DEFERRED`
  );
}
