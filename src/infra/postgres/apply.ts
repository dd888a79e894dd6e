import { type ClientBase, escapeIdentifier as ident, escapeLiteral as literal } from 'pg';
import {
  CROSS_TENANT_POLICY,
  CROSS_TENANT_SETTING,
  type DerivedSchema,
  foreignKeySql,
  type SchemaRoles,
  schemaSql,
  searchIndexFillSql,
  type TableDef,
  TENANT_POLICY,
  TENANT_SETTING,
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
 * column, index, policy, grant and view it lacks is added, and what it has is left as it is (no
 * column is dropped or retyped; the drift check reports those). Two instances applying at once take
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
    for (const statement of schemaSql(derived)) await client.query(statement);
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
 * Writes the key columns of a table's keyed indexes (schema.ts, isKeyed) on every row it holds, in
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
 * everything): missing tables, columns, indexes, foreign keys, policies and views, a column of
 * another type or nullability, a primary key of other columns, row-level security not enabled or
 * not forced. What the database has beyond the derivation is not reported (a column a declaration
 * dropped is left for a migration to remove). Reads the catalog only; throws what PostgreSQL throws.
 */
export async function schemaDrift(client: ClientBase, derived: DerivedSchema): Promise<string[]> {
  const { schema } = derived.roles;
  const relations = await client.query<{ relname: string; relkind: string; rls: boolean; forced: boolean }>(
    `SELECT c.relname, c.relkind, c.relrowsecurity AS rls, c.relforcerowsecurity AS forced
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = $1 AND c.relkind IN ('r', 'v')`,
    [schema],
  );
  const columns = await client.query<{ relname: string; attname: string; type: string; notnull: boolean }>(
    `SELECT c.relname, a.attname, format_type(a.atttypid, a.atttypmod) AS type, a.attnotnull AS notnull
       FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
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
  const indexes = await client.query<{ tablename: string; indexname: string }>(
    'SELECT tablename, indexname FROM pg_indexes WHERE schemaname = $1',
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
  const index = new Set(indexes.rows.map((i) => `${i.tablename}.${i.indexname}`));
  const policy = new Set(policies.rows.map((p) => `${p.tablename}.${p.policyname}`));

  const drift: string[] = [];
  for (const table of [...derived.tables, ...derived.storeTables]) {
    const found = relation.get(table.name);
    if (found?.relkind !== 'r') {
      drift.push(`missing table ${table.name}`);
      continue;
    }
    for (const declared of table.columns) {
      const have = column.get(`${table.name}.${declared.name}`);
      if (!have) drift.push(`missing column ${table.name}.${declared.name}`);
      else if (have.type !== declared.type) drift.push(`column ${table.name}.${declared.name} is ${have.type}, declared ${declared.type}`);
      else if (have.notnull !== declared.notNull)
        drift.push(
          `column ${table.name}.${declared.name} is ${have.notnull ? 'NOT NULL' : 'nullable'}, declared ${declared.notNull ? 'NOT NULL' : 'nullable'}`,
        );
    }
    const key = table.primaryKey.join(', ');
    if (primaryKey.get(table.name) !== key)
      drift.push(`primary key of ${table.name} is (${primaryKey.get(table.name) ?? 'none'}), declared (${key})`);
    for (const declared of table.indexes)
      if (!index.has(`${table.name}.${declared.name}`)) drift.push(`missing index ${declared.name} on ${table.name}`);
    for (const fk of table.foreignKeys) if (!foreignKeys.has(fk.name)) drift.push(`missing foreign key ${fk.name} on ${table.name}`);
    if (!found.rls) drift.push(`row-level security is not enabled on ${table.name}`);
    if (!found.forced) drift.push(`row-level security is not forced on ${table.name}`);
    for (const name of [TENANT_POLICY, CROSS_TENANT_POLICY])
      if (!policy.has(`${table.name}.${name}`)) drift.push(`missing policy ${name} on ${table.name}`);
  }
  for (const view of derived.views) if (relation.get(view.name)?.relkind !== 'v') drift.push(`missing view ${view.name}`);
  if (derived.search && relation.get(derived.search.table.name)?.relkind !== 'r') drift.push(`missing table ${derived.search.table.name}`);
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

async function inTransaction<T>(client: ClientBase, work: () => Promise<T>, begin = 'BEGIN'): Promise<T> {
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
  await client.query('COMMIT');
  return result;
}

async function foreignKeyNames(client: ClientBase, schema: string): Promise<Set<string>> {
  const found = await client.query<{ conname: string }>(
    `SELECT con.conname FROM pg_constraint con JOIN pg_namespace n ON n.oid = con.connamespace WHERE n.nspname = $1 AND con.contype = 'f'`,
    [schema],
  );
  return new Set(found.rows.map((r) => r.conname));
}
