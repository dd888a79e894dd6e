import { createRemoteJWKSet, decodeJwt, errors, jwtVerify, SignJWT, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import { unauthenticated } from '../errors';
import { errorCode } from '../guards';
import { isRole, isValidTenantId, OPERATOR_TENANT, POOL_TENANT, Role, type Principal } from './principal';

/** One issuer's key and claims: an HS256 secret, or a JWKS URL with the `iss` and `aud` it must carry. */
export interface IssuerSettings {
  secret?: Uint8Array;
  jwksUrl?: string;
  issuer?: string;
  audience?: string;
}

export interface AuthSettings extends IssuerSettings {
  /**
   * The longest a token may be valid, in seconds from its `iat` (or from now, when it has none or
   * claims a later one); unset: no bound beyond the required `exp`.
   */
  maxTokenLifetimeSeconds?: number;
  /**
   * The operator issuer (AUTH_OPERATOR_SECRET, or AUTH_OPERATOR_JWKS_URL with AUTH_OPERATOR_ISSUER):
   * the only key that makes a token with the role operator valid. Unset: no operator token is
   * accepted. loadConfig refuses one that is the tenants' own (the same secret or JWKS).
   */
  operator?: IssuerSettings;
}

/** The roles claim as a list (a JSON array, or a string of names separated by spaces or commas); null when it is neither. */
function rolesClaim(claims: JWTPayload): unknown[] | null {
  const raw = claims.roles ?? [Role.EDITOR];
  return Array.isArray(raw) ? raw : typeof raw === 'string' ? raw.split(/[ ,]+/) : null;
}

/**
 * True when the token claims to be an operator's: its roles claim names operator. Such a token is
 * verified against the operator issuer only (see TokenVerifier), so the claim alone grants nothing.
 */
function claimsOperator(claims: JWTPayload): boolean {
  return rolesClaim(claims)?.includes(Role.OPERATOR) ?? false;
}

/**
 * Turns verified claims into a principal; throws UNAUTHENTICATED when a claim is missing or
 * malformed. `issuer` says whose key verified them: only the operator issuer's claims may make an
 * operator, and they make nothing else.
 */
export function principalFromClaims(claims: JWTPayload, issuer: 'tenant' | 'operator' = 'tenant'): Principal {
  const tenantId = claims.tenantId ?? claims['custom:tenantId'];
  if (typeof claims.sub !== 'string' || claims.sub === '') throw unauthenticated('The token has no sub claim.');
  if (issuer === 'operator') return operatorPrincipal(claims.sub, claims);
  if (claimsOperator(claims))
    throw unauthenticated(
      "The role operator is only in tokens the operator issuer signs (AUTH_OPERATOR_SECRET or AUTH_OPERATOR_JWKS_URL), never a tenant's.",
    );
  if (claims.pool !== undefined) return poolPrincipal(claims.sub, claims);
  if (!isValidTenantId(tenantId)) {
    throw unauthenticated('The token has no valid tenantId claim (letters, digits, _ and -, at most 64).');
  }
  const list = rolesClaim(claims);
  const roles = list?.filter(isRole) ?? [];
  if (!list || list.length === 0 || roles.length !== list.length) {
    throw unauthenticated(`The token's roles claim must list some of ${Object.values(Role).join(', ')}.`);
  }
  if (roles.includes(Role.POOL))
    throw unauthenticated("The role pool belongs to a pool worker's token, which names no tenant (claim pool).");
  return { userId: claims.sub, tenantId, roles: [...new Set(roles)], expiresAt: claims.exp };
}

/**
 * An operator's principal: the roles claim is exactly `["operator"]`, and the token names no tenant
 * (an operator names the tenants it acts on as the operator fields' arguments) and no pool.
 */
function operatorPrincipal(sub: string, claims: JWTPayload): Principal {
  // Exactly one role, operator: the list joined is that one name.
  if (rolesClaim(claims)?.join(',') !== Role.OPERATOR)
    throw unauthenticated('An operator\'s token has the roles claim ["operator"] and nothing else.');
  if (claims.tenantId !== undefined || claims['custom:tenantId'] !== undefined || claims.pool !== undefined)
    throw unauthenticated("An operator's token names no tenant and no pool: the operator fields take the tenant as an argument.");
  return { userId: sub, tenantId: OPERATOR_TENANT, roles: [Role.OPERATOR], expiresAt: claims.exp, operator: true };
}

const KIND_OR_STAGE = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$/;

/**
 * A pool worker's principal: claim `pool` is `{ kinds: [...], stages?: [...] }` (the job kinds and
 * stages it serves), the roles claim is exactly `["pool"]`, and the token names no tenant.
 */
function poolPrincipal(sub: string, claims: JWTPayload): Principal {
  const pool = claims.pool;
  const list = (value: unknown) =>
    Array.isArray(value) && value.length > 0 && value.length <= 50 && value.every((v) => typeof v === 'string' && KIND_OR_STAGE.test(v))
      ? value.filter((v): v is string => typeof v === 'string')
      : null;
  const kinds = typeof pool === 'object' && pool !== null && 'kinds' in pool ? list(pool.kinds) : null;
  const stages = typeof pool === 'object' && pool !== null && 'stages' in pool ? list(pool.stages) : undefined;
  if (!kinds || stages === null) throw unauthenticated("The token's pool claim must be { kinds: [kind, …], stages?: [stage, …] }.");
  const roles = claims.roles;
  if (!Array.isArray(roles) || roles.length !== 1 || roles[0] !== Role.POOL)
    throw unauthenticated('A pool worker\'s token has the roles claim ["pool"] and nothing else.');
  if (claims.tenantId !== undefined || claims['custom:tenantId'] !== undefined)
    throw unauthenticated("A pool worker's token names no tenant: it reaches a tenant only through the leases it is handed.");
  return { userId: sub, tenantId: POOL_TENANT, roles: [Role.POOL], expiresAt: claims.exp, pool: { kinds, ...(stages ? { stages } : {}) } };
}

/** Says why jose refused a token, without echoing the token. */
function rejectionReason(code: string | undefined): string {
  switch (code) {
    case 'ERR_JWT_EXPIRED':
      return 'The token has expired.';
    case 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED':
      return 'The token is not valid: its signature does not match (was it signed with another secret?).';
    case 'ERR_JWT_CLAIM_VALIDATION_FAILED':
      return 'The token is not valid: a claim (iss, aud or nbf) does not match.';
    case 'ERR_JOSE_ALG_NOT_ALLOWED':
      return 'The token is not valid: its signing algorithm is not accepted.';
    case 'ERR_JWKS_NO_MATCHING_KEY':
      return 'The token is not valid: no key of the JWKS matches it.';
    default:
      return 'The token is not valid: it is not a well-formed signed JWT.';
  }
}

/** How long a verified token is served from the cache at most (see TokenVerifier). */
export const VERIFIED_TOKEN_TTL_MS = 60_000;
/** How many verified tokens the cache holds at most; past that, the oldest entry goes. */
export const VERIFIED_TOKEN_CACHE_SIZE = 5_000;

/** The key an issuer's tokens are checked with; throws when the settings give none. */
function keyOf(settings: IssuerSettings, names: string): Uint8Array | JWTVerifyGetKey {
  if (settings.jwksUrl) return createRemoteJWKSet(new URL(settings.jwksUrl));
  if (settings.secret) return settings.secret;
  throw new Error(`Authentication needs ${names}.`);
}

/**
 * Verifies bearer tokens: HS256 with a shared secret, or RS/ES signatures from a JWKS URL with the
 * configured issuer and audience. `verify` throws UNAUTHENTICATED for any token it does not accept.
 *
 * Two issuers, two keys. The tenants' issuer (AUTH_JWT_SECRET or AUTH_JWKS_URL) signs the tokens
 * of a tenant's users, admins included; the operator issuer (AUTH_OPERATOR_SECRET or
 * AUTH_OPERATOR_JWKS_URL) signs the platform operators'. A token whose roles claim names operator
 * is checked against the operator key and issuer alone, and every other token against the
 * tenants' alone. So a tenant's identity provider, which may put any claim it likes in a token,
 * still cannot make an operator: its key does not verify as the operator's. A separate key rather
 * than a claim a tenant's issuer could set is the point: a studio runs its own users (and may be
 * compromised) while the platform's operators sit in an identity provider of their own (in AWS a
 * second Cognito user pool, with its own JWKS and issuer).
 *
 * A client sends the same token with every request until it expires, and checking its signature
 * was a measurable share of a cheap request's CPU. So a token that passed is remembered, by its
 * exact text, for at most VERIFIED_TOKEN_TTL_MS and never past its `exp`. That is sound because
 * every other check gives the same answer for the same text later: the signature and the issuer
 * and audience do not change, `nbf` and the lifetime bound (measured from `iat`, or from now,
 * which only shortens what is left) cannot turn a passed token into a refused one, and `exp` is
 * honoured by the entry's end. Only a key removed from the JWKS could, and jose's JWKS cache
 * already keeps a fetched key for minutes. Refused tokens are not remembered, so garbage cannot
 * fill the cache, which is bounded (VERIFIED_TOKEN_CACHE_SIZE) and holds only tokens this server
 * accepted.
 */
export class TokenVerifier {
  private readonly key: Uint8Array | JWTVerifyGetKey;
  private readonly operatorKey?: Uint8Array | JWTVerifyGetKey;
  private readonly verified = new Map<string, { principal: Principal; until: number }>();

  /** `clock` (epoch ms) exists for tests of expiry; jose is given the same time. */
  constructor(
    private readonly settings: AuthSettings,
    private readonly clock: () => number = Date.now,
  ) {
    this.key = keyOf(settings, 'AUTH_JWKS_URL or AUTH_JWT_SECRET');
    if (settings.operator) this.operatorKey = keyOf(settings.operator, 'AUTH_OPERATOR_JWKS_URL or AUTH_OPERATOR_SECRET');
  }

  /** How many verified tokens are remembered now (tests read it). */
  get cachedTokens(): number {
    return this.verified.size;
  }

  async verify(token: string): Promise<Principal> {
    const now = this.clock();
    const hit = this.verified.get(token);
    if (hit && hit.until > now) return hit.principal;
    if (hit) this.verified.delete(token);
    const principal = await this.verifyUncached(token, now);
    // Requests with the same token get this one object: frozen, so that none can change another's.
    Object.freeze(principal.roles);
    Object.freeze(principal);
    // jose refuses a token once the current second reaches `exp`, so it is good until exp × 1000.
    const until = Math.min(now + VERIFIED_TOKEN_TTL_MS, (principal.expiresAt ?? 0) * 1000);
    if (until > now) {
      if (this.verified.size >= VERIFIED_TOKEN_CACHE_SIZE) this.verified.delete(this.verified.keys().next().value!);
      this.verified.set(token, { principal, until });
    }
    return principal;
  }

  private async verifyUncached(token: string, now: number): Promise<Principal> {
    let claimed: JWTPayload;
    try {
      // Unverified: it only chooses the key that must verify the token (see the class comment).
      claimed = decodeJwt(token);
    } catch {
      throw unauthenticated(rejectionReason(undefined));
    }
    const operator = claimsOperator(claimed);
    const issuer: IssuerSettings | undefined = operator ? this.settings.operator : this.settings;
    const key = operator ? this.operatorKey : this.key;
    if (!issuer || !key)
      throw unauthenticated(
        'The token claims the role operator, but this server has no operator issuer (AUTH_OPERATOR_SECRET or AUTH_OPERATOR_JWKS_URL), so it accepts no operator token.',
      );
    let payload: JWTPayload;
    try {
      const options = {
        issuer: issuer.issuer,
        audience: issuer.audience,
        algorithms: issuer.jwksUrl ? ['RS256', 'ES256', 'PS256', 'EdDSA'] : ['HS256'],
        // A token that never expires cannot be taken back once leaked: `exp` is required.
        requiredClaims: ['exp'],
        currentDate: new Date(now),
      };
      payload = key instanceof Uint8Array ? (await jwtVerify(token, key, options)).payload : (await jwtVerify(token, key, options)).payload;
    } catch (error) {
      if (error instanceof errors.JWTClaimValidationFailed && error.claim === 'exp' && error.reason === 'missing') {
        throw unauthenticated('The token has no exp claim; tokens must expire.');
      }
      const reason = rejectionReason(errorCode(error));
      throw unauthenticated(
        operator ? `The token claims the role operator, which only the operator issuer's tokens carry. ${reason}` : reason,
      );
    }
    const max = this.settings.maxTokenLifetimeSeconds;
    if (max !== undefined && typeof payload.exp === 'number') {
      const seconds = Math.floor(now / 1000);
      const from = typeof payload.iat === 'number' ? Math.min(payload.iat, seconds) : seconds;
      if (payload.exp - from > max) {
        throw unauthenticated(`The token is valid for longer than the ${max} s this server accepts (AUTH_MAX_TOKEN_LIFETIME_SECONDS).`);
      }
    }
    return principalFromClaims(payload, operator ? 'operator' : 'tenant');
  }

  /** Reads `Authorization: Bearer <jwt>`; null when the header is absent, UNAUTHENTICATED when malformed. */
  async fromHeader(header: string | undefined): Promise<Principal | null> {
    if (!header) return null;
    const match = /^Bearer\s+(\S+)$/i.exec(header.trim());
    // `curl -H "authorization: Bearer $TOKEN"` with TOKEN empty, because the command that should
    // have set it failed, is how a newcomer most often gets here: the header has its shape, but no token.
    if (!match && /^Bearer$/i.test(header.trim())) {
      throw unauthenticated(
        'The Authorization header says "Bearer" but no token follows it: was the variable meant to hold the token empty?',
      );
    }
    if (!match) throw unauthenticated('The Authorization header must be "Bearer <token>".');
    return this.verify(match[1]);
  }
}

/** How long a development token lasts unless the caller says otherwise: 30 days. */
const DEV_TOKEN_SECONDS = 30 * 24 * 3600;

/**
 * Signs a development token (HS256). Used by `npm run token`, the start banner and tests. An
 * operator's (`{ sub, operator: true }`: roles ["operator"], no tenant) is valid only when `secret`
 * is the operator issuer's (AUTH_OPERATOR_SECRET, or the data folder's dev-operator-secret).
 */
export async function signDevToken(
  secret: Uint8Array,
  claims:
    | { sub: string; tenantId: string; roles?: Role[] }
    | { sub: string; pool: { kinds: string[]; stages?: string[] } }
    | { sub: string; operator: true },
  options: { expiresIn?: string | number; issuer?: string; audience?: string } = {},
): Promise<string> {
  const body =
    'operator' in claims
      ? { roles: [Role.OPERATOR] }
      : 'pool' in claims
        ? { pool: claims.pool, roles: [Role.POOL] }
        : { tenantId: claims.tenantId, roles: claims.roles ?? [Role.EDITOR] };
  // One reading of the clock for both claims: jose reads it again for a relative expiry, and a
  // second boundary between the two readings made a 30-day token one second too long for a server
  // that accepts 30 days (AUTH_MAX_TOKEN_LIFETIME_SECONDS).
  const issuedAt = Math.floor(Date.now() / 1000);
  let jwt = new SignJWT(body)
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(claims.sub)
    .setIssuedAt(issuedAt)
    .setExpirationTime(options.expiresIn ?? issuedAt + DEV_TOKEN_SECONDS);
  if (options.issuer) jwt = jwt.setIssuer(options.issuer);
  if (options.audience) jwt = jwt.setAudience(options.audience);
  return jwt.sign(secret);
}
