import { briefVersionLabel, entities } from '../common/entities';
import type { Key } from '../common/keys';
import type { QuerySpec } from '../infra/dynamo/store';

export { briefVersionLabel };

export const MAX_BRIEF_VERSION = 999_999;

export const briefKey = (tenantId: string, projectId: string, version: number): Key =>
  entities.Brief.key.keyOf(tenantId, { projectId, version });

/** A project's brief versions; descending puts the latest first. */
export const briefVersions = (tenantId: string, projectId: string, descending: boolean): QuerySpec =>
  entities.Brief.key.prefixOf(tenantId, { projectId }, descending);
