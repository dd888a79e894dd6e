import { Router } from 'express';
import { classify } from '../infra/dependency';

/** One readiness check: resolves when the dependency answers, rejects otherwise; should honour `signal`. */
export type ReadinessCheck = (signal: AbortSignal) => Promise<void>;

export interface CheckState {
  status: 'ok' | 'down';
  latencyMs: number;
  /** Why it is down, as a bounded word (timeout, unreachable, …); never an endpoint or a message. */
  error?: string;
}

export interface ReadinessReport {
  status: 'ok' | 'unavailable';
  checks: Record<string, CheckState | { status: 'ok' | 'draining' | 'starting' }>;
  /** When the dependency checks ran (they are reused for `cacheMs`). */
  checkedAt: string;
}

export interface ReadinessOptions {
  /** The most each check may take; slower counts as down (`timeout`). */
  timeoutMs: number;
  /** How long a result is reused. Concurrent probes always share the check in flight. */
  cacheMs: number;
  /** True once the server is shutting down: readiness is 503 from then on, without checking. */
  isDraining: () => boolean;
  /** True while the server is still starting (waiting for its table): readiness is 503 meanwhile, without checking. */
  isStarting?: () => boolean;
  /**
   * The clock `cacheMs` is measured on, in ms since the epoch; `Date.now` when omitted. A test
   * moves it to let a cached result expire without waiting for the wall clock.
   */
  now?: () => number;
}

const DRAINING_TEXT = 'draining';

/**
 * Readiness: whether this instance should get traffic. The dependency checks run at most once per
 * `cacheMs`, however many probes arrive, and all probes arriving while one runs share it; each
 * check is bounded by `timeoutMs`. So readiness turns 503 within about timeoutMs + cacheMs of a
 * dependency going away, and 200 within about cacheMs of it answering again.
 */
export class Readiness {
  private last?: { at: number; report: ReadinessReport };
  private running?: Promise<ReadinessReport>;

  constructor(
    private readonly checks: Record<string, ReadinessCheck>,
    private readonly options: ReadinessOptions,
  ) {}

  async report(): Promise<ReadinessReport> {
    if (this.options.isDraining()) {
      return { status: 'unavailable', checks: { shutdown: { status: DRAINING_TEXT } }, checkedAt: new Date().toISOString() };
    }
    if (this.options.isStarting?.()) {
      return { status: 'unavailable', checks: { startup: { status: 'starting' } }, checkedAt: new Date().toISOString() };
    }
    if (this.last && this.now() - this.last.at < this.options.cacheMs) return this.last.report;
    this.running ??= this.run().finally(() => (this.running = undefined));
    return this.running;
  }

  private now(): number {
    return this.options.now?.() ?? Date.now();
  }

  private async run(): Promise<ReadinessReport> {
    const entries = await Promise.all(Object.entries(this.checks).map(async ([name, check]) => [name, await this.runOne(check)] as const));
    const checks: ReadinessReport['checks'] = Object.fromEntries(entries);
    checks.shutdown = { status: 'ok' };
    const report: ReadinessReport = {
      status: entries.every(([, state]) => state.status === 'ok') ? 'ok' : 'unavailable',
      checks,
      checkedAt: new Date().toISOString(),
    };
    this.last = { at: this.now(), report };
    return report;
  }

  private async runOne(check: ReadinessCheck): Promise<CheckState> {
    const started = performance.now();
    const controller = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    // The check gets the signal; the race also covers a check that ignores it.
    const timedOut = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => {
        controller.abort();
        resolve('timeout');
      }, this.options.timeoutMs);
    });
    try {
      const outcome = await Promise.race([check(controller.signal).then(() => 'ok' as const), timedOut]);
      const latencyMs = Math.round(performance.now() - started);
      return outcome === 'ok' ? { status: 'ok', latencyMs } : { status: 'down', latencyMs, error: 'timeout' };
    } catch (error) {
      const latencyMs = Math.round(performance.now() - started);
      const kind = classify(error);
      return { status: 'down', latencyMs, error: controller.signal.aborted || kind === 'deadline' ? 'timeout' : kind };
    } finally {
      clearTimeout(timer);
    }
  }
}

/**
 * `/healthz`: liveness, 200 `{"status":"ok"}` whenever the process serves HTTP. `/readyz`:
 * readiness, 200 or 503 with the report (see Readiness). Neither needs a token, and neither is
 * cached by intermediaries.
 */
export function healthRouter(readiness: Readiness): Router {
  const router = Router();
  router.get('/healthz', (_req, res) => {
    res.set('cache-control', 'no-store').json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res) => {
    const report = await readiness.report();
    res
      .status(report.status === 'ok' ? 200 : 503)
      .set('cache-control', 'no-store')
      .json(report);
  });
  return router;
}
