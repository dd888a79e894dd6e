import { normalizeText, tenantPk, type Key } from '../common/keys';
import { sanitizeFileName } from '../common/s3-key';
import type { QuerySpec } from '../infra/dynamo/store';

export const inspirationKey = (tenantId: string, inspirationId: string): Key => ({
  PK: tenantPk(tenantId),
  SK: `INSPIRATION#${inspirationId}`,
});

export const allInspirations = (tenantId: string): QuerySpec => ({ pk: tenantPk(tenantId), skPrefix: 'INSPIRATION#', descending: true });

const tagPrefix = (tag: string) => `TAG#${normalizeText(tag)}#INSPIRATION#`;

/** A tag item (`TAG#<normalized tag>#INSPIRATION#<id>`), written with its inspiration, for listing by tag. */
export const inspirationTagKey = (tenantId: string, tag: string, inspirationId: string): Key => ({
  PK: tenantPk(tenantId),
  SK: `${tagPrefix(tag)}${inspirationId}`,
});

export const inspirationsByTag = (tenantId: string, tag: string): QuerySpec => ({
  pk: tenantPk(tenantId),
  skPrefix: tagPrefix(tag),
  descending: true,
});

/** Where an inspiration's file is stored: `tenants/<t>/inspiration/<i>/<name>`. */
export const inspirationObjectKey = (tenantId: string, inspirationId: string, fileName: string) =>
  `tenants/${tenantId}/inspiration/${inspirationId}/${sanitizeFileName(fileName)}`;
