import 'reflect-metadata';
import { join } from 'node:path';
import type { App } from './app';
import { loadConfig } from './config';
import type { Demo } from './demo/demo';
import { JavaMissingError, startDynamoDbLocal } from './infra/dynamo/embedded';

// The SDK warns that its 2027 releases will need Node 22. We support Node 20 today (see README),
// so that notice would only bury the start-up block a newcomer needs to read.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

async function main(): Promise<void> {
  const config = loadConfig();
  const demoMode = process.argv.includes('--demo');
  const say = (message: string) => process.stdout.write(`${message}\n`);
  // The JVM takes seconds to boot: start it first, and load the rest of the server meanwhile.
  let embedded: ReturnType<typeof startDynamoDbLocal> | undefined;
  if (config.dynamo.embedded) {
    say(`Starting DynamoDB Local (data in ${join(config.dataDir, 'dynamodb')}) …`);
    let spawned!: () => void;
    const launched = new Promise<void>((resolve) => (spawned = resolve));
    embedded = startDynamoDbLocal({ dataPath: join(config.dataDir, 'dynamodb'), onSpawn: spawned });
    // Loading the server blocks this thread for a moment, so it waits until java is on its way.
    await Promise.race([launched, embedded.then(() => {}, () => {})]);
  }
  const { DEV_TENANT, startApp } = require('./app') as typeof import('./app');
  const { startDemo } = require('./demo/demo') as typeof import('./demo/demo');
  let app: App;
  try {
    app = await startApp(config, { progress: say, embeddedDynamo: embedded });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (error instanceof JavaMissingError) say(`\nCannot start: ${error.message}`);
    else if (code === 'EADDRINUSE') say(`\nCannot start: port ${config.port} on ${config.host} is in use. Stop what uses it or set PORT to another port.`);
    else say(`\nCannot start: ${(error as Error).message}`);
    process.exit(1);
  }

  let demo: Demo | undefined;
  if (demoMode) {
    say('Loading the demo tenant "demo" …');
    try {
      demo = await startDemo(app, config);
      say('Demo loaded; the pipeline simulator advances its jobs every second.');
    } catch (error) {
      say(`\nCannot load the demo: ${(error as Error).message}`);
      await app.stop();
      process.exit(1);
    }
  }

  const lines = ['', `GraphQL (HTTP):   ${app.url}`, `GraphQL (WS):     ${app.url.replace(/^http/, 'ws')}`];
  if (config.graphiql) lines.push(`GraphiQL:         open ${app.url} in a browser`);
  if (app.devToken) {
    lines.push(
      `Development token (tenant "${DEV_TENANT}", role editor, 30 days):`,
      `  ${app.devToken}`,
      `More tokens:      npm run token -- --tenant <id> --roles editor,worker`,
      `Try it:           curl -s ${app.url} -H 'content-type: application/json' -H "authorization: Bearer <token>" -d '{"query":"{ viewer { tenantId roles } }"}'`,
    );
  }
  if (app.embeddedS3Endpoint) lines.push(`Local S3:         ${app.embeddedS3Endpoint} (bucket ${config.s3.bucket})`);
  if (app.embeddedDynamo || app.embeddedS3Endpoint) lines.push(`Data folder:      ${config.dataDir}`);
  lines.push(demo ? 'Demo:             loaded; GraphiQL opens on its data and a job the simulator is driving' : 'Demo data:        npm run demo  (loads a demo tenant and drives its jobs live)');
  lines.push('Stop with Ctrl-C.', '');
  say(lines.join('\n'));

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    say(`\n${signal}: stopping …`);
    // Never hang on shutdown: whatever is still open after 10 s is abandoned.
    setTimeout(() => process.exit(1), 10_000).unref();
    await demo?.stop();
    await app.stop();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

void main().catch((error) => {
  process.stderr.write(`${(error as Error).message}\n`);
  process.exit(1);
});
