import { tenantPk, type Key } from '../common/keys';
import { projectChildPrefix } from '../project/project.keys';

export const milestoneKey = (tenantId: string, projectId: string, milestoneId: string): Key => ({
  PK: tenantPk(tenantId),
  SK: `${projectChildPrefix(projectId, 'MILESTONE')}${milestoneId}`,
});
