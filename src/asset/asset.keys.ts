import { tenantPk, type Key } from '../common/keys';
import { projectChildPrefix } from '../project/project.keys';

export const assetKey = (tenantId: string, projectId: string, assetId: string): Key => ({
  PK: tenantPk(tenantId),
  SK: `${projectChildPrefix(projectId, 'ASSET')}${assetId}`,
});
