import fc from 'fast-check';
import { entities, type EntityItem } from '../../src/common/entities';
import { AppError, ErrorCode } from '../../src/errors';
import { addItems, type BatchEvent, decide, evolve, JobGroup, openStage } from '../../src/job/job.decider';
import { JOB_KINDS } from '../../src/job/job.kinds';
import { initialSteps, type JobAction, JobEventType, JobStatus, onStep, StepStatus } from '../../src/job/job.machine';
import type { StepLike } from '../../src/job/job.writes';

/*
 * The job aggregate's decisions alone, without a database: generated sequences of commands over a
 * job's fan-out stage and the single step after it, with workers failing, going quiet (time moves
 * past their leases and their attempts' time), completing twice and arriving late with attempts
 * that are over, items added, retried and replayed, and the job cancelled. Each command is decided
 * as its committer decides it (on a JobGroup read from what the last one left, at the time it
 * arrives); a refused command changes nothing. After every command the state must hold the rules
 * below; a broken one prints the shortest sequence fast-check finds that breaks it.
 */

type JobItem = EntityItem<'Job'>;
type WorkItemItem = EntityItem<'WorkItem'>;

/** Two kinds that differ in how an attempt that ran out comes back: after a backoff, or to its claimer at once. */
for (const [name, backoff] of [
  ['TEST_DECIDER_BACKOFF', true],
  ['TEST_DECIDER_AT_ONCE', false],
] as const) {
  JOB_KINDS[name] = {
    description: 'A fan-out stage, then a single step.',
    inputs: {},
    stages: [
      {
        name: 'render',
        phase: 'processing',
        fanOut: {
          inputs: {},
          outputs: {},
          attempts: 2,
          attemptTimeoutSeconds: 30,
          failurePolicy: { maxFailed: 1 },
          ...(backoff ? { retryBackoff: { initialSeconds: 1, factor: 2, maxSeconds: 8, jitter: 0.2 } } : {}),
        },
      },
      { name: 'compose', phase: 'processing' },
    ],
  };
}

// A stage that declares both bounds of a failure policy, one attempt an item.
JOB_KINDS.TEST_DECIDER_BOTH_BOUNDS = {
  description: 'A fan-out stage failed past 5 items or past a quarter of them, then a single step.',
  inputs: {},
  stages: [
    {
      name: 'render',
      phase: 'processing',
      fanOut: { inputs: {}, outputs: {}, attempts: 1, failurePolicy: { maxFailed: 5, maxFailedPercent: 25 } },
    },
    { name: 'compose', phase: 'processing' },
  ],
};

const LEASE_SECONDS = 10;
const ACTOR = 'worker-1';
const START = Date.parse('2026-01-01T00:00:00.000Z');

/** What a generated command is: an item's, the step's, time passing, items added, or a cancel. */
type Command =
  | { on: 'item'; kind: 'claim' | 'progress' | 'complete' | 'fail' | 'handBack' | 'retry'; sequence: number; attemptShift: number }
  | { on: 'step'; kind: 'claim' | 'progress' | 'complete' | 'fail' | 'handBack'; attemptShift: number }
  | { on: 'time'; seconds: number }
  | { on: 'add'; count: number }
  | { on: 'cancel' };

const command: fc.Arbitrary<Command> = fc.oneof(
  {
    arbitrary: fc.record({
      on: fc.constant('item' as const),
      kind: fc.constantFrom('claim', 'claim', 'claim', 'progress', 'complete', 'complete', 'complete', 'fail', 'handBack', 'retry'),
      // Which item, among those the job has (and now and then one it has not).
      sequence: fc.integer({ min: 1, max: 7 }),
      // Mostly the attempt the worker holds; sometimes one that is over, or one that never was.
      attemptShift: fc.constantFrom(0, 0, 0, -1, 1),
    }),
    weight: 90,
  },
  {
    arbitrary: fc.record({
      on: fc.constant('step' as const),
      kind: fc.constantFrom('claim', 'progress', 'complete', 'complete', 'fail', 'handBack'),
      attemptShift: fc.constantFrom(0, 0, 0, -1),
    }),
    weight: 30,
  },
  { arbitrary: fc.record({ on: fc.constant('time' as const), seconds: fc.integer({ min: 0, max: 40 }) }), weight: 12 },
  { arbitrary: fc.record({ on: fc.constant('add' as const), count: fc.integer({ min: 1, max: 2 }) }), weight: 6 },
  { arbitrary: fc.constant({ on: 'cancel' as const }), weight: 1 },
);

