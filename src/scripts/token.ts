process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
import { signDevToken } from '../auth/jwt';
import { isRole, Role } from '../auth/principal';
import { isValidTenantId } from '../common/ids';
import { errorMessage } from '../guards';
import { commandLine } from './cli';
import { secretToSignWith } from './running-server';

/*
 * Prints a development token signed with the same secret as the server: AUTH_JWT_SECRET, or the
 * one the running server (found through its server.json, see running-server.ts) generated under
 * its data folder. It creates nothing: with no secret to read it says what to do instead.
 *   npm run token -- --tenant acme --roles editor,worker --sub alice --expires 7d
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
    },
    'Usage: npm run token -- [--tenant demo] [--roles editor[,worker…]] [--sub dev-user] [--expires 30d]\n' +
      '       npm run token -- --pool KIND[,KIND…] [--stages STAGE[,STAGE…]] [--sub gpu-1]   (a pool worker: no tenant)\n' +
      'Prints a development JWT signed with AUTH_JWT_SECRET, or with the secret of the running server\n' +
      '(found by itself; set DATA_DIR to its data folder when several run).\n' +
      `Roles: ${Object.values(Role).join(', ')}.\n`,
  );
  if (!values) return;
  if (process.env.AUTH_JWKS_URL)
    throw new Error('Tokens can only be made here with an HS256 secret; with AUTH_JWKS_URL your identity provider issues them.');
  const list = (text: string) =>
    text
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
  if (values.pool !== undefined) {
    const pool = { kinds: list(values.pool), ...(values.stages ? { stages: list(values.stages) } : {}) };
    if (pool.kinds.length === 0) throw new Error('--pool takes the job kinds the pool serves, e.g. --pool MUSIC_VIDEO,BATCH.');
    const secret = secretToSignWith();
    process.stdout.write(`${await signDevToken(secret, { sub: values.sub!, pool }, { expiresIn: values.expires })}\n`);
    return;
  }
  const names = values.roles!.split(',').map((r) => r.trim());
  const unknown = names.filter((name) => !isRole(name) || name === Role.POOL);
  if (unknown.length)
    throw new Error(
      `Unknown role ${unknown.join(', ')}; use ${Object.values(Role)
        .filter((r) => r !== Role.POOL)
        .join(', ')} (a pool worker: --pool).`,
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
