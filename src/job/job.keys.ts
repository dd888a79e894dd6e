import { entities, OPS_SHARDS } from '../common/entities';
import type { Key } from '../common/keys';
import { prefixEnd } from '../infra/dynamo/entity';
import type { QuerySpec } from '../infra/dynamo/store';
import type { JobStatus } from './job.machine';

export { OPS_SHARDS };

/**
 * A job lives in its own partition (`TENANT#t#JOB#j`): the job item, its step attempts and its
 * event stream, so a busy tenant's step updates spread over many partitions.
 */
export const jobKey = (tenantId: string, jobId: string): Key => entities.Job.keyOf(tenantId, { jobId });

/**
 * The tenant and job of an item in a job's partition (`TENANT#<t>#JOB#<j>`), read from its key, for
 * the server's own readers across tenants (the settle sweep, the pool claimer); undefined for any
 * other key.
 */
export function jobOwnerOf(item: { PK?: unknown }): { tenantId: string; jobId: string } | undefined {
  const match = /^TENANT#(.+)#JOB#([^#]+)$/.exec(String(item.PK));
  return match ? { tenantId: match[1], jobId: match[2] } : undefined;
}

/** A job's event `seq` is the job's version after the change, so the stream is gapless. */
export const jobEventKey = (tenantId: string, jobId: string, seq: number): Key => entities.JobEvent.keyOf(tenantId, { jobId, seq });

/**
 * The keys of the current attempt of each of a job's planned steps: the attempt `job.attempts`
 * names (a step's attempts are numbered from 1 without gaps). What a decision on the job reads of
 * its steps: one row a planned step, however many attempts were made before.
 */
export function currentStepKeys(
  tenantId: string,
  job: { jobId: string; plan: readonly { name: string; order: number }[]; attempts: Record<string, number> },
): Key[] {
  return job.plan.map(({ name, order }) =>
    entities.Step.keyOf(tenantId, { jobId: job.jobId, order, name, attempt: job.attempts[name] ?? 1 }),
  );
}

/**
 * The job item and all its step attempts, in one query ('JOB' < 'STEP#…' < 'STEP$'; events sort
 * before): the `job` query's read, which answers with the whole step history. No decision reads it
 * (see currentStepKeys).
 */
export const jobWithSteps = (tenantId: string, jobId: string): QuerySpec => ({
  pk: jobKey(tenantId, jobId).PK,
  skBetween: [jobKey(tenantId, jobId).SK, prefixEnd(entities.Step.key.prefixOf(tenantId, { jobId }).skPrefix ?? '')],
});

/** Every attempt of every step of a job, in plan order then attempt order: the step history, read page by page. */
export const stepHistory = (tenantId: string, jobId: string): QuerySpec => entities.Step.key.prefixOf(tenantId, { jobId });

/** A job's events with seq in (after, until]. */
export const jobEventsAfter = (tenantId: string, jobId: string, after: number, until = 9_999_999_999): QuerySpec => ({
  pk: jobKey(tenantId, jobId).PK,
  skBetween: [jobEventKey(tenantId, jobId, after + 1).SK, jobEventKey(tenantId, jobId, until).SK],
});

export const jobsByStatus = (tenantId: string, status: JobStatus): QuerySpec =>
  entities.Job.query(tenantId, 'byStatus', { status }, { descending: true });
export const jobsOfProject = (tenantId: string, projectId: string): QuerySpec =>
  entities.Job.query(tenantId, 'byProject', { projectId }, { descending: true });
export const jobsOfUser = (tenantId: string, userId: string): QuerySpec =>
  entities.Job.query(tenantId, 'byCreator', { createdBy: userId }, { descending: true });
export const stepsAwaitingReview = (tenantId: string): QuerySpec =>
  entities.Step.query(tenantId, 'awaitingReview', { status: 'PAUSED' }, { descending: true });

/** One shard of the cross-tenant status index, newest first, optionally before a position. */
export const opsJobsByStatus = (status: JobStatus, shard: number, before?: string): QuerySpec => ({
  ...entities.Job.query('', 'acrossTenants', { status, shard }, { descending: true }),
  skBefore: before ?? '\uffff',
});
