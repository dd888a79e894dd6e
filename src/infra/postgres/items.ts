import {
  type AnyModel,
  type Attribute,
  type IndexDeclaration,
  indexAttributesOf,
  isCondition,
  MODEL_INDEX_ATTRIBUTES,
  placeholdersOf,
  QUOTA_COUNTED_ATTRIBUTE,
  SEARCH_SLOTS_ATTRIBUTE,
  shardIn,
  shardKey,
} from '../dynamo/entity';
import { type Key, keySchemas, TTL_ATTRIBUTE } from '../dynamo/table';
import type { Item } from '../dynamo/write';
import type { Projection, QuerySpec } from '../store-api';
import { indexedWords } from '../words';
import { type Column, type DerivedSchema, type IndexKeyColumns, SEARCH_VECTOR, snake, type TableDef } from './schema';

/*
 * Items and rows: which derived table an item of the store interface lives in (by its key, matched
 * against every declaration's key template), the row that holds it, and the item a row reads back
 * as. Keys and index keys are never stored: a row's item gets them derived again from its values by
 * the same model code the DynamoDB store writes them with, so both stores order and match a query
 * by the same strings. Pure: the PostgreSQL store (store.ts) sends the SQL.
 */

/** A key template compiled: its placeholders in order, and a pattern that captures their values. */
interface Pattern {
  names: string[];
  regex: RegExp;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * `template` as a whole-string pattern. A placeholder's value holds no `#` (ids, times, numbers,
 * normalized text and idempotency keys have none), so `#` separates values exactly as it does in a key.
 */
function compile(template: string): Pattern {
  const parts = template.split(/\{(\w+)\}/);
  const names: string[] = [];
  let source = '';
  parts.forEach((part, i) => {
    if (i % 2 === 0) source += escapeRegExp(part);
    else {
      names.push(part);
      source += '([^#]*)';
    }
  });
  return { names, regex: new RegExp(`^${source}$`) };
}

/** The values `pattern` captures from `text`, by placeholder name, or undefined when it does not match. */
function match(pattern: Pattern, text: string): Record<string, string> | undefined {
  const found = pattern.regex.exec(text);
  if (!found) return undefined;
  return Object.fromEntries(pattern.names.map((name, i) => [name, found[i + 1]]));
}

/**
 * What a prefix of a template fixes: the values of the placeholders it gives whole (`PROJECT#p#LOG#`
 * on `PROJECT#{projectId}#LOG#{logId}` gives projectId), or undefined when no key of the template
 * can start with it.
 */
function prefixValues(template: string, prefix: string): Record<string, string> | undefined {
  const parts = template.split(/\{(\w+)\}/);
  const values: Record<string, string> = {};
  let rest = prefix;
  for (let i = 0; i < parts.length; i++) {
    if (rest === '') return values;
    const part = parts[i];
    if (i % 2 === 0) {
      if (rest.startsWith(part)) rest = rest.slice(part.length);
      else return part.startsWith(rest) ? values : undefined;
      continue;
    }
    const end = rest.indexOf('#');
    // The prefix ends inside this value: it fixes no more (the key's own test says which match).
    if (end < 0) return values;
    values[part] = rest.slice(0, end);
    rest = rest.slice(end);
  }
  return rest === '' ? values : undefined;
}

/** A column of a row, with the attribute of the item it holds. */
export interface Field {
  column: Column;
  attribute: string;
  /** The declared kind, for what a key's text becomes in this column. */
  kind: Attribute['kind'] | 'system';
}

/** Attributes of the DynamoDB design that a row has no column for, because they are derived again on read or belong to DynamoDB alone. */
const NOT_STORED = new Set([
  'PK',
  'SK',
  'entityType',
  ...MODEL_INDEX_ATTRIBUTES,
  // The outbox's index key, which the outbox table keeps (OUTBOX_TABLE, schema.ts).
  keySchemas.OUTBOX.pk,
  keySchemas.OUTBOX.sk,
  // The trace context an event carries with tracing on; traces do not cross PostgreSQL yet.
  'traceparent',
]);

/** One entity's table as the store uses it: how keys route to it and how its rows and items convert. */
export class EntityTable {
  readonly pk: Pattern;
  readonly sk: Pattern;
  /** The columns of the primary key after tenant_id, with the key placeholder each holds. */
  readonly keyFields: Field[];
  private readonly fields: Field[];
  private readonly byAttribute: Map<string, Field>;
  /** The key columns of each keyed index of the entity (schema.ts, keyedIndexes), by its declaration. */
  readonly indexKeys: ReadonlyMap<IndexDeclaration, IndexKeyColumns>;

