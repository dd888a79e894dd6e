import { AppError, ErrorCode } from '../../errors';
import type { Page, Projection, QuerySpec } from './store';
import { type IndexName, type Key, keySchemas, indexNames } from './table';
import { del, put, update, type Item, type Write } from './write';

/*
 * An entity's whole model, declared as data (as ElectroDB declares its entities): its attributes,
 * the templates of its key and of every index key it appears under, its status machine, parent,
 * TTL and event names. Everything that follows from the declaration is derived here and nowhere
 * else: keys, key prefixes for queries, index attributes (recomputed from the item on every put,
 * so a write that changes an attribute of an index key moves the item in that index in the same
 * request), the tenant prefix, typed items and the status transitions.
 */

/** The `{name}` placeholders of a key template, e.g. `'PROJECT#{projectId}#LOG#{logId}'` → `'projectId' | 'logId'`. */
export type Placeholders<T extends string> = T extends `${string}{${infer Name}}${infer Rest}` ? Name | Placeholders<Rest> : never;

type Values<T extends string> = { [K in Placeholders<T>]: string | number };

/** How a placeholder's value is written into a key (zero-padding, normalizing free text). */
// biome-ignore lint/suspicious/noExplicitAny: a formatter takes whatever its placeholder holds (a number, a text, a flag).
type Formatters = Record<string, ((value: any) => string) | undefined>;

/**
 * Fills `template` with `values`. With `upTo: 'prefix'` it stops at the first value not given
 * (a query prefix); with `open` it also leaves out the text after the last value given, so the
 * last value is matched as a prefix itself (a title prefix search). Throws (a programming error)
 * when a value is missing otherwise.
 */
function fill(template: string, values: Record<string, unknown>, format: Formatters | undefined, upTo?: 'prefix', open = false): string {
  let out = '';
  const parts = partsOf(template);
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i];
    if (i % 2 === 0) {
      const nextMissing = i + 1 < parts.length && values[parts[i + 1]] == null;
      if (upTo === 'prefix' && open && i > 0 && (i + 1 >= parts.length || nextMissing)) return out;
      out += part;
      continue;
    }
    const value = values[part];
    if (value == null) {
      if (upTo === 'prefix') return out;
      throw new Error(`Key value ${part} is missing.`);
    }
    const formatter = format?.[part];
    out += formatter ? formatter(value) : String(value);
  }
  return out;
}

/**
 * A template split into its text (even indexes) and placeholder names (odd ones), once per
 * template: keys are built on every read and write, from the few templates the entities declare.
 */
const templateParts = new Map<string, readonly string[]>();

function partsOf(template: string): readonly string[] {
  let parts = templateParts.get(template);
  if (!parts) templateParts.set(template, (parts = template.split(/\{([A-Za-z]+)\}/)));
  return parts;
}

/** The least string above every string that starts with `prefix`: `'STEP#'` → `'STEP$'`, for a range's upper end. */
export const prefixEnd = (prefix: string): string => prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);

/** The placeholder names of a template, in order. */
export const placeholdersOf = (template: string): string[] => [...template.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);

export interface KeyShape<PK extends string, SK extends string> {
  /**
   * The partition key after `TENANT#<tenantId>`: '' for the tenant's partition, or e.g.
   * `'JOB#{jobId}'` for a partition of its own. The tenant is added here, never by a declaration,
   * so every key of a tenant's entity starts with `TENANT#<tenantId>`.
   */
  pk: PK;
  /** The sort key, e.g. `'PROJECT#{projectId}#MILESTONE#{milestoneId}'`. */
  sk: SK;
  /** How a placeholder's value is written into the key, so that key order is the order wanted. */
  format?: { [K in Placeholders<PK> | Placeholders<SK>]?: Formatters[string] };
}

/** The partition of a tenant's own items, and the start of every key a tenant's request touches. */
export const tenantPk = (tenantId: string) => `TENANT#${tenantId}`;

/** The tenant whose item has the partition key `pk` (what an operator's list across tenants shows). */
export const tenantOfPk = (pk: string): string => /^TENANT#([^#]+)/.exec(pk)?.[1] ?? '';

const withTenant = (tenantId: string, rest: string) => (rest ? `${tenantPk(tenantId)}#${rest}` : tenantPk(tenantId));

/** The declared key of one entity; `keyOf` and `prefixOf` are the only ways its keys are built. */
export class KeyTemplate<PK extends string, SK extends string> {
  constructor(readonly shape: KeyShape<PK, SK>) {}

  /** The partition key for `tenantId`: always `TENANT#<tenantId>` first. */
  pkOf(tenantId: string, values: Values<PK>): string {
    return withTenant(tenantId, fill(this.shape.pk, values, this.shape.format));
  }

  /** The item key. Throws (a programming error) when a value of the templates is missing. */
  keyOf(tenantId: string, values: Values<PK> & Values<SK>): Key {
    return this.keyFrom(tenantId, values);
  }

  /** The key of an item from whatever attributes it has; throws when one the templates name is missing. */
  keyFrom(tenantId: string, values: Record<string, unknown>): Key {
    return { PK: withTenant(tenantId, fill(this.shape.pk, values, this.shape.format)), SK: fill(this.shape.sk, values, this.shape.format) };
  }

  /**
   * A query of the items whose sort key starts with the template filled up to the first value not
   * given: `prefixOf(t, { projectId })` on `PROJECT#{projectId}#LOG#{logId}` reads `PROJECT#p#LOG#`.
   */
  prefixOf(tenantId: string, values: Values<PK> & Partial<Values<SK>>, descending = false): QuerySpec {
    return { pk: this.pkOf(tenantId, values), skPrefix: fill(this.shape.sk, values, this.shape.format, 'prefix'), descending };
  }
}

/** Declares a key shape (see KeyShape); the template strings are kept as literal types. */
export function keyShape<const PK extends string, const SK extends string>(shape: KeyShape<PK, SK>): KeyTemplate<PK, SK> {
  return new KeyTemplate(shape);
}

/* ----------------------------------------------------------------------------------------------
 * Attributes
 */

/** What an attribute holds; the GraphQL layer maps each kind to its type. */
export type AttributeKind = 'string' | 'id' | 'int' | 'float' | 'boolean' | 'date' | 'dateTime' | 'json' | 'strings' | 'enum';

