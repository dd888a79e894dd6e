import { Field, Float, ID, Int, ObjectType, registerEnumType } from 'type-graphql';
import { DateTime } from '../common/scalars';
import { JobStatus } from '../job/job.machine';

export enum MigrationState {
  PENDING = 'PENDING',
  RUNNING = 'RUNNING',
  APPLIED = 'APPLIED',
  FAILED = 'FAILED',
}
registerEnumType(MigrationState, {
  name: 'MigrationState',
  description: 'Where a migration stands.',
  valuesConfig: {
    PENDING: { description: 'Not started: runMigrations (or npm run migrate) starts it once the ones before it are applied.' },
    RUNNING: { description: 'Its job runs: the server works through its segments.' },
    APPLIED: { description: 'Its job completed: it never runs again.' },
    FAILED: { description: 'A segment failed past its attempts: runMigrations takes it up again from its checkpoint.' },
  },
});

@ObjectType({ description: 'What a migration’s segments counted so far (from their checkpoints).' })
export class MigrationCounts {
  @Field(() => Int, { description: 'Items of its entities read.' })
  scanned!: number;
  @Field(() => Int, { description: 'Items rewritten through the standard write path.' })
  rewritten!: number;
  @Field(() => Int, { description: 'Items found as wanted already (left alone).' })
  unchanged!: number;
  @Field(() => Int, { description: 'Items whose key is not the one their declaration gives: never moved by a migration; see modelDrift.' })
  skipped!: number;
  @Field(() => Int, { description: 'Rewrites that lost a race to another writer and were decided again on its change.' })
  conflicts!: number;
}

@ObjectType({ description: 'A migration of the table (src/migrations): numbered, run once, as a system job.' })
export class Migration {
  @Field(() => ID, { description: 'Its number, e.g. 001.' })
  id!: string;
  @Field({ description: 'Its name, e.g. search-backfill.' })
  name!: string;
  @Field({ description: 'What it does.' })
  description!: string;
  @Field(() => [String], { description: 'The entity types whose items it rewrites.' })
  entities!: string[];
  @Field(() => MigrationState, { description: 'Where it stands.' })
  state!: MigrationState;
  @Field(() => Int, {
    description:
      'Its write budget: entities rewritten per second over the whole run (the declared one, or what runMigrations gave its run).',
  })
  itemsPerSecond!: number;
  @Field(() => Int, { description: 'Parallel scan segments: the work items of its job.' })
  segments!: number;
  @Field(() => ID, { nullable: true, description: 'Its job in the system partition: follow it with jobProgress(jobId, system: true).' })
  jobId?: string | null;
  @Field(() => JobStatus, { nullable: true, description: 'Its job’s status.' })
  jobStatus?: JobStatus | null;
  @Field(() => Float, { nullable: true, description: 'Its job’s progress, 0 to 1.' })
  progress?: number | null;
  @Field(() => MigrationCounts, { nullable: true, description: 'What its segments counted, as of their last checkpoints.' })
  counts?: MigrationCounts | null;
  @Field(() => Float, { nullable: true, description: 'Entities rewritten per second since its job started (until it finished).' })
  rewriteRate?: number | null;
  @Field(() => DateTime, { nullable: true, description: 'When its job completed.' })
  appliedAt?: string | null;
}

@ObjectType({ description: 'How many drifted items of a type differ in one field.' })
export class DriftCount {
  @Field({ description: 'PK or SK (its key), an index attribute (GSI1PK …), or searchWords.' })
  field!: string;
  @Field(() => Int, { description: 'How many of its drifted items differ in it.' })
  items!: number;
}

@ObjectType({ description: 'One drifted item: its key and what differs.' })
export class DriftSample {
  @Field({ description: 'Its partition key as stored.' })
  pk!: string;
  @Field({ description: 'Its sort key as stored.' })
  sk!: string;
  @Field(() => [String], { description: 'What differs: PK, SK, index attributes, searchWords.' })
  fields!: string[];
}

@ObjectType({ description: 'The drift of one entity type.' })
export class EntityDrift {
  @Field({ description: 'The entityType of its items (Log, Project …).' })
  entityType!: string;
  @Field(() => Int, { description: 'Its items read.' })
  checked!: number;
  @Field(() => Int, { description: 'Its items whose key, index attributes or search words differ from what the declaration derives.' })
  drifted!: number;
  @Field(() => [DriftCount], { description: 'How many drifted items differ in each field.' })
  fields!: DriftCount[];
  @Field(() => [DriftSample], { description: 'The first drifted items found, up to maxSamples.' })
  samples!: DriftSample[];
}

@ObjectType({ description: 'The drift check over the whole table: stored items against their declarations.' })
export class ModelDrift {
  @Field(() => Int, { description: 'Drifted items over every type.' })
  drifted!: number;
  @Field(() => Int, { description: 'Items of no declared entity type.' })
  undeclared!: number;
  @Field(() => [EntityDrift], { description: 'Every entity type found in the table, by name.' })
  types!: EntityDrift[];
}
