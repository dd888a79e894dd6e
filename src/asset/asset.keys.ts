import { tenantPk, type Key } from '../common/keys';
import { sanitizeFileName } from '../common/s3-key';
import { projectChildPrefix } from '../project/project.keys';

export const assetKey = (tenantId: string, projectId: string, assetId: string): Key => ({
  PK: tenantPk(tenantId),
  SK: `${projectChildPrefix(projectId, 'ASSET')}${assetId}`,
});

/** Where version `version` of an asset is stored: `tenants/<t>/projects/<p>/assets/<a>/v<n>/<name>`. */
export const assetObjectKey = (tenantId: string, projectId: string, assetId: string, version: number, fileName: string) =>
  `tenants/${tenantId}/projects/${projectId}/assets/${assetId}/v${version}/${sanitizeFileName(fileName)}`;