export interface AttributeOptions<T> {
  /** Always present on a stored item; required in the create input. */
  required?: boolean;
  /** Set at creation and never changed by an update (left out of the update input). */
  readOnly?: boolean;
  /** Set by the server, never by a client's input (counters, results). */
  internal?: boolean;
  /** The value a create takes when the input has none. */
  default?: T;
  /** At most this many characters (a text) or entries (a list), or the greatest value of a whole number. */
  max?: number;
  /** The least value of a whole number (0 unless declared). */
  min?: number;
  /** A text (or each text of a list) is an S3 object key, which must lie under the caller's tenant prefix. */
  s3Key?: boolean;
  /**
   * An id attribute that refers to another entity: the prefix of that entity's ids (`proj` for a
   * project's). A client's value of any other form is refused, naming the field, before it reaches
   * a key or a stored item that later reads would trip on. It says nothing of whether that entity exists.
   */
  ref?: string;
  /**
   * Written as null when cleared (not left out), so a stored item may hold null as well as lack
   * it: what readers of the item's type must expect (a step attempt's error after a retry).
   */
  nullable?: boolean;
  /** What the API says it holds (its field's description in the object type and the inputs). */
  description?: string;
  /** Kept for the server's own use and never shown in the API (an upload's deadline). */
  hidden?: boolean;
  /** Not in the create input: a setting changed later, whose absence means the server's default. */
  updateOnly?: boolean;
  /** What the create input says of it, when that differs from `description`. */
  createDescription?: string;
  /** What the update input says of it, when that differs from `description`. */
  updateDescription?: string;
  /**
   * Shown non-null by the API although an item may be written without it: every item the API
   * shows has it (a default that every write sets, a value every read fills in).
   */
  shownRequired?: boolean;
  /** Why the API's field is deprecated, and what to use instead. */
  deprecationReason?: string;
  /**
   * The API's type of a JSON value that is another of its types (a job as an event left it, an
   * upload's target), by its GraphQL name, `[Name]` for a list of them; the type must be made
   * (or registered) by the time the schema is built.
   */
  apiType?: string;
}

/**
 * The API's enum of an enum attribute, where its standard one (`<Entity><Attribute>`, described
 * by the attribute) does not fit: its name (an enum shared by several attributes names the same
 * one), what the enum is, and what each value means.
 */
export interface EnumDeclaration<V extends string = string> {
  name?: string;
  description?: string;
  values?: Partial<Record<V, string>>;
}

/**
 * The API's object type of a JSON attribute whose entries have a declared shape (a brief's
 * approvals): its name, what it is, and the attributes of each entry.
 */
export interface ShapeDeclaration<F extends AttributeMap = AttributeMap> {
  name: string;
  description: string;
  fields: F;
  /** What its input type (`<name>Input`) is, when that differs from `description`. */
  inputDescription?: string;
}

/** The values of a declared shape's fields (see AttributeValues). */
export type ShapeValues<S extends ShapeDeclaration> = AttributeValues<S['fields']>;

/** One declared attribute. `T` is the type of its value; `R` whether every item carries it. */
export interface Attribute<T = unknown, R extends boolean = boolean> extends AttributeOptions<T> {
  kind: AttributeKind;
  required?: R;
  /** The values an enum attribute may take. */
  values?: readonly string[];
  /** An enum attribute's API enum, where the standard one does not fit (see EnumDeclaration). */
  enumType?: EnumDeclaration;
  /** A JSON attribute holding a list of entries of this shape (see ShapeDeclaration). */
  listOf?: ShapeDeclaration;
  /** A JSON attribute holding one value of this shape (see ShapeDeclaration). */
  objectOf?: ShapeDeclaration;
  /** A JSON attribute that holds an object (the API's JSONObject), not any JSON value. */
  jsonObject?: boolean;
  /** Never set: carries the value's type for the item type. */
  readonly valueType?: T;
}

type Builder<T> = <const O extends AttributeOptions<T>>(options?: O) => Attribute<T, O['required'] extends true ? true : false> & O;

function builder<T>(kind: AttributeKind): Builder<T> {
  // The options are the attribute; the cast only carries `required` into the literal type that
  // the item type reads (TypeScript cannot narrow a spread of a generic to it).
  return (options) => ({ kind, ...options }) as never;
}

/** The attribute builders of a declaration: `name: attr.string({ required: true, max: 200 })`. */
export const attr = {
  string: builder<string>('string'),
  id: builder<string>('id'),
  int: builder<number>('int'),
  float: builder<number>('float'),
  boolean: builder<boolean>('boolean'),
  /** A calendar date, `YYYY-MM-DD`. */
  date: builder<string>('date'),
  /** An instant, ISO 8601. */
  dateTime: builder<string>('dateTime'),
  strings: builder<string[]>('strings'),
  /** A JSON value; `T` types it for the code that reads it. */
  json: <T = Record<string, unknown>>() => builder<T>('json'),
  enum: <const V extends string>(values: readonly V[], enumType?: EnumDeclaration<NoInfer<V>>) => {
    const make = builder<V>('enum');
    return <const O extends AttributeOptions<V>>(options?: O) => ({ ...make(options), values, enumType });
  },
  /** A JSON object of the client's own fields, stored as it is; the API shows it as a JSONObject. */
  jsonObject: <T = Record<string, unknown>>() => {
    const make = builder<T>('json');
    return <const O extends AttributeOptions<T>>(options?: O) => ({ ...make(options), jsonObject: true });
  },
  /** A list of JSON objects, stored as they are (rows as the table held them); the API shows it as [JSONObject]. */
  jsonObjects: <T = Record<string, unknown>>() => {
    const make = builder<T[]>('json');
    return <const O extends AttributeOptions<T[]>>(options?: O) => ({ ...make(options), apiType: '[JSONObject]' });
  },
  /** One value of a declared shape, stored as JSON; the API shows it as its object type, and takes its input type. */
  objectOf: <const F extends AttributeMap>(shape: ShapeDeclaration<F>) => {
    const make = builder<AttributeValues<F>>('json');
    return <const O extends AttributeOptions<AttributeValues<F>>>(options?: O) => ({ ...make(options), objectOf: shape });
  },
  /** A list of entries of a declared shape, stored as JSON; the API shows it as a list of its object type. */
  listOf: <const F extends AttributeMap>(shape: ShapeDeclaration<F>) => {
    const make = builder<AttributeValues<F>[]>('json');
    return <const O extends AttributeOptions<AttributeValues<F>[]>>(options?: O) => ({ ...make(options), listOf: shape });
  },
};

export type AttributeMap = Record<string, Attribute>;

