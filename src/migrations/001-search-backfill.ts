import { migration } from './migration';

/**
 * The search backfill (docs/search.md): entities written before their entity declared its
 * searchable fields have no word items, so search cannot find them. Re-deriving each one writes
 * its word items and search slots (and any index attribute that changed since) through the
 * standard write path, in the entity's own transaction.
 */
export const searchBackfill = migration({
  id: '001',
  name: 'search-backfill',
  description: 'Writes the word items of projects, logs, assets and inspiration written before they were searchable.',
  entities: ['Project', 'Log', 'Asset', 'Inspiration'],
});
