// First: the compile cache, which applies to the modules loaded after it (it instruments nothing).
import './infra/compile-cache';
// Then tracing, when it is on, which must start before the modules it instruments are loaded.
import { tracing, tracingFailure } from './infra/tracing-start';
import 'reflect-metadata';
import { join } from 'node:path';
import type { App } from './app';
import { loadConfig } from './config';
import { errorCode, errorMessage } from './guards';
import type { Demo } from './demo/demo';
import { StartupCancelled } from './infra/startup';
import { JavaMissingError, startDynamoDbLocal } from './infra/dynamo/embedded';
import { ensurePortFree } from './infra/free-port';
import { announceServer } from './scripts/running-server';
import { npmCommand } from './scripts/npm-command';

/*
 * On Node 20 the AWS SDK prints a nine-line notice that its 2027 releases need Node 22, which
 * would bury the start-up block a newcomer needs to read; we print one line of our own instead
 * (below), for every Node older than `engines` allows. On Node 22 and later the SDK says nothing
 * and nothing is turned off, so a future notice of the SDK's still shows.
 */
const NODE_MAJOR = Number(process.versions.node.split('.')[0]);
if (NODE_MAJOR < 22) process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

/**
 * The demo's lease, unless JOB_LEASE_SECONDS says otherwise: its simulated render worker crashes
 * mid-scene once per music video, and a person watching should see the scene come back within
 * seconds, not after the production default of a minute.
 */
const DEMO_LEASE_SECONDS = '15';

