/*
 * Artissist worker SDK for TypeScript: serve pipeline stages with async handlers. The same model as
 * the Python SDK (sdk/python): claim the steps and work items of the registered stages, run a
 * handler on each, renew the lease from a thread of its own (renewals.ts), report the outcome, and
 * stop gracefully. Dependency-free: Node's fetch, timers and worker_threads (see docs/workers.md).
 */

import { randomUUID } from 'node:crypto';
import { LOST, post, renewals } from './renewals';
import { JOB_KINDS_QUERY } from './typegen';

export { type DeclaredKind, typedModule, typeName } from './typegen';

/** The server's codes a worker can wait out: a dependency or a rate budget of the moment, a write that lost its race. */
const RETRYABLE = new Set(['SERVICE_UNAVAILABLE', 'RATE_LIMITED', 'CONTENDED', 'CONFLICT', 'NETWORK']);
/** The lease a claim is assumed to hold when its answer does not say (the server's default). */
const DEFAULT_LEASE_SECONDS = 60;
/**
 * How long a pushed worker's first claim waits for its subscription's acknowledgement (so that the
 * claim is bound to it) before it is sent unbound: a subscription is acknowledged within
 * milliseconds unless something between holds its answer back.
 */
const FIRST_CLAIM_WAIT_MS = 5000;

/** A request that failed: the server's `extensions.code` (NETWORK when nothing answered) and message. */
export class ServerError extends Error {
  constructor(
    readonly code: string,
    /** The server's message as it gave it; `message` is it after the code. */
    readonly detail: string,
    readonly retryAfterSeconds?: number,
  ) {
    super(`${code}: ${detail}`);
  }
  /** True when the same request may succeed later. */
  get retryable(): boolean {
    return RETRYABLE.has(this.code);
  }
  /** True when the answer says the attempt held is over (cancelled, timed out, taken over, gone). */
  get lost(): boolean {
    return LOST.has(this.code);
  }
}

/** Thrown by a handler to fail its attempt with a stable code of its own (retried while attempts remain). */
export class WorkFailed extends Error {
  constructor(
    readonly code: string,
    message = code,
  ) {
    super(message);
  }
}

/** One claimed step or work item, as a handler sees it: `I` is its stage's inputs (Kinds' `inputs`, see Worker). */
export interface Work<I extends Record<string, unknown> = Record<string, unknown>> {
  kind: string;
  stage: string;
  jobId: string;
  tenantId: string;
  /** The attempt the claim handed out; every report names it. */
  attempt: number;
  inputs: I;
  /** The item's sequence in its stage; undefined for a single step. */
  sequence?: number;
  /** A pool worker's lease (passed with every report); undefined for a tenant-bound worker. */
  lease?: string;
  leaseSeconds: number;
  /** Aborted when the job is cancelled or the attempt is otherwise over for this worker: stop; nothing returned is reported. */
  signal: AbortSignal;
  /** Aborted when the worker was asked to stop: finish within the grace period, or stop early. */
  stopping: AbortSignal;
  /** Records progress (0 to 1); the renewal thread sends it, at most once per minReportMs. */
  progress(value: number): void;
}

/** What a handler returns: the outputs, or nothing for none (an async handler without a return resolves to void). */
// biome-ignore lint/suspicious/noConfusingVoidType: a handler that returns nothing is typed void, which the union must take.
export type Outputs = Record<string, unknown> | undefined | void;

/** A stage's inputs and outputs, as an entry of a KindMap. */
export interface StageTypes {
  inputs: Record<string, unknown>;
  outputs: Record<string, unknown>;
}

/**
 * Each kind's stages with their inputs and outputs: the `Kinds` that `artissist-worker types`
 * writes from the server's declarations (typegen.ts), given to a Worker as `new Worker<Kinds>(…)`.
 */
export type KindMap = { [kind: string]: { [stage: string]: StageTypes } };

/** No declared types: any kind and stage, inputs and outputs plain records (a Worker without a type argument). */
export type Untyped = { [kind: string]: { [stage: string]: { inputs: Record<string, unknown>; outputs: Record<string, unknown> } } };

/** What a handler of a stage with outputs `O` returns: the outputs, or nothing when none of them is required. */
// biome-ignore lint/suspicious/noConfusingVoidType: a handler that returns nothing is typed void, which the union must take.
export type Returned<O> = Record<never, never> extends O ? O | undefined | void : O;

/** A handler of a stage typed `T`: its work's inputs are T's, and it returns T's outputs (or throws WorkFailed). */
export type Handler<T extends StageTypes = StageTypes> = (
  work: Work<T['inputs']>,
) => Promise<Returned<T['outputs']>> | Returned<T['outputs']>;

/**
 * `R`, a handler's outputs, with each field the stage does not declare (in `O`) typed never: tsc
 * then names the extra field ("Type 'number' is not assignable to type 'never'") even where
 * TypeScript's excess-property check does not reach (an object returned by an arrow function, not
 * a literal assigned to a declared type). The server refuses undeclared outputs too; this says so
 * at compile time.
 */
export type Exact<R, O> = R & (R extends object ? { [P in Exclude<keyof R, keyof O>]: never } : unknown);

