import { isRecord } from '../guards';
import { setTimeout as sleep } from 'node:timers/promises';
import { driftOf, modelOf } from '../common/drift';
import { SYSTEM_TENANT } from '../auth/principal';
import { entities } from '../common/entities';
import { mutate, Stale } from '../common/mutate';
import type { Scope } from '../common/scope';
import { ErrorCode, AppError } from '../errors';
import { type AnyModel, MODEL_INDEX_ATTRIBUTES, tenantOfPk } from '../infra/dynamo/entity';
import type { Store } from '../infra/dynamo/store';
import { type Item, put } from '../infra/dynamo/write';
import type { SystemWork } from '../system-jobs/runner';
import { type MigrationDeclaration, type SegmentCounts, zeroCounts } from './migration';

/*
 * One segment of a migration's parallel scan: the work of one item of its job. The segment is
 * read a page at a time from its checkpoint; each item of the migration's entities that needs a
 * change is rewritten through the standard write path (mutate: read strongly consistently,
 * decided, committed on condition of the version read with its event; a lost race reads it
 * again and decides again, so a user's edit that came first is kept and the rewrite applies to
 * it). After each page the segment reports its scan position and counts as the item's
 * checkpoint. A holder killed mid-page leaves the page to the next holder, which finds the items
 * it had done already as declared and leaves them: each item is rewritten once.
 */

/** A segment's checkpoint, as its item keeps it. */
export interface SegmentCheckpoint {
  /** Where the scan goes on (DynamoDB's LastEvaluatedKey); absent at the start and once done. */
  next?: Record<string, unknown>;
  /** Rows of any type read so far. */
  read: number;
  counts: SegmentCounts;
  done: boolean;
}

/** What a segment needs of the server. */
export interface SegmentEnv {
  store: Store;
  /** A scope of `tenantId` acting as `actor`, made afresh for each write (its reads are cached per request). */
  scopeOf(tenantId: string, actor: string): Scope;
}

/** What a segment reads of its claimed work item: its job's inputs (the budget), its own (which segment), its checkpoint, how to report. */
export type SegmentWork = Pick<SystemWork, 'checkpoint' | 'report' | 'signal'> & {
  /** A job's inputs may be any JSON value (see Job.inputs); a migration's are an object. The id, when given, lets the segment see which segments are done. */
  job: { inputs?: unknown; jobId?: string };
  item: { inputs: Record<string, unknown> };
};

/** The one stage of a migration's job (src/job/job.kinds.ts): one item per scan segment. */
export const MIGRATION_STAGE = 'scan';

/** The most rows a page of rows that all need a rewrite reads. */
const MAX_PAGE = 100;
/**
 * The most rows one page reads when few of its rows need a rewrite. A row that needs nothing costs
 * no write and no budget, only the scan's read; but every page costs a read of the job's counters
 * and a checkpoint (a transaction and its event). A table's other items (word items, events, the
 * items of other entities) are most of what a migration scans: 4 migrations after a 2,000-entity
 * backfill scanned 12,800 rows each in pages of 100, 128 checkpoints a migration for few writes.
 */
const MAX_SPARSE_PAGE = 500;
/** A page's rewrites take about this long at the segment's budget, so its checkpoint comes every few seconds. */
const PAGE_SECONDS = 5;

/**
 * Rewrites of one page in flight at once: each is a read and a transaction whose round trips
 * would otherwise leave the segment's budget unused; the pace still spaces their starts. A page
 * holds the rows of one partition in key order, so the rewrites in flight are mostly children of
 * one project, whose activity events share its stream: the committer (committer.ts) commits
 * those waiting in that stream's queue together in one transaction. DynamoDB Local wrote 116–172 items a second
 * in transactions of 6 items and 383–412 in transactions of 24, so more in flight means fewer,
 * fuller transactions.
 */
const ROWS_IN_FLIGHT = 16;

/**
 * Runs `fn` on every entry, at most `width` at a time; rejects with the first failure once the
 * runs under way have ended (no new one starts after it).
 */
async function eachOf<T>(entries: readonly T[], width: number, fn: (entry: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failure: { error: unknown } | undefined;
  const lane = async () => {
    while (next < entries.length && !failure) {
      const entry = entries[next++];
      try {
        await fn(entry);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, entries.length) }, lane));
  if (failure) throw failure.error;
}

/** Thrown by a change that finds the item as wanted already: nothing is written. */
class Unchanged extends Error {}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const count = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) ? value : 0);

/** The checkpoint an item holds, or the start of the segment for none (or one of another shape). */
export function checkpointOf(stored: Record<string, unknown> | undefined): SegmentCheckpoint {
  if (!stored) return { read: 0, counts: zeroCounts(), done: false };
  const counts = isObject(stored.counts) ? stored.counts : {};
  return {
    next: isObject(stored.next) ? stored.next : undefined,
    read: count(stored.read),
    counts: {
      scanned: count(counts.scanned),
      rewritten: count(counts.rewritten),
      unchanged: count(counts.unchanged),
      skipped: count(counts.skipped),
      conflicts: count(counts.conflicts),
    },
    done: stored.done === true,
  };
}

