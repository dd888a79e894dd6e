import '../../src/pipelines/pipelines.kinds';
import { readFileSync } from 'node:fs';
import { buildSchema } from 'graphql';
import { BoundTenant } from '../../src/common/bound-tenant';
import { decide, type JobState, type StepAction } from '../support/step-decide';
import { initialSteps, JobEventType, JobStatus, JOB_COMMANDS, StepStatus, type StepState } from '../../src/job/job.machine';

import { entities } from '../../src/common/entities';
import { jobQueueId } from '../../src/job/job.aggregate';
import { eventWrites, itemOfEvent, jobOfEvent, stepOfEvent, jobWorkWrites, offeredFrom } from '../../src/job/job.writes';
import { marshall } from '@aws-sdk/util-dynamodb';
import { itemBytes } from '../support/partition-proxy';
import { changingTooFast } from '../../src/infra/dynamo/committer';
import { type UnitWrite, Write } from '../../src/infra/dynamo/write';

const ctx = { now: '2026-01-01T00:00:00.000Z', actor: 'u', jobId: 'job_1' };

function fresh(names: string[], maxAttempts = 3) {
  const plan = names.map((name, i) => ({ name, order: i + 1 }));
  const job: JobState = {
    status: JobStatus.QUEUED,
    plan,
    attempts: Object.fromEntries(names.map((n) => [n, 1])),
    currentStep: names[0],
    progress: 0,
    completedSteps: 0,
    failedSteps: 0,
    maxAttempts,
  };
  const steps = new Map(initialSteps(plan).map((s) => [s.name, s]));
  return { job, steps };
}

/** Applies actions in turn, keeping the current attempt of each step, like the repository does. */
function run(names: string[], actions: StepAction[], maxAttempts = 3) {
  let { job, steps } = fresh(names, maxAttempts);
  const types: JobEventType[] = [];
  for (const action of actions) {
    const outcome = decide(job, steps, action, ctx);
    job = outcome.job;
    steps = new Map(steps);
    for (const s of outcome.steps) if (job.attempts[s.name] === s.attempt) steps.set(s.name, s);
    types.push(outcome.type);
  }
  return { job, steps, types };
}

