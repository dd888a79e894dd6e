import { type OperationDefinitionNode, type SelectionSetNode, Kind } from 'graphql';
import { getMetadataStorage } from 'type-graphql';
import { POOL_TENANT, Role, type Principal } from '../auth/principal';
import { entities } from '../common/entities';
import { limitsOf, planOf } from '../common/quota';
import type { Config, PlanLimits, PlanName } from '../config';
import { type AppError, rateLimited } from '../errors';
import type { Store } from '../infra/dynamo/store';
import type { Metrics } from '../infra/metrics';
import type { Draw, RateBudgets } from '../infra/rate-limits';

/** How long an instance uses a tenant's plan as read before it reads it again: a plan change holds everywhere within this. */
const PLAN_TTL_MS = 5_000;

/** The most tenants whose plan an instance keeps; past it the oldest read goes first. */
const PLAN_CACHE_SIZE = 10_000;

/** A tenant's plan as an instance last read it. */
interface KnownPlan {
  plan: PlanName;
  limits: PlanLimits;
  readAt: number;
}

/**
 * The root fields workers call (claims and reports): the fields whose `@Authorized` roles name the
 * worker or pool role. An operation made of these alone draws on the tenant's worker budget, so a
 * flood of the studio's own frontend traffic never stalls its pipeline, and the other way round.
 */
let workerFields: ReadonlySet<string> | undefined;
function isWorkerField(name: string): boolean {
  workerFields ??= new Set(
    getMetadataStorage()
      .authorizedFields.filter((f) => f.roles.some((role) => role === Role.WORKER || role === Role.POOL))
      .map((f) => f.fieldName),
  );
  return workerFields.has(name);
}

function rootFields(selections: SelectionSetNode): string[] {
  return selections.selections.flatMap((s) =>
    s.kind === Kind.FIELD ? [s.name.value] : s.kind === Kind.INLINE_FRAGMENT ? rootFields(s.selectionSet) : ['…'],
  );
}

/**
 * Whether each operation is a worker's, by its node: a cached document's operation is the same
 * node on every request, so its root fields are walked once, not on every request.
 */
const workerOperations = new WeakMap<OperationDefinitionNode, boolean>();

/** True when every root field of `operation` is a worker's (see isWorkerField). */
export function isWorkerOperation(operation: OperationDefinitionNode): boolean {
  let worker = workerOperations.get(operation);
  if (worker === undefined) {
    const fields = rootFields(operation.selectionSet).filter((f) => f !== '__typename');
    worker = fields.length > 0 && fields.every(isWorkerField);
    workerOperations.set(operation, worker);
  }
  return worker;
}

/**
 * The tenants' rate budgets in the operation pipeline: before an operation of a verified caller
 * runs, it draws on its tenant's plan: one from the tenant's and one from the user's request
 * budget and its cost from the tenant's cost budget, or, for a worker's claim or report, one from
 * the tenant's worker budget. A refused draw is RATE_LIMITED (HTTP 429 with Retry-After). The
 * counts are held by RateBudgets (Redis across instances, when configured). Operations of a
 * caller without a token are not drawn for (they are refused by their fields' authorization).
 */
export class TenantBudgets {
  /** Each tenant's plan as last read, and the read under way (shared by the requests that need it meanwhile). */
  private readonly plans = new Map<string, { known?: KnownPlan; reading?: Promise<KnownPlan> }>();

  constructor(private readonly deps: { config: Config; store: Store; budgets: RateBudgets; metrics?: Metrics }) {}

  /**
   * The refusal of `operation` by `principal`'s budgets, or null when it may run. A plan that
   * cannot be read does not fail the operation (see planOf); a throw is a fault of the budgets'
   * library or of this code.
   */
  async check(principal: Principal | null, operation: OperationDefinitionNode, cost: number): Promise<AppError | null> {
    if (!principal || !this.deps.config.tenantRateLimits) return null;
    const { tenantId, userId } = principal;
    const worker = isWorkerOperation(operation);
    // A pool worker belongs to no tenant: its draws are the pool's own (one worker budget).
    const known =
      tenantId === POOL_TENANT ? { plan: 'enterprise' as const, limits: this.deps.config.plans.enterprise } : await this.planOf(tenantId);
    const { limits } = known;
    const draws: Draw[] = worker
      ? [{ budget: 'worker', key: tenantId, points: limits.workerRequestsPerSecond, cost: 1 }]
      : [
          { budget: 'tenant', key: tenantId, points: limits.requestsPerSecond, cost: 1 },
          { budget: 'user', key: `${tenantId}:${userId}`, points: limits.userRequestsPerSecond, cost: 1 },
          { budget: 'cost', key: tenantId, points: limits.costPerSecond, cost: Math.ceil(cost) },
        ];
    const refusal = await this.deps.budgets.draw(draws);
    if (!refusal) return null;
    this.deps.metrics?.tenantThrottled.inc({ plan: known.plan, budget: refusal.budget });
    return rateLimited(refusal.budget, refusal.points, Math.max(1, Math.ceil(refusal.retryAfterMs / 1000)));
  }

  /**
   * The tenant's plan and limits, read at most every PLAN_TTL_MS by this instance, one read at a
   * time per tenant. A plan known but older than that is used while it is read again, so no request
   * waits on the read but a tenant's first. When the read fails (DynamoDB down; the store's outage
   * log counts and reports it), the budgets still hold: the plan last known stays in use, and a
   * tenant never read gets the free plan's limits for a second, then the read is tried again.
   */
  private async planOf(tenantId: string): Promise<KnownPlan> {
    let entry = this.plans.get(tenantId);
    if (!entry) {
      if (this.plans.size >= PLAN_CACHE_SIZE) this.plans.delete(this.plans.keys().next().value ?? '');
      entry = {};
      this.plans.set(tenantId, entry);
    }
    const { known } = entry;
    if (known && Date.now() - known.readAt < PLAN_TTL_MS) return known;
    const reading = entry.reading ?? this.read(tenantId, entry);
    return known ?? reading;
  }

  /** Reads the tenant's plan into `entry` (see planOf); never rejects. */
  private read(tenantId: string, entry: { known?: KnownPlan; reading?: Promise<KnownPlan> }): Promise<KnownPlan> {
    const reading = this.deps.store.get(entities.Tenant.keyOf(tenantId, {})).then(
      (read): KnownPlan => {
        const tenant = entities.Tenant.found(read);
        return { plan: planOf(tenant), limits: limitsOf(this.deps.config.plans, tenant), readAt: Date.now() };
      },
      (): KnownPlan =>
        entry.known ?? {
          plan: 'free',
          limits: this.deps.config.plans.free,
          // Tried again after a second rather than after PLAN_TTL_MS.
          readAt: Date.now() - PLAN_TTL_MS + 1_000,
        },
    );
    entry.reading = reading.then((plan) => {
      entry.known = plan;
      entry.reading = undefined;
      return plan;
    });
    return entry.reading;
  }
}
