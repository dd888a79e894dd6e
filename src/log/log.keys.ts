import { entities } from '../common/entities';
import type { Key } from '../common/keys';
import type { QuerySpec } from '../infra/dynamo/store';

export const logKey = (tenantId: string, projectId: string, logId: string): Key => entities.Log.keyOf(tenantId, { projectId, logId });

/** Logs in one attribution status across the tenant's projects, newest first. */
export const logsByAttribution = (tenantId: string, status: string): QuerySpec =>
  entities.Log.query(tenantId, 'byAttribution', { attributionStatus: status }, { descending: true });

/**
 * Material-use items (`MATERIAL#<normalized name>#LOG#<logId>`), written with their log, so "which
 * logs used X and for how long" is one query of that prefix and never a scan.
 */
export const materialUses = (tenantId: string, material: string): QuerySpec => entities.MaterialUse.key.prefixOf(tenantId, { material });
