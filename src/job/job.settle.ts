import { entities, type EntityItem, OPS_SHARDS } from '../common/entities';
import type { Store } from '../infra/dynamo/store';
import { Stale } from '../infra/dynamo/committer';
import { itemsOfModels } from '../infra/dynamo/entity';
import { isServiceUnavailable } from '../infra/dependency';
import { untraced } from '../infra/tracing';
import { del, put, update, type Write } from '../infra/dynamo/write';
import { logger } from '../logger';
import { jobOwnerOf } from './job.keys';
import { ItemStatus } from './job.machine';

/*
 * The settle sweep: a finished job's work items and earlier step attempts take its expiry (so they
 * go with it), and the unfinished items of a cancelled job are cancelled (so they leave the job's
 * claimable index).
 * A job has up to MAX_STAGE_ITEMS items a stage, far more than one transaction holds, so this
 * cannot happen in the transaction that finishes the job; that transaction writes the job's
 * JobSettle entry instead (job.writes.ts), and this sweep works through the entries: a page of
 * items at a time, each item written on condition of its version, the entry's checkpoint (the
 * last item settled) moved after each page, the entry removed when the last page is done. A crash
 * resumes from the checkpoint; a failure is logged and retried at the next sweep; the entry's
 * absence shows the job settled. A deleted job's entry (`deleting`, written by JobRepository.delete
 * when its partition did not fit in the deleting transaction) has the rest of its partition
 * deleted the same way, page by page, then the entry.
 */

/** Items settled per page (each its own conditional write, the page's together in a few transactions). */
const PAGE = 100;
/** Rows of a deleted job's partition read at a time, and deleted by each of the page's parallel lanes. */
const PURGE_PAGE = 400;
const PURGE_BATCH = 100;
/** Entries one sweep takes from each shard. */
const ENTRIES_PER_SHARD = 25;
/** Times an item write is retried after the item changed under it (a retried job's group wrote it). */
const ITEM_ATTEMPTS = 3;

export interface SettleOptions {
  /** How often the sweep looks for jobs to settle. */
  intervalMs: number;
}

/** What one sweep did: the jobs it finished settling and the items it wrote. */
export interface SettleResult {
  jobs: number;
  items: number;
}

type SettleEntry = EntityItem<'JobSettle'>;
/** The rows of a job's partition the sweep settles (its own rows, JOB and SETTLE, are passed over). */
const SETTLED = [entities.Step, entities.WorkItem] as const;
type Settled = EntityItem<'Step'> | EntityItem<'WorkItem'>;

/** The tenant and job of a JobSettle entry; a throw names an entry of another shape (a fault, surfaced by the sweep). */
function ownerOf(entry: SettleEntry): { tenantId: string; jobId: string } {
  const owner = jobOwnerOf(entry);
  if (!owner) throw new Error(`A JobSettle entry with an unexpected key: ${entry.PK}`);
  return owner;
}

export class JobSettler {
  private timer?: NodeJS.Timeout;
  private sweeping?: Promise<SettleResult>;

  constructor(
    private readonly store: Store,
    private readonly options: SettleOptions,
  ) {}

