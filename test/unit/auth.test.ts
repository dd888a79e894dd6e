import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SignJWT } from 'jose';
import { signDevToken, TokenVerifier, VERIFIED_TOKEN_CACHE_SIZE, VERIFIED_TOKEN_TTL_MS } from '../../src/auth/jwt';
import { OPERATOR_TENANT, Role } from '../../src/auth/principal';
import { loadConfig } from '../../src/config';

const secret = new TextEncoder().encode('unit-secret-unit-secret-unit-secret');
const verifier = new TokenVerifier({ secret });

const sign = (claims: Record<string, unknown>, key = secret, exp: string | number = '1h') =>
  new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setSubject('u1').setExpirationTime(exp).sign(key);

describe('TokenVerifier', () => {
  it('reads tenant and roles, defaulting roles to editor', async () => {
    await expect(verifier.verify(await sign({ tenantId: 'acme' }))).resolves.toMatchObject({
      userId: 'u1',
      tenantId: 'acme',
      roles: [Role.EDITOR],
    });
    await expect(verifier.verify(await sign({ tenantId: 'acme', roles: ['viewer', 'worker'] }))).resolves.toMatchObject({
      roles: [Role.VIEWER, Role.WORKER],
    });
  });

  it('accepts the Cognito-style custom:tenantId claim', async () => {
    await expect(verifier.verify(await sign({ 'custom:tenantId': 'studio-9' }))).resolves.toMatchObject({ tenantId: 'studio-9' });
  });

  it.each([
    ['no tenant', { roles: ['editor'] }],
    ['a tenant with a key separator', { tenantId: 'a#b' }],
    ['an unknown role', { tenantId: 'acme', roles: ['root'] }],
    ['empty roles', { tenantId: 'acme', roles: [] }],
  ])('refuses a token with %s as UNAUTHENTICATED', async (_name, claims) => {
    await expect(verifier.verify(await sign(claims))).rejects.toMatchObject({ extensions: { code: 'UNAUTHENTICATED' } });
  });

  it('refuses expired tokens, other keys, and other algorithms', async () => {
    await expect(verifier.verify(await sign({ tenantId: 'acme' }, secret, Math.floor(Date.now() / 1000) - 10))).rejects.toThrow(
      'The token has expired.',
    );
    await expect(
      verifier.verify(await sign({ tenantId: 'acme' }, new TextEncoder().encode('another-secret-another-secret-xx'))),
    ).rejects.toMatchObject({
      extensions: { code: 'UNAUTHENTICATED' },
    });
    const none = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from('{"sub":"u","tenantId":"acme"}').toString('base64url')}.`;
    await expect(verifier.verify(none)).rejects.toMatchObject({ extensions: { code: 'UNAUTHENTICATED' } });
  });

  it('reads Bearer headers: absent is anonymous, malformed is UNAUTHENTICATED', async () => {
    await expect(verifier.fromHeader(undefined)).resolves.toBeNull();
    await expect(verifier.fromHeader('Basic abc')).rejects.toMatchObject({ extensions: { code: 'UNAUTHENTICATED' } });
    // `-H "authorization: Bearer $TOKEN"` with TOKEN empty (its command failed) sends "Bearer " alone:
    // told so, rather than told the header's shape, which it has.
    for (const empty of ['Bearer ', 'Bearer', 'bearer  ']) {
      await expect(verifier.fromHeader(empty)).rejects.toMatchObject({
        message: 'The Authorization header says "Bearer" but no token follows it: was the variable meant to hold the token empty?',
        extensions: { code: 'UNAUTHENTICATED' },
      });
    }
    const token = await signDevToken(secret, { sub: 'u', tenantId: 'acme', roles: [Role.ADMIN] });
    await expect(verifier.fromHeader(`Bearer ${token}`)).resolves.toMatchObject({ roles: [Role.ADMIN] });
  });
});

describe('TokenVerifier and the operator issuer', () => {
  const operatorSecret = new TextEncoder().encode('unit-operator-secret-unit-operator');
  const both = new TokenVerifier({ secret, operator: { secret: operatorSecret } });

  it('makes an operator of a token the operator issuer signed: role operator, bound to no tenant', async () => {
    await expect(both.verify(await sign({ roles: ['operator'] }, operatorSecret))).resolves.toEqual(
      expect.objectContaining({ userId: 'u1', tenantId: OPERATOR_TENANT, roles: [Role.OPERATOR], operator: true }),
    );
    await expect(both.verify(await signDevToken(operatorSecret, { sub: 'ops', operator: true }))).resolves.toMatchObject({
      operator: true,
    });
  });

  it.each([
    ['the role operator alone', { roles: ['operator'] }],
    ['operator beside a tenant admin', { tenantId: 'acme', roles: ['admin', 'operator'] }],
    ['operator as a string of roles', { tenantId: 'acme', roles: 'admin operator' }],
  ])("refuses a tenants' issuer's token claiming %s, whatever else it claims", async (_name, claims) => {
    await expect(both.verify(await sign(claims))).rejects.toMatchObject({
      message: expect.stringContaining('claims the role operator'),
      extensions: { code: 'UNAUTHENTICATED' },
    });
    // Without an operator issuer no operator token is accepted at all, however signed.
    await expect(verifier.verify(await sign(claims))).rejects.toMatchObject({
      message: expect.stringContaining('no operator issuer'),
      extensions: { code: 'UNAUTHENTICATED' },
    });
  });

  it("refuses from the operator issuer anything but an operator's token: no tenant, no other role", async () => {
    for (const claims of [
      { tenantId: 'acme', roles: ['admin'] },
      { tenantId: 'acme', roles: ['operator'] },
      { roles: ['operator', 'admin'] },
    ]) {
      await expect(both.verify(await sign(claims, operatorSecret))).rejects.toMatchObject({ extensions: { code: 'UNAUTHENTICATED' } });
    }
  });

  it("is configured apart from the tenants' issuer: loadConfig refuses the same secret or JWKS", () => {
    const base = { NODE_ENV: 'test', AUTH_JWT_SECRET: 's'.repeat(32), CURSOR_SECRET: 'c' };
    expect(() => loadConfig({ ...base, AUTH_OPERATOR_SECRET: 's'.repeat(32) })).toThrow('AUTH_OPERATOR_SECRET must differ');
    expect(loadConfig({ ...base, AUTH_OPERATOR_SECRET: 'o'.repeat(32) }).auth.operator?.secret).toEqual(
      new TextEncoder().encode('o'.repeat(32)),
    );
    const jwks = { NODE_ENV: 'test', AUTH_JWKS_URL: 'https://idp.example/tenants/jwks.json', CURSOR_SECRET: 'c' };
    expect(() => loadConfig({ ...jwks, AUTH_OPERATOR_JWKS_URL: jwks.AUTH_JWKS_URL, AUTH_OPERATOR_ISSUER: 'ops' })).toThrow(
      'AUTH_OPERATOR_JWKS_URL must not be AUTH_JWKS_URL',
    );
    expect(() => loadConfig({ ...jwks, AUTH_OPERATOR_JWKS_URL: 'https://idp.example/ops/jwks.json' })).toThrow('AUTH_OPERATOR_ISSUER');
    // Configured secrets and no operator issuer: no operator token is accepted (none is generated).
    expect(loadConfig(base).auth.operator).toBeUndefined();
  });
});

describe('TokenVerifier cache of verified tokens', () => {
  it('serves a token it accepted again without changing the answer, and never past exp', async () => {
    let now = Date.now();
    const cached = new TokenVerifier({ secret }, () => now);
    const token = await sign({ tenantId: 'acme' }, secret, Math.floor(now / 1000) + 30);
    const first = await cached.verify(token);
    expect(cached.cachedTokens).toBe(1);
    await expect(cached.verify(token)).resolves.toBe(first);
    // The principal is shared by every request with that token, so it cannot be changed.
    expect(() => first.roles.push(Role.ADMIN)).toThrow(TypeError);
    // Past exp the cached entry is not used: jose refuses the token again.
    now += 31_000;
    await expect(cached.verify(token)).rejects.toThrow('The token has expired.');
    expect(cached.cachedTokens).toBe(0);
  });

  it('keeps an entry at most VERIFIED_TOKEN_TTL_MS, then verifies again', async () => {
    let now = Date.now();
    const cached = new TokenVerifier({ secret }, () => now);
    const token = await sign({ tenantId: 'acme' }, secret, '1h');
    const first = await cached.verify(token);
    now += VERIFIED_TOKEN_TTL_MS + 1;
    const second = await cached.verify(token);
    expect(second).not.toBe(first);
    expect(second).toEqual(first);
  });

  it('remembers no refused token, and at most VERIFIED_TOKEN_CACHE_SIZE accepted ones', async () => {
    const cached = new TokenVerifier({ secret });
    const other = new TextEncoder().encode('another-secret-another-secret-xx');
    await expect(cached.verify(await sign({ tenantId: 'acme' }, other))).rejects.toMatchObject({ extensions: { code: 'UNAUTHENTICATED' } });
    await expect(cached.verify('not-a-token')).rejects.toMatchObject({ extensions: { code: 'UNAUTHENTICATED' } });
    expect(cached.cachedTokens).toBe(0);
    // A token is its exact text: a tampered copy of an accepted one is checked, and refused.
    const token = await sign({ tenantId: 'acme' });
    await cached.verify(token);
    await expect(cached.verify(`${token.slice(0, -2)}xx`)).rejects.toMatchObject({ extensions: { code: 'UNAUTHENTICATED' } });
    for (let i = 0; i < VERIFIED_TOKEN_CACHE_SIZE + 10; i++) await cached.verify(await sign({ tenantId: `t${i}` }));
    expect(cached.cachedTokens).toBe(VERIFIED_TOKEN_CACHE_SIZE);
  });
});

/**
 * docs/pipelines.md documents a pool token's payload (the only way to mint one with a JWKS in
 * production): exactly that payload is verified here, and the variants the docs say are refused.
 */
describe("the pool token's claims, as docs/pipelines.md documents them", () => {
  const docs = readFileSync(join(__dirname, '../../docs/pipelines.md'), 'utf8');
  const block = /\*\*The pool token\.\*\*[\s\S]*?```json\n([\s\S]*?)\n```/.exec(docs)?.[1];
  const documented: Record<string, unknown> = JSON.parse(block ?? 'null');
  // The documented exp is a fixed date: the token is signed to expire in an hour instead.
  const signDocumented = (change: Record<string, unknown> = {}) => {
    const { sub, exp: _exp, ...claims } = { ...documented, ...change };
    return new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setSubject(String(sub)).setExpirationTime('1h').sign(secret);
  };

  it('accepts the documented payload as a pool worker of its kinds and stages, bound to no tenant', async () => {
    expect(Object.keys(documented).sort()).toEqual(['exp', 'pool', 'roles', 'sub']);
    const principal = await verifier.verify(await signDocumented());
    expect(principal).toMatchObject({ userId: documented.sub, roles: [Role.POOL], pool: documented.pool });
  });

  it.each([
    ['roles as a string', { roles: 'pool' }],
    ['another role beside pool', { roles: ['pool', 'editor'] }],
    ['a tenant', { tenantId: 'acme' }],
    ['a Cognito-style tenant', { 'custom:tenantId': 'acme' }],
    ['no kinds', { pool: { kinds: [] } }],
  ])('refuses it with %s as UNAUTHENTICATED', async (_name, change) => {
    await expect(verifier.verify(await signDocumented(change))).rejects.toMatchObject({ extensions: { code: 'UNAUTHENTICATED' } });
  });
});
