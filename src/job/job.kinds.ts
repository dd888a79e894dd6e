import { createHash } from 'node:crypto';
import { type Attribute, type AttributeValues, attr, type ShapeValues } from '../infra/dynamo/entity';

/*
 * The pipelines the server knows, declared as data: each kind's stages, the fields of its inputs and
 * of each stage's outputs, phases and review pauses, from which createJob, completeStep and a job's
 * phase are derived when createJob names no steps. A request that names its steps (and any kind not
 * declared here) keeps the free-form plan, so existing clients keep working.
 */

/** One stage of a declared pipeline: a step of the job. Its view (JobStage) describes each field. */
export interface StageDeclaration extends AttributeValues<typeof STAGE> {
  review?: boolean;
  outputs?: Record<string, Attribute>;
  /** A fan-out stage: work items processed in parallel (src/job/job.aggregate.ts); its step runs while they do. */
  fanOut?: FanOutDeclaration;
  /** Completing the stage creates an asset version in the job's project, in the same transaction (see JobStage.assetType). */
  asset?: { type: 'image' | 'audio' | 'document' | 'model'; file: string };
  /**
   * The stage's work is reusable (seed 000's pipeline idempotency, see src/job/job.reuse.ts and
   * JobStage.reuseTtlHours). Not applied to a stage that pauses for review or makes an asset: those
   * are a person's decision and a new deliverable each time (see stageReuse).
   */
  reuse?: ReuseDeclaration;
}

/** What makes two pieces of a stage's work the same, and for how long a completed one may stand in. */
export interface ReuseDeclaration {
  /** How long a completed step's or item's outputs may be reused, in hours (the seed's TTL: 24–72 h). */
  ttlHours: number;
  /** The input fields that make the key (see JobStage.reuseKeyFields); all of them when omitted. */
  keyFields?: string[];
  /**
   * Fan-out stages only: the job's input fields that also shape each item's work (the character a
   * scene shows). All of them when omitted; [] for none.
   */
  jobKeyFields?: string[];
}

/** The reuse declaration of `stage`, or undefined when its work is not reusable (see StageDeclaration.reuse). */
export function stageReuse(stage: StageDeclaration): ReuseDeclaration | undefined {
  return stage.review || stage.asset ? undefined : stage.reuse;
}

/** The items of a fan-out stage: their typed fields, attempts and failure policy. Its view (FanOutStage) describes each field. */
export interface FanOutDeclaration extends AttributeValues<typeof FAN_OUT> {
  /** The fields of each item's inputs (given at createJob or by addWorkItems). */
  inputs: Record<string, Attribute>;
  outputs: Record<string, Attribute>;
  failurePolicy?: AttributeValues<typeof FAILURE_POLICY>;
}

/** A retry backoff, declared once: its type here, and the API's RetryBackoff of a stage. */
export const RETRY_BACKOFF = {
  name: 'RetryBackoff',
  description:
    'A retry backoff: after attempt n fails, the item waits min(maxSeconds, initialSeconds × factor^(n−1)) seconds, less up to `jitter` of that (a share fixed by the job, stage, sequence and attempt).',
  fields: {
    initialSeconds: attr.float({ required: true, description: 'The wait after the first failed attempt (before jitter).' }),
    factor: attr.float({ required: true, description: 'Each further failed attempt waits this many times longer.' }),
    maxSeconds: attr.float({ required: true, description: 'The longest wait (before jitter).' }),
    jitter: attr.float({
      required: true,
      description: 'The largest share (0 to 1) taken off a wait, so items that failed together come back spread out.',
    }),
  },
} as const;
export type RetryBackoff = ShapeValues<typeof RETRY_BACKOFF>;

/*
 * What a declaration says and its view (jobKinds: JobKind, JobStage, FanOutStage) shows as it is, is
 * one attribute each, which types the declaration and is the view's field. What the view shows
 * otherwise (a field list, the asset's type, whether the stage is strict) kindViews derives.
 */