async function main(): Promise<void> {
  const demoMode = process.argv.includes('--demo');
  const config = loadConfig(demoMode ? { JOB_LEASE_SECONDS: DEMO_LEASE_SECONDS, ...process.env } : process.env);
  const say = (message: string) => process.stdout.write(`${message}\n`);
  // Tracing asked for but not installed: an operator's setting that cannot be honoured, so the
  // server refuses to start rather than run untraced without anyone noticing.
  if (tracingFailure) {
    say(`Cannot start: ${tracingFailure.message}`);
    process.exit(1);
  }
  if (NODE_MAJOR < 24) say(`Note: Node ${process.versions.node} is not supported; Node 26 is the baseline, Node 24 still works (README).`);

  let embedded: ReturnType<typeof startDynamoDbLocal> | undefined;
  let starting: Promise<App> | undefined;
  let app: App | undefined;
  let demo: Demo | undefined;
  let unannounce = () => {};

  /*
   * One stop for every way in: Ctrl-C (SIGINT to the whole foreground process group, so npm's
   * forwarded copy may arrive too), SIGTERM to this process or to npm (which forwards it), SIGHUP
   * when the terminal closes, and an embedded part that cannot be restarted (exit code 1). The
   * handlers are in place from the first moment, so a signal during start-up also stops cleanly.
   */
  let stopping = false;
  const startup = new AbortController();
  const stop = async (why: string, exitCode: number) => {
    if (stopping) return;
    stopping = true;
    say(`\n${why}: stopping …`);
    // Never hang: past the drain time plus a margin, whatever is still open is abandoned.
    const limitMs = config.shutdownDrainMs + 5000;
    setTimeout(() => {
      say(`Stopping took longer than ${limitMs / 1000} s; exiting anyway.`);
      process.exit(1);
    }, limitMs).unref();
    if (!app) {
      /*
       * Still starting. The abort makes startApp close its listener at once (it opens it before the
       * table is ready, for readiness probes), cancel its DynamoDB calls, close what it opened and
       * stop the embedded parts last, then fail; before startApp was called, it stops DynamoDB
       * Local's start. DynamoDB Local must not be stopped from here first: the start-up was still
       * using it (creating the table), and the SDK's wait for a new table retries a dead endpoint
       * for a minute, so such a stop hung with the port open until the limit above.
       */
      startup.abort();
      if (starting)
        app = await starting.catch((error) => {
          // The abort's own rejection is the expected end; any other failure of the start is said.
          if (!(error instanceof StartupCancelled)) say(`The start-up failed while stopping: ${errorMessage(error)}`);
          return undefined;
        });
      else
        await embedded
          ?.then((e) => e.stop())
          .catch((error) => {
            // Its start called off by the abort is the expected end; any other failure to start or stop it is said.
            if (!(error instanceof StartupCancelled)) say(`DynamoDB Local did not stop cleanly: ${errorMessage(error)}`);
          });
    }
    // The demo's simulator is told to stop first, so it sends nothing new while the server drains.
    unannounce();
    const demoStopped = demo?.stop();
    await app?.stop();
    await demoStopped;
    // The last spans (the shutdown's own among them) are exported before the process ends.
    await tracing?.shutdown().catch((error) => say(`The last traces were not exported: ${errorMessage(error)}`));
    // Written to a pipe, stdout is asynchronous on POSIX (Node's "A note on process I/O"), so exiting
    // at once could drop this last line: the process exits once it is written (or failed to be).
    process.stdout.write('Stopped.\n', () => process.exit(exitCode));
  };
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => void stop(signal, 0));

  const portTaken = () =>
    say(`\nCannot start: port ${config.port} on ${config.host} is in use. Stop what uses it or set PORT to another port.`);
  // A taken port is said before DynamoDB Local and the local S3 start (seconds of work), not after.
  try {
    await ensurePortFree(config.port, config.host);
  } catch (error) {
    if (errorCode(error) === 'EADDRINUSE') portTaken();
    else say(`\nCannot start: ${errorMessage(error)}`);
    process.exit(1);
  }

  // The JVM takes seconds to boot: start it first, and load the rest of the server meanwhile.
  if (config.dynamo.embedded) {
    say(`Starting DynamoDB Local (data in ${join(config.dataDir, 'dynamodb')}) …`);
    let spawned!: () => void;
    const launched = new Promise<void>((resolve) => (spawned = resolve));
    // The development server's own: a person waits for its start, and its load is one person's.
    embedded = startDynamoDbLocal({
      dataPath: join(config.dataDir, 'dynamodb'),
      onSpawn: spawned,
      signal: startup.signal,
      quickStart: true,
      restartBackoffMs: config.embeddedRestartBackoffMs,
    });
    // Loading the server blocks this thread for a moment, so it waits until java is on its way. Only
    // the wait ignores a failed start: startApp awaits the same promise and fails with it, or, after
    // a signal, stop() does and says it.
    await Promise.race([
      launched,
      embedded.then(
        () => {},
        () => {},
      ),
    ]);
  }
  // A signal while java was starting: stop() stops it, and nothing else is started.
  if (stopping) return;
  // Kept assertions: require() returns `any`, and TypeScript has no typed synchronous load (a static import would load the
  // server before java starts, and import() would go through the ES module loader), so each gets its module's own type.
  const { DEV_TENANT, startApp } = require('./app') as typeof import('./app');
  const { startDemo } = require('./demo/demo') as typeof import('./demo/demo');
  try {
    starting = startApp(config, {
      progress: say,
      embeddedDynamo: embedded,
      onEmbeddedFailure: (error) => void stop(`${error.message} The server cannot work without it`, 1),
      signal: startup.signal,
    });
    app = await starting;
  } catch (error) {
    if (stopping) return;
    if (error instanceof JavaMissingError) say(`\nCannot start: ${error.message}`);
    else if (errorCode(error) === 'EADDRINUSE') portTaken();
    else say(`\nCannot start: ${errorMessage(error)}`);
    process.exit(1);
  }

  if (stopping) return;
  if (demoMode) {
    say('Loading the demo tenant "demo" …');
    try {
      demo = await startDemo(app, config);
      // A signal while the demo loaded: stop() found no simulator to stop, so it is stopped here.
      if (stopping) {
        await demo.stop();
        return;
      }
      say('Demo loaded; the pipeline simulator advances its jobs every second.');
    } catch (error) {
      if (stopping) return;
      say(`\nCannot load the demo: ${errorMessage(error)}`);
      await app.stop();
      process.exit(1);
    }
  }

  const lines = ['', `GraphQL (HTTP):   ${app.url}`, `GraphQL (WS):     ${app.url.replace(/^http/, 'ws')}`];
  if (config.graphiql) {
    lines.push(`GraphiQL:         open ${app.url} in a browser`);
    lines.push(`Job board:        open ${new URL('/jobs', app.url).href} (the tenant's jobs, live)`);
  }
  if (app.devToken) {
    lines.push(
      `Development token (tenant "${DEV_TENANT}", role editor, 30 days):`,
      `  ${app.devToken}`,
      `More tokens:      ${npmCommand('run token -- --tenant <id> --roles editor,worker')}`,
      // Two lines to paste as they are: the token goes into a shell variable, which the curl reads,
      // so nothing in them is a placeholder to replace by hand.
      'Try it (paste both lines into a shell):',
      `  TOKEN=${app.devToken}`,
      `  curl -s ${app.url} -H 'content-type: application/json' -H "authorization: Bearer $TOKEN" -d '{"query":"{ viewer { tenantId roles } }"}'`,
    );
  }
  if (app.embeddedS3Endpoint) lines.push(`Local S3:         ${app.embeddedS3Endpoint} (bucket ${config.s3.bucket})`);
  if (app.embeddedDynamo || app.embeddedS3Endpoint) lines.push(`Data folder:      ${config.dataDir}`);
  lines.push(
    demo
      ? 'Demo:             loaded; GraphiQL opens on its data and a job the simulator is driving'
      : `Demo data:        ${npmCommand('run demo')}  (loads a demo tenant and drives its jobs live)`,
  );
  lines.push('Stop with Ctrl-C.', '');
  say(lines.join('\n'));
  // `npm run token`, `npm run worker:demo` and the codegen example find this server by it, whatever PORT and DATA_DIR were.
  if (config.auth.secret)
    unannounce = announceServer(
      {
        url: app.url,
        dataDir: config.dataDir,
        secret: config.auth.secretGenerated ? 'data-folder' : 'AUTH_JWT_SECRET',
        operatorSecret: config.auth.operatorSecretGenerated
          ? 'data-folder'
          : config.auth.operator?.secret
            ? 'AUTH_OPERATOR_SECRET'
            : 'none',
        dynamoEndpoint: app.dynamoEndpoint,
        tableName: config.tableName,
      },
      (error) => say(`Note: the file by which npm run token and the other tools find this server was not updated: ${errorMessage(error)}`),
    );
}

void main().catch((error) => {
  process.stderr.write(`${errorMessage(error)}\n`);
  process.exit(1);
});
