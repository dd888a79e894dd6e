import { entities, MAX_ACTIVITY_RETENTION_DAYS, MAX_ASSET_VERSIONS } from '../common/entities';
import { mutate } from '../common/mutate';
import { EntityRepository } from '../common/repository';
import type { Scope } from '../common/scope';
import { applyPatch, requireText } from '../common/validate';
import { AppError, badInput, conflict, ErrorCode } from '../errors';
import { isValidTenantId } from '../common/ids';
import { releaseKeys, tenantUsage, usageKey } from '../common/quota';
import { PLAN_LIMIT_NAMES, type PlanLimits, type PlanName } from '../config';
import type { Plan, PlanLimitsInput, TenantUsage } from './tenant.type';

type CreateTenantInput = typeof entities.Tenant.createInput;
type UpdateTenantInput = typeof entities.Tenant.updateInput;

/** The caller's own tenant record. */
export class TenantRepository extends EntityRepository<typeof entities.Tenant> {
  constructor(
    scope: Scope,
    private readonly plans?: Record<PlanName, PlanLimits>,
  ) {
    super(scope, entities.Tenant);
  }

  /**
   * Any tenant's plan, limits and usage of each quota (an operator's, or a tenant admin's own: the resolver checks which).
   * BAD_USER_INPUT for an id no token could name.
   */
  async usage(tenantId: string): Promise<TenantUsage> {
    // An operator's operation names the tenant it reads as its argument: the one place here where a
    // key is built for a tenant other than the scope's.
    if (!isValidTenantId(tenantId)) throw badInput('tenantId is not a valid tenant id.', 'tenantId');
    const [tenant, counters, ...shards] = await this.scope.store.batchGet([
      this.model.keyOf(tenantId, {}),
      usageKey(tenantId),
      ...releaseKeys(tenantId),
    ]);
    return tenantUsage(tenantId, this.model.found(tenant), counters, shards, this.plans);
  }

  /**
   * Puts a tenant on `plan`, with `overrides` of its limits for this tenant alone (operators only;
   * the resolver checks the role). Creates the tenant's record when it has none. The quotas hold from
   * the next write on; the rate budgets within a few seconds on every instance (TenantBudgets).
   */
  async setPlan(tenantId: string, plan: PlanName, overrides: PlanLimitsInput | null | undefined): Promise<TenantUsage> {
    if (!isValidTenantId(tenantId)) throw badInput('tenantId is not a valid tenant id.', 'tenantId');
    const limits: Partial<Record<string, number>> = {};
    for (const name of PLAN_LIMIT_NAMES) {
      const value = overrides?.[name];
      if (value == null) continue;
      if (!Number.isSafeInteger(value) || value < 0) throw badInput(`${name} must be a whole number from 0, or null for the plan's.`, name);
      limits[name] = value;
    }
    const key = this.model.keyOf(tenantId, {});
    const at = this.scope.now().toISOString();
    const current = await this.scope.store.get(key);
    const write = this.model.is(current)
      ? this.model
          .put(tenantId, { ...current, plan, limits, version: current.version + 1, updatedAt: at })
          .ifVersion(current.version, () => conflict('Tenant', tenantId, current.version, undefined))
      : this.model
          .put(tenantId, { tenantId, name: tenantId, plan, limits, version: 1, createdAt: at, updatedAt: at, createdBy: this.scope.actor })
          .ifNew(() => conflict('Tenant', tenantId, undefined, undefined));
    await this.scope.store.transact([write]);
    return this.usage(tenantId);
  }

  private createTenant(name: string, plan: Plan) {
    // The record names its own tenant as data (the API's Tenant.tenantId); its key comes from the scope.
    return this.createItem({ tenantId: this.scope.tenant.id, name, plan }, [], { data: { name, plan } });
  }

  /**
   * The caller's tenant, created with default settings on first use. Two first uses at once both
   * get the one record that won.
   */
  async getOrCreate() {
    const existing = await this.load({});
    if (existing) return existing;
    try {
      return await this.createTenant(this.scope.tenant.id, 'free');
    } catch (error) {
      if (!(error instanceof AppError && error.code === ErrorCode.CONFLICT)) throw error;
      const winner = await this.scope.store.get(this.keys.keyOf({}));
      if (!this.model.is(winner)) throw error;
      return winner;
    }
  }

  /** The caller's tenant when `tenantId` names it (see getOrCreate); null for any other, whose record the caller may not read. */
  named(tenantId: string) {
    return tenantId === this.scope.tenant.id ? this.getOrCreate() : Promise.resolve(null);
  }

  /** Creates the tenant explicitly; CONFLICT when it exists already, BAD_USER_INPUT for a plan other than FREE (an operator's choice). */
  create(input: CreateTenantInput) {
    if (input.plan && input.plan !== 'free')
      throw badInput('A tenant starts on FREE; an operator chooses another plan (setTenantPlan).', 'plan');
    return this.createTenant(requireText(input.name, 'name', 120), input.plan ?? 'free');
  }

  async update(expectedVersion: number, input: UpdateTenantInput) {
    if (input.plan) throw badInput('The plan is an operator’s to change (setTenantPlan), not the tenant’s.', 'plan');
    if (input.name === null || input.plan === null) throw badInput('name and plan cannot be cleared.');
    if (input.name) input.name = requireText(input.name, 'name', 120);
    const keep = input.keepAssetVersions;
    if (keep != null && (!Number.isInteger(keep) || keep < 1 || keep > MAX_ASSET_VERSIONS))
      throw badInput(`keepAssetVersions must be between 1 and ${MAX_ASSET_VERSIONS}, or null to keep every version.`, 'keepAssetVersions');
    const days = input.activityRetentionDays;
    if (days != null && (!Number.isInteger(days) || days < 0 || days > MAX_ACTIVITY_RETENTION_DAYS))
      throw badInput(
        `activityRetentionDays must be between 1 and ${MAX_ACTIVITY_RETENTION_DAYS}, 0 for forever, or null for the default.`,
        'activityRetentionDays',
      );
    // Created with its defaults on first use, as reading it would: its first version is 1.
    await this.getOrCreate();
    return mutate(this.scope, this.target({}), expectedVersion, (current) => ({
      item: applyPatch(current, input),
      event: { action: this.model.events.updated, data: { fields: Object.keys(input) } },
    }));
  }
}
