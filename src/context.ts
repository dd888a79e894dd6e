import type { LeaseCodec, OpenedLease } from './auth/lease';
import { type Principal, Role } from './auth/principal';
import { forbidden, unauthenticated } from './errors';
import { logger } from './logger';

/**
 * What a request's resolvers reach through `ctx.repos`, bound to the caller's tenant. Each
 * feature adds its own repository to this interface next to its resolver, with
 * `declare module '../context' { interface Repositories { … } }`, so this file names no feature
 * and a feature never imports what is built on top of it. The wiring (src/wiring.ts) must return
 * every entry, which the compiler checks.
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled by declaration merging, one entry per feature (and the files service, src/common/files/files.service.ts).
export interface Repositories {}

/**
 * What operators reach of the server's own work (its jobs in the system partition, migrations, the
 * drift check, archive runs) and across tenants (plans, pool shares, the *AcrossTenants lists). Features that provide a part add it here with declaration merging, as they do
 * to Repositories; the wiring builds it.
 */
export interface SystemServices {
  /** Repositories bound to the system partition (SYSTEM_TENANT), acting as the operator. */
  repos: Repositories;
}

/**
 * A request's context: the verified caller and, built on first use, repositories bound to the
 * caller's tenant. It is a class because Apollo copies the context's own properties for each
 * operation; the `repos` getter lives on the prototype, so copying never triggers it.
 *
 * The repositories come from `build`, which the wiring provides (see createContext there): the
 * context only decides when they are built, which is once, on first use.
 */
export class Context {
  private built?: Repositories;
  private systemBuilt?: SystemServices;
  private leased?: Map<string, Repositories>;
  /**
   * A subscription's transport lifetime, set as its source stream starts (src/graphql/shared-subscriptions.ts):
   * whether it ended abruptly is what a bound worker's subscription needs (src/events/bound-workers.ts).
   */
  lifetime?: { readonly abrupt?: boolean };
  /** What undoUnlessAnswered was given for this operation. */
  private unanswered?: { key: string; undo: () => Promise<unknown> }[];

  constructor(
    readonly principal: Principal | null,
    private readonly build: (principal: Principal) => Repositories,
    /** Seals and opens pool workers' leases (see src/auth/lease.ts); none in offline tools. */
    readonly leases?: LeaseCodec,
    private readonly buildSystem?: (principal: Principal) => SystemServices,
  ) {}

  /**
   * For operators: the server's own services and its jobs, and the repositories of the operator
   * fields across tenants (see SystemServices). UNAUTHENTICATED without a caller, FORBIDDEN for
   * anyone but an operator, a tenant's admin included (and in tools that build no such services).
   */
  system(): SystemServices {
    if (!this.principal) throw unauthenticated();
    if (!this.principal.operator)
      throw forbidden('Only an operator reaches the server’s own jobs and other tenants (a token of the operator issuer, role operator).');
    if (!this.buildSystem) throw forbidden('This context reaches no system services.');
    this.systemBuilt ??= this.buildSystem(this.principal);
    return this.systemBuilt;
  }

  /**
   * The caller's repositories; reading it without a verified caller throws UNAUTHENTICATED, and a
   * pool worker (bound to no tenant) gets FORBIDDEN: it reaches a tenant only through a lease. An
   * operator (bound to no tenant either) gets FORBIDDEN too: its fields use `system()`.
   */
  get repos(): Repositories {
    if (!this.principal) throw unauthenticated();
    if (this.principal.pool) throw forbidden('A pool worker reads nothing of a tenant but the work it holds a lease on.');
    if (this.principal.operator)
      throw forbidden('An operator reads no tenant’s data through its fields; it names a tenant as an operator field’s argument.');
    this.built ??= this.build(this.principal);
    return this.built;
  }

  /**
   * The repositories of the caller's partition, or with `system` the system partition's (the
   * server's own jobs): what a field with a `system` argument reads. Throws as `repos` and
   * `system()` do (FORBIDDEN for the system partition unless the caller is an operator).
   */
  reposOf(system: boolean | null | undefined): Repositories {
    return system ? this.system().repos : this.repos;
  }

  /**
   * For a pool worker: repositories bound to `tenantId` as a worker of it, for the pool claimer
   * (claimPooledWork, src/job/job.pool-api.ts) to claim that tenant's work, which it found in the
   * pool's index under the pool worker's kinds. Nothing else may call it; FORBIDDEN for any other
   * caller.
   */
  reposForPoolClaim(tenantId: string): Repositories {
    return this.workerReposOf(tenantId);
  }

  /**
   * For a pool worker: repositories bound to the tenant of a lease it holds (opened, so sealed by
   * this server for this worker), for reporting on the leased work. FORBIDDEN for any other caller.
   */
  reposUnderLease(lease: OpenedLease): Repositories {
    if (lease.worker !== this.principal?.userId) throw forbidden('The lease was handed to another worker.');
    return this.workerReposOf(lease.tenantId);
  }

  private workerReposOf(tenantId: string): Repositories {
    const principal = this.principal;
    if (!principal?.pool) throw forbidden('Only a pool worker acts for a tenant it is not bound to.');
    this.leased ??= new Map();
    let repos = this.leased.get(tenantId);
    if (!repos) {
      repos = this.build({ userId: principal.userId, tenantId, roles: [Role.WORKER], expiresAt: principal.expiresAt });
      this.leased.set(tenantId, repos);
    }
    return repos;
  }

  /**
   * A context of the same caller with repositories of its own, built on first use: for work the
   * server does later on the caller's behalf, after this request has answered (a lost worker's
   * hand-back, src/events/bound-workers.ts), so nothing this request read or cached is reused.
   */
  detached(): Context {
    return new Context(this.principal, this.build, this.leases, this.buildSystem);
  }

  /**
   * Has `undo` run once the operation's result is known, if the result leaves the root field at
   * response key `key` null with an error at or under it (a field of its selection failed): its
   * caller then never learns what the field did, such as the unit and lease a claim took, so the
   * effect is undone rather than left to time out. Made on first use, so each copy of a context
   * that Apollo makes for the operations of a batch keeps its own.
   */
  undoUnlessAnswered(key: string, undo: () => Promise<unknown>): void {
    this.unanswered ??= [];
    this.unanswered.push({ key, undo });
  }

  /**
   * Runs the undo of every root field `result` did not answer (see undoUnlessAnswered), one at a
   * time, and forgets them. Never throws: an undo that fails is logged, and what it would have
   * undone stays as the field left it (a claim's unit then waits for its lease).
   */
  async settleAnswers(result: {
    data?: Record<string, unknown> | null;
    errors?: readonly { path?: readonly (string | number)[] }[];
  }): Promise<void> {
    const pending = this.unanswered;
    this.unanswered = undefined;
    for (const { key, undo } of pending ?? []) {
      if (result.data?.[key] != null || !result.errors?.some((error) => error.path?.[0] === key)) continue;
      try {
        await undo();
      } catch (err) {
        logger.warn({ err, field: key }, 'undoing a field whose answer failed did not work; its effect stays');
      }
    }
  }

  /**
   * Lets go of the repositories built so far; reading `repos` again builds them anew. A
   * subscription's context serves only the creation of its source stream, which keeps what it
   * needs itself, while the transport may hold the context for as long as the subscription lives.
   */
  release(): void {
    this.built = undefined;
    this.leased = undefined;
    this.systemBuilt = undefined;
  }
}
