import { SYSTEM_TENANT } from '../auth/principal';
import { BoundTenant } from '../common/bound-tenant';
import { entities } from '../common/entities';
import { searchChange } from '../common/search';
import type { Store } from '../infra/dynamo/store';
import { put } from '../infra/dynamo/write';
import { AppError } from '../errors';
import { isServiceUnavailable } from '../infra/dependency';
import { logger } from '../logger';
import type { JobRepository } from '../job/job.repository';
import { JobStatus } from '../job/job.machine';
import type { JobItem, WorkItemItem } from '../job/job.writes';

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
  /** How long the runner waits before it looks for work again after finding none (unless woken). */
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

/**
 * Runs the server's own jobs' work items in this process (see the top of this file). One loop
 * looks for work: at once when woken (a job was started in this process, or a slot came free),
 * else every `idleMs`, so an idle server costs the table one Query per handler a period; it fills
 * every free slot while work is there.
 */
export class SystemJobRunner {
  private readonly stopping = new AbortController();
  private looping?: Promise<void>;
  private readonly running = new Set<Promise<void>>();
  /** Ends the loop's wait early (wake). */
  private nudge?: () => void;
  private nudged = false;
  /** Items this runner completed since it started. */
  completed = 0;

  constructor(
    /** A job repository bound to SYSTEM_TENANT, made afresh for each use (a repository's reads are cached per request). */
    private readonly jobs: () => JobRepository,
    private readonly handlers: readonly SystemJobHandler[],
    private readonly options: SystemJobOptions,
  ) {}

  /** True when the runner holds nothing: no loop looking for work and no item running (before start, and after stop). */
  get idle(): boolean {
    return this.looping === undefined && this.running.size === 0;
  }

  /** Starts looking for work (nothing when it has no slots). */
  start(): void {
    if (this.looping || this.options.slots < 1) return;
    this.looping = this.loop();
  }

  /** Looks for work now rather than at the end of the idle wait: a job was just started or retried. */
  wake(): void {
    this.nudged = true;
    this.nudge?.();
  }

  /**
   * Stops looking for work and aborts the handlers running; resolves once they returned. Their
   * items stay with their leases, and are taken over from their checkpoints once those run out.
   */
  async stop(): Promise<void> {
    this.stopping.abort();
    this.nudge?.();
    await this.looping;
    await Promise.all(this.running);
    this.looping = undefined;
  }

  private async loop(): Promise<void> {
    const signal = this.stopping.signal;
    while (!signal.aborted) {
      this.nudged = false;
      try {
        await this.fill();
      } catch (err) {
        // An outage is summarized by the OutageLog; anything else is worth a line. Nothing was
        // claimed by the failed call; the next look tries again.
        if (!isServiceUnavailable(err)) logger.warn({ err }, 'looking for system job work failed; the runner looks again');
      }
      if (signal.aborted || this.nudged) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, this.options.idleMs);
        this.nudge = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.nudge = undefined;
    }
  }

  /** Claims items into every free slot while there are any; each runs on its own and frees its slot when done. */
  private async fill(): Promise<void> {
    while (this.running.size < this.options.slots && !this.stopping.signal.aborted) {
      const claimed = await this.claim();
      if (!claimed) return;
      const run: Promise<void> = this.run(claimed.handler, claimed.job, claimed.item)
        .catch((err) => {
          // The item keeps its lease and checkpoint, and is taken over when the lease runs out.
          if (!isServiceUnavailable(err)) logger.warn({ err }, 'a system job item’s run failed; it is taken over once its lease runs out');
        })
        .finally(() => {
          this.running.delete(run);
          // A slot came free: there may be more work (the job's other items, the next migration).
          this.wake();
        });
      this.running.add(run);
    }
  }

  /** Claims one item of any handler's kind and stage; undefined when there is none to claim now. */
  private async claim(): Promise<{ handler: SystemJobHandler; job: JobItem; item: WorkItemItem } | undefined> {
    for (const handler of this.handlers) {
      const claimed = await this.jobs().claimWork(handler.kind, handler.stage);
      if (claimed?.item) return { handler, job: claimed.job, item: claimed.item };
    }
    return undefined;
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
          await this.jobs().items.act(jobId, stage, sequence, {
            kind: 'progress',
            attempt,
            progress: last.progress,
            checkpoint: last.checkpoint,
          });
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
        // A refused renewal has already aborted this holder's work (report); it is said here too,
        // so an attempt lost to another holder or to an outage is seen, not only its silence.
        report(last.progress, last.checkpoint).catch((err) =>
          logger.warn({ err, jobId, stage, sequence, attempt }, 'a system job lost its lease; its item is left to the next holder'),
        );
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

/**
 * The project every system job names: jobs belong to a project, and the server's own belong to
 * none (a fixed id, in the system partition, where no tenant's project can be).
 */
export const SYSTEM_PROJECT_ID = 'proj_00000000000000000000000000';

/** The principal the server's own jobs run as: the system partition, as its own worker. */
export const SYSTEM_WORKER = { userId: 'system', tenantId: SYSTEM_TENANT } as const;

/** The placeholder project exists already (see ensureSystemProject). */
class SystemProjectExists extends Error {}

/**
 * Makes the placeholder project SYSTEM_PROJECT_ID in the system partition, unless it exists: for a
 * store that holds references to their referent (PostgreSQL's foreign key from a job to its
 * project), where the server's own jobs would otherwise name a project that is not there. DynamoDB
 * needs none (the server never calls this there). No tenant reads the system partition.
 */
export async function ensureSystemProject(store: Store, now: Date): Promise<void> {
  const at = now.toISOString();
  const attributes = { projectId: SYSTEM_PROJECT_ID, title: "The server's own jobs", status: 'planning', archived: false } as const;
  // Its title's search slots, as a created project records them: without them the drift check
  // reported it and every migration of projects rewrote it. No word items: a store that holds
  // references indexes text itself (StoreApi.indexesText), as PostgreSQL does.
  const search = searchChange(new BoundTenant(SYSTEM_TENANT), entities.Project, null, attributes, { wordItems: !store.indexesText });
  const item = entities.Project.toItem(SYSTEM_TENANT, {
    ...attributes,
    ...search.attributes,
    version: 1,
    createdAt: at,
    updatedAt: at,
    createdBy: SYSTEM_WORKER.userId,
  });
  try {
    await store.transact([put(item).ifNew(() => new SystemProjectExists()), ...search.writes]);
  } catch (error) {
    if (!(error instanceof SystemProjectExists)) throw error;
  }
}
