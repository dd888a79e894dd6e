import type { BoundTenant } from '../common/bound-tenant';
import { sanitizeFileName } from '../common/s3-key';

/** Where version `version` of an asset is stored: `tenants/<t>/projects/<p>/assets/<a>/v<n>/<name>`. */
export const assetObjectKey = (tenant: BoundTenant, projectId: string, assetId: string, version: number, fileName: string) =>
  tenant.objectPath(`projects/${projectId}/assets/${assetId}/v${version}/${sanitizeFileName(fileName)}`);
