import type { Item } from '../infra/dynamo/store';
import { KEY_ATTRIBUTES } from '../infra/dynamo/table';

/**
 * Topic names. Every name carries the tenant, and subscriptions derive it from the verified
 * token, so an event of one tenant can never reach another tenant's subscriber.
 */
export const topics = {
  job: (tenantId: string, jobId: string) => `JOB:${tenantId}:${jobId}`,
  projectJobs: (tenantId: string, projectId: string) => `PROJECT_JOBS:${tenantId}:${projectId}`,
  tenantJobs: (tenantId: string) => `TENANT_JOBS:${tenantId}`,
  projectActivity: (tenantId: string, projectId: string) => `PROJECT_ACTIVITY:${tenantId}:${projectId}`,
};

/**
 * Where a stored event is published: the same answer for the writer and for the sweeper. Each
 * stored event belongs to exactly one stream, so it goes to exactly one topic, with the position
 * it has in that stream.
 */
export function topicsFor(event: Item): string[] {
  switch (event.stream) {
    case 'job':
      return [topics.job(event.tenantId, event.jobId)];
    case 'projectJobs':
      return [topics.projectJobs(event.tenantId, event.projectId)];
    case 'tenantJobs':
      return [topics.tenantJobs(event.tenantId)];
    case 'audit':
      // Records of reads (download URLs handed out): in the trail and the timeline, never live.
      return [];
    default:
      return event.projectId ? [topics.projectActivity(event.tenantId, event.projectId)] : [];
  }
}

/** The event as it travels to subscribers: the stored item without its key attributes. */
export function payloadOf(event: Item): Item {
  return Object.fromEntries(Object.entries(event).filter(([name]) => !KEY_ATTRIBUTES.has(name)));
}
