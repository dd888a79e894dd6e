import { registerDeclaredEnum, shapeObjectType } from '../common/model-types';
import { attr, enumObject } from '../infra/dynamo/entity';
import { JobStatus } from '../job/job.machine';
import { entities } from '../common/entities';
import { SEGMENT_COUNTS } from './migration.segment';

/** Where a migration stands. */
export const MigrationState = enumObject(['PENDING', 'RUNNING', 'APPLIED', 'FAILED']);
export type MigrationState = (typeof MigrationState)[keyof typeof MigrationState];
registerDeclaredEnum(MigrationState, {
  name: 'MigrationState',
  description: 'Where a migration stands.',
  values: {
    PENDING: 'Not started: runMigrations (or npm run migrate) starts it once the ones before it are applied.',
    RUNNING: 'Its job runs: the server works through its segments.',
    APPLIED: 'Its job completed: it never runs again.',
    FAILED: 'A segment failed past its attempts: runMigrations takes it up again from its checkpoint.',
  },
});

export const MigrationCounts = shapeObjectType({
  name: 'MigrationCounts',
  description: 'What a migration’s segments counted so far (from their checkpoints).',
  fields: SEGMENT_COUNTS,
});
export type MigrationCounts = InstanceType<typeof MigrationCounts>;

export const Migration = shapeObjectType({
  name: 'Migration',
  description: 'A migration of the table (src/migrations): numbered, run once, as a system job.',
  fields: {
    id: attr.id({ required: true, description: 'Its number, e.g. 001.' }),
    name: entities.Migration.attributes.name,
    description: attr.string({ required: true, description: 'What it does.' }),
    entities: attr.strings({ required: true, description: 'The entity types whose items it rewrites.' }),
    state: attr.json<MigrationState>()({ required: true, apiType: 'MigrationState', description: 'Where it stands.' }),
    itemsPerSecond: attr.int({
      required: true,
      description:
        'Its write budget: entities rewritten per second over the whole run (the declared one, or what runMigrations gave its run).',
    }),
    segments: attr.int({ required: true, description: 'Parallel scan segments: the work items of its job.' }),
    jobId: attr.id({ description: 'Its job in the system partition: follow it with jobProgress(jobId, system: true).' }),
    jobStatus: attr.json<JobStatus | null>()({ apiType: 'JobStatus', description: 'Its job’s status.' }),
    progress: attr.float({ description: 'Its job’s progress, 0 to 1.' }),
    counts: attr.json<MigrationCounts | null>()({
      apiType: 'MigrationCounts',
      description: 'What its segments counted, as of their last checkpoints.',
    }),
    rewriteRate: attr.float({ description: 'Entities rewritten per second since its job started (until it finished).' }),
    appliedAt: entities.Migration.attributes.appliedAt,
  },
});
export type Migration = InstanceType<typeof Migration>;

export const DriftCount = shapeObjectType({
  name: 'DriftCount',
  description: 'How many drifted items of a type differ in one field.',
  fields: {
    field: attr.string({ required: true, description: 'PK or SK (its key), an index attribute (GSI1PK …), or searchWords.' }),
    items: attr.int({ required: true, description: 'How many of its drifted items differ in it.' }),
  },
});
export type DriftCount = InstanceType<typeof DriftCount>;

export const DriftSample = shapeObjectType({
  name: 'DriftSample',
  description: 'One drifted item: its key and what differs.',
  fields: {
    pk: attr.string({ required: true, description: 'Its partition key as stored.' }),
    sk: attr.string({ required: true, description: 'Its sort key as stored.' }),
    fields: attr.strings({ required: true, description: 'What differs: PK, SK, index attributes, searchWords.' }),
  },
});
export type DriftSample = InstanceType<typeof DriftSample>;

export const EntityDrift = shapeObjectType({
  name: 'EntityDrift',
  description: 'The drift of one entity type.',
  fields: {
    entityType: attr.string({ required: true, description: 'The entityType of its items (Log, Project …).' }),
    checked: attr.int({ required: true, description: 'Its items read.' }),
    drifted: attr.int({
      required: true,
      description: 'Its items whose key, index attributes or search words differ from what the declaration derives.',
    }),
    fields: attr.json<DriftCount[]>()({
      required: true,
      apiType: '[DriftCount]',
      description: 'How many drifted items differ in each field.',
    }),
    samples: attr.json<DriftSample[]>()({
      required: true,
      apiType: '[DriftSample]',
      description: 'The first drifted items found, up to maxSamples.',
    }),
  },
});
export type EntityDrift = InstanceType<typeof EntityDrift>;

export const ModelDrift = shapeObjectType({
  name: 'ModelDrift',
  description: 'The drift check over the whole table: stored items against their declarations.',
  fields: {
    drifted: attr.int({ required: true, description: 'Drifted items over every type.' }),
    undeclared: attr.int({ required: true, description: 'Items of no declared entity type.' }),
    types: attr.json<EntityDrift[]>()({
      required: true,
      apiType: '[EntityDrift]',
      description: 'Every entity type found in the table, by name.',
    }),
  },
});
export type ModelDrift = InstanceType<typeof ModelDrift>;
