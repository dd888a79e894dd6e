import { attr } from '../infra/dynamo/entity';
import { registerJobKind } from '../job/job.kinds';
import { SEGMENT_COUNTS } from './migration';

/**
 * The kind of a migration's job, declared here, where migrations are run, rather than beside the
 * tenants' pipelines (src/job/job.kinds.ts), so that the job folder knows nothing of migrations.
 * A migration of the table, run by the server itself: each item is one segment of a parallel
 * scan, whose holder re-derives (or transforms) the migration's entities through the standard
 * write path and reports its scan position as the item's checkpoint, so a killed run resumes
 * where it stopped. Naming the kind by this value declares it first.
 */
export const MIGRATION_KIND = registerJobKind('MIGRATION', {
  description:
    'A migration of the table, run by the server itself: one item per parallel scan segment, each resumable from its checkpoint.',
  system: true,
  inputs: {
    migrationId: attr.string({ required: true, max: 100 }),
    name: attr.string({ required: true, max: 200 }),
    /** The write budget of the whole job, in entities rewritten per second (shared evenly by its segments). */
    itemsPerSecond: attr.int({ required: true }),
    /** True when itemsPerSecond was given for the run (not the migration's declared one): the migrations it starts next keep it. */
    budgetGiven: attr.boolean(),
  },
  stages: [
    {
      name: 'scan',
      phase: 'migrating',
      fanOut: {
        inputs: { segment: attr.int({ required: true }), segments: attr.int({ required: true }) },
        // What a segment counts is its checkpoint and its outputs.
        outputs: SEGMENT_COUNTS,
        // A segment's holder that dies is replaced once its lease runs out, from the checkpoint:
        // attempts are many because a killed run costs one, and no work is lost by it.
        attempts: 20,
        retryBackoff: { initialSeconds: 1, factor: 2, maxSeconds: 60, jitter: 0.2 },
      },
    },
  ],
});