export interface WorkerOptions {
  /** The server's GraphQL URL. */
  url: string;
  /** A worker token (role worker) or a pool worker's token (role pool). */
  token: string;
  /** Units run at once (default 1). */
  slots?: number;
  /** How long running handlers may finish after stop() before their work is given up (default 30 s). */
  graceMs?: number;
  /** The share of the lease after which it is renewed (default 1/3). */
  heartbeatFraction?: number;
  /** The least time between two progress reports of one unit (default 1 s). */
  minReportMs?: number;
  /** When to claim again: the server's pushed signals by default (PushSignal), or a poll (PollingSignal). */
  workSignal?: WorkSignal;
  /**
   * This worker's own id, sent with its subscription and, while the server has acknowledged that,
   * with each claim and the claim's reports (a random one by default; one a process, since several
   * may share a token): what it claims is bound to its subscription, and the server hands it back
   * when that connection is lost and not made again within its grace (WORKER_GRACE_SECONDS).
   */
  workerId?: string;
  /** Stop on SIGTERM and SIGINT (a second one gives up at once); default true. */
  handleSignals?: boolean;
  /**
   * Told what the worker reached, as it reaches it: `subscribed` once the server acknowledged the
   * subscription (again after each reconnection); `idle` when every slot waits for a signal, its
   * last claims having found nothing, and (pushed) the subscription is acknowledged: the worker
   * sends nothing more until a signal or its fallback; `claimed` with each Work claimed, before its
   * handler runs. It should return quickly; what it throws is logged.
   */
  onState?: (state: WorkerState, work?: Work) => void;
  log?: (level: 'info' | 'warn' | 'error', message: string) => void;
}

/** What a worker tells WorkerOptions.onState it reached. */
export type WorkerState = 'subscribed' | 'idle' | 'claimed';

/**
 * When to claim again: the server's pushed signals (PushSignal, the default) or a poll
 * (PollingSignal). A source with `start` and `close` is started by run() and closed at stop().
 */
export interface WorkSignal {
  /** A claim found work: claim again at once. */
  found(): void;
  /** A claim found nothing: resolves when it is worth claiming again, or when `stop` aborts. */
  wait(stop: AbortSignal): Promise<void>;
  /** Starts the source for `target` (a push connection). */
  start?(target: PushTarget): void;
  /** Ends it: a stopping worker is dealt no more work. */
  close?(): void;
}

/** What a PushSignal needs of its worker: where to connect, what it serves, and whom to tell of an attempt that is over. */
export interface PushTarget {
  url: string;
  token: string;
  kinds: string[];
  stages: string[];
  /** The worker's own id, sent with the subscription as with each claim (WorkerOptions.workerId). */
  workerId: string;
  /**
   * The subscription was acknowledged (true: the server binds the worker's claims to it now), ended
   * (false: it is made again), or refused (null: the worker polls instead).
   */
  subscribed(live: boolean | null): void;
  /** Work of `kind` and `stage` may be claimable (null: any the worker serves). */
  hint(kind: string | null, stage: string | null): void;
  leaseEnded(signal: WorkSignalMessage): void;
  log(level: 'info' | 'warn' | 'error', message: string): void;
}

/** A workSignals message (see the server's WorkSignal type). */
export interface WorkSignalMessage {
  type: 'SUBSCRIBED' | 'WORK_AVAILABLE' | 'LEASE_ENDED';
  tenantId?: string | null;
  kind?: string | null;
  stage?: string | null;
  count?: number | null;
  availableAt?: string | null;
  available?: boolean | null;
  jobId?: string | null;
  sequence?: number | null;
  attempt?: number | null;
  reason?: string | null;
}

const SIGNALS = `subscription WorkerSignals($kinds: [String!], $stages: [String!], $workerId: String) {
  workSignals(kinds: $kinds, stages: $stages, workerId: $workerId) {
  type tenantId kind stage count availableAt available jobId sequence attempt reason } }`;
/** The codes after which a new subscription cannot succeed: the worker falls back to polling. */
const REFUSED = new Set(['UNAUTHENTICATED', 'FORBIDDEN', 'BAD_USER_INPUT', 'GRAPHQL_VALIDATION_FAILED', 'BAD_REQUEST']);

/** The `data` of each `next` event of an SSE stream, parsed, until the stream ends or sends `complete`. */
export async function* sseMessages(body: ReadableStream<Uint8Array>): AsyncGenerator<unknown> {
  const decoder = new TextDecoder();
  let pending = '';
  let event = '';
  let data: string[] = [];
  for await (const chunk of body) {
    pending += decoder.decode(chunk, { stream: true });
    let end = pending.indexOf('\n');
    while (end >= 0) {
      const line = pending.slice(0, end).replace(/\r$/, '');
      pending = pending.slice(end + 1);
      end = pending.indexOf('\n');
      if (line === '') {
        if (event === 'complete') return;
        if ((event === '' || event === 'next') && data.length) yield JSON.parse(data.join('\n'));
        event = '';
        data = [];
      } else if (!line.startsWith(':')) {
        const colon = line.indexOf(':');
        const name = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? '' : line.slice(colon + (line[colon + 1] === ' ' ? 2 : 1));
        if (name === 'event') event = value;
        else if (name === 'data') data.push(value);
      }
    }
  }
}

