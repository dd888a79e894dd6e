import { entities } from '../common/entities';
import type { Key } from '../common/keys';

export const milestoneKey = (tenantId: string, projectId: string, milestoneId: string): Key =>
  entities.Milestone.key.keyOf(tenantId, { projectId, milestoneId });
