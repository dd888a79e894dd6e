import { entities } from '../common/entities';
import { argsType, stateOf } from '../common/model-types';
import { ForwardPageArgs, PageArgs } from '../common/pagination';
import { attr } from '../infra/dynamo/entity';
// Its status enum (ProjectStatus) is registered there, before these arguments name it.
import './project.type';
import { keyAttr } from '../common/args';

/*
 * The arguments particular to projects' own queries and mutations, declared as attributes
 * (model-types.ts makes the args classes): the status ones name the declared machine's enum.
 */

/** Archived projects are in index partitions of their own (see entities.Project), so a list names which it reads. */
const archived = attr.boolean({ required: true, default: false, description: 'List archived projects instead of active ones.' });

export const ProjectsArgs = argsType(
  'ProjectsArgs',
  {
    status: stateOf(entities.Project)({ description: 'Only projects in this status, newest first.' }),
    titlePrefix: attr.string({ description: 'Only projects whose title starts with this (case-insensitive), by title.' }),
    archived,
  },
  PageArgs,
);
export type ProjectsArgs = InstanceType<typeof ProjectsArgs>;

/** Across tenants the list is merged from the shards of an index, so it pages forward only. */
export const ProjectsAcrossTenantsArgs = argsType(
  'ProjectsAcrossTenantsArgs',
  { status: stateOf(entities.Project)({ required: true, description: 'The status to list.' }), archived },
  ForwardPageArgs,
);
export type ProjectsAcrossTenantsArgs = InstanceType<typeof ProjectsAcrossTenantsArgs>;

export const ProjectVersionArgs = argsType('ProjectVersionArgs', {
  projectId: keyAttr('projectId'),
  expectedVersion: attr.int({ description: 'When given, the change fails with CONFLICT unless the project is at this version.' }),
});
export type ProjectVersionArgs = InstanceType<typeof ProjectVersionArgs>;
