/**
 * A log's attributes as a log was written before logs were searchable (no word items, no search
 * slots): what the migration tests seed for the search backfill (migration 001) to find. `at` is
 * its creation time.
 */
export function legacyLog(ref: { projectId: string; logId: string }, at: string, rawText = 'old sketch') {
  return {
    ...ref,
    rawText,
    mediaRefs: [],
    materials: [],
    tags: [],
    attributionStatus: 'pending' as const,
    version: 1,
    createdAt: at,
    updatedAt: at,
    createdBy: 'legacy',
  };
}
