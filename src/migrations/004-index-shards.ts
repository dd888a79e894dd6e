import { migration } from './migration';

/**
 * The tenant-wide indexes every change of a job writes (a tenant's jobs by status and by creator,
 * its claimable work by kind and stage, the pools') are write-sharded by job over 16 partitions
 * (src/common/entities.ts, JOB_SHARDS). Items written before are all in shard 0, the partition's
 * key of before, where every read still finds them (a read merges the 16 shards); re-deriving
 * each one's index attributes moves its entries to its job's shard, so the writes of a tenant's old
 * jobs spread too. In place ('reindex'): a job's version is its event stream's position, and a
 * step attempt keeps none, so neither goes through the standard write path's new version.
 */
export const indexShards = migration({
  id: '004',
  name: 'index-shards',
  description: "Spreads the index entries of each job, its step attempts and its claim entry over the indexes' 16 shards by job.",
  entities: ['Job', 'Step', 'JobWork'],
  change: 'reindex',
});
