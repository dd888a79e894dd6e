/**
 * The object tag that marks an asset version as archived. The deploy template's lifecycle rule
 * moves objects carrying it to an archival storage class, so the server (which sets the tag) and
 * the bucket (which acts on it) read the same constant instead of two spellings of it.
 */
export const ARCHIVED_TAG = { key: 'artissist:archived', value: 'true' } as const;

/**
 * The key prefix of cold storage: finished jobs and archived projects, exported as gzip JSON Lines
 * (src/archive). The deploy template's lifecycle rule moves everything under it to a colder
 * storage class; each object's key then goes on with the tenant's own prefix (`tenants/<t>/…`).
 */
export const ARCHIVE_PREFIX = 'archive/';
