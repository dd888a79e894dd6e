import { deadLetterCode, entities, type EntityItem } from '../common/entities';
import { assertId } from '../common/ids';
import type { Scope } from '../common/scope';
import { intInRange, optionalText, requireText } from '../common/validate';
import { AppError, badInput } from '../errors';
import { type ArgumentValues, attr, prefixEnd, type ShapeValues, tenantOfPk } from '../infra/dynamo/entity';
import type { PageRequest } from '../infra/dynamo/store';
import type { JobAggregate } from './job.aggregate';
import { declaredKind } from './job.kinds';

/*
 * Dead letters: work items FAILED past their attempts (seed 004's dead-letter queue, "manual
 * replay or investigation required"). They are listed from WorkItem's sparse `deadLetters` index
 * (GSI1, `DEAD#{kind}#{stage}` → `{errorCode}#{finishedAt}#{jobId}#{sequence}`), which every write
 * of an item keeps right: an item enters it when it fails for good and leaves it when it is
 * reopened. A replay reopens them through their jobs' own committers, as retryWorkItem does.
 */

type WorkItemItem = EntityItem<'WorkItem'>;

/** The most dead letters one replayDeadLetters call reopens (and its default). */
export const MAX_REPLAY = 500;
const DEFAULT_REPLAY = 100;
/** Index rows one call reads at most, matching or not (a jobId filter is applied to what it reads). */
const MAX_SCANNED = 2000;
const SCAN_PAGE = 100;
/** Jobs whose dead letters are reopened at once (each job's items go through its own committer). */
const JOBS_AT_ONCE = 4;

/** Which dead letters a replay reopens, declared once: its type here, and the API's DeadLetterFilter input (src/job/job.type.ts). */
export const DEAD_LETTER_FILTER = {
  kind: attr.string({ required: true, description: 'The declared job kind.' }),
  stage: attr.string({ description: 'Only this fan-out stage of it; every fan-out stage of the kind when omitted.' }),
  errorCode: attr.string({ description: 'Only items whose last error has this code.' }),
  jobId: attr.id({ description: 'Only items of this job.' }),
};
export type DeadLetterFilter = ArgumentValues<typeof DEAD_LETTER_FILTER>;

/** What one replay did, declared once: its type here, and the API's DeadLetterReplay (src/job/job.type.ts). */
export const DEAD_LETTER_REPLAY = {
  name: 'DeadLetterReplay',
  description: 'What one replayDeadLetters call did.',
  fields: {
    reopened: attr.int({ required: true, description: 'Dead letters reopened as new attempts (each with its ITEM_RETRIED event).' }),
    skipped: attr.int({
      required: true,
      description:
        'Matching dead letters left as they are: their job moved on past the stage, completed, was cancelled or deleted, or another call reopened them first.',
    }),
    remaining: attr.boolean({
      required: true,
      description: 'True when this call stopped at its bound (max, or the rows one call reads): call again with `after: cursor`.',
    }),
    cursor: attr.string({ nullable: true, description: 'Where the next call goes on (its `after`); null when nothing remains.' }),
  },
} as const;
export type ReplayOutcome = ShapeValues<typeof DEAD_LETTER_REPLAY>;

/** Where a replay goes on: a stage and the last sort key read in it. */
type Position = { stage: string; after: string };

export class DeadLetters {
  constructor(
    private readonly scope: Scope,
    private readonly items: JobAggregate,
  ) {}

  async list(kind: string, stage: string, errorCode: string | null | undefined, page: PageRequest) {
    const spec = this.scope.tenant.of(entities.WorkItem).query('deadLetters', listed(kind, stage, errorCode), { descending: true });
    return entities.WorkItem.pageOf(await this.scope.page(spec, page));
  }

  /** Every tenant's (operators only: the resolver checks the role), the shards of the cross-tenant index read merged. */
  async acrossTenants(kindName: string, stageName: string, errorCode: string | null | undefined, page: PageRequest) {
    const spec = entities.WorkItem.query('', 'deadLettersAcrossTenants', listed(kindName, stageName, errorCode), { descending: true });
    return entities.WorkItem.pageOf(await this.scope.page(spec, page)).map((item) => ({ ...item, tenantId: tenantOfPk(item.PK) }));
  }

  /** Reopens the dead letters matching `filter` by retryWorkItem's decision, at most `max` and MAX_SCANNED index rows a call. */
  async replay(filter: DeadLetterFilter, max: number | null | undefined, after: string | null | undefined): Promise<ReplayOutcome> {
    const checked = checkedFilter(filter.kind, filter.stage, filter.errorCode, 'filter.');
    const jobId = filter.jobId != null ? assertId(filter.jobId, 'job', 'filter.jobId') : undefined;
    const limit = intInRange(max ?? DEFAULT_REPLAY, 'max', 1, MAX_REPLAY);
    const from = after != null ? decodePosition(after, checked.stages) : undefined;
    const { matches, last, bounded } = await this.find({ ...checked, jobId }, limit, from);
    const reopened = await this.reopen(matches, checked.code);
    return { reopened, skipped: matches.length - reopened, remaining: bounded, cursor: bounded && last ? encodePosition(last) : null };
  }

