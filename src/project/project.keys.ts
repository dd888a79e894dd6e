import { entities, type ProjectChild } from '../common/entities';
import type { Key } from '../common/keys';
import type { QuerySpec } from '../infra/dynamo/store';

export const projectKey = (tenantId: string, projectId: string): Key => entities.Project.keyOf(tenantId, { projectId });

/** Projects in one status, newest first (archived ones in partitions of their own). */
export const projectsByStatus = (tenantId: string, status: string, archived: boolean): QuerySpec =>
  entities.Project.query(tenantId, 'byStatus', { archived, status }, { descending: true });

/** Projects by normalized title, optionally by title prefix, without reading any project's children. */
export const projectsByTitle = (tenantId: string, titlePrefix: string | undefined, archived: boolean): QuerySpec =>
  entities.Project.query(tenantId, 'byTitle', { archived, title: titlePrefix || undefined }, { open: true });

/** One kind of a project's children, in key order (creation order: ids are ULIDs). */
export const projectChildren = (tenantId: string, projectId: string, kind: ProjectChild, descending = false): QuerySpec =>
  entities[kind].key.prefixOf(tenantId, { projectId }, descending);