/** What a stage declares, as its view (JobStage) shows it. */
const STAGE = {
  name: attr.string({ required: true, description: 'The step name that startStep and completeStep take.' }),
  /** Seed 001's generating_scenes, processing, composing. */
  phase: attr.string({ required: true, description: 'What a client shows while the stage runs (Job.phase).' }),
  /** Counted from the step's start or claim; it and retryBackoff hold for a step as FAN_OUT's do for an item. */
  attemptTimeoutSeconds: attr.int({
    description: "A single-step stage's attempt timeout in seconds (a fan-out stage's is its fanOut's); null: none.",
  }),
  retryBackoff: attr.objectOf(RETRY_BACKOFF)({
    description:
      "A single-step stage's retry backoff (a fan-out stage's is its fanOut's); null: a failed attempt's successor may start at once.",
  }),
};

/** What a fan-out stage declares of its items' attempts, as its view (FanOutStage) shows it. */
const FAN_OUT = {
  attempts: attr.int({ description: "Attempts per item (default: the job's maxAttempts)." }),
  /** Counted from the item's claim; the claim that takes it over fails the attempt (a new one, or FAILED past its attempts). */
  attemptTimeoutSeconds: attr.float({
    description:
      'Seconds one attempt of an item may run, whatever its progress reports renew; past it the next claim takes the item over (ATTEMPT_TIMED_OUT). Null: only the lease limits an attempt.',
  }),
  /** After failWorkItem, a lease that ran out or a timeout (see backoffSeconds). */
  retryBackoff: attr.objectOf(RETRY_BACKOFF)({
    description: 'How long a failed attempt waits before its item is claimable again; null: at once.',
  }),
};

/** When failed items fail a fan-out stage (and the job); without a policy, the first failed item does (strict). */
const FAILURE_POLICY = {
  maxFailed: attr.int({ description: 'The stage fails when more than this many items fail.' }),
  maxFailedPercent: attr.float({ description: 'The stage fails when more than this share (percent) of its items fail.' }),
};

/** What a kind declares, as its view (JobKind) shows it. */
const KIND = { description: attr.string({ required: true, description: 'What the pipeline makes.' }) };

/** A declared field as the API shows it: one attribute of a kind's inputs or a stage's outputs (see fieldViews). */
const JOB_FIELD = {
  name: 'JobField',
  description: 'A field of a declared input or output.',
  fields: {
    name: attr.string({ required: true, description: "The field's name in inputs or outputs." }),
    type: attr.string({ required: true, description: 'string, int, float, boolean, date, dateTime, json, strings or enum.' }),
    required: attr.boolean({ required: true, description: 'True when it must be given.' }),
    s3Key: attr.boolean({
      required: true,
      description: 'True when the value is an S3 object key, which must lie under your tenant prefix (tenants/<tenantId>/).',
    }),
    description: attr.string({ description: 'What the field holds.' }),
  },
} as const;

/** A fan-out stage as the API shows it: what it declares (FAN_OUT, FAILURE_POLICY), its fields as lists, and whether it is strict. */
const FAN_OUT_STAGE = {
  name: 'FanOutStage',
  description: 'The work items of a fan-out stage: their fields, attempts and failure policy.',
  fields: {
    itemInputs: attr.listOf(JOB_FIELD)({ required: true, description: 'The fields of each item’s inputs.' }),
    itemOutputs: attr.listOf(JOB_FIELD)({ required: true, description: "The fields completeWorkItem's outputs must give." }),
    ...FAN_OUT,
    ...FAILURE_POLICY,
    strict: attr.boolean({
      required: true,
      description: 'True when the first failed item fails the stage (no maxFailed nor maxFailedPercent).',
    }),
  },
} as const;

/** A stage as the API shows it: what it declares (STAGE), with its outputs as a list and its asset and reuse as fields. */
const JOB_STAGE = {
  name: 'JobStage',
  description: 'One stage of a declared pipeline: a step of its jobs.',
  fields: {
    ...STAGE,
    review: attr.boolean({ required: true, description: 'Completing it pauses it for review; approveStep completes it.' }),
    outputs: attr.listOf(JOB_FIELD)({ required: true, description: "The fields completeStep's outputs must give." }),
    fanOut: attr.objectOf(FAN_OUT_STAGE)({ description: 'Set for a fan-out stage: its work items instead of one step.' }),
    assetType: attr.string({
      description: 'Completing the stage creates an asset of this type in the job’s project (its file is the output assetFile names).',
    }),
    assetFile: attr.string({ description: 'The S3-key output that becomes the asset’s file (with assetType).' }),
    reuseTtlHours: attr.int({
      description:
        'Set when its work is reusable: a step (or, for a fan-out stage, an item) whose key fields, seed and model version match a completed one of your tenant within this many hours completes at once from its outputs.',
    }),
    reuseKeyFields: attr.strings({
      description:
        "The input fields whose values make a reusable stage's key (the job's for a step, each item's for a fan-out stage); null: all of them.",
    }),
  },
} as const;

