import DataLoader from 'dataloader';
import { ActivityRepository } from './activity/activity.repository';
import { AssetRepository } from './asset/asset.repository';
import type { Principal } from './auth/principal';
import { BriefRepository } from './brief/brief.repository';
import type { Key } from './common/keys';
import type { Scope } from './common/scope';
import { unauthenticated } from './errors';
import { keyString, type Item, type Page, type PageRequest, type QuerySpec, type Store } from './infra/dynamo/store';
import { InspirationRepository } from './inspiration/inspiration.repository';
import { LogRepository } from './log/log.repository';
import { MilestoneRepository } from './milestone/milestone.repository';
import { ProjectRepository } from './project/project.repository';
import { TenantRepository } from './tenant/tenant.repository';

export interface Repositories {
  tenant: TenantRepository;
  projects: ProjectRepository;
  briefs: BriefRepository;
  milestones: MilestoneRepository;
  logs: LogRepository;
  assets: AssetRepository;
  inspirations: InspirationRepository;
  activity: ActivityRepository;
}

export interface ContextDeps {
  store: Store;
  eventRetentionDays: number;
  /**
   * When false, loaders read one item per call and cache nothing. That exists only to measure
   * what batching saves (tests and benchmarks); the server always batches.
   */
  batchLoads?: boolean;
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
}

/** The request's page loader (see Scope.page); it caches a page for the request, like items. */
export function createPageLoader(store: Store, tenantId: string, batch = true): DataLoader<PageKey, Page<Item>, string> {
  return new DataLoader(
    (keys) => Promise.all(keys.map(({ spec, request }) => store.queryPage(tenantId, spec, request))),
    { cacheKeyFn: ({ spec, request }) => JSON.stringify([spec, request.first ?? null, request.after ?? null]), batch, cache: batch },
  );
}

/**
 * A request's context: the verified caller and, built on first use, repositories bound to the
 * caller's tenant. It is a class because Apollo copies the context's own properties for each
 * operation; the `repos` getter lives on the prototype, so copying never triggers it.
 */
export class Context {
  private built?: Repositories;

  constructor(
    readonly principal: Principal | null,
    private readonly deps: ContextDeps,
  ) {}

  /** The caller's repositories; reading it without a verified caller throws UNAUTHENTICATED. */
  get repos(): Repositories {
    if (!this.principal) throw unauthenticated();
    this.built ??= createRepositories(this.deps, this.principal);
    return this.built;
  }
}

function createRepositories(deps: ContextDeps, principal: Principal): Repositories {
  const batch = deps.batchLoads ?? true;
  const pages = createPageLoader(deps.store, principal.tenantId, batch);
  const scope: Scope = {
    tenantId: principal.tenantId,
    actor: principal.userId,
    store: deps.store,
    items: createItemLoader(deps.store, batch),
    page: (spec, request = {}) => pages.load({ spec, request }),
    eventRetentionDays: deps.eventRetentionDays,
    now: () => new Date(),
  };
  const projects = new ProjectRepository(scope);
  return {
    tenant: new TenantRepository(scope),
    projects,
    briefs: new BriefRepository(scope, projects),
    milestones: new MilestoneRepository(scope, projects),
    logs: new LogRepository(scope, projects),
    assets: new AssetRepository(scope, projects),
    inspirations: new InspirationRepository(scope, projects),
    activity: new ActivityRepository(scope),
  };
}

/** Builds a request's context for a verified caller (or null when the request has no token). */
export function createContext(deps: ContextDeps, principal: Principal | null): Context {
  return new Context(principal, deps);
}
