import { attemptEndsAt } from '../common/entities';
import { AppError, attemptTimedOut, badInput, ErrorCode, wrongAttempt } from '../errors';
import { type AttemptRef, backoffSeconds, type RetryBackoff } from './job.kinds';

/*
 * The rules of one attempt of a unit of work, written once: a unit is a step (sequence 0) or a
 * work item of a fan-out stage, and both decisions (job.decider.ts, for steps and for
 * items) take their leases, deadlines, backoffs, takeovers, refusals and progress from here. A
 * change to how a lease or a takeover works is one edit here, and test/unit/attempts.test.ts holds
 * steps and items to the same answers.
 */

/** An error a unit's attempt ended with: its code, its message and how many attempts came before it. */
export interface AttemptError {
  code: string;
  message: string;
  retryCount: number;
}

/** What the rules read of a unit's current attempt (a step attempt's or a work item's fields). */
export interface HeldAttempt {
  attempt: number;
  status: string;
  worker?: string;
  leaseExpiresAt?: string;
  timesOutAt?: string;
}

/** The ISO time `seconds` after the ISO time `at`, to the millisecond. */
export const later = (at: string, seconds: number): string => new Date(Date.parse(at) + Math.round(seconds * 1000)).toISOString();

/** A fraction kept to four decimals (a job's progress), so stored and compared values agree. */
export const round4 = (n: number): number => Math.round(n * 10_000) / 10_000;

/** What each action on a unit is called in an error message: "Cannot report progress on item 3 …". */
export const VERBS = {
  start: 'start',
  claim: 'claim',
  progress: 'report progress on',
  complete: 'complete',
  fail: 'fail',
  pause: 'pause for review',
  approve: 'approve',
  reject: 'reject',
  cancel: 'cancel',
  retry: 'retry',
  handBack: 'hand back',
} as const;
export type Verb = keyof typeof VERBS;

/** When an attempt starting at `at` runs out of time: its stage's attempt timeout from then (none without one). */
export const deadlineOf = (at: string, timeoutSeconds: number | undefined): string | undefined =>
  timeoutSeconds ? later(at, timeoutSeconds) : undefined;

/** When a lease taken or renewed at `at` runs out without another report: `leaseSeconds` (JOB_LEASE_SECONDS) later. */
export const leaseUntilOf = (at: string, leaseSeconds: number): string => later(at, leaseSeconds);

/** A lease never outlasts its attempt's time: a report past it renews nothing. */
export const leaseWithin = (leaseUntil: string, timesOutAt: string | undefined): string =>
  timesOutAt !== undefined && timesOutAt < leaseUntil ? timesOutAt : leaseUntil;

/** When a running attempt can be taken over (declared with the work's claimable indexes, src/common/entities.ts). */
export { attemptEndsAt };

/**
 * JOB_CANCELLED: what any claim, report or completion on a cancelled job's steps or items gets, so
 * a worker can tell "stop, the job is gone" from a transition it got wrong.
 */
export function cancelledJob(jobId: string, at?: string | null): AppError {
  return new AppError(
    ErrorCode.JOB_CANCELLED,
    `Job ${jobId} was cancelled${at ? ` at ${at}` : ''}; stop working on it and drop its work.`,
    { jobId, cancelledAt: at ?? null },
  );
}

/** Throws JOB_CANCELLED when the job was cancelled: once a cancellation committed, no worker's action on it succeeds. */
export function refuseCancelled(job: { status: string; finishedAt?: string | null }, jobId: string): void {
  if (job.status === 'CANCELLED') throw cancelledJob(jobId, job.finishedAt);
}

/**
 * A worker that names an attempt must hold the current one: one whose lease was taken over (or
 * that never was) is refused with INVALID_TRANSITION, naming the attempt that runs now, and
 * changes nothing. `named` null or undefined names none (a step's caller may leave it out).
 * `waiting` says when a unit that waits (PENDING, after a failed attempt) may be claimed again.
 */
export function requireAttempt(
  what: string,
  jobId: string,
  verb: Verb,
  unit: 'step' | 'item',
  current: number,
  named: number | null | undefined,
  waiting?: { availableAt?: string },
): void {
  if (named != null && named !== current) throw wrongAttempt(what, jobId, VERBS[verb], unit, current, named, waiting);
}

/** Throws BAD_USER_INPUT (field `progress`) unless `progress` is between 0 and 1. */
export function checkProgress(progress: number): void {
  if (!(progress >= 0 && progress <= 1)) throw badInput('progress must be between 0 and 1.', 'progress');
}

