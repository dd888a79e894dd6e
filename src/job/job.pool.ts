import { entities } from '../common/entities';
import type { Store } from '../infra/dynamo/store';
import { jobOwnerOf } from './job.keys';

/*
 * Shared worker pools: one pool of workers (a GPU farm) serves every tenant's work of its job
 * kinds and stages, found through the pool index (JobWork.pool: by kind and stage, grouped by
 * tenant, then by priority and age), never by a scan. Claims go over the tenants with work by
 * deficit round robin: each tenant, in turn, earns its weight in claims (PoolShare.weight, 1 by
 * default), so each tenant's share of claims is its weight's share, whatever its backlog. A
 * tenant at its running limit (PoolShare.maxRunning, held exactly by the claims' transactions,
 * see PoolLoad) is passed over until it has room. The scheduler's state is per process: a pool
 * served by several instances is fair per instance, and so fair overall.
 */

/** How long a view of one pool's index is used before it is read again (a claim that finds nothing reads it at once). */
const VIEW_MS = 250;
/** How long a tenant's share (weight, limit) is used before it is read again. */
const SHARE_MS = 5_000;
/** Entries one view reads (jobs with claimable work across tenants). */
const VIEW_ENTRIES = 2_000;

export type PoolEntry = { tenantId: string; jobId: string; stage: string; kind: string };

/**
 * What a claim of a single step answers when the pools' index listed it before its lease's end
 * (job.writes.ts offeredFrom): the step is work again from `until`, and the scheduler leaves the
 * job out of its view until then, so it is tried once, not on every read of the index.
 */
export class HeldUntil {
  constructor(readonly until: string) {}
}

/** The scheduler's state for one pool (a kind and stage). */
interface PoolState {
  /** Jobs whose step a claim found held under a lease listed early, with its end (HeldUntil). */
  held: Map<string, string>;
  /** Tenants with work, each with its jobs in the order to try, as last read. */
  view: Map<string, PoolEntry[]>;
  readAt: number;
  reading?: Promise<void>;
  /** The tenants in turn order, whose turn it is, and the claims each may still take in its turn. */
  ring: string[];
  turn: number;
  deficit: Map<string, number>;
  /** For each tenant at its running limit, how many of its other jobs were tried (see probeAtLimit). */
  probes: Map<string, number>;
}

/** A claim of one tenant's job: null when it had nothing to claim, 'AT_LIMIT' when the tenant is at its running limit. */
export type TenantClaim<T> = (entry: PoolEntry) => Promise<T | null | 'AT_LIMIT' | HeldUntil>;

/** Hands out claims of pooled work over tenants (see the top of this file); one per store (poolSchedulerOf). */
export class PoolScheduler {
  private readonly pools = new Map<string, PoolState>();
  private readonly shares = new Map<string, { weight: number; readAt: number }>();

  /** `now` is the requests' clock (Scope.now), on which the index's times were written; a view's age is on the process's own timer. */
  constructor(
    private readonly store: Store,
    private readonly now: () => Date,
  ) {}

  private poolOf(kind: string, stage: string): PoolState {
    const id = `${kind}\u0000${stage}`;
    let pool = this.pools.get(id);
    if (!pool) {
      pool = { view: new Map(), readAt: 0, ring: [], turn: 0, deficit: new Map(), held: new Map(), probes: new Map() };
      this.pools.set(id, pool);
    }
    return pool;
  }

  private tenantsWithWork(): Set<string> {
    return new Set([...this.pools.values()].flatMap((p) => [...p.view.keys()]));
  }