/** True when a LEASE_ENDED `signal` names the attempt `work` holds (a job's cancellation names only the job). */
export function endsAttempt(signal: WorkSignalMessage, work: Pick<Work, 'jobId' | 'tenantId' | 'stage' | 'sequence' | 'attempt'>): boolean {
  if (signal.jobId !== work.jobId || (signal.tenantId != null && signal.tenantId !== work.tenantId)) return false;
  if (signal.stage == null) return true;
  return (
    signal.stage === work.stage &&
    (signal.sequence ?? undefined) === work.sequence &&
    (signal.attempt == null || signal.attempt === work.attempt)
  );
}

/**
 * A WorkSignal fed by the server's workSignals subscription (GraphQL over SSE, one connection a
 * worker): a wait ends when work of the worker's stages appears (now, or at its availableAt), and
 * at the latest after `fallbackMs` (a slow poll, for what no signal says: a crashed worker's lease
 * running out). LEASE_ENDED signals go to the worker, which aborts the handlers they concern. A
 * dropped connection is made again after a growing pause; a server that refuses the subscription
 * leaves the worker polling every `pollMs`.
 */
export class PushSignal implements WorkSignal {
  /** Subscriptions made (a test counts an idle worker's requests). */
  connections = 0;
  /** Each signal moves the generation on; a wait ends once it passed the one the worker's slots last saw. */
  private generation = 0;
  private seen = 0;
  private readonly waiters = new Set<() => void>();
  private readonly closed = new AbortController();
  private refused = false;
  private readonly timers = new Set<NodeJS.Timeout>();
  private target?: PushTarget;

  /** `observe` sees every signal as it arrives (for logs and measurements). */
  constructor(
    readonly fallbackMs = 30_000,
    readonly pollMs = 1000,
    private readonly observe?: (signal: WorkSignalMessage) => void,
  ) {}

  found(): void {}

  /**
   * Resolves once a signal came since the slots' last wait (one that came while they were busy ends
   * the next wait at once; one wakes every waiting slot), after the fallback, or at `stop`.
   */
  wait(stop: AbortSignal): Promise<void> {
    if (this.generation > this.seen) {
      this.seen = this.generation;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(done);
        stop.removeEventListener('abort', done);
        this.seen = this.generation;
        resolve();
      };
      // The fallback (or a poll, when refused) knows of no stage in particular: every stage is looked at.
      const timer = setTimeout(
        () => {
          this.target?.hint(null, null);
          done();
        },
        this.refused ? this.pollMs : this.fallbackMs,
      );
      this.waiters.add(done);
      if (stop.aborted) return done();
      stop.addEventListener('abort', done);
    });
  }

  /** Ends every wait now, for work of `kind` and `stage` (null: any the worker serves). */
  wake(kind: string | null = null, stage: string | null = null): void {
    this.target?.hint(kind, stage);
    this.generation++;
    for (const done of [...this.waiters]) done();
  }

  start(target: PushTarget): void {
    this.target = target;
    void this.follow(target);
  }

  close(): void {
    this.closed.abort();
    this.target?.subscribed(false);
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }

  private async follow(target: PushTarget): Promise<void> {
    let pause = 250;
    while (!this.closed.signal.aborted) {
      try {
        await this.subscribe(target);
        pause = 250;
      } catch (error) {
        if (this.closed.signal.aborted) return;
        if (error instanceof ServerError && REFUSED.has(error.code)) {
          target.log('warn', `workSignals refused (${error.message}); polling every ${this.pollMs} ms instead`);
          this.refused = true;
          target.subscribed(null);
          this.wake();
          return;
        }
        target.log('info', `the work signals' connection dropped (${(error as Error).message}); connecting again in ${pause} ms`);
      }
      target.subscribed(false);
      // Work may have appeared while it was down: one look, then the new subscription says more.
      this.wake();
      await new Promise((resolve) => {
        const timer = setTimeout(resolve, pause);
        this.closed.signal.addEventListener('abort', () => resolve(undefined), { once: true });
        timer.unref();
      });
      pause = Math.min(5000, pause * 2);
    }
  }

  private async subscribe(target: PushTarget): Promise<void> {
    this.connections++;
    const res = await fetch(target.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', authorization: `Bearer ${target.token}` },
      body: JSON.stringify({ query: SIGNALS, variables: { kinds: target.kinds, stages: target.stages, workerId: target.workerId } }),
      signal: this.closed.signal,
    });
    if (res.status !== 200 || !res.body) {
      const body = (await res.json().catch(() => undefined)) as
        | { errors?: { message: string; extensions?: { code?: string } }[] }
        | undefined;
      const first = body?.errors?.[0];
      const code = first?.extensions?.code ?? (res.status >= 500 ? 'SERVICE_UNAVAILABLE' : 'BAD_REQUEST');
      throw new ServerError(code, first?.message ?? `HTTP ${res.status}`);
    }
    for await (const message of sseMessages(res.body)) {
      const { data, errors } = message as {
        data?: { workSignals?: WorkSignalMessage };
        errors?: { message: string; extensions?: { code?: string } }[];
      };
      if (errors?.length) throw new ServerError(errors[0].extensions?.code ?? 'BAD_REQUEST', errors[0].message);
      const signal = data?.workSignals;
      if (signal) this.onSignal(target, signal);
    }
    throw new ServerError('NETWORK', 'the stream ended');
  }

  private onSignal(target: PushTarget, signal: WorkSignalMessage): void {
    this.observe?.(signal);
    if (signal.type === 'SUBSCRIBED') {
      // The work it says is waiting is marked first, so the worker is not told idle while that work waits for a claim.
      if (signal.available) this.wake();
      target.subscribed(true);
    } else if (signal.type === 'WORK_AVAILABLE') {
      const wake = () => this.wake(signal.kind ?? null, signal.kind ? (signal.stage ?? null) : null);
      const delay = signal.availableAt ? Date.parse(signal.availableAt) - Date.now() : 0;
      if (!(delay > 10)) {
        wake();
        return;
      }
      // After a retry backoff: the waits end then.
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        wake();
      }, delay);
      timer.unref();
      this.timers.add(timer);
    } else if (signal.type === 'LEASE_ENDED') {
      target.leaseEnded(signal);
    }
  }
}

