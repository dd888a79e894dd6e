import type { Cluster, Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { classify } from './dependency';
import type { OutageLog } from './outage';
import { commandClient } from './redis-target';

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

/** The length of a budget's window: budgets are per second. */
const WINDOW_SECONDS = 1;

/**
 * The tenants' rate budgets, held by rate-limiter-flexible: fixed one-second windows counted in
 * Redis when REDIS_URL is set (one INCRBY-with-expiry script per draw, atomic, so every instance
 * draws on the same count), in this process otherwise. When Redis does not answer, each instance
 * falls back to a count of its own (the library's insurance limiter), so an outage of Redis
 * loosens the budgets to one per instance instead of refusing or stalling every request; the
 * connection's failures reach the outage log like the event bus's. On a Redis Cluster
 * (`redis+cluster://…`) the same: each draw is one script on one key (the budget's and its
 * owner's, `artissist:rate:<budget>:<key>`), and a reward the same script with a negative count, so
 * every call of one budget's owner goes to the one slot of its key, which the cluster client finds.
 */
export class RateBudgets {
  private readonly limiters = new Map<string, RateLimiterAbstract>();
  private readonly redis?: Redis | Cluster;

  constructor(options: { redisUrl?: string; outage?: OutageLog }) {
    if (options.redisUrl) {
      // No command waits for a connection: a draw that cannot be sent fails at once and takes the
      // insurance limiter (the library's advice for Redis clients it uses).
      this.redis = commandClient(options.redisUrl, { maxRetriesPerRequest: 0, enableOfflineQueue: false });
      const { outage } = options;
      this.redis.on('error', (error) => outage?.failure('redis', classify(error)));
      this.redis.on('ready', () => outage?.connected('redis'));
    }
  }

  /** The limiter of one budget at one size (limiters are made once per budget and size, and kept). */
  private limiterOf(budget: string, points: number): RateLimiterAbstract {
    const id = `${budget}:${points}`;
    let limiter = this.limiters.get(id);
    if (!limiter) {
      const keyPrefix = `artissist:rate:${budget}`;
      const memory = new RateLimiterMemory({ keyPrefix, points, duration: WINDOW_SECONDS });
      limiter = this.redis
        ? new RateLimiterRedis({
            storeClient: this.redis,
            keyPrefix,
            points,
            duration: WINDOW_SECONDS,
            insuranceLimiter: memory,
            // No in-memory block of a key past its budget: the block would end by this instance's
            // clock and event loop, so under load each window would last longer than a second and
            // admit less than the budget. A refused request costs one Redis call (its first draw).
          })
        : memory;
      this.limiters.set(id, limiter);
    }
    return limiter;
  }

  /**
   * Takes the draws: the first alone (the broadest budget, which a flood exhausts first, so a
   * refused request of a flood costs one call), then, if it passed, the others at once. Resolves with the
   * refused draw whose window opens last, or null when all were within their budgets. A refused
   * request is counted only by the budgets that refused it: what the others took for it is given
   * back (the library's `reward`). Otherwise a tenant's budget would be spent on requests its
   * users' budgets refuse, and the windows of the two, which start at different times, would admit
   * less and less of a steady flood. Throws only what the library throws besides a refusal (with
   * the insurance limiter in place, a fault of this code).
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
      await Promise.all(given.map((d) => this.limiterOf(d.budget, d.points).reward(d.key, d.cost)));
    }
    return refusal;
  }

  /** Takes one draw: null when within its budget, its refusal otherwise. */
  private async take(d: Draw): Promise<Refusal | null> {
    try {
      await this.limiterOf(d.budget, d.points).consume(d.key, d.cost);
      return null;
    } catch (error) {
      if (!(error instanceof RateLimiterRes)) throw error;
      return { budget: d.budget, points: d.points, retryAfterMs: error.msBeforeNext };
    }
  }

  /** Closes the Redis connection, if any. */
  async close(): Promise<void> {
    if (this.redis) await this.redis.quit().catch(() => this.redis?.disconnect());
  }
}
