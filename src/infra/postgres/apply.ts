import { type ClientBase, escapeIdentifier as ident, escapeLiteral as literal } from 'pg';
import {
  CROSS_TENANT_POLICY,
  CROSS_TENANT_SETTING,
  columnSql,
  DERIVED_INDEX_COMMENT,
  type DerivedSchema,
  FUNCTION_SEARCH_PATH,
  foreignKeySql,
  indexSql,
  type SchemaRoles,
  schemaSql,
  searchIndexFillSql,
  type TableDef,
  TENANT_POLICY,
  TENANT_SETTING,
  triggerSql,
} from './schema';

/*
 * Sending the derived schema (src/infra/postgres/schema.ts) to a database, and checking a database
 * against it. The server does neither: an operator (or the tests) runs them with the owner's role.
 */

/**
 * Makes (or brings up to date) the two roles of docs/postgres.md on a database, as an
 * administrator (a superuser or a role with CREATEROLE): the schema's owner, allowed to create
 * schemas in `database`, and the server's role, which owns nothing and cannot bypass row-level
 * security. Both may log in with the given passwords and find the schema's tables unqualified.
 * Safe to run again. Throws what PostgreSQL throws (no right to create roles, for one).
 */
export async function createRoles(
  admin: ClientBase,
  roles: SchemaRoles,
  passwords: { owner: string; app: string },
  database: string,
): Promise<void> {
  const existing = new Set(
    (await admin.query<{ rolname: string }>('SELECT rolname FROM pg_roles WHERE rolname = ANY($1)', [[roles.owner, roles.app]])).rows.map(
      (r) => r.rolname,
    ),
  );
  // NOINHERIT and no memberships: the server's role cannot SET ROLE to the owner or take its rights.
  const attributes = 'LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS NOINHERIT';
  for (const [role, password] of [
    [roles.owner, passwords.owner],
    [roles.app, passwords.app],
  ] as const) {
    await admin.query(`${existing.has(role) ? 'ALTER' : 'CREATE'} ROLE ${ident(role)} ${attributes} PASSWORD ${literal(password)}`);
    await admin.query(`ALTER ROLE ${ident(role)} SET search_path TO ${ident(roles.schema)}`);
  }
  await admin.query(`GRANT CREATE, CONNECT ON DATABASE ${ident(database)} TO ${ident(roles.owner)}`);
  await admin.query(`GRANT CONNECT ON DATABASE ${ident(database)} TO ${ident(roles.app)}`);
}

/**
 * Applies the derived schema in one transaction, on a connection of the owner's role: every table,
 * column, index, policy, grant, function, trigger and view it lacks is added; an index the
 * derivation no longer makes (see schemaDrift) is dropped, and one it makes otherwise is made again;
 * columns are left as they are (no column is dropped or retyped; the drift check reports those). Two instances applying at once take
 * turns (an advisory lock). A keyed index's key columns added to a table made before are filled by
 * `fillKeys` in the same transaction; throws without it when any are. Throws what PostgreSQL
 * throws, after rolling back.
 */
export async function applySchema(client: ClientBase, derived: DerivedSchema, fillKeys?: IndexKeyFill): Promise<void> {
  const { schema } = derived.roles;
  await inTransaction(client, async () => {
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`artissist schema ${schema}`]);
    const unfilled = await tablesLackingIndexKeys(client, derived);
    const searchIndexed = !derived.search || (await tableExists(client, schema, derived.search.table.name));
    if (unfilled.length > 0 && !fillKeys)
      throw new Error(`Tables ${unfilled.map((t) => t.name).join(', ')} lack index key columns, which only the models can fill.`);
    // An index derived otherwise before (another definition, a plain index a keyed one replaced, a
    // declaration's index since removed), or left invalid by a failed build, is dropped here and,
    // where still derived, made again below: IF NOT EXISTS would keep the old one under its name.
    for (const change of await indexDrift(client, derived))
      if (change.drop) await client.query(`DROP INDEX ${ident(schema)}.${ident(change.name)}`);
    // One round trip for the whole schema (some hundred statements), as one simple query.
    await client.query(schemaSql(derived).join(';\n'));
    const have = await foreignKeyNames(client, schema);
    for (const table of derived.tables) {
      for (const fk of table.foreignKeys) if (!have.has(fk.name)) await client.query(foreignKeySql(schema, table, fk));
    }
    // In the same transaction as the columns: a crash leaves neither, and the next start adds and fills both.
    for (const table of unfilled) await fillKeys?.(client, table);
    // A search index made now holds the words of the rows written before it (read across tenants).
    if (derived.search && !searchIndexed) {
      await client.query('SELECT set_config($1, $2, true)', [CROSS_TENANT_SETTING, 'read']);
      for (const source of derived.search.sources) await client.query(searchIndexFillSql(schema, source));
      await client.query('SELECT set_config($1, $2, true)', [CROSS_TENANT_SETTING, '']);
    }
  });
}

