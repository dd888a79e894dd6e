import DataLoader from 'dataloader';
import { type Principal, Role, SYSTEM_TENANT } from './auth/principal';
import { newId, type IdPrefix } from './common/ids';
import type { Key } from './common/keys';
import type { ArchiveRuns, FeatureDeps } from './common/feature';
import type { Scope } from './common/scope';
import type { Config } from './config';
import { Context, type Repositories, type SystemServices } from './context';
import { SYSTEM_WORKER } from './system-jobs/runner';
import { type MigrationEnv, Migrations } from './migrations/migration.service';
import { features } from './features';
import { FilesService } from './common/files/files.service';
import { BoundTenant } from './common/bound-tenant';
import type { Metrics } from './infra/metrics';
import type { FileStore } from './infra/s3/files';
import {
  keyString,
  type Item,
  type OrderedList,
  type Page,
  type PageRequest,
  type Projection,
  type QuerySpec,
  type Store,
} from './infra/dynamo/store';
import type { UnitWrite } from './infra/dynamo/write';
import { type CommitHooks, commitUnit, committerOf } from './infra/dynamo/committer';
import type { LeaseCodec } from './auth/lease';
import { downloadEvent, hasTrailEvents, withTrailRetention } from './common/activity-event';
import { entities } from './common/entities';
import { hasQuotaWrites, limitsOf, planOf, releasedOf, releaseKeys, withQuotaLimits } from './common/quota';
import type { Outbox } from './events/outbox';
import { createEventBus, type EventBus } from './infra/pubsub';
import { SharedItemReads } from './infra/shared-reads';
import { numberByIdentity } from './infra/identity';

/**
 * What the wiring needs to build each request's repositories. The app makes one for the operation
 * pipeline; tools that work without a server (the demo loader) make their own.
 */
export interface ContextDeps {
  store: Store;
  eventRetentionDays: number;
  /** What each plan allows (Config.plans); the defaults when omitted. */
  plans?: Config['plans'];
  /**
   * When false, loaders read one item per call and cache nothing. That exists only to measure
   * what batching saves (tests and benchmarks); the server always batches.
   */
  batchLoads?: boolean;
  /**
   * When false, list reads return whole items whatever their selection asks (see Scope.page).
   * That exists only to compare and measure what projections change (tests and benchmarks); the
   * server always projects.
   */
  projectReads?: boolean;
  /** Publishes committed events; without one (offline tools), events wait for a sweeper. */
  outbox?: Outbox;
  /** Carries live events to subscriptions (in-process when omitted). */
  bus?: EventBus;
  /** How many live events a subscription buffers for a slow client before it sends RESYNC. */
  subscriptionBuffer?: number;
  /** The most events a resume replays before it gets history lost instead (REPLAY_MAX_EVENTS). */
  replayMaxEvents?: number;
  /** How long a worker's hold on a step lasts without a report (see Config.jobLeaseSeconds). */
  jobLeaseSeconds?: number;
  /** The bucket; without one, file operations fail with INTERNAL. */
  fileStore?: FileStore;
  fileLimits?: Config['files'];
  /** The app's metrics (events replayed, RESYNCs sent, WebSocket gauges); none in offline tools. */
  metrics?: Metrics;
  /** Id maker for new entities (see Scope.newId); random ULIDs when omitted. */
  newId?: (prefix: IdPrefix) => string;
  /**
   * Item reads shared across requests (Scope.shared); a server makes one for all its requests.
   * Without one, each context shares only its own reads.
   */
  sharedReads?: SharedItemReads<Item>;
  /** Seals and opens pool workers' leases (see src/auth/lease.ts); without one, pool workers cannot report. */
  leases?: LeaseCodec;
  /** The server's archive runs, for the admin mutation runArchive; none in offline tools. */
  archive?: ArchiveRuns;
  /** The requests' clock (Scope.now); the wall clock when omitted. Tests move it to see time-bound rules (a reuse record's TTL) run out. */
  now?: () => Date;
  /** Wakes this process's system-job runner when a request started a system job (runMigrations); none in tools without one. */
  wakeSystemJobs?: () => void;
}

/**
 * The request's item loader. One per request: its cache holds what this caller may read, so it
 * must never be shared across requests or users. Batches go to BatchGetItem, 100 keys a call.
 */
export function createItemLoader(store: Store, batch = true): DataLoader<Key, Item | null, string> {
  return batch
    ? new DataLoader((keys) => store.batchGet(keys), { cacheKeyFn: keyString, maxBatchSize: 100 })
    : new DataLoader((keys) => Promise.all(keys.map((k) => store.get(k))), { batch: false, cache: false });
}

