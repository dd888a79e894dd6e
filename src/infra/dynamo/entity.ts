import type { QuerySpec } from './store';
import type { IndexName, Key } from './table';

/*
 * An entity's place in the table, declared as data (as ElectroDB declares its access patterns):
 * one template for the partition key and one for the sort key. Keys, key prefixes for queries
 * and the tenant prefix are derived from the templates here and nowhere else.
 */

/** The `{name}` placeholders of a key template, e.g. `'PROJECT#{projectId}#LOG#{logId}'` → `'projectId' | 'logId'`. */
export type Placeholders<T extends string> = T extends `${string}{${infer Name}}${infer Rest}` ? Name | Placeholders<Rest> : never;

type Values<T extends string> = { [K in Placeholders<T>]: string | number };

export interface KeyShape<PK extends string, SK extends string> {
  /**
   * The partition key after `TENANT#<tenantId>`: '' for the tenant's partition, or e.g.
   * `'JOB#{jobId}'` for a partition of its own. The tenant is added here, never by a declaration,
   * so every key of a tenant's entity starts with `TENANT#<tenantId>`.
   */
  pk: PK;
  /** The sort key, e.g. `'PROJECT#{projectId}#MILESTONE#{milestoneId}'`. */
  sk: SK;
  /**
   * How a placeholder's value is written into a key (zero-padding, normalizing free text), so
   * that key order is the order wanted; a placeholder without one is written as it is.
   */
  // biome-ignore lint/suspicious/noExplicitAny: a formatter takes whatever its placeholder holds (a number, a text).
  format?: { [K in Placeholders<PK> | Placeholders<SK>]?: (value: any) => string };
}

/** The partition of a tenant's own items, and the start of every key a tenant's request touches. */
export const tenantPk = (tenantId: string) => `TENANT#${tenantId}`;

/** The declared key of one entity; `keyOf` and `prefixOf` are the only ways its keys are built. */
export class KeyTemplate<PK extends string, SK extends string> {
  constructor(readonly shape: KeyShape<PK, SK>) {}

  private fill(template: string, values: Record<string, unknown>, upTo?: 'prefix'): string {
    let out = '';
    for (const [i, part] of template.split(/\{([A-Za-z]+)\}/).entries()) {
      if (i % 2 === 0) {
        out += part;
        continue;
      }
      const value = values[part];
      if (value === undefined) {
        if (upTo === 'prefix') return out;
        throw new Error(`Key value ${part} is missing.`);
      }
      const format = (this.shape.format as Record<string, ((v: unknown) => string) | undefined> | undefined)?.[part];
      out += format ? format(value) : String(value);
    }
    return out;
  }

  /** The partition key for `tenantId`: always `TENANT#<tenantId>` first. */
  pkOf(tenantId: string, values: Values<PK>): string {
    const rest = this.fill(this.shape.pk, values);
    return rest ? `${tenantPk(tenantId)}#${rest}` : tenantPk(tenantId);
  }

  /** The item key. Throws (a programming error) when a value of the templates is missing. */
  keyOf(tenantId: string, values: Values<PK> & Values<SK>): Key {
    return { PK: this.pkOf(tenantId, values), SK: this.fill(this.shape.sk, values) };
  }

  /**
   * A query of the items whose sort key starts with the template filled up to the first value not
   * given: `prefixOf(t, { projectId })` on `PROJECT#{projectId}#LOG#{logId}` reads `PROJECT#p#LOG#`.
   */
  prefixOf(tenantId: string, values: Values<PK> & Partial<Values<SK>>, descending = false): QuerySpec {
    return { pk: this.pkOf(tenantId, values), skPrefix: this.fill(this.shape.sk, values, 'prefix'), descending };
  }
}

/** Declares a key shape (see KeyShape); the template strings are kept as literal types. */
export function keyShape<const PK extends string, const SK extends string>(shape: KeyShape<PK, SK>): KeyTemplate<PK, SK> {
  return new KeyTemplate(shape);
}

/** One entity's declaration: its type name, id prefix, parent, key shape, indexes and TTL. */
export interface EntityDeclaration<
  PK extends string,
  SK extends string,
  Prefix extends string | undefined,
  Parent extends string | undefined = undefined,
> {
  /** The `entityType` attribute of its items, e.g. `Milestone`. */
  type: string;
  /** Ids are `<idPrefix>_<ULID>`; undefined for items keyed by something else (a tag, a version). */
  idPrefix: Prefix;
  /** The entity it belongs to; a project child's key nests under the project's sort key. */
  parent?: Parent;
  key: KeyTemplate<PK, SK>;
  /** The secondary indexes its items appear in (sparse: only items that carry the attributes). */
  indexes?: readonly IndexName[];
  /** True when its items carry the TTL attribute and expire. */
  ttl?: boolean;
}

/** Declares an entity (see EntityDeclaration); the literal types of its templates and prefix are kept. */
export function entity<
  const PK extends string,
  const SK extends string,
  const Prefix extends string | undefined = undefined,
  const Parent extends string | undefined = undefined,
>(declaration: EntityDeclaration<PK, SK, Prefix, Parent>): EntityDeclaration<PK, SK, Prefix, Parent> {
  return declaration;
}
