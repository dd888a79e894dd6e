import { registerEnumType } from 'type-graphql';
import { enumObject } from '../infra/dynamo/entity';

/** What a caller may do, as a token's roles claim names it. */
export const Role = enumObject(['viewer', 'editor', 'worker', 'admin', 'pool']);
export type Role = (typeof Role)[keyof typeof Role];
registerEnumType(Role, {
  name: 'Role',
  description: 'What a caller may do: viewer reads, editor writes, worker reports job progress, admin does everything.',
  valuesConfig: {
    VIEWER: { description: 'Reads the tenant’s data.' },
    EDITOR: { description: 'Reads and writes the tenant’s data, and reviews jobs.' },
    WORKER: { description: 'Claims pipeline work and reports its progress.' },
    ADMIN: { description: 'May do everything, across tenants too.' },
    POOL: {
      description:
        'A shared worker pool bound to no tenant: claims work of its job kinds across tenants (claimWork), and reports on it with the lease each claim hands out; it can read nothing else.',
    },
  },
});

/** True when `value` is one of the Role values (as a token's roles claim or a script's argument spells them). */
export function isRole(value: unknown): value is Role {
  return Object.values(Role).some((role) => role === value);
}

/** The verified caller of a request: always from a verified token, never from an argument. */
export interface Principal {
  userId: string;
  /** The caller's tenant; for a pool worker, POOL_TENANT (no tenant's keys begin with it). */
  tenantId: string;
  roles: Role[];
  /** Token expiry, epoch seconds. */
  expiresAt?: number;
  /** A pool worker (role pool, no tenant): the job kinds (and optionally stages) it may claim. */
  pool?: { kinds: string[]; stages?: string[] };
}

/**
 * The tenant id a pool worker's principal carries: not a valid tenant id (tenant ids have no `!`),
 * so no key it could make names a tenant's data; a pool worker reaches a tenant only through a lease.
 */
export const POOL_TENANT = '!pool';

/**
 * The partition that holds the server's own jobs (migrations, backfills, archiving), which belong
 * to no tenant: not a valid tenant id (tenant ids have no `!`), so no token can name it and no
 * tenant's request can reach it; only admins read these jobs, through admin fields.
 */
export const SYSTEM_TENANT = '!system';
