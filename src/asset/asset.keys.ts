import { entities } from '../common/entities';
import type { Key } from '../common/keys';
import { sanitizeFileName } from '../common/s3-key';

export const assetKey = (tenantId: string, projectId: string, assetId: string): Key =>
  entities.Asset.key.keyOf(tenantId, { projectId, assetId });

/** Where version `version` of an asset is stored: `tenants/<t>/projects/<p>/assets/<a>/v<n>/<name>`. */
export const assetObjectKey = (tenantId: string, projectId: string, assetId: string, version: number, fileName: string) =>
  `tenants/${tenantId}/projects/${projectId}/assets/${assetId}/v${version}/${sanitizeFileName(fileName)}`;
