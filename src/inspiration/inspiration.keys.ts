import type { BoundTenant } from '../common/bound-tenant';
import { entities } from '../common/entities';
import { sanitizeFileName } from '../common/s3-key';
import type { QuerySpec } from '../infra/dynamo/store';

export const allInspirations = (tenant: BoundTenant): QuerySpec => tenant.of(entities.Inspiration).prefixOf({}, true);

/** The tag items (`TAG#<normalized tag>#INSPIRATION#<id>`, written with their inspirations) of one tag, newest first. */
export const inspirationsByTag = (tenant: BoundTenant, tag: string): QuerySpec =>
  tenant.of(entities.InspirationTag).prefixOf({ tag }, true);

/** Where an inspiration's file is stored: `tenants/<t>/inspiration/<i>/<name>`. */
export const inspirationObjectKey = (tenant: BoundTenant, inspirationId: string, fileName: string) =>
  tenant.objectPath(`inspiration/${inspirationId}/${sanitizeFileName(fileName)}`);
