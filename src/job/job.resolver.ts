import { Arg, Args, Authorized, Ctx, FieldResolver, Float, ID, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import { Role } from '../auth/principal';
import { PageArgs } from '../common/pagination';
import { JSONObject, JSONValue } from '../common/scalars';
import { feature } from '../common/feature';
import { optionalText } from '../common/validate';
import type { Context } from '../context';
import {
  CreateJobInput,
  Job,
  JobConnection,
  JobEvent,
  ClaimedWork,
  JobKind,
  JobsByStatusArgs,
  ProjectJobsArgs,
  Step,
  StepConnection,
  StepRef,
} from './job.type';
import { JobRepository } from './job.repository';
import { JOB_KINDS, phaseOf } from './job.kinds';
import type { Attribute } from '../infra/dynamo/entity';

/** Declared fields as clients see them (JobField). */
const fieldsOf = (attributes: Record<string, Attribute>) =>
  Object.entries(attributes).map(([name, a]) => ({
    name,
    type: a.kind,
    required: Boolean(a.required),
    s3Key: Boolean(a.s3Key),
    description: a.description,
  }));

// This feature adds its repository to ctx.repos itself, so that the context imports no feature (see src/context.ts).
declare module '../context' {
  interface Repositories {
    jobs: JobRepository;
  }
}

@Resolver(() => Step)
export class StepResolver {
  @FieldResolver(() => [String], { description: 'Presigned GETs of the artifacts, in order, made now (default 1 hour).' })
  artifactUrls(
    @Root() step: Step,
    @Arg('expiresIn', () => Int, {
      nullable: true,
      description: 'Seconds the URL stays valid: DOWNLOAD_URL_TTL_SECONDS when omitted, at most DOWNLOAD_URL_MAX_TTL_SECONDS.',
    })
    expiresIn: number | null,
    @Ctx() ctx: Context,
  ) {
    return Promise.all(step.artifacts.map((key) => ctx.repos.files.downloadUrl(key, expiresIn)));
  }
}

@Resolver(() => Job)
export class JobResolver {
  @Authorized()
  @Query(() => Job, { nullable: true, description: 'A job with all its step attempts; seq is where to subscribe from.' })
  job(@Arg('jobId', () => ID, { description: "The job's id." }) jobId: string, @Ctx() ctx: Context) {
    return ctx.repos.jobs.get(jobId);
  }

  @Authorized()
  @Query(() => JobConnection, { description: "A project's jobs, newest first." })
  jobs(@Args() { projectId, first, after }: ProjectJobsArgs, @Ctx() ctx: Context) {
    return ctx.repos.jobs.ofProject(projectId, { first, after });
  }

  @Authorized()
  @Query(() => JobConnection, { description: "The tenant's jobs in one status, most recently changed first." })
  jobsByStatus(@Args() { status, first, after }: JobsByStatusArgs, @Ctx() ctx: Context) {
    return ctx.repos.jobs.byStatus(status, { first, after });
  }

  @Authorized()
  @Query(() => JobConnection, { description: "The caller's job history, newest first." })
  myJobs(@Args() { first, after }: PageArgs, @Ctx() ctx: Context) {
    return ctx.repos.jobs.mine({ first, after });
  }

  @Authorized()
  @Query(() => StepConnection, { description: 'Steps paused for review, most recent first.' })
  stepsAwaitingReview(@Args() { first, after }: PageArgs, @Ctx() ctx: Context) {
    return ctx.repos.jobs.awaitingReview({ first, after });
  }

  @Authorized(Role.ADMIN)
  @Query(() => JobConnection, { description: 'Admins only: jobs in one status across all tenants, most recently changed first.' })
  jobsAcrossTenants(@Args() { status, first, after }: JobsByStatusArgs, @Ctx() ctx: Context) {
    return ctx.repos.jobs.acrossTenants(status, { first, after });
  }

  @Authorized(Role.EDITOR)
  @Mutation(() => Job, { description: 'Creates a job, or returns the one an identical earlier request created (idempotent).' })
  createJob(@Arg('input', { description: 'What the new one is made of.' }) input: CreateJobInput, @Ctx() ctx: Context) {
    return ctx.repos.jobs.create(input);
  }

  @Authorized(Role.WORKER)
  @Mutation(() => Job, { description: 'Worker: starts the current step (PENDING → RUNNING).' })
  startStep(@Args() { jobId, stepName }: StepRef, @Ctx() ctx: Context) {
    return ctx.repos.jobs.act(jobId, { kind: 'start', step: stepName });
  }

  @Authorized(Role.WORKER)
  @Mutation(() => Job, { description: 'Worker: reports a running step’s progress (0 to 1).' })
  reportStepProgress(
    @Args() { jobId, stepName }: StepRef,
    @Arg('progress', () => Float, { description: 'From 0 to 1.' }) progress: number,
    @Arg('metrics', () => JSONObject, { nullable: true, description: 'What was measured (GPU seconds …), as a JSON object.' })
    metrics: Record<string, unknown> | null,
    @Arg('attempt', () => Int, {
      nullable: true,
      description: 'The attempt you hold (see claimWork): a report for an attempt that is over is refused.',
    })
    attempt: number | null,
    @Ctx() ctx: Context,
  ) {
    return ctx.repos.jobs.act(jobId, { kind: 'progress', step: stepName, progress, metrics, attempt });
  }

  @Authorized(Role.WORKER)
  @Mutation(() => Job, {
    description:
      'Worker: completes a running step with its artifacts (S3 keys), metrics and outputs (checked against the stage of a declared kind; a stage declared for review pauses instead).',
  })
  completeStep(
    @Args() { jobId, stepName }: StepRef,
    @Arg('artifacts', () => [String], {
      defaultValue: [],
      description: 'S3 keys of what the step produced, under tenants/<your tenant>/ (no URLs).',
    })
    artifacts: string[],
    @Arg('metrics', () => JSONObject, { nullable: true, description: 'What was measured (GPU seconds …), as a JSON object.' })
    metrics: Record<string, unknown> | null,
    @Arg('outputs', () => JSONObject, {
      nullable: true,
      description: "The stage's outputs, checked against its declared fields like createJob's inputs.",
    })
    outputs: Record<string, unknown> | null,
    @Arg('attempt', () => Int, {
      nullable: true,
      description: 'The attempt you hold (see claimWork): a report for an attempt that is over is refused.',
    })
    attempt: number | null,
    @Ctx() ctx: Context,
  ) {
    return ctx.repos.jobs.act(jobId, { kind: 'complete', step: stepName, artifacts, metrics, outputs, attempt });
  }

  @Authorized(Role.WORKER)
  @Mutation(() => Job, { description: 'Worker: fails a running step; a new attempt follows while attempts remain, else the job fails.' })
  failStep(
    @Args() { jobId, stepName }: StepRef,
    @Arg('code', { description: 'A stable code of your own for the failure, such as OUT_OF_MEMORY.' }) code: string,
    @Arg('message', { description: 'What went wrong, in words.' }) message: string,
    @Arg('attempt', () => Int, {
      nullable: true,
      description: 'The attempt you hold (see claimWork): a report for an attempt that is over is refused.',
    })
    attempt: number | null,
    @Ctx() ctx: Context,
  ) {
    return ctx.repos.jobs.act(jobId, { kind: 'fail', step: stepName, code: code.slice(0, 100), message: message.slice(0, 2000), attempt });
  }

  @Authorized(Role.WORKER)
  @Mutation(() => Job, { description: 'Worker: pauses a running step for a person’s review.' })
  pauseStepForReview(@Args() { jobId, stepName }: StepRef, @Ctx() ctx: Context) {
    return ctx.repos.jobs.act(jobId, { kind: 'pause', step: stepName });
  }

  @Authorized(Role.EDITOR)
  @Mutation(() => Job, { description: 'Approves a paused step: it completes and the job goes on.' })
  approveStep(
    @Args() { jobId, stepName }: StepRef,
    @Arg('comment', () => String, { nullable: true, description: 'Kept with the decision in the activity trail.' }) comment: string | null,
    @Ctx() ctx: Context,
  ) {
    return ctx.repos.jobs.act(jobId, { kind: 'approve', step: stepName }, { comment: optionalText(comment, 'comment', 2000) });
  }

  @Authorized(Role.EDITOR)
  @Mutation(() => Job, { description: 'Rejects a paused step: it fails and so does the job (retryJob runs it again).' })
  rejectStep(
    @Args() { jobId, stepName }: StepRef,
    @Arg('reason', { description: 'Why it is rejected; recorded in the audit trail.' }) reason: string,
    @Ctx() ctx: Context,
  ) {
    return ctx.repos.jobs.act(jobId, { kind: 'reject', step: stepName, reason: reason.slice(0, 2000) });
  }

  @Authorized(Role.EDITOR)
  @Mutation(() => Job, { description: 'Cancels a job that has not finished: its waiting steps are SKIPPED.' })
  cancelJob(@Arg('jobId', () => ID, { description: "The job's id." }) jobId: string, @Ctx() ctx: Context) {
    return ctx.repos.jobs.act(jobId, { kind: 'cancel' });
  }

  @Authorized(Role.EDITOR)
  @Mutation(() => Job, { description: 'Runs a failed job again from its failed step, as a new attempt.' })
  retryJob(@Arg('jobId', () => ID, { description: "The job's id." }) jobId: string, @Ctx() ctx: Context) {
    return ctx.repos.jobs.act(jobId, { kind: 'retry' });
  }

  @Authorized(Role.WORKER)
  @Mutation(() => ClaimedWork, {
    nullable: true,
    description:
      'Worker: takes the next step of your tenant that is waiting (optionally of one job kind), or whose worker stopped reporting (a new attempt), and starts it with a lease that your progress reports renew (JOB_LEASE_SECONDS). Each step goes to one worker however many ask at once. Null when there is no work.',
  })
  claimWork(
    @Arg('kind', () => String, { nullable: true, description: 'Only work of this job kind; any kind when omitted.' }) kind: string | null,
    @Ctx() ctx: Context,
  ) {
    return ctx.repos.jobs.claimWork(kind);
  }

  @Authorized(Role.EDITOR)
  @Mutation(() => Job, {
    description:
      'Deletes a finished job (completed, failed or cancelled) with its steps and events, and returns it as it was. INVALID_TRANSITION while it runs.',
  })
  deleteJob(
    @Arg('jobId', () => ID, { description: "The job's id." }) jobId: string,
    @Arg('expectedVersion', () => Int, { nullable: true, description: 'When given, CONFLICT unless the job is at this version.' })
    expectedVersion: number | null,
    @Ctx() ctx: Context,
  ) {
    return ctx.repos.jobs.delete(jobId, expectedVersion);
  }

  @Authorized()
  @Query(() => [JobKind], { description: 'The declared pipelines: their stages, phases, inputs and outputs.' })
  jobKinds() {
    return Object.entries(JOB_KINDS).map(([name, kind]) => ({
      name,
      description: kind.description,
      inputs: fieldsOf(kind.inputs),
      stages: kind.stages.map((stage) => ({ ...stage, review: Boolean(stage.review), outputs: fieldsOf(stage.outputs ?? {}) })),
    }));
  }

  @FieldResolver(() => String, {
    description:
      "What a client shows: the current stage's phase of a declared kind while it runs (e.g. generating_scenes), else the status in lower case.",
  })
  phase(@Root() job: Job) {
    return phaseOf(job);
  }

  @FieldResolver(() => [Step], { description: 'Every attempt of every step, in order.' })
  steps(@Root() job: Job, @Ctx() ctx: Context) {
    return job.steps ?? ctx.repos.jobs.steps(job.jobId);
  }

  @FieldResolver(() => JSONValue, { nullable: true })
  async inputs(@Root() job: Job & { inputsLeftOut?: boolean }, @Ctx() ctx: Context) {
    // An event's copy of the job leaves the inputs out (they never change): read them from the job.
    if (!job.inputsLeftOut) return job.inputs ?? null;
    return (await ctx.repos.jobs.get(job.jobId))?.inputs ?? null;
  }
}

@Resolver(() => JobEvent)
export class JobEventResolver {
  @FieldResolver(() => Job, {
    nullable: true,
    description:
      'The job as this event left it, with its id, so a client cache updates the job it holds (null on SUBSCRIBED, HISTORY_LOST and RESYNC).',
  })
  async job(@Root() event: JobEvent, @Ctx() ctx: Context) {
    if (!event.job) return null;
    // Events stored before they carried the whole job hold only its state: the rest comes from the job as it is now.
    if (event.job.kind === undefined) {
      const current = await ctx.repos.jobs.get(event.jobId);
      return current && { ...current, ...event.job, seq: event.seq, version: event.seq, steps: undefined };
    }
    return event.job;
  }
}

/** This feature's resolvers and repositories (see src/features.ts). */
export const jobFeature = feature({
  resolvers: [JobResolver, StepResolver, JobEventResolver],
  repositories: (scope, { projects }, deps) => ({ jobs: new JobRepository(scope, projects, deps.jobLeaseSeconds) }),
  nodes: {
    Job: { type: Job, load: (repos, v) => repos.jobs.get(v.jobId) },
    Step: {
      type: Step,
      load: async (repos, v) => (await repos.jobs.steps(v.jobId)).find((s) => s.name === v.name && String(s.attempt) === v.attempt) ?? null,
    },
  },
});
