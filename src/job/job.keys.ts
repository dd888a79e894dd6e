import { entities } from '../common/entities';
import { tenantPk, type Key } from '../common/keys';
import type { QuerySpec } from '../infra/dynamo/store';
import type { JobStatus } from './job.machine';

/**
 * A job lives in its own partition (`TENANT#t#JOB#j`): the job item, its step attempts and its
 * event stream, so a busy tenant's step updates spread over many partitions.
 */
export const jobKey = (tenantId: string, jobId: string): Key => entities.Job.key.keyOf(tenantId, { jobId });

export const stepKey = (tenantId: string, jobId: string, step: { order: number; name: string; attempt: number }): Key =>
  entities.Step.key.keyOf(tenantId, { jobId, order: step.order, name: step.name, attempt: step.attempt });

/** A job's event `seq` is the job's version after the change, so the stream is gapless. */
export const jobEventKey = (tenantId: string, jobId: string, seq: number): Key => entities.JobEvent.key.keyOf(tenantId, { jobId, seq });

/** The job item and all its step attempts, in one query ('JOB' < 'STEP#…' < 'STEP$'; events sort before). */
export const jobWithSteps = (tenantId: string, jobId: string): QuerySpec => ({
  pk: jobKey(tenantId, jobId).PK,
  skBetween: ['JOB', 'STEP$'],
});

/** A job's events with seq in (after, until]. */
export const jobEventsAfter = (tenantId: string, jobId: string, after: number, until = 9_999_999_999): QuerySpec => ({
  pk: jobKey(tenantId, jobId).PK,
  skBetween: [jobEventKey(tenantId, jobId, after + 1).SK, jobEventKey(tenantId, jobId, until).SK],
});

export const idempotencyKey = (tenantId: string, key: string): Key => entities.Idempotency.key.keyOf(tenantId, { key });

/** GSI3 spreads each status over this many partitions, so one busy status is never one hot partition. */
export const OPS_SHARDS = 4;

function shardOf(jobId: string): number {
  let hash = 0;
  for (const char of jobId) hash = (hash * 31 + char.charCodeAt(0)) | 0;
  return Math.abs(hash) % OPS_SHARDS;
}

const statusPk = (tenantId: string, status: JobStatus) => `${tenantPk(tenantId)}#JOB_STATUS#${status}`;
const projectJobsPk = (tenantId: string, projectId: string) => `${tenantPk(tenantId)}#TYPE#JOB#PROJECT#${projectId}`;
const userJobsPk = (tenantId: string, userId: string) => `${tenantPk(tenantId)}#USER#${userId}#JOBS`;
const opsPk = (status: JobStatus, shard: number) => `JOB_STATUS#${status}#${shard}`;

/**
 * A job's index attributes: by status in its tenant (GSI1, latest change first), by project
 * (GSI2), across tenants by status for admins (GSI3, sharded), and by creator (GSI4).
 */
export function jobIndexKeys(
  tenantId: string,
  job: { jobId: string; projectId: string; status: JobStatus; createdAt: string; updatedAt: string; createdBy: string },
) {
  return {
    GSI1PK: statusPk(tenantId, job.status),
    GSI1SK: `${job.updatedAt}#${job.jobId}`,
    GSI2PK: projectJobsPk(tenantId, job.projectId),
    GSI2SK: `${job.createdAt}#${job.jobId}`,
    GSI3PK: opsPk(job.status, shardOf(job.jobId)),
    GSI3SK: `${job.updatedAt}#${tenantId}#${job.jobId}`,
    GSI4PK: userJobsPk(tenantId, job.createdBy),
    GSI4SK: `${job.createdAt}#${job.jobId}`,
  };
}

const reviewPk = (tenantId: string) => `${tenantPk(tenantId)}#STEP_STATUS#PAUSED`;

/** A step attempt is in GSI1 only while it is paused for review (a sparse index). */
export function stepIndexKeys(tenantId: string, jobId: string, step: { status: string; updatedAt?: string; name: string }) {
  return step.status === 'PAUSED' ? { GSI1PK: reviewPk(tenantId), GSI1SK: `${step.updatedAt}#${jobId}#${step.name}` } : {};
}

export const jobsByStatus = (tenantId: string, status: JobStatus): QuerySpec => ({
  index: 'GSI1',
  pk: statusPk(tenantId, status),
  descending: true,
});
export const jobsOfProject = (tenantId: string, projectId: string): QuerySpec => ({
  index: 'GSI2',
  pk: projectJobsPk(tenantId, projectId),
  descending: true,
});
export const jobsOfUser = (tenantId: string, userId: string): QuerySpec => ({
  index: 'GSI4',
  pk: userJobsPk(tenantId, userId),
  descending: true,
});
export const stepsAwaitingReview = (tenantId: string): QuerySpec => ({ index: 'GSI1', pk: reviewPk(tenantId), descending: true });

/** One shard of the cross-tenant status index, newest first, optionally before a position. */
export const opsJobsByStatus = (status: JobStatus, shard: number, before?: string): QuerySpec => ({
  index: 'GSI3',
  pk: opsPk(status, shard),
  skBefore: before ?? '\uffff',
  descending: true,
});
