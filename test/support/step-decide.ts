import type { EntityItem } from '../../src/common/entities';
import { decide as decideOn, JobGroup } from '../../src/job/job.decider';
import type { StepPolicy } from '../../src/job/job.kinds';
import type { JobAction, JobEventType, StepState } from '../../src/job/job.machine';

/**
 * The job decider's step commands as the machine tests drive them: a job's state and the current
 * attempt of each step in, the decision's outcome out, so that a test states a job in the few
 * fields the step rules read. It runs the server's `decide` on a group read from that state.
 */

/** The part of a job the step rules read and change. */
export type JobState = Pick<
  EntityItem<'Job'>,
  | 'status'
  | 'plan'
  | 'attempts'
  | 'currentStep'
  | 'progress'
  | 'completedSteps'
  | 'failedSteps'
  | 'maxAttempts'
  | 'error'
  | 'startedAt'
  | 'finishedAt'
>;

/** A command as the tests write it: the action with the step it names. */
export type StepAction = { [K in JobAction['kind']]: Extract<JobAction, { kind: K }> & { step?: string } }[JobAction['kind']];

/** What a decision did: the job as it left it, the step attempts it wrote, its event and the step the event is about. */
export interface Outcome {
  job: JobState;
  steps: StepState[];
  type: JobEventType;
  step?: StepState;
}

/** Decides `command` on `job` and `steps` at `ctx.now` by `ctx.actor`, with the stage policy `ctx.policy` (none by default). */
export function decide(
  job: JobState,
  steps: ReadonlyMap<string, StepState>,
  command: StepAction,
  ctx: { now: string; actor: string; jobId: string; policy?: StepPolicy },
): Outcome {
  const { step, ...action } = command;
  const read = {
    job: { PK: '', SK: '', entityType: 'Job', jobId: ctx.jobId, kind: 'TEST', version: 1, ...job } as EntityItem<'Job'>,
    steps: new Map([...steps].map(([name, s]) => [name, { ...s, jobId: ctx.jobId }])),
    storedSteps: [],
    items: new Map(),
    at: ctx.now,
  };
  const unit = step === undefined ? undefined : { stage: step, sequence: 0 };
  const decided = decideOn(JobGroup.of(read), { unit, action: action as JobAction }, ctx.actor, ctx.policy ?? {});
  const [event] = decided.events;
  if (event?.type === undefined) throw new Error('the decision made no event');
  const unstamped = (s: StepState & { jobId?: string }): StepState => {
    const { jobId: _, ...own } = s;
    return own;
  };
  return { job: decided.job, steps: event.wrote.steps.map(unstamped), type: event.type, step: event.step };
}
