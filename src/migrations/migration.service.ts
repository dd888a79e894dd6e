import { isRecord } from '../guards';
import { SYSTEM_TENANT } from '../auth/principal';
import { DriftReport } from '../common/drift';
import { entities, type EntityItem } from '../common/entities';
import { AppError, ErrorCode } from '../errors';
import { MIGRATION_KIND } from './migration.kind';
import { JobStatus } from '../job/job.machine';
import type { JobRepository } from '../job/job.repository';
import { SYSTEM_PROJECT_ID, type SystemJobHandler } from '../system-jobs/runner';
import { Stale } from '../infra/dynamo/committer';
import { type MigrationDeclaration, SEGMENT_COUNT_NAMES, type SegmentCounts, zeroCounts } from './migration';
import { MIGRATIONS } from './migrations';
import { checkpointOf, MIGRATION_STAGE, migrateSegment, type SegmentEnv } from './migration.segment';

/*
 * Running the migrations (src/migrations/migrations.ts), each exactly once and in number order,
 * as system jobs (src/system-jobs/runner.ts runs their items): the Migration entry in the system
 * partition names a migration's one job (written only if absent), and the migration is applied
 * once that job completed. `runPending` starts the first migration not applied (or takes up the
 * failed segments of a failed run again); when a job completes, the next one starts. The drift
 * check reads the whole table, in parallel segments, and compares every item with what its
 * declaration derives (src/common/drift.ts).
 */

/** What a migration's run needs of the server: the segment's needs, and the system partition's jobs. */
export interface MigrationEnv extends SegmentEnv {
  /** A job repository bound to SYSTEM_TENANT, made afresh for each use. */
  systemJobs(): JobRepository;
  now(): Date;
  /** Tells this process's system-job runner that work was just started (it looks at once rather than at its next look). */
  wake?(): void;
}

/** Where a migration stands. */
export type MigrationState = 'PENDING' | 'RUNNING' | 'APPLIED' | 'FAILED';

export interface MigrationStatus {
  migration: MigrationDeclaration;
  state: MigrationState;
  /** Its job, once one was started for it (in the system partition). */
  jobId?: string;
  appliedAt?: string;
}

/** A migration's status with its job's figures: status, progress, its segments' counts added up, and its rewrite rate. */
export interface MigrationOverview extends MigrationStatus {
  jobStatus?: JobStatus;
  progress?: number;
  counts?: SegmentCounts;
  /** Entities rewritten per second from the job's start to its end (or now). */
  rewriteRate?: number;
  /** The budget its run was started with (the declared one, unless the start replaced it). */
  itemsPerSecond: number;
}

/** The work items a system job is made with at most (createJob's own limit). */
const MAX_SEGMENTS = 50;

type MigrationItem = EntityItem<'Migration'>;

export class Migrations {
  constructor(
    private readonly env: MigrationEnv,
    private readonly declared: readonly MigrationDeclaration[] = MIGRATIONS,
  ) {}

  /** Every migration with where it stands, in number order. */
  async status(): Promise<MigrationStatus[]> {
    const entries = await this.env.store.queryAll(entities.Migration.key.prefixOf(SYSTEM_TENANT, {}), 1000);
    const byId = new Map(entities.Migration.itemsOf(entries).map((e) => [e.migrationId, e] as const));
    const out: MigrationStatus[] = [];
    for (const migration of this.declared) {
      const entry = byId.get(migration.id);
      out.push(entry ? await this.statusOf(migration, entry) : { migration, state: 'PENDING' });
    }
    return out;
  }

  private async statusOf(migration: MigrationDeclaration, entry: MigrationItem): Promise<MigrationStatus> {
    const base = { migration, jobId: entry.jobId };
    // Applied is for good: the job itself expires 90 days after it finished (FINISHED_JOB_TTL_DAYS).
    if (entry.appliedAt) return { ...base, state: 'APPLIED', appliedAt: entry.appliedAt };
    const job = await this.env.systemJobs().get(entry.jobId);
    if (!job) return { ...base, state: 'FAILED' };
    if (job.status === JobStatus.COMPLETED) {
      // The entry learns it was applied when it is first seen so (the job's completion is what counts).
      const appliedAt = await this.markApplied(entry, job.finishedAt ?? this.env.now().toISOString());
      return { ...base, state: 'APPLIED', appliedAt };
    }
    if (job.status === JobStatus.FAILED || job.status === JobStatus.CANCELLED) return { ...base, state: 'FAILED' };
    return { ...base, state: 'RUNNING' };
  }