/**
 * The attributes `described` names, taken from a declaration's `attributes` (their kind, whether
 * they are required, their enum or shape) with what another type (a view of the entity, a
 * request's input) says of each instead of the declaration's own words.
 */
export function pickAttributes<As extends AttributeMap, const D extends { [K in keyof As]?: string }>(
  attributes: As,
  described: D,
): { [K in keyof D & keyof As]: As[K] };
// The map is built from `described`'s names, so it has exactly the keys the signature above says.
export function pickAttributes(attributes: AttributeMap, described: Record<string, string>): AttributeMap {
  const picked: AttributeMap = {};
  for (const [name, description] of Object.entries(described)) {
    const { createDescription: _create, updateDescription: _update, ...declared } = attributes[name];
    picked[name] = { ...declared, description };
  }
  return picked;
}

/**
 * The attributes `names` names, taken from a declaration's `attributes` as they are declared
 * (described in the declaration's own words): a view that shows them as the entity holds them.
 */
export function pickDeclared<As extends AttributeMap, const N extends keyof As & string>(attributes: As, names: readonly N[]): Pick<As, N>;
// The map is built from `names`, so it has exactly the keys the signature above says.
export function pickDeclared(attributes: AttributeMap, names: readonly string[]): AttributeMap {
  return Object.fromEntries(names.map((name) => [name, attributes[name]]));
}

type ValueOf<A> = (A extends { valueType?: infer T } ? Exclude<T, undefined> : never) | (A extends { nullable: true } ? null : never);
type RequiredKeys<As> = { [K in keyof As]: As[K] extends { required: true } ? K : never }[keyof As];

/** The values of declared attributes: required ones always present, the others optional. */
export type AttributeValues<As> = { [K in RequiredKeys<As>]: ValueOf<As[K]> } & {
  [K in Exclude<keyof As, RequiredKeys<As>>]?: ValueOf<As[K]>;
};

/** The attributes a client's input may give: neither internal nor hidden. */
type InputKeys<As> = { [K in keyof As]: As[K] extends { internal: true } | { hidden: true } ? never : K }[keyof As];
/** Of those, the ones a create must give: required, without a default. */
type MandatoryKeys<As> = {
  [K in keyof As]: As[K] extends { required: true } ? (As[K] extends { default: unknown } ? never : K) : never;
}[keyof As];
type ReadOnlyKeys<As> = { [K in keyof As]: As[K] extends { readOnly: true } ? K : never }[keyof As];

type UpdateOnlyKeys<As> = { [K in keyof As]: As[K] extends { updateOnly: true } ? K : never }[keyof As];
type CreateKeys<As> = Exclude<InputKeys<As>, UpdateOnlyKeys<As>>;

/** A create input of declared attributes, as the API's derived input gives it (null for an omitted optional value). */
export type CreateInputOf<As> = { [K in Extract<CreateKeys<As>, MandatoryKeys<As>>]: ValueOf<As[K]> } & {
  [K in Exclude<CreateKeys<As>, MandatoryKeys<As>>]?: ValueOf<As[K]> | null;
};

/**
 * What a client's arguments (or an input) give for declared fields: every required one (a declared
 * default fills it in when omitted), the others omitted or null.
 */
export type ArgumentValues<As> = { [K in RequiredKeys<As>]: ValueOf<As[K]> } & {
  [K in Exclude<keyof As, RequiredKeys<As>>]?: ValueOf<As[K]> | null;
};

/** An update input of declared attributes: each one omitted (kept) or null (cleared); read-only ones are not in it. */
export type UpdateInputOf<As> = { [K in Exclude<InputKeys<As>, ReadOnlyKeys<As>>]?: ValueOf<As[K]> | null };

/* ----------------------------------------------------------------------------------------------
 * Indexes and status machines
 */

/** One index an entity appears in, with the templates of its partition and sort key. */
export interface IndexDeclaration {
  index: IndexName;
  /** After `TENANT#<tenantId>#` (unless `crossTenant`), e.g. `'LOG_STATUS#{attributionStatus}'`. */
  pk: string;
  /** E.g. `'{createdAt}#{logId}'`; `{tenantId}` is the item's tenant. */
  sk: string;
  /**
   * Sparse: the item is in the index only while each named attribute has one of these values, or
   * while a predicate of the item holds (`holds`, recomputed on every put, as ElectroDB's index
   * `condition`: nothing ever repairs an index entry after a write). A predicate names the
   * attributes it reads (`reads`), so that no in-place update changes one behind the index's back.
   */
  when?: Record<string, readonly unknown[]> | IndexCondition;
  /** An index for operators across tenants: its partition key has no tenant prefix (operators only). */
  crossTenant?: boolean;
  format?: Formatters;
  /**
   * The name of the query that lists the index's partition (`scenesByStatus`), newest first, with
   * the partition's values as arguments; a standard project child's API then has it.
   */
  list?: string;
  /** Placeholder values computed from the item (a write shard). */
  // biome-ignore lint/suspicious/noExplicitAny: computed from whichever attributes the entity has.
  derive?: Record<string, (item: any) => string | number>;
  /**
   * Write-sharded within the tenant: each partition the templates give is spread over `count`
   * partitions, an item's chosen by its attribute `by` (shardOf), so one hot partition (a
   * tenant's jobs in one status) takes `count` times the writes. Shard 0 is the partition's own
   * key, shard k the key followed by `#k`, so items written before the index was sharded are shard
   * 0's and stay listed until a migration spreads them. A query of the index reads every shard and
   * merges them in the sort key's order (QuerySpec.shards): one list, paged and cursored as one
   * partition is. Changing `count` moves items between shards: it needs a migration ('reindex', src/migrations).
   */
  shards?: IndexShards;
}

/** How an index is write-sharded (see IndexDeclaration.shards). */
export interface IndexShards {
  count: number;
  /** The attribute whose value picks the shard (a job's id: all of one job's entries in one shard). */
  by: string;
  /**
   * PostgreSQL keeps the partition whole in a keyed index's key column (shard 0's key; the shard is
   * derived again when a row is read): it has no per-key limit for shards to spread, and a merged
   * read is then one range of the column's B-tree, in key order under its LIMIT, not a sort of every
   * shard's rows (the claimable indexes, which every claim reads).
   */
  wholeInPostgres?: boolean;
  /**
   * Which items are spread over the shards; the others stay in shard 0, the partition's key of
   * before, which every read of the index reads (the claimable indexes spread only single steps,
   * whose start and completion each move their entry: src/common/entities.ts). All when omitted.
   */
  // biome-ignore lint/suspicious/noExplicitAny: a predicate over whichever attributes the entity has.
  spreads?: (item: any) => boolean;
  /**
   * Every shard's key carries its number, shard 0's too (`…#0`), where an index sharded from the
   * start has no partition key of before to keep (the operators' cross-tenant lists, whose keys the
   * design names `<ENTITY>_STATUS#<status>#<shard>`).
   */
  numbered?: boolean;
}