describe('job decisions', () => {
  it('runs steps in order and completes the job with progress 1', () => {
    const { job, types } = run(
      ['a', 'b'],
      [
        { kind: 'start', step: 'a' },
        { kind: 'progress', step: 'a', progress: 0.5 },
        { kind: 'complete', step: 'a', artifacts: [] },
        { kind: 'start', step: 'b' },
        { kind: 'complete', step: 'b', artifacts: [] },
      ],
    );
    expect(types).toEqual(['STEP_STARTED', 'STEP_PROGRESS', 'STEP_COMPLETED', 'STEP_STARTED', 'STEP_COMPLETED']);
    expect(job).toMatchObject({ status: JobStatus.COMPLETED, progress: 1, completedSteps: 2, finishedAt: ctx.now });
    // A field the machine clears is left out of the stored job.
    expect(job.currentStep).toBeUndefined();
  });

  it('computes job progress from completed steps plus the running step’s share', () => {
    const { job } = run(
      ['a', 'b', 'c', 'd'],
      [
        { kind: 'start', step: 'a' },
        { kind: 'complete', step: 'a', artifacts: [] },
        { kind: 'start', step: 'b' },
        { kind: 'progress', step: 'b', progress: 0.5 },
      ],
    );
    expect(job.progress).toBe(0.375);
  });

  it('refuses to start a step out of order, or twice', () => {
    const { job, steps } = fresh(['a', 'b']);
    expect(() => decide(job, steps, { kind: 'start', step: 'b' }, ctx)).toThrow(
      expect.objectContaining({ extensions: expect.objectContaining({ code: 'INVALID_TRANSITION', from: 'waiting for a' }) }),
    );
    const started = run(['a', 'b'], [{ kind: 'start', step: 'a' }]);
    expect(() => decide(started.job, started.steps, { kind: 'start', step: 'a' }, ctx)).toThrow(
      expect.objectContaining({ extensions: expect.objectContaining({ from: StepStatus.RUNNING, to: StepStatus.RUNNING }) }),
    );
    expect(() => decide(job, steps, { kind: 'start', step: 'zzz' }, ctx)).toThrow(/no step named "zzz"/);
  });

  it('schedules a new attempt while attempts remain, then fails the job', () => {
    const once = run(
      ['a'],
      [
        { kind: 'start', step: 'a' },
        { kind: 'fail', step: 'a', code: 'E', message: 'm' },
      ],
      2,
    );
    expect(once.job).toMatchObject({ status: JobStatus.RUNNING, attempts: { a: 2 }, failedSteps: 0, error: { code: 'E', retryCount: 0 } });
    expect(once.steps.get('a')).toMatchObject({ attempt: 2, status: StepStatus.PENDING });
    const twice = run(
      ['a'],
      [
        { kind: 'start', step: 'a' },
        { kind: 'fail', step: 'a', code: 'E', message: 'm' },
        { kind: 'start', step: 'a' },
        { kind: 'fail', step: 'a', code: 'E', message: 'm2' },
      ],
      2,
    );
    expect(twice.job).toMatchObject({ status: JobStatus.FAILED, failedSteps: 1, error: { message: 'm2', retryCount: 1 } });
  });

  it('refuses a worker that names another attempt, saying whether it is over or never existed, and which attempt is current', () => {
    const retried = run(
      ['a'],
      [
        { kind: 'start', step: 'a' },
        { kind: 'fail', step: 'a', code: 'E', message: 'm' },
        { kind: 'start', step: 'a' },
      ],
    );
    const refusal = (attempt: number) => {
      try {
        decide(retried.job, retried.steps, { kind: 'complete', step: 'a', artifacts: [], attempt }, ctx);
      } catch (error) {
        return error as { message: string; extensions: Record<string, unknown> };
      }
      throw new Error(`attempt ${attempt} was not refused`);
    };
    const late = refusal(1);
    expect(late.message).toBe(
      'Cannot complete Step a of job job_1 as attempt 1: that attempt is over (it failed or its lease ran out), and the step was tried again: it is at attempt 2 now. Drop the work of attempt 1.',
    );
    expect(late.extensions).toMatchObject({ code: 'INVALID_TRANSITION', from: 'at attempt 2', to: 'attempt 1', allowed: ['attempt 2'] });
    for (const never of [7, 0]) {
      expect(refusal(never).message).toBe(
        `Cannot complete Step a of job job_1 as attempt ${never}: the step never had an attempt ${never}; it is at attempt 2. Name the attempt that claimWork or startStep gave you.`,
      );
    }
    // The current attempt is not refused.
    expect(decide(retried.job, retried.steps, { kind: 'complete', step: 'a', artifacts: [], attempt: 2 }, ctx).type).toBe('STEP_COMPLETED');
  });

  it('pauses for review; approval continues, rejection fails; retry starts a new attempt', () => {
    const paused = run(
      ['a', 'b'],
      [
        { kind: 'start', step: 'a' },
        { kind: 'pause', step: 'a' },
      ],
    );
    expect(paused.job.status).toBe(JobStatus.PAUSED);
    expect(() => decide(paused.job, paused.steps, { kind: 'progress', step: 'a', progress: 0.1 }, ctx)).toThrow(
      /Cannot report progress on Job \S+: it is PAUSED, and that needs it RUNNING. A job PAUSED accepts approveStep, rejectStep, cancelJob\./,
    );
    const approved = decide(paused.job, paused.steps, { kind: 'approve', step: 'a' }, ctx);
    expect(approved.job).toMatchObject({ status: JobStatus.RUNNING, currentStep: 'b', completedSteps: 1 });
    expect(approved.step).toMatchObject({ status: StepStatus.COMPLETED, approvedBy: 'u', decidedAt: ctx.now });
    const rejected = run(
      ['a', 'b'],
      [{ kind: 'start', step: 'a' }, { kind: 'pause', step: 'a' }, { kind: 'reject', step: 'a', reason: 'no' }, { kind: 'retry' }],
    );
    expect(rejected.types.slice(-2)).toEqual(['STEP_REJECTED', 'JOB_RETRIED']);
    expect(rejected.job).toMatchObject({
      status: JobStatus.RUNNING,
      currentStep: 'a',
      failedSteps: 0,
      attempts: { a: 2 },
    });
    expect([rejected.job.error, rejected.job.finishedAt]).toEqual([undefined, undefined]);
  });

  it('cancels from any live status, skipping pending steps, and never from a final one', () => {
    const cancelled = run(['a', 'b', 'c'], [{ kind: 'start', step: 'a' }, { kind: 'cancel' }]);
    expect(cancelled.job.status).toBe(JobStatus.CANCELLED);
    expect([...cancelled.steps.values()].map((s: StepState) => s.status)).toEqual([
      StepStatus.RUNNING,
      StepStatus.SKIPPED,
      StepStatus.SKIPPED,
    ]);
    expect(() => decide(cancelled.job, cancelled.steps, { kind: 'cancel' }, ctx)).toThrow(
      /Cannot cancel Job \S+: it is CANCELLED, and that needs it QUEUED or RUNNING or PAUSED\. A job CANCELLED accepts nothing more\./,
    );
    expect(() => decide(cancelled.job, cancelled.steps, { kind: 'retry' }, ctx)).toThrow(
      /Cannot retry Job \S+: it is CANCELLED, and that needs it FAILED\./,
    );
  });

  it('says, when an action does not fit, what state the job or step is in and the mutations it accepts, from the declared commands', () => {
    // The hint is derived from JOB_COMMANDS, so it never drifts from what the decisions accept;
    // each command's mutation is one the schema has.
    const mutations = Object.keys(buildSchema(readFileSync('schema.graphql', 'utf8')).getMutationType()?.getFields() ?? {});
    for (const command of Object.values(JOB_COMMANDS)) expect(mutations).toContain(command.field);
    // Approving while the step still runs: the case GraphiQL's stale example ran into.
    const running = run(['a', 'b'], [{ kind: 'start', step: 'a' }]);
    expect(() => decide(running.job, running.steps, { kind: 'approve', step: 'a' }, ctx)).toThrow(
      /^Cannot approve Job \S+: it is RUNNING, and that needs it PAUSED\. A job RUNNING accepts startStep, claimWork, reportStepProgress, completeStep, failStep, pauseStepForReview, handBackStep, cancelJob\.$/,
    );
    expect(() => decide(running.job, running.steps, { kind: 'start', step: 'a' }, ctx)).toThrow(
      /A step attempt RUNNING accepts reportStepProgress, completeStep, failStep, pauseStepForReview, handBackStep\.$/,
    );
    const paused = run(
      ['a', 'b'],
      [
        { kind: 'start', step: 'a' },
        { kind: 'pause', step: 'a' },
      ],
    );
    expect(() => decide(paused.job, paused.steps, { kind: 'complete', step: 'a', artifacts: [], metrics: null }, ctx)).toThrow(
      /A job PAUSED accepts approveStep, rejectStep, cancelJob\.$/,
    );
  });
});