/** The aggregate as the last commit left it. */
interface Model {
  job: JobItem;
  steps: ReadonlyMap<string, StepLike>;
  items: ReadonlyMap<string, WorkItemItem>;
  now: number;
  /** Completions per item (ITEM_COMPLETED), by itemId. */
  completions: Map<string, number>;
}

/** Times as the decisions take them: the same few values over and over, so formatted once each (a tenth of the run's CPU before). */
const isoTimes = new Map<number, string>();
function iso(ms: number): string {
  let text = isoTimes.get(ms);
  if (text === undefined) {
    if (isoTimes.size > 10_000) isoTimes.clear();
    text = new Date(ms).toISOString();
    isoTimes.set(ms, text);
  }
  return text;
}

function newJob(kind: string, items: number): Model {
  const at = iso(START);
  const plan = [
    { name: 'render', order: 1 },
    { name: 'compose', order: 2 },
  ];
  const job = {
    PK: 'TENANT#t#JOB#job_1',
    SK: 'JOB',
    entityType: entities.Job.type,
    jobId: 'job_1',
    projectId: 'proj_1',
    status: JobStatus.QUEUED,
    createdAt: at,
    updatedAt: at,
    createdBy: 'artist',
    kind,
    plan,
    attempts: { render: 1, compose: 1 },
    currentStep: 'render',
    progress: 0,
    completedSteps: 0,
    failedSteps: 0,
    maxAttempts: 2,
    declared: true,
    version: 1,
  } as JobItem;
  const model: Model = {
    job,
    steps: new Map(initialSteps(plan).map((s) => [s.name, { ...s, jobId: job.jobId }])),
    items: new Map(),
    now: START,
    completions: new Map(),
  };
  return apply(model, { on: 'add', count: items }).model;
}

/** The state a group decides on: what the last commit left, at the time the command arrives. */
function stateOf(model: Model): JobGroup {
  return JobGroup.of({ job: model.job, steps: model.steps, storedSteps: [], items: model.items, at: iso(model.now) });
}

/** The worker command a generated one stands for, with the attempt it names. */
function itemAction(c: Extract<Command, { on: 'item' }>, item: WorkItemItem | undefined, now: number): JobAction {
  const attempt = (item?.attempt ?? 1) + c.attemptShift;
  const leaseUntil = iso(now + LEASE_SECONDS * 1000);
  switch (c.kind) {
    case 'claim':
      return { kind: 'claim', leaseUntil };
    case 'progress':
      return { kind: 'progress', attempt, progress: 0.5, leaseUntil };
    case 'complete':
      return { kind: 'complete', attempt, outputs: {} };
    case 'fail':
      return { kind: 'fail', attempt, code: 'GPU_LOST', message: 'The GPU went away.' };
    case 'handBack':
      return { kind: 'handBack', attempt };
    case 'retry':
      return { kind: 'retry' };
  }
}

function stepAction(c: Extract<Command, { on: 'step' }>, step: StepLike | undefined, now: number): JobAction {
  const attempt = (step?.attempt ?? 1) + c.attemptShift;
  const leaseUntil = iso(now + LEASE_SECONDS * 1000);
  switch (c.kind) {
    case 'claim':
      return { kind: 'claim', leaseUntil };
    case 'progress':
      return { kind: 'progress', progress: 0.5, leaseUntil, attempt };
    case 'complete':
      return { kind: 'complete', artifacts: [], attempt };
    case 'fail':
      return { kind: 'fail', code: 'GPU_LOST', message: 'The GPU went away.', attempt };
    case 'handBack':
      return { kind: 'handBack', attempt };
  }
}