  /** How many jobs wait to be settled (all shards; for tests and metrics). */
  async pending(): Promise<number> {
    let count = 0;
    for (let shard = 0; shard < OPS_SHARDS; shard++) {
      count += (await this.store.queryAll({ ...entities.JobSettle.query('', 'pending', { shard }) }, 100_000)).length;
    }
    return count;
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
      for (let shard = 0; shard < OPS_SHARDS; shard++) {
        const entries = entities.JobSettle.itemsOf(
          await this.store.queryFirst(entities.JobSettle.query('', 'pending', { shard }), ENTRIES_PER_SHARD),
        );
        for (const entry of entries) {
          try {
            result.items += await this.settle(entry);
            result.jobs++;
          } catch (error) {
            failure ??= error;
          }
        }
      }
      if (failure) throw failure;
      return result;
    })().finally(() => (this.sweeping = undefined));
    return this.sweeping;
  }

  /** Settles one job from its entry's checkpoint to its last item, then removes the entry; returns the items written. */
  private async settle(entry: SettleEntry): Promise<number> {
    const { tenantId, jobId } = ownerOf(entry);
    if (entry.deleting) return this.purge(entry);
    let checkpoint = entry;
    let written = 0;
    let after = entry.after;
    for (;;) {
      // The items, then the step attempts, after the checkpoint: a space sorts below every
      // character of a key, and `$` above the `#` that follows STEP, so the range holds the item
      // keys, then the job's own rows (JOB, SETTLE: passed over), then the step keys after it.
      const pk = entities.Job.key.pkOf(tenantId, { jobId });
      const page = await this.store.queryFirst({ pk, skBetween: [after ? `${after} ` : 'ITEM#', 'STEP$'] }, PAGE);
      written += await this.settlePage(tenantId, itemsOfModels(SETTLED, page), checkpoint);
      if (page.length < PAGE) break;
      after = page[page.length - 1].SK;
      // The checkpoint moves only if the entry is still the one read: a job retried out of FAILED
      // removed it, and then there is nothing left to settle.
      const next = { ...checkpoint, after, version: checkpoint.version + 1 };
      if (!(await this.moveEntry([entities.JobSettle.put(tenantId, next).ifVersion(checkpoint.version, () => new Stale())])))
        return written;
      checkpoint = next;
    }
    await this.moveEntry([del({ PK: entry.PK, SK: entry.SK }).ifVersion(checkpoint.version, () => new Stale())]);
    return written;
  }

  /**
   * Writes the entry on condition of the version this sweep holds; false when someone else moved
   * it first: a job retried out of FAILED removed it (nothing is left to settle), or the job was
   * deleted and the entry now says so (the next sweep deletes what is left). Either way this
   * sweep's work on the job is over.
   */
  private async moveEntry(writes: Write[]): Promise<boolean> {
    try {
      await this.store.transact(writes);
      return true;
    } catch (error) {
      if (error instanceof Stale) return false;
      throw error;
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
  private async purge(entry: SettleEntry): Promise<number> {
    let deleted = 0;
    for (;;) {
      const page = (await this.store.queryFirst({ pk: entry.PK }, PURGE_PAGE)).filter((row) => row.SK !== entry.SK);
      if (page.length === 0) break;
      const chunks: (typeof page)[] = [];
      for (let i = 0; i < page.length; i += PURGE_BATCH) chunks.push(page.slice(i, i + PURGE_BATCH));
      await Promise.all(chunks.map((chunk) => this.store.deleteEach(chunk.map((row) => ({ PK: row.PK, SK: row.SK })))));
      deleted += page.length;
    }
    await this.store.transact([del({ PK: entry.PK, SK: entry.SK }).ifVersion(entry.version, () => new Stale())]);
    return deleted;
  }

  /**
   * Settles one page of a job's rows: its items and earlier step attempts, each written on
   * condition of being as read, together in a few transactions (Store.transactEach) rather than
   * one each; returns the rows written. An item that changed since it was read (a retried job's
   * group wrote it) is read again and settled as it is now, up to ITEM_ATTEMPTS times (past them
   * the sweep fails, and the next one resumes from the checkpoint); a step attempt that changed is
   * passed over (see stepWrite).
   */
  private async settlePage(tenantId: string, page: Settled[], entry: { jobExpiresAt: number; cancelled?: boolean }): Promise<number> {
    let rows = page;
    let written = 0;
    for (let attempt = 1; ; attempt++) {
      const planned = rows.flatMap((row) => {
        const writes = entities.Step.is(row) ? stepWrite(row, entry) : itemWrites(tenantId, row, entry);
        return writes ? [{ row, writes }] : [];
      });
      const committed = await this.store.transactEach(planned.map((p) => p.writes));
      written += committed.filter(Boolean).length;
      const changed = planned.filter((p, i) => !committed[i] && entities.WorkItem.is(p.row)).map((p) => p.row);
      if (changed.length === 0) return written;
      if (attempt >= ITEM_ATTEMPTS) throw new Error(`${changed.length} items of a job kept changing while it was settled`);
      rows = itemsOfModels(SETTLED, await this.store.batchGet(changed.map((row) => ({ PK: row.PK, SK: row.SK }))));
    }
  }

  start(): void {
    this.timer = setInterval(() => {
      // A sweep is not traced, as the outbox's is not: one that finds nothing, nearly every one,
      // would otherwise start a trace of a Query per shard every interval on every instance.
      untraced(() => this.sweep()).catch((err) => {
        // An outage is summarized by the OutageLog; anything else is worth a line. Either way the
        // entries stay, and the next sweep resumes them from their checkpoints.
        if (!isServiceUnavailable(err)) logger.warn({ err }, 'job settle sweep failed; the next sweep resumes it');
      });
    }, this.options.intervalMs);
    this.timer.unref();
  }

  /** Stops the timer and waits for a sweep under way (whose failure its starter logs or reports). */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.sweeping?.then(
      () => undefined,
      () => undefined,
    );
  }
}

/**
 * The write that gives one step attempt its job's expiry; none when it has it. Only earlier
 * attempts lack it (the finishing transaction gave it to the current ones), and an earlier
 * attempt is never written again, so the write is conditioned on the attempt being as read, and
 * one that fails is passed over.
 */
function stepWrite(step: EntityItem<'Step'>, entry: { jobExpiresAt: number }): Write[] | null {
  if (step.expiresAt === entry.jobExpiresAt) return null;
  const asRead = { status: step.status, updatedAt: step.updatedAt };
  return [put({ ...step, expiresAt: entry.jobExpiresAt }).where(asRead)];
}

/**
 * The writes that give one item its job's expiry (and cancel it if unfinished in a cancelled job),
 * on condition of its version; none when there is nothing to do.
 */
function itemWrites(tenantId: string, item: EntityItem<'WorkItem'>, entry: { jobExpiresAt: number; cancelled?: boolean }): Write[] | null {
  const unfinished = item.status === ItemStatus.PENDING || item.status === ItemStatus.RUNNING;
  const cancel = entry.cancelled === true && unfinished;
  if (!cancel && item.expiresAt === entry.jobExpiresAt) return null;
  const status = cancel ? ItemStatus.CANCELLED : item.status;
  if (status !== item.status) entities.WorkItem.assertTransition(`${item.stage}#${item.sequence}`, item.status, status);
  const settled = {
    ...item,
    status,
    ...(cancel ? { leaseExpiresAt: undefined } : {}),
    expiresAt: entry.jobExpiresAt,
    version: item.version + 1,
  };
  // A running attempt a pool worker held leaves the tenant's pool load with it.
  const unload = cancel && item.status === ItemStatus.RUNNING && item.pooled === true;
  return [
    entities.WorkItem.put(tenantId, { ...settled, pooled: undefined }).ifVersion(item.version),
    ...(unload ? [update(entities.PoolLoad.keyOf(tenantId, {})).addNumber('running', -1)] : []),
  ];
}