interface PageKey {
  spec: QuerySpec;
  request: PageRequest;
  projection?: Projection;
}

/**
 * The request's page loader (see Scope.page); it caches a page for the request, like items. The
 * projection is part of the cache key: a page of fewer attributes never answers a read of more.
 * Its items never enter the item loader, whose items are whole.
 */
export function createPageLoader(store: Store, tenantId: string, batch = true): DataLoader<PageKey, Page<Item>, string> {
  return new DataLoader(
    (keys) => Promise.all(keys.map(({ spec, request, projection }) => store.queryPage(tenantId, spec, request, projection))),
    {
      cacheKeyFn: ({ spec, request, projection }) =>
        JSON.stringify([
          spec,
          request.first ?? null,
          request.after ?? null,
          request.last ?? null,
          request.before ?? null,
          projection ? projectionNumber(projection) : null,
        ]),
      batch,
      cache: batch,
    },
  );
}

/**
 * A number for each projection, for the page loader's cache key: a model makes one array per
 * selection (EntityModel.projectionOf), so its identity names it, and writing a number costs less
 * than writing its attribute names into every key.
 */
const projectionNumber = numberByIdentity<Projection>();

/**
 * A request's scope (see Scope). Its loaders, file service and commit context are made on first
 * use: a subscription's scope lives as long as the subscription and needs none of them to stream
 * events, and a class shares its methods and shape across the thousands of scopes a burst of
 * subscribes makes, where an object literal would make closures for each.
 */
class RequestScope implements Scope {
  readonly tenant: BoundTenant;
  readonly actor: string;
  readonly store: Store;
  readonly shared: Scope['shared'];
  readonly eventRetentionDays: number;
  readonly newId: (prefix: IdPrefix) => string;
  readonly now: () => Date;
  private itemLoader?: DataLoader<Key, Item | null, string>;
  private pageLoader?: DataLoader<PageKey, Page<Item>, string>;
  private downloadLoader?: DataLoader<{ key: string; seconds: number }, boolean, string>;
  private fileService?: FilesService;
  private retention?: CommitHooks['context'];
  private hooks?: CommitHooks;

  constructor(
    private readonly deps: ContextDeps,
    principal: Principal,
  ) {
    // The one place a request's tenant is bound: from the verified token, or from the lease a pool
    // worker holds (Context.reposUnderLease), never from an argument.
    this.tenant = new BoundTenant(principal.tenantId);
    this.actor = principal.userId;
    this.store = deps.store;
    this.shared = deps.sharedReads ?? new SharedItemReads<Item>(deps.store);
    this.eventRetentionDays = deps.eventRetentionDays;
    this.newId = deps.newId ?? newId;
    this.now = deps.now ?? currentDate;
  }

  get items(): DataLoader<Key, Item | null, string> {
    this.itemLoader ??= createItemLoader(this.deps.store, this.deps.batchLoads ?? true);
    return this.itemLoader;
  }

  page(spec: QuerySpec, request: PageRequest = {}, projection?: Projection): Promise<Page<Item>> {
    this.pageLoader ??= createPageLoader(this.deps.store, this.tenant.id, this.deps.batchLoads ?? true);
    // Measurement and comparison only (ContextDeps.projectReads false): every read returns whole items.
    return this.pageLoader.load({ spec, request, projection: this.deps.projectReads === false ? undefined : projection });
  }

  pageMerged(
    listId: string,
    shards: (before?: string) => QuerySpec[],
    sortAttribute: string,
    request: PageRequest = {},
  ): Promise<Page<Item>> {
    return this.deps.store.queryMerged(this.tenant.id, listId, shards, sortAttribute, request);
  }

  pageOfList<T>(ordered: OrderedList<T>, request: PageRequest = {}): Promise<Page<T>> {
    return this.deps.store.listPage(this.tenant.id, ordered, request);
  }

  get files(): FilesService {
    this.fileService ??= new FilesService(
      this.deps.fileStore,
      this.tenant.id,
      this.deps.fileLimits ?? DEFAULT_FILE_LIMITS,
      async (key, seconds) => {
        await this.downloads().load({ key, seconds });
      },
    );
    return this.fileService;
  }

  commit(writes: readonly UnitWrite[]): Promise<void> {
    return commitUnit(this.deps.store, writes, this.commitHooks());
  }