/** The codes a refused command may answer with: each a client's or worker's mistake, never a fault. */
const REFUSALS = new Set<string>([
  ErrorCode.INVALID_TRANSITION,
  ErrorCode.JOB_CANCELLED,
  ErrorCode.ATTEMPT_TIMED_OUT,
  ErrorCode.BAD_USER_INPUT,
  ErrorCode.NOT_FOUND,
]);

const WORKER_KINDS = new Set(['claim', 'progress', 'complete', 'fail', 'handBack']);

/**
 * The refusals of the declared machines' guard (Entity.assertTransition), which JobGroup.record runs on
 * every move it records: watched, not replaced, so that a refusal from the guard (a decision that
 * broke a machine) is told apart from a decision's own refusal, which has the same code.
 */
const guardRefusals: unknown[] = [];
for (const entity of [entities.Job, entities.Step, entities.WorkItem]) {
  const guard = entity.assertTransition.bind(entity);
  jest.spyOn(entity, 'assertTransition').mockImplementation((id, from, to) => {
    try {
      guard(id, from, to);
    } catch (error) {
      guardRefusals.push(error);
      throw error;
    }
  });
}

/**
 * Decides `c` on the model as its committer would and returns the model the commit leaves, or the
 * same model with the refusal when the decision refused it. Throws anything that is not a refusal.
 */
function apply(model: Model, c: Command): { model: Model; refused?: AppError; events: readonly BatchEvent[] } {
  if (c.on === 'time') return { model: { ...model, now: model.now + c.seconds * 1000 }, events: [] };
  const read = stateOf(model);
  let state: JobGroup;
  try {
    if (c.on === 'item') {
      const sequence = c.sequence === 7 ? model.items.size + 1 : 1 + ((c.sequence - 1) % Math.max(1, model.items.size));
      state = decide(
        read,
        { unit: { stage: 'render', sequence }, action: itemAction(c, model.items.get(`render#${sequence}`), model.now) },
        ACTOR,
      );
    } else if (c.on === 'step') {
      state = decide(read, onStep('compose', stepAction(c, model.steps.get('compose'), model.now)), ACTOR);
    } else if (c.on === 'add') {
      const count = c.count;
      state = openStage(
        addItems(
          read,
          'render',
          Array.from({ length: count }, () => ({})),
          'artist',
        ),
        'render',
        'artist',
      );
    } else {
      state = decide(read, { action: { kind: 'cancel' } }, 'artist');
    }
  } catch (error) {
    if (!(error instanceof AppError) || !REFUSALS.has(error.code)) throw error;
    // The guard where a change is recorded (JobGroup.record) answers INVALID_TRANSITION too:
    // a decision that tried a move outside the declared machines is a fault, not a refusal.
    if (guardRefusals.includes(error)) throw new Error(`a decision tried a move outside the declared machines: ${error.message}`);
    return { model, refused: error, events: [] };
  }
  const completions = new Map(model.completions);
  for (const e of state.events)
    if (e.type === JobEventType.ITEM_COMPLETED && e.item) {
      const id = `${e.item.stage}#${e.item.sequence}`;
      completions.set(id, (completions.get(id) ?? 0) + 1);
    }
  return { model: { job: state.job, steps: state.steps, items: state.items, now: model.now, completions }, events: state.events };
}

/** True when two maps hold the same entries (the same objects: evolve applies what the decisions wrote). */
function sameEntries<V>(a: ReadonlyMap<string, V>, b: ReadonlyMap<string, V>): boolean {
  if (a.size !== b.size) return false;
  for (const [key, value] of a) if (b.get(key) !== value) return false;
  return true;
}

/** Throws naming the rule when `holds` is false (plain throws: expect() per check would be most of the run's time). */
function rule(holds: boolean, what: () => string): void {
  if (!holds) throw new Error(what());
}