  /** Records on the entry when its job completed (on condition of the version read: whoever records it first, once). */
  private async markApplied(entry: MigrationItem, at: string): Promise<string> {
    const applied = { ...entry, appliedAt: at, version: entry.version + 1, updatedAt: this.env.now().toISOString() };
    try {
      await this.env.store.transact([entities.Migration.put(SYSTEM_TENANT, applied).ifVersion(entry.version, () => new Stale())]);
    } catch (error) {
      // Another reader recorded it first: the same fact, written once.
      if (!(error instanceof Stale)) throw error;
    }
    return at;
  }

  /** Every migration's status with its job's figures (see MigrationOverview). */
  async overview(): Promise<MigrationOverview[]> {
    return Promise.all((await this.status()).map((status) => this.figuresOf(status)));
  }

  private async figuresOf(status: MigrationStatus): Promise<MigrationOverview> {
    const declared = { ...status, itemsPerSecond: status.migration.itemsPerSecond };
    if (!status.jobId) return declared;
    const jobs = this.env.systemJobs();
    const [job, items] = await Promise.all([
      jobs.get(status.jobId),
      jobs.items.page(status.jobId, MIGRATION_STAGE, { first: MAX_SEGMENTS }),
    ]);
    if (!job) return declared;
    const counts = zeroCounts();
    for (const item of items.nodes) {
      const reached = checkpointOf(item.checkpoint).counts;
      for (const name of SEGMENT_COUNT_NAMES) counts[name] += reached[name];
    }
    const started = Date.parse(job.startedAt ?? job.createdAt);
    const ended = job.finishedAt ? Date.parse(job.finishedAt) : this.env.now().getTime();
    const seconds = Math.max(0.001, (ended - started) / 1000);
    const budget = isRecord(job.inputs) ? job.inputs.itemsPerSecond : undefined;
    return {
      ...declared,
      itemsPerSecond: typeof budget === 'number' ? budget : declared.itemsPerSecond,
      jobStatus: job.status,
      progress: job.progress,
      counts,
      rewriteRate: counts.rewritten / seconds,
    };
  }

  /**
   * Starts the first migration not applied, unless one runs already: a new job for a pending
   * one, or its failed segments taken up again (from their checkpoints) for a failed one. Later
   * migrations wait for it. `itemsPerSecond` replaces the declared budget of a run it starts.
   * Returns every migration's status. Safe to call from many places at once: a migration gets one
   * job whoever calls.
   */
  async runPending(options: { itemsPerSecond?: number | null } = {}): Promise<MigrationStatus[]> {
    if (options.itemsPerSecond != null && !(Number.isInteger(options.itemsPerSecond) && options.itemsPerSecond >= 1))
      throw new AppError(ErrorCode.BAD_USER_INPUT, 'itemsPerSecond must be a whole number from 1.', { field: 'itemsPerSecond' });
    for (const status of await this.status()) {
      if (status.state === 'APPLIED') continue;
      if (status.state === 'PENDING') await this.start(status.migration, options.itemsPerSecond ?? null);
      if (status.state === 'FAILED' && status.jobId) await this.retryFailed(status.jobId);
      this.env.wake?.();
      break;
    }
    return this.status();
  }