describe("a job's queue on its committer", () => {
  it('is one a job of one tenant, and tells a client kept waiting past the retry bound the job id alone', () => {
    const id = jobQueueId(new BoundTenant('acme'), 'job_1');
    expect(id).not.toBe(jobQueueId(new BoundTenant('other'), 'job_1'));
    expect(id).not.toBe(jobQueueId(new BoundTenant('acme'), 'job_2'));
    const refused = changingTooFast('Job')(id);
    expect(refused.message).toBe('Job job_1 is being changed by others right now; try again.');
    expect(refused.extensions.code).toBe('CONFLICT');
  });
});

describe('the job machine is the declared one', () => {
  const allowed = (model: typeof entities.Job | typeof entities.Step, from: string, to: string) =>
    from === to || model.targets(from).includes(to);

  it('declares every command inside the machines of src/common/entities.ts', () => {
    for (const [kind, command] of Object.entries(JOB_COMMANDS)) {
      for (const from of command.job)
        expect(`${kind}: ${from} → ${command.to} ${allowed(entities.Job, from, command.to)}`).toMatch(/true$/);
      for (const from of command.step ?? []) {
        const to = command.stepTo ?? from;
        expect(`${kind}: step ${from} → ${to} ${allowed(entities.Step, from, to)}`).toMatch(/true$/);
      }
    }
  });

  it('decides only moves the declared machines allow, from every state a two-step job can reach', () => {
    // Every action on every step, from every state reached so far (breadth first): each outcome's
    // job move and each step attempt's move must be one the declaration allows, and every declared
    // move of the job must be reached by some decision (so the declaration has no dead entries).
    const actions = (step: string): StepAction[] => [
      { kind: 'start', step },
      { kind: 'claim', step, leaseUntil: '2025-12-31T00:00:00.000Z' },
      { kind: 'progress', step, progress: 0.5 },
      { kind: 'complete', step, artifacts: [] },
      { kind: 'complete', step, artifacts: [], review: true },
      { kind: 'fail', step, code: 'E', message: 'e' },
      { kind: 'pause', step },
      { kind: 'approve', step },
      { kind: 'reject', step, reason: 'r' },
    ];
    const all: StepAction[] = [...actions('a'), ...actions('b'), { kind: 'cancel' }, { kind: 'retry' }];
    const seen = new Set<string>();
    const jobMoves = new Set<string>();
    let frontier = [fresh(['a', 'b'], 2)];
    // retryJob grants attempts without end, so the walk stops at a depth that reaches every status twice.
    for (let depth = 0; depth < 10 && frontier.length; depth++) {
      const next: typeof frontier = [];
      for (const { job, steps } of frontier) {
        for (const action of all) {
          let outcome: ReturnType<typeof decide>;
          try {
            outcome = decide(job, steps, action, ctx);
          } catch {
            continue;
          }
          expect(`job ${job.status} → ${outcome.job.status}: ${allowed(entities.Job, job.status, outcome.job.status)}`).toMatch(/true$/);
          jobMoves.add(`${job.status}>${outcome.job.status}`);
          const after = new Map(steps);
          for (const s of outcome.steps) {
            const before = steps.get(s.name);
            const from = before?.attempt === s.attempt ? before.status : StepStatus.PENDING;
            expect(`step ${from} → ${s.status}: ${allowed(entities.Step, from, s.status)}`).toMatch(/true$/);
            if (outcome.job.attempts[s.name] === s.attempt) after.set(s.name, s);
          }
          const id = JSON.stringify([outcome.job, [...after.values()]]);
          if (!seen.has(id)) next.push({ job: outcome.job, steps: after });
          seen.add(id);
        }
      }
      frontier = next;
    }
    // QUEUED → COMPLETED is made by reuse at creation (src/job/job.aggregate.ts), not by one command.
    const declared = entities.Job.states.flatMap((from) => entities.Job.targets(from).map((to) => `${from}>${to}`));
    expect(declared.filter((move) => !jobMoves.has(move))).toEqual(['QUEUED>COMPLETED']);
    expect(seen.size).toBeGreaterThan(20);
  });
});