  /** The matching dead letters from `from` on, in index order, until `limit` match or MAX_SCANNED rows were read. */
  private async find({ kind, stages, code, jobId }: ReturnType<typeof checkedFilter> & { jobId?: string }, limit: number, from?: Position) {
    const matches: WorkItemItem[] = [];
    const sortKey = entities.WorkItem.sortAttributeOf('deadLetters');
    let scanned = 0;
    let last: Position | undefined;
    for (const stage of stages.slice(from ? stages.indexOf(from.stage) : 0)) {
      const { index, pk, skPrefix = '' } = this.scope.tenant.of(entities.WorkItem).query('deadLetters', indexValues(kind, stage, code));
      const upper = skPrefix ? prefixEnd(skPrefix) : '\uffff';
      // After the position's key (the least key above it is the key with a NUL appended), within the prefix.
      let lower = from && from.stage === stage && `${from.after}\u0000` > skPrefix ? `${from.after}\u0000` : skPrefix || '\u0000';
      while (lower < upper) {
        const rows = await this.scope.store.queryFirst({ index, pk, skBetween: [lower, upper] }, SCAN_PAGE);
        for (const row of rows) {
          scanned++;
          last = { stage, after: String(row[sortKey]) };
          if (entities.WorkItem.is(row) && (jobId === undefined || row.jobId === jobId)) matches.push(row);
          if (matches.length >= limit || scanned >= MAX_SCANNED) return { matches, last, bounded: true };
        }
        if (rows.length < SCAN_PAGE || !last) break;
        lower = `${last.after}\u0000`;
      }
    }
    return { matches, last, bounded: false };
  }

  /**
   * Reopens each item through its job's committer (a few jobs at a time): how many reopened. One its
   * job refused (moved on, finished, cancelled, deleted, or no longer a dead letter of this code) is skipped.
   */
  private async reopen(matches: WorkItemItem[], code: string | null | undefined): Promise<number> {
    const byJob = new Map<string, WorkItemItem[]>();
    for (const item of matches) byJob.set(item.jobId, [...(byJob.get(item.jobId) ?? []), item]);
    const jobs = [...byJob.values()];
    let reopened = 0;
    const retry = async (item: WorkItemItem) => {
      try {
        await this.items.act(item.jobId, item.stage, item.sequence, { kind: 'retry', errorCode: code ?? undefined });
        reopened++;
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
      }
    };
    for (let i = 0; i < jobs.length; i += JOBS_AT_ONCE)
      await Promise.all(jobs.slice(i, i + JOBS_AT_ONCE).flatMap((items) => items.map(retry)));
    return reopened;
  }
}

/** A filter's kind, its fan-out stages (or only `stage`) and error code, checked: BAD_USER_INPUT naming the field (after `prefix`). */
function checkedFilter(kindName: string, stage: string | null | undefined, errorCode: string | null | undefined, prefix = '') {
  const kind = requireText(kindName, `${prefix}kind`, 100);
  const stages = (declaredKind(kind)?.stages ?? []).filter((s) => s.fanOut).map((s) => s.name);
  if (stages.length === 0) throw badInput(`Kind "${kind}" has no fan-out stage (see jobKinds): it has no work items.`, `${prefix}kind`);
  const named = stage == null ? undefined : requireText(stage, `${prefix}stage`, 48);
  if (named !== undefined && !stages.includes(named))
    throw badInput(`Stage "${named}" is not a fan-out stage of kind ${kind}; its fan-out stages: ${stages.join(', ')}.`, `${prefix}stage`);
  return { kind, stages: named === undefined ? stages : [named], code: optionalText(errorCode, `${prefix}errorCode`, 100) };
}

/** A listing's kind, stage and error code, checked, as the dead-letter indexes' values. */
function listed(kindName: string, stageName: string, errorCode: string | null | undefined) {
  const { kind, stages, code } = checkedFilter(kindName, stageName, errorCode);
  return indexValues(kind, stages[0], code);
}

/** The dead-letter indexes' values of one stage, and of one error code when one is named. */
const indexValues = (kind: string, stage: string, code: string | null | undefined) => ({
  kind,
  stage,
  ...(code != null ? { errorCode: deadLetterCode(code) } : {}),
});

const encodePosition = (position: Position) => Buffer.from(JSON.stringify([position.stage, position.after])).toString('base64url');

/** A replay's `after`: BAD_USER_INPUT unless it is a cursor a replay of these stages returned. */
function decodePosition(cursor: string, stages: string[]): Position {
  const text = Buffer.from(requireText(cursor, 'after', 2000), 'base64url').toString('utf8');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    // Not JSON: not a cursor of ours (a client's mistake), refused below as any other.
  }
  if (!Array.isArray(parsed) || parsed.length !== 2) throw badInput('after is not a cursor that replayDeadLetters returned.', 'after');
  const [stage, after] = parsed;
  if (typeof stage !== 'string' || typeof after !== 'string' || !stages.includes(stage))
    throw badInput('after is not a cursor of a replay of this filter.', 'after');
  return { stage, after };
}
