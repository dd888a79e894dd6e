import { pad, tenantPk, type Key } from '../common/keys';
import type { QuerySpec } from '../infra/dynamo/store';
import { projectChildPrefix } from '../project/project.keys';

/** Brief versions are zero-padded (`v000010`) so that key order is version order. */
export const briefVersionLabel = (version: number) => `v${pad(version, 6)}`;

export const MAX_BRIEF_VERSION = 999_999;

export const briefKey = (tenantId: string, projectId: string, version: number): Key => ({
  PK: tenantPk(tenantId),
  SK: `${projectChildPrefix(projectId, 'BRIEF')}${briefVersionLabel(version)}`,
});

/** A project's brief versions; descending puts the latest first. */
export const briefVersions = (tenantId: string, projectId: string, descending: boolean): QuerySpec => ({
  pk: tenantPk(tenantId),
  skPrefix: projectChildPrefix(projectId, 'BRIEF'),
  descending,
});
