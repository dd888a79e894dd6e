import { Field, Float, ID, Int, ObjectType } from 'type-graphql';
import { DateTime, JSONObject } from '../common/scalars';
import { JobStatus } from '../job/job.machine';

@ObjectType({
  description: 'A finished job as cold storage holds it: read back from its gzip JSON Lines object, checked against its manifest.',
})
export class ArchivedJob {
  @Field({ description: "The job's id." })
  jobId!: string;

  @Field(() => DateTime, { description: 'When it was exported.' })
  archivedAt!: string;

  @Field({ description: "SHA-256 of the archived object (hex), as its manifest names it; the object's bytes were checked against it." })
  sha256!: string;

  @Field(() => Int, { description: 'The archived object’s size (gzip), in bytes.' })
  bytes!: number;

  @Field(() => Int, { description: 'Table rows the archive holds (the job, its steps, items and events).' })
  rows!: number;

  @Field(() => JSONObject, { description: 'The job as it was stored, without its keys.' })
  job!: Record<string, unknown>;

  @Field(() => [JSONObject], { description: 'Its step attempts as stored.' })
  steps!: Record<string, unknown>[];

  @Field(() => [JSONObject], { description: 'Its work items as stored.' })
  items!: Record<string, unknown>[];

  @Field(() => [JSONObject], { description: 'Its events (its own stream), in order.' })
  events!: Record<string, unknown>[];
}

@ObjectType({
  description:
    'What one archive run did: jobs and projects moved to cold storage, rows removed, bytes written. The run is a system job of kind ARCHIVE (follow it with jobProgress(jobId, system: true)); the counts are final once its status is COMPLETED, and so far before.',
})
export class ArchiveRun {
  @Field(() => ID, { description: "The run's system job (kind ARCHIVE, in the system partition)." })
  jobId!: string;

  @Field(() => JobStatus, { description: "The run's job status: COMPLETED once it finished; RUNNING or QUEUED when the wait ended first." })
  status!: JobStatus;

  @Field(() => Float, { description: 'The share of the run done, 0 to 1.' })
  progress!: number;

  @Field(() => Int, { description: 'Finished jobs past the retention, exported and removed.' })
  jobs!: number;

  @Field(() => Int, { description: 'Archived projects past the retention, exported and removed.' })
  projects!: number;

  @Field(() => Int, { description: 'Of those, how many an earlier run had exported but not removed: finished without writing again.' })
  resumed!: number;

  @Field(() => Int, { description: 'Table rows removed.' })
  rows!: number;

  // A Float, as the quotas' byte counts are: a run over a large backlog can write more than a
  // 32-bit Int holds (2 GiB), and a whole number of bytes is exact in a Float up to 2^53.
  @Field(() => Float, { description: 'Bytes written to cold storage (gzip), a whole number.' })
  bytes!: number;

  @Field(() => Int, { description: 'Jobs and projects that failed: each stays in the table whole, for the next run.' })
  failed!: number;
}
