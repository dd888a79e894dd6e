import { parseArgs } from 'node:util';
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
import { DEV_TENANT } from '../app';
import { signDevToken } from '../auth/jwt';
import { Role } from '../auth/principal';
import { startSimulator } from '../demo/simulator';
import { errorMessage } from '../guards';
import { findRunningServer, signingSecret } from './running-server';

/*
 * The demo pipeline worker as its own process, against a running server:
 *   npm run worker:demo -- [--url http://127.0.0.1:4000/graphql] [--tick-ms 1000]
 * Without --url it drives the running server it finds (see running-server.ts), and it signs its
 * tokens with that server's development secret, like `npm run token`.
 */
async function main() {
  const { values } = parseArgs({
    options: {
      url: { type: 'string' },
      'tick-ms': { type: 'string', default: '1000' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    process.stdout.write(
      'npm run worker:demo -- [--url http://127.0.0.1:4000/graphql] [--tick-ms 1000]\n' +
        "Drives the demo tenant's jobs through the public API, as the demo's simulator does. Without --url it\n" +
        'finds the server that npm start (or npm run demo) is running, and signs with its development secret.\n',
    );
    return;
  }
  if (process.env.AUTH_JWKS_URL)
    throw new Error('The demo worker signs its tokens with the development secret; it is not available with AUTH_JWKS_URL.');
  const server = findRunningServer();
  // Guessing a port would only fail every second: say what to do instead, as `npm run token` does.
  if (!values.url && !server)
    throw new Error('No running server found: start one with `npm start` (or `npm run demo`) first, or pass --url.');
  const url = values.url ?? server?.url ?? '';
  const secret = signingSecret(server);
  const sign = (roles: Role[], sub: string) => signDevToken(secret, { sub, tenantId: DEV_TENANT, roles });
  const simulator = startSimulator({
    url,
    workerToken: await sign([Role.WORKER], 'demo-worker'),
    editorToken: await sign([Role.EDITOR], 'demo-editor'),
    tickMs: Number(values['tick-ms']),
  });
  process.stdout.write(
    `Driving the demo tenant's jobs at ${url} every ${values['tick-ms']} ms (quietly: watch them in GraphiQL or on the job board at /jobs). Stop with Ctrl-C.\n`,
  );
  const stop = async () => {
    await simulator.stop();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
}

main().catch((error) => {
  process.stderr.write(`${errorMessage(error)}\n`);
  process.exit(1);
});
