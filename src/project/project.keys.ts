import type { BoundTenant } from '../common/bound-tenant';
import { entities, type ProjectChild } from '../common/entities';
import type { Key } from '../common/keys';
import type { QuerySpec } from '../infra/dynamo/store';

export const projectKey = (tenant: BoundTenant, projectId: string): Key => tenant.of(entities.Project).keyOf({ projectId });

/** Projects in one status, newest first (archived ones in partitions of their own). */
export const projectsByStatus = (tenant: BoundTenant, status: string, archived: boolean): QuerySpec =>
  tenant.of(entities.Project).query('byStatus', { archived, status }, { descending: true });

/** Projects by normalized title, optionally by title prefix, without reading any project's children. */
export const projectsByTitle = (tenant: BoundTenant, titlePrefix: string | undefined, archived: boolean): QuerySpec =>
  tenant.of(entities.Project).query('byTitle', { archived, title: titlePrefix || undefined }, { open: true });

/** One kind of a project's children, in key order (creation order: ids are ULIDs). */
export const projectChildren = (tenant: BoundTenant, projectId: string, kind: ProjectChild, descending = false): QuerySpec =>
  tenant.of(entities[kind]).prefixOf({ projectId }, descending);
