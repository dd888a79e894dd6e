import { PLAN_DEFAULTS, PLAN_LIMIT_NAMES, type PlanLimits, type PlanName } from '../config';
import { quotaExceeded } from '../errors';
import { Prepare } from '../infra/dynamo/committer';
import {
  type AnyModel,
  type Attribute,
  attr,
  type IndexShards,
  pickAttributes,
  QUOTA_COUNTED_ATTRIBUTE,
  shardOf,
  type ShapeDeclaration,
  type ShapeValues,
} from '../infra/dynamo/entity';
import type { Key } from '../infra/dynamo/table';
import { check, update, type UnitWrite, Write } from '../infra/dynamo/write';
import type { BoundTenant } from './bound-tenant';
import { entities, type EntityItem } from './entities';
import { orList } from './model-types';
import { dealRoom, dealtOf, roomOf } from './quota-deals';

/*
 * The quotas of a tenant's plan, checked in the transaction of the write that would pass them.
 * An entity declares how its items count (QuotaDeclaration in src/infra/dynamo/entity.ts); the
 * writer (mutate.ts) adds `quotaWrites` for the difference a create, change or delete makes: an
 * ADD to the tenant's usage counter (TenantUsage), or for an upload requested a check that what is
 * left covers it. The limit is the plan's, read with the tenant's item at commit (the item the
 * unit of work already reads with the stream heads, see CommitHooks.context), and `withQuotaLimits`
 * puts it into the writes' conditions. So 50 concurrent creates at the limit let exactly the
 * allowed number through, and a refused write commits nothing.
 *
 * Sharded counters. A quota whose declaration says `shards` (the running jobs, USAGE_SHARDS) is
 * counted in that many counters, an item's in the shard its id picks, so its changes spread over
 * as many partitions: one counter item took every job creation and completion of a tenant, 1 write
 * unit a status change, 1,000 changes a second at DynamoDB's limit a key. The sum of the shards
 * is the usage. The plan's limit L cannot be checked on one shard, and reading all of them on
 * every create would cost 16 reads a create and still race, so the limit is dealt out as room:
 *  - each shard holds its count c_k, its room r_k, and the limit d_k its room was dealt under;
 *  - a charge of a on shard h takes room: ADD c_h a, ADD r_h −a, on condition r_h ≥ a and d_h = L;
 *    a release gives it back (ADD c_h −a, ADD r_h a, no condition), so c_k + r_k changes only in a deal;
 *  - when the condition fails (no room left there, no deal yet, or the plan's limit changed) the
 *    committer runs a deal (Prepare) and sends the unit again: the deal reads the 16 shards strongly
 *    consistently, refuses with QUOTA_EXCEEDED when Σ c_k + a > L, and otherwise sets every shard's
 *    room to its share of L − Σ c_k (the charging shard gets its a first) and d_k = L, in one
 *    transaction conditioned on each c_k being at most what was read.
 * Why the limit holds: a deal's transaction leaves Σ (c_k + r_k) ≤ L (every count at most as read,
 * the rooms summing to L minus the counts read); a charge or a release keeps each c_k + r_k, and a
 * charge leaves r_k ≥ 0, so Σ c_k ≤ L until the next deal, which re-establishes it. A charge needs
 * d_k = L, and a deal writes the same L to every shard at once, so no charge takes room dealt
 * under another limit (a plan lowered: the first charge after it deals again, and a tenant over
 * its new limit is refused, as with one counter). A concurrent charge between a deal's read and its
 * transaction raises a count past what was read and fails the deal, which reads again; a release
 * meanwhile only makes its shard's count lower than read (a slot left unused until the next deal).
 * What it costs: a create pays one conditioned ADD on its shard, as before on the one counter;
 * a deal (the first charge of a tenant, or a shard out of room, which far from the limit happens
 * about every L ÷ 16 creates of a shard) one BatchGetItem of 16 keys and one 16-item transaction.
 * Near the limit every charge may deal, as the one counter's condition then refused. A refusal is
 * decided on the 16 reads (each strongly consistent, not one snapshot): a create that races both a
 * completion and another create may be refused where one counter would have let it through (the
 * limit itself is never passed).
 */

