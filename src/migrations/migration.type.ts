import { registerDeclaredEnum, shapeObjectType } from '../common/model-types';
import { attr, enumObject, pickDeclared } from '../infra/dynamo/entity';
import { JobStatus } from '../job/job.machine';
import { entities } from '../common/entities';
import { MODEL_DRIFT } from '../common/drift';
import { MIGRATION_FIELDS, SEGMENT_COUNTS } from './migration';

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

/** What a migration's segments counted, added up: a Migration's counts. */
const MIGRATION_COUNTS = {
  name: 'MigrationCounts',
  description: 'What a migration’s segments counted so far (from their checkpoints).',
  fields: SEGMENT_COUNTS,
} as const;

export const Migration = shapeObjectType({
  name: 'Migration',
  description: 'A migration of the table (src/migrations): numbered, run once, as a system job.',
  fields: {
    ...pickDeclared(MIGRATION_FIELDS, ['id', 'name', 'description', 'entities']),
    state: attr.json<MigrationState>()({ required: true, apiType: 'MigrationState', description: 'Where it stands.' }),
    ...pickDeclared(MIGRATION_FIELDS, ['itemsPerSecond', 'segments']),
    jobId: attr.id({ description: 'Its job in the system partition: follow it with jobProgress(jobId, system: true).' }),
    jobStatus: attr.json<JobStatus | null>()({ apiType: 'JobStatus', description: 'Its job’s status.' }),
    progress: attr.float({ description: 'Its job’s progress, 0 to 1.' }),
    counts: attr.objectOf(MIGRATION_COUNTS)({ nullable: true, description: 'What its segments counted, as of their last checkpoints.' }),
    rewriteRate: attr.float({ description: 'Entities rewritten per second since its job started (until it finished).' }),
    appliedAt: entities.Migration.attributes.appliedAt,
  },
});
export type Migration = InstanceType<typeof Migration>;

/** The drift check's answer, from its declaration (src/common/drift.ts), with the types of what it lists. */
export const ModelDrift = shapeObjectType(MODEL_DRIFT);
export type ModelDrift = InstanceType<typeof ModelDrift>;
