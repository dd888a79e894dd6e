import { SignJWT } from 'jose';
import { signDevToken, TokenVerifier } from '../../src/auth/jwt';
import { Role } from '../../src/auth/principal';

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
    const token = await signDevToken(secret, { sub: 'u', tenantId: 'acme', roles: [Role.ADMIN] });
    await expect(verifier.fromHeader(`Bearer ${token}`)).resolves.toMatchObject({ roles: [Role.ADMIN] });
  });
});