/** The shard of an item with `values` in an index sharded by `shards`: 0 unless it is spread (IndexShards.spreads). */
export function shardIn(shards: IndexShards, values: Record<string, unknown>): number {
  return shards.spreads && !shards.spreads(values) ? 0 : shardOf(String(values[shards.by]), shards.count);
}

/**
 * The shard of `value` among `count` (FNV-1a of the text, modulo `count`): the same value always
 * in the same shard, values spread evenly. Throws nothing.
 */
export function shardOf(value: string, count: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < value.length; i++) hash = Math.imul(hash ^ value.charCodeAt(i), 0x01000193);
  return (hash >>> 0) % count;
}

/** The partition key of shard `shard` of a write-sharded index's partition `pk` (see IndexDeclaration.shards and IndexShards.numbered). */
export const shardKey = (pk: string, shard: number, numbered = false): string => (shard === 0 && !numbered ? pk : `${pk}#${shard}`);

/** An index's membership as a predicate of the item (see IndexDeclaration.when). */
export interface IndexCondition {
  reads: readonly string[];
  // biome-ignore lint/suspicious/noExplicitAny: a predicate over whichever attributes the entity has.
  holds: (item: any) => boolean;
  /** Values of `reads` for which `holds` is true: what the tests generated from the declarations put in the index. */
  example: Record<string, unknown>;
}

/**
 * The attributes of the one index `declared` for `item` of `tenantId` (see
 * EntityModel.indexAttributes): empty when its `when` does not hold or its templates name an
 * attribute the item lacks. Reads only what the declaration names, unless it derives a value.
 */
export function indexAttributesOf(declared: IndexDeclaration, tenantId: string, item: Record<string, unknown>): Record<string, string> {
  if (!belongs(declared.when, item)) return {};
  const values: Record<string, unknown> = { ...item, tenantId };
  for (const [name, derive] of Object.entries(declared.derive ?? {})) values[name] = derive(item);
  const { shards } = declared;
  const needed = [...placeholdersOf(declared.pk), ...placeholdersOf(declared.sk), ...(shards ? [shards.by] : [])];
  if (needed.some((name) => values[name] == null)) return {};
  const filled = fill(declared.pk, values, declared.format);
  const pk = shards ? shardKey(filled, shardIn(shards, values), shards.numbered) : filled;
  const schema = keySchemas[declared.index];
  return { [schema.pk]: declared.crossTenant ? pk : withTenant(tenantId, pk), [schema.sk]: fill(declared.sk, values, declared.format) };
}

export const isCondition = (when: IndexDeclaration['when']): when is IndexCondition =>
  typeof (when as IndexCondition)?.holds === 'function';

/** Whether `item` belongs in an index with membership `when` (see IndexDeclaration.when). */
function belongs(when: IndexDeclaration['when'], item: Record<string, unknown>): boolean {
  if (!when) return true;
  if (isCondition(when)) return when.holds(item);
  return Object.entries(when).every(([name, allowed]) => allowed.includes(item[name]));
}

/** Values for which an item belongs in an index with membership `when`: what tests generated from the declarations put in it. */
export function membershipExample(when: IndexDeclaration['when']): Record<string, unknown> {
  if (isCondition(when)) return when.example;
  return Object.fromEntries(Object.entries(when ?? {}).map(([name, allowed]) => [name, allowed[0]]));
}

/** The attributes an index's membership reads (see IndexDeclaration.when). */
export const membershipReads = (when: IndexDeclaration['when']): readonly string[] =>
  isCondition(when) ? when.reads : Object.keys(when ?? {});

/** Bounds of the first sort-key value after a query's prefix: `from` included, `to` left out. */
export interface SortRange {
  from?: string | null;
  to?: string | null;
  /** A whole sort key (the last one a page returned): only keys below it, for the next page of a merged list. */
  below?: string | null;
}

/**
 * The greatest string that a key below `key` can reach: `key` with its last character lowered and
 * `\uffff` appended. A key in [keyBelow(key), key) would have to contain `\uffff`, which no key
 * does, so BETWEEN … AND keyBelow(key) reads exactly the keys below `key`.
 */
export const keyBelow = (key: string): string => `${key.slice(0, -1)}${String.fromCharCode(key.charCodeAt(key.length - 1) - 1)}\uffff`;

/** A status machine: the attribute, the first status, and where each status may go. */
export interface StatusDeclaration<S extends string = string> {
  attribute: string;
  initial: S;
  transitions: Record<S, readonly S[]>;
  /** What the API says of the status field, when the standard wording (`Where it is: see …`) does not fit. */
  description?: string;
  /** The name of its API enum, when the standard one (`<Entity><Attribute>`) does not fit. */
  enumName?: string;
  /** What each status means, for the GraphQL enum. */
  descriptions?: Partial<Record<S, string>>;
}

/**
 * The full-text search an entity takes part in (see src/common/search.ts): the attributes whose
 * words are indexed, most important first (when the entity has more distinct words than
 * `maxWords`, the words of the later attributes are the ones left out), and the most word items it
 * keeps. `maxWords` is chosen per entity so that its largest unit of work (the entity, its other
 * derived items, its event, and one word item per changed word) stays within DynamoDB's 100 items
 * a transaction.
 */
export interface SearchDeclaration<Field extends string = string> {
  fields: readonly Field[];
  maxWords: number;
}

/** The event actions of an entity's standard changes, `<entity>.<verb>` by default. */
export interface EventNames {
  created: string;
  updated: string;
  statusChanged: string;
  deleted: string;
}

/** The statuses of a machine declaration. */
export type StateOf<M> = M extends { transitions: infer T } ? keyof T & string : never;

type StatusValues<M> = M extends { attribute: infer A extends string; transitions: infer T } ? { [K in A]: keyof T & string } : unknown;
type KeyValuesOf<PK extends string, SK extends string, As> = { [K in Exclude<Placeholders<PK> | Placeholders<SK>, keyof As>]: string };

/** What the server adds to every item it writes. */
export type System = {
  PK: string;
  SK: string;
  entityType: string;
  version: number;
  createdAt: string;
  updatedAt: string;
  createdBy: string;
  expiresAt?: number;
};

