import { Arg, Authorized, Ctx, FieldResolver, ID, Query, Resolver, Root } from 'type-graphql';
import type { ClassType } from 'type-graphql';
import { Asset } from '../asset/asset.type';
import { Brief } from '../brief/brief.type';
import { feature } from '../common/feature';
import { globalIdOf, parseGlobalId, type NodeType } from '../common/global-id';
import { Node } from '../common/node.type';
import { maxItems } from '../common/validate';
import type { Context, Repositories } from '../context';
import { Inspiration } from '../inspiration/inspiration.type';
import { Job, Step } from '../job/job.type';
import { Log } from '../log/log.type';
import { Milestone } from '../milestone/milestone.type';
import { Project } from '../project/project.type';
import { Tenant } from '../tenant/tenant.type';

/** The GraphQL class of each Node type. */
const CLASSES: Record<NodeType, ClassType> = {
  Tenant,
  Project,
  Brief,
  Milestone,
  Log,
  Asset,
  Inspiration,
  Job,
  Step,
};

/**
 * The `id` field of one Node type, computed from the item's key values (items are stored without
 * it). One resolver class per type, made the way type-graphql's docs make generic resolvers, so
 * each type's `id` is resolved explicitly instead of by whatever the default resolver finds.
 */
function idResolver(type: NodeType) {
  @Resolver(() => CLASSES[type])
  class IdResolver {
    @FieldResolver(() => ID, { description: 'Unique across all types, stable, opaque: refetch with node(id:).' })
    id(@Root() item: Record<string, unknown>): string {
      return globalIdOf(type, item);
    }
  }
  Object.defineProperty(IdResolver, 'name', { value: `${type}IdResolver` });
  return IdResolver;
}

/** The entity a global id names, read as the caller: null when this tenant has none (another tenant's id included). */
async function lookUp(repos: Repositories, tenantId: string, id: string): Promise<object | null> {
  const { type, values: v } = parseGlobalId(id);
  switch (type) {
    case 'Tenant':
      return v.tenantId === tenantId ? repos.tenant.getOrCreate() : null;
    case 'Project':
      return repos.projects.get(v.projectId);
    case 'Brief': {
      const version = Number(v.version);
      return Number.isInteger(version) && version > 0 ? repos.briefs.get(v.projectId, version) : null;
    }
    case 'Milestone':
      return repos.milestones.get(v.projectId, v.milestoneId);
    case 'Log':
      return repos.logs.get(v.projectId, v.logId);
    case 'Asset':
      return repos.assets.get(v.projectId, v.assetId);
    case 'Inspiration':
      return repos.inspirations.get(v.inspirationId);
    case 'Job':
      return repos.jobs.get(v.jobId);
    case 'Step': {
      const steps = await repos.jobs.steps(v.jobId);
      return steps.find((s) => s.name === v.name && String(s.attempt) === v.attempt) ?? null;
    }
  }
}

@Resolver()
export class NodeResolver {
  @Authorized()
  @Query(() => Node, {
    nullable: true,
    description:
      'Any entity of your tenant by its global id (the id field of every entity): null when your tenant has none, another tenant’s id included; BAD_USER_INPUT for text that is no id of this server.',
  })
  node(@Arg('id', () => ID) id: string, @Ctx() ctx: Context) {
    return lookUp(ctx.repos, ctx.principal!.tenantId, id);
  }

  @Authorized()
  @Query(() => [Node], {
    nullable: 'items',
    description:
      'Several entities by global id, in the order asked (null for each your tenant does not have); at most 100, read in batches.',
  })
  nodes(@Arg('ids', () => [ID]) ids: string[], @Ctx() ctx: Context) {
    maxItems(ids, 'ids', 100);
    // Each lookup goes through the request's loaders, so their reads are batched together.
    return Promise.all(ids.map((id) => lookUp(ctx.repos, ctx.principal!.tenantId, id)));
  }
}

/** Global object identification (see src/common/global-id.ts): node, nodes and every type's id. */
export const nodeFeature = feature({
  resolvers: [NodeResolver, ...(Object.keys(CLASSES) as NodeType[]).map(idResolver)],
  repositories: () => ({}),
});