/**
 * Writes the key columns of a table's keyed indexes (schema.ts, keyedIndexes) on every row it holds, in
 * the transaction of `applySchema`, which added them to a table made before; the key is made by
 * the models' code, which the caller holds (see fillIndexKeys in store.ts).
 */
export type IndexKeyFill = (client: ClientBase, table: TableDef) => Promise<void>;

async function tableExists(client: ClientBase, schema: string, table: string): Promise<boolean> {
  const found = await client.query('SELECT 1 FROM pg_tables WHERE schemaname = $1 AND tablename = $2', [schema, table]);
  return found.rows.length > 0;
}

/** The derived tables that exist but lack a column of a keyed index's key (so their rows have none written). */
async function tablesLackingIndexKeys(client: ClientBase, derived: DerivedSchema): Promise<TableDef[]> {
  const found = await client.query<{ relname: string; attname: string | null }>(
    `SELECT c.relname, a.attname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       LEFT JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
      WHERE n.nspname = $1 AND c.relkind = 'r'`,
    [derived.roles.schema],
  );
  const columns = new Set(found.rows.map((r) => `${r.relname}.${r.attname}`));
  const tables = new Set(found.rows.map((r) => r.relname));
  return derived.tables.filter(
    (table) =>
      tables.has(table.name) &&
      Object.values(table.indexKeys ?? {}).some(({ pk, sk }) => !columns.has(`${table.name}.${pk}`) || !columns.has(`${table.name}.${sk}`)),
  );
}

/**
 * How the database differs from the derived schema, one sentence a difference (empty when it has
 * everything): missing tables, columns, indexes, foreign keys, policies, views, functions and
 * triggers; a column of another type, nullability or collation; a primary key of other columns; an
 * index defined otherwise than derived (its columns, method, uniqueness or predicate), or left
 * invalid by a failed build; a derived index the declarations no longer derive (see
 * DERIVED_INDEX_COMMENT; an index someone else made is not reported); a function that is not the
 * owner's SECURITY DEFINER one with the derived body, search_path and result, or that PUBLIC may
 * execute where only the server's role may; a trigger disabled or not firing as derived; row-level
 * security not enabled or not forced (the search index's: enabled and not forced, with no right for
 * the server's role). What the database has beyond that is not reported (a column a declaration
 * dropped is left for a migration to remove). Reads the catalog, and makes the derived indexes on
 * temporary tables in a transaction it rolls back, for PostgreSQL to print them as it prints the
 * database's (so the role needs the TEMP right on the database, which PUBLIC has by default).
 * Throws what PostgreSQL throws.
 */
export async function schemaDrift(client: ClientBase, derived: DerivedSchema): Promise<string[]> {
  // Nothing to keep: the temporary tables go with the rollback.
  return inTransaction(client, () => driftIn(client, derived), 'BEGIN', 'ROLLBACK');
}