describe('a step stage’s attempt timeout and retry backoff', () => {
  const at = (seconds: number) => new Date(Date.parse(ctx.now) + seconds * 1000).toISOString();
  const policy = { attemptTimeoutSeconds: 60, retryBackoff: { initialSeconds: 10, factor: 3, maxSeconds: 60, jitter: 0 } };
  const lease = at(30);

  it('gives an attempt its time from its start; reports renew its lease only up to it and are refused past it', () => {
    const { job, steps } = fresh(['a'], 3);
    const started = decide(job, steps, { kind: 'claim', step: 'a', leaseUntil: at(600) }, { ...ctx, policy });
    expect(started.step).toMatchObject({ status: StepStatus.RUNNING, timesOutAt: at(60), leaseExpiresAt: at(60) });
    const running = new Map([['a', started.step as StepState]]);
    const renewed = decide(
      started.job,
      running,
      { kind: 'progress', step: 'a', progress: 0.5, leaseUntil: at(90) },
      { ...ctx, now: at(50), policy },
    );
    expect(renewed.step).toMatchObject({ leaseExpiresAt: at(60), timesOutAt: at(60) });
    expect(() =>
      decide(started.job, running, { kind: 'progress', step: 'a', progress: 0.6, leaseUntil: at(120) }, { ...ctx, now: at(60), policy }),
    ).toThrow(expect.objectContaining({ code: 'ATTEMPT_TIMED_OUT' }));
  });

  it('lets a claim take over an attempt whose time is up although its lease runs on: at once without a backoff, after it with one', () => {
    const { job, steps } = fresh(['a'], 3);
    const noBackoff = { attemptTimeoutSeconds: 60 };
    const started = decide(job, steps, { kind: 'claim', step: 'a', leaseUntil: lease }, { ...ctx, policy: noBackoff });
    const running = new Map([['a', { ...(started.step as StepState), leaseExpiresAt: at(600) }]]);
    // Before its time: not claimable.
    expect(() =>
      decide(started.job, running, { kind: 'claim', step: 'a', leaseUntil: at(100) }, { ...ctx, now: at(59), policy: noBackoff }),
    ).toThrow(/Its attempt runs until/);
    const taken = decide(
      started.job,
      running,
      { kind: 'claim', step: 'a', leaseUntil: at(100) },
      { ...ctx, now: at(61), policy: noBackoff },
    );
    expect(taken.type).toBe(JobEventType.STEP_RECLAIMED);
    expect(taken.steps.map((s) => [s.attempt, s.status, s.error?.code])).toEqual([
      [1, StepStatus.FAILED, 'ATTEMPT_TIMED_OUT'],
      [2, StepStatus.RUNNING, undefined],
    ]);
    expect(taken.step).toMatchObject({ timesOutAt: at(121), leaseExpiresAt: at(100) });
    // With a backoff the claim ends the attempt and the next one waits; the claimer holds nothing.
    const waiting = decide(started.job, running, { kind: 'claim', step: 'a', leaseUntil: at(100) }, { ...ctx, now: at(61), policy });
    expect(waiting.type).toBe(JobEventType.STEP_FAILED);
    expect(waiting.steps.map((s) => [s.attempt, s.status, s.waitsUntil])).toEqual([
      [1, StepStatus.FAILED, undefined],
      [2, StepStatus.PENDING, at(71)],
    ]);
  });

  it('makes a failed attempt’s successor wait a growing backoff before it can start', () => {
    let { job, steps } = fresh(['a'], 4);
    const waits: number[] = [];
    let now = 0;
    for (let attempt = 1; attempt <= 3; attempt++) {
      const c = { ...ctx, now: at(now), policy };
      const started = decide(job, steps, { kind: 'start', step: 'a', leaseUntil: at(now + 30) }, c);
      const failed = decide(
        started.job,
        new Map([['a', started.step as StepState]]),
        { kind: 'fail', step: 'a', code: 'E', message: 'e' },
        c,
      );
      const next = failed.steps.find((s) => s.attempt === attempt + 1) as StepState;
      waits.push((Date.parse(next.waitsUntil ?? '') - Date.parse(at(now))) / 1000);
      job = failed.job;
      steps = new Map([['a', next]]);
      // Started before its wait is over: refused, naming when it can start; at that time it starts.
      expect(() => decide(job, steps, { kind: 'start', step: 'a' }, { ...ctx, now: at(now + 1), policy })).toThrow(/it can start at/);
      now = (Date.parse(next.waitsUntil ?? '') - Date.parse(ctx.now)) / 1000;
    }
    expect(waits).toEqual([10, 30, 60]);
  });
});