  constructor(
    readonly model: AnyModel,
    readonly def: TableDef,
  ) {
    this.pk = compile(`TENANT#{tenantId}${model.key.shape.pk ? `#${model.key.shape.pk}` : ''}`);
    this.sk = compile(model.key.shape.sk);
    const attributes: Record<string, Attribute> = model.attributes;
    const named = new Map<string, string>();
    const name = (attribute: string) => named.set(snake(attribute), attribute);
    for (const attribute of [...model.keyFields, ...Object.keys(attributes), ...(model.status ? [model.status.attribute] : [])])
      name(attribute);
    for (const attribute of [
      'version',
      'createdAt',
      'updatedAt',
      'createdBy',
      TTL_ATTRIBUTE,
      SEARCH_SLOTS_ATTRIBUTE,
      QUOTA_COUNTED_ATTRIBUTE,
    ])
      name(attribute);
    this.fields = def.columns.flatMap((column) => {
      const attribute = column.name === 'tenant_id' ? (attributes.tenantId ? 'tenantId' : undefined) : named.get(column.name);
      return attribute ? [{ column, attribute, kind: attributes[attribute]?.kind ?? 'system' }] : [];
    });
    this.byAttribute = new Map(this.fields.map((field) => [field.attribute, field]));
    this.indexKeys = new Map(
      Object.entries(def.indexKeys ?? {}).map(([name, columns]): [IndexDeclaration, IndexKeyColumns] => [model.indexes[name], columns]),
    );
    this.keyFields = def.primaryKey.slice(1).map((column) => {
      const field = this.fields.find((f) => f.column.name === column);
      if (!field) throw new Error(`${def.name}'s key column ${column} holds no attribute.`);
      return field;
    });
  }

  get name(): string {
    return this.def.name;
  }

  /** The tenant and key column values of `key`, or undefined when the key is not one of this table's. */
  keyOf(key: Key): { tenantId: string; values: unknown[] } | undefined {
    const pk = match(this.pk, key.PK);
    const sk = pk && match(this.sk, key.SK);
    if (!pk || !sk) return undefined;
    const text = { ...pk, ...sk };
    return { tenantId: pk.tenantId, values: this.keyFields.map((field) => fromKeyText(field, text[field.attribute])) };
  }

  /**
   * The row of `item` (its columns by name) under its key's values: the key's values as the key holds
   * them (a normalized text, a number read from its padded form), every other column from the
   * attribute of its name (null where absent, so a put replaces the whole row). Throws naming an
   * attribute that has no column and is not derived again on read: nothing is dropped unsaid.
   */
  rowOf(item: Item, key: { tenantId: string; values: unknown[] }): Record<string, unknown> {
    const unknown = Object.keys(item).filter((attribute) => !this.byAttribute.has(attribute) && !NOT_STORED.has(attribute));
    if (unknown.length > 0) throw new Error(`${this.name} has no column for ${unknown.join(', ')} (an item of ${this.model.type}).`);
    const row: Record<string, unknown> = {};
    for (const field of this.fields) row[field.column.name] = toColumn(field, item[field.attribute]);
    row.tenant_id = key.tenantId;
    this.keyFields.forEach((field, i) => {
      row[field.column.name] = key.values[i];
    });
    // A put without a version (an item that keeps none) takes the column's default.
    if (row.version == null) delete row.version;
    return Object.assign(row, this.derivedColumnsOf(item, key.tenantId));
  }

  /**
   * The columns the store derives from the whole item rather than holding an attribute: each keyed
   * index's key (indexKeysOf) and, where the entity searches, the words search finds it by. Every
   * statement that writes a row writes them from the item as written, so they never lag behind
   * what they derive from; a write of some columns alone reads the row first (see
   * PgStore.removeAttributes).
   */
  derivedColumnsOf(item: Item, tenantId: string): Record<string, string | null> {
    const row = this.indexKeysOf(item, tenantId);
    if (this.model.search) row[SEARCH_VECTOR] = tsvectorOf([...indexedWords(this.model.search, item).keys()]);
    return row;
  }

  /** True when some column of the row derives from its other columns (derivedColumnsOf): a keyed index's key, or its words. */
  get derivesColumns(): boolean {
    return this.indexKeys.size > 0 || Boolean(this.model.search);
  }

  /**
   * The key columns of every keyed index of the entity for `item` of `tenantId`, by column name: the
   * index's key made by the model code that makes DynamoDB's index attributes, NULL where the item
   * is not in the index.
   */
  indexKeysOf(item: Item, tenantId: string): Record<string, string | null> {
    const row: Record<string, string | null> = {};
    for (const [declared, columns] of this.indexKeys) {
      const names = keySchemas[declared.index];
      // A partition kept whole (IndexShards.wholeInPostgres) is written as shard 0's key.
      const attributes = indexAttributesOf(
        declared.shards?.wholeInPostgres ? { ...declared, shards: undefined } : declared,
        tenantId,
        item,
      );
      row[columns.pk] = attributes[names.pk] ?? null;
      row[columns.sk] = attributes[names.sk] ?? null;
    }
    return row;
  }

  /** The attribute a column holds, when it holds one. */
  attributeOf(column: string): string | undefined {
    return this.fields.find((f) => f.column.name === column)?.attribute;
  }

  /** The column of `attribute`, when the table has one. */
  columnOf(attribute: string): Column | undefined {
    return this.byAttribute.get(attribute)?.column;
  }

  /**
   * The columns a read of `projection` selects: the tenant's, the key's, the expiry's and those of
   * the attributes it names, as DynamoDB's projected read asks for the key, type, expiry and the
   * named attributes. Undefined when it names an attribute this table has no column for (one the
   * model derives on read): such a read takes whole rows. Made once per projection.
   */
  columnsOf(projection: Projection): readonly string[] | undefined {
    if (this.projected.has(projection)) return this.projected.get(projection);
    const fields = projection.map((attribute) => this.byAttribute.get(attribute));
    const ttl = this.byAttribute.get(TTL_ATTRIBUTE);
    const columns = fields.every((field) => field !== undefined)
      ? [
          ...new Set([
            'tenant_id',
            ...this.keyFields.map((f) => f.column.name),
            ...(ttl ? [ttl.column.name] : []),
            ...fields.map((f) => f.column.name),
          ]),
        ]
      : undefined;
    this.projected.set(projection, columns);
    return columns;
  }

  private readonly projected = new WeakMap<Projection, readonly string[] | undefined>();

  /**
   * The columns a read of `projection` through the index `declared` selects: columnsOf's, and those
   * of the attributes the index's key templates and membership name, from which its key attributes
   * are derived again on read, since a query's rows are matched and ordered by them (and DynamoDB's
   * projected query of an index returns them too; a write-sharded index's shard attribute with them).
   * Of a keyed index (its key computed by code, which may read any attribute), its two key columns
   * instead, which hold its key as written. Undefined where columnsOf's is.
   */
  indexColumnsOf(projection: Projection, declared: IndexDeclaration): readonly string[] | undefined {
    const made = this.indexProjected.get(projection);
    if (made?.has(declared)) return made.get(declared);
    const base = this.columnsOf(projection);
    const keyed = this.indexKeys.get(declared);
    const membership = declared.when ? (isCondition(declared.when) ? declared.when.reads : Object.keys(declared.when)) : [];
    const named = [
      ...placeholdersOf(declared.pk),
      ...placeholdersOf(declared.sk),
      ...membership,
      ...(declared.shards ? [declared.shards.by] : []),
    ].filter((name) => name !== 'tenantId');
    const fields = named.map((attribute) => this.byAttribute.get(attribute));
    const columns = !base
      ? undefined
      : keyed
        ? [...new Set([...base, keyed.pk, keyed.sk])]
        : fields.every((field) => field !== undefined)
          ? [...new Set([...base, ...fields.map((field) => field.column.name)])]
          : undefined;
    const byIndex = made ?? new Map<IndexDeclaration, readonly string[] | undefined>();
    byIndex.set(declared, columns);
    this.indexProjected.set(projection, byIndex);
    return columns;
  }

  private readonly indexProjected = new WeakMap<Projection, Map<IndexDeclaration, readonly string[] | undefined>>();

  /**
   * The item a row holds: its attributes, its key and type derived from them, and its index
   * attributes: a keyed index's as its key columns hold them, any other's derived from the values.
   * With `projected` (a row of columnsOf's columns), its attributes, key and type only, as
   * DynamoDB's projected read returns them: an index attribute derives from columns it may lack;
   * with `index` too (a row of indexColumnsOf's), that index's attributes besides.
   */
  itemOf(row: Record<string, unknown>, projected = false, index?: IndexDeclaration): Item {
    const values: Record<string, unknown> = {};
    for (const field of this.fields) {
      const value = fromColumn(field, row[field.column.name]);
      if (value !== undefined) values[field.attribute] = value;
    }
    const tenantId = String(row.tenant_id);
    const key = this.model.key.keyFrom(tenantId, values);
    if (projected)
      return { ...key, entityType: this.model.type, ...values, ...(index ? this.indexAttributesOfRow(index, tenantId, values, row) : {}) };
    // A keyed index's attributes as its columns hold them, as DynamoDB's item holds its index
    // attributes as written: a row whose key columns lag behind its values (written by hand in SQL,
    // or by an earlier declaration) then shows that drift (src/common/drift.ts) to the drift check
    // and to a 'reindex' migration, which writes them again; derived anew, it would hide it.
    const indexed = this.model.indexAttributes(tenantId, values);
    for (const declared of this.indexKeys.keys()) {
      const { pk, sk } = keySchemas[declared.index];
      delete indexed[pk];
      delete indexed[sk];
      Object.assign(indexed, this.indexAttributesOfRow(declared, tenantId, values, row));
    }
    return { ...key, entityType: this.model.type, ...values, ...indexed };
  }

  /** The attributes of `index` for a row: a keyed index's as its key columns hold them, any other's derived from the values. */
  private indexAttributesOfRow(
    index: IndexDeclaration,
    tenantId: string,
    values: Record<string, unknown>,
    row: Record<string, unknown>,
  ): Record<string, string> {
    const keyed = this.indexKeys.get(index);
    if (!keyed) return indexAttributesOf(index, tenantId, values);
    const { pk, sk } = keySchemas[index.index];
    const pkValue = row[keyed.pk];
    const skValue = row[keyed.sk];
    if (typeof pkValue !== 'string' || typeof skValue !== 'string') return {};
    // A partition kept whole holds shard 0's key: the item's own shard, as DynamoDB's item has it.
    const { shards } = index;
    const by = shards?.wholeInPostgres ? values[shards.by] : undefined;
    return { [pk]: shards && by != null ? shardKey(pkValue, shardIn(shards, values), shards.numbered) : pkValue, [sk]: skValue };
  }
}

/** A lexeme quoted as tsvector's and tsquery's input takes it: in single quotes, a quote or backslash doubled or escaped. */
export const lexeme = (word: string) => `'${word.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;

/** The tsvector input of `words`, taken as they are (already folded: no dictionary runs on them). */
function tsvectorOf(words: readonly string[]): string {
  return words.map(lexeme).join(' ');
}

/** A key's text for a column: a number read from its padded or labelled form (`v000002` → 2), any other value as it is. */
function fromKeyText(field: Field, text: string | undefined): unknown {
  if (text === undefined) throw new Error(`The key has no value for ${field.attribute}.`);
  if (field.column.type !== 'bigint') return text;
  const digits = /-?\d+/.exec(text);
  if (!digits) throw new Error(`The key's ${field.attribute} (${text}) is not a number.`);
  return Number(digits[0]);
}

