import { registerEnumType } from 'type-graphql';
import { attr, enumObject, type ShapeValues } from '../infra/dynamo/entity';

/** What a caller may do, as a token's roles claim names it. */
export const Role = enumObject(['viewer', 'editor', 'worker', 'admin', 'pool', 'operator']);
export type Role = (typeof Role)[keyof typeof Role];
registerEnumType(Role, {
  name: 'Role',
  description:
    'What a caller may do: viewer reads, editor writes, worker reports job progress, admin does all of these in its own tenant; a pool works for many tenants through leases, and an operator runs the platform across tenants.',
  valuesConfig: {
    VIEWER: { description: 'Reads the tenant’s data.' },
    EDITOR: { description: 'Reads and writes the tenant’s data, and reviews jobs.' },
    WORKER: { description: 'Claims pipeline work and reports its progress.' },
    ADMIN: {
      description:
        'The tenant’s administrator: everything a viewer, editor and worker may do, and its own tenant’s usage (tenantUsage); nothing of another tenant’s, and none of the operator’s fields.',
    },
    OPERATOR: {
      description:
        'The platform’s operator, bound to no tenant: plans (setTenantPlan), pool shares (setPoolShare), any tenant’s usage, the *AcrossTenants lists, migrations, the drift check, archive runs and the server’s own jobs, and nothing else. Its token is signed by the operator issuer (AUTH_OPERATOR_SECRET or AUTH_OPERATOR_JWKS_URL), never by a tenant’s.',
    },
    POOL: {
      description:
        'A shared worker pool bound to no tenant: claims work of its job kinds across tenants (claimWork), and reports on it with the lease each claim hands out; it can read nothing else.',
    },
  },
});

/**
 * The roles of a tenant's own token. A field that names one of them is a tenant's field, which a
 * tenant's admin reaches too; a field that names only POOL or OPERATOR is not, whatever the admin.
 */
export const TENANT_ROLES: readonly Role[] = [Role.VIEWER, Role.EDITOR, Role.WORKER, Role.ADMIN];

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
  /**
   * The platform's operator (role operator, no tenant): true only for a token the operator issuer
   * signed (see TokenVerifier), so no tenant's issuer can make one.
   */
  operator?: true;
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
 * The tenant id an operator's principal carries: not a valid tenant id either, so the operator
 * reaches no tenant's data through the tenant's fields; it names tenants only as the operator
 * fields' arguments, and reads the server's own jobs through Context.system.
 */
export const OPERATOR_TENANT = '!operator';

/**
 * The partition that holds the server's own jobs (migrations, backfills, archiving), which belong
 * to no tenant: not a valid tenant id (tenant ids have no `!`), so no token can name it and no
 * tenant's request can reach it; only operators read these jobs, through operator fields.
 */
export const SYSTEM_TENANT = '!system';