describe("the pools' index of a running step (JobWork), while its worker reports", () => {
  const LEASE = 60;
  const at = (seconds: number) => new Date(Date.parse(ctx.now) + seconds * 1000).toISOString();
  /** A declared 3D_CHARACTER job at its first (single-step) stage, as stored, from the machine's state. */
  const stored = (state: JobState, version: number) => {
    const item = entities.Job.toItem('t', {
      ...state,
      currentStep: state.currentStep ?? undefined,
      error: state.error ?? undefined,
      startedAt: state.startedAt ?? undefined,
      finishedAt: state.finishedAt ?? undefined,
      jobId: 'job_1',
      projectId: 'proj_1',
      kind: '3D_CHARACTER',
      declared: true,
      version,
      createdAt: ctx.now,
      updatedAt: ctx.now,
      createdBy: 'user_1',
    });
    if (!entities.Job.is(item)) throw new Error('The job was made as another type.');
    return item;
  };

  /** What the JobWork entry a write puts offers (its availableAt). */
  const offerOf = (writes: UnitWrite[]) => String(writes[0] instanceof Write ? writes[0].item?.availableAt : undefined);

  /**
   * Claims the step at 0 and reports every `every` seconds until `until`, as JobAggregate commits each
   * change: the JobWork writes of each report (jobWorkWrites with the workers' lease), and what
   * the entry offers after each one.
   */
  function reports(every: number, until: number, leaseSeconds: number) {
    const { job, steps } = fresh(['text-to-image', 'refine', '3d', 'retopo', 'rig', 'anim', 'export']);
    const claim = decide(job, steps, { kind: 'claim', step: 'text-to-image', leaseUntil: at(LEASE) }, ctx);
    let state = { job: claim.job, step: claim.step as StepState, version: 2 };
    let offered = offerOf(
      jobWorkWrites({ tenant: new BoundTenant('t') }, null, { job: stored(state.job, 2), step: state.step }, ctx.now, leaseSeconds),
    );
    const perReport: { at: string; writes: number; offered: string; leaseEnd: string }[] = [];
    for (let t = every; t <= until; t += every) {
      const now = at(t);
      const outcome = decide(
        state.job,
        new Map([[state.step.name, state.step]]),
        { kind: 'progress', step: state.step.name, progress: t / (until + 1), leaseUntil: at(t + LEASE) },
        { ...ctx, now },
      );
      const next = { job: outcome.job, step: outcome.step as StepState, version: state.version + 1 };
      const writes = jobWorkWrites(
        { tenant: new BoundTenant('t') },
        { job: stored(state.job, state.version), step: state.step },
        { job: stored(next.job, next.version), step: next.step },
        now,
        leaseSeconds,
      );
      if (writes.length) offered = offerOf(writes);
      perReport.push({ at: now, writes: writes.length, offered, leaseEnd: String(next.step.leaseExpiresAt) });
      state = next;
    }
    return perReport;
  }

  it('is written about once per half a lease, not once per report, and never offers the step after its lease ends', () => {
    // A worker reporting every 2 s for 10 minutes: 300 reports.
    const listed = reports(2, 600, LEASE);
    const writes = listed.reduce((n, r) => n + r.writes, 0);
    // What following every renewal wrote (an exact offer moves with each report): one write a report.
    const exact = reports(2, 600, 0).reduce((n, r) => n + r.writes, 0);
    expect(exact).toBe(300);
    expect(writes).toBeLessThanOrEqual(600 / (LEASE / 2) + 1);
    for (const r of listed) {
      // Never after the lease's end (a quiet worker's step is offered as soon as the lease runs out),
      // and, while the worker reports, still ahead: no pool claim is tried on it.
      expect(r.offered <= r.leaseEnd).toBe(true);
      expect(r.offered > r.at).toBe(true);
    }
    console.log(
      `JobWork writes for 300 progress reports (every 2 s, ${LEASE} s lease): ${exact} following each renewal, ${writes} on the half-lease grid`,
    );
  });

  it('keeps an attempt timeout as it is: once the lease passes it the entry is not written again', () => {
    const { job, steps } = fresh(['text-to-image', 'refine', '3d', 'retopo', 'rig', 'anim', 'export']);
    const policy = { attemptTimeoutSeconds: 45 };
    const claim = decide(job, steps, { kind: 'claim', step: 'text-to-image', leaseUntil: at(LEASE) }, { ...ctx, policy });
    const step = claim.step as StepState;
    expect(offeredFrom(step, (LEASE * 1000) / 2)).toBe(at(45));
    const report = decide(
      claim.job,
      new Map([[step.name, step]]),
      { kind: 'progress', step: step.name, progress: 0.5, leaseUntil: at(10 + LEASE) },
      { ...ctx, now: at(10), policy },
    );
    expect(
      jobWorkWrites(
        { tenant: new BoundTenant('t') },
        { job: stored(claim.job, 2), step },
        { job: stored(report.job, 3), step: report.step as StepState },
        at(10),
        LEASE,
      ),
    ).toEqual([]);
  });
});