/** Claims again after a wait that grows from minMs by `factor` up to maxMs while claims find nothing. */
export class PollingSignal implements WorkSignal {
  private next: number;
  constructor(
    readonly minMs = 250,
    readonly maxMs = 5000,
    readonly factor = 2,
  ) {
    this.next = minMs;
  }
  found(): void {
    this.next = this.minMs;
  }
  wait(stop: AbortSignal): Promise<void> {
    const delay = this.next;
    this.next = Math.min(this.maxMs, this.next * this.factor);
    return new Promise((resolve) => {
      if (stop.aborted) return resolve();
      const done = () => {
        clearTimeout(timer);
        stop.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, delay);
      stop.addEventListener('abort', done);
    });
  }
}

/** A held attempt as a claim describes it: a step's or an item's. */
interface ClaimedUnit {
  attempt: number;
  startedAt?: string | null;
  leaseExpiresAt?: string | null;
}

/** What claimWork answers (CLAIM's selection). */
interface Claim {
  tenantId: string;
  lease?: string | null;
  job: { jobId: string; kind: string; inputs?: Record<string, unknown> | null };
  step: ClaimedUnit & { name: string };
  item?: (ClaimedUnit & { sequence: number; inputs: Record<string, unknown> }) | null;
}

/** An answer's data, as the caller's selection shapes it. */
// biome-ignore lint/suspicious/noExplicitAny: the shape is the caller's query's, which this client does not parse.
type Data = Record<string, any>;

/** The declared outputs of each (kind, stage), from the jobKinds query: which are required. */
type Declared = Map<string, { name: string; required: boolean }[]>;

const CLAIM = `mutation WorkerClaim($kind: String, $stage: String, $workerId: String) {
  claimWork(kind: $kind, stage: $stage, workerId: $workerId) {
  tenantId lease job { jobId kind inputs } step { name attempt startedAt leaseExpiresAt }
  item { sequence attempt inputs startedAt leaseExpiresAt } } }`;
const ITEM_ARGS = '$jobId: ID!, $stage: String!, $sequence: Int!, $attempt: Int!, $lease: String, $workerId: String';
const ITEM_REF = 'jobId: $jobId, stage: $stage, sequence: $sequence, attempt: $attempt, lease: $lease, workerId: $workerId';
const STEP_ARGS = '$jobId: ID!, $stage: String!, $attempt: Int, $lease: String, $workerId: String';
const STEP_REF = 'jobId: $jobId, stepName: $stage, attempt: $attempt, lease: $lease, workerId: $workerId';
const MUTATIONS = {
  item: {
    progress: `mutation(${ITEM_ARGS}, $progress: Float!) { reportWorkItemProgress(${ITEM_REF}, progress: $progress) { leaseExpiresAt } }`,
    complete: `mutation(${ITEM_ARGS}, $outputs: JSONObject!) { completeWorkItem(${ITEM_REF}, outputs: $outputs) { status } }`,
    fail: `mutation(${ITEM_ARGS}, $code: String!, $message: String!) { failWorkItem(${ITEM_REF}, code: $code, message: $message) { status } }`,
    handBack: `mutation(${ITEM_ARGS}) { handBackWorkItem(${ITEM_REF}) { status } }`,
  },
  step: {
    progress: `mutation(${STEP_ARGS}, $progress: Float!) { reportStepProgress(${STEP_REF}, progress: $progress) { jobId } }`,
    complete: `mutation(${STEP_ARGS}, $outputs: JSONObject) { completeStep(${STEP_REF}, outputs: $outputs) { jobId } }`,
    fail: `mutation(${STEP_ARGS}, $code: String!, $message: String!) { failStep(${STEP_REF}, code: $code, message: $message) { jobId } }`,
    handBack: `mutation(${STEP_ARGS}) { handBackStep(${STEP_REF}) { jobId } }`,
  },
};

