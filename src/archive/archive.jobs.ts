import { SYSTEM_TENANT } from '../auth/principal';
import { entities } from '../common/entities';
import type { ArchiveRunOutcome, ArchiveRunResult, ArchiveRuns } from '../common/feature';
import { isRecord } from '../guards';
import { budgetLeft } from '../infra/deadline';
import { isServiceUnavailable } from '../infra/dependency';
import type { Store } from '../infra/dynamo/store';
import { ARCHIVE_KIND } from './archive.kind';
import { JobStatus, TERMINAL } from '../job/job.machine';
import type { JobRepository } from '../job/job.repository';
import { SYSTEM_PROJECT_ID, type SystemJobHandler } from '../system-jobs/runner';
import { logger } from '../logger';
import type { ArchiveCheckpoint, Archiver } from './archive.service';

/*
 * Cold storage runs as a system job (src/system-jobs/runner.ts): a job of kind ARCHIVE in the system
 * partition whose one item is the run, claimed and run by the system-job runner of any instance
 * under the engine's lease, its progress reported as the item's checkpoint (the run's cutoff and
 * counts so far), so a holder that dies is taken over from there once its lease runs out.
 *
 * Starting one is a conditional write. The pointer item `LEASE#archive` of the system partition
 * names the last archive job. A starter reads it: while that job runs, the starter joins it; else
 * it creates the next job under the idempotency key `archive-after-<that job>`, so every starter
 * that read the same pointer (two instances' timers, two operators: all create as the system
 * worker, whose keys they share) gets the one same job, then
 * moves the pointer to it on condition that it still names the job read. A starter that died
 * between the two leaves the pointer behind; the next one derives the same key and gets the same
 * job back. The schedule starts a job only when the last one was created in an earlier period
 * (`intervalMs`), so there is one run per period across instances; an operator's command starts
 * one whenever none runs.
 */

/** The pointer's name (its item is `LEASE#archive`, where the lease of the archive's own runner used to be). */
const POINTER = 'archive';

/** The stage of the ARCHIVE kind whose one item is the run. */
export const ARCHIVE_STAGE = 'move';

/** The longest an operator's command waits for its run outside a request's budget (offline callers, tests). */
const DEFAULT_MAX_WAIT_MS = 5 * 60_000;

/** What the archive's job needs of the server: the store, the system partition's jobs, its clock. */
export interface ArchiveJobsEnv {
  store: Store;
  /** A job repository bound to SYSTEM_TENANT, made afresh for each use. */
  systemJobs(): JobRepository;
  now(): Date;
  /** Tells this process's system-job runner that work was just started (it looks at once). */
  wake?(): void;
}

export interface ArchiveJobsOptions {
  /** How often each instance's timer tries to start the period's run; 0: no schedule (operator's command only). */
  intervalMs: number;
  /** How long runNow waits for the run when no request budget bounds it (5 minutes when omitted). */
  maxWaitMs?: number;
}

/** Who asks for a run: the schedule's timer, or an operator's command. */
export type ArchiveTrigger = 'schedule' | 'operator';

/**
 * Whether a starter joins the last archive job, starts a new one or does nothing, from that job's
 * status and creation time (none when the pointer names none, or a job that is gone): a job that
 * has not finished is joined; the schedule skips a period whose run was already created (whoever
 * created it, and however it ended); otherwise a new one starts.
 */
export function archiveStartDecision(input: {
  trigger: ArchiveTrigger;
  last?: { status: JobStatus; createdAt: string } | null;
  now: Date;
  intervalMs: number;
}): 'join' | 'start' | 'skip' {
  const { last } = input;
  if (last && !TERMINAL.has(last.status)) return 'join';
  if (input.trigger === 'schedule' && last && input.intervalMs > 0) {
    const period = (ms: number) => Math.floor(ms / input.intervalMs);
    if (period(Date.parse(last.createdAt)) >= period(input.now.getTime())) return 'skip';
  }
  return 'start';
}

const RESULT_FIELDS = ['jobs', 'projects', 'resumed', 'rows', 'bytes', 'failed'] as const satisfies readonly (keyof ArchiveRunResult)[];