describe("a job event's copy of the job", () => {
  const job = entities.Job.toItem('t', {
    jobId: 'job_01M8Q281NMF177XTEJDGJ6Z0WQ',
    projectId: 'proj_01M8Q26EJJA48GG1JSS8HA8QE0',
    kind: 'PHOTO_EDIT',
    status: JobStatus.RUNNING,
    plan: [{ name: 'edit', order: 1 }],
    attempts: { edit: 1 },
    currentStep: 'edit',
    progress: 0,
    completedSteps: 0,
    failedSteps: 0,
    maxAttempts: 3,
    priority: 7,
    seed: 's-42',
    modelVersion: 'm-3',
    reuse: false,
    inputs: { prompt: 'large' },
    version: 4,
    createdAt: ctx.now,
    updatedAt: ctx.now,
    createdBy: 'user_1',
  });
  const rowOf = (outcome: Parameters<typeof eventWrites>[3], of = job) => {
    const [own] = eventWrites({ tenant: new BoundTenant('t'), eventRetentionDays: 30 }, of, of, outcome, ctx.now, 'user_1');
    if (!(own instanceof Write) || !own.item) throw new Error('The job event is not a put.');
    return own.item;
  };

  it('carries every field of the job as the change left it but its inputs, so a client cache reads seed, priority and reuse from it', () => {
    const row = rowOf({ type: JobEventType.STEP_PROGRESS });
    // Stored without what the event's own fields say; put back whole for the API (jobOfEvent).
    expect(row.job).not.toHaveProperty('jobId');
    expect(row.job).not.toHaveProperty('version');
    // Every field of the job but its key, index and quota bookkeeping and its inputs.
    const shown = Object.fromEntries(Object.entries(job).filter(([name]) => !/^(PK|SK|GSI\d[PS]K|quotaCounted|inputs)$/.test(name)));
    expect(
      jobOfEvent({
        jobId: String(row.jobId),
        projectId: String(row.projectId),
        seq: Number(row.seq),
        at: String(row.at),
        job: row.job as object,
      }),
    ).toEqual({
      ...shown,
      seq: 4,
      inputsLeftOut: true,
    });
  });

  it("leaves out of an item's event row what the event says, and gives its step and item back whole", () => {
    const at = ctx.now;
    // A BATCH job as the partitions test's createJob makes it, 120 of its 290 items done.
    const { seed, modelVersion, priority, reuse, ...plain } = job;
    const withCounts = {
      ...plain,
      kind: 'BATCH',
      declared: true,
      currentStep: 'process',
      plan: [{ name: 'process', order: 1 }],
      attempts: { process: 1 },
      itemCounts: { process: { total: 290, running: 24, completed: 120, failed: 0 } },
    };
    const item = entities.WorkItem.toItem('t', {
      jobId: job.jobId,
      stage: 'process',
      sequence: 131,
      kind: 'BATCH',
      status: 'COMPLETED',
      attempt: 1,
      maxAttempt: 3,
      progress: 1,
      inputs: { source: 'tenants/studio-north/in/131.png' },
      outputs: { result: 'tenants/studio-north/out/131.png' },
      worker: 'worker-17',
      startedAt: at,
      finishedAt: at,
      availableAt: at,
      version: 3,
      createdAt: at,
      updatedAt: at,
      createdBy: 'feeder',
    });
    const row = rowOf({ type: JobEventType.ITEM_COMPLETED, item }, withCounts);
    // What the copies leave to the event is at least 200 bytes of the row (it averaged 1,154 bytes
    // before, docs/scaling.md): the partitions test holds the write units that saves.
    const bytes = itemBytes(marshall(row, { removeUndefinedValues: true }));
    const fields = { jobId: job.jobId, projectId: job.projectId, seq: 4, at };
    const whole = {
      ...row,
      job: jobOfEvent({ ...fields, job: row.job as object }),
      item: itemOfEvent({ ...fields, item: row.item as object }),
    };
    expect(itemBytes(marshall(whole, { removeUndefinedValues: true })) - bytes).toBeGreaterThan(200);
    const { PK, SK, kind, availableAt, ...shown } = item;
    expect(itemOfEvent({ ...fields, item: row.item as object })).toEqual({ ...shown, availableAt: undefined });
    const step = { ...initialSteps([{ name: 'process', order: 1 }])[0], jobId: job.jobId };
    const stepRow = rowOf({ type: JobEventType.STEP_STARTED, step });
    expect(stepRow.step).not.toHaveProperty('jobId');
    expect(stepOfEvent({ ...fields, step: stepRow.step as object })).toEqual(step);
  });
});
