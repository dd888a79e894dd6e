/*
 * Lease renewal off the handler's event loop. A handler that keeps its event loop busy (a CPU-bound
 * loop that never awaits, a synchronous call into native code) would hold up a renewal timed on
 * that loop until its lease ran out and another worker took the unit. So the renewals run in a
 * worker_threads thread of their own, with an event loop and a fetch of its own, as the Python SDK
 * renews from a thread (sdk/python/artissist_worker/worker.py, Heartbeat): the worker tells it by
 * message which unit to renew, how often and with what progress, and when to stop; the thread sends
 * the renewals by HTTP itself and tells the worker of an attempt that is over (the worker hears it
 * when its loop next turns, as it would hear anything else).
 *
 * One thread serves every Worker of the process: it starts with the first unit held and ends with
 * the last run(). This file is both the worker's side (RenewalThread) and the thread's (run when
 * the thread loads it), and imports nothing but Node's own modules: from a checkout, Node runs it
 * as TypeScript (type stripping), so it holds only syntax that strips away.
 */
import { isMainThread, parentPort, Worker as Thread, workerData } from 'node:worker_threads';

/** The codes that say the attempt held is over for this worker: retrying cannot succeed, the work is dropped. */
export const LOST = new Set(['JOB_CANCELLED', 'ATTEMPT_TIMED_OUT', 'INVALID_TRANSITION', 'NOT_FOUND', 'FORBIDDEN']);

/** What one GraphQL request answered: its data, or its first error's code (NETWORK when nothing answered). */
export type Answer =
  // biome-ignore lint/suspicious/noExplicitAny: the shape is the caller's query's, which this client does not parse.
  { data: Record<string, any> } | { code: string; message: string; retryAfterSeconds?: number };

/** Sends one GraphQL request with `token`. Never rejects: a failure is an Answer with its code. */
export async function post(url: string, token: string, query: string, variables: Record<string, unknown>): Promise<Answer> {
  let res: Response;
  try {
    res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ query, variables }),
    });
  } catch (error) {
    return { code: 'NETWORK', message: (error as Error).message };
  }
  const body = (await res.json().catch(() => undefined)) as
    | { data?: Record<string, unknown>; errors?: { message: string; extensions?: { code?: string; retryAfterSeconds?: number } }[] }
    | undefined;
  const first = body?.errors?.[0];
  if (first)
    return {
      code: String(first.extensions?.code ?? 'BAD_REQUEST'),
      message: first.message,
      retryAfterSeconds: first.extensions?.retryAfterSeconds,
    };
  if (!body?.data)
    return { code: res.status >= 500 ? 'SERVICE_UNAVAILABLE' : 'BAD_REQUEST', message: `HTTP ${res.status} without a GraphQL answer` };
  return { data: body.data };
}

/** A unit to renew: the progress mutation and its variables (without `progress`), and how often. */
export interface Renewal {
  url: string;
  token: string;
  /** The unit's progress mutation; the thread adds `progress` to its variables. */
  query: string;
  variables: Record<string, unknown>;
  /** A renewal every intervalMs (a share of the lease) … */
  intervalMs: number;
  /** … and fresh progress sent after at most minReportMs. */
  minReportMs: number;
}

/** The worker's messages to the thread. */
type ToThread =
  | { type: 'hold'; id: number; renewal: Renewal }
  | { type: 'progress'; id: number; progress: number }
  | { type: 'release'; id: number };

/** The thread's messages to the worker: an attempt over, a renewal that failed for now, a unit no longer renewed. */
type FromThread =
  | { type: 'lost'; id: number; code: string }
  | { type: 'failed'; id: number; message: string }
  | { type: 'released'; id: number };

const MARK = 'artissist-worker-renewals';

/** What the worker hears of a unit's renewals. */
export interface RenewalEvents {
  /** The server said the attempt is over (a code of LOST): the renewals stopped. */
  lost(code: string): void;
  /** A renewal failed for a reason that may pass: the next one is tried at its time. */
  failed(message: string): void;
  /** The renewal thread could not start: this unit's lease is not renewed (it runs out unless the unit ends first). */
  stopped(message: string): void;
}

/**
 * The worker's side of the renewal thread, one for the process. Each Worker's run() opens it and
 * closes it; the thread starts with the first unit held and ends once no run() has it open.
 */
class RenewalThread {
  private thread?: Thread;
  private users = 0;
  private nextId = 1;
  private readonly held = new Map<number, { renewal: Renewal; events: RenewalEvents }>();
  private readonly releasing = new Map<number, { done: Promise<void>; resolve: () => void }>();

  open(): void {
    this.users++;
  }

  /** Ends the thread once no run() has it open (their units are released by then). */
  close(): Promise<void> {
    if (--this.users > 0 || !this.thread) return Promise.resolve();
    const thread = this.thread;
    this.thread = undefined;
    return thread.terminate().then(() => undefined);
  }

  /** Starts renewing a unit; returns its id for progress() and release(). */
  hold(renewal: Renewal, events: RenewalEvents): number {
    const id = this.nextId++;
    this.held.set(id, { renewal, events });
    this.post({ type: 'hold', id, renewal });
    return id;
  }

  progress(id: number, progress: number): void {
    if (this.held.has(id)) this.post({ type: 'progress', id, progress });
  }

