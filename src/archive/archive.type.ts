import { ARCHIVE_MANIFEST } from './archive.format';
import { ARCHIVE_RUN_COUNTS, type ArchiveRunResult } from '../common/feature';
import { shapeObjectType } from '../common/model-types';
import { attr, pickAttributes } from '../infra/dynamo/entity';
import { JobStatus } from '../job/job.machine';

export const ArchivedJob = shapeObjectType({
  name: 'ArchivedJob',
  description: 'A finished job as cold storage holds it: read back from its gzip JSON Lines object, checked against its manifest.',
  fields: {
    jobId: attr.string({ required: true, description: "The job's id." }),
    archivedAt: attr.dateTime({ required: true, description: 'When it was exported.' }),
    ...pickAttributes(ARCHIVE_MANIFEST, {
      sha256: "SHA-256 of the archived object (hex), as its manifest names it; the object's bytes were checked against it.",
      bytes: 'The archived object’s size (gzip), in bytes.',
      rows: 'Table rows the archive holds (the job, its steps, items and events).',
    }),
    job: attr.jsonObject()({ required: true, description: 'The job as it was stored, without its keys.' }),
    steps: attr.jsonObjects()({ required: true, description: 'Its step attempts as stored.' }),
    items: attr.jsonObjects()({ required: true, description: 'Its work items as stored.' }),
    events: attr.jsonObjects()({ required: true, description: 'Its events (its own stream), in order.' }),
  },
});
export type ArchivedJob = InstanceType<typeof ArchivedJob>;

export const ArchiveRun = shapeObjectType({
  name: 'ArchiveRun',
  description:
    'What one archive run did: jobs and projects moved to cold storage, rows removed, bytes written. The run is a system job of kind ARCHIVE (follow it with jobProgress(jobId, system: true)); the counts are final once its status is COMPLETED, and so far before.',
  fields: {
    jobId: attr.id({ required: true, description: "The run's system job (kind ARCHIVE, in the system partition)." }),
    status: attr.json()({
      required: true,
      apiType: 'JobStatus',
      description: "The run's job status: COMPLETED once it finished; RUNNING or QUEUED when the wait ended first.",
    }),
    progress: attr.float({ required: true, description: 'The share of the run done, 0 to 1.' }),
    ...ARCHIVE_RUN_COUNTS,
  },
});
/** An archive run's result with its system job's id, status and progress. */
export type ArchiveRun = ArchiveRunResult & { jobId: string; status: JobStatus; progress: number };