  /**
   * Starts `migration`'s job, within `given` items a second or else its declared budget. A given
   * budget is kept in the job's inputs as such (`budgetGiven`), so that the migrations the job
   * starts when it completes run within it too: an operator's `--items-per-second 48` is the
   * budget of the whole run, not of its first migration only.
   */
  private async start(migration: MigrationDeclaration, given: number | null): Promise<void> {
    const jobs = this.env.systemJobs();
    const segments = Math.min(MAX_SEGMENTS, migration.segments);
    const itemsPerSecond = given ?? migration.itemsPerSecond;
    // The key makes concurrent starters (two instances, a script) get one job.
    const job = await jobs.create({
      projectId: SYSTEM_PROJECT_ID,
      kind: MIGRATION_KIND,
      inputs: { migrationId: migration.id, name: migration.name, itemsPerSecond, ...(given === null ? {} : { budgetGiven: true }) },
      items: Array.from({ length: segments }, (_, segment) => ({ segment, segments })),
      idempotencyKey: `migration-${migration.id}`,
    });
    const at = this.env.now().toISOString();
    try {
      await this.env.store.transact([
        entities.Migration.put(SYSTEM_TENANT, {
          migrationId: migration.id,
          name: migration.name,
          jobId: job.jobId,
          version: 1,
          createdAt: at,
          updatedAt: at,
          createdBy: 'system',
        }).ifNew(() => new AppError(ErrorCode.CONFLICT, `Migration ${migration.id} has its job already.`)),
      ]);
    } catch (error) {
      if (!(error instanceof AppError && error.code === ErrorCode.CONFLICT)) throw error;
      // Another starter named a job first (past the key's 48 hours): its job is the run, and this
      // one is cancelled so that the migration runs once.
      const entry = await this.env.store.get(entities.Migration.keyOf(SYSTEM_TENANT, { migrationId: migration.id }));
      if (entities.Migration.is(entry) && entry.jobId !== job.jobId) await jobs.act(job.jobId, { action: { kind: 'cancel' } });
    }
  }

  /** Takes the failed segments of a failed run up again: each resumes from its checkpoint. */
  private async retryFailed(jobId: string): Promise<void> {
    const jobs = this.env.systemJobs();
    const items = await jobs.items.page(jobId, MIGRATION_STAGE, { first: MAX_SEGMENTS });
    for (const item of items.nodes) {
      if (item.status === 'FAILED') await jobs.items.act(jobId, item.stage, item.sequence, { kind: 'retry' });
    }
  }

  /** The runner's handler of migration jobs: runs a segment; a completed job starts the next migration. */
  handler(): SystemJobHandler {
    return {
      kind: MIGRATION_KIND,
      stage: MIGRATION_STAGE,
      run: async (work) => {
        const id = String((isRecord(work.job.inputs) ? work.job.inputs.migrationId : undefined) ?? '');
        const migration = this.declared.find((m) => m.id === id);
        // A job of a migration this server does not know (made by a newer version of it) waits for one that does.
        if (!migration) throw new AppError(ErrorCode.BAD_USER_INPUT, `Migration ${id} is not declared in this version of the server.`);
        const counts = await migrateSegment(this.env, migration, work);
        return { ...counts };
      },
      finished: async (job) => {
        // The next migration runs within the budget this run was given, if it was given one.
        const inputs = isRecord(job.inputs) ? job.inputs : {};
        const given = inputs.budgetGiven === true && typeof inputs.itemsPerSecond === 'number' ? inputs.itemsPerSecond : null;
        await this.runPending({ itemsPerSecond: given });
      },
    };
  }

  /**
   * The drift check: reads the whole table in `segments` parallel segments and reports, per
   * entity type, the items whose key, index attributes or search words differ from what their
   * declaration derives, with up to `maxSamples` samples each.
   */
  async drift(options: { segments?: number; maxSamples?: number } = {}): Promise<DriftReport> {
    const segments = options.segments ?? 4;
    const reports = await Promise.all(
      Array.from({ length: segments }, async (_, segment) => {
        const report = new DriftReport(options.maxSamples ?? 5);
        let next: Record<string, unknown> | undefined;
        do {
          const page = await this.env.store.scanPage(segment, segments, 500, next);
          for (const item of page.items) report.add(item);
          next = page.next;
        } while (next);
        return report;
      }),
    );
    const total = new DriftReport(options.maxSamples ?? 5);
    for (const report of reports) total.merge(report);
    return total;
  }
}