/**
 * A write budget: at most `perSecond` takes a second, evenly spaced (no burst), so a segment's
 * writes never run ahead of its share of the migration's declared budget.
 */
export class Pace {
  private next = 0;
  private gapMs: number;

  constructor(perSecond: number) {
    this.gapMs = 1000 / perSecond;
  }

  /** Paces the writes from the next one on at `perSecond`. */
  setRate(perSecond: number): void {
    this.gapMs = 1000 / perSecond;
  }

  /** Waits for the next write's turn; rejects when `signal` aborts meanwhile. */
  async take(signal: AbortSignal): Promise<void> {
    const now = performance.now();
    const at = Math.max(this.next, now);
    this.next = at + this.gapMs;
    if (at > now) await sleep(at - now, undefined, { signal });
  }
}

/** True when `model` is one of the migration's entities. */
const covers = (migration: MigrationDeclaration, model: AnyModel) => migration.entities.some((name) => entities[name] === model);

/**
 * The attributes `item` should have after the migration, or null when it needs nothing: for a
 * re-derive, the item itself when it drifted (mutate recomputes index attributes and words),
 * else the transform's answer.
 */
function changeOf(migration: MigrationDeclaration, model: AnyModel, item: Item): Record<string, unknown> | null {
  if (migration.change === 'rederive') return driftOf(model, item).length > 0 ? item : null;
  if (migration.change === 'reindex') return reindexed(model, item);
  const changed = migration.change(item);
  return changed ? { ...item, ...changed } : null;
}

/**
 * For a 'reindex' migration: the item as read with its index attributes derived again from its
 * attributes and nothing else changed, or null when they are as declared already.
 */
function reindexed(model: AnyModel, item: Item): Item | null {
  if (!driftOf(model, item).some((field) => MODEL_INDEX_ATTRIBUTES.includes(field))) return null;
  const kept = Object.entries(item).filter(([name]) => !MODEL_INDEX_ATTRIBUTES.includes(name));
  return { ...Object.fromEntries(kept), ...model.indexAttributes(tenantOfPk(item.PK), item), PK: item.PK, SK: item.SK };
}

/**
 * Rewrites `row`'s index attributes in place (see MigrationChange 'reindex'), decided in the
 * committer on the item as its group read it (Scope.decide) and written on condition that it is
 * still so: its version, or its updatedAt where it keeps no version. Another writer's change first
 * makes the committer read and decide again, within its rounds (that writer's put derived the
 * index attributes itself, so it is usually found as declared then); past them the error is the
 * segment's (its item is retried from the checkpoint). Resolves true when it wrote, false when it
 * found nothing to do.
 */
async function reindex(scope: Scope, model: AnyModel, row: Item, counts: SegmentCounts): Promise<boolean> {
  const key = { PK: row.PK, SK: row.SK };
  let decisions = 0;
  return scope.decide(key, [key], ([current]) => {
    // A second decision means the first lost its race to another writer, whose change is kept.
    if (decisions++ > 0) counts.conflicts++;
    const next = current && model.is(current) ? reindexed(model, current) : null;
    if (!current || !next) return { writes: [], value: false };
    const lock: Record<string, string | number> | undefined =
      typeof current.version === 'number'
        ? { version: current.version }
        : typeof current.updatedAt === 'string'
          ? { updatedAt: current.updatedAt }
          : undefined;
    // Without either, a concurrent change could not be told from none: a programming error of the
    // migration's declaration (its entities must keep one), which fails the segment and says so.
    if (!lock)
      throw new Error(`${model.type} ${row.PK} / ${row.SK} keeps neither version nor updatedAt: it cannot be re-indexed in place.`);
    return { writes: [put(next).where(lock, () => new Stale())], value: true };
  });
}

/** True when the item's own key is not the one its declaration gives: a migration never moves an item. */
const keyDrifted = (model: AnyModel, item: Item) => driftOf(model, item).some((field) => field === 'PK' || field === 'SK');

/**
 * How many rows the next page of a segment reads, after a page that read `read` rows of which
 * `rewrites` needed a rewrite: as many as hold about `rewritesPerPage` rewrites at that share (rows
 * of one partition sit together, so neighbouring pages look alike), never fewer than
 * `rewritesPerPage` nor more than MAX_SPARSE_PAGE. So the rows a migration leaves alone are read in
 * fewer, larger pages, each with its checkpoint, and a page of rewrites still takes PAGE_SECONDS.
 */
export function nextPageSize(rewritesPerPage: number, read: number, rewrites: number): number {
  if (rewrites === 0) return MAX_SPARSE_PAGE;
  return Math.min(MAX_SPARSE_PAGE, Math.max(rewritesPerPage, Math.round((rewritesPerPage * read) / rewrites)));
}

