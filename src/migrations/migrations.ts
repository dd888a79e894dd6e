import { searchBackfill } from './001-search-backfill';
import { usageRecount } from './002-usage-recount';
import { claimOrder } from './003-claim-order';
import { indexShards } from './004-index-shards';
import { opsShards } from './005-ops-shards';
import type { MigrationDeclaration } from './migration';

/**
 * Every migration of the table, in number order. A new one is appended here (never inserted or
 * renumbered: a migration that ran is known by its id).
 */
export const MIGRATIONS: readonly MigrationDeclaration[] = [searchBackfill, usageRecount, claimOrder, indexShards, opsShards];

/** The migration with this id, or undefined. */
export const migrationById = (id: string): MigrationDeclaration | undefined => MIGRATIONS.find((m) => m.id === id);
