import { entities } from '../common/entities';
import type { Key } from '../common/keys';
import { sanitizeFileName } from '../common/s3-key';
import type { QuerySpec } from '../infra/dynamo/store';

export const inspirationKey = (tenantId: string, inspirationId: string): Key => entities.Inspiration.key.keyOf(tenantId, { inspirationId });

export const allInspirations = (tenantId: string): QuerySpec => entities.Inspiration.key.prefixOf(tenantId, {}, true);

/** A tag item (`TAG#<normalized tag>#INSPIRATION#<id>`), written with its inspiration, for listing by tag. */
export const inspirationTagKey = (tenantId: string, tag: string, inspirationId: string): Key =>
  entities.InspirationTag.key.keyOf(tenantId, { tag, inspirationId });

export const inspirationsByTag = (tenantId: string, tag: string): QuerySpec =>
  entities.InspirationTag.key.prefixOf(tenantId, { tag }, true);

/** Where an inspiration's file is stored: `tenants/<t>/inspiration/<i>/<name>`. */
export const inspirationObjectKey = (tenantId: string, inspirationId: string, fileName: string) =>
  `tenants/${tenantId}/inspiration/${inspirationId}/${sanitizeFileName(fileName)}`;