/** What a quota write of a unit asks for, found again at commit to put the plan's limit in. */
interface Charge {
  quota: string;
  amount: number;
  /** The write without its limit: an ADD to the counter, or a check of it. */
  unlimited: Write;
  /** For a sharded quota: its counters' keys (shard 0 first) and the shard charged. */
  sharded?: { keys: readonly Key[]; shard: number };
}

/**
 * The quota writes of a unit, to their charges. A quota write is a valid write on its own (an ADD
 * without a limit, a check that always holds), so a unit committed without the tenant's item
 * (offline tools) still keeps the counters exact; withQuotaLimits puts the limit in at commit.
 */
const charges = new WeakMap<Write, Charge>();

/** The key of a tenant's usage counters, for an operator's read of any tenant's (the writes below take the caller's bound tenant). */
export const usageKey = (tenantId: string) => entities.TenantUsage.keyOf(tenantId, {});

/** The keys of every usage counter of a tenant: the one item, and shards 1 and up of the sharded quotas (TenantUsageShard). */
export const usageKeys = (tenantId: string): Key[] => usageShardKeys(tenantId, entities.Job.quota?.shards?.count ?? 1);

/** Shard k of a sharded quota's counter: shard 0 is the usage item of before (its counts needing no migration), k the TenantUsageShard. */
function usageShardKeys(tenantId: string, count: number): Key[] {
  return Array.from({ length: count }, (_, shard) =>
    shard === 0 ? usageKey(tenantId) : entities.TenantUsageShard.keyOf(tenantId, { shard }),
  );
}

/**
 * The writes that keep the tenant's usage of `model`'s quota exact when an item goes from
 * `before` to `after` (null: it does not exist): an ADD of the difference (its increase is limited
 * at commit), or, when only what the item is about to use grows, a check that the quota has room
 * for it. None when the model declares no quota or nothing changes. The items are `model`'s,
 * whichever it is: its declaration's `counts` reads them.
 */
export function quotaWrites(tenant: BoundTenant, model: AnyModel, before: Counted | null, after: Counted | null): Write[] {
  const quota = model.quota;
  if (!quota) return [];
  const counted = (item: Counted | null) => (item ? quota.counts(item) : 0);
  const pending = (item: Counted | null) => (item && quota.pending ? quota.pending(item) : 0);
  // The counter moves by the difference from what `before` had counted (recordedOf), so it stays
  // the sum of what the items say they counted. Only the item's own growth is held to the limit:
  // an item written before quotas were kept is counted in when it is next written (or by the
  // recount migration), and an edit of it is never refused for usage it already had.
  const delta = counted(after) - recordedOf(before);
  const growth = counted(after) - counted(before);
  const key = tenant.of(entities.TenantUsage).keyOf({});
  if (quota.shards) {
    if (delta === 0) return [];
    // The item's shard counts it, and its room moves the other way, so count + room stays as dealt.
    const shard = shardOfItem(quota.shards, after ?? before);
    const keys = usageShardKeys(tenant.id, quota.shards.count);
    const add = update(keys[shard]).addNumber(quota.name, delta).addNumber(roomOf(quota.name), -delta);
    if (growth > 0) charges.set(add, { quota: quota.name, amount: growth, unlimited: add, sharded: { keys, shard } });
    return [add];
  }
  if (delta !== 0) {
    const add = update(key).addNumber(quota.name, delta);
    if (growth > 0) charges.set(add, { quota: quota.name, amount: growth, unlimited: add });
    return [add];
  }
  const raise = pending(after) - pending(before);
  if (raise <= 0) return [];
  const probe = check(key).atMost(quota.name, Number.MAX_SAFE_INTEGER);
  charges.set(probe, { quota: quota.name, amount: raise, unlimited: probe });
  return [probe];
}

/** The shard of a sharded quota that `item` counts in (by its attribute `shards.by`). */
function shardOfItem(shards: IndexShards, item: Counted | null): number {
  const value = item?.[shards.by];
  if (typeof value !== 'string') throw new Error(`A sharded quota's item needs its ${shards.by} to pick its shard.`);
  return shardOf(value, shards.count);
}