/** schemaDrift's check, in the caller's transaction. */
async function driftIn(client: ClientBase, derived: DerivedSchema): Promise<string[]> {
  const { schema } = derived.roles;
  const relations = await client.query<{ relname: string; relkind: string; rls: boolean; forced: boolean }>(
    `SELECT c.relname, c.relkind, c.relrowsecurity AS rls, c.relforcerowsecurity AS forced
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = $1 AND c.relkind IN ('r', 'v')`,
    [schema],
  );
  const columns = await client.query<{ relname: string; attname: string; type: string; notnull: boolean; collation: string | null }>(
    `SELECT c.relname, a.attname, format_type(a.atttypid, a.atttypmod) AS type, a.attnotnull AS notnull,
            CASE WHEN a.attcollation <> t.typcollation THEN co.collname END AS collation
       FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
       JOIN pg_type t ON t.oid = a.atttypid LEFT JOIN pg_collation co ON co.oid = a.attcollation
      WHERE n.nspname = $1 AND c.relkind = 'r' AND a.attnum > 0 AND NOT a.attisdropped`,
    [schema],
  );
  const primaryKeys = await client.query<{ relname: string; columns: string[] }>(
    `SELECT c.relname, array_agg(a.attname::text ORDER BY k.ord) AS columns
       FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid JOIN pg_namespace n ON n.oid = c.relnamespace
       CROSS JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, ord)
       JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = k.attnum
      WHERE n.nspname = $1 AND i.indisprimary GROUP BY c.relname`,
    [schema],
  );
  const policies = await client.query<{ tablename: string; policyname: string }>(
    'SELECT tablename, policyname FROM pg_policies WHERE schemaname = $1',
    [schema],
  );
  const foreignKeys = await foreignKeyNames(client, schema);

  const relation = new Map(relations.rows.map((r) => [r.relname, r]));
  const column = new Map(columns.rows.map((c) => [`${c.relname}.${c.attname}`, c]));
  const primaryKey = new Map(primaryKeys.rows.map((p) => [p.relname, p.columns.join(', ')]));
  const policy = new Set(policies.rows.map((p) => `${p.tablename}.${p.policyname}`));

  const drift: string[] = [];
  const search = derived.search?.table;
  for (const table of [...derived.tables, ...derived.storeTables, ...(search ? [search] : [])]) {
    const found = relation.get(table.name);
    if (found?.relkind !== 'r') {
      drift.push(`missing table ${table.name}`);
      continue;
    }
    for (const declared of table.columns) {
      const have = column.get(`${table.name}.${declared.name}`);
      const name = `${table.name}.${declared.name}`;
      if (!have) drift.push(`missing column ${name}`);
      else if (have.type !== declared.type) drift.push(`column ${name} is ${have.type}, declared ${declared.type}`);
      else if (have.notnull !== declared.notNull)
        drift.push(`column ${name} is ${have.notnull ? 'NOT NULL' : 'nullable'}, declared ${declared.notNull ? 'NOT NULL' : 'nullable'}`);
      else if ((have.collation ?? undefined) !== declared.collation)
        drift.push(`column ${name} is collated ${have.collation ?? 'as its type'}, declared ${declared.collation ?? 'as its type'}`);
    }
    const key = table.primaryKey.join(', ');
    if (primaryKey.get(table.name) !== key)
      drift.push(`primary key of ${table.name} is (${primaryKey.get(table.name) ?? 'none'}), declared (${key})`);
    for (const fk of table.foreignKeys) if (!foreignKeys.has(fk.name)) drift.push(`missing foreign key ${fk.name} on ${table.name}`);
    if (!found.rls) drift.push(`row-level security is not enabled on ${table.name}`);
    // The search index's is not forced: its owner's search function reads it through its GIN index (schema.ts, SEARCH_INDEX).
    if (table === search) {
      if (found.forced) drift.push(`row-level security is forced on ${table.name}, which its owner's functions read`);
    } else if (!found.forced) drift.push(`row-level security is not forced on ${table.name}`);
    for (const name of table === search ? [TENANT_POLICY] : [TENANT_POLICY, CROSS_TENANT_POLICY])
      if (!policy.has(`${table.name}.${name}`)) drift.push(`missing policy ${name} on ${table.name}`);
  }
  if (search && relation.get(search.name)?.relkind === 'r') {
    const rights = await client.query<{ any: boolean }>(`SELECT has_table_privilege($1, $2, 'SELECT, INSERT, UPDATE, DELETE') AS any`, [
      derived.roles.app,
      `${ident(schema)}.${ident(search.name)}`,
    ]);
    if (rights.rows[0]?.any) drift.push(`${derived.roles.app} has rights on ${search.name}, which it may only search through its function`);
  }
  for (const change of await indexDrift(client, derived)) drift.push(change.drift);
  drift.push(...(await functionDrift(client, derived)), ...(await triggerDrift(client, derived)));
  for (const view of derived.views) if (relation.get(view.name)?.relkind !== 'v') drift.push(`missing view ${view.name}`);
  return drift;
}

