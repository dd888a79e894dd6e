import { GraphQLError } from 'graphql';
import { errorCode } from '../guards';
import { onStep } from '../job/job.machine';
import { logger } from '../logger';
import type { HeldUnit, JobRepository } from '../job/job.repository';

/*
 * Workers bound to their claims (issue 49): a worker process that names itself (workerId, chosen
 * by the client per process) on its workSignals subscription and on its claims has what it claims
 * on this server recorded here while its subscription lives. When its connection ends abruptly (a
 * socket closed without a close frame or dropped by the keep-alive, an SSE stream cut by its peer)
 * and no subscription of the same worker comes back within the grace, the server hands back what
 * it still holds, so another worker claims it at once instead of after the lease (and backoff).
 *
 * Binding is opt-in and per process: several processes may share one token, so only the workerId
 * tells them apart. A clean end (the client completed the subscription, or the server is closing)
 * hands nothing back: the worker said it was done, or it reconnects to another instance.
 *
 * Behind a load balancer a worker's claims and reports reach any instance, while its subscription
 * is on one. The records live with the subscription: an instance that serves a claim (or a report
 * naming the workerId) of a worker whose subscription is elsewhere forwards it over the bus, on the
 * worker's own topic, which the subscription's instance listens to while it records the worker
 * (WorkSignalHub). A worker that subscribes again on another instance within the grace has its
 * records handed over to that one. The bus carries these at most once: a lost message leaves a
 * unit to its lease, as before binding, or (a lost report) costs one read when the worker is lost.
 */

/**
 * Hands a lost worker's unit back through the hand-back command, unless its attempt is over or its
 * lease was renewed after `lostAt` (the worker still reports, over another connection). Throws
 * what the command throws; true when it handed the unit back.
 */
export type HandBack = (unit: HeldUnit, lostAt: Date) => Promise<boolean>;

/** The codes with which a hand-back is refused because the attempt ended meanwhile: the expected race. */
const ATTEMPT_OVER = new Set(['INVALID_TRANSITION', 'JOB_CANCELLED', 'ATTEMPT_TIMED_OUT', 'NOT_FOUND']);

interface BoundWorker {
  /** Its subscriptions on this server now. */
  live: number;
  /** What it claimed here and has not reported done, by unit key. */
  held: Map<string, { unit: HeldUnit; handBack: HandBack }>;
  /** Set while its last subscription ended abruptly and none came back yet. */
  grace?: NodeJS.Timeout;
}

const unitKey = (u: { tenantId?: string; jobId?: string; stage?: string; sequence?: number; attempt?: number }) =>
  `${u.tenantId}\u0000${u.jobId}\u0000${u.stage}\u0000${u.sequence ?? ''}\u0000${u.attempt}`;

/** The bound workers of one server (one per WorkSignalHub). */
export class BoundWorkers {
  private readonly workers = new Map<string, BoundWorker>();
  /** Each held unit's worker, by unit key: a report names the unit, not the worker. */
  private readonly holders = new Map<string, string>();
  /** Hand-backs under way (their commands not yet answered), each settling when answered (it never rejects). */
  private readonly handing = new Set<Promise<void>>();
  /** How long after an abrupt end a worker's units wait for it to subscribe again (WORKER_GRACE_SECONDS). */
  graceMs = 5000;
  /** The server's clock, which leases are measured on (set with the lease watches, see WorkSignalHub.watchLeases). */
  now: () => Date = () => new Date();

  /**
   * What this server holds for bound workers now: workers recorded (each with at most one grace
   * timer) and hand-backs under way. Tests read it to see everything released.
   */
  get count(): number {
    return this.workers.size + this.handing.size;
  }

  /** Hand-backs under way now (their commands not yet answered). */
  get handingBack(): number {
    return this.handing.size;
  }

  /** Units held by bound workers now. */
  get held(): number {
    return this.holders.size;
  }

