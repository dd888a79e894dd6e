import type { GraphQLResolveInfo } from 'graphql';
import type { AuthChecker } from 'type-graphql';
import { forbidden, unauthenticated } from '../errors';
import { type Principal, Role, TENANT_ROLES } from './principal';

/** What the check reads of a request's context (src/context.ts): the caller alone, so auth needs no more of it. */
interface AuthContext {
  principal: Principal | null;
}

/** True for a field with a `system` argument (job, jobsByStatus, jobProgress, jobStatusChanges): it reads the server's own jobs with system: true. */
function takesSystem(info: GraphQLResolveInfo): boolean {
  return info.parentType.getFields()[info.fieldName]?.args.some((arg) => arg.name === 'system') ?? false;
}

/**
 * Guards every `@Authorized` field. With no roles listed, any tenant's caller passes; with roles,
 * the caller needs one of them, and a tenant's admin passes every field that names a tenant role
 * (its own tenant's fields). A pool worker reaches only the fields that name the role pool, and an
 * operator only those that name the role operator (and, with system: true, the server's own
 * jobs): neither belongs to a tenant, and a tenant's
 * admin reaches neither's fields. It throws rather than returning false so that the error carries
 * our codes: UNAUTHENTICATED or FORBIDDEN.
 */
export const authChecker: AuthChecker<AuthContext, Role> = ({ context, info }, roles) => {
  const principal = context.principal;
  if (!principal) throw unauthenticated();
  const field = `${info.parentType.name}.${info.fieldName}`;
  // A pool worker reaches only the fields that name its role (claiming, and reporting under a lease).
  if (principal.pool && !roles.includes(Role.POOL))
    throw forbidden(`${field} is not open to a pool worker; it claims work and reports on it with its leases.`);
  // An operator names the tenants it acts on as arguments of its own fields; a tenant's field has
  // no tenant to act on. The fields that take `system` read the server's own jobs for it (with
  // system: true; without it Context.repos refuses an operator).
  if (principal.operator && !roles.includes(Role.OPERATOR) && !takesSystem(info))
    throw forbidden(`${field} is a tenant's field, not open to an operator; an operator's token reaches only the operator fields.`);
  if (roles.length === 0) return true;
  if (roles.some((role) => principal.roles.includes(role))) return true;
  const tenantField = roles.some((role) => TENANT_ROLES.includes(role));
  if (tenantField && principal.roles.includes(Role.ADMIN)) return true;
  const needed = [...new Set(tenantField ? [...roles, Role.ADMIN] : roles)];
  throw forbidden(`${field} needs the role ${needed.join(' or ')}; the token has ${principal.roles.join(', ')}.`);
};
