import { migration } from './migration';

/**
 * The operators' cross-tenant lists in GSI3 (jobs and projects by status, dead letters, the jobs
 * waiting to be settled) are spread over 16 shards instead of 4 (src/common/entities.ts,
 * OPS_SHARDS), so that the whole table's status changes pass 2,000 a second. Entries written
 * before sit in shards 0 to 3, which every read still merges with the others, so nothing goes
 * missing meanwhile; re-deriving each item's index attributes moves its entries to its shard of
 * 16, so the writes of old jobs and projects spread too. In place ('reindex'): a job's version is
 * its event stream's position, so it does not go through the standard write path's new version.
 */
export const opsShards = migration({
  id: '005',
  name: 'ops-shards',
  description: "Spreads the operators' cross-tenant lists (jobs, projects, dead letters, jobs to settle) over 16 shards instead of 4.",
  entities: ['Job', 'Project', 'WorkItem', 'JobSettle'],
  change: 'reindex',
});
