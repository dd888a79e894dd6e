// The studio's pipelines declare themselves (registerJobKind): first, so that jobKinds lists them
// first, before the server's own kinds below.
import './pipelines/pipelines.kinds';
import { activityFeature } from './activity/activity.resolver';
import { archiveFeature } from './archive/archive.resolver';
import { assetFeature } from './asset/asset.resolver';
import { briefFeature } from './brief/brief.resolver';
import { liveFeature } from './events/live.resolver';
import { inspirationFeature } from './inspiration/inspiration.resolver';
import { jobFeature } from './job/job.resolver';
import { scenesFeature } from './pipelines/scenes.resolver';
import { logFeature } from './log/log.resolver';
import { migrationFeature } from './migrations/migration.resolver';
import { nodeFeatureOf } from './node/node.resolver';
import { projectChildFeature } from './project/project-child.feature';
import { entities } from './common/entities';
import { projectFeature } from './project/project.resolver';
import { searchFeature } from './search/search.resolver';
import { tenantFeature } from './tenant/tenant.resolver';
// The server's own job kinds declare themselves from the folders that run them (registerJobKind,
// src/job/job.kinds.ts). They are loaded here, where the API is put together, so that both are
// declared before any request reads the kinds, whichever system jobs this process runs.
import './archive/archive.kind';
import './migrations/migration.kind';

/**
 * The features of the API, in dependency order: a feature's repositories may use those of the
 * features before it (project children use the projects; the live streams use jobs, projects and
 * activity). The schema (src/schema.ts) and each request's repositories (src/wiring.ts) are made
 * from this list; adding an entity adds its line here.
 */
const entityFeatures = [
  tenantFeature,
  projectFeature,
  briefFeature,
  // Project children that need nothing beyond the standard API of their declaration.
  projectChildFeature(entities.Milestone),
  projectChildFeature(entities.Scene),
  logFeature,
  assetFeature,
  inspirationFeature,
  searchFeature,
  activityFeature,
  jobFeature,
  scenesFeature,
  archiveFeature,
  liveFeature,
  migrationFeature,
] as const;

/** Every feature, and last global object identification over all of them (node, nodes, each type's id). */
export const features = [...entityFeatures, nodeFeatureOf(entityFeatures)] as const;