/** An attribute's value as its column takes it. */
function toColumn(field: Field, value: unknown): unknown {
  if (value == null) return null;
  if (field.attribute === TTL_ATTRIBUTE && typeof value === 'number') return new Date(value * 1000);
  // A set (DynamoDB's string set, which an update's addToSet makes: a log's assetIds) is held as the
  // list of its members. JSON has no sets: JSON.stringify wrote one as `{}`, and its members were lost.
  const plain = value instanceof Set ? [...value] : value;
  if (field.column.type === 'jsonb') return JSON.stringify(plain);
  return plain;
}

/** A column's value as the item holds it (undefined for NULL: DynamoDB's item lacks the attribute). */
function fromColumn(field: Field, value: unknown): unknown {
  if (value == null) return undefined;
  if (value instanceof Date) return field.attribute === TTL_ATTRIBUTE ? Math.floor(value.getTime() / 1000) : value.toISOString();
  if (field.column.type === 'bigint') return Number(value);
  return value;
}

/** A query on one table: its tenant, the equalities SQL can test, and the exact test on each item. */
export interface TableQuery {
  table: EntityTable;
  /** The tenant whose rows are read; undefined for an index declared across tenants. */
  tenantId: string | undefined;
  /** Column name → value: conditions on unformatted values, which an index of the table serves. */
  equal: Record<string, unknown>;
  /** Column name → allowed values: an index's declared membership. */
  within: Record<string, readonly unknown[]>;
  /** The key attributes (PK and SK, or the index's) an item of the query is ordered by. */
  keyNames: { pk: string; sk: string };
  /** The index declaration the query reads, when it reads one. */
  index?: IndexDeclaration;
  /** The key columns of `index` when it is keyed: SQL then reads it by its key, in its order (see schema.ts, keyedIndexes). */
  keyed?: IndexKeyColumns;
  /** The partition a keyed index kept whole (IndexShards.wholeInPostgres) holds in its key column, whichever of its shards is read. */
  whole?: string;
}