/** An index that differs from the derivation: what the drift check says of it, and whether applySchema drops it (to make it again where derived). */
interface IndexChange {
  table: string;
  name: string;
  drift: string;
  drop: boolean;
}

/** A definition as pg_get_indexdef prints it, without the table's schema (the derived ones are printed from temporary tables). */
const unqualified = (definition: string) => definition.replace(/ ON (?:"[^"]+"|[^ ."]+)\./, ' ON ');

/**
 * How the indexes of the derived tables differ from the derivation: missing, invalid (a failed
 * build), defined otherwise, or derived once and no longer (DERIVED_INDEX_COMMENT, or a retired
 * name: TableDef.retiredIndexes). The derived definitions are PostgreSQL's own print of the derived
 * statements, made on temporary tables of the derived columns in a savepoint rolled back after, so
 * both sides are compared as PostgreSQL normalizes them (a predicate's casts and parentheses).
 * Indexes that make a table's own constraint (its primary key) are the primary key check's.
 */
async function indexDrift(client: ClientBase, derived: DerivedSchema): Promise<IndexChange[]> {
  const { schema } = derived.roles;
  const tables = [...derived.tables, ...derived.storeTables, ...(derived.search ? [derived.search.table] : [])];
  const found = await client.query<{ table: string; name: string; definition: string; valid: boolean; comment: string | null }>(
    `SELECT t.relname AS table, i.relname AS name, pg_get_indexdef(i.oid) AS definition, x.indisvalid AS valid,
            obj_description(i.oid, 'pg_class') AS comment
       FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid
       JOIN pg_namespace n ON n.oid = t.relnamespace
      WHERE n.nspname = $1
        AND NOT EXISTS (SELECT 1 FROM pg_constraint con WHERE con.conindid = i.oid AND con.conrelid = t.oid AND con.contype IN ('p', 'u', 'x'))`,
    [schema],
  );
  const have = new Map(found.rows.map((row) => [row.name, row]));
  // A database without any of them (a fresh one) has no definition to compare: no temporary tables then.
  const made = found.rows.some((row) => tables.some((table) => table.indexes.some((index) => index.name === row.name)))
    ? await derivedIndexDefinitions(client, tables)
    : new Map<string, string>();
  const changes: IndexChange[] = [];
  const derivedNames = new Set(tables.flatMap((table) => table.indexes.map((index) => index.name)));
  const present = new Set(
    (await client.query<{ tablename: string }>('SELECT tablename FROM pg_tables WHERE schemaname = $1', [schema])).rows.map(
      (r) => r.tablename,
    ),
  );
  for (const table of tables) {
    // A missing table is reported as such, not as each of its indexes.
    for (const index of present.has(table.name) ? table.indexes : []) {
      const existing = have.get(index.name);
      const expected = made.get(index.name) ?? '';
      const change = (drift: string) => changes.push({ table: table.name, name: index.name, drift, drop: existing !== undefined });
      if (!existing) change(`missing index ${index.name} on ${table.name}`);
      else if (existing.table !== table.name) change(`index ${index.name} is on ${existing.table}, derived on ${table.name}`);
      else if (!existing.valid) change(`index ${index.name} on ${table.name} is invalid (a build that failed)`);
      else if (unqualified(existing.definition) !== unqualified(expected))
        change(`index ${index.name} on ${table.name} is ${unqualified(existing.definition)}, derived ${unqualified(expected)}`);
    }
    const retired = new Set(table.retiredIndexes ?? []);
    for (const existing of found.rows) {
      if (existing.table !== table.name || derivedNames.has(existing.name)) continue;
      if (existing.comment === DERIVED_INDEX_COMMENT || retired.has(existing.name))
        changes.push({
          table: table.name,
          name: existing.name,
          drift: `index ${existing.name} on ${table.name} is no longer derived`,
          drop: true,
        });
    }
  }
  return changes;
}

