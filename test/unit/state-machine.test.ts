import '../../src/pipelines/pipelines.kinds';
import { entities } from '../../src/common/entities';
import { JOB_KINDS } from '../../src/job/job.kinds';
import { decide, type JobState, type StepAction } from '../support/step-decide';
import { initialSteps, type StepState } from '../../src/job/job.machine';

/*
 * The status machines, checked against the seeds (/work/shared/seeds; its README says which is
 * which), not against their own declarations: each table below is written out by hand from the
 * seed document it names, so a wrong declaration fails here. Where the server goes beyond a seed
 * on purpose (cancelling, retrying, leases), the extra moves are listed apart, each with the page
 * of docs/ that promises it.
 */

/** A machine as `from>to` moves, sorted. */
type Moves = string[];
const moves = (table: Record<string, string[]>): Moves =>
  Object.entries(table)
    .flatMap(([from, targets]) => targets.map((to) => `${from}>${to}`))
    .sort();

/** Every move an entity's machine allows, found by asking it about every pair of the states given. */
function allowedMoves(name: 'Project' | 'Milestone' | 'Log' | 'Scene' | 'WorkItem' | 'Job' | 'Step', states: string[]): Moves {
  const model = entities[name];
  return states
    .flatMap((from) =>
      states.flatMap((to) => {
        try {
          model.assertTransition('x', from, to);
          return [`${from}>${to}`];
        } catch {
          return [];
        }
      }),
    )
    .sort();
}

const statesOf = (table: Record<string, string[]>) => [...new Set(Object.entries(table).flatMap(([from, to]) => [from, ...to]))];

// Seed 002 (Artissist): "status: planning production complete", in that order.
const SEED_PROJECT = { planning: ['production'], production: ['complete'], complete: [] };
// Seed 002: a milestone's "status: pending in_progress complete".
const SEED_MILESTONE = { pending: ['in_progress'], in_progress: ['complete'], complete: [] };
// Seed 002: a log's "attributionStatus: confirmed pending rejected": pending is settled once, either way.
const SEED_LOG = { pending: ['confirmed', 'rejected'], confirmed: [], rejected: [] };
// Seed 001 (music video), "Scene Status State Machine": pending → processing → completed, and
// pending or processing → failed.
const SEED_SCENE = { pending: ['processing', 'failed'], processing: ['completed', 'failed'], completed: [], failed: [] };
// Seed 001, "Project Status State Machine": pending → generating_scenes → processing → composing →
// completed (every one may fail). Its middle states are the phases a music video job shows.
const SEED_MUSIC_VIDEO_PHASES = ['generating_scenes', 'processing', 'composing'];

describe('status machines against the seeds', () => {
  it('moves a project planning → production → complete and nowhere else (seed 002)', () => {
    expect(allowedMoves('Project', [...statesOf(SEED_PROJECT), 'archived'])).toEqual(moves(SEED_PROJECT));
  });

  it('moves a milestone pending → in_progress → complete and nowhere else (seed 002)', () => {
    expect(allowedMoves('Milestone', statesOf(SEED_MILESTONE))).toEqual(moves(SEED_MILESTONE));
  });

  it('settles a log attribution once: pending → confirmed | rejected (seed 002)', () => {
    expect(allowedMoves('Log', statesOf(SEED_LOG))).toEqual(moves(SEED_LOG));
  });

  it("moves a scene as seed 001's scene machine does, and nowhere else", () => {
    expect(allowedMoves('Scene', statesOf(SEED_SCENE))).toEqual(moves(SEED_SCENE));
  });

  it("runs a work item (a rendered scene) through seed 001's scene machine, plus only the documented retries, reuse and cancelling", () => {
    // Seed 001's scene machine in the work item's names: pending = PENDING, processing = RUNNING.
    const seed = { PENDING: ['RUNNING'], RUNNING: ['COMPLETED', 'FAILED'] };
    // What docs/pipelines.md adds: a failed attempt or a lapsed lease with attempts left waits again
    // (RUNNING → PENDING) or is claimed again at once (RUNNING → RUNNING); retryWorkItem reopens a
    // dead letter (FAILED → PENDING); reuse completes an item from a stored one without running it
    // (PENDING → COMPLETED); a cancelled job's unfinished items are CANCELLED.
    const documented = {
      PENDING: ['COMPLETED', 'CANCELLED'],
      RUNNING: ['PENDING', 'RUNNING', 'CANCELLED'],
      FAILED: ['PENDING'],
    };
    const states = ['PENDING', 'RUNNING', 'COMPLETED', 'FAILED', 'CANCELLED'];
    const allowed = allowedMoves('WorkItem', states);
    expect(allowed).toEqual(expect.arrayContaining(moves(seed)));
    expect(allowed).toEqual([...moves(seed), ...moves(documented)].sort());
    // Seed 001 lets a scene fail before it is processed; an item fails only by an attempt.
    expect(allowed).not.toContain('PENDING>FAILED');
  });

  it("shows a music video job's stages as seed 001's project phases, in order", () => {
    expect(JOB_KINDS.MUSIC_VIDEO.stages.map((stage) => stage.phase)).toEqual(SEED_MUSIC_VIDEO_PHASES);
  });

  it('names the state, the target and where it may go in the INVALID_TRANSITION error', () => {
    expect(() => entities.Project.assertTransition('proj_1', 'complete', 'planning')).toThrow(
      expect.objectContaining({
        message: 'Project proj_1 cannot go from complete to planning: complete is final.',
        extensions: expect.objectContaining({ code: 'INVALID_TRANSITION', from: 'complete', to: 'planning', allowed: [] }),
      }),
    );
    expect(() => entities.Milestone.assertTransition('ms_1', 'pending', 'complete')).toThrow(
      expect.objectContaining({
        message: 'Milestone ms_1 cannot go from pending to complete: from pending it can go to in_progress.',
        extensions: expect.objectContaining({ from: 'pending', to: 'complete', allowed: ['in_progress'] }),
      }),
    );
  });
});

