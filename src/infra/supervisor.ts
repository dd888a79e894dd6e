import { errorMessage } from '../guards';
import { logger } from '../logger';

/**
 * The state of an embedded part, as readiness reports it: `up` while it serves, `restarting` from
 * the moment it died until a restart answers, and `down` once it was stopped or given up on.
 */
export type PartState = 'up' | 'restarting' | 'down';

/** One running copy of a supervised part. */
export interface Running {
  /** Resolves, with a few words on how, when this copy ends for any reason. */
  exited: Promise<string>;
  /** Stops this copy and resolves once it has ended. */
  stop(): Promise<void>;
}

/** What the supervisor tells its owner. */
export interface SupervisorReport {
  /** A person-readable line for each death and restart (main.ts prints them). */
  say?(message: string): void;
  /** Called once when restarts failed `maxFailures` times in a row: the part stays down. */
  giveUp?(error: Error): void;
}

export interface SupervisorOptions extends SupervisorReport {
  /** The part's name in messages, e.g. "DynamoDB Local". */
  name: string;
  /**
   * Starts a new copy (on the same data folder and port) and resolves once it answers. When
   * `signal` aborts (stop() was called meanwhile), it stops what it started and rejects soon.
   */
  restart(signal: AbortSignal): Promise<Running>;
  /** Waits before each restart attempt; the last value repeats. */
  backoffMs?: number[];
  /** Failed restarts in a row after which the part is given up. */
  maxFailures?: number;
  /** A restarted copy that runs this long has recovered: the failure count starts again. */
  stableMs?: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Keeps an embedded part running: when the running copy ends without `stop()` having been
 * called, it waits a moment and starts a new one, with growing pauses. A restart that does not
 * come up, or a restarted copy that dies again before it has run `stableMs`, counts as a failed
 * restart; after `maxFailures` of them in a row the part is given up (`giveUp`), because a
 * part that keeps dying needs a person, and a server that silently serves errors helps nobody.
 */
export class Supervisor {
  private running: Running;
  private stateNow: PartState = 'up';
  private stopping = false;
  private failures = 0;
  private restarted = false;
  private upSince = Date.now();
  private recovering?: Promise<void>;
  private readonly stopped = new AbortController();
  private readonly options: Required<Omit<SupervisorOptions, keyof SupervisorReport>> & SupervisorReport;

  constructor(first: Running, options: SupervisorOptions) {
    this.options = {
      ...options,
      backoffMs: options.backoffMs?.length ? options.backoffMs : [250, 1000, 3000],
      maxFailures: options.maxFailures ?? 3,
      stableMs: options.stableMs ?? 30_000,
    };
    this.running = first;
    this.watch(first);
  }

  get state(): PartState {
    return this.stateNow;
  }

  /** Who is told about deaths and restarts; the owner sets it once it is ready to listen. */
  report(report: SupervisorReport): void {
    Object.assign(this.options, report);
  }

  /** Stops supervising, then the running copy (and one being started). */
  async stop(): Promise<void> {
    this.stopping = true;
    this.stateNow = 'down';
    this.stopped.abort();
    await this.recovering;
    await this.running.stop();
  }

  /** A person at a terminal reads plain lines (`say`); without one, they go to the structured log. */
  private tell(level: 'warn' | 'error', message: string): void {
    if (this.options.say) this.options.say(message);
    else logger[level]({ part: this.options.name }, message);
  }

  private watch(copy: Running): void {
    void copy.exited.then((how) => {
      if (this.stopping || copy !== this.running) return;
      // A restarted copy that dies young is one more failed restart, not a fresh start.
      if (this.restarted && Date.now() - this.upSince < this.options.stableMs) this.failures++;
      else this.failures = 0;
      this.recovering = this.recover(how).finally(() => (this.recovering = undefined));
    });
  }

  private async recover(how: string): Promise<void> {
    const { name, backoffMs, maxFailures } = this.options;
    this.stateNow = 'restarting';
    this.tell('warn', `${name} stopped unexpectedly (${how}); restarting it …`);
    let last = how;
    while (!this.stopping) {
      if (this.failures >= maxFailures) {
        this.stateNow = 'down';
        const error = new Error(`${name} could not be restarted: ${maxFailures} restarts in a row failed (last: ${last}).`);
        if (this.options.giveUp) this.options.giveUp(error);
        else logger.error({ part: name }, error.message);
        return;
      }
      await sleep(backoffMs[Math.min(this.failures, backoffMs.length - 1)]);
      if (this.stopping) return;
      try {
        const copy = await this.options.restart(this.stopped.signal);
        if (this.stopping) {
          // stop() came while this copy was starting: it must not outlive the server.
          await copy.stop();
          return;
        }
        this.running = copy;
        this.restarted = true;
        this.upSince = Date.now();
        this.stateNow = 'up';
        this.tell('warn', `${name} restarted.`);
        this.watch(copy);
        return;
      } catch (error) {
        if (this.stopping) return;
        this.failures++;
        last = errorMessage(error).split('\n')[0];
        this.tell('warn', `${name} did not come back (attempt ${this.failures} of ${maxFailures}): ${last}`);
      }
    }
  }
}