/** The derived indexes of `tables` as pg_get_indexdef prints them, by name: made on temporary tables in a savepoint, then rolled back. */
async function derivedIndexDefinitions(client: ClientBase, tables: readonly TableDef[]): Promise<Map<string, string>> {
  await client.query('SAVEPOINT derived_indexes');
  try {
    // One round trip: the statements hold nothing of a caller's (names and types of the derivation only).
    const statements = tables
      .filter((table) => table.indexes.length > 0)
      .flatMap((table) => [
        `CREATE TEMPORARY TABLE ${ident(table.name)} (${table.columns.map(columnSql).join(', ')})`,
        ...table.indexes.map((index) => indexSql(`pg_temp.${ident(table.name)}`, index)),
      ]);
    await client.query(statements.join(';\n'));
    const out = await client.query<{ name: string; definition: string }>(
      `SELECT i.relname AS name, pg_get_indexdef(i.oid) AS definition FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid
        WHERE i.relnamespace = pg_my_temp_schema()`,
    );
    return new Map(out.rows.map((row) => [row.name, row.definition]));
  } finally {
    await client.query('ROLLBACK TO SAVEPOINT derived_indexes');
    await client.query('RELEASE SAVEPOINT derived_indexes');
  }
}

/**
 * How the derived functions differ from the catalog's: missing (by name and argument types), not
 * SECURITY DEFINER, owned by another role than the schema's owner, another body, search_path or
 * result, and for one only the server's role may run, executable by PUBLIC or not by that role.
 */
async function functionDrift(client: ClientBase, derived: DerivedSchema): Promise<string[]> {
  const { schema, owner, app } = derived.roles;
  const drift: string[] = [];
  for (const f of derived.search?.functions ?? []) {
    const identity = `${f.name}(${f.signature})`;
    const out = await client.query<{
      definer: boolean;
      owner: string;
      body: string;
      config: string[] | null;
      result: string;
      public: boolean;
      app: boolean;
    }>(
      `SELECT p.prosecdef AS definer, pg_get_userbyid(p.proowner) AS owner, p.prosrc AS body, p.proconfig AS config,
              pg_get_function_result(p.oid) AS result,
              EXISTS (SELECT 1 FROM aclexplode(coalesce(p.proacl, acldefault('f', p.proowner))) AS a
                       WHERE a.grantee = 0 AND a.privilege_type = 'EXECUTE') AS public,
              has_function_privilege($2, p.oid, 'EXECUTE') AS app
         FROM pg_proc p WHERE p.oid = to_regprocedure($1)`,
      [`${ident(schema)}.${ident(f.name)}(${f.signature})`, app],
    );
    const have = out.rows[0];
    if (!have) {
      drift.push(`missing function ${identity}`);
      continue;
    }
    if (!have.definer) drift.push(`function ${identity} is not SECURITY DEFINER`);
    if (have.owner !== owner) drift.push(`function ${identity} is owned by ${have.owner}, derived ${owner}`);
    if (have.body !== f.body) drift.push(`function ${identity} has another body than the derived one`);
    const searchPath = `search_path=${FUNCTION_SEARCH_PATH}`;
    if ((have.config ?? []).join(';') !== searchPath)
      drift.push(`function ${identity} runs with ${(have.config ?? []).join(';') || 'the caller’s search_path'}, derived ${searchPath}`);
    if (have.result !== f.returns) drift.push(`function ${identity} returns ${have.result}, derived ${f.returns}`);
    if (f.appOnly && have.public) drift.push(`function ${identity} may be executed by PUBLIC, derived ${app} only`);
    if (f.appOnly && !have.app) drift.push(`function ${identity} may not be executed by ${app}`);
  }
  return drift;
}

/** PostgreSQL's pg_trigger.tgtype bits of a derived trigger: FOR EACH ROW, AFTER (no BEFORE bit), INSERT, DELETE and UPDATE. */
const AFTER_ROW_WRITES = 1 | 4 | 8 | 16;

/** A trigger's arguments as pg_trigger.tgargs holds them (each ended by a NUL), NUL-separated. */
function argumentsOf(tgargs: Buffer): string {
  const text = tgargs.toString('utf8');
  return text.endsWith('\u0000') ? text.slice(0, -1) : text;
}