/** An item of a model chosen at run time, as its quota's `counts` reads it. */
type Counted = Readonly<Record<string, unknown>>;

/** What a stored item has counted against its quota: 0 for none yet (see QUOTA_COUNTED_ATTRIBUTE). */
export function recordedOf(item: Counted | null): number {
  const recorded = item?.[QUOTA_COUNTED_ATTRIBUTE];
  return typeof recorded === 'number' ? recorded : 0;
}

/** True when a unit holds a quota write (so its commit reads the tenant's plan). */
export function hasQuotaWrites(writes: readonly UnitWrite[]): boolean {
  return writes.some((w) => w instanceof Write && charges.has(w));
}

/**
 * The unit's writes with each quota write conditioned on `limits`: the counter may grow only while
 * it stays within its limit, else the transaction fails with QUOTA_EXCEEDED naming the quota
 * (`onRefused` is told which, for the metrics). A
 * write asking for more than the whole limit is given a condition that cannot hold (a counter
 * that does not exist yet would pass `at most a negative number`).
 */
export function withQuotaLimits(writes: readonly UnitWrite[], limits: PlanLimits, onRefused?: (quota: string) => void): UnitWrite[] {
  return writes.map((w) => {
    const charge = w instanceof Write ? charges.get(w) : undefined;
    if (!charge) return w;
    const limit = limitOf(limits, charge.quota);
    if (limit === undefined) return w;
    const refuse = () => {
      onRefused?.(charge.quota);
      return quotaExceeded(charge.quota, limit, charge.amount);
    };
    const { sharded } = charge;
    if (sharded) {
      // Takes room dealt under this limit; without (no room left on the shard, no deal yet, or
      // another limit), the committer deals the room again and sends the unit once more.
      const deal = new Prepare((store) =>
        dealRoom(store, { quota: charge.quota, keys: sharded.keys, limit }, { shard: sharded.shard, amount: charge.amount, refuse }),
      );
      return charge.unlimited
        .ifAtLeast(roomOf(charge.quota), charge.amount, () => deal)
        .where({ [dealtOf(charge.quota)]: limit }, () => deal);
    }
    return charge.amount > limit
      ? charge.unlimited.where({ [charge.quota]: -1 }, refuse)
      : charge.unlimited.ifAtMost(charge.quota, limit - charge.amount, refuse);
  });
}

function limitOf(limits: PlanLimits, quota: string): number | undefined {
  const name = PLAN_LIMIT_NAMES.find((n) => n === quota);
  return name ? limits[name] : undefined;
}

/** The plan a tenant's item names (free without an item, as a tenant is created). */
export function planOf(tenant: TenantItem | null | undefined): PlanName {
  return tenant?.plan ?? 'free';
}

type TenantItem = EntityItem<'Tenant'>;

/**
 * The limits that hold for a tenant: its plan's (from `plans`, the configured table) with an
 * operator's overrides for this tenant on top.
 */
export function limitsOf(plans: Record<PlanName, PlanLimits> | undefined, tenant: TenantItem | null | undefined): PlanLimits {
  const table = plans ?? PLAN_DEFAULTS;
  const limits = { ...table[planOf(tenant)] };
  const overrides = tenant?.limits;
  for (const name of PLAN_LIMIT_NAMES) {
    const value = overrides?.[name];
    if (typeof value === 'number') limits[name] = value;
  }
  return limits;
}

/**
 * A plan's limits as the API shows them (PlanLimits) and as an operator overrides them for one tenant
 * (PlanLimitsInput): a field for each limit the configuration holds (config.ts, which cannot import
 * the declarations), so a limit added there and not here is a type error.
 */