/** A declared kind as the API describes it (jobKinds): what it declares (KIND), its name, and its fields and stages as lists. */
export const JOB_KIND = {
  name: 'JobKind',
  description: 'A pipeline the server knows: createJob with this kind takes its stages and checks its inputs.',
  fields: {
    name: attr.string({ required: true, description: 'The kind to pass to createJob.' }),
    ...KIND,
    inputs: attr.listOf(JOB_FIELD)({ required: true, description: "The fields of createJob's inputs." }),
    stages: attr.listOf(JOB_STAGE)({ required: true, description: 'Its stages, in order.' }),
  },
} as const;
export type JobKindView = ShapeValues<typeof JOB_KIND>;

/** What names one attempt of one item: the seed of its jitter. */
export interface AttemptRef {
  jobId: string;
  stage: string;
  sequence: number;
  /** The attempt that failed. */
  attempt: number;
}

/**
 * The seconds failed attempt `ref` of an item waits by `backoff` (0 without one; see RETRY_BACKOFF).
 * Attempts count over the item's whole life (a retryWorkItem or a replay goes on counting), so an
 * item that keeps failing waits the longest, capped, delay. The jitter's share is a hash of `ref`,
 * not a random draw, so that a decision stays a function of its state and command (deciding it
 * again after a lost round gives the same delay) and a test can compute the exact delay.
 */
export function backoffSeconds(backoff: RetryBackoff | undefined, ref: AttemptRef): number {
  if (!backoff) return 0;
  const base = Math.min(backoff.maxSeconds, backoff.initialSeconds * backoff.factor ** Math.max(0, ref.attempt - 1));
  const share = createHash('sha256').update(`${ref.jobId}#${ref.stage}#${ref.sequence}#${ref.attempt}`).digest().readUInt32BE(0) / 2 ** 32;
  return base * (1 - backoff.jitter * share);
}

/** A declared pipeline (what its view shows as it is: KIND). */
export interface JobKindDeclaration extends AttributeValues<typeof KIND> {
  inputs: Record<string, Attribute>;
  stages: StageDeclaration[];
  /** Attempts per stage before the job fails, unless the request names its own. */
  maxAttempts?: number;
  /** A job the server runs itself in the system partition (src/system-jobs/runner.ts): no tenant may create one. */
  system?: boolean;
}

/** The declared kinds by name, each registered by registerJobKind. */
export const JOB_KINDS: Record<string, JobKindDeclaration> = {};

/**
 * Declares kind `name` from the folder it belongs to (the studio's pipelines in src/pipelines, the
 * server's own kinds in the folders that run them), so the engine holds and imports no particular
 * pipeline. Returns the name: a module that names the kind by this value has declared it before
 * any job of it is made. Throws (a programming error) when a kind of that name is declared already.
 */
export function registerJobKind<K extends string>(name: K, declaration: JobKindDeclaration): K {
  if (Object.hasOwn(JOB_KINDS, name)) throw new Error(`The job kind ${name} is declared twice.`);
  JOB_KINDS[name] = declaration;
  return name;
}

/** The fan-out declaration of stage `stage` of a declared job, or undefined for a single step. */
export function fanOutOf(job: { kind: string; declared?: boolean }, stage: string): FanOutDeclaration | undefined {
  return withTimeoutOverride(stageOf(job, stage)?.fanOut);
}

/**
 * The attempt timeout that replaces every declared one (ATTEMPT_TIMEOUT_SECONDS, development
 * only), so a timeout of 15 or 30 minutes can be watched locally in seconds; undefined: the
 * declarations hold. Process-wide, as the declarations are: startApp sets it from its config.
 */
let attemptTimeoutOverride: number | undefined;

export function overrideAttemptTimeouts(seconds: number | undefined): void {
  attemptTimeoutOverride = seconds;
}

/** `declared` with the override in place of the attempt timeout it declares (unchanged when it declares none, or with no override). */
function withTimeoutOverride<T extends { attemptTimeoutSeconds?: number } | undefined>(declared: T): T {
  if (attemptTimeoutOverride === undefined || declared?.attemptTimeoutSeconds === undefined) return declared;
  return { ...declared, attemptTimeoutSeconds: attemptTimeoutOverride };
}