/** The tables of the derived schema, and how a key or a query finds its table. */
export class EntityTables {
  readonly tables: EntityTable[];

  constructor(models: Readonly<Record<string, AnyModel>>, schema: DerivedSchema) {
    this.tables = schema.tables.map((def) => new EntityTable(models[def.entity], def));
  }

  /**
   * The declared reference a foreign key constraint named `constraint` holds: the table whose row
   * refers, and the attribute that refers. Undefined for a name that is none of them.
   */
  referenceOf(constraint: string): { table: EntityTable; attribute: string } | undefined {
    for (const table of this.tables) {
      const fk = table.def.foreignKeys.find((f) => f.name === constraint);
      const column = fk?.columns.find((c) => c !== 'tenant_id');
      const attribute = column && table.attributeOf(column);
      if (attribute) return { table, attribute };
    }
    return undefined;
  }

  /**
   * The table and key values of `key`, or undefined for a key no declaration makes (the DynamoDB
   * outbox's entries). Throws when two declarations make the same key (a programming error).
   */
  route(key: Key): { table: EntityTable; tenantId: string; values: unknown[] } | undefined {
    let found: { table: EntityTable; tenantId: string; values: unknown[] } | undefined;
    for (const table of this.tables) {
      const parsed = table.keyOf(key);
      if (!parsed) continue;
      if (found) throw new Error(`The key ${key.PK} / ${key.SK} is both ${found.table.name}'s and ${table.name}'s.`);
      found = { table, ...parsed };
    }
    return found;
  }

