import type { Logger } from 'pino';
import { logger as rootLogger } from '../logger';

/** What a failed call to a dependency looked like, as a bounded label (see dependency.ts `classify`). */
export type FailureKind = string;

interface DependencyState {
  /** Epoch ms of the first failure of the current outage. */
  since: number;
  /** Failures since the last summary, by kind. */
  window: Map<FailureKind, number>;
  total: number;
  /** A call succeeded since the last summary. */
  succeeded: boolean;
  /** A connection to it is up again, and no call failed since (see `connected`). */
  reconnected?: boolean;
}

/**
 * Logs dependency outages as a rate-limited summary instead of a line per failed call: one `warn`
 * line when a dependency starts failing, then at most one line per interval with the count of
 * failures (by kind) while it keeps failing, and one `info` line when an interval passes without
 * failures after it answered again. Only dependency names, counts and failure kinds are logged:
 * never a request's input, an endpoint or an error message.
 */
export class OutageLog {
  private readonly down = new Map<string, DependencyState>();
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly intervalMs: number,
    private readonly log: Pick<Logger, 'warn' | 'info'> = rootLogger,
    private readonly now: () => number = Date.now,
  ) {}

  failure(dependency: string, kind: FailureKind): void {
    let state = this.down.get(dependency);
    if (!state) {
      state = { since: this.now(), window: new Map(), total: 0, succeeded: false };
      this.down.set(dependency, state);
      this.log.warn(
        { dependency, kind, summaryEveryMs: this.intervalMs },
        `${dependency} is failing (${kind}); further failures are summarized`,
      );
      this.timer ??= setInterval(() => this.summarize(), this.intervalMs).unref();
    }
    state.window.set(kind, (state.window.get(kind) ?? 0) + 1);
    state.total++;
    state.reconnected = false;
  }

  success(dependency: string): void {
    const state = this.down.get(dependency);
    if (state) state.succeeded = true;
  }

  /**
   * A dependency reached over a lasting connection (Redis) has it again. Unlike `success`, which a
   * call makes and each summary forgets, this holds until the next failure: such a dependency
   * makes no further call to report, and "answers again" must still follow one quiet interval.
   */
  connected(dependency: string): void {
    const state = this.down.get(dependency);
    if (state) state.reconnected = true;
  }

  /** Dependencies failing now. */
  failing(): string[] {
    return [...this.down.keys()];
  }

  /** One line per failing dependency; called every interval. */
  summarize(): void {
    for (const [dependency, state] of this.down) {
      const failures = [...state.window.values()].reduce((a, b) => a + b, 0);
      const outageSeconds = Math.round((this.now() - state.since) / 1000);
      if (failures > 0) {
        this.log.warn(
          {
            dependency,
            failures,
            byKind: Object.fromEntries(state.window),
            intervalMs: this.intervalMs,
            outageSeconds,
            totalFailures: state.total,
          },
          `${dependency}: ${failures} failed call${failures === 1 ? '' : 's'} in the last ${Math.round(this.intervalMs / 1000)} s`,
        );
      } else if (state.succeeded || state.reconnected) {
        this.log.info({ dependency, outageSeconds, totalFailures: state.total }, `${dependency} answers again`);
        this.down.delete(dependency);
        continue;
      }
      state.window.clear();
      state.succeeded = false;
    }
    if (this.down.size === 0) this.stop();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }
}