  /** Graces running now (workers whose connection was lost, waiting for them to subscribe again). */
  get graces(): number {
    let n = 0;
    for (const bound of this.workers.values()) if (bound.grace) n++;
    return n;
  }

  /** How many graces this server started (tests read it to tell a lost connection from a clean end). */
  lostConnections = 0;

  /** Called when `worker`'s record goes (its last subscription ended and its units were handed back or forgotten). */
  onGone?: (worker: string) => void;

  /** Whether a subscription of `worker` is on this server now. */
  isLive(worker: string): boolean {
    return (this.workers.get(worker)?.live ?? 0) > 0;
  }

  /** Whether this server records `worker` (a subscription here now, or a grace running for it). */
  records(worker: string): boolean {
    return this.workers.has(worker);
  }

  /**
   * The units `worker` holds here, handed over to where it subscribed again (another instance):
   * its record and grace go, and nothing is handed back from here.
   */
  handOver(worker: string): HeldUnit[] {
    const bound = this.workers.get(worker);
    if (!bound) return [];
    const units = [...bound.held.values()].map(({ unit }) => unit);
    this.forget(worker, bound);
    return units;
  }

  /** A subscription of `worker` started: it is bound from now on, and a grace running for it is called off. */
  joined(worker: string): void {
    let bound = this.workers.get(worker);
    if (!bound) this.workers.set(worker, (bound = { live: 0, held: new Map() }));
    bound.live++;
    if (bound.grace) {
      clearTimeout(bound.grace);
      bound.grace = undefined;
    }
  }

  /**
   * A subscription of `worker` ended. Its last one ending abruptly with units held starts the
   * grace; any other last end forgets the worker and its units (nothing is handed back).
   */
  left(worker: string, abrupt: boolean): void {
    const bound = this.workers.get(worker);
    if (!bound) return;
    bound.live = Math.max(0, bound.live - 1);
    if (bound.live > 0) return;
    if (!abrupt || bound.held.size === 0) {
      this.forget(worker, bound);
      return;
    }
    const lostAt = this.now();
    this.lostConnections++;
    bound.grace = setTimeout(() => this.lost(worker, lostAt), this.graceMs);
    // A grace is no reason to keep a stopping process alive (close clears it anyway).
    bound.grace.unref();
  }

  /**
   * Records that `worker` claimed `unit`, when a subscription of it is on this server; false (and
   * nothing recorded) otherwise: its claims are not bound to a connection this server sees end.
   */
  hold(worker: string, unit: HeldUnit, handBack: HandBack): boolean {
    const bound = this.workers.get(worker);
    if (!bound || bound.live === 0) return false;
    const key = unitKey(unit);
    bound.held.set(key, { unit, handBack });
    this.holders.set(key, worker);
    return true;
  }

  /** The unit's attempt is over for its worker (reported done, failed, handed back): it is no longer held. */
  release(unit: HeldUnit): void {
    const key = unitKey(unit);
    const worker = this.holders.get(key);
    if (worker === undefined) return;
    this.holders.delete(key);
    this.workers.get(worker)?.held.delete(key);
  }

  /**
   * Attempts ended for whoever held them (a LEASE_ENDED: the job cancelled, or taken over): each
   * bound unit of the tenant's job that `ended` names (every one of the job's when it names no
   * stage) is no longer held.
   */
  ended(ended: { tenantId?: string; jobId?: string; stage?: string; sequence?: number; attempt?: number }): void {
    if (this.holders.size === 0 || !ended.tenantId || !ended.jobId) return;
    const prefix = `${ended.tenantId}\u0000${ended.jobId}\u0000`;
    for (const [key, worker] of this.holders) {
      if (!key.startsWith(prefix)) continue;
      const held = this.workers.get(worker)?.held.get(key)?.unit;
      if (
        held &&
        (ended.stage === undefined ||
          (held.stage === ended.stage &&
            (ended.sequence === undefined || held.sequence === ended.sequence) &&
            (ended.attempt === undefined || held.attempt === ended.attempt)))
      )
        this.release(held);
    }
  }

