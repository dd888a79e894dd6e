import { Arg, Authorized, Ctx, FieldResolver, ID, Query, Resolver, Root } from 'type-graphql';
import { feature, type Feature, type NodeSource } from '../common/feature';
import { globalIdOf, isNodeType, parseGlobalId, type NodeType } from '../common/global-id';
import { NODE_ENTITIES } from '../common/entities';
import { Node } from '../common/node.type';
import { Reads } from '../common/projection';
import { maxItems } from '../common/validate';
import type { Context } from '../context';

/**
 * The `id` field of one Node type, computed from the item's key values (items are stored without
 * it). One resolver class per type, made the way type-graphql's docs make generic resolvers, so
 * each type's `id` is resolved explicitly instead of by whatever the default resolver finds.
 */
function idResolver(type: NodeType, source: NodeSource) {
  @Resolver(() => source.type)
  class IdResolver {
    @FieldResolver(() => ID, { description: 'Unique across all types, stable, opaque: refetch with node(id:).' })
    // It reads the item's key values, which every read carries.
    @Reads()
    id(@Root() item: Record<string, unknown>): string {
      return globalIdOf(type, item);
    }
  }
  Object.defineProperty(IdResolver, 'name', { value: `${type}IdResolver` });
  return IdResolver;
}

/**
 * Global object identification (see src/common/global-id.ts) over the given features: node,
 * nodes and every Node type's id, each read the way the feature that owns the type says
 * (Feature.nodes). src/features.ts makes it from the list of all the others.
 */
export function nodeFeatureOf(features: readonly Feature[]): Feature {
  const sources = new Map<NodeType, NodeSource>();
  for (const f of features) for (const [type, source] of Object.entries(f.nodes ?? {})) if (isNodeType(type)) sources.set(type, source);
  // A declared Node type that no feature reads is a programming error: the schema is not built.
  const missing = NODE_ENTITIES.filter((type) => !sources.has(type));
  if (missing.length) throw new Error(`No feature says how to read the Node types ${missing.join(', ')} (Feature.nodes).`);

  /** The entity a global id names, read as the caller: null when this tenant has none (another tenant's id included). */
  const lookUp = (ctx: Context, id: string): Promise<object | null> => {
    const { type, values } = parseGlobalId(id);
    const source = sources.get(type);
    return source ? source.load(ctx.repos, values) : Promise.resolve(null);
  };

  @Resolver()
  class NodeResolver {
    @Authorized()
    @Query(() => Node, {
      nullable: true,
      description:
        'Any entity of your tenant by its global id (the id field of every entity): null when your tenant has none, another tenant’s id included; BAD_USER_INPUT for text that is no id of this server.',
    })
    node(@Arg('id', () => ID, { description: 'A global id: the id field of an entity.' }) id: string, @Ctx() ctx: Context) {
      return lookUp(ctx, id);
    }

    @Authorized()
    @Query(() => [Node], {
      nullable: 'items',
      description:
        'Several entities by global id, in the order asked (null for each your tenant does not have); at most 100, read in batches.',
    })
    nodes(
      @Arg('ids', () => [ID], { description: 'Global ids (the id field of entities), at most 100.' }) ids: string[],
      @Ctx() ctx: Context,
    ) {
      maxItems(ids, 'ids', 100);
      // Each lookup goes through the request's loaders, so their reads are batched together.
      return Promise.all(ids.map((id) => lookUp(ctx, id)));
    }
  }

  return feature({
    resolvers: [NodeResolver, ...[...sources].map(([type, source]) => idResolver(type, source))],
    repositories: () => ({}),
  });
}
