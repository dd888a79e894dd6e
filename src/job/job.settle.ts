import { entities, type EntityItem } from '../common/entities';
import type { Store } from '../infra/dynamo/store';
import { Stale } from '../infra/dynamo/committer';
import { itemsOfModels } from '../infra/dynamo/entity';
import { isServiceUnavailable } from '../infra/dependency';
import { untraced } from '../infra/tracing';
import { del } from '../infra/dynamo/write';
import { logger } from '../logger';
import { jobOwnerOf } from './job.keys';
import type { Scope } from '../common/scope';
import { SettleStopped } from './job.decider';
import { JobAggregate } from './job.aggregate';
import { countedInPool, deletesReleasing } from './job.writes';

/*
 * The settle sweep: a finished job's work items and earlier step attempts take its expiry (so they
 * go with it), and a cancelled job's unfinished items are cancelled (so they leave its claimable
 * index). A job has up to MAX_STAGE_ITEMS items a stage, far more than the transaction that finishes
 * it holds, so that transaction writes a JobSettle entry (job.writes.ts) and this sweep settles a
 * page of rows at a time, each one command on the job (JobAggregate.settle) that moves the entry's
 * checkpoint (the last row settled), and removes the entry with the last page: a crash resumes from
 * the checkpoint. A deleted job's entry (`deleting`) has the rest of its partition purged instead.
 */

/** Rows settled per page: one command on the job, its writes within one transaction with the job's own. */
const PAGE = 40;
/** Rows of a deleted job's partition read at a time, and deleted by each of the page's parallel lanes. */
const PURGE_PAGE = 400;
const PURGE_BATCH = 100;
/** The attributes a purge reads of a deleted job's rows: what tells one still counted in its tenant's pool load. */
const PURGE_READ = ['status', 'pooled'];
/** Entries one sweep takes, oldest first across the shards. */
const ENTRIES_PER_SWEEP = 100;
export interface SettleOptions {
  /** How often the sweep looks for jobs to settle. */
  intervalMs: number;
  /** A scope of `tenantId` acting as the sweep (its job commands go through it); called only once the server runs. */
  scopeOf(tenantId: string): Scope;
  /** The workers' lease (JobAggregate needs it for what it derives; a settle changes no lease). */
  leaseSeconds: number;
}

/** What one sweep did: the jobs it finished settling and the items it wrote. */
export interface SettleResult {
  jobs: number;
  items: number;
}

type SettleEntry = EntityItem<'JobSettle'>;
/** The entries that wait for the sweep, oldest first (the index's shards read merged). */
const PENDING = entities.JobSettle.query('', 'pending', {});

export class JobSettler {
  private timer?: NodeJS.Timeout;
  private sweeping?: Promise<SettleResult>;
  /** The timer's last sweep, its failure already reported (see start). */
  private ticking?: Promise<unknown>;

  constructor(
    private readonly store: Store,
    private readonly options: SettleOptions,
  ) {}

  /** How many jobs wait to be settled (all shards; for tests and metrics). */
  async pending(): Promise<number> {
    return (await this.store.queryAll(PENDING, 100_000)).length;
  }

  /**
   * Settles the jobs whose entries it finds (each to the end, page by page); resolves with what it
   * did. Rejects with the first failure after trying every entry it read (the others' progress is
   * kept in their checkpoints). One sweep at a time: a call during a sweep shares it.
   */
  sweep(): Promise<SettleResult> {
    this.sweeping ??= (async () => {
      const result: SettleResult = { jobs: 0, items: 0 };
      let failure: unknown;
      for (const entry of entities.JobSettle.itemsOf(await this.store.queryFirst(PENDING, ENTRIES_PER_SWEEP))) {
        try {
          result.items += await this.settle(entry);
          result.jobs++;
        } catch (error) {
          failure ??= error;
        }
      }
      if (failure) throw failure;
      return result;
    })().finally(() => (this.sweeping = undefined));
    return this.sweeping;
  }

