import type { BoundTenant } from '../common/bound-tenant';
import { briefVersionLabel, entities } from '../common/entities';
import type { Key } from '../common/keys';
import type { QuerySpec } from '../infra/dynamo/store';

export { briefVersionLabel };

export const MAX_BRIEF_VERSION = 999_999;

export const briefKey = (tenant: BoundTenant, projectId: string, version: number): Key =>
  tenant.of(entities.Brief).keyOf({ projectId, version });

/** A project's brief versions; descending puts the latest first. */
export const briefVersions = (tenant: BoundTenant, projectId: string, descending: boolean): QuerySpec =>
  tenant.of(entities.Brief).prefixOf({ projectId }, descending);
