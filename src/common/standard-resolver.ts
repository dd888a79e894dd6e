import { Arg, Args, ArgsType, Authorized, type ClassType, Ctx, Field, ID, Int, Mutation, Query, Resolver } from 'type-graphql';
import { Role } from '../auth/principal';
import type { Context } from '../context';
import type { AnyModel, Placeholders, StandardOperationName } from '../infra/dynamo/entity';
import { expectedVersionArg, optionalExpectedVersionArg, whose } from './args';
import { idempotencyKeyArg } from './idempotency';
import { modelTypes } from './model-types';

/** The values of the entity's key arguments, in the order of its key template (`[projectId, assetId]`). */
type KeyValues = string[];

/**
 * What is particular to an entity's query of one, create, update and delete: the repository calls
 * they make (their descriptions are the declaration's `describe.one` … `describe.delete`). Each
 * one given is in the API; an omitted one is not.
 */
export interface StandardResolverSpec<C, U> {
  /** The query `<type>(<keys>)` (`asset(projectId, assetId)`): one, or null when the caller's tenant has none. */
  one?: (ctx: Context, keys: KeyValues) => Promise<unknown>;
  /** `create<Type>(<parent keys>, input, idempotencyKey)`: the run gets the parent's key values. */
  create?: (ctx: Context, parentKeys: KeyValues, input: C, idempotencyKey: string | null) => Promise<unknown>;
  /** `update<Type>(<keys>, expectedVersion, input)`. */
  update?: (ctx: Context, keys: KeyValues, expectedVersion: number, input: U) => Promise<unknown>;
  /** `delete<Type>(<keys>, expectedVersion)`, the version optional. */
  delete?: (ctx: Context, keys: KeyValues, expectedVersion: number | null) => Promise<unknown>;
  /** Where the entity departs from the standard: another name or input class, or a create without idempotencyKey. */
  names?: { create?: string; update?: string };
  // biome-ignore lint/complexity/noBannedTypes: type-graphql takes input type classes as plain constructors.
  inputs?: { create?: Function; update?: Function };
  idempotent?: boolean;
}

const lowerFirst = (s: string) => s.charAt(0).toLowerCase() + s.slice(1);

/**
 * The argument `field` (`jobId`) of a query or mutation on one item, an ID described as whose id it
 * is (or as `description` says): the key argument the standard resolvers take (see keyArgsOf), for
 * a resolver of its own.
 */
export const keyArg = (field: string, description = whose(field)) => Arg(field, () => ID, { description });

/** The `tenantId` argument of an operator's query or mutation on a tenant (every other request's tenant is its token's). */
export const tenantArg = () => keyArg('tenantId', 'The tenant.');

/**
 * An args class of the given key fields, each an ID described as whose id it is. It is made even
 * without fields (the tenant's), because type-graphql hands a resolver its arguments in the order
 * of its decorated parameters: a parameter left undecorated would shift every one after it.
 */
function keyArgs(name: string, fields: string[]): ClassType {
  @ArgsType()
  class KeyArgs {}
  for (const field of fields) Field(() => ID, { description: whose(field) })(KeyArgs.prototype, field);
  Object.defineProperty(KeyArgs, 'name', { value: name });
  return KeyArgs;
}

/** The values of a model's key fields, by name (`{ projectId, assetId }`), as its key arguments give them. */
export type KeyArgsOf<M extends AnyModel> = Record<Placeholders<M['key']['shape']['pk']> | Placeholders<M['key']['shape']['sk']>, string>;

const keyArgsMade = new Map<AnyModel, ClassType>();

/**
 * The arguments that name one item of `model` by its key (`projectId` and `assetId` for an
 * asset), from its key template: what a query or mutation on one existing item takes. Made once
 * per model.
 */
export function keyArgsOf<M extends AnyModel>(model: M): ClassType<KeyArgsOf<M>>;
// The args class made at run time holds no values itself: its instance type says what a resolver is handed.
export function keyArgsOf(model: AnyModel): ClassType {
  const existing = keyArgsMade.get(model);
  if (existing) return existing;
  const made = keyArgs(`${model.type}Keys`, model.keyFields);
  keyArgsMade.set(model, made);
  return made;
}

