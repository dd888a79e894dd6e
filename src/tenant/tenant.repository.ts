import { entities, MAX_ACTIVITY_RETENTION_DAYS, MAX_ASSET_VERSIONS } from '../common/entities';
import { mutate } from '../common/mutate';
import { EntityRepository } from '../common/repository';
import type { Scope } from '../common/scope';
import { applyPatch, requireText } from '../common/validate';
import { AppError, badInput, ErrorCode } from '../errors';
import { Plan, type CreateTenantInput, type UpdateTenantInput } from './tenant.type';

/** The caller's own tenant record. */
export class TenantRepository extends EntityRepository<typeof entities.Tenant> {
  constructor(scope: Scope) {
    super(scope, entities.Tenant);
  }

  private createTenant(name: string, plan: Plan) {
    return this.createItem({ tenantId: this.scope.tenantId, name, plan }, [], { data: { name, plan } });
  }

  /**
   * The caller's tenant, created with default settings on first use. Two first uses at once both
   * get the one record that won.
   */
  async getOrCreate() {
    const existing = await this.load({});
    if (existing) return existing;
    try {
      return await this.createTenant(this.scope.tenantId, Plan.FREE);
    } catch (error) {
      if (!(error instanceof AppError && error.code === ErrorCode.CONFLICT)) throw error;
      const winner = await this.scope.store.get(this.model.keyOf(this.scope.tenantId, {}));
      if (!this.model.is(winner)) throw error;
      return winner;
    }
  }

  /** Creates the tenant explicitly; CONFLICT when it exists already. */
  create(input: CreateTenantInput, mayChoosePlan: boolean) {
    if (input.plan && input.plan !== Plan.FREE && !mayChoosePlan)
      throw badInput('Only an admin may choose a plan other than FREE.', 'plan');
    return this.createTenant(requireText(input.name, 'name', 120), input.plan ?? Plan.FREE);
  }

  update(expectedVersion: number, input: UpdateTenantInput, mayChoosePlan: boolean) {
    if (input.plan && !mayChoosePlan) throw badInput('Only an admin may change the plan.', 'plan');
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
    return mutate(this.scope, this.target({}), expectedVersion, (current) => ({
      item: applyPatch(current, input),
      event: { action: this.model.events.updated, data: { fields: Object.keys(input) } },
    }));
  }
}