  /** Reads the pool's index again: the tenants with work and their jobs in order. */
  private refresh(pool: PoolState, kind: string, stage: string): Promise<void> {
    pool.reading ??= (async () => {
      // The whole partition: its sort keys begin with each tenant's id, which is what is read here.
      const { skPrefix: _none, ...partition } = entities.JobWork.query('', 'pool', { kind, name: stage });
      const rows = await this.store.queryFirst(partition, VIEW_ENTRIES);
      const view = new Map<string, PoolEntry[]>();
      const now = this.now().toISOString();
      for (const [jobId, until] of pool.held) if (until <= now) pool.held.delete(jobId);
      for (const row of rows) {
        const tenantId = jobOwnerOf(row)?.tenantId;
        // Left out: work not yet available, or a step found held under a lease listed early (HeldUntil).
        if (!tenantId || !entities.JobWork.is(row) || (row.availableAt ?? '') > now || pool.held.has(row.jobId)) continue;
        const list = view.get(tenantId) ?? [];
        list.push({ tenantId, jobId: row.jobId, stage: row.name, kind: row.kind });
        view.set(tenantId, list);
      }
      pool.view = view;
      pool.readAt = Date.now();
      // Tenants keep their place in the ring; new ones join at its end, gone ones leave it.
      pool.ring = [...pool.ring.filter((t) => view.has(t)), ...[...view.keys()].filter((t) => !pool.ring.includes(t))];
      for (const byTenant of [pool.deficit, pool.probes]) for (const t of byTenant.keys()) if (!view.has(t)) byTenant.delete(t);
      if (pool.turn >= pool.ring.length) pool.turn = 0;
      // Shares are kept only for tenants some pool has work of, so the cache does not grow with
      // every tenant that ever had work.
      const withWork = this.tenantsWithWork();
      for (const t of this.shares.keys()) if (!withWork.has(t)) this.shares.delete(t);
      await this.readShares([...view.keys()]);
    })().finally(() => (pool.reading = undefined));
    return pool.reading;
  }

  /** Reads the shares of the tenants in `tenants` whose cached share is older than SHARE_MS, in one call. */
  private async readShares(tenants: readonly string[]): Promise<void> {
    const stale = tenants.filter((t) => Date.now() - (this.shares.get(t)?.readAt ?? 0) >= SHARE_MS);
    if (stale.length === 0) return;
    const items = await this.store.batchGet(stale.map((t) => entities.PoolShare.keyOf(t, {})));
    stale.forEach((t, i) =>
      this.shares.set(t, { weight: Math.max(1, entities.PoolShare.found(items[i])?.weight ?? 1), readAt: Date.now() }),
    );
  }

  /**
   * Whose claim the next one is, taken from its credit at once: synchronous, so claims running
   * concurrently each see the turn and the credit the one before left (no claim spends a credit twice).
   */
  private pick(pool: PoolState): string {
    if (pool.turn >= pool.ring.length) pool.turn = 0;
    const tenantId = pool.ring[pool.turn];
    let credit = pool.deficit.get(tenantId) ?? 0;
    // Its turn begins: it earns its weight in claims.
    if (credit < 1) credit += this.shares.get(tenantId)?.weight ?? 1;
    pool.deficit.set(tenantId, credit - 1);
    if (credit - 1 < 1) pool.turn++;
    return tenantId;
  }

  /** What it holds now, for tests: tenants in the pools' views, and tenants whose share is cached. */
  held(): { tenantsWithWork: number; shares: number } {
    return { tenantsWithWork: this.tenantsWithWork().size, shares: this.shares.size };
  }

  /** Forgets a tenant's cached share, so its next claim reads the new one (after setPoolShare). */
  forgetShare(tenantId: string): void {
    this.shares.delete(tenantId);
  }

  /** The next claim of pool (kind, stage), by `claim`; null when no tenant has claimable work (after one fresh read of the index). */
  async next<T>(kind: string, stage: string, claim: TenantClaim<T>): Promise<(T & { tenantId: string }) | null> {
    const pool = this.poolOf(kind, stage);
    const reread = Date.now() - pool.readAt > VIEW_MS || pool.ring.length === 0;
    if (reread) await this.refresh(pool, kind, stage);
    const claimed = await this.fromView(pool, claim);
    if (claimed || reread) return claimed;
    // Nothing in a view read before this claim: the work may be new (another tenant's job created
    // since, while the tenants in view are at their limits), so the index is read once more.
    await this.refresh(pool, kind, stage);
    return this.fromView(pool, claim);
  }

