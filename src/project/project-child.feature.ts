import {
  Arg,
  Args,
  ArgsType,
  Authorized,
  type ClassType,
  Ctx,
  Field,
  FieldResolver,
  Int,
  Mutation,
  Query,
  Resolver,
  Root,
} from 'type-graphql';
import { Role } from '../auth/principal';
import { feature, type Feature, type StandardNames } from '../common/feature';
import { idempotencyKeyArg } from '../common/idempotency';
import { type ModelTypes, modelTypes } from '../common/model-types';
import { placeholdersOf } from '../infra/dynamo/entity';
import { PageArgs, pageRequest, ProjectPageArgs } from '../common/pagination';
import { Reads, Selected, type Selection } from '../common/projection';
import type { Context, Repositories } from '../context';
import type { ChildModel, ProjectChildRepository } from './project-child.repository';
import { Project } from './project.type';
import { expectedVersionArg } from '../common/args';
import { keyArg, keyArgsOf } from '../common/standard-resolver';

const lowerFirst = (s: string) => s.charAt(0).toLowerCase() + s.slice(1);
const optionalVersion = (type: string) => ({ nullable: true, description: `When given, CONFLICT unless the ${type} is at this version.` });
const firstArg = { nullable: true, description: 'How many, 20 when omitted, at most 100.' };

/**
 * The query that lists one declared index of a child across the caller's projects, newest first:
 * its arguments are the values of the index's partition key (`scenesByStatus(status:)`).
 */
function indexResolver(
  model: ChildModel,
  type: Function,
  connection: Function,
  indexName: string,
  queryName: string,
  attributeTypes: ModelTypes['attributeTypes'],
): Function {
  const declared = model.indexes[indexName];
  const partition = placeholdersOf(declared.pk);
  @ArgsType()
  class IndexArgs extends PageArgs {}
  for (const field of partition) {
    const fieldType = attributeTypes.get(field);
    if (!fieldType) throw new Error(`${model.type}.${indexName} lists by ${field}, which is no attribute.`);
    Field(fieldType, { description: `The ${field} to list.` })(IndexArgs.prototype, field);
  }
  Object.defineProperty(IndexArgs, 'name', { value: `${queryName}Args` });

  @Resolver(() => type)
  class IndexResolver {
    @Authorized()
    @Query(() => connection, {
      name: queryName,
      description: `The ${model.type} items of your projects by ${partition.join(' and ')}, newest first.`,
    })
    list(@Args(() => IndexArgs) args: IndexArgs, @Ctx() ctx: Context, @Selected() selection: Selection | undefined) {
      const values = Object.fromEntries(partition.map((field) => [field, Reflect.get(args, field)]));
      return ctx.repos.children.of(model).listIndex(indexName, values, pageRequest(args), selection);
    }
  }
  Object.defineProperty(IndexResolver, 'name', { value: `${queryName}Resolver` });
  return IndexResolver;
}

/**
 * The field resolver of `Project.<plural>` (`Project.milestones`, `Project.logs`): the project's
 * first children (20 when `first` is omitted, at most 100), oldest first, as the child repository
 * that `repository` gives lists them. It reads only the project's id, which every read of a
 * project carries. Returns the resolver class to list in a feature's resolvers.
 */
export function projectChildrenResolver(
  plural: string,
  type: ClassType,
  repository: (ctx: Context) => ProjectChildRepository<ChildModel>,
  description = `The first ${plural}; page with Query.${plural}.`,
): ClassType {
  // type-graphql matches a field resolver to its field by the method's name, so the method is named
  // after the field (`milestones`, `scenes`) rather than shared by every child's resolver class.
  class ProjectChildrenResolver {}
  const children = async (project: Project, first: number | null, ctx: Context, selection: Selection | undefined) =>
    (await repository(ctx).list(project.projectId, { first }, selection)).nodes;
  Object.defineProperty(ProjectChildrenResolver.prototype, plural, { value: children, writable: true, configurable: true });
  const descriptor = Object.getOwnPropertyDescriptor(ProjectChildrenResolver.prototype, plural);
  FieldResolver(() => [type], { description })(ProjectChildrenResolver.prototype, plural, descriptor ?? {});
  Reads()(ProjectChildrenResolver.prototype, plural, descriptor ?? {});
  Root()(ProjectChildrenResolver.prototype, plural, 0);
  Arg('first', () => Int, firstArg)(ProjectChildrenResolver.prototype, plural, 1);
  Ctx()(ProjectChildrenResolver.prototype, plural, 2);
  Selected()(ProjectChildrenResolver.prototype, plural, 3);
  Resolver(() => Project)(ProjectChildrenResolver);
  Object.defineProperty(ProjectChildrenResolver, 'name', { value: `Project${plural.charAt(0).toUpperCase()}${plural.slice(1)}Resolver` });
  return ProjectChildrenResolver;
}

