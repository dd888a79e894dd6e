/**
 * The object tag that marks an asset version as archived. The deploy template's lifecycle rule
 * moves objects carrying it to an archival storage class, so the server (which sets the tag) and
 * the bucket (which acts on it) read the same constant instead of two spellings of it.
 */
export const ARCHIVED_TAG = { key: 'artissist:archived', value: 'true' } as const;
