import { tenantPk } from '../common/keys';

/** A project's activity stream, newest last in key order. */
export const projectEventsPk = (tenantId: string, projectId: string) => `${tenantPk(tenantId)}#PROJECT#${projectId}#EVENTS`;

/** The tenant's own activity stream, for changes that belong to no project (tenant, inspiration). */
export const tenantEventsPk = (tenantId: string) => `${tenantPk(tenantId)}#EVENTS`;

export const eventSk = (ulid: string) => `EVENT#${ulid}`;

export const EVENT_SK_PREFIX = 'EVENT#';
