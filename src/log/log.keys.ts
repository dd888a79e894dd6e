import type { BoundTenant } from '../common/bound-tenant';
import { entities } from '../common/entities';
import type { Key } from '../common/keys';
import type { QuerySpec } from '../infra/dynamo/store';

export const logKey = (tenant: BoundTenant, projectId: string, logId: string): Key => tenant.of(entities.Log).keyOf({ projectId, logId });

/** Logs in one attribution status across the tenant's projects, newest first. */
export const logsByAttribution = (tenant: BoundTenant, status: string): QuerySpec =>
  tenant.of(entities.Log).query('byAttribution', { attributionStatus: status }, { descending: true });

/**
 * Material-use items (`MATERIAL#<normalized name>#LOG#<logId>`), written with their log, so "which
 * logs used X and for how long" is one query of that prefix and never a scan.
 */
export const materialUses = (tenant: BoundTenant, material: string): QuerySpec => tenant.of(entities.MaterialUse).prefixOf({ material });