  /**
   * `spec` as one table's rows in the order of their key columns, where that order is the order of
   * the sort keys: a query of the base table by its partition and a sort-key prefix that ends where a
   * placeholder begins, on one table, whose placeholders after the prefix are key columns: numbers
   * the key pads to one width, and at the key's end a text, so that comparing the keys as text
   * compares those columns in turn. Then PostgreSQL orders, pages and limits the
   * rows itself (by `order`, text in byte order), and a page costs the page, not the partition.
   * Undefined for any other query, which the store reads whole (see plan).
   */
  ordered(spec: QuerySpec): { plan: TableQuery; order: Field[] } | undefined {
    if (spec.index || spec.skBetween || spec.skBefore) return undefined;
    const plans = this.plan(spec);
    if (plans.length !== 1) return undefined;
    const [plan] = plans;
    // A base table's partition always names its tenant; a query without one is never ordered here.
    if (plan.tenantId === undefined) return undefined;
    const { table } = plan;
    const template = table.model.key.shape.sk;
    const format = table.model.key.shape.format ?? {};
    const names = compile(template).names;
    const fixed = spec.skPrefix !== undefined ? prefixValues(template, spec.skPrefix) : {};
    if (!fixed) return undefined;
    // The prefix must be the template's text up to the first placeholder it leaves open.
    const open = names.filter((name) => !(name in fixed));
    if (open.some((name) => !table.keyFields.some((f) => f.attribute === name))) return undefined;
    if (Object.keys(fixed).some((name) => format[name])) return undefined;
    const upTo = open.length > 0 ? template.indexOf(`{${open[0]}}`) : template.length;
    let filled = template.slice(0, upTo);
    for (const [name, value] of Object.entries(fixed)) filled = filled.replace(`{${name}}`, value);
    if (filled !== (spec.skPrefix ?? '')) return undefined;
    const order = open.flatMap((name) => table.keyFields.filter((f) => f.attribute === name));
    if (order.length !== open.length) return undefined;
    // Every key value the query fixes is an equality SQL tests: no row is left to the exact test.
    if (table.keyFields.some((f) => !order.includes(f) && !(f.column.name in plan.equal))) return undefined;
    // A padded number has one width, so what follows it in the key compares only when it ties; a
    // text compares as its column only where nothing follows it (the key's last value).
    const padded = (f: Field) => f.column.type === 'bigint' && format[f.attribute] !== undefined;
    const last = order[order.length - 1];
    const textAtEnd = (f: Field) => f.column.type === 'text' && !format[f.attribute] && template.endsWith(`{${f.attribute}}`);
    if ((last && !padded(last) && !textAtEnd(last)) || order.slice(0, -1).some((f) => !padded(f))) return undefined;
    return { plan, order };
  }

