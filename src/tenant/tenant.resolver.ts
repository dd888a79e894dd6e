import { Arg, Authorized, Ctx, ID, Mutation, Query, Resolver } from 'type-graphql';
import { Role } from '../auth/principal';
import { entities, type EntityItem } from '../common/entities';
import { feature } from '../common/feature';
import { standardResolver, tenantArg } from '../common/standard-resolver';
import { modelTypes } from '../common/model-types';
import type { Context } from '../context';
import { forbidden } from '../errors';
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

/**
 * The tenant's create and update (see standard-resolver.ts): the token names the tenant, and no
 * tenant's caller chooses its plan, not even its admin (an operator does, with setTenantPlan).
 */
const TenantStandard = standardResolver(entities.Tenant, {
  create: (ctx, _parent, input) => ctx.repos.tenant.create(input),
  update: (ctx, _keys, version, input) => ctx.repos.tenant.update(version, input),
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

  @Authorized(Role.ADMIN, Role.OPERATOR)
  @Query(() => TenantUsage, {
    description:
      "A tenant's plan, its limits, and its usage of each quota against them. A tenant's admin reads its own tenant's (FORBIDDEN for another's); an operator reads any tenant's.",
  })
  tenantUsage(
    @Arg('tenantId', () => ID, { nullable: true, description: "The tenant; omitted: the token's own (an operator must name one)." })
    tenantId: string | null,
    @Ctx() ctx: Context,
  ): Promise<TenantUsage> {
    const principal = ctx.principal!;
    if (principal.operator) {
      if (tenantId == null) throw forbidden('An operator belongs to no tenant: name the tenant whose usage you read (tenantId).');
      return ctx.system().repos.tenant.usage(tenantId);
    }
    // A tenant's admin: its own tenant only, told apart by the verified token, never by the argument.
    if (tenantId != null && tenantId !== principal.tenantId)
      throw forbidden(`A tenant's admin reads its own tenant's usage only (${principal.tenantId}); another tenant's is for an operator.`);
    return ctx.repos.tenant.usage(principal.tenantId);
  }

  @Authorized(Role.OPERATOR)
  @Mutation(() => TenantUsage, {
    description:
      "Operator: puts a tenant on a plan, with overrides of the plan's limits for it alone. Quotas hold from the next write; rate budgets within 5 s on every instance.",
  })
  setTenantPlan(
    @tenantArg() tenantId: string,
    @Arg('plan', () => Plan, { description: 'The plan.' }) plan: Plan,
    @Arg('limits', () => PlanLimitsInput, { nullable: true, description: "This tenant's own limits; the plan's where omitted." })
    limits: PlanLimitsInput | null,
    @Ctx() ctx: Context,
  ): Promise<TenantUsage> {
    return ctx.system().repos.tenant.setPlan(tenantId, plan, limits);
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
