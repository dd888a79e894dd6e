import type { GraphQLResolveInfo } from 'graphql';
import { Arg, Args, Authorized, Ctx, FieldResolver, Float, ID, Info, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import { Role, SYSTEM_TENANT } from '../auth/principal';
import { PageArgs, pageRequest, ProjectPageArgs } from '../common/pagination';
import { DateTime, JSONObject, JSONValue } from '../common/scalars';
import { feature } from '../common/feature';
import { ObjectIdResolver } from '../common/global-id';
import { optionalText, requireText } from '../common/validate';
import type { Context } from '../context';
import { keyArg, tenantArg } from '../common/standard-resolver';
import {
  CreateJobInput,
  Job,
  JobConnection,
  JobEvent,
  ClaimedWork,
  PoolShare,
  DeadLetterFilter,
  DeadLetterReplay,
  DeadLettersArgs,
  JobKind,
  JobsAcrossTenantsArgs,
  DeadLettersAcrossTenantsArgs,
  JobItemsArgs,
  JobsByStatusArgs,
  ItemCounts,
  WorkItem,
  WorkItemConnection,
  WorkItemKey,
  WorkItemRef,
  Step,
  StepConnection,
  StepRef,
  HeldStepRef,
} from './job.type';
import { type HeldUnitRef, JobRepository } from './job.repository';
import { jobOwnerOf } from './job.keys';
import { kindViews, phaseOf } from './job.kinds';
import { takesReuse } from './job.reuse';
import { itemOfEvent, jobOfEvent, stageItemCounts, stepOfEvent, totalItemCounts } from './job.writes';
import { claimPooledWork, heldUnitRepos, itemAdderRepos, stepReportRepos } from './job.pool-api';
import { ItemStatus, type JobAction, onStep } from './job.machine';
import { ExpiresIn } from '../common/args';

/** What a worker's report on a unit it holds may do (its attempt is the one the report names or its lease holds). */
type HeldAction = Extract<JobAction, { kind: 'progress' | 'complete' | 'fail' | 'pause' | 'handBack' }>;

/**
 * A worker's report on the step attempt it holds, through the repositories of the step's tenant
 * (stepReportRepos throws FORBIDDEN for a pool worker's lease on another step), on the attempt its
 * lease names: the job as the report left it.
 */
async function actOnHeldStep(ctx: Context, ref: HeldStepRef, action: HeldAction) {
  const workerId = workerIdOf(ref.workerId);
  const { repos, attempt } = await stepReportRepos(ctx, ref);
  const job = await repos.jobs.act(ref.jobId, onStep(ref.stepName, { ...action, attempt }));
  noteReleased(ctx, action, repos.jobs, { jobId: ref.jobId, stage: ref.stepName, attempt: attempt ?? undefined }, workerId);
  return job;
}

/** A worker's report on a work item it holds, as actOnHeldStep's on a step (see heldUnitRepos): the item as it left it. */
async function actOnHeldItem(ctx: Context, ref: WorkItemRef, action: HeldAction) {
  const workerId = workerIdOf(ref.workerId);
  const { jobId, stage, sequence, attempt } = ref;
  const { jobs } = await heldUnitRepos(ctx, ref);
  const { item } = await jobs.items.act(jobId, stage, sequence, { ...action, attempt });
  noteReleased(ctx, action, jobs, { jobId, stage, sequence, attempt }, workerId);
  return item;
}

/** The process a claim or report names (checked before it acts, so a bad one changes nothing). */
const workerIdOf = (workerId: string | null | undefined) => (workerId == null ? undefined : requireText(workerId, 'workerId', 100));

/** The job repository a worker's claims go through: a pool worker's pool's (as claimPooledWork's), a tenant worker's own. */
function claimingJobs(ctx: Context): JobRepository {
  return ctx.principal?.pool ? ctx.reposForPoolClaim(ctx.principal.tenantId).jobs : ctx.repos.jobs;
}

/**
 * Tells the claims' observer when a report (any but progress) ended the attempt of `unit`, of the
 * tenant `reported` serves: through the claiming side's repositories, so that the worker is named
 * as its claims named it (a pool worker by its pool).
 */
function noteReleased(ctx: Context, action: HeldAction, reported: JobRepository, unit: Omit<HeldUnitRef, 'tenantId'>, workerId?: string) {
  if (action.kind !== 'progress') claimingJobs(ctx).noteReleased({ ...unit, tenantId: reported.tenantId }, workerId);
}

/**
 * Tells the claims' observer that process `workerId` holds what it claimed, with how to reach the
 * unit's tenant later as a report on it would (a pool worker's through its lease), from a context
 * of its own: the request's repositories are done with once it answers.
 */
function noteHeld(jobs: JobRepository, ctx: Context, workerId: string, claimed: HeldClaim) {
  const later = ctx.detached();
  const { job, step, item, tenantId, lease } = claimed;
  if (!tenantId) return;
  const unit = item
    ? { tenantId, jobId: job.jobId, stage: item.stage, sequence: item.sequence, attempt: item.attempt, lease }
    : { tenantId, jobId: job.jobId, stage: step.name, attempt: step.attempt, lease };
  jobs.noteHeld(workerId, unit, () => heldUnitRepos(later, unit));
}

/** Hands back the unit of a claim whose answer failed (see claimWork), as its worker would, through the claiming side's repositories. */
async function handBackUnanswered(ctx: Context, claimed: HeldClaim, workerId?: string): Promise<void> {
  const { job, step, item, tenantId } = claimed;
  const jobs = ctx.principal?.pool && tenantId ? ctx.reposForPoolClaim(tenantId).jobs : ctx.repos.jobs;
  const handBack = { kind: 'handBack' as const };
  if (item) await jobs.items.act(job.jobId, item.stage, item.sequence, { ...handBack, attempt: item.attempt });
  else await jobs.act(job.jobId, onStep(step.name, { ...handBack, attempt: step.attempt }));
  noteReleased(
    ctx,
    handBack,
    jobs,
    { jobId: job.jobId, stage: item?.stage ?? step.name, sequence: item?.sequence, attempt: item?.attempt ?? step.attempt },
    workerId,
  );
}

/** What noteHeld reads of a claim (claimWork's answer). */
interface HeldClaim {
  job: { jobId: string };
  step: { name: string; attempt: number };
  item?: { stage: string; sequence: number; attempt: number } | null;
  /** Always there: a tenant worker's claim is its token's tenant's (typed optional as the principal is). */
  tenantId?: string;
  lease: string | null;
}

/** type-graphql's Query or Mutation (`operation`), which only `roles` may call (none named: any signed-in caller). */
const withRoles =
  (operation: typeof Query | typeof Mutation) =>
  (roles: Role[], ...options: Parameters<typeof Query>): MethodDecorator =>
  (target, key, descriptor) => {
    Authorized(...roles)(target, key, descriptor);
    operation(...options)(target, key, descriptor);
  };
const RoleQuery = withRoles(Query);
const RoleMutation = withRoles(Mutation);

/** A worker's report on the unit it holds: a tenant's workers and pool workers (through the lease they pass) send them. */
const WorkerReport = (returns: () => typeof Job | typeof WorkItem, description: string) =>
  RoleMutation([Role.WORKER, Role.POOL], returns, { description });

/** The options of an argument a client may omit (null), described by `description`. */
const optional = (description: string) => ({ nullable: true, description });

/** What a step's report may say was measured. */
const METRICS = optional('What was measured (GPU seconds …), as a JSON object.');

// This feature adds its repository to ctx.repos itself, so that the context imports no feature (see src/context.ts).
declare module '../context' {
  interface Repositories {
    jobs: JobRepository;
  }
}

@Resolver(() => Step)
export class StepResolver {
  @FieldResolver(() => [String], { description: 'Presigned GETs of the artifacts, in order, made now (default 1 hour).' })
  artifactUrls(@Root() step: Step, @ExpiresIn() expiresIn: number | null, @Ctx() ctx: Context) {
    return Promise.all((step.artifacts ?? []).map((key) => ctx.repos.files.downloadUrl(key, expiresIn)));
  }
}

/**
 * The job repository of the partition `job` was read from, where its fields read its steps and
 * items: the system partition's for one of the server's own jobs (see Context.system), else the caller's.
 */
function jobsOf(ctx: Context, job: object): JobRepository {
  const owner = 'PK' in job ? jobOwnerOf({ PK: job.PK }) : undefined;
  return ctx.reposOf(owner?.tenantId === SYSTEM_TENANT).jobs;
}

@Resolver(() => Job)
export class JobResolver {
  @RoleQuery([], () => Job, { nullable: true, description: 'A job with all its step attempts; seq is where to subscribe from.' })
  job(
    @keyArg('jobId') jobId: string,
    @Arg('system', () => Boolean, {
      nullable: true,
      description: 'True for the server’s own jobs (migrations, archiving: the system partition): operators only, FORBIDDEN otherwise.',
    })
    system: boolean | null,
    @Ctx() ctx: Context,
  ) {
    return ctx.reposOf(system).jobs.get(jobId);
  }

  @RoleQuery([], () => JobConnection, { description: "A project's jobs, newest first." })
  jobs(@Args(() => ProjectPageArgs) args: ProjectPageArgs, @Ctx() ctx: Context) {
    return ctx.repos.jobs.ofProject(args.projectId, pageRequest(args));
  }

  @RoleQuery([], () => JobConnection, { description: "The tenant's jobs in one status, most recently changed first." })
  jobsByStatus(@Args(() => JobsByStatusArgs) args: JobsByStatusArgs, @Ctx() ctx: Context) {
    return ctx.reposOf(args.system).jobs.byStatus(args.status, pageRequest(args));
  }

  @RoleQuery([], () => JobConnection, { description: "The caller's job history, newest first." })
  myJobs(@Args(() => PageArgs) args: PageArgs, @Ctx() ctx: Context) {
    return ctx.repos.jobs.mine(pageRequest(args));
  }

  @RoleQuery([], () => StepConnection, { description: 'Steps paused for review, most recent first.' })
  stepsAwaitingReview(@Args(() => PageArgs) args: PageArgs, @Ctx() ctx: Context) {
    return ctx.repos.jobs.awaitingReview(pageRequest(args));
  }

  @RoleQuery([Role.OPERATOR], () => JobConnection, {
    description: 'Operators only: jobs in one status across all tenants, most recently changed first.',
  })
  jobsAcrossTenants(@Args(() => JobsAcrossTenantsArgs) { status, first, after }: JobsAcrossTenantsArgs, @Ctx() ctx: Context) {
    return ctx.system().repos.jobs.acrossTenants(status, { first, after });
  }

  @RoleMutation([Role.EDITOR], () => Job, {
    description: 'Creates a job, or returns the one an identical earlier request created (idempotent).',
  })
  createJob(
    @Arg('input', () => CreateJobInput, { description: 'What the new one is made of.' }) input: CreateJobInput,
    @Ctx() ctx: Context,
  ) {
    return ctx.repos.jobs.create(input);
  }

  @RoleMutation([Role.WORKER], () => Job, { description: 'Worker: starts the current step (PENDING → RUNNING).' })
  startStep(@Args(() => StepRef) { jobId, stepName }: StepRef, @Ctx() ctx: Context) {
    return ctx.repos.jobs.act(jobId, onStep(stepName, { kind: 'start' }));
  }

  @WorkerReport(() => Job, 'Worker: reports a running step’s progress (0 to 1).')
  async reportStepProgress(
    @Args(() => HeldStepRef) ref: HeldStepRef,
    @Arg('progress', () => Float, { description: 'From 0 to 1.' }) progress: number,
    @Arg('metrics', () => JSONObject, METRICS) metrics: Record<string, unknown> | null,
    @Ctx() ctx: Context,
  ) {
    return actOnHeldStep(ctx, ref, { kind: 'progress', progress, metrics });
  }

  @WorkerReport(
    () => Job,
    'Worker: completes a running step with its artifacts (S3 keys), metrics and outputs (checked against the stage of a declared kind; a stage declared for review pauses instead).',
  )
  async completeStep(
    @Args(() => HeldStepRef) ref: HeldStepRef,
    @Arg('artifacts', () => [String], {
      defaultValue: [],
      description: 'S3 keys of what the step produced, under tenants/<your tenant>/ (no URLs).',
    })
    artifacts: string[],
    @Arg('metrics', () => JSONObject, METRICS) metrics: Record<string, unknown> | null,
    @Arg('outputs', () => JSONObject, optional("The stage's outputs, checked against its declared fields like createJob's inputs."))
    outputs: Record<string, unknown> | null,
    @Ctx() ctx: Context,
  ) {
    return actOnHeldStep(ctx, ref, { kind: 'complete', artifacts, metrics, outputs });
  }

  @WorkerReport(() => Job, 'Worker: fails a running step; a new attempt follows while attempts remain, else the job fails.')
  async failStep(
    @Args(() => HeldStepRef) ref: HeldStepRef,
    @Arg('code', { description: 'A stable code of your own for the failure, such as OUT_OF_MEMORY.' }) code: string,
    @Arg('message', { description: 'What went wrong, in words.' }) message: string,
    @Ctx() ctx: Context,
  ) {
    return actOnHeldStep(ctx, ref, { kind: 'fail', code, message });
  }

  @WorkerReport(
    () => Job,
    'Worker: pauses a running step for a person’s review; approveStep then completes it. A stage of a declared kind that requires outputs is completed with them instead (completeStep), since an approval would complete it without them.',
  )
  async pauseStepForReview(@Args(() => HeldStepRef) ref: HeldStepRef, @Ctx() ctx: Context) {
    return actOnHeldStep(ctx, ref, { kind: 'pause' });
  }

  @WorkerReport(
    () => Job,
    'Worker: hands back a running step it holds, unfinished (a stopping worker): a new attempt waits, claimable at once with no backoff, and this one (HANDED_BACK) is not counted against the attempts (event STEP_HANDED_BACK).',
  )
  async handBackStep(@Args(() => HeldStepRef) ref: HeldStepRef, @Ctx() ctx: Context) {
    return actOnHeldStep(ctx, ref, { kind: 'handBack' });
  }

  @RoleMutation([Role.EDITOR], () => Job, { description: 'Approves a paused step: it completes and the job goes on.' })
  approveStep(
    @Args(() => StepRef) { jobId, stepName }: StepRef,
    @Arg('comment', () => String, optional('Kept with the decision in the activity trail.')) comment: string | null,
    @Ctx() ctx: Context,
  ) {
    return ctx.repos.jobs.act(jobId, onStep(stepName, { kind: 'approve' }), { comment: optionalText(comment, 'comment', 2000) });
  }

  @RoleMutation([Role.EDITOR], () => Job, { description: 'Rejects a paused step: it fails and so does the job (retryJob runs it again).' })
  rejectStep(
    @Args(() => StepRef) { jobId, stepName }: StepRef,
    @Arg('reason', { description: 'Why it is rejected (at most 2,000 characters); recorded in the audit trail.' }) reason: string,
    @Ctx() ctx: Context,
  ) {
    // Refused past its bound, as approveStep's comment is: a person's words are not cut short unseen.
    return ctx.repos.jobs.act(jobId, onStep(stepName, { kind: 'reject', reason: requireText(reason, 'reason', 2000) }));
  }

  @RoleMutation([Role.EDITOR], () => Job, { description: 'Cancels a job that has not finished: its waiting steps are SKIPPED.' })
  cancelJob(@keyArg('jobId') jobId: string, @Ctx() ctx: Context) {
    return ctx.repos.jobs.act(jobId, { action: { kind: 'cancel' } });
  }

  @RoleMutation([Role.EDITOR], () => Job, { description: 'Runs a failed job again from its failed step, as a new attempt.' })
  retryJob(@keyArg('jobId') jobId: string, @Ctx() ctx: Context) {
    return ctx.repos.jobs.act(jobId, { action: { kind: 'retry' } });
  }

  @RoleMutation([Role.OPERATOR], () => PoolShare, {
    description:
      "Operator: sets a tenant's share of the shared worker pools: its weight (claims are handed out in proportion among the tenants with work) and the most items it may have running through pools at once.",
  })
  setPoolShare(
    @tenantArg() tenantId: string,
    @Arg('weight', () => Int, { description: 'From 1 to 1,000; 1 is every tenant’s default.' }) weight: number,
    @Arg('maxRunning', () => Int, optional('The running limit; null for none.')) maxRunning: number | null,
    @Ctx() ctx: Context,
  ) {
    return ctx.system().repos.jobs.setPoolShare(tenantId, weight, maxRunning);
  }

  @RoleMutation([Role.WORKER, Role.POOL], () => ClaimedWork, {
    nullable: true,
    description:
      'Worker: takes the next step or work item of your tenant that is waiting (optionally of one job kind, and one stage of it), or whose worker stopped reporting (a new attempt), and starts it with a lease that your progress reports renew (JOB_LEASE_SECONDS). Each goes to one worker however many ask at once. A pool worker (role pool) takes the next step or work item of its kinds of any tenant, by the tenants’ fair shares, and gets a lease to report with. Null when there is no work. A claim whose answer fails (a field you selected is refused) is handed back at once: select only what a worker may read.',
  })
  async claimWork(
    @Arg('kind', () => String, optional('Only work of this job kind; any kind when omitted.')) kind: string | null,
    @Arg('stage', () => String, optional('Only work of this stage (a step name or a fan-out stage); needs kind.'))
    stage: string | null,
    @Arg('workerId', () => String, {
      nullable: true,
      description:
        'Your process’s own id (a random one per process), as on your workSignals subscription, sent only while that subscription is open (a polling worker sends none: nothing would hear it): what you claim is bound to that subscription, and handed back a short grace (WORKER_GRACE_SECONDS) after its connection is lost. Omitted: nothing is bound.',
    })
    workerId: string | null,
    @Ctx() ctx: Context,
    @Info() info: GraphQLResolveInfo,
    // Typed as what this file reads of the claim, not inferred: tsc's incremental build overflowed
    // its stack serializing the inferred type whenever this file changed after a build.
  ): Promise<HeldClaim | null> {
    // Checked before the claim: a claim taken and then refused would wait for its lease.
    const bindAs = workerIdOf(workerId);
    const claimed = ctx.principal?.pool
      ? await claimPooledWork(ctx, kind, stage)
      : await ctx.repos.jobs.claimWork(kind, stage).then((c) => c && { ...c, tenantId: ctx.principal?.tenantId, lease: null });
    // Signals of new work go to idle workers first: a claim that found none says this one is.
    const jobs = claimingJobs(ctx);
    jobs.noteClaim(claimed !== null);
    if (!claimed) return null;
    if (bindAs !== undefined) noteHeld(jobs, ctx, bindAs, claimed);
    // An answer that fails (a field the worker selected is refused) leaves the worker without its
    // unit's attempt and lease: the unit would wait for the lease, then count as a failed attempt.
    ctx.undoUnlessAnswered(info.path.key.toString(), () => handBackUnanswered(ctx, claimed, bindAs));
    return claimed;
  }

  @RoleMutation([Role.WORKER, Role.POOL], () => Job, {
    description:
      'Worker: adds work items to a fan-out stage that has not finished (typically from the stage before it), each its typed inputs; at most 80 a call and 10,000 a stage. A pool worker adds to the job whose step it holds, passing that lease.',
  })
  async addWorkItems(
    @keyArg('jobId', 'The job.') jobId: string,
    @Arg('stage', { description: 'The fan-out stage to add to.' }) stage: string,
    @Arg('items', () => [JSONObject], { description: "Each item's typed inputs (the stage's item inputs, see jobKinds)." })
    items: Record<string, unknown>[],
    @Arg('lease', () => String, {
      nullable: true,
      description: "A pool worker's lease on a running step of this job, as claimWork handed it (a tenant's worker sends none).",
    })
    lease: string | null,
    @Ctx() ctx: Context,
  ) {
    return (await itemAdderRepos(ctx, { jobId, lease })).jobs.items.add(jobId, stage, items);
  }

  @WorkerReport(() => WorkItem, 'Worker: reports a running item’s progress (0 to 1), renewing its lease.')
  async reportWorkItemProgress(
    @Args(() => WorkItemRef) ref: WorkItemRef,
    @Arg('progress', () => Float, { description: '0 to 1.' }) progress: number,
    @Ctx() ctx: Context,
  ) {
    return actOnHeldItem(ctx, ref, { kind: 'progress', progress });
  }

  @WorkerReport(
    () => WorkItem,
    'Worker: completes a running item with its outputs (checked against the stage’s item outputs); the stage completes when every item is done.',
  )
  async completeWorkItem(
    @Args(() => WorkItemRef) ref: WorkItemRef,
    @Arg('outputs', () => JSONObject, { description: "What it produced, as the stage's item outputs (see jobKinds)." })
    outputs: Record<string, unknown>,
    @Ctx() ctx: Context,
  ) {
    return actOnHeldItem(ctx, ref, { kind: 'complete', outputs });
  }

  @WorkerReport(
    () => WorkItem,
    'Worker: fails a running item; it waits for its next attempt while attempts remain, else it fails (and the stage by its policy).',
  )
  async failWorkItem(
    @Args(() => WorkItemRef) ref: WorkItemRef,
    @Arg('code', { description: 'A stable error code of yours, e.g. RENDER_TIMEOUT (at most 100 characters).' }) code: string,
    @Arg('message', { description: 'What went wrong (at most 2,000 characters).' }) message: string,
    @Ctx() ctx: Context,
  ) {
    return actOnHeldItem(ctx, ref, { kind: 'fail', code, message });
  }

  @WorkerReport(
    () => WorkItem,
    'Worker: hands back a running item it holds, unfinished (a stopping worker): it waits for its next attempt, claimable at once with no backoff, and this attempt is not counted against its attempts (event ITEM_HANDED_BACK).',
  )
  async handBackWorkItem(@Args(() => WorkItemRef) ref: WorkItemRef, @Ctx() ctx: Context) {
    return actOnHeldItem(ctx, ref, { kind: 'handBack' });
  }

  @RoleMutation([Role.EDITOR], () => WorkItem, {
    description: 'Reopens a failed item as a new attempt, and its stage with it when the stage had failed (the job runs again).',
  })
  async retryWorkItem(@Args(() => WorkItemKey) { jobId, stage, sequence }: WorkItemKey, @Ctx() ctx: Context) {
    return (await ctx.repos.jobs.items.act(jobId, stage, sequence, { kind: 'retry' })).item;
  }

  @RoleQuery([], () => WorkItemConnection, {
    description:
      "Your tenant's dead letters of one fan-out stage: work items FAILED past their attempts, newest first within an error code (by error code, descending, without one). They stay until their job expires, or until retryWorkItem or replayDeadLetters reopens them.",
  })
  deadLetters(@Args(() => DeadLettersArgs) { kind, stage, errorCode, ...page }: DeadLettersArgs, @Ctx() ctx: Context) {
    return ctx.repos.jobs.deadLetters.list(kind, stage, errorCode, pageRequest(page));
  }

  @RoleQuery([Role.OPERATOR], () => WorkItemConnection, {
    description:
      "Operators only: every tenant's dead letters of one fan-out stage, each with its tenantId, ordered as deadLetters orders one tenant's. Pages forward only.",
  })
  deadLettersAcrossTenants(
    @Args(() => DeadLettersAcrossTenantsArgs) { kind, stage, errorCode, first, after }: DeadLettersAcrossTenantsArgs,
    @Ctx() ctx: Context,
  ) {
    return ctx.system().repos.jobs.deadLetters.acrossTenants(kind, stage, errorCode, { first, after });
  }

  @RoleMutation([Role.EDITOR], () => DeadLetterReplay, {
    description:
      'Reopens the dead letters matching the filter as new attempts, oldest first, like retryWorkItem (each with its ITEM_RETRIED event; a stage that failed by its policy reopens with its job). At most `max` a call (default 100, at most 500): when `remaining`, call again with `after: cursor`.',
  })
  replayDeadLetters(
    @Arg('filter', () => DeadLetterFilter, { description: 'Which dead letters: a kind, and optionally a stage, error code and job.' })
    filter: DeadLetterFilter,
    @Arg('max', () => Int, optional('The most to reopen in this call (default 100, at most 500).')) max: number | null,
    @Arg('after', () => String, optional('The cursor an earlier call returned, to go on after it.')) after: string | null,
    @Ctx() ctx: Context,
  ) {
    return ctx.repos.jobs.deadLetters.replay(filter, max, after);
  }

  @RoleMutation([Role.EDITOR], () => Job, {
    description:
      'Deletes a finished job (completed, failed or cancelled) with its steps and events, and returns it as it was. INVALID_TRANSITION while it runs.',
  })
  deleteJob(
    @keyArg('jobId') jobId: string,
    @Arg('expectedVersion', () => Int, optional('When given, CONFLICT unless the job is at this version.')) expectedVersion: number | null,
    @Ctx() ctx: Context,
  ) {
    return ctx.repos.jobs.delete(jobId, expectedVersion);
  }

  @RoleQuery([], () => [JobKind], { description: 'The declared pipelines: their stages, phases, inputs and outputs.' })
  jobKinds() {
    return kindViews();
  }

  @FieldResolver(() => Int, {
    description: 'The seq of the latest event: subscribe to jobProgress with afterSeq set to it to miss nothing.',
  })
  seq(@Root() job: Job): number {
    return job.seq;
  }

  @FieldResolver(() => String, {
    description:
      "What a client shows: the current stage's phase of a declared kind while it runs (e.g. generating_scenes), else the status in lower case.",
  })
  phase(@Root() job: Job) {
    return phaseOf(job);
  }

  @FieldResolver(() => Boolean, {
    description: 'False when it asked not to take stored outputs of reusable stages (createJob reuse: false); true otherwise.',
  })
  reuse(@Root() job: Job) {
    return takesReuse(job);
  }

  @FieldResolver(() => ItemCounts, { description: "Exact counters of the job's work items, over all its fan-out stages." })
  itemCounts(@Root() job: Job) {
    return totalItemCounts(job);
  }

  @FieldResolver(() => [ItemCounts], { description: 'The counters of each fan-out stage that has items, in plan order.' })
  stageItemCounts(@Root() job: Job) {
    return stageItemCounts(job);
  }

  @FieldResolver(() => WorkItemConnection, { description: 'The work items of its fan-out stages, in stage and sequence order.' })
  async items(@Root() job: Job, @Args(() => JobItemsArgs) { stage, first, after }: JobItemsArgs, @Ctx() ctx: Context) {
    return jobsOf(ctx, job).items.page(job.jobId, stage, { first, after });
  }

  @FieldResolver(() => [Step], { description: 'Every attempt of every step, in order.' })
  steps(@Root() job: Job, @Ctx() ctx: Context) {
    return job.steps ?? job.readSteps?.() ?? jobsOf(ctx, job).steps(job.jobId);
  }

  @FieldResolver(() => JSONValue, { nullable: true })
  async inputs(@Root() job: Job & { inputsLeftOut?: boolean }, @Ctx() ctx: Context) {
    // An event's copy of the job leaves the inputs out (they never change): read them from the job.
    if (!job.inputsLeftOut) return job.inputs ?? null;
    return (await jobsOf(ctx, job).get(job.jobId))?.inputs ?? null;
  }
}

@Resolver(() => WorkItem)
export class WorkItemResolver extends ObjectIdResolver(
  WorkItem,
  'Unique across all types and stable, so a client cache keys the item by it (its job, stage and sequence). No Node: read items through their job.',
  (item) => [item.jobId, item.stage, item.sequence],
) {
  @FieldResolver(() => ID, {
    nullable: true,
    description: 'Its tenant: set on deadLettersAcrossTenants (operators); null elsewhere, where it is yours.',
  })
  tenantId(@Root() item: WorkItem): string | null {
    return item.tenantId ?? null;
  }

  @FieldResolver(() => DateTime, {
    nullable: true,
    description:
      'When a waiting (PENDING) item may be claimed: when it was added, or after the retry backoff of its failed attempt; null unless PENDING.',
  })
  availableAt(@Root() item: WorkItem): string | null {
    return item.status === ItemStatus.PENDING ? (item.availableAt ?? item.createdAt ?? null) : null;
  }
}

@Resolver(() => ItemCounts)
export class ItemCountsResolver {
  @FieldResolver(() => Int, { description: 'Waiting to be claimed (total − running − completed − failed).' })
  pending(@Root() counts: ItemCounts): number {
    return counts.total - counts.running - counts.completed - counts.failed;
  }
}

@Resolver(() => JobEvent)
export class JobEventResolver extends ObjectIdResolver(
  JobEvent,
  'Unique across all types and stable, so a client cache keys the message by it: made from eventId and position, because one event reaches the job’s stream and the status streams at different positions. No Node, so node(id:) does not read it.',
  (event) => [event.eventId, event.position],
) {
  @FieldResolver(() => Job, {
    nullable: true,
    description:
      'The job as this event left it, with its id, so a client cache updates the job it holds (null on SUBSCRIBED, HISTORY_LOST and RESYNC).',
  })
  async job(@Root() event: JobEvent, @Ctx() ctx: Context) {
    const job = jobOfEvent(event);
    if (!job) return null;
    // Events stored before they carried the whole job hold only its state: the rest comes from the job as it is now.
    if (!('kind' in job)) {
      const current = await ctx.repos.jobs.get(event.jobId);
      return current && { ...current, ...job, inputsLeftOut: false, steps: undefined };
    }
    return job;
  }

  // The event's step and item, with what their copies leave to the event put back.
  @FieldResolver(() => Step, { nullable: true })
  step(@Root() event: JobEvent) {
    return stepOfEvent(event) ?? null;
  }

  @FieldResolver(() => WorkItem, { nullable: true })
  item(@Root() event: JobEvent) {
    return itemOfEvent(event) ?? null;
  }
}

/** This feature's resolvers and repositories (see src/features.ts). */
export const jobFeature = feature({
  resolvers: [JobResolver, StepResolver, JobEventResolver, WorkItemResolver, ItemCountsResolver],
  repositories: (scope, { projects }, deps) => ({ jobs: new JobRepository(scope, projects, deps.jobLeaseSeconds, deps.plans) }),
  nodes: {
    Job: { type: Job, load: (repos, v) => repos.jobs.get(v.jobId) },
    Step: {
      type: Step,
      load: async (repos, v) => (await repos.jobs.steps(v.jobId)).find((s) => s.name === v.name && String(s.attempt) === v.attempt) ?? null,
    },
  },
});