/**
 * Every job status change the job's decision can make, found by trying every action on a three-step
 * job (the second step paused for review) from every state reached, a bounded number of moves deep.
 */
function jobMoves(): Moves {
  const plan = [
    { name: 'generate', order: 1 },
    { name: 'review', order: 2 },
    { name: 'export', order: 3 },
  ];
  const ctx = { now: '2026-01-01T00:00:00.000Z', actor: 'u', jobId: 'job_1' };
  const actions: StepAction[] = [{ kind: 'cancel' }, { kind: 'retry' }];
  for (const { name: step } of plan)
    actions.push(
      { kind: 'start', step },
      { kind: 'complete', step, artifacts: [], review: step === 'review' },
      { kind: 'fail', step, code: 'E', message: 'failed' },
      { kind: 'pause', step },
      { kind: 'approve', step },
      { kind: 'reject', step, reason: 'no' },
    );
  const job: JobState = {
    status: 'QUEUED',
    plan,
    attempts: { generate: 1, review: 1, export: 1 },
    currentStep: 'generate',
    progress: 0,
    completedSteps: 0,
    failedSteps: 0,
    maxAttempts: 2,
  };
  const found = new Set<string>();
  const seen = new Set<string>();
  let frontier: Array<{ job: JobState; steps: Map<string, StepState> }> = [
    { job, steps: new Map(initialSteps(plan).map((s) => [s.name, s])) },
  ];
  for (let depth = 0; depth < 12 && frontier.length > 0; depth++) {
    const next: typeof frontier = [];
    for (const state of frontier) {
      for (const action of actions) {
        let outcome: ReturnType<typeof decide>;
        try {
          outcome = decide(state.job, state.steps, action, ctx);
        } catch {
          continue;
        }
        if (outcome.job.status !== state.job.status) found.add(`${state.job.status}>${outcome.job.status}`);
        const steps = new Map(state.steps);
        for (const s of outcome.steps) if (outcome.job.attempts[s.name] === s.attempt) steps.set(s.name, s);
        const key = JSON.stringify([outcome.job.status, outcome.job.attempts, [...steps.values()].map((s) => s.status)]);
        if (seen.has(key)) continue;
        seen.add(key);
        next.push({ job: outcome.job, steps });
      }
    }
    frontier = next;
  }
  return [...found].sort();
}

describe('the job machine against the seeds', () => {
  // Seed 004 (photo editor): QUEUED → PROCESSING → EDITING → COMPLETED, EDITING → FAILED. Our
  // RUNNING is its PROCESSING and EDITING (a step of ours is what a worker runs).
  const SEED_004 = { QUEUED: ['RUNNING'], RUNNING: ['COMPLETED', 'FAILED'] };
  // Seed 000 (asset creator): a step paused for human review holds the job until a person decides.
  const SEED_000 = { RUNNING: ['PAUSED'], PAUSED: ['RUNNING'] };
  // What docs/api.md adds: "QUEUED → RUNNING ⇄ PAUSED → COMPLETED | FAILED | CANCELLED (FAILED →
  // RUNNING by retryJob)": a reviewer's rejection fails the job, the last review approved completes
  // it, and an unfinished job may be cancelled.
  const DOCUMENTED = {
    QUEUED: ['CANCELLED'],
    RUNNING: ['CANCELLED'],
    PAUSED: ['COMPLETED', 'FAILED', 'CANCELLED'],
    FAILED: ['RUNNING'],
  };

  it("declares every move of seeds 004 and 000, plus only docs/api.md's own and reuse's", () => {
    // docs/pipelines.md: a job whose every step took stored outputs completes at creation.
    const reuse = { QUEUED: ['COMPLETED'] };
    const states = ['QUEUED', 'RUNNING', 'PAUSED', 'COMPLETED', 'FAILED', 'CANCELLED'];
    expect(allowedMoves('Job', states)).toEqual(
      [...new Set([...moves(SEED_004), ...moves(SEED_000), ...moves(DOCUMENTED), ...moves(reuse)])].sort(),
    );
  });

  it("declares a step attempt's moves: seed 004's run, seed 000's review, and only docs/pipelines.md's reuse and cancelling", () => {
    // Seed 004's work (PROCESSING, EDITING) is a running step that completes or fails; seed 000's
    // paused step is approved (COMPLETED) or rejected (FAILED) by a person.
    const seeds = { PENDING: ['RUNNING'], RUNNING: ['PAUSED', 'COMPLETED', 'FAILED'], PAUSED: ['COMPLETED', 'FAILED'] };
    // A step takes the stored outputs of a completed one (reuse), or is skipped when its job is cancelled first.
    const documented = { PENDING: ['COMPLETED', 'SKIPPED'] };
    const states = ['PENDING', 'RUNNING', 'PAUSED', 'COMPLETED', 'FAILED', 'SKIPPED'];
    expect(allowedMoves('Step', states)).toEqual([...moves(seeds), ...moves(documented)].sort());
  });

  it("makes every move of seeds 004 and 000, plus only docs/api.md's own", () => {
    const found = jobMoves();
    expect(found).toEqual(expect.arrayContaining([...moves(SEED_004), ...moves(SEED_000)]));
    expect(found).toEqual([...new Set([...moves(SEED_004), ...moves(SEED_000), ...moves(DOCUMENTED)])].sort());
  });
});
