import { tenantPk, type Key } from '../common/keys';
import { projectChildPrefix } from '../project/project.keys';

export const assetKey = (tenantId: string, projectId: string, assetId: string): Key => ({
  PK: tenantPk(tenantId),
  SK: `${projectChildPrefix(projectId, 'ASSET')}${assetId}`,
});

/**
 * Makes a file name safe as the last segment of an object key: the base name only, accents
 * dropped, anything but letters, digits, `.`, `_` and `-` replaced, at most 100 characters.
 */
export function sanitizeFileName(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? '';
  const safe = base
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/-+/g, '-')
    .replace(/^[.-]+/, '')
    .slice(-100);
  return safe.replace(/\.{2,}/g, '.') || 'file';
}

/** Where version `version` of an asset is stored: `tenants/<t>/projects/<p>/assets/<a>/v<n>/<name>`. */
export const assetObjectKey = (tenantId: string, projectId: string, assetId: string, version: number, fileName: string) =>
  `tenants/${tenantId}/projects/${projectId}/assets/${assetId}/v${version}/${sanitizeFileName(fileName)}`;
