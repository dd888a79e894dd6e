import { entities } from '../common/entities';
import { tenantPk, type Key } from '../common/keys';
import type { QuerySpec } from '../infra/dynamo/store';
import type { AttributionStatus } from './log.type';

export const logKey = (tenantId: string, projectId: string, logId: string): Key => entities.Log.key.keyOf(tenantId, { projectId, logId });

const attributionPk = (tenantId: string, status: AttributionStatus) => `${tenantPk(tenantId)}#LOG_STATUS#${status}`;

/** GSI1 attributes: logs by attribution status, newest first. */
export const logIndexKeys = (tenantId: string, log: { logId: string; attributionStatus: AttributionStatus; createdAt: string }) => ({
  GSI1PK: attributionPk(tenantId, log.attributionStatus),
  GSI1SK: `${log.createdAt}#${log.logId}`,
});

export const logsByAttribution = (tenantId: string, status: AttributionStatus): QuerySpec => ({
  index: 'GSI1',
  pk: attributionPk(tenantId, status),
  descending: true,
});

/**
 * A material-use item (`MATERIAL#<normalized name>#LOG#<logId>`), written with its log, so "which
 * logs used X and for how long" is one query of that prefix and never a scan.
 */
export const materialUseKey = (tenantId: string, material: string, logId: string): Key =>
  entities.MaterialUse.key.keyOf(tenantId, { material, logId });

export const materialUses = (tenantId: string, material: string): QuerySpec => entities.MaterialUse.key.prefixOf(tenantId, { material });
