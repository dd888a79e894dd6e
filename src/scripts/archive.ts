import { parseArgs } from 'node:util';
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
import { DEV_TENANT } from '../app';
import { signDevToken } from '../auth/jwt';
import { Role } from '../auth/principal';
import { errorMessage } from '../guards';
import { findRunningServer, signingSecret } from './running-server';

/*
 * The operator's command for cold storage: runs the archive now on the running server, through
 * the admin mutation runArchive (under the schedule's lease), and prints what the run did.
 *   npm run archive                     # the server npm start runs (found as npm run token finds it)
 *   npm run archive -- --url https://api.example.com/graphql --token "$ADMIN_TOKEN"
 */
async function main() {
  const { values } = parseArgs({
    options: {
      help: { type: 'boolean', short: 'h', default: false },
      url: { type: 'string' },
      token: { type: 'string' },
    },
  });
  if (values.help) {
    process.stdout.write(
      'Usage: npm run archive -- [--url URL] [--token ADMIN_TOKEN]\n' +
        'Runs the archive now (finished jobs and archived projects past COLD_STORAGE_AFTER_DAYS go to cold storage)\n' +
        'and prints what it did, as JSON. Without --url it uses the running server (npm start), signing an admin\n' +
        'token with its development secret; elsewhere pass an admin token.\n',
    );
    return;
  }
  const server = values.url ? undefined : findRunningServer();
  if (!values.url && !server) throw new Error('No running server found: start one with `npm start` first, or pass --url and --token.');
  const url = values.url ?? server?.url ?? '';
  const token =
    values.token ??
    (await signDevToken(signingSecret(server), { sub: 'operator', tenantId: DEV_TENANT, roles: [Role.ADMIN] }, { expiresIn: '5m' }));
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ query: 'mutation { runArchive { jobs projects resumed rows bytes failed } }' }),
  });
  const body: unknown = await res.json();
  const result = typeof body === 'object' && body !== null && 'data' in body ? body : undefined;
  const errors = typeof body === 'object' && body !== null && 'errors' in body ? body.errors : undefined;
  if (errors || !result) throw new Error(`The archive did not run: ${JSON.stringify(errors ?? body)}`);
  process.stdout.write(`${JSON.stringify(result.data)}\n`);
}

main().catch((error) => {
  process.stderr.write(`${errorMessage(error)}\n`);
  process.exit(1);
});