/** The names of what the server adds (see System). */
const SYSTEM_ATTRIBUTES = [
  'PK',
  'SK',
  'entityType',
  'version',
  'createdAt',
  'updatedAt',
  'createdBy',
  'expiresAt',
] as const satisfies readonly (keyof System)[];

/** What every stored item has: its key, its entity type, and its expiry where its entity has a TTL. */
type StoredKey = Pick<System, 'PK' | 'SK' | 'entityType' | 'expiresAt'>;

/**
 * What the model derives onto an item besides its key and index attributes: the word slots of a
 * searchable entity (SEARCH_SLOTS_ATTRIBUTE) and what an item of an entity with a quota has
 * counted (QUOTA_COUNTED_ATTRIBUTE). Absent from items written before either was kept.
 */
export type Derived = {
  searchSlots?: string[];
  quotaCounted?: number;
};

/** The API types made from a declaration besides its object type, which `describe` may describe. */
export type ApiTypeName = 'connection' | 'createInput' | 'updateInput';
/** The query of one entity and the mutations a feature derives from its declaration (src/common/standard-resolver.ts). */
export type StandardOperationName = 'one' | 'create' | 'update' | 'delete';

/** What the server adds to every item that the API may show. */
export type SystemField = 'version' | 'createdAt' | 'updatedAt' | 'createdBy';

/** How the API shows an entity, where the standard (a Node with every system field) does not fit. */
export interface ApiDeclaration {
  /** False for an entity clients never refetch by a global id (its type then has no Node interface). */
  node?: boolean;
  /** The system fields its object type shows (all of them by default). */
  system?: readonly SystemField[];
}

/** One entity's declaration (see EntityModel). */
export interface EntityDeclaration<
  PK extends string,
  SK extends string,
  Prefix extends string | undefined,
  Parent extends string | undefined,
  As extends AttributeMap,
  M extends StatusDeclaration | undefined,
  K extends SystemField,
> {
  /** The `entityType` attribute of its items and the name of its GraphQL type, e.g. `Milestone`. */
  type: string;
  /** Ids are `<idPrefix>_<ULID>`; undefined for items keyed by something else (a tag, a version). */
  idPrefix: Prefix;
  /** The entity it belongs to; a project child's key nests under the project's sort key. */
  parent?: Parent;
  key: KeyTemplate<PK, SK>;
  description?: string;
  /** Its attributes besides the key values and what the server adds (version, times, author). */
  attributes?: As;
  /** The secondary indexes its items appear in, by a name the code queries with. */
  indexes?: Record<string, IndexDeclaration>;
  status?: M;
  /** True when its items carry the TTL attribute and expire. */
  ttl?: boolean;
  events?: Partial<EventNames>;
  /** Its searchable text attributes, whose word items are written with it (see SearchDeclaration). */
  search?: SearchDeclaration<Extract<keyof As, string>>;
  /** The quota of the tenant's plan its items count against (see QuotaDeclaration). */
  quota?: QuotaDeclaration<AttributeValues<As> & StatusValues<M>>;
  /**
   * What the API says of its key values and of what the server adds, where the standard wording
   * (`The project's id.`, `When it was created.`) does not fit; `tenantId` is the id of an entity
   * keyed by its tenant alone (one item a tenant). `one`, `create`, `update` and `delete` describe
   * its standard query and mutations, those its feature has.
   */
  describe?: Partial<Record<Placeholders<PK> | Placeholders<SK> | keyof System | ApiTypeName | StandardOperationName | 'tenantId', string>>;
  /** How the API shows it, where the standard does not fit (see ApiDeclaration). */
  api?: ApiDeclaration;
  /**
   * Which of what the server adds (version, times, author) its items keep: all of them unless
   * it says (a derived item, such as a tag or a word, keeps none). Its item type has those only.
   */
  keeps?: readonly K[];
}

/**
 * How an entity's items count against one quota of the tenant's plan (projects, stored bytes). The
 * writer of every create, change and delete (src/common/mutate.ts) moves the tenant's usage
 * counter by the difference `counts` makes, in the same transaction, conditioned on the plan's
 * limit; so a write that would pass it commits nothing.
 */
export interface QuotaDeclaration<Item> {
  /** The quota's name: a limit of the plan and the usage counter's attribute. */
  name: string;
  /** What an item uses of it (1 a project, 0 once archived; the bytes of an asset's stored versions). */
  counts(item: Item): number;
  /**
   * What an item is about to use (an upload requested, not yet confirmed): not counted, but a
   * write that raises it is refused unless the usage plus the raise is within the limit.
   */
  pending?(item: Item): number;
}

/** The index attribute names the models own (the outbox's belong to the unit of work). */
export const MODEL_INDEX_ATTRIBUTES = indexNames
  .filter((name) => name !== 'OUTBOX')
  .flatMap((name) => [keySchemas[name].pk, keySchemas[name].sk]);

/**
 * The attribute in which a searchable entity keeps its indexed words, one per word item (slot),
 * '' for a free slot: what a change compares against to write only the word items that change.
 */
export const SEARCH_SLOTS_ATTRIBUTE = 'searchSlots' satisfies keyof Derived;

/**
 * The attribute in which an item of an entity with a quota keeps what it has counted against it
 * (QuotaDeclaration.counts as of its last write). The tenant's usage counter is the sum of these
 * over the tenant's items, kept so by every write (src/common/quota.ts); an item without it, written
 * before quotas were kept, has counted nothing yet, and the usage recount migration counts it in.
 */
export const QUOTA_COUNTED_ATTRIBUTE = 'quotaCounted' satisfies keyof Derived;

const lowerFirst = (s: string) => s.charAt(0).toLowerCase() + s.slice(1);

/**
 * An entity's model, made from its declaration: the one place its keys, index attributes and
 * status transitions are computed. `Item` is the type of its stored items.
 */
export class EntityModel<
  PK extends string = string,
  SK extends string = string,
  Prefix extends string | undefined = string | undefined,
  Parent extends string | undefined = string | undefined,
  As extends AttributeMap = AttributeMap,
  M extends StatusDeclaration | undefined = StatusDeclaration | undefined,
  K extends SystemField = SystemField,
