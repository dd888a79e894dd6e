import type { BoundTenant } from '../common/bound-tenant';
import { sanitizeFileName } from '../common/s3-key';

/** The folder of an asset's own uploads: `tenants/<t>/projects/<p>/assets/<a>/`. */
export const assetObjectPrefix = (tenant: BoundTenant, projectId: string, assetId: string) =>
  tenant.objectPath(`projects/${projectId}/assets/${assetId}/`);

/** Where version `version` of an asset is stored: `tenants/<t>/projects/<p>/assets/<a>/v<n>/<name>`. */
export const assetObjectKey = (tenant: BoundTenant, projectId: string, assetId: string, version: number, fileName: string) =>
  `${assetObjectPrefix(tenant, projectId, assetId)}v${version}/${sanitizeFileName(fileName)}`;
