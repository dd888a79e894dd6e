import type { AuthChecker } from 'type-graphql';
import { forbidden, unauthenticated } from '../errors';
import { type Principal, Role } from './principal';

/** What the check reads of a request's context (src/context.ts): the caller alone, so auth needs no more of it. */
interface AuthContext {
  principal: Principal | null;
}

/**
 * Guards every `@Authorized` field. With no roles listed, any authenticated caller passes; with
 * roles, the caller needs one of them, and admin passes everywhere. It throws rather than
 * returning false so that the error carries our codes: UNAUTHENTICATED or FORBIDDEN.
 */
export const authChecker: AuthChecker<AuthContext, Role> = ({ context, info }, roles) => {
  const principal = context.principal;
  if (!principal) throw unauthenticated();
  // A pool worker reaches only the fields that name its role (claiming, and reporting under a lease).
  if (principal.pool && !roles.includes(Role.POOL))
    throw forbidden(
      `${info.parentType.name}.${info.fieldName} is not open to a pool worker; it claims work and reports on it with its leases.`,
    );
  if (roles.length === 0 || principal.roles.includes(Role.ADMIN)) return true;
  if (roles.some((role) => principal.roles.includes(role))) return true;
  throw forbidden(
    `${info.parentType.name}.${info.fieldName} needs the role ${[...roles, Role.ADMIN].join(' or ')}; the token has ${principal.roles.join(', ')}.`,
  );
};