/**
 * The standard API of a project child, derived from its declaration (as type-graphql's
 * resolvers-inheritance example derives resolvers): its GraphQL types (see model-types.ts), the
 * queries `<child>` and `<children>` (a project's, oldest first), `Project.<children>`, and the
 * mutations create, update (optimistic locking), `set<Child>Status` (when it has a status
 * machine) and delete, all through the request's standard repository, and how node(id:) reads it.
 * A feature whose child needs more adds its own resolvers beside these.
 */
export function projectChildFeature(model: ChildModel, options: { plural?: string } = {}): Feature {
  const { type, connection, createInput, updateInput, status, attributeTypes } = modelTypes(model);
  const name = model.type;
  const single = lowerFirst(name);
  const plural = options.plural ?? `${single}s`;
  const idField = model.idField;
  const repository = (ctx: Context) => ctx.repos.children.of(model);

  // One child by its key: projectId and its own id, as the standard resolvers take them.
  const Ref = keyArgsOf(model);
  type Ref = InstanceType<typeof Ref>;
  const idOf = (ref: Ref): string => String(Reflect.get(ref, idField));

  @Resolver(() => type)
  class ChildResolver {
    @Authorized()
    @Query(() => type, {
      name: single,
      nullable: true,
      description: `One ${single} of a project; null when your tenant has none by that id.`,
    })
    one(@Args(() => Ref) ref: Ref, @Ctx() ctx: Context) {
      return repository(ctx).get(ref.projectId, idOf(ref));
    }

    @Authorized()
    @Query(() => connection, { name: plural, description: `A project's ${plural}, oldest first.` })
    list(@Args(() => ProjectPageArgs) args: ProjectPageArgs, @Ctx() ctx: Context, @Selected() selection: Selection | undefined) {
      return repository(ctx).list(args.projectId, pageRequest(args), selection);
    }

    @Authorized(Role.EDITOR)
    @Mutation(() => type, { name: `create${name}`, description: `Adds a ${single} to a project.` })
    create(
      @keyArg('projectId') projectId: string,
      @Arg('input', () => createInput, { description: 'What the new one is made of.' }) input: object,
      @Arg('idempotencyKey', () => String, idempotencyKeyArg) idempotencyKey: string | null,
      @Ctx() ctx: Context,
    ) {
      return repository(ctx).create(projectId, input, idempotencyKey);
    }

    @Authorized(Role.EDITOR)
    @Mutation(() => type, {
      name: `update${name}`,
      description: `Changes a ${single}, if it is still at expectedVersion (else CONFLICT naming the current one).`,
    })
    update(
      @Args(() => Ref) ref: Ref,
      @Arg('expectedVersion', () => Int, expectedVersionArg) expectedVersion: number,
      @Arg('input', () => updateInput, { description: 'The fields to change; an omitted field is kept.' }) input: object,
      @Ctx() ctx: Context,
    ) {
      return repository(ctx).update(ref.projectId, idOf(ref), expectedVersion, input);
    }

    @Authorized(Role.EDITOR)
    @Mutation(() => type, { name: `delete${name}`, description: `Deletes the ${single} and returns it as it was.` })
    remove(
      @Args(() => Ref) ref: Ref,
      @Arg('expectedVersion', () => Int, optionalVersion(single)) expectedVersion: number | null,
      @Ctx() ctx: Context,
    ) {
      return repository(ctx).delete(ref.projectId, idOf(ref), expectedVersion);
    }
  }
  Object.defineProperty(ChildResolver, 'name', { value: `${name}Resolver` });

  const resolvers: Function[] = [ChildResolver, projectChildrenResolver(plural, type, repository)];
  for (const [indexName, declared] of Object.entries(model.indexes)) {
    if (declared.list) resolvers.push(indexResolver(model, type, connection, indexName, declared.list, attributeTypes));
  }
  if (status) {
    const statusType = status;
    @Resolver(() => type)
    class StatusResolver {
      @Authorized(Role.EDITOR)
      @Mutation(() => type, { name: `set${name}Status`, description: `Moves the ${single} along: ${model.describeTransitions()}.` })
      setStatus(
        @Args(() => Ref) ref: Ref,
        @Arg('status', () => statusType, {
          description: 'The status to move to; the status machine must allow the move (else INVALID_TRANSITION).',
        })
        to: string,
        @Arg('expectedVersion', () => Int, optionalVersion(single)) expectedVersion: number | null,
        @Ctx() ctx: Context,
      ) {
        return repository(ctx).setStatus(ref.projectId, idOf(ref), to, expectedVersion);
      }
    }
    Object.defineProperty(StatusResolver, 'name', { value: `${name}StatusResolver` });
    resolvers.push(StatusResolver);
  }

  const names: StandardNames = {
    single,
    plural,
    create: `create${name}`,
    update: `update${name}`,
    setStatus: status ? `set${name}Status` : undefined,
    delete: `delete${name}`,
    lists: Object.values(model.indexes).flatMap((i) => (i.list ? [i.list] : [])),
  };
  return feature({
    standard: { model, names },
    resolvers,
    repositories: () => ({}),
    nodes: {
      [name]: {
        type,
        load: (repos: Repositories, values: Record<string, string>) => repos.children.of(model).get(values.projectId, values[idField]),
      },
    },
  });
}
