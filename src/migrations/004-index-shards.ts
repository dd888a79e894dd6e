import { migration } from './migration';

/**
 * The job item's tenant-wide list indexes (a tenant's jobs by status and by creator), which every
 * change of a job writes, are write-sharded by job over 16 partitions (src/common/entities.ts,
 * JOB_SHARDS). Jobs written before are all in shard 0, the partition's key of before, where every
 * read still finds them (a read merges the 16 shards); re-deriving each one's index attributes
 * moves its entries to its job's shard, so the writes of a tenant's old jobs spread too. In place
 * ('reindex'): a job's version is its event stream's position, so it does not go through the
 * standard write path's new version.
 */
export const indexShards = migration({
  id: '004',
  name: 'index-shards',
  description: "Spreads each job's entries in the tenant's job lists (by status, by creator) over the lists' 16 shards by job.",
  entities: ['Job'],
  change: 'reindex',
});