  /**
   * Stops renewing unit `id`. Resolves once no renewal of it is in flight (the thread answers after
   * the one it is sending, if any), so that nothing goes out beside the outcome's report.
   */
  release(id: number): Promise<void> {
    const pending = this.releasing.get(id);
    if (pending) return pending.done;
    if (!this.held.has(id)) return Promise.resolve();
    let resolve = () => {};
    const done = new Promise<void>((r) => (resolve = r));
    this.releasing.set(id, { done, resolve });
    this.post({ type: 'release', id });
    return done;
  }

  private post(message: ToThread): void {
    this.started().postMessage(message);
  }

  private started(): Thread {
    if (this.thread) return this.thread;
    // From a checkout (the tests) Node runs this file as TypeScript. The package names no module type,
    // since its entry (index.js) is CommonJS, so Node finds this file's import syntax, reparses it as
    // an ES module and warns so in every thread it starts: a warning about how the source is laid
    // out, nothing a worker's operator can act on. The compiled SDK (dist, CommonJS) has no such warning.
    const source = __filename.endsWith('.ts') ? ['--disable-warning=MODULE_TYPELESS_PACKAGE_JSON'] : [];
    const thread = new Thread(__filename, { workerData: MARK, execArgv: [...process.execArgv, ...source] });
    this.thread = thread;
    let online = false;
    thread.once('online', () => (online = true));
    thread.on('message', (message: FromThread) => this.heard(message));
    // A thread that died renews nothing: each unit it held is told, and a new thread takes them on;
    // one that never ran is not started again for them (it would fail the same way, over and over).
    thread.on('error', (error) => {
      if (this.thread !== thread) return;
      this.thread = undefined;
      for (const [id, { renewal, events }] of this.held) {
        if (this.releasing.has(id)) this.settle(id);
        else if (online) {
          events.failed(`the renewal thread failed (${error.message}); renewing on a new one`);
          this.post({ type: 'hold', id, renewal });
        } else {
          events.stopped(`the renewal thread could not start (${error.message})`);
          this.held.delete(id);
        }
      }
    });
    return thread;
  }

  private heard(message: FromThread): void {
    const unit = this.held.get(message.id);
    if (message.type === 'released') this.settle(message.id);
    else if (message.type === 'lost') unit?.events.lost(message.code);
    else unit?.events.failed(message.message);
  }

  private settle(id: number): void {
    this.held.delete(id);
    this.releasing.get(id)?.resolve();
    this.releasing.delete(id);
  }
}

/** The process's renewal thread (the worker's side). */
export const renewals = new RenewalThread();

/* ----------------------------------------------------------------------------------------------
 * The thread's side: what runs in the thread.
 */

interface Renewing {
  renewal: Renewal;
  progress: number;
  /** Progress came that no renewal has sent yet. */
  dirty: boolean;
  lastReport: number;
  timer?: ReturnType<typeof setTimeout>;
  sending: boolean;
  /** Released (or the attempt over): no more renewals. */
  over: boolean;
  /** Released while a renewal was in flight: the worker is answered once it is. */
  releasing: boolean;
}

function serveRenewals(port: NonNullable<typeof parentPort>): void {
  const units = new Map<number, Renewing>();
  const tell = (message: FromThread) => port.postMessage(message);

  const schedule = (id: number, unit: Renewing) => {
    if (unit.over || unit.sending) return;
    clearTimeout(unit.timer);
    const { intervalMs, minReportMs } = unit.renewal;
    const due = unit.lastReport + (unit.dirty ? Math.min(intervalMs, minReportMs) : intervalMs);
    unit.timer = setTimeout(() => void renew(id, unit), Math.max(0, due - Date.now()));
  };

  const renew = async (id: number, unit: Renewing) => {
    const { url, token, query, variables } = unit.renewal;
    const progress = unit.progress;
    unit.dirty = false;
    unit.lastReport = Date.now();
    unit.sending = true;
    const answer = await post(url, token, query, { ...variables, progress });
    unit.sending = false;
    if ('code' in answer) {
      if (LOST.has(answer.code)) {
        unit.over = true;
        tell({ type: 'lost', id, code: answer.code });
      }
      // A renewal that failed for now is tried again at the next beat; the lease outlasts two more of them.
      else tell({ type: 'failed', id, message: `${answer.code}: ${answer.message}` });
    }
    if (unit.releasing) {
      units.delete(id);
      tell({ type: 'released', id });
      return;
    }
    if (unit.over) units.delete(id);
    else schedule(id, unit);
  };

  port.on('message', (message: ToThread) => {
    if (message.type === 'hold') {
      const unit: Renewing = {
        renewal: message.renewal,
        progress: 0,
        dirty: false,
        lastReport: Date.now(),
        sending: false,
        over: false,
        releasing: false,
      };
      units.set(message.id, unit);
      schedule(message.id, unit);
      return;
    }
    const unit = units.get(message.id);
    if (message.type === 'progress') {
      if (!unit) return;
      unit.progress = message.progress;
      unit.dirty = true;
      schedule(message.id, unit);
      return;
    }
    // release: answered at once, or once the renewal in flight is answered.
    if (unit) {
      unit.over = true;
      clearTimeout(unit.timer);
      if (unit.sending) {
        unit.releasing = true;
        return;
      }
      units.delete(message.id);
    }
    tell({ type: 'released', id: message.id });
  });
}

if (!isMainThread && workerData === MARK && parentPort) serveRenewals(parentPort);