export const PLAN_LIMITS = {
  name: 'PlanLimits',
  description: "What a tenant's plan allows, with an operator's overrides for the tenant applied.",
  inputDescription: "Overrides of a plan's limits for one tenant; an omitted or null limit is the plan's.",
  fields: {
    requestsPerSecond: attr.int({
      required: true,
      description: 'Operations a second of the whole tenant (not its workers’).',
      createDescription: 'Operations a second of the whole tenant.',
    }),
    userRequestsPerSecond: attr.int({ required: true, description: 'Operations a second of one user.' }),
    costPerSecond: attr.int({
      required: true,
      description: 'Query cost a second of the whole tenant.',
      createDescription: 'Query cost a second.',
    }),
    workerRequestsPerSecond: attr.int({ required: true, description: 'Workers’ claims and reports a second.' }),
    projects: attr.int({
      required: true,
      description: 'Projects the tenant may work on (archived ones do not count).',
      createDescription: 'Projects.',
    }),
    storedBytes: attr.float({
      required: true,
      description: 'Bytes of confirmed files the tenant may store.',
      createDescription: 'Bytes of stored files.',
    }),
    runningJobs: attr.int({
      required: true,
      description: 'Jobs not yet finished (queued, running or paused) the tenant may hold.',
      createDescription: 'Jobs not yet finished.',
    }),
    itemsPerJob: attr.int({
      required: true,
      description: 'Work items one job may hold over all its fan-out stages.',
      createDescription: 'Work items per job.',
    }),
  },
} as const satisfies ShapeDeclaration<Record<keyof PlanLimits, Attribute>>;

/** The quotas a tenant's usage counters hold (entities.TenantUsage's attributes), each limited by the plan's limit of its name. */
export const QUOTAS = Object.keys(entities.TenantUsage.attributes).filter(
  (name): name is Extract<keyof typeof entities.TenantUsage.attributes, keyof PlanLimits> =>
    PLAN_LIMIT_NAMES.some((limit) => limit === name),
) satisfies (keyof PlanLimits)[];

/** How much of one quota a tenant uses: an entry of a tenant's usage (TENANT_USAGE), named as its counter is. */
const QUOTA_USAGE = {
  name: 'QuotaUsage',
  description: 'How much of one quota a tenant uses.',
  fields: {
    quota: attr.string({ required: true, description: `The quota: ${orList(QUOTAS)}.` }),
    used: attr.float({ required: true, description: 'What the tenant uses now, as its counter holds it exactly.' }),
    limit: attr.float({ required: true, description: 'What its plan allows.' }),
  },
} as const;

/** A tenant's plan, its limits and its usage of each quota, as an operator (or the tenant's own admin) reads them (tenantUsage, setPlan). */
export const TENANT_USAGE = {
  name: 'TenantUsage',
  description: "A tenant's plan, its limits, and its usage of each quota (its own tenant's admin, or an operator).",
  fields: {
    // The tenant's own attributes, as its declaration has them, in this view's words.
    ...pickAttributes(entities.Tenant.attributes, { tenantId: 'The tenant.', plan: 'The plan it is on.' }),
    limits: attr.objectOf(PLAN_LIMITS)({ required: true, description: 'What the plan allows it, with its own overrides.' }),
    quotas: attr.listOf(QUOTA_USAGE)({ required: true, description: 'Each quota: used against the limit.' }),
  },
} as const;
export type TenantUsageView = ShapeValues<typeof TENANT_USAGE>;

/**
 * Tenant `tenantId`'s usage (see TENANT_USAGE), from its item (null or undefined: it has none,
 * and is on the free plan) and its usage counters' items (usageKeys; null: nothing counted there yet), against its
 * plan in `plans` (the configured table) with its overrides.
 */
export function tenantUsage(
  tenantId: string,
  tenant: Parameters<typeof limitsOf>[1],
  counters: readonly (Readonly<Record<string, unknown>> | null | undefined)[],
  plans?: Record<PlanName, PlanLimits>,
): TenantUsageView {
  const limits = limitsOf(plans, tenant);
  return {
    tenantId,
    plan: planOf(tenant),
    limits,
    quotas: QUOTAS.map((quota) => {
      // The counters are kept by ADD alone (quotaWrites), so their items carry no entity type: read
      // as they are. A sharded quota's usage is the sum of its shards (usageKeys).
      let used = 0;
      for (const counter of counters) {
        const value = counter?.[quota];
        if (typeof value === 'number') used += value;
      }
      return { quota, used, limit: limits[quota] };
    }),
  };
}