> {
  /** Never set: the type of the entity's stored items. */
  declare readonly item: AttributeValues<As> & KeyValuesOf<PK, SK, As> & StatusValues<M> & StoredKey & Pick<System, K> & Derived;
  /**
   * Never set: what a put of its item gives (see PutValues): its declared attributes, key values
   * and status, with any of what the server adds that it keeps.
   */
  declare readonly putValues: Omit<AttributeValues<As> & KeyValuesOf<PK, SK, As> & StatusValues<M>, keyof System> &
    Partial<StoredKey> &
    Pick<System, K> &
    Derived;
  /**
   * Never set: what a write of its item from a client's checked input gives (see WriteValues): its
   * key values, and any of its declared attributes (null where a client cleared one), its status,
   * what the server adds and what the model derives. An attribute it does not declare is a type error.
   */
  declare readonly writeValues: { [A in keyof As]?: ValueOf<As[A]> | null } & KeyValuesOf<PK, SK, As> &
    Partial<StatusValues<M>> &
    Partial<System> &
    Derived;
  /** Never set: the type of its derived create input (see CreateInputOf). */
  declare readonly createInput: CreateInputOf<As>;
  /** Never set: the type of its derived update input (see UpdateInputOf). */
  declare readonly updateInput: UpdateInputOf<As>;
  readonly type: string;
  readonly idPrefix: Prefix;
  readonly parent?: Parent;
  readonly key: KeyTemplate<PK, SK>;
  readonly description?: string;
  readonly attributes: As;
  readonly indexes: Record<string, IndexDeclaration>;
  readonly status?: M;
  readonly ttl: boolean;
  readonly events: EventNames;
  readonly search?: SearchDeclaration;
  readonly quota?: QuotaDeclaration<AttributeValues<As>>;
  /** What the API says of its key values and the server's attributes (see EntityDeclaration.describe). */
  readonly describe: Partial<Record<string, string>>;
  /** How the API shows it (see ApiDeclaration). */
  readonly api: ApiDeclaration;
  /** The attribute that holds the entity's own id: the last placeholder of its sort key. */
  readonly idField: string;

  constructor(declaration: EntityDeclaration<PK, SK, Prefix, Parent, As, M, K>) {
    this.type = declaration.type;
    this.idPrefix = declaration.idPrefix;
    this.parent = declaration.parent;
    this.key = declaration.key;
    this.description = declaration.description;
    // A declaration without attributes has none: the empty map is its (literal) attribute type.
    this.attributes = declaration.attributes ?? ({} as As);
    this.indexes = declaration.indexes ?? {};
    this.status = declaration.status;
    this.ttl = declaration.ttl ?? false;
    this.search = declaration.search;
    this.quota = declaration.quota;
    this.describe = declaration.describe ?? {};
    this.api = declaration.api ?? {};
    const verb = lowerFirst(this.type);
    this.events = {
      created: `${verb}.created`,
      updated: `${verb}.updated`,
      statusChanged: `${verb}.status_changed`,
      deleted: `${verb}.deleted`,
      ...declaration.events,
    };
    const placeholders = placeholdersOf(`${this.key.shape.pk}#${this.key.shape.sk}`);
    this.idField = placeholders[placeholders.length - 1] ?? 'tenantId';
  }

  /** The names of the key template's values (`projectId`, `logId`, …), in order. */
  get keyFields(): string[] {
    return placeholdersOf(`${this.key.shape.pk}#${this.key.shape.sk}`);
  }

  /** The item's key under `tenantId`, from the item's own key values. */
  keyOf(tenantId: string, values: Values<PK> & Values<SK>): Key {
    return this.key.keyOf(tenantId, values);
  }

  /**
   * The attributes of every index the item belongs to now: an index whose `when` does not hold, or
   * whose templates name an attribute the item lacks, is left out (the item is not in it).
   */
  indexAttributes(tenantId: string, item: Record<string, unknown>): Record<string, string> {
    const out: Record<string, string> = {};
    for (const declared of Object.values(this.indexes)) Object.assign(out, indexAttributesOf(declared, tenantId, item));
    return out;
  }

  /**
   * The item as stored: its attributes with the key, `entityType` and the index attributes
   * computed from them now (any earlier index attributes are dropped first, so an item never
   * stays under a key its attributes no longer give).
   */
  toItem(tenantId: string, attributes: this['putValues']): this['item'] {
    return this.stored(tenantId, attributes);
  }

  /**
   * The item as stored (see toItem) from what a write gives (see WriteValues): a client's input
   * checked against the declaration (checkFields, src/common/fields.ts) that the generic writers
   * (src/common/mutate.ts) hold as the entity's write values. Code that names its entity and gives
   * every required attribute uses toItem.
   */
  itemFrom(tenantId: string, attributes: this['writeValues']): this['item'] {
    return this.stored(tenantId, attributes);
  }

  /**
   * The item as stored from the values of whichever of several entities (a stream's event, a test
   * over every declaration), each attribute checked to be one of this entity's at run time (see
   * writeOf; a throw is a programming error).
   */
  itemChecked(tenantId: string, values: object): this['item'] {
    return this.itemFrom(tenantId, this.writeOf(values));
  }

  /**
   * The item as stored: what toItem and itemFrom share, once each has typed its attributes. Typed
   * as the entity's item: its attributes are the write's, which the caller's type checked against
   * the declaration, and its key, type and index attributes are derived here.
   */
  private stored(tenantId: string, attributes: object): this['item'] {
    const item: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(attributes)) {
      if (name !== 'PK' && name !== 'SK' && !MODEL_INDEX_ATTRIBUTES.includes(name)) item[name] = value;
    }
    const key = this.key.keyFrom(tenantId, item);
    const stored: Item = { ...key, entityType: this.type, ...item, ...this.indexAttributes(tenantId, item) };
    // `is` holds (the type was set just above); it is what makes the item the entity's typed one.
    if (!this.is(stored)) throw new Error(`${this.type} made an item of another type.`);
    // What it counts against its quota, derived like the index attributes (see QUOTA_COUNTED_ATTRIBUTE).
    const counted = this.quota ? this.quota.counts(stored) : undefined;
    return counted === undefined ? stored : { ...stored, [QUOTA_COUNTED_ATTRIBUTE]: counted };
  }

  /**
   * True when every attribute `values` names is one of this entity's: declared, a key value, its
   * status, what the server adds or the model derives (its key and index attributes included, which
   * a write drops and derives again). What lets code that holds values of whichever entity (an item
   * read and changed by name, a migration's rewrite) write them as this entity's.
   */
  writable(values: object): values is this['writeValues'] {
    return Object.keys(values).every((name) => this.writableNames.has(name));
  }

  /** The names `writable` accepts, made once. */
  private get writableNames(): ReadonlySet<string> {
    this.names ??= new Set([
      ...Object.keys(this.attributes),
      ...this.keyFields,
      ...(this.status ? [this.status.attribute] : []),
      ...SYSTEM_ATTRIBUTES,
      ...MODEL_INDEX_ATTRIBUTES,
      SEARCH_SLOTS_ATTRIBUTE,
      QUOTA_COUNTED_ATTRIBUTE,
    ]);
    return this.names;
  }

  private names?: ReadonlySet<string>;

  /**
   * `values` as this entity's write values (see writable). Throws (a programming error) naming an
   * attribute the entity does not declare.
   */
  writeOf(values: object): this['writeValues'] {
    if (this.writable(values)) return values;
    const unknown = Object.keys(values).filter((name) => !this.writableNames.has(name));
    throw new Error(`${this.type} declares no attribute ${unknown.join(', ')}.`);
  }

  /** A put of the item (see toItem); conditions are added by the caller (`ifNew`, `ifVersion`). */
  put(tenantId: string, attributes: this['putValues']): Write {
    return put(this.stored(tenantId, attributes));
  }

  /**
   * An in-place update of the item whose key values `values` holds, changing `attributes` only
   * (a set or list the builder then adds to). Throws (a programming error) when one of them composes
   * an index key: those change through put, which recomputes the index attributes.
   */
  update(tenantId: string, values: Record<string, unknown>, attributes: readonly (keyof this['putValues'] & string)[]): Write {
    const indexed = Object.values(this.indexes).flatMap((i) => [
      ...placeholdersOf(i.pk),
      ...placeholdersOf(i.sk),
      ...membershipReads(i.when),
    ]);
    // Searchable text and the word slots change only with their word items (src/common/mutate.ts).
    if (this.search) indexed.push(...this.search.fields, SEARCH_SLOTS_ATTRIBUTE);
    const clash = attributes.find((a) => indexed.includes(a));
    if (clash) throw new Error(`${this.type}.${clash} composes an index key; change it with a put.`);
    return update(this.key.keyFrom(tenantId, values));
  }

  /** A delete of the item whose key values `values` holds. */
  delete(tenantId: string, values: Record<string, unknown>): Write {
    return del(this.key.keyFrom(tenantId, values));
  }

  /** True when `item` is one of this entity's items: what turns a stored item into the typed one. */
  is(item: Item | null | undefined): item is this['item'] {
    return item != null && item.entityType === this.type;
  }

  /**
   * A read item as this entity's typed item (see is), or null when it is missing or another
   * entity's: what a read of one of its items by key returns.
   */
  found(item: Item | null | undefined): this['item'] | null {
    return this.is(item) ? item : null;
  }

  /**
   * What a read of this entity's items for `selection` (the attributes a query's fields read of
   * them; see src/common/projection.ts) returns: those, and what code that holds one of its items
   * may read whatever was selected: its key values (its ids, its global id) and its version. The
   * store adds the stored key and type (see Projection). Undefined, every attribute, for no
   * selection. The same array for the same selection, so what is built from it is kept.
   */
  projectionOf(selection: readonly string[] | undefined): Projection | undefined {
    if (!selection) return undefined;
    let projection = this.projections.get(selection);
    if (!projection) this.projections.set(selection, (projection = [...new Set([...this.keyFields, 'version', ...selection])]));
    return projection;
  }

  /** The projections made so far (see projectionOf), by selection. */
  private readonly projections = new WeakMap<readonly string[], Projection>();

  /** The items of this entity among read items, typed (see is); the others are left out. */
  itemsOf(items: readonly (Item | null)[]): this['item'][] {
    return items.filter((item): item is this['item'] => this.is(item));
  }

  /** A page of stored items as this entity's items (items of other entities are left out). */
  pageOf(page: Page<Item>): Page<this['item']> {
    return page.filter((item): item is this['item'] => this.is(item));
  }

  /**
   * A query of the index named `name` (as declared), with its partition filled from `values` and
   * the sort key matched by the prefix that `values` give (see fill; `open` for a prefix search of
   * the last value given). Newest (last) first with `descending`.
   */
  query(
    tenantId: string,
    name: string,
    values: Record<string, unknown>,
    options: { descending?: boolean; open?: boolean; range?: SortRange } = {},
  ): QuerySpec {
    const declared = this.indexes[name];
    if (!declared) throw new Error(`${this.type} has no index ${name}.`);
    const filled: Record<string, unknown> = { ...values, tenantId };
    const pk = fill(declared.pk, filled, declared.format);
    const skPrefix = fill(declared.sk, filled, declared.format, 'prefix', options.open);
    const logical = declared.crossTenant ? pk : withTenant(tenantId, pk);
    const { shards } = declared;
    const partition = {
      index: declared.index,
      pk: shards?.numbered ? shardKey(logical, 0, true) : logical,
      // A write-sharded index: its other shards, read with the first and merged (QuerySpec.shards).
      ...(shards ? { shards: Array.from({ length: shards.count - 1 }, (_, k) => shardKey(logical, k + 1, shards.numbered)) } : {}),
      descending: options.descending ?? false,
    };
    const { range } = options;
    if (!range || (range.from == null && range.to == null && range.below == null)) {
      return { ...partition, ...(skPrefix ? { skPrefix } : {}) };
    }
    // The range bounds the sort key's next value after the prefix (a time, when the sort key is
    // `{createdAt}#{id}`): from its first key at `from` up to, not including, the keys at `to`,
    // because every key at `to` continues after it (`<to>#<id>`) and so sorts above `<to>`.
    let upper = range.to != null ? skPrefix + range.to : skPrefix ? prefixEnd(skPrefix) : '\uffff';
    if (range.below != null && keyBelow(range.below) < upper) upper = keyBelow(range.below);
    // DynamoDB refuses an empty key value, so a range open below starts at the least character.
    return { ...partition, skBetween: [skPrefix + (range.from ?? '') || '\u0000', upper] };
  }

  /** The attribute that holds the sort key of the declared index `name` (to merge shards by it). */
  sortAttributeOf(name: string): string {
    const declared = this.indexes[name];
    if (!declared) throw new Error(`${this.type} has no index ${name}.`);
    return keySchemas[declared.index].sk;
  }

  /** The statuses of the machine, in declaration order (empty without one). */
  get states(): StateOf<M>[] {
    // The keys of the declared transitions are the states: what StateOf says at the type level.
    return (this.status ? Object.keys(this.status.transitions) : []) as StateOf<M>[];
  }

  /** Where `from` may go. */
  targets(from: string): readonly string[] {
    const transitions: Record<string, readonly string[]> | undefined = this.status?.transitions;
    return transitions?.[from] ?? [];
  }

  /**
   * Throws INVALID_TRANSITION naming the entity, the current status, the target and the statuses
   * allowed from here, unless the machine allows `from` → `to`.
   */
  assertTransition(id: string, from: string, to: string): void {
    const allowed = this.targets(from);
    if (allowed.includes(to)) return;
    const instead = allowed.length ? `from ${from} it can go to ${allowed.join(' or ')}` : `${from} is final`;
    throw new AppError(ErrorCode.INVALID_TRANSITION, `${this.type} ${id} cannot go from ${from} to ${to}: ${instead}.`, {
      entity: this.type,
      id,
      from,
      to,
      allowed: [...allowed],
    });
  }

  /** The transitions in words, for the GraphQL enum's description: `pending → in_progress; …`. */
  describeTransitions(): string {
    return this.states
      .map((s) => {
        const to = this.targets(s);
        return to.length ? `${s} → ${to.join(' | ')}` : `${s} (final)`;
      })
      .join('; ');
  }
}