/**
 * Rewrites one scanned row if the migration applies to it; counts what happened. Resolves true
 * when the row, as scanned, needed a rewrite (it took a turn of the budget).
 */
async function migrateRow(
  env: SegmentEnv,
  migration: MigrationDeclaration,
  pace: Pace,
  row: Item,
  counts: SegmentCounts,
  signal: AbortSignal,
): Promise<boolean> {
  const model = modelOf(row);
  if (!model?.is(row) || !covers(migration, model)) return false;
  counts.scanned++;
  if (keyDrifted(model, row)) {
    counts.skipped++;
    return false;
  }
  // As scanned, most rows of a resumed page need nothing: they cost no write and no budget.
  if (!changeOf(migration, model, row)) {
    counts.unchanged++;
    return false;
  }
  await pace.take(signal);
  const scope = env.scopeOf(tenantOfPk(row.PK), `system:migration-${migration.id}`);
  if (migration.change === 'reindex') {
    if (await reindex(scope, model, row, counts)) counts.rewritten++;
    else counts.unchanged++;
    return true;
  }
  let decisions = 0;
  try {
    await mutate(scope, { model, values: row }, null, (current) => {
      // A second decision means the first lost its race to another writer, whose change is kept.
      if (decisions++ > 0) counts.conflicts++;
      const next = changeOf(migration, model, current);
      if (!next) throw new Unchanged();
      return {
        // The stored item as read, with the transform's changes: an attribute an older declaration
        // wrote (and this one no longer names) is kept as it is, so it is not checked by name here.
        item: next,
        event: { action: model.events.updated, data: { migration: `${migration.id}-${migration.name}`, fields: driftOf(model, current) } },
      };
    });
    counts.rewritten++;
  } catch (error) {
    // Found as wanted on a fresh read (another writer wrote it first), or deleted meanwhile.
    if (error instanceof Unchanged || (error instanceof AppError && error.code === ErrorCode.NOT_FOUND)) {
      counts.unchanged++;
      return true;
    }
    throw error;
  }
  return true;
}

/**
 * Runs one segment of `migration` from the work item's checkpoint to its end (see the top of
 * this file); resolves with the segment's counts. Rejects with a write's error (the item's
 * attempt fails and is retried from the checkpoint), or when the runner stops.
 */
export async function migrateSegment(env: SegmentEnv, migration: MigrationDeclaration, work: SegmentWork): Promise<SegmentCounts> {
  const inputs = work.item.inputs;
  const segment = count(inputs.segment);
  const segments = Math.max(1, count(inputs.segments));
  const jobInputs = isRecord(work.job.inputs) ? work.job.inputs : {};
  const budget = count(jobInputs.itemsPerSecond) || migration.itemsPerSecond;
  const perSegment = budget / segments;
  /** The rewrites a page holds at most: PAGE_SECONDS of the segment's share of the budget. */
  const rewritesPerPage = Math.max(1, Math.min(MAX_PAGE, Math.round(perSegment * PAGE_SECONDS)));
  let pageSize = rewritesPerPage;
  const pace = new Pace(perSegment);
  const jobId = work.job.jobId;
  /**
   * The budget is the run's, shared by the segments still scanning: a table whose rows sit in few
   * partitions (one tenant's projects and logs share one) leaves most segments empty, and the one
   * that holds them took a quarter of the budget while the others had none left to use. Before each
   * page the segment reads its job's item counters and takes its share of the segments not done.
   */
  const shareAgain = async () => {
    if (!jobId) return;
    const job = entities.Job.found(await env.store.get(entities.Job.keyOf(SYSTEM_TENANT, { jobId })));
    const stage = job?.itemCounts?.[MIGRATION_STAGE];
    if (!stage) return;
    pace.setRate(budget / Math.max(1, stage.total - stage.completed - stage.failed));
  };
  const checkpoint = checkpointOf(work.checkpoint);
  const counts = { ...checkpoint.counts };
  let { next, read } = checkpoint;
  if (checkpoint.done) return counts;
  do {
    work.signal.throwIfAborted();
    await shareAgain();
    const page = await env.store.scanPage(segment, segments, pageSize, next);
    let rewrites = 0;
    await eachOf(page.items, ROWS_IN_FLIGHT, async (row) => {
      work.signal.throwIfAborted();
      if (await migrateRow(env, migration, pace, row, counts, work.signal)) rewrites++;
    });
    read += page.read;
    next = page.next;
    pageSize = nextPageSize(rewritesPerPage, page.read, rewrites);
    const done = next === undefined;
    // A scan segment's size is not known before it ends (the table's item count would need
    // DescribeTable, which the runtime is not granted): its progress is 0 until done, and its
    // counts are in the checkpoint (the migrations query shows them); the job's progress is the
    // share of its segments done.
    await work.report(done ? 1 : 0, { next, read, counts, done });
  } while (next);
  return counts;
}
