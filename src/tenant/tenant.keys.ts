import { tenantPk, type Key } from '../common/keys';

export const tenantKey = (tenantId: string): Key => ({ PK: tenantPk(tenantId), SK: 'TENANT' });
