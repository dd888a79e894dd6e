import { setTimeout as sleep } from 'node:timers/promises';
import { SYSTEM_TENANT } from '../auth/principal';
import { AppError } from '../errors';
import { isServiceUnavailable } from '../infra/dependency';
import { logger } from '../logger';
import type { JobRepository } from './job.repository';
import { JobStatus } from './job.machine';
import type { JobItem, WorkItemItem } from './job.writes';

/*
 * The server's own jobs (migrations, archiving) run on the job engine like any pipeline: a job of
 * a declared system kind (job.kinds.ts, `system: true`) in the system partition (SYSTEM_TENANT),
 * whose fan-out items are the units of work. This runner is their worker, in-process: it claims
 * an item through claimWork (so the item's lease says who holds it, and of all the instances and
 * scripts running this runner each item is held by one at a time), hands it to the kind's
 * handler, renews the lease with every report the handler makes (each carrying the handler's
 * checkpoint, kept on the item), and completes or fails it. A holder that dies stops renewing:
 * once its lease runs out (JOB_LEASE_SECONDS) the next claim takes the item over as a new attempt
 * and the handler resumes from the checkpoint the last holder reported.
 */

/** One claimed work item, as a handler gets it. */
export interface SystemWork {
  job: JobItem;
  item: WorkItemItem;
  /** Where the last holder of the item left it (its last report); undefined on the item's first run. */
  checkpoint?: Record<string, unknown>;
  /**
   * Reports the share done (0 to 1) and where the work stands, renewing the lease: the next
   * holder resumes from `checkpoint`. Throws (an AppError) when this attempt is no longer the
   * item's (its lease ran out and another holder took it over): the handler must stop then.
   */
  report(progress: number, checkpoint?: Record<string, unknown>): Promise<void>;
  /** Aborted when the runner stops: the handler returns (or throws) soon, leaving the item to its next holder. */
  signal: AbortSignal;
}

/** How the items of one stage of one system kind are done. */
export interface SystemJobHandler {
  kind: string;
  stage: string;
  /** Does the item's work from its checkpoint and resolves with its outputs; a throw fails the attempt (retried by the kind's policy). */
  run(work: SystemWork): Promise<Record<string, unknown>>;
  /** Called after an item's completion finished its job (every item done), e.g. to start what comes after it. */
  finished?(job: JobItem): Promise<void>;
}

export interface SystemJobOptions {
  /** How long a slot waits before it looks for work again after finding none. */
  idleMs: number;
  /** Items this process works on at once. */
  slots: number;
  /**
   * How long a claim holds an item without a report (JOB_LEASE_SECONDS of the repository that
   * claims): the runner renews it three times within that, whatever the handler's pace.
   */
  leaseSeconds: number;
}

/** The error code an attempt fails with when its handler threw something that is not an AppError. */
const HANDLER_FAILED = 'SYSTEM_JOB_FAILED';

/** Runs the server's own jobs' work items in this process (see the top of this file). */
export class SystemJobRunner {
  private readonly stopping = new AbortController();
  private loops: Promise<void>[] = [];
  /** Items this runner completed since it started. */
  completed = 0;

  constructor(
    /** A job repository bound to SYSTEM_TENANT, made afresh for each use (a repository's reads are cached per request). */
    private readonly jobs: () => JobRepository,
    private readonly handlers: readonly SystemJobHandler[],
    private readonly options: SystemJobOptions,
  ) {}

  /** Starts the slots; each looks for work, runs it, and looks again, until stop. */
  start(): void {
    if (this.loops.length > 0) return;
    for (let slot = 0; slot < this.options.slots; slot++) this.loops.push(this.loop());
  }

  /**
   * Stops looking for work and aborts the handlers running; resolves once they returned. Their
   * items stay with their leases, and are taken over from their checkpoints once those run out.
   */
  async stop(): Promise<void> {
    this.stopping.abort();
    await Promise.all(this.loops);
    this.loops = [];
  }

  private async loop(): Promise<void> {
    const signal = this.stopping.signal;
    while (!signal.aborted) {
      let worked = false;
      try {
        worked = await this.runOne();
      } catch (err) {
        // An outage is summarized by the OutageLog; anything else is worth a line. The item keeps
        // its lease and checkpoint, and is taken over when the lease runs out.
        if (!isServiceUnavailable(err)) logger.warn({ err }, 'a system job slot failed; it looks for work again');
      }
      if (!worked && !signal.aborted) await sleep(this.options.idleMs, undefined, { signal }).catch(() => undefined);
    }
  }

  /**
   * Claims one item of any handler's kind and stage and runs it to its end (completed, failed or
   * given up at stop). False when there was nothing to claim.
   */
  async runOne(): Promise<boolean> {
    for (const handler of this.handlers) {
      if (this.stopping.signal.aborted) return false;
      const jobs = this.jobs();
      const claimed = await jobs.claimWork(handler.kind, handler.stage);
      if (!claimed?.item) continue;
      await this.run(handler, claimed.job, claimed.item);
      return true;
    }
    return false;
  }

  private async run(handler: SystemJobHandler, job: JobItem, item: WorkItemItem): Promise<void> {
    // Aborted when the runner stops, or when this attempt turns out to be over (taken over by another holder).
    const held = new AbortController();
    const stop = () => held.abort();
    this.stopping.signal.addEventListener('abort', stop, { once: true });
    const signal = held.signal;
    const { jobId, stage, sequence, attempt } = item;
    let last: { progress: number; checkpoint?: Record<string, unknown> } = { progress: item.progress, checkpoint: undefined };
    let reporting: Promise<void> = Promise.resolve();
    // Every report renews the lease; it is conditioned on the attempt, so once another holder
    // took the item over, the report is refused and this holder stops without writing more.
    const report = (progress: number, checkpoint?: Record<string, unknown>) => {
      last = { progress: Math.max(0, Math.min(1, progress)), checkpoint };
      reporting = reporting.then(async () => {
        try {
          await this.jobs().items.progress(jobId, stage, sequence, attempt, last.progress, last.checkpoint);
        } catch (error) {
          held.abort();
          throw error;
        }
      });
      return reporting;
    };
    // The lease is renewed well within its time even while a handler waits on its budget or a slow page.
    const heartbeat = setInterval(
      () => {
        report(last.progress, last.checkpoint).catch(() => undefined);
      },
      (this.options.leaseSeconds * 1000) / 3,
    );
    const work: SystemWork = { job, item, checkpoint: item.checkpoint, report, signal };
    let outputs: Record<string, unknown>;
    try {
      outputs = await handler.run(work);
      await reporting;
    } catch (error) {
      // Stopped, or the attempt is over: the item is left to its (next) holder, with its lease and checkpoint.
      if (signal.aborted) return;
      const code = error instanceof AppError ? error.code : HANDLER_FAILED;
      const message = error instanceof Error ? error.message : String(error);
      logger.warn({ err: error, jobId, stage, sequence, attempt }, 'a system job item failed; it is retried by its kind’s policy');
      await this.jobs().items.act(jobId, stage, sequence, { kind: 'fail', attempt, code, message });
      return;
    } finally {
      clearInterval(heartbeat);
      this.stopping.signal.removeEventListener('abort', stop);
    }
    if (signal.aborted) return;
    const done = await this.jobs().items.act(jobId, stage, sequence, { kind: 'complete', attempt, outputs });
    this.completed++;
    if (done.job.status === JobStatus.COMPLETED) await handler.finished?.(done.job);
  }
}

/** The principal the server's own jobs run as: the system partition, as its own worker. */
export const SYSTEM_WORKER = { userId: 'system', tenantId: SYSTEM_TENANT } as const;