  /** A claim from the pool's view as it stands (see next); null when no tenant in it has claimable work. */
  private async fromView<T>(pool: PoolState, claim: TenantClaim<T>): Promise<(T & { tenantId: string }) | null> {
    // Each pass over the ring gives every tenant its turn once; a few passes are enough for a claim.
    const atLimit = new Set<string>();
    for (let step = 0; step < 4 * Math.max(1, pool.ring.length) + 4; step++) {
      if (pool.ring.length === 0) return null;
      const tenantId = this.pick(pool);
      const claimed = await this.claimFor(pool, tenantId, claim);
      if (claimed === 'AT_LIMIT') {
        // At its running limit: the claim's credit is refunded and its turn passes; it keeps its
        // place, and its work is handed out again once its running items finish.
        pool.deficit.set(tenantId, Math.min((pool.deficit.get(tenantId) ?? 0) + 1, this.shares.get(tenantId)?.weight ?? 1));
        if (pool.ring[pool.turn] === tenantId) pool.turn++;
        // Once every tenant left in the ring was found at its limit by this claim, another pass
        // would read each of them again (a job, its pool load and its candidates: about 85 items)
        // and find the same: a claim with one capped tenant in view read 16 of them for nothing.
        atLimit.add(tenantId);
        if (pool.ring.every((t) => atLimit.has(t))) return null;
        continue;
      }
      if (claimed) return { ...claimed, tenantId };
      // The claim's credit is refunded; a tenant that still has jobs to try keeps its place.
      pool.deficit.set(tenantId, (pool.deficit.get(tenantId) ?? 0) + 1);
      if ((pool.view.get(tenantId)?.length ?? 0) > 0) continue;
      // Nothing claimable now: it leaves the ring until the index shows it again, and its credit goes
      // (deficit round robin resets the deficit of a tenant whose queue is empty).
      pool.deficit.delete(tenantId);
      pool.view.delete(tenantId);
      const at = pool.ring.indexOf(tenantId);
      if (at >= 0) {
        pool.ring.splice(at, 1);
        if (at < pool.turn) pool.turn--;
      }
    }
    return null;
  }

  /** Tries the tenant's jobs in order; one with nothing claimable now leaves the view (by identity: concurrent claims share the list). */
  private async claimFor<T>(pool: PoolState, tenantId: string, claim: TenantClaim<T>): Promise<T | null | 'AT_LIMIT'> {
    const jobs = pool.view.get(tenantId) ?? [];
    for (let entry = jobs[0]; entry; entry = jobs[0]) {
      const claimed = await claim(entry);
      if (claimed === 'AT_LIMIT') return this.probeAtLimit(pool, tenantId, jobs, claim);
      if (claimed instanceof HeldUntil) pool.held.set(entry.jobId, claimed.until);
      else if (claimed) return claimed;
      const at = jobs.indexOf(entry);
      if (at >= 0) jobs.splice(at, 1);
    }
    return null;
  }

  /**
   * A tenant at its running limit may hold attempts whose leases ran out, which only a claim of
   * their own job ends (see JobAggregate.claim): so at the limit one more of its jobs in view is
   * tried each turn, in rotation, and a capped tenant whose pool workers all died has its work
   * taken over, whichever job holds it, for one more claim a turn.
   */
  private async probeAtLimit<T>(pool: PoolState, tenantId: string, jobs: PoolEntry[], claim: TenantClaim<T>): Promise<T | 'AT_LIMIT'> {
    if (jobs.length < 2) return 'AT_LIMIT';
    const turn = pool.probes.get(tenantId) ?? 0;
    pool.probes.set(tenantId, turn + 1);
    const entry = jobs[1 + (turn % (jobs.length - 1))];
    const claimed = await claim(entry);
    if (claimed instanceof HeldUntil) pool.held.set(entry.jobId, claimed.until);
    else if (claimed && claimed !== 'AT_LIMIT') return claimed;
    return 'AT_LIMIT';
  }
}

const schedulers = new WeakMap<Store, PoolScheduler>();

/** The pool scheduler of `store` (one per process and table), on the requests' clock `now`. */
export function poolSchedulerOf(store: Store, now: () => Date): PoolScheduler {
  let scheduler = schedulers.get(store);
  if (!scheduler) schedulers.set(store, (scheduler = new PoolScheduler(store, now)));
  return scheduler;
}