/** The rules every state the decisions leave must hold (throws naming the one broken). */
function check(before: Model, c: Command, after: Model, result: ReturnType<typeof apply>): void {
  const { job } = after;
  // The counters equal the items' states.
  const counts = job.itemCounts?.render ?? { total: 0, running: 0, completed: 0, failed: 0 };
  const seen = { total: 0, running: 0, completed: 0, failed: 0 };
  for (const item of after.items.values()) {
    seen.total++;
    if (item.status === 'RUNNING') seen.running++;
    if (item.status === 'COMPLETED') seen.completed++;
    if (item.status === 'FAILED') seen.failed++;
    // A running item holds a lease that never outlasts its attempt's time.
    if (item.status === 'RUNNING')
      rule(
        item.leaseExpiresAt !== undefined && (!item.timesOutAt || item.leaseExpiresAt <= item.timesOutAt),
        () => `item ${item.sequence}'s lease`,
      );
  }
  rule(
    seen.total === counts.total && seen.running === counts.running && seen.completed === counts.completed && seen.failed === counts.failed,
    () => `the counters ${JSON.stringify(counts)} are not the items' ${JSON.stringify(seen)}`,
  );
  // Each unit is completed at most once.
  for (const [id, n] of after.completions) rule(n <= 1, () => `item ${id} completed ${n} times`);
  // No transition outside the declared machines, from one commit to the next.
  for (const [id, item] of after.items) {
    const was = before.items.get(id);
    rule(
      !was || was.status === item.status || entities.WorkItem.targets(was.status).includes(item.status),
      () => `item ${id} went from ${was?.status} to ${item.status}`,
    );
  }
  rule(
    before.job.status === job.status || entities.Job.targets(before.job.status).includes(job.status),
    () => `the job went from ${before.job.status} to ${job.status}`,
  );
  // A cancelled job accepts nothing a worker sends, and says so with its own code.
  if (before.job.status === JobStatus.CANCELLED && (c.on === 'item' || c.on === 'step') && WORKER_KINDS.has(c.kind))
    rule(result.refused?.code === ErrorCode.JOB_CANCELLED, () => `a cancelled job answered ${result.refused?.code ?? 'with a change'}`);
  // One event a version: the events of a commit take the versions after the one read, in order.
  result.events.forEach((e, i) => rule(e.job.version === before.job.version + i + 1, () => `event ${i} has version ${e.job.version}`));
  rule(job.version === before.job.version + result.events.length, () => `version ${job.version} after ${result.events.length} events`);
  // The job's progress stays within 0 and 1, and the current attempt of each step is the one the job names.
  rule(job.progress >= 0 && job.progress <= 1, () => `progress ${job.progress}`);
  for (const [name, step] of after.steps) rule(step.attempt === job.attempts[name], () => `step ${name} at attempt ${step.attempt}`);
  // The state the commit saves is the state read with the decision's events folded in: no change
  // goes unrecorded, and each event says what it wrote.
  const folded = result.events.reduce(evolve, { job: before.job, steps: before.steps, items: before.items });
  rule(
    folded.job === job && sameEntries(folded.steps, after.steps) && sameEntries(folded.items, after.items),
    () => `evolve of the ${result.events.length} events is not the state saved`,
  );
  // A hand-back leaves its unit claimable at once (no backoff), in the place it had in line (claimable
  // from when it was before its claim), with as many attempts left as before.
  for (const e of result.events) {
    if (e.type === JobEventType.ITEM_HANDED_BACK && e.item) {
      const was = before.items.get(`${e.item.stage}#${e.item.sequence}`);
      const place = was?.availableAt ?? was?.createdAt;
      rule(
        e.item.status === 'PENDING' && e.item.availableAt === place && place! <= iso(before.now) && was?.status === 'RUNNING',
        () => `item ${e.item?.sequence} handed back is ${e.item?.status} from ${e.item?.availableAt}`,
      );
      rule(
        was !== undefined && e.item.maxAttempt - e.item.attempt === was.maxAttempt - was.attempt,
        () => `item ${e.item?.sequence} lost an attempt to its hand-back`,
      );
    }
    if (e.type === JobEventType.STEP_HANDED_BACK && e.step) {
      const was = before.steps.get(e.step.name);
      rule(
        e.step.status === StepStatus.PENDING && e.step.waitsUntil === undefined && was?.status === StepStatus.RUNNING,
        () => `step ${e.step?.name} handed back is ${e.step?.status} until ${e.step?.waitsUntil}`,
      );
      rule(
        was !== undefined && e.step.attempt - (e.step.handedBack ?? 0) === was.attempt - (was.handedBack ?? 0),
        () => `step ${e.step?.name} lost an attempt to its hand-back`,
      );
    }
  }
  // A stage completes only when all its items are done.
  if (after.steps.get('render')?.status === StepStatus.COMPLETED)
    rule(counts.completed + counts.failed === counts.total, () => 'a stage completed with items not done');
}

