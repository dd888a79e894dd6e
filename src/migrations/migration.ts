import { type EntityName, entities } from '../common/entities';
import { attr, type AttributeValues } from '../infra/dynamo/entity';
import type { Item } from '../infra/dynamo/write';

/*
 * A migration of the table, as code in this repository: numbered, named, the entities whose
 * stored items it rewrites, and what it does to each one. Every migration listed in
 * migrations.ts runs exactly once, in number order, as a system job (src/migrations/migration.service.ts):
 * a parallel scan, a checkpoint per segment, each rewrite through the standard write path with
 * optimistic locking, within the declared write budget. docs/operations.md says how to add one.
 */

/**
 * What a migration does to each stored item of its entities, given the item as it is now (read
 * afresh, strongly consistent, before every write):
 * - `'rederive'`: recompute its index attributes and search words from today's declaration
 *   (src/common/entities.ts); items already as declared are left alone;
 * - `'reindex'`: recompute its index attributes only, in place: no new version, no new time, no
 *   event, on condition that the item is still as read (its version, or its updatedAt for an entity
 *   that keeps no version). For entities whose version is a stream's position (a job's is its
 *   event stream's: a rewrite through the standard path would leave a gap in it) or that keep
 *   none (a step attempt), when only where the item is indexed changed (an index's shards);
 * - a transform: the item's new attributes, or null when it needs nothing. It is run again on the
 *   items a killed run had done after its last checkpoint, and again after losing a race to a
 *   user's edit, so it must recognise its own output and return null for it.
 * A key that changed is never moved by a migration (the item's children and references name it):
 * such items are counted as skipped and listed by the drift check.
 */
export type MigrationChange = 'rederive' | 'reindex' | ((item: Item) => Record<string, unknown> | null);

/**
 * A migration's declared fields, said once: its declaration's type (MigrationDeclaration) and the
 * API's Migration (migration.type.ts), which shows them with its run.
 */
export const MIGRATION_FIELDS = {
  /** Three digits (`001`): migrations run in this order, each once. */
  id: attr.id({ required: true, description: 'Its number, e.g. 001.' }),
  /** Kebab case (`search-backfill`); the file is `<id>-<name>.ts`. */
  name: entities.Migration.attributes.name,
  description: attr.string({ required: true, description: 'What it does.' }),
  /** The declared entities whose items it rewrites (EntityName in the declaration). */
  entities: attr.strings({ required: true, description: 'The entity types whose items it rewrites.' }),
  /**
   * The write budget of the whole run: entities rewritten per second, shared evenly by its
   * segments, however many instances run them (each segment runs in one place at a time). Each
   * rewrite is one transaction: the entity, the word items that change and its event.
   */
  itemsPerSecond: attr.int({
    required: true,
    description:
      'Its write budget: entities rewritten per second over the whole run (the declared one, or what runMigrations gave its run).',
  }),
  /** The parallel scan's segments: the work items of its job, run side by side. */
  segments: attr.int({ required: true, description: 'Parallel scan segments: the work items of its job.' }),
};

/** A migration as code declares it: its fields (see MIGRATION_FIELDS), its entities by name, and its change. */
export type MigrationDeclaration = Omit<AttributeValues<typeof MIGRATION_FIELDS>, 'entities'> & {
  entities: readonly EntityName[];
  change: MigrationChange;
};

/** What a migration's declaration may leave out, and what it then takes: a re-derive, at 200 items a second over 4 segments. */
const MIGRATION_DEFAULTS = { change: 'rederive', itemsPerSecond: 200, segments: 4 } as const;
type Defaulted = keyof typeof MIGRATION_DEFAULTS;

/**
 * Declares a migration (see MigrationDeclaration), with MIGRATION_DEFAULTS for its change, budget
 * and segments where it names none; throws (a programming error) on a malformed one.
 */
export function migration(
  declared: Omit<MigrationDeclaration, Defaulted> & Partial<Pick<MigrationDeclaration, Defaulted>>,
): MigrationDeclaration {
  const declaration: MigrationDeclaration = { ...MIGRATION_DEFAULTS, ...declared };
  if (!/^\d{3}$/.test(declaration.id)) throw new Error(`Migration id ${declaration.id} must be three digits.`);
  if (!/^[a-z0-9]+(-[a-z0-9]+)*$/.test(declaration.name)) throw new Error(`Migration name ${declaration.name} must be kebab case.`);
  if (!(declaration.itemsPerSecond >= 1)) throw new Error(`Migration ${declaration.id} needs a budget of at least 1 item a second.`);
  if (!(Number.isInteger(declaration.segments) && declaration.segments >= 1 && declaration.segments <= 50))
    throw new Error(`Migration ${declaration.id} needs 1 to 50 segments.`);
  return declaration;
}

/**
 * What a segment counts, declared once: its type here, and the fields of the API's MigrationCounts
 * (migration.type.ts), which adds up a migration's segments, and the outputs of the
 * migration kind's scan stage (migration.kind.ts), which a segment reports as its checkpoint.
 */
export const SEGMENT_COUNTS = {
  scanned: attr.int({ required: true, description: 'Items of its entities read.' }),
  rewritten: attr.int({ required: true, description: 'Items rewritten through the standard write path.' }),
  unchanged: attr.int({ required: true, description: 'Items found as wanted already (left alone).' }),
  skipped: attr.int({
    required: true,
    description: 'Items whose key is not the one their declaration gives: never moved by a migration; see modelDrift.',
  }),
  conflicts: attr.int({
    required: true,
    description: 'Rewrites that lost a race to another writer and were decided again on its change.',
  }),
};

/** What a segment counts: items of the migration's entities read, rewritten, found as wanted, skipped (a key that changed), and races lost to other writers. */
export type SegmentCounts = AttributeValues<typeof SEGMENT_COUNTS>;

/** The names of a segment's counters, in declaration order. */
export const SEGMENT_COUNT_NAMES = Object.keys(SEGMENT_COUNTS).filter((name): name is keyof SegmentCounts => name in SEGMENT_COUNTS);

/** Counts of nothing yet: every counter of SEGMENT_COUNTS at 0. */
export const zeroCounts = (): SegmentCounts => ({ scanned: 0, rewritten: 0, unchanged: 0, skipped: 0, conflicts: 0 });
