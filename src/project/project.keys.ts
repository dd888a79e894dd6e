import { entities, type ProjectChild } from '../common/entities';
import { normalizeText, tenantPk, type Key } from '../common/keys';
import type { QuerySpec } from '../infra/dynamo/store';
import type { ProjectStatus } from './project.type';

export const projectKey = (tenantId: string, projectId: string): Key => entities.Project.key.keyOf(tenantId, { projectId });

const typePk = (tenantId: string, archived: boolean) => `${tenantPk(tenantId)}#TYPE#${archived ? 'ARCHIVED_PROJECT' : 'PROJECT'}`;
const statusPk = (tenantId: string, status: ProjectStatus, archived: boolean) =>
  `${tenantPk(tenantId)}#${archived ? 'ARCHIVED_PROJECT' : 'PROJECT'}_STATUS#${status}`;

/**
 * The index attributes of a project: GSI1 by status (newest first by creation) and GSI2 by
 * normalized title, for listing and prefix search without reading any project's children.
 * Archived projects move to their own index partitions, so default lists never filter.
 */
export function projectIndexKeys(
  tenantId: string,
  p: { projectId: string; title: string; status: ProjectStatus; archived?: boolean; createdAt: string },
) {
  const archived = Boolean(p.archived);
  return {
    GSI1PK: statusPk(tenantId, p.status, archived),
    GSI1SK: `${p.createdAt}#${p.projectId}`,
    GSI2PK: typePk(tenantId, archived),
    GSI2SK: `${normalizeText(p.title)}#${p.projectId}`,
  };
}

export const projectsByStatus = (tenantId: string, status: ProjectStatus, archived: boolean): QuerySpec => ({
  index: 'GSI1',
  pk: statusPk(tenantId, status, archived),
  descending: true,
});

export const projectsByTitle = (tenantId: string, titlePrefix: string | undefined, archived: boolean): QuerySpec => ({
  index: 'GSI2',
  pk: typePk(tenantId, archived),
  skPrefix: titlePrefix ? normalizeText(titlePrefix) : undefined,
});

/** One kind of a project's children, in key order (creation order: ids are ULIDs). */
export const projectChildren = (tenantId: string, projectId: string, kind: ProjectChild, descending = false): QuerySpec =>
  entities[kind].key.prefixOf(tenantId, { projectId }, descending);
