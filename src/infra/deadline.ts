import { AsyncLocalStorage } from 'node:async_hooks';
import { isRecord } from '../guards';

/**
 * The request budget: how long one GraphQL request may spend waiting on DynamoDB and S3, retries
 * included.
 *
 * Design. Each SDK client bounds one attempt of a call (`requestTimeout` with
 * `throwOnRequestTimeout`, `connectionTimeout`, `socketTimeout`; see dependency.ts) and retries a
 * failed attempt at most 3 times. That alone lets a request that makes several calls wait for
 * attempts × calls. So a request runs inside a budget held in AsyncLocalStorage, and every SDK
 * call made while it runs is sent with two documented per-call options (`send(command,
 * { abortSignal, requestTimeout })`, the SDK's HttpHandlerOptions):
 *   - `abortSignal` fires when the budget ends: the attempt in flight is destroyed, the retry
 *     loop stops waiting, and a call started later fails at once (AbortError);
 *   - `requestTimeout` is the smaller of the per-attempt timeout and what is left of the budget.
 * A call outside any request (the outbox sweeper, start-up, readiness checks with their own
 * signal) has only the per-attempt bound.
 */
interface Budget {
  /** Epoch ms when the budget ends. */
  endsAt: number;
  signal: AbortSignal;
}

const storage = new AsyncLocalStorage<Budget>();

/** Runs `fn` (and everything it starts) within a budget of `ms` milliseconds. */
export function runWithBudget<T>(ms: number, fn: () => T): T {
  return storage.run({ endsAt: Date.now() + ms, signal: AbortSignal.timeout(ms) }, fn);
}

/** Middleware (Express's, or the POST route's part): the rest of the request runs within a budget of `ms`. */
export function requestBudget(ms: number): (req: unknown, res: unknown, next: () => void) => void {
  return (_req, _res, next) => runWithBudget(ms, next);
}

/** Epoch ms when the current request budget ends; undefined outside any budget. */
export function budgetEnd(): number | undefined {
  return storage.getStore()?.endsAt;
}

/**
 * Runs `fn` (and everything it starts) for work shared by several requests, within the latest of
 * their budgets (`ends`, epoch ms, as budgetEnd gives them): the request that can wait longest
 * bounds it, so one request's budget running out does not fail the others. When any of them has
 * no budget (undefined), `fn` runs outside every budget, with only the per-attempt bound.
 */
export function runWithinLatest<T>(ends: readonly (number | undefined)[], fn: () => T): T {
  let latest = Number.NEGATIVE_INFINITY;
  for (const end of ends) {
    if (end === undefined) return storage.exit(fn);
    latest = Math.max(latest, end);
  }
  return runWithBudget(Math.max(0, latest - Date.now()), fn);
}

/** True when the caller runs within a request budget (runWithBudget). */
export function inBudget(): boolean {
  return storage.getStore() !== undefined;
}

/** Milliseconds left of the current request budget (never below 0); undefined outside any budget. */
export function budgetLeft(): number | undefined {
  const budget = storage.getStore();
  return budget ? Math.max(0, budget.endsAt - Date.now()) : undefined;
}

/**
 * Per-call SDK options for a call made now: a signal that aborts when the budget ends, and an
 * attempt timeout within it. Each call gets a signal of its own that follows the budget's
 * (AbortSignal.any, which holds its sources weakly and adds no listener to them): the SDK adds an
 * `abort` listener to the signal of every call in flight, and a request whose loaders run dozens of
 * calls at once would otherwise pile them on one shared signal (Node 20 warns past 10:
 * MaxListenersExceededWarning).
 */
export function budgetOptions(perAttemptMs: number): { abortSignal?: AbortSignal; requestTimeout?: number } {
  const budget = storage.getStore();
  if (!budget) return {};
  const abortSignal = AbortSignal.any([budget.signal]);
  const left = budget.endsAt - Date.now();
  // A timeout of 0 means "none" to the SDK; an exhausted budget has already aborted its signal.
  return left > 0 ? { abortSignal, requestTimeout: Math.min(perAttemptMs, left) } : { abortSignal };
}

/**
 * An SDK client, seen only as far as sendWithinBudget needs: its `send(command, options?,
 * callback?)`, whose command and callback the wrapper forwards untouched, so it need not know
 * their types. `send` is declared as a method, whose parameters TypeScript compares both ways, so
 * every client's overloaded generic `send` fits it; the wrapper accepts anything each overload does.
 */
interface Sender {
  send(command: unknown, optionsOrCallback?: unknown, callback?: unknown): unknown;
}

/**
 * Makes every `send` of `client` carry the current budget's options (see budgetOptions). Options
 * a caller passes itself (an abortSignal of its own) win.
 */
export function sendWithinBudget(client: Sender, perAttemptMs: number): void {
  const send = client.send.bind(client);
  client.send = (command, optionsOrCallback, callback) =>
    typeof optionsOrCallback === 'function'
      ? send(command, budgetOptions(perAttemptMs), optionsOrCallback)
      : send(command, { ...budgetOptions(perAttemptMs), ...(isRecord(optionsOrCallback) ? optionsOrCallback : {}) }, callback);
}
