import { entities } from '../common/entities';
import type { Key } from '../common/keys';

export const tenantKey = (tenantId: string): Key => entities.Tenant.key.keyOf(tenantId, {});
