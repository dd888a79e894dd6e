process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
import { signDevToken } from '../auth/jwt';
import { isRole, Role } from '../auth/principal';
import { isValidTenantId } from '../common/ids';
import { errorMessage } from '../guards';
import { commandLine } from './cli';
import { findRunningServer, operatorSigningSecret, secretToSignWith } from './running-server';

/*
 * Prints a development token signed with the same secret as the server: AUTH_JWT_SECRET, or the
 * one the running server (found through its server.json, see running-server.ts) generated under
 * its data folder. It creates nothing: with no secret to read it says what to do instead.
 *   npm run token -- --tenant acme --roles editor,worker --sub alice --expires 7d
 *   npm run token -- --operator --sub ops-alice --expires 1h     (the platform's operator: no tenant)
 * An operator's token is signed with the operator secret (AUTH_OPERATOR_SECRET, or the running
 * server's data folder's dev-operator-secret), which is not the tenants' one: see TokenVerifier.
 */
async function main() {
  const values = commandLine(
    {
      tenant: { type: 'string', default: 'demo' },
      roles: { type: 'string', default: 'editor' },
      sub: { type: 'string', default: 'dev-user' },
      expires: { type: 'string', default: '30d' },
      pool: { type: 'string' },
      stages: { type: 'string' },
      operator: { type: 'boolean' },
    },
    'Usage: npm run token -- [--tenant demo] [--roles editor[,worker…]] [--sub dev-user] [--expires 30d]\n' +
      '       npm run token -- --pool KIND[,KIND…] [--stages STAGE[,STAGE…]] [--sub gpu-1]   (a pool worker: no tenant)\n' +
      '       npm run token -- --operator [--sub ops-1] [--expires 1h]   (the platform operator: no tenant; signed with\n' +
      "       AUTH_OPERATOR_SECRET or the running server's operator secret, never the tenants' one)\n" +
      'Prints a development JWT signed with AUTH_JWT_SECRET, or with the secret of the running server\n' +
      '(found by itself; set DATA_DIR to its data folder when several run).\n' +
      `Roles: ${Object.values(Role)
        .filter((r) => r !== Role.POOL && r !== Role.OPERATOR)
        .join(', ')}.\n`,
  );
  if (!values) return;
  if (process.env.AUTH_JWKS_URL)
    throw new Error('Tokens can only be made here with an HS256 secret; with AUTH_JWKS_URL your identity provider issues them.');
  const list = (text: string) =>
    text
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
  if (values.operator) {
    if (process.env.AUTH_OPERATOR_JWKS_URL)
      throw new Error("With AUTH_OPERATOR_JWKS_URL your operators' identity provider issues operator tokens.");
    // As for the tenants' secret: one given by the environment is used without looking for a server.
    const secret = operatorSigningSecret(process.env.AUTH_OPERATOR_SECRET ? undefined : findRunningServer());
    process.stdout.write(`${await signDevToken(secret, { sub: values.sub!, operator: true }, { expiresIn: values.expires })}\n`);
    return;
  }
  if (values.pool !== undefined) {
    const pool = { kinds: list(values.pool), ...(values.stages ? { stages: list(values.stages) } : {}) };
    if (pool.kinds.length === 0) throw new Error('--pool takes the job kinds the pool serves, e.g. --pool MUSIC_VIDEO,BATCH.');
    const secret = secretToSignWith();
    process.stdout.write(`${await signDevToken(secret, { sub: values.sub!, pool }, { expiresIn: values.expires })}\n`);
    return;
  }
  const names = values.roles!.split(',').map((r) => r.trim());
  const unknown = names.filter((name) => !isRole(name) || name === Role.POOL || name === Role.OPERATOR);
  if (unknown.length)
    throw new Error(
      `Unknown role ${unknown.join(', ')}; use ${Object.values(Role)
        .filter((r) => r !== Role.POOL && r !== Role.OPERATOR)
        .join(', ')} (a pool worker: --pool; an operator: --operator).`,
    );
  const roles = names.filter(isRole);
  if (!isValidTenantId(values.tenant)) throw new Error('--tenant takes letters, digits, _ and -, at most 64.');
  const secret = secretToSignWith();
  process.stdout.write(
    `${await signDevToken(secret, { sub: values.sub!, tenantId: values.tenant!, roles }, { expiresIn: values.expires })}\n`,
  );
}

main().catch((error) => {
  process.stderr.write(`${errorMessage(error)}\n`);
  process.exit(1);
});