describe('the job aggregate decisions, over generated command sequences', () => {
  it('keep the counters, the machines, single completion and cancellation in every state, for 10,000 sequences', () => {
    const runs = { sequences: 0, commands: 0, refused: 0, completedJobs: 0, failedJobs: 0, cancelledJobs: 0, handedBack: 0 };
    fc.assert(
      fc.property(
        fc.constantFrom('TEST_DECIDER_BACKOFF', 'TEST_DECIDER_AT_ONCE'),
        fc.integer({ min: 1, max: 3 }),
        fc.array(command, { minLength: 15, maxLength: 45, size: 'max' }),
        (kind, first, commands) => {
          let model = newJob(kind, first);
          for (const c of commands) {
            const result = apply(model, c);
            check(model, c, result.model, result);
            runs.commands++;
            if (result.refused) runs.refused++;
            for (const e of result.events)
              if (e.type === JobEventType.ITEM_HANDED_BACK || e.type === JobEventType.STEP_HANDED_BACK) runs.handedBack++;
            model = result.model;
          }
          runs.sequences++;
          if (model.job.status === JobStatus.COMPLETED) runs.completedJobs++;
          if (model.job.status === JobStatus.CANCELLED) runs.cancelledJobs++;
          if (model.job.status === JobStatus.FAILED) runs.failedJobs++;
        },
      ),
      { numRuns: 10_000 },
    );
    // The sequences reach every end: jobs complete, fail and are cancelled, and many commands are refused.
    expect(runs.sequences).toBe(10_000);
    expect(runs.completedJobs).toBeGreaterThan(100);
    // Hand-backs (generated since) leave fewer jobs to fail: about a dozen in 10,000, so the bound is
    // that some do (a run with none would mean the generator no longer reaches a failed job).
    expect(runs.failedJobs).toBeGreaterThan(0);
    expect(runs.cancelledJobs).toBeGreaterThan(100);
    expect(runs.refused).toBeGreaterThan(runs.commands / 10);
    // Hand-backs happen, of items and steps alike, and hold the rules above.
    expect(runs.handedBack).toBeGreaterThan(1000);
  });
});

describe('a stage failed by its policy', () => {
  it('says in its error every bound the policy declares, and fails past the first one crossed', () => {
    let model = newJob('TEST_DECIDER_BOTH_BOUNDS', 4);
    const run = (c: Command) => {
      const result = apply(model, c);
      expect(result.refused).toBeUndefined();
      model = result.model;
    };
    for (const sequence of [1, 2]) {
      run({ on: 'item', kind: 'claim', sequence, attemptShift: 0 });
      run({ on: 'item', kind: 'fail', sequence, attemptShift: 0 });
      // One of four is 25 %, within the policy; two of four is past it, though within maxFailed.
      expect(model.job.status).toBe(sequence === 1 ? JobStatus.RUNNING : JobStatus.FAILED);
    }
    expect(model.job.error).toMatchObject({
      code: 'ITEMS_FAILED',
      message: '2 of 4 items of stage render failed (more than 5 or 25% may not fail); retryWorkItem reopens the stage.',
    });
  });
});
