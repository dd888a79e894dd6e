import type { BoundTenant } from '../common/bound-tenant';
import { entities, type EntityItem } from '../common/entities';
import type { Key } from '../common/keys';
import { prefixEnd } from '../infra/dynamo/entity';
import type { QuerySpec } from '../infra/dynamo/store';
import type { JobStatus } from './job.machine';

/** A job lives in its own partition (`TENANT#t#JOB#j`) with its steps, items and events: a busy tenant's updates spread out. */
export const jobKey = (tenant: BoundTenant, jobId: string): Key => tenant.of(entities.Job).keyOf({ jobId });

/** The tenant and job of an item in a job's partition, from its key, for readers across tenants; undefined for any other key. */
export function jobOwnerOf(item: { PK?: unknown }): { tenantId: string; jobId: string } | undefined {
  const match = /^TENANT#(.+)#JOB#([^#]+)$/.exec(String(item.PK));
  return match ? { tenantId: match[1], jobId: match[2] } : undefined;
}

/** A job's event `seq` is the job's version after the change, so the stream is gapless. */
const jobEventKey = (tenant: BoundTenant, jobId: string, seq: number): Key => tenant.of(entities.JobEvent).keyOf({ jobId, seq });

/**
 * The keys of the current attempt (the one `job.attempts` names) of each of a job's planned steps:
 * what a decision on the job reads of its steps, one row a planned step however many attempts were
 * made before (only the step history, stepHistory, reads them all).
 */
export function currentStepKeys(tenant: BoundTenant, job: Pick<EntityItem<'Job'>, 'jobId' | 'plan' | 'attempts'>): Key[] {
  const steps = tenant.of(entities.Step);
  return job.plan.map(({ name, order }) => steps.keyOf({ jobId: job.jobId, order, name, attempt: job.attempts[name] ?? 1 }));
}

/** The job item and all its step attempts in one query ('JOB' < 'STEP#…' < 'STEP$'; events sort before): the `job` query's read. */
export const jobWithSteps = (tenant: BoundTenant, jobId: string): QuerySpec => ({
  pk: jobKey(tenant, jobId).PK,
  skBetween: [jobKey(tenant, jobId).SK, prefixEnd(stepHistory(tenant, jobId).skPrefix ?? '')],
});

/** Every attempt of every step of a job, in plan order then attempt order: the step history, read page by page. */
export const stepHistory = (tenant: BoundTenant, jobId: string): QuerySpec => tenant.of(entities.Step).prefixOf({ jobId });

/** A job's events with seq in (after, until]. */
export const jobEventsAfter = (tenant: BoundTenant, jobId: string, after: number, until = 9_999_999_999): QuerySpec => ({
  pk: jobKey(tenant, jobId).PK,
  skBetween: [jobEventKey(tenant, jobId, after + 1).SK, jobEventKey(tenant, jobId, until).SK],
});

/** The cross-tenant status index (its shards, read merged), newest first, optionally changed before `below`. */
export const opsJobsByStatus = (status: JobStatus, below?: string): QuerySpec =>
  entities.Job.query('', 'acrossTenants', { status }, { descending: true, range: { below } });