  /**
   * The server is closing: every grace is called off and every record dropped (nothing more is
   * handed back), and the hand-backs already under way are waited for, at most `ms`: a hand-back
   * cut off by the store closing beneath it would leave its unit to its lease. Resolves with how
   * many were still under way when the wait ended (0 when every one was answered); never rejects.
   */
  async close(ms: number): Promise<number> {
    for (const [worker, bound] of this.workers) this.forget(worker, bound);
    if (this.handing.size === 0) return 0;
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, ms);
    });
    await Promise.race([Promise.all(this.handing), bound]);
    clearTimeout(timer);
    const left = this.handing.size;
    if (left > 0) logger.warn({ handingBack: left, waitedMs: ms }, 'hand-backs still under way at shutdown; their leases end their units');
    return left;
  }

  private forget(worker: string, bound: BoundWorker): void {
    if (bound.grace) clearTimeout(bound.grace);
    for (const key of bound.held.keys()) this.holders.delete(key);
    this.workers.delete(worker);
    this.onGone?.(worker);
  }

  /** The grace ran out: the worker is gone, and each unit it still holds is handed back. */
  private lost(worker: string, lostAt: Date): void {
    const bound = this.workers.get(worker);
    if (!bound) return;
    bound.grace = undefined;
    const units = [...bound.held.values()];
    this.forget(worker, bound);
    for (const { unit, handBack } of units) {
      const handing: Promise<void> = handBack(unit, lostAt)
        .then((handed) => {
          if (handed) logger.info({ ...unit }, 'handed back the unit of a worker whose connection was lost');
        })
        .catch((err: unknown) => {
          const reason = err instanceof GraphQLError ? errorCode(err.extensions) : errorCode(err);
          // Its attempt ended meanwhile (completed just before the connection went, taken over, cancelled): nothing to hand back.
          if (reason && ATTEMPT_OVER.has(reason)) return;
          logger.warn(
            { err, ...unit, code: 'WORKER_HAND_BACK_FAILED' },
            "a lost worker's unit could not be handed back; its lease ends it",
          );
        })
        .finally(() => {
          this.handing.delete(handing);
        });
      this.handing.add(handing);
    }
  }
}

/**
 * The hand-back of a lost worker's unit through `repos` (its tenant's, as a report on the unit
 * reaches it; a pool worker's through its lease): one read of the unit, then the hand-back
 * command (handBackWorkItem's or handBackStep's), unless the attempt is no longer the one claimed
 * and running, or its lease was renewed after `lostAt` (a renewal moves its end to a lease after
 * the report, so an end later than a lease after `lostAt` says a report came since).
 */
export function handBackThrough(repos: () => Promise<{ jobs: JobRepository }>, leaseMs: number): HandBack {
  return async (unit, lostAt) => {
    const { jobs } = await repos();
    const renewedAfter = lostAt.getTime() + leaseMs;
    const stillHeld = (held: { status?: string; attempt?: number; leaseExpiresAt?: string } | undefined) =>
      held?.status === 'RUNNING' &&
      held.attempt === unit.attempt &&
      (held.leaseExpiresAt === undefined || Date.parse(held.leaseExpiresAt) <= renewedAfter);
    if (unit.sequence !== undefined) {
      const [item] = await jobs.items.range(unit.jobId, unit.stage, unit.sequence - 1, 1);
      if (item?.sequence !== unit.sequence || !stillHeld(item)) return false;
      await jobs.items.act(unit.jobId, unit.stage, unit.sequence, { kind: 'handBack', attempt: unit.attempt });
      return true;
    }
    const step = (await jobs.steps(unit.jobId)).filter((s) => s.name === unit.stage).at(-1);
    if (!stillHeld(step)) return false;
    await jobs.act(unit.jobId, onStep(unit.stage, { kind: 'handBack', attempt: unit.attempt }));
    return true;
  };
}
