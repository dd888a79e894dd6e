import { randomUUID } from 'node:crypto';
import { SYSTEM_TENANT } from '../auth/principal';
import { entities } from '../common/entities';
import type { ArchiveRunResult, ArchiveRuns } from '../common/feature';
import type { Store } from '../infra/dynamo/store';
import { isServiceUnavailable } from '../infra/dependency';
import { logger } from '../logger';
import type { Archiver } from './archive.service';

/*
 * The archive's schedule. Every instance's timer fires; the one whose conditional put of the
 * lease item (in the system partition) succeeds runs, the others find it held and skip. The
 * lease lasts longer than a run may, and ends by itself (its `expiresAt`) if its holder dies, so a
 * crashed run is taken up by the next tick of any instance. An operator's command (the admin
 * mutation runArchive) takes the same lease, so it never runs beside a scheduled run.
 *
 * This is a small runner of its own for one system job; the generic system-job runner
 * (src/job/system-jobs.ts, issue 34 part 1) is built apart and will take it over.
 */

const LEASE_NAME = 'archive';

export interface ArchiveScheduleOptions {
  /** How often each instance tries to take the lease and run; 0: no schedule (operator's command only). */
  intervalMs: number;
  /** How long a lease lasts: longer than any run. */
  leaseSeconds: number;
  /** The lease's clock; the wall clock when omitted. */
  now?: () => Date;
}

export class ArchiveSchedule implements ArchiveRuns {
  private timer?: NodeJS.Timeout;
  private running?: Promise<ArchiveRunResult | null>;
  /** This instance, as the lease names its holder. */
  readonly holder = `archiver-${randomUUID()}`;

  constructor(
    private readonly store: Store,
    private readonly archiver: Archiver,
    private readonly options: ArchiveScheduleOptions,
  ) {}

  private nowSeconds(): number {
    return Math.floor((this.options.now?.() ?? new Date()).getTime() / 1000);
  }

  /** Takes the lease; false when another holder has it and it has not run out. */
  private async acquire(): Promise<boolean> {
    const now = this.nowSeconds();
    try {
      await this.store.transact([
        entities.SystemLease.put(SYSTEM_TENANT, {
          name: LEASE_NAME,
          holder: this.holder,
          expiresAt: now + this.options.leaseSeconds,
        }).ifNewOrExpired(now, () => new Held()),
      ]);
      return true;
    } catch (error) {
      if (error instanceof Held) return false;
      throw error;
    }
  }

  /** Ends this holder's lease at once, with what the run did, so the next tick may run. */
  private async release(lastRun: ArchiveRunResult | null): Promise<void> {
    await this.store.transact([
      entities.SystemLease.put(SYSTEM_TENANT, {
        name: LEASE_NAME,
        holder: this.holder,
        expiresAt: this.nowSeconds(),
        lastRun: lastRun ?? undefined,
      }).where({ holder: this.holder }),
    ]);
  }

  /**
   * Runs the archive now if this instance takes the lease: its result, or null when another holds
   * it. One run at a time in this process: a call during a run shares it. A failure of the run as
   * a whole (the candidates could not be read) rejects, after the lease is released.
   */
  runNow(): Promise<ArchiveRunResult | null> {
    this.running ??= (async () => {
      if (!(await this.acquire())) return null;
      let result: ArchiveRunResult | null = null;
      try {
        result = await this.archiver.run();
        return result;
      } finally {
        await this.release(result);
      }
    })().finally(() => (this.running = undefined));
    return this.running;
  }

  start(): void {
    if (this.options.intervalMs <= 0) return;
    this.timer = setInterval(() => {
      this.runNow()
        .then((result) => {
          if (result && (result.jobs || result.projects || result.failed)) logger.info({ archive: result }, 'archive run');
        })
        .catch((err) => {
          // An outage is summarized by the OutageLog; anything else is worth a line. Either way
          // nothing was removed that was not exported, and the next tick tries again.
          if (!isServiceUnavailable(err)) logger.warn({ err }, 'archive run failed; the next run tries again');
        });
    }, this.options.intervalMs);
    this.timer.unref();
  }

  /** Stops the timer and waits for a run under way (whose failure its starter logs or reports). */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running?.then(
      () => undefined,
      () => undefined,
    );
  }
}

/** The lease is held by another instance. */
class Held extends Error {
  constructor() {
    super('the archive lease is held');
  }
}
