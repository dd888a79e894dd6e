import type { BoundTenant } from '../common/bound-tenant';
import type { Item } from '../infra/dynamo/store';
import { KEY_ATTRIBUTES } from '../infra/dynamo/table';

/** Topic names by the tenant's id: what a stored event names (topicsFor) and what a subscription's bound tenant names (topics). */
const names = {
  job: (tenantId: string, jobId: string) => `JOB:${tenantId}:${jobId}`,
  projectJobs: (tenantId: string, projectId: string) => `PROJECT_JOBS:${tenantId}:${projectId}`,
  // Shard 0 keeps the topic of the one stream of before, so subscribers of either age meet there.
  tenantJobs: (tenantId: string, shard: number) => (shard === 0 ? `TENANT_JOBS:${tenantId}` : `TENANT_JOBS:${tenantId}:${shard}`),
  projectActivity: (tenantId: string, projectId: string) => `PROJECT_ACTIVITY:${tenantId}:${projectId}`,
};

/**
 * The topics a subscription listens to. Every name carries the tenant, taken from the
 * subscription's scope (bound to the verified token's tenant), so an event of one tenant can never
 * reach another tenant's subscriber.
 */
export const topics = {
  job: (tenant: BoundTenant, jobId: string) => names.job(tenant.id, jobId),
  projectJobs: (tenant: BoundTenant, projectId: string) => names.projectJobs(tenant.id, projectId),
  /** One shard of the tenant's job status stream (see JOB_STATUS_SHARDS). */
  tenantJobs: (tenant: BoundTenant, shard: number) => names.tenantJobs(tenant.id, shard),
  projectActivity: (tenant: BoundTenant, projectId: string) => names.projectActivity(tenant.id, projectId),
};

/**
 * Where a stored event is published: the same answer for the writer and for the sweeper. Each
 * stored event belongs to exactly one stream, so it goes to exactly one topic, with the position
 * it has in that stream.
 */
export function topicsFor(event: Item): string[] {
  // The event is one of several declarations (ProjectEvent, JobEvent, the status streams' events),
  // all stored as type Event; the names a topic needs are texts in each of them.
  const { tenantId, jobId, projectId } = event;
  switch (event.stream) {
    case 'job':
      return [names.job(String(tenantId), String(jobId))];
    case 'projectJobs':
      return [names.projectJobs(String(tenantId), String(projectId))];
    case 'tenantJobs':
      // The shard the event was written to (none stored: shard 0, the stream of before).
      return [names.tenantJobs(String(tenantId), Number(event.shard ?? 0))];
    case 'audit':
      // Records of reads (download URLs handed out): in the trail and the timeline, never live.
      return [];
    default:
      return projectId ? [names.projectActivity(String(tenantId), String(projectId))] : [];
  }
}

/** The event as it travels to subscribers: the stored item without its key attributes. */
export function payloadOf(event: Item): Record<string, unknown> {
  return Object.fromEntries(Object.entries(event).filter(([name]) => !KEY_ATTRIBUTES.has(name)));
}
