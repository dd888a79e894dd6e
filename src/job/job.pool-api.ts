import type { OpenedLease } from '../auth/lease';
import type { Context, Repositories } from '../context';
import { badInput, forbidden, invalidTransition, wrongAttempt } from '../errors';
import { declaredKind, fanOutOf } from './job.kinds';
import { StepStatus } from './job.machine';
import type { Claim } from './job.repository';

/*
 * The API's side of the shared worker pools: what a pool worker's claimWork and its reports run with,
 * from the request's context. The scheduler that hands out the claims (job.pool.ts) knows no request.
 */

/** The pools a pool worker's claim may draw from: its token's kinds (and stages), narrowed by the claim's arguments. */
function poolsOf(scope: { kinds: string[]; stages?: string[] }, kind: string | null, stage: string | null) {
  if (kind != null && !scope.kinds.includes(kind)) throw forbidden(`This pool serves the kinds ${scope.kinds.join(', ')}, not ${kind}.`);
  if (stage != null && kind == null) throw badInput('claimWork needs the kind of the stage it names.', 'kind');
  if (stage != null && scope.stages && !scope.stages.includes(stage))
    throw forbidden(`This pool serves the stages ${scope.stages.join(', ')}, not ${stage}.`);
  const serves = (s: string) => (stage == null || s === stage) && (!scope.stages || scope.stages.includes(s));
  return (kind != null ? [kind] : scope.kinds).flatMap((k) =>
    (declaredKind(k)?.stages ?? []).filter((s) => serves(s.name)).map((s) => ({ kind: k, stage: s.name })),
  );
}

/**
 * A pool worker's claimWork: the next step or item of any tenant, by the pools' fair shares
 * (PoolScheduler), with a lease naming exactly it and its attempt, sealed for this worker.
 */
export async function claimPooledWork(
  ctx: Context,
  kind: string | null,
  stage: string | null,
): Promise<(Claim & { tenantId: string; lease: string }) | null> {
  const { principal, leases } = ctx;
  if (!principal?.pool || !leases) throw forbidden('Only a pool worker claims from the pools.');
  const jobsOf = (tenantId: string): Repositories['jobs'] => ctx.reposForPoolClaim(tenantId).jobs;
  // The pool's own pseudo-tenant owns no data: its repositories only reach the process's scheduler.
  const scheduler = jobsOf(principal.tenantId).poolScheduler();
  for (const pool of poolsOf(principal.pool, kind, stage)) {
    const fanOut = fanOutOf({ kind: pool.kind, declared: true }, pool.stage) !== undefined;
    const claimed = await scheduler.next<Claim>(pool.kind, pool.stage, (entry) =>
      jobsOf(entry.tenantId).claim(entry.jobId, fanOut ? undefined : entry.stage, true),
    );
    if (!claimed) continue;
    const held = claimed.item ?? { stage: claimed.step.name, sequence: STEP_SEQUENCE, attempt: claimed.step.attempt };
    const lease = await leases.seal({
      tenantId: claimed.tenantId,
      jobId: claimed.job.jobId,
      stage: held.stage,
      sequence: held.sequence,
      attempt: held.attempt,
      worker: principal.userId,
    });
    return { ...claimed, lease };
  }
  return null;
}

/** The sequence a lease on a single step names: items' sequences start at 1. */
const STEP_SEQUENCE = 0;

/** What a lease names, as a refusal tells it. */
const leased = (lease: OpenedLease) =>
  `${lease.sequence === STEP_SEQUENCE ? 'step' : `item ${lease.sequence} of stage`} ${lease.stage} of job ${lease.jobId}`;

/** The lease a pool worker sends (argument lease), opened for it; FORBIDDEN saying `missing` without one. */
async function openLease(ctx: Context, lease: string | null | undefined, missing: string): Promise<OpenedLease> {
  if (!lease || !ctx.leases || !ctx.principal) throw forbidden(missing);
  return ctx.leases.open(lease, ctx.principal.userId);
}

/** A unit a report names: a work item, or a step without a sequence; with a pool worker's lease. */
type ReportedUnit = { jobId: string; stage: string; sequence?: number; attempt?: number | null; lease?: string | null };

/**
 * The repositories and attempt a report on `unit` runs with: the caller's own and the attempt it
 * named, or, for a pool worker, those of the tenant of its lease, which must name exactly this unit
 * (and attempt, if named), and its attempt.
 */
async function reportRepos(ctx: Context, unit: ReportedUnit): Promise<{ repos: Repositories; attempt: number | null }> {
  if (!ctx.principal?.pool) return { repos: ctx.repos, attempt: unit.attempt ?? null };
  const sequence = unit.sequence ?? STEP_SEQUENCE;
  const what = sequence === STEP_SEQUENCE ? 'a step' : 'an item';
  const lease = await openLease(ctx, unit.lease, `A pool worker reports on ${what} with the lease claimWork handed it (argument lease).`);
  const { jobId, stage, attempt } = lease;
  if (jobId !== unit.jobId || stage !== unit.stage || lease.sequence !== sequence || attempt !== (unit.attempt ?? attempt))
    throw forbidden(`The lease is for ${leased(lease)}, attempt ${attempt}: report on that one.`);
  return { repos: ctx.reposUnderLease(lease), attempt };
}

/** reportRepos of a report on a step attempt (its stepName, the stage). */
export const stepReportRepos = (ctx: Context, ref: { jobId: string; stepName: string; attempt?: number | null; lease?: string | null }) =>
  reportRepos(ctx, { ...ref, stage: ref.stepName });

/** The repositories of a report on a work item (which names its attempt), or of a lost worker's hand-back (bound-workers.ts). */
export const heldUnitRepos = async (ctx: Context, unit: ReportedUnit & { attempt: number }): Promise<Repositories> =>
  (await reportRepos(ctx, unit)).repos;

/**
 * The repositories an addWorkItems runs with: the caller's own, or, for a pool worker, those of the
 * tenant of its lease, which must be on a running attempt of a step of that job (the worker of the
 * stage before a fan-out stage knows its items; a pool worker reaches a tenant only by its leases),
 * so a worker that lost its step adds nothing. A takeover between this read and the add is not
 * seen, as a tenant-bound worker's add (which names no attempt) is not held to one.
 */
export async function itemAdderRepos(ctx: Context, ref: { jobId: string; lease?: string | null }): Promise<Repositories> {
  if (!ctx.principal?.pool) return ctx.repos;
  const missing = 'A pool worker adds work items with the lease claimWork handed it on a step of that job (argument lease).';
  const lease = await openLease(ctx, ref.lease, missing);
  if (lease.jobId !== ref.jobId || lease.sequence !== STEP_SEQUENCE)
    throw forbidden(`The lease is for ${leased(lease)}: a pool worker adds items only to the job whose step it holds.`);
  const repos = ctx.reposUnderLease(lease);
  const current = (await repos.jobs.steps(ref.jobId)).filter((step) => step.name === lease.stage).at(-1);
  if (current && current.attempt !== lease.attempt)
    throw wrongAttempt(`Step ${lease.stage} of job`, ref.jobId, 'add items under', 'step', current.attempt, lease.attempt);
  if (current?.status !== StepStatus.RUNNING) {
    throw invalidTransition('Step', `${lease.stage} of job ${ref.jobId}`, current?.status ?? 'gone', StepStatus.RUNNING, {
      action: 'add items under',
      allowed: [StepStatus.RUNNING],
      hint: 'The attempt your lease names is over: drop its work.',
    });
  }
  return repos;
}