/** A run's counts read from stored JSON (an item's outputs or checkpoint); undefined when they are not all there. */
export function archiveResultOf(value: unknown): ArchiveRunResult | undefined {
  if (!isRecord(value)) return undefined;
  const result: ArchiveRunResult = { jobs: 0, projects: 0, resumed: 0, rows: 0, bytes: 0, failed: 0 };
  for (const field of RESULT_FIELDS) {
    const count = value[field];
    if (typeof count !== 'number' || !Number.isInteger(count) || count < 0) return undefined;
    result[field] = count;
  }
  return result;
}

/** Where a run stands, read from its item's checkpoint; undefined for none (the item's first run) or one this version cannot read. */
export function archiveCheckpointOf(value: unknown): ArchiveCheckpoint | undefined {
  if (!isRecord(value)) return undefined;
  const { cutoff, phase } = value;
  const result = archiveResultOf(value.result);
  if (typeof cutoff !== 'string' || Number.isNaN(Date.parse(cutoff)) || (phase !== 'jobs' && phase !== 'projects') || !result)
    return undefined;
  return { cutoff, phase, result };
}

/** Starts, joins, follows and (through its handler) runs the archive's system jobs; see the top of this file. */
export class ArchiveJobs implements ArchiveRuns {
  private timer?: NodeJS.Timeout;
  /** The schedule's start under way, if any (one at a time per instance). */
  private ticking?: Promise<void>;
  /** Callers waiting for a job, woken when this process completes it (the poll finds it otherwise). */
  private readonly waiters = new Map<string, Set<() => void>>();
  /** Aborted by stop(): waits end at once, answering where their job stands. */
  private readonly stopping = new AbortController();

  constructor(
    private readonly env: ArchiveJobsEnv,
    private readonly archiver: Archiver,
    private readonly options: ArchiveJobsOptions,
  ) {}

  /** True when it holds nothing: no timer, no start under way, nobody waiting (before start, and after stop). */
  get idle(): boolean {
    return this.timer === undefined && this.ticking === undefined && this.waiters.size === 0;
  }

  /**
   * The archive job to follow: the one running (joined), or a new one; null when the schedule
   * finds this period's run already made. Concurrent calls on any instances get one job.
   */
  async start(trigger: ArchiveTrigger): Promise<string | null> {
    const jobs = this.env.systemJobs();
    const pointer = await this.env.store.get(entities.SystemLease.keyOf(SYSTEM_TENANT, { name: POINTER }));
    const named = entities.SystemLease.is(pointer) ? pointer.holder : undefined;
    // Before the archive ran as a job, the item was its runner's lease, naming an instance.
    const last = named?.startsWith('job_') ? await jobs.get(named) : null;
    const decision = archiveStartDecision({ trigger, last, now: this.env.now(), intervalMs: this.options.intervalMs });
    if (decision === 'skip') return null;
    if (decision === 'join' && last) {
      // This instance's runner looks at once too: the run may be waiting for a holder (its last one died).
      this.env.wake?.();
      return last.jobId;
    }
    const job = await jobs.create({
      projectId: SYSTEM_PROJECT_ID,
      kind: ARCHIVE_KIND,
      items: [{}],
      idempotencyKey: `archive-after-${named ?? 'none'}`,
    });
    const moved = entities.SystemLease.put(SYSTEM_TENANT, { name: POINTER, holder: job.jobId });
    const nowSeconds = Math.floor(this.env.now().getTime() / 1000);
    try {
      await this.env.store.transact([
        named === undefined
          ? moved.ifNewOrExpired(nowSeconds, () => new PointerMoved())
          : moved.where({ holder: named }, () => new PointerMoved()),
      ]);
    } catch (error) {
      // Another starter of the same job moved it first (or, the job done, the next run's starter
      // after it): the pointer only moves forward, and this caller follows the job it got.
      if (!(error instanceof PointerMoved)) throw error;
    }
    this.env.wake?.();
    return job.jobId;
  }

