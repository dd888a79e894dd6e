import { create, mutate } from '../common/mutate';
import type { Scope } from '../common/scope';
import { applyPatch, requireText } from '../common/validate';
import { AppError, badInput, ErrorCode } from '../errors';
import { tenantKey } from './tenant.keys';
import { Plan, type CreateTenantInput, type Tenant, type UpdateTenantInput } from './tenant.type';

/** The caller's own tenant record. */
export class TenantRepository {
  constructor(private readonly scope: Scope) {}

  private async createItem(name: string, plan: Plan): Promise<Tenant> {
    const { tenantId } = this.scope;
    return create(
      this.scope,
      { ...tenantKey(tenantId), entityType: 'Tenant', tenantId, name, plan },
      {
        action: 'tenant.created',
        entityType: 'Tenant',
        entityId: tenantId,
        data: { name, plan },
      },
    );
  }

  /**
   * The caller's tenant, created with default settings on first use. Two first uses at once both
   * get the one record that won.
   */
  async getOrCreate(): Promise<Tenant> {
    const key = tenantKey(this.scope.tenantId);
    const existing = await this.scope.items.load(key);
    if (existing) return existing as Tenant;
    try {
      return await this.createItem(this.scope.tenantId, Plan.FREE);
    } catch (error) {
      if (!(error instanceof AppError && error.code === ErrorCode.CONFLICT)) throw error;
      const winner = await this.scope.store.get(key);
      if (!winner) throw error;
      return winner as Tenant;
    }
  }

  /** Creates the tenant explicitly; CONFLICT when it exists already. */
  create(input: CreateTenantInput, mayChoosePlan: boolean): Promise<Tenant> {
    if (input.plan && input.plan !== Plan.FREE && !mayChoosePlan)
      throw badInput('Only an admin may choose a plan other than FREE.', 'plan');
    return this.createItem(requireText(input.name, 'name', 120), input.plan ?? Plan.FREE);
  }

  async update(expectedVersion: number, input: UpdateTenantInput, mayChoosePlan: boolean): Promise<Tenant> {
    if (input.plan && !mayChoosePlan) throw badInput('Only an admin may change the plan.', 'plan');
    if (input.name === null || input.plan === null) throw badInput('name and plan cannot be cleared.');
    if (input.name) input.name = requireText(input.name, 'name', 120);
    const { tenantId } = this.scope;
    return mutate(this.scope, { entity: 'Tenant', id: tenantId, key: tenantKey(tenantId) }, expectedVersion, (current) => ({
      item: applyPatch(current, input),
      event: { action: 'tenant.updated', entityType: 'Tenant', entityId: tenantId, data: { fields: Object.keys(input) } },
    }));
  }
}
