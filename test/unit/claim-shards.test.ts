import { ClaimShards, claimViewsOf } from '../../src/infra/claim-shards';
import type { QuerySpec } from '../../src/infra/store-api';

/**
 * claimWork's reads of the claimable index's shards (src/infra/claim-shards.ts), without a
 * database: which query a claim reads, and which of its answer it may try.
 */
describe("a claim's reads of the claimable index's shards", () => {
  const specOf = (tenant: string): QuerySpec => {
    const pk = `TENANT#${tenant}#WORK#CLAIMABLE`;
    return { index: 'GSI4', pk, shards: Array.from({ length: 7 }, (_, k) => `${pk}#${k + 1}`), descending: false };
  };
  const shardOf = (spec: QuerySpec, k: number) => (k === 0 ? spec.pk : `${spec.pk}#${k}`);
  /** A claimable entry of shard `k`, claimable from second `second`. */
  const entry = (spec: QuerySpec, k: number, second: number, job: string) => ({
    PK: `TENANT#t#JOB#${job}`,
    SK: 'STEP#01#render#01',
    GSI4PK: shardOf(spec, k),
    GSI4SK: `2026-01-01T00:00:${String(second).padStart(2, '0')}.000Z#${job}#render`,
    jobId: job,
  });
  const asked = '2026-01-01T00:00:59.000Z$';
  const jobsOf = (items: readonly Record<string, unknown>[]) => items.map((item) => item.jobId);

  /** Steps: one claim takes each. Fan-out stages' entries: many claims share one, so it stays known. */
  const steps = () => true;
  const stages = () => false;
  /** The store the views are kept for: the claims of these cases share it, as one process's claims on one table do. */
  const store = {};

  it('reads a query of no shards (a claim of a fan-out stage, all in shard 0) as one partition: every candidate, nothing read after', () => {
    const { shards: _shards, ...whole } = specOf('fan-out');
    const claim = new ClaimShards(store, whole, stages);
    expect(claim.next()).toEqual(whole);
    const answer = [entry(whole, 0, 1, 'j1'), entry(whole, 0, 2, 'j2')];
    // Whatever turn the caller has, it may try all of them (its own turn picks where it starts).
    expect(jobsOf(claim.candidates(answer, 20, asked, 3))).toEqual(['j1', 'j2']);
    expect(claim.moveOn()).toBe(false);
    // And with nothing there, the claim ends: no merged read of shards it does not have.
    const empty = new ClaimShards(store, whole, stages);
    expect(empty.candidates([], 20, asked, 0)).toEqual([]);
    expect(empty.moveOn()).toBe(false);
  });

  it("keeps its views per store: another table's claims (a second server in the process) do not read them", () => {
    const spec = specOf('stores');
    const { shards: _all, ...one } = spec;
    new ClaimShards(store, spec, steps).candidates([entry(spec, 3, 1, 'j1'), entry(spec, 5, 2, 'j2')], 20, asked, 0);
    // This store knows where the work is; another knows nothing yet, so it reads every shard merged.
    expect(new ClaimShards(store, spec, steps).next()).toEqual({ ...one, pk: shardOf(spec, 5) });
    expect(new ClaimShards({}, spec, steps).next()).toEqual(spec);
  });

  it('reads every shard merged while it knows of no work, and all of that answer is tried', () => {
    const spec = specOf('merged');
    const claim = new ClaimShards(store, spec, steps);
    expect(claim.next()).toEqual(spec);
    const answer = [entry(spec, 3, 1, 'j1'), entry(spec, 5, 2, 'j2')];
    expect(jobsOf(claim.candidates(answer, 20, asked, 0))).toEqual(['j1', 'j2']);
    // Nothing read after the merged read: an empty claim has read every shard after it asked.
    expect(claim.moveOn()).toBe(false);
  });

  it('then reads the shard of the oldest work it knows of alone, the work its last claim took left out', () => {
    const spec = specOf('lone');
    const { shards: _all, ...one } = spec;
    new ClaimShards(store, spec, steps).candidates(
      [entry(spec, 3, 1, 'j1'), entry(spec, 5, 2, 'j2'), entry(spec, 3, 3, 'j3')],
      20,
      asked,
      0,
    );
    // j1 was tried first, so taken: the next claim reads j2's shard.
    const second = new ClaimShards(store, spec, steps);
    expect(second.next()).toEqual({ ...one, pk: shardOf(spec, 5) });
    expect(jobsOf(second.candidates([entry(spec, 5, 2, 'j2')], 20, asked, 0))).toEqual(['j2']);
    expect(new ClaimShards(store, spec, steps).next()).toEqual({ ...one, pk: shardOf(spec, 3) });
  });

  it('takes from one shard nothing newer than the oldest work known elsewhere, and reads on', () => {
    const spec = specOf('bound');
    new ClaimShards(store, spec, stages).candidates(
      [entry(spec, 3, 1, 'j1'), entry(spec, 5, 2, 'j2'), entry(spec, 3, 4, 'j4')],
      20,
      asked,
      0,
    );
    // j1 went to another instance's worker: shard 3 holds j4 now, but j2 (shard 5) is older.
    const claim = new ClaimShards(store, spec, steps);
    expect(claim.next().pk).toBe(shardOf(spec, 3));
    expect(claim.candidates([entry(spec, 3, 4, 'j4')], 20, asked, 0)).toEqual([]);
    expect(claim.moveOn()).toBe(true);
    expect(claim.next().pk).toBe(shardOf(spec, 5));
    expect(jobsOf(claim.candidates([entry(spec, 5, 2, 'j2')], 20, asked, 0))).toEqual(['j2']);
  });

  it('sends the n-th caller one read serves to the n-th oldest known work, so workers asking at once spread', () => {
    const spec = specOf('turns');
    const known = [entry(spec, 3, 1, 'j1'), entry(spec, 5, 2, 'j2'), entry(spec, 3, 3, 'j3'), entry(spec, 6, 4, 'j4')];
    new ClaimShards(store, spec, stages).candidates(known, 20, asked, 0);
    const answer = [entry(spec, 3, 1, 'j1'), entry(spec, 3, 3, 'j3')];
    const callers = [0, 1, 2].map((turn) => {
      const claim = new ClaimShards(store, spec, stages);
      expect(claim.next().pk).toBe(shardOf(spec, 3));
      return { claim, tried: jobsOf(claim.candidates(answer, 20, asked, turn)) };
    });
    // The first takes the oldest; the second aims at j2, in shard 5, and reads that next; the third at j3, here.
    expect(callers.map((caller) => caller.tried)).toEqual([['j1'], [], ['j1', 'j3']]);
    expect(callers[1].claim.moveOn()).toBe(true);
    expect(callers[1].claim.next().pk).toBe(shardOf(spec, 5));
  });

  it('never hands out from one shard what sorts past the merged read: other shards may hold older work it did not see', () => {
    const spec = specOf('horizon');
    // A full answer (2 asked for): it saw every entry up to its last (second 2), no further.
    new ClaimShards(store, spec, stages).candidates([entry(spec, 1, 1, 'j1'), entry(spec, 2, 2, 'j2')], 2, asked, 0);
    const claim = new ClaimShards(store, spec, steps);
    expect(claim.next().pk).toBe(shardOf(spec, 1));
    expect(claim.candidates([entry(spec, 1, 1, 'j1'), entry(spec, 1, 9, 'j9')], 20, asked, 0)).toHaveLength(1);
    expect(claim.moveOn()).toBe(true);
    expect(claim.next().pk).toBe(shardOf(spec, 2));
    // Shard 2's entry is gone (taken elsewhere): nothing known is left, so the shards are merged.
    expect(claim.candidates([], 20, asked, 0)).toEqual([]);
    expect(claim.moveOn()).toBe(true);
    expect(claim.next()).toEqual(spec);
    expect(jobsOf(claim.candidates([entry(spec, 1, 9, 'j9')], 20, asked, 0))).toEqual(['j9']);
    expect(claim.moveOn()).toBe(false);
  });

  it('keeps at most 10,000 views a store, one per tenant and query, the oldest dropped first', () => {
    const own = {};
    // One merged read each by 10,050 tenants, of a fan-out stage's entry (which stays known): each leaves the view of its shards.
    for (let n = 0; n < 10_050; n++) {
      const spec = specOf(`many-${n}`);
      new ClaimShards(own, spec, stages).candidates([entry(spec, 1, 1, `j${n}`)], 20, asked, 0);
    }
    expect(claimViewsOf(own)).toBe(10_000);
    // The first tenants' views went first: a claim of the first knows of no work and reads every shard merged.
    expect(new ClaimShards(own, specOf('many-0'), steps).next()).toEqual(specOf('many-0'));
    expect(new ClaimShards(own, specOf('many-10049'), steps).next().pk).toBe(shardOf(specOf('many-10049'), 1));
    // Another store's claims hold none of them.
    expect(claimViewsOf({})).toBe(0);
  });
});
