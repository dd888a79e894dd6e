import { migration } from './migration';

/**
 * The claimable indexes (a tenant's claimable work, by kind and by stage), which a single step's
 * start and completion write, are write-sharded by job over 8 partitions (src/common/entities.ts,
 * CLAIMABLE_SHARDS). Step attempts and JobWork entries written before are all in shard 0, the
 * partition's key of before, where a claim still finds them (it merges the shards when it knows of
 * no work); re-deriving each one's index attributes moves its entry to its job's shard. In place
 * ('reindex'): a step attempt keeps no version, and a JobWork entry is the job's own derivation.
 */
export const claimableShards = migration({
  id: '005',
  name: 'claimable-shards',
  description: "Spreads the claimable index entries of each job's step attempts and claim entry over the indexes' 8 shards by job.",
  entities: ['Step', 'JobWork'],
  change: 'reindex',
});
