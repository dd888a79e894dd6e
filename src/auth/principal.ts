import { registerEnumType } from 'type-graphql';
import { attr, enumObject, type ShapeValues } from '../infra/dynamo/entity';

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

/**
 * Who the caller is, as the verified token says, declared once: the start of Principal here, and
 * the API's Viewer (src/tenant/tenant.type.ts). For a pool worker the tenant is POOL_TENANT (no
 * tenant's keys begin with it).
 */
export const VIEWER = {
  name: 'Viewer',
  description: 'The caller, as the verified token says.',
  fields: {
    userId: attr.id({ required: true, description: "The token's subject." }),
    tenantId: attr.id({ required: true, description: "The token's tenant: every read and write is in it." }),
    roles: attr.json<Role[]>()({ required: true, apiType: '[Role]', description: "The token's roles." }),
  },
} as const;

/** The verified caller of a request: always from a verified token, never from an argument. */
export interface Principal extends ShapeValues<typeof VIEWER> {
  /** Token expiry, epoch seconds. */
  expiresAt?: number;
  /** A pool worker (role pool, no tenant): the job kinds (and optionally stages) it may claim. */
  pool?: { kinds: string[]; stages?: string[] };
}

const TENANT_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

/** True when a tenant id from a token can be used in keys: letters, digits, `_` and `-`, at most 64. */
export function isValidTenantId(value: unknown): value is string {
  return typeof value === 'string' && TENANT_ID.test(value);
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