/** How the derived triggers differ from the catalog's: missing, disabled, or firing otherwise (when, on what, which function, its arguments). */
async function triggerDrift(client: ClientBase, derived: DerivedSchema): Promise<string[]> {
  const { schema } = derived.roles;
  const triggers = derived.search?.triggers ?? [];
  if (triggers.length === 0) return [];
  const out = await client.query<{
    table: string;
    name: string;
    enabled: string;
    type: number;
    fn: string | null;
    args: Buffer;
    definition: string;
  }>(
    `SELECT c.relname AS table, t.tgname AS name, t.tgenabled AS enabled, t.tgtype::int AS type,
            CASE WHEN pn.nspname = $1 THEN p.proname END AS fn,
            t.tgargs AS args,
            pg_get_triggerdef(t.oid) AS definition
       FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace
       JOIN pg_proc p ON p.oid = t.tgfoid JOIN pg_namespace pn ON pn.oid = p.pronamespace
      WHERE n.nspname = $1 AND NOT t.tgisinternal`,
    [schema],
  );
  const have = new Map(out.rows.map((row) => [`${row.table}.${row.name}`, row]));
  const drift: string[] = [];
  for (const trigger of triggers) {
    const found = have.get(`${trigger.table}.${trigger.name}`);
    if (!found) drift.push(`missing trigger ${trigger.name} on ${trigger.table}`);
    else if (found.enabled === 'D') drift.push(`trigger ${trigger.name} on ${trigger.table} is disabled`);
    else if (found.type !== AFTER_ROW_WRITES || found.fn !== trigger.function || argumentsOf(found.args) !== trigger.args.join('\u0000'))
      drift.push(`trigger ${trigger.name} on ${trigger.table} is ${found.definition}, derived ${triggerSql(schema, trigger)}`);
  }
  return drift;
}

/**
 * Runs `work` in one transaction whose tenant is `tenantId` (SET LOCAL through set_config(…, true),
 * so the setting ends with the transaction and a pooled connection carries nothing to its next
 * user): under the server's role, row-level security shows and lets it write that tenant's rows
 * only. Throws when `tenantId` is empty, and rethrows what `work` or PostgreSQL throws after
 * rolling back.
 */
export async function withTenant<T>(client: ClientBase, tenantId: string, work: (client: ClientBase) => Promise<T>): Promise<T> {
  if (!tenantId) throw new Error('withTenant needs a tenant id.');
  return inTransaction(client, async () => {
    await client.query('SELECT set_config($1, $2, true)', [TENANT_SETTING, tenantId]);
    return work(client);
  });
}

/**
 * Runs `work` in one read-only transaction that sees every tenant's rows (CROSS_TENANT_SETTING): for
 * the reads of an index declared across tenants, and nothing else. PostgreSQL refuses any write in
 * it, and the setting ends with it. Rethrows what `work` or PostgreSQL throws after rolling back.
 */
export async function withCrossTenantRead<T>(client: ClientBase, work: (client: ClientBase) => Promise<T>): Promise<T> {
  return inTransaction(
    client,
    async () => {
      await client.query('SELECT set_config($1, $2, true)', [CROSS_TENANT_SETTING, 'read']);
      return work(client);
    },
    'BEGIN READ ONLY',
  );
}

/** Runs `work` between `begin` and `end` (COMMIT, or ROLLBACK for a transaction that keeps nothing); rolls back and rethrows what it throws. */
async function inTransaction<T>(
  client: ClientBase,
  work: () => Promise<T>,
  begin = 'BEGIN',
  end: 'COMMIT' | 'ROLLBACK' = 'COMMIT',
): Promise<T> {
  await client.query(begin);
  let result: T;
  try {
    result = await work();
  } catch (error) {
    try {
      await client.query('ROLLBACK');
    } catch (rollbackError) {
      throw new AggregateError([error, rollbackError], 'The transaction failed, and so did its rollback.');
    }
    throw error;
  }
  await client.query(end);
  return result;
}

async function foreignKeyNames(client: ClientBase, schema: string): Promise<Set<string>> {
  const found = await client.query<{ conname: string }>(
    `SELECT con.conname FROM pg_constraint con JOIN pg_namespace n ON n.oid = con.connamespace WHERE n.nspname = $1 AND con.contype = 'f'`,
    [schema],
  );
  return new Set(found.rows.map((r) => r.conname));
}