/**
 * An entity's model bound to one tenant: its keys, queries and writes with the tenant filled in,
 * so the code that holds one never names a tenant. One is made where the tenant is known to be the
 * caller's (a request's scope, from the verified token or a pool worker's lease; see
 * src/common/bound-tenant.ts); each method is the model's method of the same name for that tenant.
 */
export class TenantModel<M extends AnyModel> {
  constructor(
    readonly model: M,
    private readonly tenantId: string,
  ) {}

  /** The item's key (see EntityModel.keyOf). */
  keyOf(values: Parameters<M['keyOf']>[1]): Key {
    return this.model.keyOf(this.tenantId, values);
  }

  /** The key of an item from whatever attributes it has (see KeyTemplate.keyFrom). */
  keyFrom(values: Record<string, unknown>): Key {
    return this.model.key.keyFrom(this.tenantId, values);
  }

  /** The item's partition key (see KeyTemplate.pkOf). */
  pkOf(values: Parameters<M['key']['pkOf']>[1]): string {
    return this.model.key.pkOf(this.tenantId, values);
  }

  /** A query of the items under the key template's prefix (see KeyTemplate.prefixOf). */
  prefixOf(values: Parameters<M['key']['prefixOf']>[1], descending = false): QuerySpec {
    return this.model.key.prefixOf(this.tenantId, values, descending);
  }

