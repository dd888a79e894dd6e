import { Arg, Authorized, Ctx, Mutation, Query, Resolver } from 'type-graphql';
import { Role } from '../auth/principal';
import { entities, type EntityItem } from '../common/entities';
import { feature } from '../common/feature';
import { standardResolver, tenantArg } from '../common/standard-resolver';
import { modelTypes } from '../common/model-types';
import type { Context } from '../context';
import { Plan, PlanLimitsInput, TenantUsage, Viewer } from './tenant.type';
import { TenantRepository } from './tenant.repository';

// This feature adds its repository to ctx.repos itself, so that the context imports no feature (see src/context.ts).
declare module '../context' {
  interface Repositories {
    tenant: TenantRepository;
  }
}

const { type: Tenant } = modelTypes(entities.Tenant);
type Tenant = EntityItem<'Tenant'>;

const isAdmin = (ctx: Context) => Boolean(ctx.principal?.roles.includes(Role.ADMIN));

/** The tenant's create and update (see standard-resolver.ts): only an admin may choose a plan, and the token names the tenant. */
const TenantStandard = standardResolver(entities.Tenant, {
  create: (ctx, _parent, input) => ctx.repos.tenant.create(input, isAdmin(ctx)),
  update: (ctx, _keys, version, input) => ctx.repos.tenant.update(version, input, isAdmin(ctx)),
  idempotent: false,
});

@Resolver()
export class TenantResolver {
  @Authorized()
  @Query(() => Viewer, { description: 'The caller, from the verified token.' })
  viewer(@Ctx() ctx: Context): Viewer {
    const { userId, tenantId, roles } = ctx.principal!;
    return { userId, tenantId, roles };
  }

  @Authorized()
  @Query(() => Tenant, { description: "The caller's tenant; created with defaults on first use." })
  tenant(@Ctx() ctx: Context): Promise<Tenant> {
    return ctx.repos.tenant.getOrCreate();
  }

  @Authorized(Role.ADMIN)
  @Query(() => TenantUsage, { description: "Admin: a tenant's plan, its limits, and its usage of each quota against them." })
  tenantUsage(@tenantArg() tenantId: string, @Ctx() ctx: Context): Promise<TenantUsage> {
    return ctx.repos.tenant.usage(tenantId);
  }

  @Authorized(Role.ADMIN)
  @Mutation(() => TenantUsage, {
    description:
      "Admin: puts a tenant on a plan, with overrides of the plan's limits for it alone. Quotas hold from the next write; rate budgets within 5 s on every instance.",
  })
  setTenantPlan(
    @tenantArg() tenantId: string,
    @Arg('plan', () => Plan, { description: 'The plan.' }) plan: Plan,
    @Arg('limits', () => PlanLimitsInput, { nullable: true, description: "This tenant's own limits; the plan's where omitted." })
    limits: PlanLimitsInput | null,
    @Ctx() ctx: Context,
  ): Promise<TenantUsage> {
    return ctx.repos.tenant.setPlan(tenantId, plan, limits);
  }
}

/** This feature's resolvers and repositories (see src/features.ts). */
export const tenantFeature = feature({
  resolvers: [TenantStandard, TenantResolver],
  repositories: (scope, _repos, deps) => ({ tenant: new TenantRepository(scope, deps.plans) }),
  nodes: {
    Tenant: { type: Tenant, load: (repos, v) => repos.tenant.named(v.tenantId) },
  },
});
