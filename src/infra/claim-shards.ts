import type { Item } from './dynamo/write';
import { keySchemas } from './dynamo/table';
import type { QuerySpec } from './store-api';

/*
 * claimWork's reads of a tenant's claimable index, which is written in shards by job
 * (CLAIMABLE_SHARDS, src/common/entities.ts; docs/scaling.md, "Claimable shards"). A read of
 * every shard merged finds the oldest candidates exactly but costs a Query a shard, and a claim is
 * the hot read. So a claim reads the one shard that holds the oldest candidate this process knows
 * of, and merges every shard only when it knows of none (or that shard handed nothing out).
 *
 * What a process knows (a ShardView, per tenant and query) is what its last merged read found, up
 * to that read's horizon: below it the read saw every entry of every shard, and an entry that
 * appears later is keyed by a later time (when it was written, or when its lease or backoff ends),
 * so it sorts above the horizon. Each read of one shard replaces what is known of that shard, and
 * the step a caller tries first leaves the view at once. A claim takes from a shard only candidates
 * up to the horizon. The first caller a read serves (a
 * lone worker's every claim) takes none newer than the oldest known in the other shards, so it gets
 * the oldest work first as from one partition; the n-th caller of that read aims at the n-th oldest
 * known work and reads its shard, so workers asking at once spread over the oldest work in turn.
 * A view is trusted for VIEW_MS at most: instances' clocks differ, and work that appears in a shard
 * known to be empty is found by the next merged read. A query of no shards (a claim of a fan-out
 * stage, whose entries all stay in shard 0) is one partition, read as such: no view, no merge.
 */

/** How long a view of the shards, from one merged read, is trusted. */
const VIEW_MS = 5000;
/** Views kept at most (one per tenant and claim query in use); the oldest goes first. */
const MAX_VIEWS = 10_000;

interface ShardView {
  /** performance.now() at the merged read. */
  at: number;
  /** Sort keys up to this one were all seen by the merged read. */
  horizon: string;
  /** The known candidates' sort keys (at most the horizon) of each shard, oldest first. */
  known: Map<string, string[]>;
}

/**
 * The views of each store (one table: a test process may serve several), by the merged query (its
 * partition names the tenant).
 */
const viewsOf = new WeakMap<object, Map<string, ShardView>>();
/** How many views of the shards `store` keeps now (at most MAX_VIEWS): what its claims hold between calls. */
export const claimViewsOf = (store: object): number => viewsOf.get(store)?.size ?? 0;

/** The answers already taken into a view: the callers a shared read serves after the first add nothing. */
const learned = new WeakSet<readonly Item[]>();

/**
 * The reads of one claimWork call over the shards of `spec` (a claimable index's query, with its
 * shards): next() is the query to read, candidates() what the caller may try of its answer, and
 * moveOn() whether another read follows one that handed out nothing. The last read of a claim that
 * finds nothing is always the merged one, so an empty answer still means nothing was claimable.
 */
export class ClaimShards {
  private readonly key: string;
  private readonly tried = new Set<string>();
  private current: QuerySpec;
  private readonly pk: string;
  private readonly sk: string;
  /** This caller's turn at its first read: 0 for the first (or only) caller, n for the n-th asking at once. */
  private turn: number | undefined;
  /** The shard of the known work this caller aims at, when not the one it read first. */
  private target: string | undefined;

  /**
   * `single`: whether a candidate is work that one claim takes (a step), not an entry that many
   * claims share (a fan-out stage's): the first such candidate a caller tries is taken out of the
   * view, as it will be out of the index (a lost race only costs the next claim a read of its shard).
   */
  private readonly views: Map<string, ShardView>;

  constructor(
    store: object,
    private readonly spec: QuerySpec,
    private readonly single: (candidate: Item) => boolean,
  ) {
    let views = viewsOf.get(store);
    if (!views) viewsOf.set(store, (views = new Map()));
    this.views = views;
    this.key = JSON.stringify(spec);
    const schema = keySchemas[spec.index ?? 'TABLE'];
    this.pk = schema.pk;
    this.sk = schema.sk;
    this.current = this.choose();
  }

  /** The query to read now: the shard of the oldest known candidate that this claim has not read, else every shard merged. */
  next(): QuerySpec {
    return this.current;
  }

  /** Whether the query read is the merged one. */
  private get merged(): boolean {
    return this.current.shards !== undefined;
  }

