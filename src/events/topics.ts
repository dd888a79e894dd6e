import type { Item } from '../infra/dynamo/store';

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

/** Where a stored event is published: the same answer for the writer and for the sweeper. */
export function topicsFor(event: Item): string[] {
  if (event.stream === 'job') {
    const list = [topics.job(event.tenantId, event.jobId)];
    if (event.statusChanged) list.push(topics.projectJobs(event.tenantId, event.projectId), topics.tenantJobs(event.tenantId));
    return list;
  }
  return event.projectId ? [topics.projectActivity(event.tenantId, event.projectId)] : [];
}

const KEY_ATTRIBUTES = /^(PK|SK|GSI\dPK|GSI\dSK|OUTBOXPK|OUTBOXSK)$/;

/** The event as it travels to subscribers: the stored item without its key attributes. */
export function payloadOf(event: Item): Item {
  return Object.fromEntries(Object.entries(event).filter(([name]) => !KEY_ATTRIBUTES.test(name)));
}