/** The stage declaration named `stage` of a declared job. */
export function stageOf(job: { kind: string; declared?: boolean }, stage: string): StageDeclaration | undefined {
  return job.declared ? declaredKind(job.kind)?.stages.find((s) => s.name === stage) : undefined;
}

/** The attempt timeout and retry backoff of a declared job's single-step stage `stage` (none for a free-form job). */
export function stepPolicyOf(job: { kind: string; declared?: boolean }, stage: string): StepPolicy {
  const declared = stageOf(job, stage);
  return declared && !declared.fanOut
    ? withTimeoutOverride({ attemptTimeoutSeconds: declared.attemptTimeoutSeconds, retryBackoff: declared.retryBackoff })
    : {};
}

/** What a step's stage declares for the life of its attempts (see STAGE). */
export type StepPolicy = Pick<StageDeclaration, 'attemptTimeoutSeconds' | 'retryBackoff'>;

/** The names of the stages of declared kind `kind` that pause for a person's review, in order (none for a free-form kind). */
export function reviewStages(kind: string): string[] {
  return (declaredKind(kind)?.stages ?? []).filter((stage) => stage.review).map((stage) => stage.name);
}

/** The declared kind of that name, or undefined for a free-form kind. */
export function declaredKind(kind: string): JobKindDeclaration | undefined {
  return Object.hasOwn(JOB_KINDS, kind) ? JOB_KINDS[kind] : undefined;
}

/** The phase a job shows: its current stage's while it runs, else its status in lower case. */
export function phaseOf(job: { kind: string; status: string; currentStep?: string | null; declared?: boolean }): string {
  if ((job.status === 'RUNNING' || job.status === 'PAUSED') && job.currentStep)
    return stageOf(job, job.currentStep)?.phase ?? job.currentStep;
  return job.status === 'QUEUED' ? 'pending' : job.status.toLowerCase();
}

/** Declared fields as the API shows them (JobField), in declaration order. */
function fieldViews(attributes: Record<string, Attribute>): JobKindView['inputs'] {
  return Object.entries(attributes).map(([name, a]) => ({
    name,
    type: a.kind,
    required: Boolean(a.required),
    s3Key: Boolean(a.s3Key),
    description: a.description,
  }));
}

/** The view of a stage (JobStage): what it declares as it is, and what follows from the rest. */
function stageView(declared: StageDeclaration): JobKindView['stages'][number] {
  // The timeouts as they hold on this server (ATTEMPT_TIMEOUT_SECONDS may replace them).
  const stage = withTimeoutOverride(declared);
  const fanOut = withTimeoutOverride(stage.fanOut);
  const { name, phase, review, outputs = {}, asset } = stage;
  const reuse = stageReuse(stage);
  return {
    name,
    phase,
    review: Boolean(review),
    outputs: fieldViews(outputs),
    assetType: asset?.type,
    assetFile: asset?.file,
    reuseTtlHours: reuse?.ttlHours,
    reuseKeyFields: reuse?.keyFields,
    // A fan-out stage's attempts are its items': its fanOut says how long they run and wait.
    ...(fanOut
      ? {
          fanOut: {
            itemInputs: fieldViews(fanOut.inputs),
            itemOutputs: fieldViews(fanOut.outputs),
            attempts: fanOut.attempts,
            attemptTimeoutSeconds: fanOut.attemptTimeoutSeconds,
            retryBackoff: fanOut.retryBackoff,
            ...fanOut.failurePolicy,
            strict: fanOut.failurePolicy?.maxFailed === undefined && fanOut.failurePolicy?.maxFailedPercent === undefined,
          },
        }
      : { attemptTimeoutSeconds: stage.attemptTimeoutSeconds, retryBackoff: stage.retryBackoff }),
  };
}

/** The declared kinds a tenant may create, as the API describes them (jobKinds); the server's own (system) kinds are nobody's to create. */
export function kindViews(): JobKindView[] {
  return Object.entries(JOB_KINDS).flatMap(([name, kind]) =>
    kind.system ? [] : [{ name, description: kind.description, inputs: fieldViews(kind.inputs), stages: kind.stages.map(stageView) }],
  );
}
