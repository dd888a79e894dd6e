import { migration } from './migration';

/**
 * The usage recount (docs/operations.md, Quotas): items written before the plan's quotas were kept
 * have counted nothing against them, so a tenant's usage counter misses them. Re-deriving each
 * such item records what it uses (QUOTA_COUNTED_ATTRIBUTE) and adds that to the tenant's counter
 * in the item's own transaction, so the counter is exact however many users write meanwhile. An
 * item already counted (every item written since, or rewritten by 001) is left alone. Usage it
 * already had is never refused: a tenant found over its plan stays over it until it frees some.
 */
export const usageRecount = migration({
  id: '002',
  name: 'usage-recount',
  description: 'Counts projects, stored bytes and running jobs written before the plan quotas were kept into each tenant’s usage.',
  entities: ['Project', 'Asset', 'Inspiration', 'Job'],
});