/** The lease's length, from the attempt's start to its lease's end (both the server's clock); the default without them. */
export function leaseSeconds(startedAt?: string | null, leaseExpiresAt?: string | null): number {
  const length = (Date.parse(leaseExpiresAt ?? '') - Date.parse(startedAt ?? '')) / 1000;
  return Number.isFinite(length) && length > 0 ? length : DEFAULT_LEASE_SECONDS;
}

/** The required outputs of a declared stage that `outputs` leaves out or sets to null, in declaration order. */
export function missingOutputs(declared: { name: string; required: boolean }[] | undefined, outputs: Record<string, unknown>): string[] {
  return (declared ?? []).filter((f) => f.required && (outputs[f.name] === undefined || outputs[f.name] === null)).map((f) => f.name);
}

/** A unit as the worker's log lines name it. */
const unitName = (work: Work) => `${work.jobId}/${work.stage} #${work.sequence} attempt ${work.attempt}`;

/** A unit being served: its Work, and what the worker keeps about it. */
interface Held {
  work: Work;
  cancel: AbortController;
  stop: AbortController;
  lostCode?: string;
  /** The unit's id in the renewal thread. */
  renewal: number;
  /** Set once the handler returned: a stop does not hand it back. */
  finished?: boolean;
}

/**
 * Serves the registered (kind, stage) handlers: claim, run, renew, report, until stopped. Typed by
 * `K`, the generated Kinds (`new Worker<Kinds>(…)`), stage() takes only the declared kinds and
 * stages and holds each handler to its stage's inputs and outputs; without it, any kind and stage.
 */
export class Worker<K extends KindMap = Untyped> {
  private readonly handlers = new Map<string, { kind: string; stage: string; handler: Handler }>();
  private readonly running = new Set<Held>();
  private readonly stopping = new AbortController();
  private readonly gaveUp = new AbortController();
  private declared?: Declared;
  /** A claim refused for a reason waiting cannot mend (a token expired or without the role): run() rejects with it. */
  private fatal?: ServerError;
  private turn = 0;
  /** The hand-backs a give-up sent: run() resolves once they are answered. */
  private readonly handingBack: Promise<void>[] = [];
  /** Slots waiting for work now. */
  private waiting = 0;
  /** Whether `idle` was told since a slot last stopped waiting. */
  private idleSaid = false;
  /**
   * The pushed signals' subscription: true while the server has acknowledged it, false while it is
   * not (yet) open, null for a source that does not push (or whose subscription was refused).
   * Claims name workerId only while it is true: the server binds them to that subscription, and a
   * polling worker's id would be forwarded over the bus to a topic no one hears.
   */
  private push: boolean | null = null;
  /** The workerId each unit's claim named (absent: claimed unsubscribed): its reports name the same, or none. */
  private readonly boundAs = new WeakMap<Work, string>();
  /** Resolves once the subscription was acknowledged, dropped or refused: a pushed worker's first claim waits for it. */
  private pushTold!: () => void;
  private readonly pushSettled = new Promise<void>((resolve) => (this.pushTold = resolve));
  /**
   * The registered stages that may have claimable work, each with the number of the last hint that
   * marked it: a claim that finds none takes its stage out, unless a signal marked it again while
   * the claim was on its way (that signal's work may have come after the claim was decided, and
   * would otherwise wait for the fallback).
   */
  private readonly maybe = new Map<string, number>();
  private hints = 0;
  /** Units this worker completed. */
  completed = 0;

  /** True while the worker is idle, from the moment it told onState `idle` until a slot stops waiting. */
  get idle(): boolean {
    return this.idleSaid;
  }

  /** Sent with the subscription and, while the server has acknowledged it, with each claim and its reports (WorkerOptions.workerId). */
  readonly workerId: string;

  constructor(private readonly options: WorkerOptions) {
    this.workerId = options.workerId ?? randomUUID();
  }

  /** Registers `handler` for `stage` of job kind `kind`: it returns the outputs, or throws WorkFailed(code, message). */
  stage<N extends keyof K & string, S extends keyof K[N] & string, R extends Returned<K[N][S]['outputs']>>(
    kind: N,
    stage: S,
    handler: (work: Work<K[N][S]['inputs']>) => Promise<Exact<R, K[N][S]['outputs']>> | Exact<R, K[N][S]['outputs']>,
  ): this {
    // Kept untyped: the claim that reaches it holds that stage's inputs (the types say so, the server checks them).
    this.handlers.set(`${kind}\u0000${stage}`, { kind, stage, handler: handler as unknown as Handler });
    return this;
  }

