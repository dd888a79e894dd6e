import { classify } from './dependency';
import type { CallOutcome } from './metrics';

/** Failures that say a dependency does not answer yet (rather than that it answered no). */
const NOT_ANSWERING: ReadonlySet<CallOutcome> = new Set(['unreachable', 'timeout', 'server_error', 'throttled']);

/** A dependency did not answer before the start-up deadline; the message says which, for how long and why. */
export class StartupDeadlineError extends Error {}

/** The start-up was called off (a signal arrived while a dependency was being waited for). */
export class StartupCancelled extends Error {}

export interface WaitOptions {
  /** What is waited for, for the messages: "DynamoDB at http://…". */
  what: string;
  /** How long after the first attempt the last one may start. */
  deadlineMs: number;
  /** Told before each wait between attempts: the failure's kind, the wait and the time left. */
  onRetry?: (retry: { attempt: number; kind: CallOutcome; delayMs: number; leftMs: number }) => void;
  /** Ends the waiting at once with StartupCancelled. */
  signal?: AbortSignal;
  /** The first wait; each further one doubles, up to maxDelayMs. */
  firstDelayMs?: number;
  maxDelayMs?: number;
}

/**
 * Runs `attempt` until it succeeds, while its failures say the dependency does not answer yet
 * (unreachable, timing out, 5xx, throttled), waiting 0.25 s, 0.5 s, 1 s … (at most 5 s) between
 * attempts. A dependency that is briefly unavailable when an instance starts (its network still
 * coming up, a DynamoDB endpoint restarting) is then waited for instead of ending the start-up.
 * Any other failure (a missing table, denied access) is thrown at once, as it came; past
 * `deadlineMs` the last failure becomes a StartupDeadlineError naming the dependency.
 */
export async function untilAnswering<T>(attempt: () => Promise<T>, options: WaitOptions): Promise<T> {
  const started = Date.now();
  let delayMs = options.firstDelayMs ?? 250;
  const maxDelayMs = options.maxDelayMs ?? 5000;
  for (let n = 1; ; n++) {
    if (options.signal?.aborted) throw new StartupCancelled('The start-up was stopped.');
    try {
      return await attempt();
    } catch (error) {
      const kind = classify(error);
      if (!NOT_ANSWERING.has(kind)) throw error;
      const leftMs = options.deadlineMs - (Date.now() - started);
      if (leftMs <= 0) {
        throw new StartupDeadlineError(
          `${options.what} did not answer within ${Math.round(options.deadlineMs / 100) / 10} s of start-up ` +
            `(${n} attempts, last failure: ${kind}). Check that it runs and is reachable from here, or raise STARTUP_DEADLINE_MS.`,
        );
      }
      const wait = Math.min(delayMs, leftMs);
      options.onRetry?.({ attempt: n, kind, delayMs: wait, leftMs });
      await sleep(wait, options.signal);
      delayMs = Math.min(delayMs * 2, maxDelayMs);
    }
  }
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}
