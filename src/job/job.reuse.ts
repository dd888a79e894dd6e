import { createHash } from 'node:crypto';
import type { BoundTenant } from '../common/bound-tenant';
import { entities, type EntityItem, REUSE_SOURCE, type ReuseSourceItem } from '../common/entities';
import { attr, type ShapeValues } from '../infra/dynamo/entity';
import { canonicalJson } from '../common/idempotency';
import type { Store } from '../infra/dynamo/store';
import type { Write } from '../infra/dynamo/write';
import { type ReuseDeclaration, stageOf, stageReuse } from './job.kinds';
import { StepStatus, type StepState } from './job.machine';

/*
 * Reuse by content hash (seed 000's pipeline idempotency: `hash(project_id, asset_type, step_name,
 * inputs, seed, model_version)` with a TTL). A stage declared reusable (job.kinds.ts `reuse`) records
 * the outputs of each completed step or item under a content key (contentKey), in the completion's
 * own transaction; a later step or item of the tenant with the same key, within the declared time,
 * completes at once from them, in its job's group, with an event naming the source, and is never
 * claimable. Records are per tenant, across its projects: the seed's project_id is left out on
 * purpose, as the same prompt, seed and model give the same result in any of a studio's projects,
 * and the outputs (S3 keys under the tenant's prefix) are readable from all of them.
 *
 * The records a group needs are read before it decides (GroupRead.reuseRecords): safe, since a
 * record is only ever replaced by a newer completion, never taken back, and whether it is still
 * live is judged in the decision against the group's own time.
 */

export type ReuseRecordItem = EntityItem<'ReuseRecord'>;

/** What one reuse completed and where its outputs came from, as the event carries it and the API's ReusedWork shows it. */
export const REUSED_WORK = {
  name: 'ReusedWork',
  description: 'A step or work item that completed from stored outputs, and where they came from.',
  fields: {
    stage: attr.string({ required: true, description: 'The stage of the step or item that completed.' }),
    sequence: REUSE_SOURCE.fields.sequence,
    from: attr.objectOf(REUSE_SOURCE)({ required: true, description: 'Whose outputs it took.' }),
  },
} as const;
export type ReusedWork = ShapeValues<typeof REUSED_WORK>;

/** What a reuse decision reads of the job. */
type ReuseJob = Pick<EntityItem<'Job'>, 'jobId' | 'kind' | 'declared' | 'inputs' | 'seed' | 'modelVersion' | 'reuse'>;

/** The reuse declaration of `stage` of a declared job; undefined when not reusable (see stageReuse in job.kinds.ts). */
export function reuseOf(job: Pick<ReuseJob, 'kind' | 'declared'>, stage: string): ReuseDeclaration | undefined {
  const declared = stageOf(job, stage);
  return declared && stageReuse(declared);
}

/** False when the job asked not to take stored outputs (createJob reuse: false). */
export const takesReuse = (job: Pick<ReuseJob, 'reuse'>): boolean => job.reuse !== false;

const picked = (values: unknown, fields: string[] | undefined): Record<string, unknown> => {
  const all = typeof values === 'object' && values !== null && !Array.isArray(values) ? Object.entries(values) : [];
  return Object.fromEntries(fields ? all.filter(([name]) => fields.includes(name)) : all);
};

/**
 * The content key of a step of `stage` (no `itemInputs`) or of an item with `itemInputs`: a hash of
 * the kind, the stage, the declared key fields (an item's take the job's too), the seed and the model
 * version. Absent fields hash as absent, so an omitted optional field and one never declared are the same.
 */
export function contentKey(job: ReuseJob, stage: string, itemInputs?: Record<string, unknown>): string {
  const declared = reuseOf(job, stage);
  const material = canonicalJson({
    kind: job.kind,
    stage,
    inputs: picked(itemInputs ?? job.inputs, declared?.keyFields),
    jobInputs: itemInputs ? picked(job.inputs, declared?.jobKeyFields) : undefined,
    seed: job.seed ?? null,
    modelVersion: job.modelVersion ?? null,
  });
  return createHash('sha256').update(material).digest('base64url');
}

/** True when `record` exists and may still stand in at `at` (its declared time has not run out). */
export function liveRecord(record: ReuseRecordItem | undefined, at: string): record is ReuseRecordItem {
  return record !== undefined && record.expiresAt !== undefined && record.expiresAt * 1000 > Date.parse(at);
}

/** Where a record's outputs came from. */
export function sourceOf(record: ReuseRecordItem): ReuseSourceItem {
  return { jobId: record.jobId, stage: record.stage, sequence: record.sequence, completedAt: record.completedAt };
}

/**
 * The record of a step (no `item`) or item of a reusable stage that a worker completed at `at`: a
 * put, so a later completion with the same key replaces it and its time. Only workers' completions
 * record (JobAggregate.decideOn), so a record's time is never extended by reusing it.
 */
export function recordWrites(
  tenant: BoundTenant,
  job: ReuseJob,
  stage: string,
  produced: { outputs?: Record<string, unknown> | null; artifacts?: string[]; metrics?: Record<string, unknown> | null },
  at: string,
  item?: { sequence: number; inputs: Record<string, unknown> },
): Write[] {
  const declared = reuseOf(job, stage);
  if (!declared) return [];
  return [
    tenant.of(entities.ReuseRecord).put({
      contentKey: contentKey(job, stage, item?.inputs),
      jobId: job.jobId,
      kind: job.kind,
      stage,
      sequence: item?.sequence,
      outputs: produced.outputs ?? undefined,
      artifacts: produced.artifacts?.length ? produced.artifacts : undefined,
      metrics: produced.metrics ?? undefined,
      completedAt: at,
      expiresAt: Math.floor(Date.parse(at) / 1000) + Math.round(declared.ttlHours * 3600),
    }),
  ];
}

/** The content keys of the job's reusable steps whose current attempt waits (see JobAggregate.reuseRecords); none without reuse. */
export function waitingStepKeys(job: ReuseJob & { plan: { name: string }[] }, steps: ReadonlyMap<string, StepState>): string[] {
  if (!job.declared || !takesReuse(job)) return [];
  return job.plan
    .filter((p) => reuseOf(job, p.name) && steps.get(p.name)?.status === StepStatus.PENDING)
    .map((p) => contentKey(job, p.name));
}

/** The records of `keys` of the tenant, by content key (absent ones left out). */
export async function readRecords(store: Store, tenant: BoundTenant, keys: readonly string[]): Promise<Map<string, ReuseRecordItem>> {
  const unique = [...new Set(keys)];
  if (unique.length === 0) return new Map();
  const model = tenant.of(entities.ReuseRecord);
  const rows = await store.batchGet(unique.map((contentKey) => model.keyOf({ contentKey })));
  return new Map(entities.ReuseRecord.itemsOf(rows).map((row) => [row.contentKey, row]));
}