  /**
   * Takes in the answer `items` to the read of next(), asked at `asked` (the read's bound or before
   * it), and gives what a caller with turn `turn` of that read may try (see the header), in order.
   */
  candidates(items: readonly Item[], want: number, asked: string, turn: number): readonly Item[] {
    // One partition (a claim of a fan-out stage): its answer is every candidate there is.
    if (!this.spec.shards?.length) return items;
    const first = this.turn === undefined;
    this.turn ??= turn;
    if (this.merged) {
      if (!learned.has(items)) this.learn(items, want, asked);
      learned.add(items);
      return this.taking(items, turn);
    }
    const view = this.view();
    // Expired since the shard was chosen: the merged read decides.
    if (!view) return [];
    const shard = this.current.pk;
    if (!learned.has(items))
      view.known.set(
        shard,
        items.map((item) => String(item[this.sk])).filter((key) => key <= view.horizon),
      );
    learned.add(items);
    const known = [...view.known]
      .filter(([pk]) => pk === shard || !this.tried.has(pk))
      .flatMap(([pk, keys]) => keys.map((key) => ({ pk, key })))
      .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    // Past the horizon the other shards are unknown: what sorts there may be older than what this one holds.
    let bound = view.horizon;
    if (this.turn === 0) {
      // The first caller (a lone worker's every claim): nothing newer than the oldest known elsewhere.
      const elsewhere = known.find((candidate) => candidate.pk !== shard);
      if (elsewhere && elsewhere.key < bound) bound = elsewhere.key;
    } else if (first && known.length > 0) {
      // The n-th caller of one read aims at the n-th oldest known work: in this shard, or in the one it reads next.
      const target = known[this.turn % known.length];
      if (target.pk !== shard) {
        this.target = target.pk;
        return [];
      }
    }
    return this.taking(
      items.filter((item) => String(item[this.sk]) <= bound),
      turn,
    );
  }

  /** `candidates`, the one a caller with turn `turn` tries first (claimWork starts there) taken out of the view. */
  private taking(candidates: readonly Item[], turn: number): readonly Item[] {
    const first = candidates.length > 0 ? candidates[turn % candidates.length] : undefined;
    const keys = first && this.single(first) ? this.view()?.known.get(String(first[this.pk])) : undefined;
    const at = keys?.indexOf(String(first?.[this.sk])) ?? -1;
    if (keys && at >= 0) keys.splice(at, 1);
    return candidates;
  }

  /** After a read that handed nothing out: whether another read follows (false after the merged one). */
  moveOn(): boolean {
    if (!this.spec.shards?.length) return false;
    if (this.merged) return false;
    this.tried.add(this.current.pk);
    this.current = this.choose();
    return true;
  }

  private view(): ShardView | undefined {
    const view = this.views.get(this.key);
    if (view && performance.now() - view.at <= VIEW_MS) return view;
    if (view) this.views.delete(this.key);
    return undefined;
  }

  private choose(): QuerySpec {
    const view = this.view();
    const { shards: _all, ...one } = this.spec;
    if (this.target && view && !this.tried.has(this.target)) return { ...one, pk: this.target };
    let oldest: { pk: string; key: string } | undefined;
    for (const [pk, keys] of view?.known ?? [])
      if (keys.length > 0 && !this.tried.has(pk) && (!oldest || keys[0] < oldest.key)) oldest = { pk, key: keys[0] };
    if (!oldest) return this.spec;
    return { ...one, pk: oldest.pk };
  }

  /** A merged read's answer as the view of the shards: every shard's candidates up to its horizon. */
  private learn(items: readonly Item[], want: number, asked: string): void {
    const keys = items.map((item) => String(item[this.sk]));
    // A full answer saw every entry up to its last; a short one, every entry before it was asked.
    const horizon = items.length >= want && keys.length > 0 ? keys[keys.length - 1] : asked;
    const known = new Map<string, string[]>([this.spec.pk, ...(this.spec.shards ?? [])].map((pk) => [pk, []]));
    items.forEach((item, i) => known.get(String(item[this.pk]))?.push(keys[i]));
    const { views } = this;
    views.delete(this.key);
    const first = views.keys().next();
    if (views.size >= MAX_VIEWS && !first.done) views.delete(first.value);
    views.set(this.key, { at: performance.now(), horizon, known });
  }
}
