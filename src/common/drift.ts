import {
  type AnyModel,
  attr,
  MODEL_INDEX_ATTRIBUTES,
  QUOTA_COUNTED_ATTRIBUTE,
  SEARCH_SLOTS_ATTRIBUTE,
  type ShapeValues,
  tenantOfPk,
} from '../infra/dynamo/entity';
import { recordedOf } from './quota';
import { OUTBOX_ENTRY, type Item } from '../infra/dynamo/write';
import { entities, entityNames } from './entities';
import { indexedWords } from './search';

/*
 * Drift: how a stored item differs from what today's declaration of its entity derives from its
 * attributes (src/common/entities.ts, computed by src/infra/dynamo/entity.ts and search.ts). An
 * item written before a declaration changed (a new index, a new searchable field, a new derived
 * attribute) keeps its old shape until something writes it again; the drift check finds such
 * items and a migration (src/migrations) rewrites them. Pure: nothing here reads the table.
 */

/** What of an item differs from its declaration: `PK`/`SK` (its key), an index attribute's name, `searchWords` or `quotaCounted`. */
export type DriftField = string;

/** The declared models of each `entityType` (several declarations share `Event` and `StreamHead`). */
const modelsByType = new Map<string, AnyModel[]>();
for (const name of entityNames) {
  const model: AnyModel = entities[name];
  modelsByType.set(model.type, [...(modelsByType.get(model.type) ?? []), model]);
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A key template as a pattern whose groups are its placeholders (`PROJECT#{projectId}` → `^PROJECT#(.+?)$`). */
function patternOf(template: string): { pattern: RegExp; names: string[] } {
  const parts = template.split(/\{(\w+)\}/);
  const names = parts.filter((_, i) => i % 2 === 1);
  return { pattern: new RegExp(`^${parts.map((part, i) => (i % 2 === 0 ? escapeRegExp(part) : '(.+?)')).join('')}$`), names };
}

/**
 * The key values `item`'s own key holds under `model`'s key template, or null when its key is not
 * of that shape. Some items keep their key values only in their key (a stream's head holds its
 * position and nothing of its project), so these fill what the attributes lack.
 */
function keyValuesOf(model: AnyModel, item: Item): Record<string, string> | null {
  const { pk, sk } = model.key.shape;
  const values: Record<string, string> = {};
  const tenantPart = patternOf(pk ? `TENANT#{tenant}#${pk}` : 'TENANT#{tenant}');
  for (const [{ pattern, names }, key] of [
    [tenantPart, item.PK],
    [patternOf(sk), item.SK],
  ] as const) {
    const match = pattern.exec(String(key));
    if (!match) return null;
    names.forEach((name, i) => {
      values[name] = match[i + 1];
    });
  }
  return values;
}

/** The key an item's attributes (and what its own key holds) give under `model`, or null when the template names a value it lacks. */
function derivedKey(model: AnyModel, tenantId: string, item: Item): { PK: string; SK: string } | null {
  try {
    return model.key.keyFrom(tenantId, { ...keyValuesOf(model, item), ...item });
  } catch {
    // keyFrom throws only for a missing key value: this item cannot be keyed by this declaration.
    return null;
  }
}

/**
 * The declared models an item written without an entity type may be: those whose key names
 * nothing but the tenant (one item each, such as TenantUsage), and the usage release shards
 * (counters kept by ADD alone, like TenantUsage, one a shard).
 */
const typelessModels = [
  ...entityNames.map((name): AnyModel => entities[name]).filter((model) => model.keyFields.length === 0),
  entities.TenantUsageRelease,
];

/** The model of fixed key that `item`'s key is, for an item written without an entity type; undefined for none. */
function typelessByKey(item: Item): AnyModel | undefined {
  const tenantId = tenantOfPk(item.PK);
  return typelessModels.find((model) => {
    const key = derivedKey(model, tenantId, item);
    return key !== null && key.PK === item.PK && key.SK === item.SK;
  });
}

/**
 * The model that declares `item`: of the models of its `entityType`, the one whose key template
 * gives the item's own key, else the only one (its key drifted). Undefined for an item of no
 * declared type, or of a shared type whose key no declaration gives.
 */
export function modelOf(item: Item): AnyModel | undefined {
  // Counters kept by ADD alone (a tenant's usage) carry no entity type: their fixed key says what they are.
  if (item.entityType === undefined) return typelessByKey(item);
  const candidates = modelsByType.get(String(item.entityType));
  if (!candidates) return undefined;
  const tenantId = tenantOfPk(item.PK);
  const exact = candidates.find((model) => {
    const key = derivedKey(model, tenantId, item);
    return key !== null && key.PK === item.PK && key.SK === item.SK;
  });
  return exact ?? (candidates.length === 1 ? candidates[0] : undefined);
}

/** The words an item's search slots hold, sorted ('' slots left out). */
function storedWords(item: Item): string[] {
  const slots = item[SEARCH_SLOTS_ATTRIBUTE];
  return Array.isArray(slots) ? slots.filter((word): word is string => typeof word === 'string' && word !== '').sort() : [];
}

/**
 * What of `item` differs from what `model` derives from its attributes: its key, each index
 * attribute that is missing, extra or different, `quotaCounted` when what it has counted against
 * its quota is not what it uses, and `searchWords` when the words its search slots hold are not
 * the words its searchable attributes give. Empty when it is as declared.
 */
export function driftOf(model: AnyModel, item: Item): DriftField[] {
  const tenantId = tenantOfPk(item.PK);
  const key = derivedKey(model, tenantId, item);
  if (!key) return ['PK', 'SK'];
  const drift: DriftField[] = [];
  if (key.PK !== item.PK) drift.push('PK');
  if (key.SK !== item.SK) drift.push('SK');
  const derived = model.indexAttributes(tenantId, item);
  for (const name of MODEL_INDEX_ATTRIBUTES) if ((derived[name] ?? undefined) !== (item[name] ?? undefined)) drift.push(name);
  // An item that has not counted what it uses against its quota (written before quotas were kept).
  if (model.quota && recordedOf(item) !== model.quota.counts(item)) drift.push(QUOTA_COUNTED_ATTRIBUTE);
  if (model.search) {
    const words = [...indexedWords(model.search, item).keys()].sort();
    const stored = storedWords(item);
    if (words.length !== stored.length || words.some((word, i) => word !== stored[i])) drift.push('searchWords');
  }
  return drift;
}

/** One sample of drift: the item's key and what differs. */
export interface DriftSample {
  PK: string;
  SK: string;
  fields: DriftField[];
}

/** The drift of one entity type, as the check found it. */
export interface TypeDrift {
  entityType: string;
  /** Items of the type read. */
  checked: number;
  /** Items of it that differ from their declaration. */
  drifted: number;
  /** How many drifted items differ in each field. */
  fields: Record<DriftField, number>;
  samples: DriftSample[];
}

/**
 * Adds up drift over the items of a table (fed page by page): per entity type, the items checked
 * and those that differ, with the first `maxSamples` of them; items of no declared type are
 * counted apart (`undeclared`).
 */
export class DriftReport {
  private readonly types = new Map<string, TypeDrift>();
  undeclared = 0;

  constructor(private readonly maxSamples = 5) {}

  /**
   * Checks one stored item. A commit's outbox entry (write.ts) is no entity but the outbox's own
   * bookkeeping, gone once its events are published (the outbox metrics count a backlog): it is
   * neither checked nor counted as of no declared type.
   */
  add(item: Item): void {
    if (item.entityType === OUTBOX_ENTRY) return;
    const model = modelOf(item);
    if (!model) {
      this.undeclared++;
      return;
    }
    let entry = this.types.get(model.type);
    if (!entry) this.types.set(model.type, (entry = { entityType: model.type, checked: 0, drifted: 0, fields: {}, samples: [] }));
    entry.checked++;
    const fields = driftOf(model, item);
    if (fields.length === 0) return;
    entry.drifted++;
    for (const field of fields) entry.fields[field] = (entry.fields[field] ?? 0) + 1;
    if (entry.samples.length < this.maxSamples) entry.samples.push({ PK: item.PK, SK: item.SK, fields });
  }

  /** Merges another report's counts into this one (the segments of a parallel check). */
  merge(other: DriftReport): void {
    this.undeclared += other.undeclared;
    for (const theirs of other.types.values()) {
      const mine = this.types.get(theirs.entityType);
      if (!mine) {
        this.types.set(theirs.entityType, { ...theirs, fields: { ...theirs.fields }, samples: [...theirs.samples] });
        continue;
      }
      mine.checked += theirs.checked;
      mine.drifted += theirs.drifted;
      for (const [field, n] of Object.entries(theirs.fields)) mine.fields[field] = (mine.fields[field] ?? 0) + n;
      mine.samples.push(...theirs.samples.slice(0, this.maxSamples - mine.samples.length));
    }
  }

  /** The types checked, by name. */
  byType(): TypeDrift[] {
    return [...this.types.values()].sort((a, b) => a.entityType.localeCompare(b.entityType));
  }

  /** Drifted items over every type. */
  get drifted(): number {
    return this.byType().reduce((sum, t) => sum + t.drifted, 0);
  }
}

/**
 * A drift report as the API (ModelDrift, src/migrations/migration.type.ts) and the tools show it,
 * declared once: per type, the fields as a list, the samples' keys in lower case. DriftView is
 * its type.
 */
export const MODEL_DRIFT = {
  name: 'ModelDrift',
  description: 'The drift check over the whole table: stored items against their declarations.',
  fields: {
    drifted: attr.int({ required: true, description: 'Drifted items over every type.' }),
    undeclared: attr.int({ required: true, description: 'Items of no declared entity type.' }),
    types: attr.listOf({
      name: 'EntityDrift',
      description: 'The drift of one entity type.',
      fields: {
        entityType: attr.string({ required: true, description: 'The entityType of its items (Log, Project …).' }),
        checked: attr.int({ required: true, description: 'Its items read.' }),
        drifted: attr.int({
          required: true,
          description: 'Its items whose key, index attributes or search words differ from what the declaration derives.',
        }),
        fields: attr.listOf({
          name: 'DriftCount',
          description: 'How many drifted items of a type differ in one field.',
          fields: {
            field: attr.string({ required: true, description: 'PK or SK (its key), an index attribute (GSI1PK …), or searchWords.' }),
            items: attr.int({ required: true, description: 'How many of its drifted items differ in it.' }),
          },
        })({ required: true, description: 'How many drifted items differ in each field.' }),
        samples: attr.listOf({
          name: 'DriftSample',
          description: 'One drifted item: its key and what differs.',
          fields: {
            pk: attr.string({ required: true, description: 'Its partition key as stored.' }),
            sk: attr.string({ required: true, description: 'Its sort key as stored.' }),
            fields: attr.strings({ required: true, description: 'What differs: PK, SK, index attributes, searchWords.' }),
          },
        })({ required: true, description: 'The first drifted items found, up to maxSamples.' }),
      },
    })({ required: true, description: 'Every entity type found in the table, by name.' }),
  },
} as const;

/** A drift report as the API and the tools show it (see MODEL_DRIFT). */
export type DriftView = ShapeValues<typeof MODEL_DRIFT>;

/** The view of `report` (see DriftView): what modelDrift answers and npm run verify-model prints. */
export function driftView(report: DriftReport): DriftView {
  return {
    drifted: report.drifted,
    undeclared: report.undeclared,
    types: report.byType().map((t) => ({
      entityType: t.entityType,
      checked: t.checked,
      drifted: t.drifted,
      fields: Object.entries(t.fields).map(([field, items]) => ({ field, items })),
      samples: t.samples.map((s) => ({ pk: s.PK, sk: s.SK, fields: s.fields })),
    })),
  };
}
