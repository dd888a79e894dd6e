import { budgetEnd, runWithinLatest } from './deadline';

/**
 * Reads of one key shared by everyone who asks for it at about the same time: a burst of
 * subscribes to one stream (thousands of clients reconnecting after a deploy) costs a few reads
 * of its head, not one read each.
 *
 * The promise: every caller gets the result of a read that *started after it asked*. That is
 * what a subscription needs from its head read — the read must see every event committed before
 * its live listener was in effect — so a caller never joins a read already under way. Instead:
 * - callers that ask while no read of the key is waiting to start are gathered until the end of
 *   the current turn of the event loop (setImmediate), and then one read serves them all;
 * - while a read of the key is in flight, new callers gather for the next read, which starts once
 *   the current one has finished, so a key has at most one read in flight;
 * - reads of one key start at least `minIntervalMs` apart, so a burst of any size costs at most
 *   one read per interval (plus one), whatever the read's latency.
 *
 * A failed read fails every caller it was shared by, with the same error. A read runs within the
 * latest of its callers' request budgets (runWithinLatest), so a caller whose budget is nearly
 * spent does not fail the read for those that asked later. Keys must name the data exactly
 * (tenant included): callers of one key get one result.
 */
export class SharedReads<T> {
  private readonly keys = new Map<string, KeyState<T>>();
  /** Reads started, all keys together; tests and benchmarks read it. */
  reads = 0;

  constructor(private readonly minIntervalMs = 20) {}

  /** The result of `read()` for `key`, from a read that starts after this call (see the class). */
  read(key: string, read: () => Promise<T>): Promise<T> {
    let state = this.keys.get(key);
    if (!state) this.keys.set(key, (state = { inFlight: false, lastStart: Number.NEGATIVE_INFINITY }));
    clearTimeout(state.forget);
    if (!state.next) {
      state.next = { read, waiters: [] };
      if (!state.inFlight) this.schedule(key, state);
    }
    const next = state.next;
    const endsAt = budgetEnd();
    return new Promise<T>((resolve, reject) => next.waiters.push({ resolve, reject, endsAt }));
  }

  /** Keys with a read waiting or in flight; zero once every read has settled (tests count it). */
  get pending(): number {
    let count = 0;
    for (const state of this.keys.values()) if (state.next || state.inFlight) count++;
    return count;
  }

  private schedule(key: string, state: KeyState<T>): void {
    const wait = state.lastStart + this.minIntervalMs - performance.now();
    const start = () => this.start(key, state);
    if (wait > 0) setTimeout(start, wait);
    else setImmediate(start);
  }

  private start(key: string, state: KeyState<T>): void {
    const batch = state.next;
    if (!batch) return;
    state.next = undefined;
    state.inFlight = true;
    state.lastStart = performance.now();
    this.reads++;
    const settle = (outcome: (waiter: Waiter<T>) => void) => {
      state.inFlight = false;
      for (const waiter of batch.waiters) outcome(waiter);
      if (state.next) this.schedule(key, state);
      else {
        // The key's last start is kept for one interval, so that the next burst keeps the spacing.
        state.forget = setTimeout(() => {
          if (!state.next && !state.inFlight) this.keys.delete(key);
        }, this.minIntervalMs);
        state.forget.unref();
      }
    };
    let running: Promise<T>;
    try {
      running = runWithinLatest(
        batch.waiters.map((w) => w.endsAt),
        () => batch.read(),
      );
    } catch (error) {
      running = Promise.reject(error);
    }
    running.then(
      (value) => settle((w) => w.resolve(value)),
      (error: unknown) => settle((w) => w.reject(error)),
    );
  }
}

interface Waiter<T> {
  resolve(value: T): void;
  reject(error: unknown): void;
  /** When the waiter's request budget ends (epoch ms); undefined when it has none. */
  endsAt: number | undefined;
}

interface KeyState<T> {
  /** The read waiting to start, and who waits for it. */
  next?: { read: () => Promise<T>; waiters: Waiter<T>[] };
  inFlight: boolean;
  /** performance.now() when the key's last read started. */
  lastStart: number;
  /** Forgets the key once it has been idle for an interval. */
  forget?: NodeJS.Timeout;
}

/** A query, as the store takes it; only its JSON matters here (it names the page). */
type PageSpec = object;

/** The key of an item, as the table names it. */
interface ItemKey {
  PK: string;
  SK: string;
}

/**
 * Strongly consistent reads of single items, shared as SharedReads shares them: for the heads a
 * subscription reads once its listener is in effect (a job, a stream's head item). The key names
 * the item exactly, and every key a tenant reads starts with its tenant, so a shared read never
 * hands one tenant's item to another.
 */
export class SharedItemReads<I> {
  private readonly shared: SharedReads<I | null>;
  /** Queries read afresh for whoever asks (see `query`): back to back, with no interval between them. */
  private readonly queries = new SharedReads<I[]>(0);
  /** Page reads under way, by query and size (see `page`). */
  private readonly pages = new Map<string, Promise<I[]>>();

  constructor(
    private readonly store: { get(key: ItemKey): Promise<I | null>; queryFirst(spec: PageSpec, n: number): Promise<I[]> },
    minIntervalMs?: number,
  ) {
    this.shared = new SharedReads<I | null>(minIntervalMs);
  }

  /**
   * The first `n` live items of the query `spec`, from a read of the same page that may already be
   * under way: concurrent callers (many clients resuming one stream from one position) share one
   * read. Unlike `get`, the read may have started before this call, so use it only for items
   * that do not change once written (stored events), and read again when a page comes back
   * short of what must exist. The query's key names the tenant, so no read crosses tenants.
   */
  page(spec: PageSpec, n: number): Promise<I[]> {
    const key = `${JSON.stringify(spec)}\u0000${n}`;
    let read = this.pages.get(key);
    if (!read) {
      read = this.store.queryFirst(spec, n).finally(() => this.pages.delete(key));
      this.pages.set(key, read);
    }
    return read;
  }

  /**
   * The first `n` live items of the query `spec`, from a read that starts after this call (as
   * `get`), shared with every caller asking for the same page meanwhile: workers asking a
   * tenant's claimable index at once (claimWork) share one Query of it, and an empty answer still
   * means the index had nothing after the caller asked. The query's key names the tenant. `atStart`,
   * when given, makes the query sent from `spec` when the read starts (a bound by the time then,
   * which callers asking a millisecond apart would otherwise each put in `spec`, and so not share).
   */
  query(spec: PageSpec, n: number, atStart: () => PageSpec = () => spec): Promise<I[]> {
    return this.queries.read(`${JSON.stringify(spec)}\u0000${n}`, () => this.store.queryFirst(atStart(), n));
  }

  /** The item under `key` (null when missing or expired), read after this call; see SharedReads. */
  get(key: ItemKey): Promise<I | null> {
    return this.shared.read(`${key.PK}\u0000${key.SK}`, () => this.store.get(key));
  }

  /** Item reads (`get`) sent to the store so far. */
  get reads(): number {
    return this.shared.reads;
  }

  /** Keys, queries and pages with a read waiting or in flight. */
  get pending(): number {
    return this.shared.pending + this.queries.pending + this.pages.size;
  }
}
