import { ARCHIVE_RUN_COUNTS } from '../common/feature';
import { registerJobKind } from '../job/job.kinds';

/**
 * The kind of a cold-storage run's job, declared here, where the archive runs, rather than beside
 * the tenants' pipelines (src/job/job.kinds.ts), so that the job folder knows nothing of the
 * archive. Run by the server itself: its one item moves every finished job and archived project
 * past the retention to S3, reporting after each one how many it moved (its checkpoint), so a
 * holder that dies is taken over without losing the run's counts. The item's outputs are the
 * run's result. One item rather than many: the run's unit of safety is each job or project
 * (export, then remove), which a repeat finds done, so there is nothing to gain from splitting it
 * but a second scan of the candidates. Naming the kind by this value declares it first.
 */
export const ARCHIVE_KIND = registerJobKind('ARCHIVE', {
  description:
    'Cold storage, run by the server itself: finished jobs and archived projects past the retention exported to S3, then removed; one item, resumable from its checkpoint.',
  system: true,
  inputs: {},
  stages: [
    {
      name: 'move',
      phase: 'archiving',
      fanOut: {
        inputs: {},
        // The run's counts are its item's outputs (bytes a Float: a large run passes a 32-bit Int).
        outputs: ARCHIVE_RUN_COUNTS,
        // A holder that dies costs an attempt and loses nothing (the next resumes from the
        // checkpoint); a run that cannot read its candidates (an outage) waits longer each time.
        attempts: 10,
        retryBackoff: { initialSeconds: 1, factor: 2, maxSeconds: 60, jitter: 0.2 },
      },
    },
  ],
});