  /** A query of one of its declared indexes (see EntityModel.query). */
  query(
    name: string,
    values: Record<string, unknown>,
    options: { descending?: boolean; open?: boolean; range?: SortRange } = {},
  ): QuerySpec {
    return this.model.query(this.tenantId, name, values, options);
  }

  /** The attributes of every index the item belongs to now (see EntityModel.indexAttributes). */
  indexAttributes(item: Record<string, unknown>): Record<string, string> {
    return this.model.indexAttributes(this.tenantId, item);
  }

  /** The item as stored (see EntityModel.toItem): an attribute its declaration does not name is a type error. */
  toItem(attributes: PutValues<M>): ItemOf<M> {
    return this.model.toItem(this.tenantId, attributes);
  }

  /** The item as stored from a write's values (see EntityModel.itemFrom). */
  itemFrom(attributes: WriteValues<M>): ItemOf<M> {
    return this.model.itemFrom(this.tenantId, attributes);
  }

  /** A put of the item (see EntityModel.put): an attribute its declaration does not name is a type error. */
  put(attributes: PutValues<M>): Write {
    return this.model.put(this.tenantId, attributes);
  }

  /** An in-place update of attributes that compose no index key (see EntityModel.update; a throw is a programming error). */
  update(values: Parameters<M['keyOf']>[1], attributes: readonly (keyof PutValues<M> & string)[]): Write {
    return this.model.update(this.tenantId, values, attributes);
  }

  /** A delete of the item (see EntityModel.delete). */
  delete(values: Parameters<M['keyOf']>[1]): Write {
    return this.model.delete(this.tenantId, values);
  }
}

/**
 * The items of any of `models` among read items (a partition that holds several entities), typed
 * as theirs (see EntityModel.is) and in the order read; the others are left out.
 */
export function itemsOfModels<const Ms extends readonly AnyModel[]>(models: Ms, items: readonly (Item | null)[]): ItemOf<Ms[number]>[] {
  return items.filter((item): item is ItemOf<Ms[number]> => models.some((model) => model.is(item)));
}

/** Declares an entity (see EntityDeclaration); the literal types of its templates, attributes and statuses are kept. */
export function entity<
  const PK extends string,
  const SK extends string,
  const Prefix extends string | undefined = undefined,
  const Parent extends string | undefined = undefined,
  const As extends AttributeMap = Record<never, Attribute>,
  const M extends StatusDeclaration | undefined = undefined,
  const K extends SystemField = SystemField,
>(declaration: EntityDeclaration<PK, SK, Prefix, Parent, As, M, K>): EntityModel<PK, SK, Prefix, Parent, As, M, K> {
  return new EntityModel(declaration);
}

// biome-ignore lint/suspicious/noExplicitAny: any model, whatever its templates and attributes.
export type AnyModel = EntityModel<any, any, any, any, any, any, any>;
/** The stored item type of a model. */
export type ItemOf<M extends AnyModel> = M['item'];
/**
 * What a put of a model's item gives: its declared attributes, key values and status, with any of
 * what the server adds that the entity keeps (version, times, author; expiry; the key and entity
 * type, which the put derives again). An attribute the declaration does not name is a type error.
 */
export type PutValues<M extends AnyModel> = M['putValues'];
/**
 * What a write of a model's item gives from a client's checked input: its key values, and any of
 * its declared attributes (null where cleared), status, server and derived attributes. An attribute
 * the declaration does not name is a type error.
 */
export type WriteValues<M extends AnyModel> = M['writeValues'];

/** An enum object for a list of values, keyed by the values in upper case: `['in_progress']` → `{ IN_PROGRESS: 'in_progress' }`. */
export type EnumObject<V extends string> = { readonly [K in V as Uppercase<K>]: K };

export function enumObject<const V extends string>(values: readonly V[]): EnumObject<V> {
  // Object.fromEntries types its keys as string; the mapped type says which they are.
  return Object.fromEntries(values.map((value) => [value.toUpperCase(), value])) as never;
}