  /**
   * Claims and runs work until stop() (or SIGTERM / SIGINT) and resolves once every slot finished
   * or its work was given up. Rejects without handlers, when the declared kinds cannot be read, or
   * with the ServerError of a claim refused for good (UNAUTHENTICATED, FORBIDDEN, BAD_USER_INPUT).
   */
  async run(): Promise<void> {
    if (this.handlers.size === 0) throw new Error('No handler: register one with worker.stage(kind, stage, handler).');
    const onSignal = () => (this.stopping.signal.aborted ? this.giveUp() : this.stop());
    if (this.options.handleSignals !== false) {
      process.on('SIGTERM', onSignal);
      process.on('SIGINT', onSignal);
    }
    const source = (this.options.workSignal ??= new PushSignal());
    renewals.open();
    try {
      this.declared = await this.readKinds();
      if (source.start) this.push = false;
      source.start?.({
        url: this.options.url,
        token: this.options.token,
        kinds: [...new Set([...this.handlers.values()].map((h) => h.kind))],
        stages: [...new Set([...this.handlers.values()].map((h) => h.stage))],
        workerId: this.workerId,
        subscribed: (live) => this.subscribed(live),
        hint: (kind, stage) => this.hint(kind, stage),
        leaseEnded: (signal) => this.leaseEnded(signal),
        log: (level, message) => this.log(level, message),
      });
      const slots = Array.from({ length: this.options.slots ?? 1 }, () => this.slot());
      // Handlers that ignore their signal after a give-up are abandoned: run() resolves without
      // them a second later (the timer goes with run(), so it never holds the process open).
      let abandonTimer: NodeJS.Timeout | undefined;
      const abandoned = new Promise<void>((resolve) =>
        this.gaveUp.signal.addEventListener('abort', () => (abandonTimer = setTimeout(resolve, 1000)), { once: true }),
      );
      try {
        await Promise.race([Promise.all(slots), abandoned]);
      } finally {
        clearTimeout(abandonTimer);
      }
      await Promise.all(this.handingBack);
    } finally {
      source.close?.();
      await renewals.close();
      process.off('SIGTERM', onSignal);
      process.off('SIGINT', onSignal);
    }
    this.log('info', `worker stopped after ${this.completed} units`);
    if (this.fatal) throw this.fatal;
  }

  /** Stops claiming; running handlers see `work.stopping` and have graceMs to finish before their work is given up. */
  stop(): void {
    if (this.stopping.signal.aborted) return;
    this.log('info', `stopping: no more claims; ${this.running.size} running unit(s) get ${this.options.graceMs ?? 30_000} ms to finish`);
    this.stopping.abort();
    // A stopping worker takes nothing more: it leaves the signals, so new work is dealt to the others.
    // Not while it holds work: the server would take that for a lost connection and hand the work
    // back after its grace (WORKER_GRACE_SECONDS), before this one's; run() leaves them at its end.
    if (this.running.size === 0) this.options.workSignal?.close?.();
    for (const held of this.running) held.stop.abort();
    setTimeout(() => this.giveUp(), this.options.graceMs ?? 30_000).unref();
  }

  /**
   * Gives up every running unit now (see handBack): handlers are aborted and nothing they return is
   * reported. A unit whose handler returned already is left to its report.
   */
  giveUp(): void {
    for (const held of this.running) {
      if (held.finished || held.cancel.signal.aborted) continue;
      this.lose(held, 'WORKER_STOPPED');
      this.handingBack.push(this.handBack(held.work));
    }
    this.gaveUp.abort();
  }

  /**
   * Hands `work` back (handBackWorkItem, handBackStep): another worker may claim it at once, as its
   * next attempt, with no backoff and no attempt counted. An attempt that was over already has
   * nothing to hand back; a hand-back that fails otherwise leaves the unit to its lease, taken over
   * when it runs out. Never rejects.
   */
  async handBack(work: Work): Promise<void> {
    const what = unitName(work);
    try {
      await this.send(work, 'handBack', {}, 2);
      this.log('info', `handed back ${what}`);
    } catch (error) {
      this.log(error instanceof ServerError && error.lost ? 'info' : 'warn', `could not hand back ${what}: ${(error as Error).message}`);
    }
  }

  /** The subscription was acknowledged (true), ended (false) or refused (null: polling); see `push`. */
  private subscribed(live: boolean | null): void {
    this.push = live;
    this.pushTold();
    if (live) this.state('subscribed');
    this.sayIfIdle();
  }

  /** Tells onState that the worker reached `state`; a hook that throws is logged, and the worker goes on. */
  private state(state: WorkerState, work?: Work): void {
    try {
      this.options.onState?.(state, work);
    } catch (error) {
      this.log('error', `the onState hook failed on ${state}: ${(error as Error).message}`);
    }
  }

  /**
   * Tells `idle` once the worker reached it: every slot waits, no stage is marked worth a claim, and
   * a pushed worker's subscription is acknowledged. Told once until a slot stops waiting.
   */
  private sayIfIdle(): void {
    if (this.idleSaid || this.waiting < (this.options.slots ?? 1) || this.maybe.size > 0 || this.push === false) return;
    if (this.stopping.signal.aborted) return;
    this.idleSaid = true;
    this.state('idle');
  }

  /** Marks the registered stages of `kind` and `stage` (null: every one) as worth a claim. */
  private hint(kind: string | null, stage: string | null): void {
    this.hints++;
    for (const [key, h] of this.handlers)
      if ((kind === null || h.kind === kind) && (stage === null || h.stage === stage)) this.maybe.set(key, this.hints);
  }

  /** The next registered stage in turn that may have work; undefined when none may. */
  private nextStage(keys: string[]): string | undefined {
    for (let i = 0; i < keys.length; i++) {
      const key = keys[this.turn++ % keys.length];
      if (this.maybe.has(key)) return key;
    }
    return undefined;
  }

