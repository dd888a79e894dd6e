import { randomInt } from 'node:crypto';
import { PLAN_DEFAULTS, PLAN_LIMIT_NAMES, type PlanLimits, type PlanName } from '../config';
import { quotaExceeded } from '../errors';
import {
  type AnyModel,
  type Attribute,
  attr,
  pickAttributes,
  QUOTA_COUNTED_ATTRIBUTE,
  type ShapeDeclaration,
  type ShapeValues,
} from '../infra/dynamo/entity';
import type { Item } from '../infra/dynamo/store';
import type { Key } from '../infra/dynamo/table';
import { check, update, type UnitWrite, Write } from '../infra/dynamo/write';
import type { BoundTenant } from './bound-tenant';
import { entities, type EntityItem } from './entities';
import { orList } from './model-types';

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
 * What frees usage goes elsewhere: a release is ADDed (negative) to one of the tenant's
 * USAGE_RELEASE_SHARDS release shards (TenantUsageRelease), each process's in turn, so a busy tenant's
 * finishing jobs do not all write the one counter's partition (docs/scaling.md, "The usage
 * counter"). The usage is the counter plus the shards. A write that grows usage is limited on the
 * counter alone, given the shards as its commit read them beside the tenant's item: shards only
 * ever fall, so what the commit read frees at most what was freed by then, and the limit holds
 * with any writers on any instances, with no fold of the shards into the counter to race on.
 */

/** How many release shards a tenant's usage has (TenantUsageRelease): 8,000 releases a second at DynamoDB's 1,000 writes a partition. */
export const USAGE_RELEASE_SHARDS = 8;

/**
 * The release shard this process's next release goes to. They are taken in turn, from a random
 * first one (so processes do not all start at shard 0), because a process's releases then spread
 * evenly: chosen at random, 32 releases put 8 or more on one of the 8 shards in 30 % of runs,
 * twice the even share (test/e2e/partitions.test.ts holds the spread).
 */
let nextRelease = randomInt(USAGE_RELEASE_SHARDS);

/** The keys of tenant `tenantId`'s release shards, in shard order. */
export const releaseKeys = (tenantId: string): Key[] =>
  Array.from({ length: USAGE_RELEASE_SHARDS }, (_, shard) => entities.TenantUsageRelease.keyOf(tenantId, { shard: String(shard) }));

/**
 * What the release shards `shards` (as read; null for one never written) have freed of each quota:
 * the sum of their counters, zero or less.
 */
export function releasedOf(shards: readonly (Item | null)[]): Record<string, number> {
  const released: Record<string, number> = {};
  for (const quota of QUOTAS)
    released[quota] = shards.reduce((sum, shard) => {
      // Kept by ADD alone, so the shards carry no entity type: read as they are.
      const value = shard?.[quota];
      return sum + (typeof value === 'number' ? value : 0);
    }, 0);
  return released;
}

/** What a quota write of a unit asks for, found again at commit to put the plan's limit in. */
interface Charge {
  quota: string;
  amount: number;
  /** The write without its limit: an ADD to the counter, or a check of it. */
  unlimited: Write;
}

/**
 * The quota writes of a unit, to their charges. A quota write is a valid write on its own (an ADD
 * without a limit, a check that always holds), so a unit committed without the tenant's item
 * (offline tools) still keeps the counters exact; withQuotaLimits puts the limit in at commit.
 */
const charges = new WeakMap<Write, Charge>();

/** The key of a tenant's usage counters, for an operator's read of any tenant's (the writes below take the caller's bound tenant). */
export const usageKey = (tenantId: string) => entities.TenantUsage.keyOf(tenantId, {});

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
  if (delta > 0) {
    const add = update(key).addNumber(quota.name, delta);
    if (growth > 0) charges.set(add, { quota: quota.name, amount: growth, unlimited: add });
    return [add];
  }
  if (delta < 0) {
    // A release is never limited, so it goes to a shard of its own (see the top of this file).
    const shard = tenant.of(entities.TenantUsageRelease).keyOf({ shard: String(nextRelease) });
    nextRelease = (nextRelease + 1) % USAGE_RELEASE_SHARDS;
    return [update(shard).addNumber(quota.name, delta)];
  }
  const raise = pending(after) - pending(before);
  if (raise <= 0) return [];
  const probe = check(key).atMost(quota.name, Number.MAX_SAFE_INTEGER);
  charges.set(probe, { quota: quota.name, amount: raise, unlimited: probe });
  return [probe];
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
 * it and what the release shards freed (`released`, see releasedOf) stay within its limit, else the
 * transaction fails with QUOTA_EXCEEDED naming the quota (`onRefused` is told which, for the
 * metrics). A write asking for more than the whole limit is given a condition that cannot hold (a
 * counter that does not exist yet would pass `at most a negative number`).
 */
export function withQuotaLimits(
  writes: readonly UnitWrite[],
  limits: PlanLimits,
  released: Readonly<Record<string, number>>,
  onRefused?: (quota: string) => void,
): UnitWrite[] {
  return writes.map((w) => {
    const charge = w instanceof Write ? charges.get(w) : undefined;
    if (!charge) return w;
    const limit = limitOf(limits, charge.quota);
    if (limit === undefined) return w;
    const refuse = () => {
      onRefused?.(charge.quota);
      return quotaExceeded(charge.quota, limit, charge.amount);
    };
    return charge.amount > limit
      ? charge.unlimited.where({ [charge.quota]: -1 }, refuse)
      : charge.unlimited.ifAtMost(charge.quota, limit - charge.amount - (released[charge.quota] ?? 0), refuse);
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
  (name): name is keyof typeof entities.TenantUsage.attributes => name in entities.TenantUsage.attributes,
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
 * and is on the free plan), its usage counters' item (none: nothing counted yet) and its release
 * shards (`shards`, see releaseKeys), against its plan in `plans` (the configured table) with its overrides.
 */
export function tenantUsage(
  tenantId: string,
  tenant: Parameters<typeof limitsOf>[1],
  counters: Readonly<Record<string, unknown>> | null | undefined,
  shards: readonly (Item | null)[],
  plans?: Record<PlanName, PlanLimits>,
): TenantUsageView {
  const limits = limitsOf(plans, tenant);
  const released = releasedOf(shards);
  return {
    tenantId,
    plan: planOf(tenant),
    limits,
    quotas: QUOTAS.map((quota) => {
      // The counters are kept by ADD alone (quotaWrites), so their item carries no entity type: read as it is.
      const used = counters?.[quota];
      return { quota, used: (typeof used === 'number' ? used : 0) + (released[quota] ?? 0), limit: limits[quota] };
    }),
  };
}