/**
 * The query of one declared entity by its key and its create, update and delete mutations, derived
 * as type-graphql's resolvers-inheritance example derives a resource's resolvers: the key
 * arguments come from the declaration's key template (a project's child is found by projectId and
 * its own id; the tenant by the token alone), the inputs and descriptions from its declaration (see
 * model-types.ts), and every mutation needs the EDITOR role. What each does is the spec's
 * function, so a rule of the entity's own stays in its repository. Returns the resolver class to
 * list in the feature's resolvers; throws at startup when the declaration does not describe an
 * operation the spec gives.
 */
export function standardResolver<M extends AnyModel, C = M['createInput'], U = M['updateInput']>(
  model: M,
  spec: StandardResolverSpec<C, U>,
): ClassType {
  const types = modelTypes(model);
  const parentKeys = model.keyFields.filter((field) => field !== model.idField);
  const ParentArgs = keyArgs(`${model.type}ParentKeys`, parentKeys);
  const OwnArgs = keyArgsOf(model);
  const described = (operation: StandardOperationName) => {
    const description = model.describe[operation];
    if (!description) throw new Error(`${model.type} has a standard ${operation} but its declaration gives no describe.${operation}.`);
    return description;
  };
  const valuesOf = (fields: string[], args: object): KeyValues => fields.map((field) => String(Reflect.get(args, field)));

  @Resolver()
  class StandardResolver {
    one(ctx: Context, keys: object) {
      return spec.one?.(ctx, valuesOf(model.keyFields, keys));
    }

    create(ctx: Context, keys: object, input: C, idempotencyKey: string | null = null) {
      return spec.create?.(ctx, valuesOf(parentKeys, keys), input, idempotencyKey);
    }

    update(ctx: Context, keys: object, expectedVersion: number, input: U) {
      return spec.update?.(ctx, valuesOf(model.keyFields, keys), expectedVersion, input);
    }

    remove(ctx: Context, keys: object, expectedVersion: number | null) {
      return spec.delete?.(ctx, valuesOf(model.keyFields, keys), expectedVersion);
    }
  }
  Object.defineProperty(StandardResolver, 'name', { value: `${model.type}StandardResolver` });

  // The decorators are applied here, one operation at a time, so that an omitted one is not in the schema.
  const proto = StandardResolver.prototype;
  const declare = (method: 'create' | 'update' | 'remove', name: string, description: string, keys: ClassType) => {
    const descriptor = Object.getOwnPropertyDescriptor(proto, method) ?? {};
    Mutation(() => types.type, { name, description })(proto, method, descriptor);
    Authorized(Role.EDITOR)(proto, method, descriptor);
    Ctx()(proto, method, 0);
    Args(() => keys)(proto, method, 1);
  };
  if (spec.one) {
    const descriptor = Object.getOwnPropertyDescriptor(proto, 'one') ?? {};
    Query(() => types.type, { name: lowerFirst(model.type), nullable: true, description: described('one') })(proto, 'one', descriptor);
    Authorized()(proto, 'one', descriptor);
    Ctx()(proto, 'one', 0);
    Args(() => OwnArgs)(proto, 'one', 1);
  }
  if (spec.create) {
    declare('create', spec.names?.create ?? `create${model.type}`, described('create'), ParentArgs);
    const input = spec.inputs?.create ?? types.createInput;
    Arg('input', () => input, { description: 'What the new one is made of.' })(proto, 'create', 2);
    if (spec.idempotent ?? true) Arg('idempotencyKey', () => String, idempotencyKeyArg)(proto, 'create', 3);
  }
  if (spec.update) {
    declare('update', spec.names?.update ?? `update${model.type}`, described('update'), OwnArgs);
    Arg('expectedVersion', () => Int, expectedVersionArg)(proto, 'update', 2);
    const input = spec.inputs?.update ?? types.updateInput;
    Arg('input', () => input, { description: 'The fields to change; an omitted field is kept.' })(proto, 'update', 3);
  }
  if (spec.delete) {
    declare('remove', `delete${model.type}`, described('delete'), OwnArgs);
    Arg('expectedVersion', () => Int, optionalExpectedVersionArg)(proto, 'remove', 2);
  }
  return StandardResolver;
}