  /** Aborts the running handlers whose attempt a LEASE_ENDED signal names (the job cancelled, or the unit taken over). */
  private leaseEnded(signal: WorkSignalMessage): void {
    for (const held of this.running) if (endsAttempt(signal, held.work)) this.lose(held, signal.reason ?? 'LEASE_ENDED');
  }

  private log(level: 'info' | 'warn' | 'error', message: string): void {
    if (this.options.log) this.options.log(level, message);
    else if (level !== 'info') console.error(`${level}: ${message}`);
  }

  /** The data of one GraphQL request; throws ServerError with the first error's code (NETWORK when nothing answered). */
  async request(query: string, variables: Record<string, unknown> = {}): Promise<Data> {
    const answer = await post(this.options.url, this.options.token, query, variables);
    if ('code' in answer) throw new ServerError(answer.code, answer.message, answer.retryAfterSeconds);
    return answer.data;
  }

  /** request(), sent again after a retryable failure, at most `attempts` times in all, with jittered backoff. */
  private async call(query: string, variables: Record<string, unknown>, attempts = 5): Promise<Data> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.request(query, variables);
      } catch (error) {
        if (!(error instanceof ServerError) || !error.retryable || attempt >= attempts) throw error;
        const wait = error.retryAfterSeconds !== undefined ? error.retryAfterSeconds * 1000 : Math.min(5000, 200 * 2 ** (attempt - 1));
        await new Promise((resolve) => setTimeout(resolve, wait * (0.5 + Math.random() / 2)));
      }
    }
  }

  private async readKinds(): Promise<Declared | undefined> {
    try {
      const { jobKinds } = await this.call(JOB_KINDS_QUERY, {});
      const declared: Declared = new Map();
      for (const kind of jobKinds)
        for (const s of kind.stages) declared.set(`${kind.name}\u0000${s.name}`, s.fanOut?.itemOutputs ?? s.outputs);
      return declared;
    } catch (error) {
      // A pool worker reads nothing but its claims: its outputs are checked by the server alone.
      if (error instanceof ServerError && error.code === 'FORBIDDEN') return undefined;
      throw error;
    }
  }

  private async slot(): Promise<void> {
    const signal = (this.options.workSignal ??= new PushSignal());
    const keys = [...this.handlers.keys()];
    if (this.push === false) {
      // The first claim waits for the subscription, so that what it takes is bound to it; at most a
      // few seconds, then it goes unbound (work taken late costs more than a unit left to its lease
      // if the process dies).
      let timer: NodeJS.Timeout | undefined;
      let onStop: (() => void) | undefined;
      const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, FIRST_CLAIM_WAIT_MS)));
      const stopped = new Promise<void>((resolve) => {
        onStop = resolve;
        this.stopping.signal.addEventListener('abort', onStop, { once: true });
      });
      // Whichever ends the wait, its timer and its stop listener go with it.
      await Promise.race([this.pushSettled, late, stopped]).finally(() => {
        clearTimeout(timer);
        if (onStop) this.stopping.signal.removeEventListener('abort', onStop);
      });
    }
    this.hint(null, null);
    while (!this.stopping.signal.aborted) {
      const key = this.nextStage(keys);
      if (key === undefined) {
        // No stage may have work: wait for a signal (a poll knows of no stage: every one is looked at after it).
        this.waiting++;
        this.sayIfIdle();
        await signal.wait(this.stopping.signal).finally(() => {
          this.waiting--;
          this.idleSaid = false;
        });
        if (!signal.start) this.hint(null, null);
        continue;
      }
      const { kind, stage } = this.handlers.get(key)!;
      const hinted = this.maybe.get(key);
      const workerId = this.push ? this.workerId : null;
      let claim: Claim | null = null;
      try {
        claim = (await this.call(CLAIM, { kind, stage, workerId })).claimWork;
      } catch (error) {
        this.log('error', `claimWork(${kind}, ${stage}) failed: ${(error as Error).message}`);
        if (!(error instanceof ServerError) || !error.retryable) {
          // Waiting cannot mend it: the worker stops (running units finish) and run() rejects with it.
          this.fatal ??= error instanceof ServerError ? error : new ServerError('INTERNAL', String(error));
          this.stop();
          return;
        }
      }
      if (!claim) {
        // Nothing there now (or a passing fault, retried within call()'s bound): until a signal says otherwise.
        if (this.maybe.get(key) === hinted) this.maybe.delete(key);
        continue;
      }
      signal.found();
      await this.serve(claim, workerId);
    }
  }

  /** Runs the handler on what `claim` holds (claimed naming `workerId`, or null) and reports the outcome. */
  private async serve(claim: Claim, workerId: string | null): Promise<void> {
    const { job, step, item } = claim;
    const unit = item ?? step;
    const cancel = new AbortController();
    const stop = new AbortController();
    if (this.stopping.signal.aborted) stop.abort();
    const held: Held = { cancel, stop, renewal: 0, work: undefined as unknown as Work };
    held.work = {
      kind: job.kind,
      stage: step.name,
      jobId: job.jobId,
      tenantId: claim.tenantId,
      attempt: unit.attempt,
      inputs: (item ? item.inputs : job.inputs) ?? {},
      sequence: item?.sequence,
      lease: claim.lease ?? undefined,
      leaseSeconds: leaseSeconds(unit.startedAt, unit.leaseExpiresAt),
      signal: cancel.signal,
      stopping: stop.signal,
      progress: (value) => renewals.progress(held.renewal, Math.min(1, Math.max(0, value))),
    };
    if (workerId !== null) this.boundAs.set(held.work, workerId);
    this.running.add(held);
    this.state('claimed', held.work);
    held.renewal = renewals.hold(
      {
        url: this.options.url,
        token: this.options.token,
        ...this.mutation(held.work, 'progress', {}),
        intervalMs: Math.max(100, held.work.leaseSeconds * 1000 * (this.options.heartbeatFraction ?? 1 / 3)),
        minReportMs: this.options.minReportMs ?? 1000,
      },
      {
        lost: (code) => this.lose(held, code),
        failed: (message) => this.log('warn', `renewing the lease of ${unitName(held.work)} failed: ${message}`),
        stopped: (message) => this.log('error', `the lease of ${unitName(held.work)} is not renewed: ${message}`),
      },
    );
    try {
      const outcome = await this.runHandler(held);
      held.finished = true;
      // No renewal may go out beside the outcome's report: this waits for one in flight.
      await renewals.release(held.renewal);
      if (cancel.signal.aborted) {
        this.log('info', `${unitName(held.work)} dropped: ${held.lostCode}`);
        return;
      }
      await this.report(held, outcome);
    } finally {
      void renewals.release(held.renewal);
      this.running.delete(held);
    }
  }

  private async runHandler(held: Held): Promise<Record<string, unknown> | WorkFailed> {
    const { handler } = this.handlers.get(`${held.work.kind}\u0000${held.work.stage}`)!;
    try {
      return { ...((await handler(held.work)) ?? {}) };
    } catch (error) {
      if (error instanceof WorkFailed) return error;
      // Said here too, with its stack, as the Python SDK logs it: the server keeps only the message.
      this.log(
        'error',
        `the handler of ${held.work.kind}/${held.work.stage} failed: ${error instanceof Error ? error.stack : String(error)}`,
      );
      return new WorkFailed('HANDLER_ERROR', error instanceof Error ? `${error.name}: ${error.message}` : String(error));
    }
  }

  private lose(held: Held, code: string): void {
    held.lostCode ??= code;
    void renewals.release(held.renewal);
    held.cancel.abort(new ServerError(code, 'the attempt is over for this worker'));
  }

  private async report(held: Held, outcome: Record<string, unknown> | WorkFailed): Promise<void> {
    const { work } = held;
    if (!(outcome instanceof WorkFailed)) {
      const missing = this.declared ? missingOutputs(this.declared.get(`${work.kind}\u0000${work.stage}`), outcome) : [];
      if (missing.length)
        outcome = new WorkFailed(
          'OUTPUTS_MISSING',
          `The handler's outputs lack the required ${missing.join(', ')} of ${work.kind}/${work.stage}.`,
        );
    }
    try {
      if (outcome instanceof WorkFailed) {
        await this.send(work, 'fail', { code: outcome.code.slice(0, 100), message: outcome.message.slice(0, 2000) });
        return;
      }
      try {
        await this.send(work, 'complete', { outputs: outcome });
        this.completed++;
      } catch (error) {
        if (!(error instanceof ServerError) || error.code !== 'BAD_USER_INPUT') throw error;
        // The server refused the outputs (a key outside the tenant, a wrong type): the handler's fault, so its attempt fails.
        await this.send(work, 'fail', { code: 'OUTPUTS_REFUSED', message: error.detail.slice(0, 2000) });
      }
    } catch (error) {
      if (error instanceof ServerError && error.lost) this.lose(held, error.code);
      // Retried within call()'s bound: the unit is left to its lease, and taken over when it runs out.
      else this.log('error', `could not report ${unitName(work)}: ${(error as Error).message}`);
    }
  }

  private send(work: Work, what: 'complete' | 'fail' | 'handBack', extra: Record<string, unknown>, attempts = 5) {
    const { query, variables } = this.mutation(work, what, extra);
    return this.call(query, variables, attempts);
  }

  /** The mutation that reports `what` of `work`, with its variables (the unit's reference and `extra`). */
  private mutation(work: Work, what: keyof (typeof MUTATIONS)['item'], extra: Record<string, unknown>) {
    // The process's id, when the claim bound the unit to its subscription, unbinds it wherever that is
    // (bound-workers.ts on the server); a unit claimed unsubscribed was bound nowhere, and a report
    // naming the process would be forwarded to no one.
    const workerId = this.boundAs.get(work) ?? null;
    const ref = { jobId: work.jobId, stage: work.stage, attempt: work.attempt, lease: work.lease ?? null, workerId };
    const query = work.sequence === undefined ? MUTATIONS.step[what] : MUTATIONS.item[what];
    return { query, variables: work.sequence === undefined ? { ...ref, ...extra } : { ...ref, sequence: work.sequence, ...extra } };
  }
}