/**
 * Throws ATTEMPT_TIMED_OUT when the held attempt's time is up at `now`: a report on it renews
 * nothing, its holder is told to stop, and the next claim takes the unit over.
 */
export function refuseTimedOut(what: string, jobId: string, held: HeldAttempt, now: string, timeoutSeconds: number | undefined): void {
  if (held.timesOutAt !== undefined && held.timesOutAt <= now)
    throw attemptTimedOut(what, jobId, held.attempt, held.timesOutAt, timeoutSeconds);
}

/** When the next attempt after failed attempt `ref.attempt` may start: `at` plus its stage's backoff (at once without one). */
export const retryAt = (backoff: RetryBackoff | undefined, ref: AttemptRef, at: string): string => later(at, backoffSeconds(backoff, ref));

/**
 * The attempts of a unit that count against its attempts: all of them but those their workers
 * handed back (handBackStep, handBackWorkItem). A hand-back ends the attempt its worker holds,
 * unfinished: the unit waits for its next attempt, claimable at once (no backoff), and the
 * released attempt is not counted, so the unit has as many attempts left as before. (A work item
 * keeps this in its own last attempt, `maxAttempt`, which a hand-back moves on by one.)
 */
export const countedAttempts = (attempt: number, handedBack: number | undefined): number => attempt - (handedBack ?? 0);

/** Whether a unit at attempt `attempt` has attempts left, of `maxAttempts`: a failure then waits for another, else it is final. */
export const hasAttemptsLeft = (attempt: number, maxAttempts: number): boolean => attempt < maxAttempts;

/**
 * Why a running attempt that ended at `ends`, the earlier of its lease's end and its time's, is
 * over: its time ran out (ATTEMPT_TIMED_OUT; a lease never outlasts the time, so when both ended
 * at once it was the time), or its holder stopped reporting (LEASE_EXPIRED). `limitSeconds` is
 * its stage's attempt timeout, for the message.
 */
export function attemptEndedError(held: HeldAttempt, ends: string, limitSeconds: number | undefined): AttemptError {
  const worker = held.worker ?? 'unknown';
  return ends === held.timesOutAt
    ? {
        code: 'ATTEMPT_TIMED_OUT',
        message: `Attempt ${held.attempt} of worker ${worker} ran out of time at ${ends}: its stage allows ${limitSeconds ?? '?'} s an attempt, whatever its reports.`,
        retryCount: held.attempt - 1,
      }
    : {
        code: 'LEASE_EXPIRED',
        message: `Worker ${worker} stopped reporting; its lease ran out at ${held.leaseExpiresAt}.`,
        retryCount: held.attempt - 1,
      };
}

/**
 * What a claim does with a RUNNING attempt at `now`:
 * - `held`: its lease and its time still run (until `ends`, when it has either): not claimable;
 * - `wait`: it ended with attempts left in a stage with a retry backoff: the next attempt waits
 *   for the backoff like one its worker failed, and the claimer holds none of it;
 * - `takeOver`: it ended with attempts left and no backoff: the claimer holds the next one at once;
 * - `fail`: it ended past its attempts: the unit fails for good.
 * `error` says why it ended (attemptEndedError).
 */
export type Takeover = { kind: 'held'; ends?: string } | { kind: 'wait' | 'takeOver' | 'fail'; error: AttemptError; ends: string };

/** The takeover rule (see Takeover), for a step's or an item's running attempt alike. */
export function takeoverOf(
  held: HeldAttempt,
  now: string,
  rules: { maxAttempts: number; backoff: boolean; timeoutSeconds: number | undefined },
): Takeover {
  const ends = attemptEndsAt(held);
  if (!ends || ends > now) return { kind: 'held', ends };
  const error = attemptEndedError(held, ends, rules.timeoutSeconds);
  if (!hasAttemptsLeft(held.attempt, rules.maxAttempts)) return { kind: 'fail', error, ends };
  return { kind: rules.backoff ? 'wait' : 'takeOver', error, ends };
}

/** Why a claim of a running attempt that is still held is refused: the statuses it would need, and when it ends. */
export function heldHint(held: HeldAttempt, ends: string | undefined): string | undefined {
  if (!ends) return undefined;
  return ends === held.timesOutAt ? `Its attempt runs until ${ends}.` : `Its lease runs until ${ends}.`;
}

/**
 * A job's progress from 0 to 1: its completed steps, plus the share `current` (0 to 1) of the
 * step it is on (a step's reported progress, or the share of a fan-out stage's items that are
 * done), over its planned steps.
 */
export function jobProgress(job: { completedSteps: number; plan: readonly unknown[] }, current = 0): number {
  return round4(Math.min(1, (job.completedSteps + current) / job.plan.length));
}