  /**
   * An operator's command: starts a run (or joins the one running), or follows `jobId` when given,
   * and waits for it to finish, within the request's budget when it runs in one. Answers the
   * run's result with its job's id and status: COMPLETED with the final counts, or, when the wait
   * ended first, its status with the counts so far (the job goes on; follow it with `jobId`).
   * Null when `jobId` names no archive job.
   */
  async runNow(jobId?: string): Promise<ArchiveRunOutcome | null> {
    const id = jobId ?? (await this.start('operator'));
    if (!id) return null;
    const left = budgetLeft();
    // What is left of a request's budget, less the time the last reads need.
    const until = Date.now() + (left === undefined ? (this.options.maxWaitMs ?? DEFAULT_MAX_WAIT_MS) : left - Math.min(1000, left / 4));
    let pause = 50;
    for (;;) {
      const outcome = await this.outcome(id);
      if (!outcome || TERMINAL.has(outcome.status) || Date.now() + pause > until || this.stopping.signal.aborted) return outcome;
      await this.pause(id, pause);
      pause = Math.min(500, pause * 2);
    }
  }

  /** Where archive job `jobId` stands: its status and progress, and its counts (final once it completed, else so far). */
  private async outcome(jobId: string): Promise<(ArchiveRunOutcome & { status: JobStatus }) | null> {
    const jobs = this.env.systemJobs();
    const job = await jobs.get(jobId);
    if (!job || job.kind !== ARCHIVE_KIND) return null;
    const items = await jobs.items.page(jobId, ARCHIVE_STAGE, { first: 10 });
    const total: ArchiveRunResult = { jobs: 0, projects: 0, resumed: 0, rows: 0, bytes: 0, failed: 0 };
    for (const item of items.nodes) {
      const counts = archiveResultOf(item.outputs) ?? archiveCheckpointOf(item.checkpoint)?.result;
      if (counts) for (const field of RESULT_FIELDS) total[field] += counts[field];
    }
    return { ...total, jobId, status: job.status, progress: job.progress };
  }

  /** Waits `ms`, or less when this process completes job `jobId` (or stops). */
  private pause(jobId: string, ms: number): Promise<void> {
    return new Promise((resolve) => {
      const waiting = this.waiters.get(jobId) ?? new Set<() => void>();
      this.waiters.set(jobId, waiting);
      const done = () => {
        clearTimeout(timer);
        this.stopping.signal.removeEventListener('abort', done);
        waiting.delete(done);
        if (waiting.size === 0) this.waiters.delete(jobId);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.stopping.signal.addEventListener('abort', done, { once: true });
      waiting.add(done);
    });
  }

  /** The system-job runner's handler of the archive's item: one run, from where the last holder left it. */
  handler(): SystemJobHandler {
    return {
      kind: ARCHIVE_KIND,
      stage: ARCHIVE_STAGE,
      run: async (work) => {
        const from = archiveCheckpointOf(work.checkpoint);
        // A holder that takes the run over shares out what is left of it, so the share done never goes back.
        const before = from ? work.item.progress : 0;
        const result = await this.archiver.run({
          from,
          report: (progress, checkpoint) => work.report(before + (1 - before) * progress, { ...checkpoint }),
          signal: work.signal,
        });
        if (result.jobs || result.projects || result.failed) logger.info({ archive: result, jobId: work.job.jobId }, 'archive run');
        return { ...result };
      },
      finished: async (job) => {
        for (const wake of [...(this.waiters.get(job.jobId) ?? [])]) wake();
      },
    };
  }

  /** Starts the schedule: every `intervalMs` this instance tries to start the period's run (nothing when it is 0). */
  startSchedule(): void {
    if (this.options.intervalMs <= 0 || this.timer || this.stopping.signal.aborted) return;
    this.timer = setInterval(() => {
      if (this.ticking) return;
      this.ticking = this.start('schedule')
        .then(() => undefined)
        .catch((err) => {
          // An outage is summarized by the OutageLog; anything else is worth a line. Nothing was
          // started, or the job stands and is run anyway; the next tick tries again.
          if (!isServiceUnavailable(err)) logger.warn({ err }, 'starting the archive run failed; the next tick tries again');
        })
        .finally(() => (this.ticking = undefined));
    }, this.options.intervalMs);
    this.timer.unref();
  }

  /** Stops the timer, ends the waits (they answer where their job stands) and waits for a start under way. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    this.stopping.abort();
    await this.ticking;
  }
}

/** The pointer no longer names the job read: another starter moved it. */
class PointerMoved extends Error {
  constructor() {
    super('the archive pointer moved');
  }
}