  /**
   * The table queries that together read `spec`: one per table whose keys (or whose declared index
   * on `spec.index`) can be in its partition, with the equalities its partition and sort-key prefix
   * fix. Empty for the outbox index (its own table, which the store reads) and for a partition no
   * declaration makes. The queries of an index declared across tenants have no tenant.
   */
  plan(spec: QuerySpec): TableQuery[] {
    if (spec.index === 'OUTBOX') return [];
    const out: TableQuery[] = [];
    for (const table of this.tables) {
      if (!spec.index) {
        const pk = match(table.pk, spec.pk);
        if (!pk) continue;
        const sk = spec.skPrefix !== undefined ? prefixValues(table.model.key.shape.sk, spec.skPrefix) : {};
        if (!sk) continue;
        const { tenantId, ...values } = pk;
        out.push(this.tableQuery(table, tenantId, { ...values, ...sk }, table.model.key.shape.format, {}, keySchemas.TABLE));
        continue;
      }
      for (const declared of Object.values<IndexDeclaration>(table.model.indexes)) {
        if (declared.index !== spec.index) continue;
        const template = compile(declared.crossTenant ? declared.pk : `TENANT#{tenantId}#${declared.pk}`);
        // One shard of a write-sharded index (claimWork reads one at a time): its key is shard 0's and `#k`.
        const whole = match(template, spec.pk) ? spec.pk : declared.shards ? spec.pk.replace(/#\d+$/, '') : undefined;
        const pk = whole === undefined ? undefined : match(template, whole);
        if (!pk) continue;
        const sk = spec.skPrefix !== undefined ? prefixValues(declared.sk, spec.skPrefix) : {};
        if (!sk) continue;
        const { tenantId, ...values } = pk;
        const when = declared.when && !isCondition(declared.when) ? declared.when : {};
        const derived = new Set(Object.keys(declared.derive ?? {}));
        const fixed = Object.fromEntries(Object.entries({ ...values, ...sk }).filter(([name]) => !derived.has(name)));
        out.push({
          ...this.tableQuery(table, tenantId, fixed, declared.format, when, keySchemas[declared.index]),
          index: declared,
          keyed: table.indexKeys.get(declared),
          ...(declared.shards?.wholeInPostgres ? { whole } : {}),
        });
      }
    }
    return out;
  }

  private tableQuery(
    table: EntityTable,
    tenantId: string | undefined,
    texts: Record<string, string>,
    format: IndexDeclaration['format'],
    when: Record<string, readonly unknown[]>,
    keyNames: { pk: string; sk: string },
  ): TableQuery {
    const equal: Record<string, unknown> = {};
    for (const [attribute, text] of Object.entries(texts)) {
      // A formatted value (a normalized title, a flag written as a word) is not the column's own:
      // the exact test on the derived key decides those.
      if (format?.[attribute] && !table.keyFields.some((f) => f.attribute === attribute)) continue;
      const column = table.columnOf(attribute);
      if (!column) continue;
      if (column.type === 'bigint') {
        const digits = /^-?\d+$/.exec(text.replace(/^[^\d-]+/, ''));
        if (digits) equal[column.name] = Number(digits[0]);
      } else if (column.type === 'text') equal[column.name] = text;
    }
    const within: Record<string, readonly unknown[]> = {};
    for (const [attribute, allowed] of Object.entries(when)) {
      const column = table.columnOf(attribute);
      if (column) within[column.name] = allowed;
    }
    return { table, tenantId, equal, within, keyNames };
  }
}
