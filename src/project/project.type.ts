import { entities, type EntityItem } from '../common/entities';
import { enumOf, modelTypes } from '../common/model-types';

/** A project's statuses and their GraphQL enum, from the declaration's status machine. */
export const ProjectStatus = enumOf(entities.Project, 'status', entities.Project.states);
export type ProjectStatus = (typeof ProjectStatus)[keyof typeof ProjectStatus];

/**
 * A project's GraphQL types, from its declaration (src/common/entities.ts); made after its status
 * enum above, which they take by name. What is particular to a project (its tenant across tenants,
 * its children's lists, its brief) are field resolvers in project.resolver.ts and beside its children.
 */
export const {
  type: Project,
  connection: ProjectConnection,
  createInput: CreateProjectInput,
  updateInput: UpdateProjectInput,
} = modelTypes(entities.Project);

/** A stored project; a project of projectsAcrossTenants also says whose it is (see ProjectResolver.tenantId). */
export type Project = EntityItem<'Project'> & { tenantId?: string };
