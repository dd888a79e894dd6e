import { type ClassType, FieldResolver, ID, Resolver, Root } from 'type-graphql';
import { badInput } from '../errors';
import { entities, NODE_ENTITIES } from './entities';

/*
 * Global object identification (Relay's Node, what Apollo Client and urql normalize by): every
 * entity has an `id` that is unique across types and that the server can turn back into the
 * entity's key. It is the entity's type and its key values, base64url-encoded, so clients treat
 * it as opaque; `projectId`, `logId` … stay what they are.
 */

export type NodeType = (typeof NODE_ENTITIES)[number];

/**
 * The values a Node type's id carries, in order: the placeholders of its key templates (the
 * tenant aside, which the caller's token gives), or the tenant id for the tenant itself.
 */
export const NODE_TYPES: ReadonlyMap<NodeType, readonly string[]> = new Map(
  NODE_ENTITIES.map((name) => {
    const fields = entities[name].keyFields;
    return [name, fields.length ? fields : ['tenantId']];
  }),
);

/** True when `value` names a Node type. */
export function isNodeType(value: string): value is NodeType {
  return NODE_ENTITIES.some((type) => type === value);
}

/** The global id of an entity of `type`, from the item (or any object with its key values). */
export function globalIdOf(type: NodeType, item: Record<string, unknown>): string {
  const values = (NODE_TYPES.get(type) ?? []).map((field) => String(item[field]));
  return Buffer.from([type, ...values].join(':'), 'utf8').toString('base64url');
}

/**
 * The id of an object that has identity but is no Node (an event): unique across types like a
 * Node's, so a normalized client cache (urql's Graphcache, Relay, Apollo Client) keys it by
 * `id` with no configuration, but node(id:) does not read it.
 */
export function objectIdOf(typename: string, ...values: (string | number)[]): string {
  return Buffer.from([typename, ...values].join(':'), 'utf8').toString('base64url');
}

/**
 * The base of the resolver of an object type that is no Node but has identity (see objectIdOf):
 * its `id` field, described by `description`, is the object id of the type's name and the `values`
 * of the object. Extend it with `@Resolver(() => Type)` and add the type's other field resolvers.
 */
export function ObjectIdResolver<T extends object>(type: ClassType<T>, description: string, values: (value: T) => (string | number)[]) {
  const typename = type.name;
  @Resolver(() => type)
  abstract class ObjectIdBase {
    @FieldResolver(() => ID, { description })
    id(@Root() value: T): string {
      return objectIdOf(typename, ...values(value));
    }
  }
  return ObjectIdBase;
}

/**
 * Why `id` is no global id, for BAD_USER_INPUT: an entity's own key (`proj_…`, its projectId) is
 * the usual mistake, and the answer names the field that holds the global id instead (a bare "not
 * an id this server made" told a caller holding an id the server did make nothing).
 */
function notAGlobalId(id: string, field: string): string {
  const keyed = NODE_ENTITIES.map((name) => entities[name]).find((model) => model.idPrefix && id.startsWith(`${model.idPrefix}_`));
  const expected = `${field} takes a global id, the \`id\` field of an object (Project.id, Log.id, …)`;
  return keyed
    ? `${field} "${id}" is a ${keyed.type}'s ${keyed.idField}, not its global id: ${expected}; read ${keyed.type}.id, or look it up by ${keyed.idField}.`
    : `${field} "${id}" is no global id of this server: ${expected}.`;
}

/**
 * The type and key values a global id names. Throws BAD_USER_INPUT when it is not an id this
 * server made, saying what it takes (the values themselves are checked by whoever looks the entity up).
 */
export function parseGlobalId(id: string, field = 'id'): { type: NodeType; values: Record<string, string> } {
  const decoded = /^[A-Za-z0-9_-]{1,400}$/.test(id) ? Buffer.from(id, 'base64url').toString('utf8') : '';
  const [type, ...parts] = decoded.split(':');
  const fields = isNodeType(type) ? NODE_TYPES.get(type) : undefined;
  // Ids and step names cannot hold ':' (see ids.ts and job.repository), so the parts split back exactly.
  if (!fields || !isNodeType(type) || parts.length !== fields.length || parts.some((p) => p === '')) {
    throw badInput(notAGlobalId(id, field), field);
  }
  return { type, values: Object.fromEntries(fields.map((f, i) => [f, parts[i]])) };
}
