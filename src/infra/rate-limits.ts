import type { Cluster, Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, RLWrapperTimeouts, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { classify } from './dependency';
import type { OutageLog } from './outage';
import { commandClient, endConnection, openSockets } from './redis-target';

/** One budget a request draws on: `points` a second under `key`, of which the request takes `cost`. */
export interface Draw {
  /** Which budget (a bounded name: `tenant`, `user`, `cost`, `worker`), for the refusal and the metrics. */
  budget: string;
  /** Whose budget it is (a tenant's, a user's): the counter's key. */
  key: string;
  /** What the budget allows a second. */
  points: number;
  /** What this request takes from it (1 a request, or the operation's cost). */
  cost: number;
}

/** A refused draw: the budget that ran out and how long until its window starts again. */
export interface Refusal {
  budget: string;
  points: number;
  retryAfterMs: number;
}

/** Draws of one budget's owner made in one turn of the event loop, taken by one call (see RateBudgets.take). */
interface Turn {
  /** The first of them: the budget, its size and its owner, which they all share. */
  draw: Draw;
  waiting: Array<{ cost: number; resolve: (refusal: Refusal | null) => void; reject: (error: unknown) => void }>;
}

/** The length of a budget's window: budgets are per second. */
const WINDOW_SECONDS = 1;

/**
 * A lease is at most this fraction of a budget (see Lease): a budget below LEASE_DIVISOR points a
 * second is never leased, and every draw on it is counted in Redis as it comes.
 */
const LEASE_DIVISOR = 128;

/** The answer of a draw within its budget, shared by the draws a lease answers at once. */
const WITHIN: Promise<Refusal | null> = Promise.resolve(null);

/** Leases kept before the expired ones are looked for and dropped. */
const LEASES_SWEPT_PAST = 1_000;

/**
 * Points of one budget's owner that this instance took from the shared count ahead of its draws,
 * in the window that count was in, and hands to its next draws itself (see RateBudgets.takeTurn).
 */
interface Lease {
  /** Points taken and not handed out yet. */
  left: number;
  /** When (epoch ms) the window they were taken in ends at the latest: they are not used after it. */
  until: number;
  /** How many points the call that took them took ahead: the next lease in the window takes twice as many. */
  size: number;
}

/**
 * How long a call to Redis may keep a draw waiting before this instance's own count answers it.
 * Redis answers the script in well under a millisecond; a frozen Redis (a stopped process, a
 * stalled network, its connection still open) answers nothing and raises no error, and without a
 * bound every request waited for it as long as it stayed frozen.
 */
export const DRAW_TIMEOUT_MS = 250;

/**
 * After a call timed out, how long draws take this instance's own count without asking Redis: one
 * call a pause waits for a frozen Redis, not one a turn of the event loop, and the calls left
 * waiting on its connection (answered when it thaws, or failed when the connection is dropped)
 * stay few.
 */
export const PAUSE_AFTER_TIMEOUT_MS = 1_000;

/** The error RLWrapperTimeouts rejects a call with once DRAW_TIMEOUT_MS passed (rate-limiter-flexible 11). */
const TIMED_OUT = 'Operation timed out';

/** One budget at one size: its count in Redis (bounded by DRAW_TIMEOUT_MS), if any, and this instance's own. */
interface Budget {
  shared?: RateLimiterAbstract;
  local: RateLimiterMemory;
}

/**
 * The tenants' rate budgets, held by rate-limiter-flexible: fixed one-second windows counted in
 * Redis when REDIS_URL is set (one INCRBY-with-expiry script per call, atomic, so every instance
 * draws on the same count), in this process otherwise. The draws of one budget's owner made in one
 * turn of the event loop, or while its previous call is under way, are one call, of their summed
 * cost (takeTurn): a burst of subscribes
 * after a deploy, each of which draws on its tenant's and its user's budgets, costs a few calls a
 * turn instead of three each, and admits exactly what calls one at a time would have. When Redis
 * does not answer, each instance falls back to a count of its own (see run): Redis down, or a call
 * not answered within DRAW_TIMEOUT_MS (a frozen Redis, after which Redis is left alone for
 * PAUSE_AFTER_TIMEOUT_MS), so an outage of Redis loosens the budgets to one per instance instead
 * of refusing or stalling every request; the connection's failures and the calls' timeouts reach
 * the outage log like the event bus's (kinds `unreachable`, `timeout`). On
 * a Redis Cluster (`redis+cluster://…`) the same: each call is one script on one key (the
 * budget's and its owner's, `artissist:rate:<budget>:<key>`), and a reward the same script with a
 * negative count, so every call of one budget's owner goes to the one slot of its key, which the
 * cluster client finds.
 */
export class RateBudgets {
  private readonly limiters = new Map<string, Budget>();
  private readonly redis?: Redis | Cluster;
  private readonly outage?: OutageLog;
  /** Until when (epoch ms) draws take this instance's own count without asking Redis (see PAUSE_AFTER_TIMEOUT_MS). */
  private pausedUntil = 0;
  /** The draws not yet sent, by budget, size and owner: this turn's, and those waiting for their owner's call under way. */
  private readonly turns = new Map<string, Turn>();
  /** The budgets and owners (as keys of `turns`) with a call under way. */
  private readonly inFlight = new Set<string>();
  /** The leases of budgets and owners (as keys of `turns`) with points left (see Lease). */
  private readonly leases = new Map<string, Lease>();
  /** Whether the call that takes `turns` is scheduled. */
  private takeScheduled = false;
  /** The draws not yet answered: gathered in this turn, or in a call under way. */
  private unanswered = 0;

  constructor(options: { redisUrl?: string; outage?: OutageLog }) {
    if (options.redisUrl) {
      // No command waits for a connection: a draw that cannot be sent fails at once and takes this
      // instance's count (the library's advice for Redis clients it uses).
      // Auto-pipelining: the scripts of one turn (every owner's, every budget's) go to Redis in one
      // write and come back in one read, not a write and a read each (see takeTurns).
      this.redis = commandClient(options.redisUrl, { maxRetriesPerRequest: 0, enableOfflineQueue: false, enableAutoPipelining: true });
      const { outage } = options;
      this.outage = outage;
      this.redis.on('error', (error) => outage?.failure('redis', classify(error)));
      this.redis.on('ready', () => outage?.connected('redis'));
    }
  }

  /** The limiters of one budget at one size (made once per budget and size, and kept). */
  private limiterOf(budget: string, points: number): Budget {
    const id = `${budget}:${points}`;
    let limiter = this.limiters.get(id);
    if (!limiter) {
      const keyPrefix = `artissist:rate:${budget}`;
      const local = new RateLimiterMemory({ keyPrefix, points, duration: WINDOW_SECONDS });
      // No insurance limiter inside: run falls back to `local` itself, so that it sees a timeout
      // (to report it and pause) and a call that fails after its timeout is not counted twice.
      const shared = this.redis
        ? new RLWrapperTimeouts({
            limiter: new RateLimiterRedis({
              storeClient: this.redis,
              keyPrefix,
              points,
              duration: WINDOW_SECONDS,
              // No in-memory block of a key past its budget: the block would end by this instance's
              // clock and event loop, so under load each window would last longer than a second and
              // admit less than the budget. A refused request costs one Redis call (its first draw).
            }),
            timeoutMs: DRAW_TIMEOUT_MS,
          })
        : undefined;
      limiter = { shared, local };
      this.limiters.set(id, limiter);
    }
    return limiter;
  }

  /**
   * Runs `op` (a consume or a reward) on the budget's count in Redis, or on this instance's own
   * count: without Redis, while draws are paused after a timeout, and when the call to Redis
   * fails (Redis down: the client's `error` events report it) or is not answered within
   * DRAW_TIMEOUT_MS (reported here, as a `timeout` of `redis`, and draws pause). Settles as the
   * library's call does: a refusal rejects with its RateLimiterRes.
   */
  private async run(d: Draw, op: (limiter: RateLimiterAbstract) => Promise<RateLimiterRes>): Promise<RateLimiterRes> {
    const { shared, local } = this.limiterOf(d.budget, d.points);
    if (!shared || Date.now() < this.pausedUntil) return op(local);
    try {
      return await op(shared);
    } catch (error) {
      if (error instanceof RateLimiterRes) throw error;
      if (error instanceof Error && error.message === TIMED_OUT) {
        this.pausedUntil = Date.now() + PAUSE_AFTER_TIMEOUT_MS;
        this.outage?.failure('redis', 'timeout');
      }
      return op(local);
    }
  }

  /**
   * Takes the draws: the first alone (the broadest budget, which a flood exhausts first, so a
   * refused request of a flood costs one call), then, if it passed, the others at once. Resolves with the
   * refused draw whose window opens last, or null when all were within their budgets. A refused
   * request is counted only by the budgets that refused it: what the others took for it is given
   * back (the library's `reward`). Otherwise a tenant's budget would be spent on requests its
   * users' budgets refuse, and the windows of the two, which start at different times, would admit
   * less and less of a steady flood. Throws only what the library throws besides a refusal on
   * this instance's own count (a fault of this code): a failed or unanswered call to Redis is answered by that count.
   */
  async draw(draws: readonly Draw[]): Promise<Refusal | null> {
    const [first, ...rest] = draws.filter((d) => d.cost > 0);
    if (!first) return null;
    const refused = await this.take(first);
    if (refused) return refused;
    const results = await Promise.all(rest.map((d) => this.take(d)));
    let refusal: Refusal | null = null;
    for (const r of results) if (r && (!refusal || r.retryAfterMs > refusal.retryAfterMs)) refusal = r;
    if (refusal) {
      const given = [first, ...rest.filter((_, i) => !results[i])];
      await Promise.all(given.map((d) => this.run(d, (limiter) => limiter.reward(d.key, d.cost))));
    }
    return refusal;
  }

  /**
   * Takes one draw: null when within its budget, its refusal otherwise. The draw joins the others
   * of the same budget and owner made in this turn of the event loop (see Turn), which are taken
   * together by one call; or, while a call of that budget and owner is under way, the others made
   * until it is answered, which are taken together by the next (a group commit: under a burst the
   * calls get fewer and larger, and a draw waits at most for one call before its own).
   */
  private take(d: Draw): Promise<Refusal | null> {
    const id = `${d.budget}:${d.points}\n${d.key}`;
    // Within a lease, with no earlier draw of its owner waiting (which would come first), a draw is
    // answered at once: no turn, no promise of its own.
    const lease = this.leases.get(id);
    if (lease && d.cost <= lease.left && !this.turns.has(id) && lease.until > Date.now()) {
      lease.left -= d.cost;
      return WITHIN;
    }
    this.unanswered++;
    const answered = () => this.unanswered--;
    return new Promise<Refusal | null>((resolve, reject) => {
      let turn = this.turns.get(id);
      if (!turn) {
        turn = { draw: d, waiting: [] };
        this.turns.set(id, turn);
      }
      turn.waiting.push({ cost: d.cost, resolve, reject });
      if (!this.takeScheduled) {
        this.takeScheduled = true;
        setImmediate(() => this.takeTurns());
      }
    }).finally(answered);
  }

  /**
   * Takes the draws gathered: one call per budget and owner, but for those whose owner's call is
   * still under way, which wait for it. A burst of 19,000 subscribes on one instance, each drawing
   * on its tenant's budget and then its user's and its cost budget, drew in a call per turn and
   * budget, a few subscribes each: about one call a subscribe, 10 % of the server's CPU while they
   * subscribed (bench/fanout-scale.ts).
   */
  private takeTurns(): void {
    this.takeScheduled = false;
    for (const [id, turn] of this.turns) {
      if (this.inFlight.has(id)) continue;
      this.turns.delete(id);
      this.inFlight.add(id);
      void this.takeTurn(id, turn).then(() => this.landed(id));
    }
  }

  /** The call of the budget and owner `id` was answered: the draws that waited for it are taken in the next turn. */
  private landed(id: string): void {
    this.inFlight.delete(id);
    if (this.turns.has(id) && !this.takeScheduled) {
      this.takeScheduled = true;
      setImmediate(() => this.takeTurns());
    }
  }

  /**
   * Takes one owner's draws of one turn as one consume of their summed cost, then hands each its
   * answer as if each had been consumed alone, in the order they were drawn: the count before the
   * call is the count after it less the sum, and a draw is within the budget when that count plus
   * its own cost and those before it is. One consume of their sum is one atomic INCRBY in Redis, so
   * the outcome is exactly that of the draws consumed one after another with no other instance's
   * draw between them: the budget holds across instances as before, with no error, and a refused draw
   * counts in the window as one consumed alone does (the library counts it too). Never rejects; a
   * throw of the library other than a refusal rejects every draw of the turn.
   *
   * A burst leases (see Lease): a budget of LEASE_DIVISOR points or more takes, with its draws, as
   * many points again ahead, up to a LEASE_DIVISOR-th of the budget, and hands them to its next
   * draws in the same window without a call; each lease that runs out within its window is followed
   * by one twice its size. A burst of 19,000 subscribes on one instance then takes a few calls a
   * window rather than one a turn, each a write that wakes Redis (bench/fanout-scale.ts). The
   * points leased are counted in Redis when taken, so no instance admits past the budget; what a
   * lease has left when its window ends was counted without being used, so a budget whose draws
   * reach it admits up to a LEASE_DIVISOR-th less per instance in that window, and a budget below
   * LEASE_DIVISOR is never leased (its draws are counted exactly as they come, as in
   * test/e2e/tenant-rates.test.ts). A lease's window ends when Redis says it does, counted from
   * when the call was sent: no later than the window in Redis.
   */
  private async takeTurn(id: string, { draw, waiting }: Turn): Promise<void> {
    const sentAt = Date.now();
    let lease = this.leases.get(id);
    if (lease && lease.until <= sentAt) lease = undefined;
    let from = 0;
    if (lease) {
      // The leased points go to the draws in the order drawn, as far as they reach.
      while (from < waiting.length && waiting[from].cost <= lease.left) {
        lease.left -= waiting[from].cost;
        waiting[from++].resolve(null);
      }
      if (from === waiting.length) return;
    }
    const rest = from === 0 ? waiting : waiting.slice(from);
    const total = rest.reduce((sum, w) => sum + w.cost, 0);
    // What the lease has left, fewer points than the next draw's cost, goes to that draw: it is
    // counted already, so the call takes that many fewer (and total is more than it).
    const carried = lease?.left ?? 0;
    const most = Math.floor(draw.points / LEASE_DIVISOR);
    const ahead = Math.min(most, lease ? Math.max(total, 2 * lease.size) : total);
    this.leases.delete(id);
    let res: RateLimiterRes;
    try {
      res = await this.run(draw, (limiter) => limiter.consume(draw.key, total - carried + ahead));
    } catch (error) {
      if (!(error instanceof RateLimiterRes)) {
        for (const w of rest) w.reject(error);
        return;
      }
      res = error;
    }
    // The count before this call's points less the carried ones (counted before it): each draw's
    // count is then the count once its own points are in.
    let count = res.consumedPoints - ahead - total;
    for (const w of rest) {
      count += w.cost;
      w.resolve(count <= draw.points ? null : { budget: draw.budget, points: draw.points, retryAfterMs: res.msBeforeNext });
    }
    // What was taken ahead within the budget is leased; past it (a refused draw, or the budget's end), nothing.
    const left = Math.min(ahead, draw.points - count);
    if (left > 0 && res.msBeforeNext > 0) this.lease(id, { left, until: sentAt + res.msBeforeNext, size: ahead });
  }

  /** Keeps `lease` for `id`, dropping the leases whose windows have ended once there are many. */
  private lease(id: string, lease: Lease): void {
    if (this.leases.size >= LEASES_SWEPT_PAST) {
      const now = Date.now();
      for (const [other, { until }] of this.leases) if (until <= now) this.leases.delete(other);
    }
    this.leases.set(id, lease);
  }

  /**
   * What the budgets hold now: the draws not yet answered, and the sockets of their Redis
   * connection. Tests read it to see both at zero once the budgets are closed.
   */
  held(): { draws: number; sockets: number } {
    return { draws: this.unanswered, sockets: this.redis ? openSockets(this.redis) : 0 };
  }

  /** Closes the Redis connection, if any, within endConnection's bound; the draws waiting on it are answered. */
  async close(): Promise<void> {
    if (this.redis) await endConnection(this.redis);
  }
}