  decide<T>(queue: Key, keys: readonly Key[], decide: (items: (Item | null)[]) => { writes: readonly UnitWrite[]; value: T }): Promise<T> {
    return committerOf(this.deps.store).decideUnit(queue, keys, decide, this.commitHooks());
  }

  commitHooks(): CommitHooks {
    this.hooks ??= {
      invalidate: () => {
        this.itemLoader?.clearAll();
        this.pageLoader?.clearAll();
      },
      publisher: this.deps.outbox,
      context: this.retentionContext(),
    };
    return this.hooks;
  }

  /**
   * What a unit takes from the tenant's settings at commit: its activityRetentionDays for the trail
   * events, and its plan's limits for the quota writes (common/quota.ts). The tenant item is read
   * in the same call as the unit's stream heads (see CommitHooks.context), so a quota costs a
   * unit that appends to a stream no read of its own.
   */
  private retentionContext(): CommitHooks['context'] {
    if (this.retention) return this.retention;
    const tenantKey = this.tenant.of(entities.Tenant).keyOf({});
    const withShards = [tenantKey, ...releaseKeys(this.tenant.id)];
    this.retention = {
      keys: (writes) => (hasQuotaWrites(writes) ? withShards : [tenantKey]),
      applies: (writes) => hasTrailEvents(writes) || hasQuotaWrites(writes),
      adjust: (writes, [read, ...shards]) => {
        const tenant = entities.Tenant.found(read);
        const days = tenant?.activityRetentionDays;
        const retained = days == null ? writes : withTrailRetention(writes, days);
        if (!hasQuotaWrites(retained)) return retained;
        return withQuotaLimits(retained, limitsOf(this.deps.plans, tenant), releasedOf(shards), (quota) =>
          this.deps.metrics?.quotaRefused.inc({ plan: planOf(tenant), quota }),
        );
      },
    };
    return this.retention;
  }

  /**
   * Download URLs asked for together (the url of every asset in a list) are recorded in one
   * transaction. Their events change no entity, so they drop none of the request's cached reads.
   */
  private downloads(): DataLoader<{ key: string; seconds: number }, boolean, string> {
    this.downloadLoader ??= new DataLoader<{ key: string; seconds: number }, boolean, string>(
      async (entries) => {
        const unit = entries.map((e) => downloadEvent(this, e.key, e.seconds));
        await commitUnit(this.deps.store, unit, { invalidate: () => {}, publisher: this.deps.outbox, context: this.retentionContext() });
        return entries.map(() => true);
      },
      { cache: false, maxBatchSize: 50, batch: this.deps.batchLoads ?? true },
    );
    return this.downloadLoader;
  }
}

const currentDate = () => new Date();

/** What the features' repositories need besides the scope, made once per ContextDeps. */
const featureDepsOf = new WeakMap<ContextDeps, FeatureDeps>();

/**
 * A request's repositories bound to the caller's tenant, and the loaders and scope they share.
 * The repositories come from the features (src/features.ts), which say how they depend on each other.
 */
function createRepositories(deps: ContextDeps, principal: Principal): Repositories {
  const scope = new RequestScope(deps, principal);
  let featureDeps = featureDepsOf.get(deps);
  if (!featureDeps) {
    featureDeps = {
      bus: deps.bus ?? fallbackBus(),
      subscriptionBuffer: deps.subscriptionBuffer ?? 1000,
      replayMaxEvents: deps.replayMaxEvents,
      jobLeaseSeconds: deps.jobLeaseSeconds ?? 60,
      metrics: deps.metrics,
      plans: deps.plans,
      archive: deps.archive,
    };
    featureDepsOf.set(deps, featureDeps);
  }
  if (lazyRepositories) {
    const lazy: LazyState = { scope, deps: featureDeps, made: [] };
    return Object.assign(Object.create(lazyRepositories), lazy);
  }
  // The first repositories this process builds are made at once, in the features' order (so each
  // one finds the repositories it uses already made), noting which feature makes which.
  const repos = { files: scope.files } as Repositories;
  const makers = new Map<string, number>();
  features.forEach((f, index) => {
    const made = f.repositories(scope, repos, featureDeps);
    for (const name of Object.keys(made)) makers.set(name, index);
    Object.assign(repos, made);
  });
  lazyRepositories = lazyPrototype(makers);
  return repos;
}

/** What the repositories of one request are made from, and the features' repositories made so far, by the feature's index. */
interface LazyState {
  scope: Scope;
  deps: FeatureDeps;
  made: Array<Partial<Repositories> | undefined>;
}

