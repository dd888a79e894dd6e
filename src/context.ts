import DataLoader from 'dataloader';
import { ActivityRepository } from './activity/activity.repository';
import { AssetRepository } from './asset/asset.repository';
import type { Principal } from './auth/principal';
import { BriefRepository } from './brief/brief.repository';
import type { Key } from './common/keys';
import type { Scope } from './common/scope';
import { unauthenticated } from './errors';
import { keyString, type Item, type Store } from './infra/dynamo/store';
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

export interface Context {
  principal: Principal | null;
  /** The caller's repositories; reading it without a verified caller throws UNAUTHENTICATED. */
  readonly repos: Repositories;
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

/** Builds a request's context: the principal plus lazily built, tenant-bound repositories. */
export function createContext(deps: ContextDeps, principal: Principal | null): Context {
  let repos: Repositories | undefined;
  return {
    principal,
    get repos() {
      if (!principal) throw unauthenticated();
      if (!repos) {
        const scope: Scope = {
          tenantId: principal.tenantId,
          actor: principal.userId,
          store: deps.store,
          items: createItemLoader(deps.store, deps.batchLoads ?? true),
          eventRetentionDays: deps.eventRetentionDays,
          now: () => new Date(),
        };
        const projects = new ProjectRepository(scope);
        repos = {
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
      return repos;
    },
  };
}
