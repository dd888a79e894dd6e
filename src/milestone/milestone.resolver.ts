import { entities } from '../common/entities';
import { projectChildFeature } from '../project/project-child.feature';

/** Milestones need nothing beyond the standard project child: everything comes from the declaration. */
export const milestoneFeature = projectChildFeature(entities.Milestone);