/**
 * The prototype of every later request's repositories: a getter per repository that makes its
 * feature's repositories on first use. A request makes only what its resolvers read (a
 * subscription to a job: the live streams and the jobs, projects and activity they use) rather
 * than every feature's, which matters when thousands of clients subscribe at once. A feature reads
 * the repositories it uses from the same object, so they are made first, as in the eager order;
 * every feature returns the same names each time, so the names learned once hold for all.
 */
let lazyRepositories: object | undefined;

function lazyPrototype(makers: Map<string, number>): object {
  const prototype = {};
  Object.defineProperty(prototype, 'files', {
    enumerable: true,
    get(this: LazyState) {
      return this.scope.files;
    },
  });
  for (const [name, index] of makers) {
    Object.defineProperty(prototype, name, {
      enumerable: true,
      get(this: LazyState & Repositories) {
        let made = this.made[index];
        if (!made) this.made[index] = made = features[index].repositories(this.scope, this, this.deps);
        return Reflect.get(made, name);
      },
    });
  }
  return prototype;
}

/** The repositories the features make, all together; the check below makes the compiler prove it is every one. */
type Built = { files: FilesService } & UnionToIntersection<ReturnType<(typeof features)[number]['repositories']>>;
type UnionToIntersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I : never;
/** Names a repository that resolvers use (Repositories) and no feature makes: a compile error here. */
type Missing = Exclude<keyof Repositories, keyof Built>;
const everyRepositoryIsMade: [Missing] extends [never] ? true : Missing = true;
void everyRepositoryIsMade;

const DEFAULT_FILE_LIMITS: Config['files'] = {
  uploadMaxBytes: 500 * 1024 * 1024,
  uploadUrlTtlSeconds: 900,
  downloadUrlTtlSeconds: 3600,
  downloadUrlMaxTtlSeconds: 3600,
  uploadExpiryHours: 24,
};

let inProcessBus: EventBus | undefined;
/** Tools that build contexts without a server (scripts, tests of repositories) share one in-process bus. */
function fallbackBus(): EventBus {
  inProcessBus ??= createEventBus();
  return inProcessBus;
}

/**
 * Builds a request's context for a verified caller (or null when the request has no token). HTTP
 * calls it per request and WebSocket per operation; the repositories are built on first use.
 */
export function createContext(deps: ContextDeps, principal: Principal | null): Context {
  let build = builders.get(deps);
  if (!build) builders.set(deps, (build = (caller) => createRepositories(deps, caller)));
  let system = systemBuilders.get(deps);
  if (!system) systemBuilders.set(deps, (system = (caller) => systemServices(deps, caller)));
  return new Context(principal, build, deps.leases, system);
}

/** The system services' builder of each ContextDeps (see createContext). */
const systemBuilders = new WeakMap<ContextDeps, (principal: Principal) => SystemServices>();

/**
 * A scope of `tenantId` acting as `actor` outside any request: for the server's own jobs, which
 * write each tenant's entities through the standard write path (a migration's rewrites). One per
 * unit of work, like a request's: its reads are cached.
 */
export function createScope(deps: ContextDeps, tenantId: string, actor: string): Scope {
  return new RequestScope(deps, { userId: actor, tenantId, roles: [Role.EDITOR] });
}

/**
 * What the server's own jobs run with (src/system-jobs/runner.ts, src/migrations): the store, scopes
 * of any tenant, and the job repository of the system partition.
 */
export function systemJobsEnv(deps: ContextDeps): MigrationEnv {
  const systemWorker: Principal = { ...SYSTEM_WORKER, roles: [Role.ADMIN, Role.WORKER] };
  return {
    store: deps.store,
    now: deps.now ?? currentDate,
    scopeOf: (tenantId, actor) => createScope(deps, tenantId, actor),
    systemJobs: () => createRepositories(deps, systemWorker).jobs,
    wake: () => deps.wakeSystemJobs?.(),
  };
}

/** The services an operator reaches through Context.system: the system partition's repositories, as the operator, and the migrations. */
function systemServices(deps: ContextDeps, operator: Principal): SystemServices {
  return {
    repos: createRepositories(deps, {
      userId: operator.userId,
      tenantId: SYSTEM_TENANT,
      roles: [Role.OPERATOR],
      expiresAt: operator.expiresAt,
      operator: true,
    }),
    migrations: new Migrations(systemJobsEnv(deps)),
  };
}

/** The repositories' builder of each ContextDeps, one for all its contexts rather than a closure per context. */
const builders = new WeakMap<ContextDeps, (principal: Principal) => Repositories>();