  /** Settles one job from its entry's checkpoint to its last row, then removes the entry; returns the rows written. */
  private async settle(entry: SettleEntry): Promise<number> {
    const owner = jobOwnerOf(entry);
    // An entry of another shape is a fault, surfaced by the sweep.
    if (!owner) throw new Error(`A JobSettle entry with an unexpected key: ${entry.PK}`);
    const { tenantId, jobId } = owner;
    if (entry.deleting) return this.purge(entry, tenantId);
    const items = new JobAggregate(this.options.scopeOf(tenantId), this.options.leaseSeconds);
    const pk = entities.Job.key.pkOf(tenantId, { jobId });
    let checkpoint = entry;
    let written = 0;
    for (;;) {
      // The items, then the step attempts, after the checkpoint: a space sorts below every
      // character of a key, and `$` above the `#` that follows STEP, so the range holds the item
      // keys, then the job's own rows (JOB, SETTLE: passed over), then the step keys after it.
      const page = itemsOfModels(
        [entities.Step, entities.WorkItem] as const,
        await this.store.queryFirst({ pk, skBetween: [checkpoint.after ? `${checkpoint.after} ` : 'ITEM#', 'STEP$'] }, PAGE),
      );
      const last = page.length < PAGE;
      const next = { ...checkpoint, after: page.at(-1)?.SK ?? checkpoint.after, version: checkpoint.version + 1 };
      // The entry moves only if it is still the one read: a job retried out of FAILED removed it,
      // and a deletion marked it; either way this sweep's work on the job is over.
      const moved = () => new SettleStopped();
      const move = last
        ? del({ PK: entry.PK, SK: entry.SK }).ifVersion(checkpoint.version, moved)
        : entities.JobSettle.put(tenantId, next).ifVersion(checkpoint.version, moved);
      try {
        written += await items.settle(jobId, page, move);
      } catch (error) {
        if (error instanceof SettleStopped) return written;
        throw error;
      }
      if (last) return written;
      checkpoint = next;
    }
  }

  /**
   * Deletes what is left of a deleted job's partition, a page at a time, then its entry; returns
   * the rows deleted. The rows are found anew for each page (those deleted are gone), so a crash
   * resumes where it stopped. The rows go in plain batch deletes (Store.deleteEach), not in
   * transactions: nothing reads a deleted job's rows (the job went first, in its own
   * transaction), a page was never deleted whole anyway (its transactions committed apart), and a
   * transactional delete costs twice the write units. DynamoDB Local deleted 4,000 rows this way
   * in 2.1–3.1 s against 7.4–9.3 s in transactions of 100, on the same busy 2 cores.
   */
  private async purge(entry: SettleEntry, tenantId: string): Promise<number> {
    const poolLoad = entities.PoolLoad.keyOf(tenantId, {});
    let deleted = 0;
    for (;;) {
      // Only what tells a row still counted in the pool load, besides the store's own (key, type,
      // expiry): reading the rows whole costs DynamoDB Local and this process the serializing of
      // every attribute, for rows only deleted.
      const page = (await this.store.queryFirst({ pk: entry.PK }, PURGE_PAGE, PURGE_READ)).filter((row) => row.SK !== entry.SK);
      if (page.length === 0) break;
      // A row that still counts goes in a transaction that lowers the load with it (deletesReleasing), at
      // most 99 with the load's own write in DynamoDB's 100; any more are read again. The rest go in plain batches.
      const counted = page.filter(countedInPool).slice(0, 99);
      const rest = page.filter((row) => !countedInPool(row));
      const chunks: (typeof page)[] = [];
      for (let i = 0; i < rest.length; i += PURGE_BATCH) chunks.push(rest.slice(i, i + PURGE_BATCH));
      await Promise.all([
        ...chunks.map((chunk) => this.store.deleteEach(chunk.map((row) => ({ PK: row.PK, SK: row.SK })))),
        ...(counted.length > 0 ? [this.store.transact(deletesReleasing(poolLoad, counted, () => new Stale()))] : []),
      ]);
      deleted += rest.length + counted.length;
    }
    await this.store.transact([del({ PK: entry.PK, SK: entry.SK }).ifVersion(entry.version, () => new Stale())]);
    return deleted;
  }

  start(): void {
    this.timer = setInterval(() => {
      // A sweep is not traced, as the outbox's is not: one that finds nothing, nearly every one,
      // would otherwise start a trace of a Query per shard every interval on every instance.
      this.ticking = untraced(() => this.sweep()).catch((err) => {
        // An outage is summarized by the OutageLog; anything else is worth a line. Either way the
        // entries stay, and the next sweep resumes them from their checkpoints.
        if (!isServiceUnavailable(err)) logger.warn({ err }, 'job settle sweep failed; the next sweep resumes it');
      });
    }, this.options.intervalMs);
    this.timer.unref();
  }

  /**
   * Stops the timer and waits for the sweep it started last, whose failure that tick reports (the
   * log line above); a sweep called directly reports its failure to its own caller.
   */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.ticking;
  }
}
