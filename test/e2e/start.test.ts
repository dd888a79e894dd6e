import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { networkInterfaces } from 'node:os';
import { createConnection, createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { cleanEnv, exited, gql, javaPids, MAIN, startProcess, until } from '../support/processes';
import { tempDir, fixture } from '../support/fixtures';

/*
 * The embedded default as a newcomer runs it: the built server (`node dist/src/main.js`, what
 * `npm start` runs after building) with no DynamoDB configured, so it starts its own DynamoDB Local.
 * test/e2e/lifecycle.test.ts runs the real `npm start` and stops it every way there is.
 */
/** How a TCP connection to `host`:`port` ends: 'connected', or the error's code. */
function connectOutcome(host: string, port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = createConnection({ host, port, timeout: 5000 });
    socket.once('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.once('timeout', () => {
      socket.destroy();
      resolve('timeout');
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });
}

const start = (dataDir: string) => startProcess(process.execPath, [MAIN], cleanEnv({ DATA_DIR: dataDir }));

describe('npm start (embedded default)', () => {
  let dataDir: string;

  beforeAll(() => {
    if (!existsSync(MAIN)) throw new Error('dist/ is missing: run `npm run build` first (npm test does).');
    dataDir = tempDir('artissist-start-');
  });

  it('starts DynamoDB Local, serves the seed query with the printed token, listens on loopback only with no CORS for other origins, and leaves no java behind on SIGTERM', async () => {
    const first = await start(dataDir);
    expect(first.output()).toContain('Created table Artissist');
    expect(javaPids(dataDir)).toHaveLength(1);
    const project = await gql(first.url, first.token, 'mutation { createProject(input: { title: "Kept" }) { projectId } }');
    const projectId = project.data.createProject.projectId;
    await gql(
      first.url,
      first.token,
      `mutation { createLog(projectId: "${projectId}", input: { materials: ["clay"], timeSpentMinutes: 12 }) { logId } }`,
    );
    const seed = await gql(
      first.url,
      first.token,
      'query GetProjectLogs($projectId: ID!) { logs(projectId: $projectId) { logId materials timeSpentMinutes } }',
      { projectId },
    );
    expect(seed.data.logs).toEqual([{ logId: expect.stringMatching(/^log_/), materials: ['clay'], timeSpentMinutes: 12 }]);
    // The banner's "Try it" lines work when pasted into a shell as they are.
    const pasted = /Try it[^\n]*\n((?: {2}\S[^\n]*\n){2})/.exec(first.output())?.[1];
    expect(pasted).toMatch(/^ {2}TOKEN=\S+\n {2}curl /);
    const curl = spawnSync('bash', ['-c', pasted ?? 'false'], { encoding: 'utf8', timeout: 30_000 });
    expect(curl.status).toBe(0);
    expect(JSON.parse(curl.stdout)).toEqual({ data: { viewer: { tenantId: 'demo', roles: ['EDITOR'] } } });
    // The README's sample banner shows the lines the server prints, in the order it prints them.
    const labels = (text: string) => [...text.matchAll(/^([A-Z][\w ()]*?): {2,}\S/gm)].map((m) => m[1]);
    const readme = readFileSync(join(__dirname, '../../README.md'), 'utf8');
    const sample = /```\nStarting DynamoDB Local[\s\S]*?```/.exec(readme)?.[0] ?? '';
    expect(labels(first.output()).length).toBeGreaterThan(5);
    expect(labels(sample)).toEqual(labels(first.output()));
    // On the Node of a shell, the banner names the tools as npm runs them there.
    expect(first.output()).toContain('More tokens:      npm run token -- --tenant <id> --roles editor,worker\n');
    expect(first.output()).toContain('Demo data:        npm run demo  (');

    // The development parts listen on 127.0.0.1 only and give pages of other origins nothing.
    const dynamoPort = Number(/DynamoDB Local is up at http:\/\/127\.0\.0\.1:(\d+)/.exec(first.output())?.[1]);
    const s3Port = Number(/Local S3 is up at http:\/\/127\.0\.0\.1:(\d+)/.exec(first.output())?.[1]);
    const serverPort = Number(new URL(first.url).port);
    expect(first.output()).not.toContain('listens on every network interface');
    // Every address of this machine that another machine could reach (a machine without one has nothing to expose).
    const outside = Object.values(networkInterfaces())
      .flat()
      .filter((a) => a && !a.internal && a.family === 'IPv4')
      .map((a) => a!.address);
    expect(outside.length).toBeGreaterThan(0);
    for (const host of outside)
      for (const port of [dynamoPort, s3Port, serverPort])
        expect({ host, port, outcome: await connectOutcome(host, port) }).toEqual({ host, port, outcome: 'ECONNREFUSED' });
    const evil = { origin: 'http://evil.example' };
    // DynamoDB Local answers the request (it accepts any credentials), but without a header that lets the page read it.
    const listTables = await fetch(`http://127.0.0.1:${dynamoPort}/`, {
      method: 'POST',
      headers: {
        ...evil,
        'content-type': 'application/x-amz-json-1.0',
        'x-amz-target': 'DynamoDB_20120810.ListTables',
        authorization: 'AWS4-HMAC-SHA256 Credential=local/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0',
      },
      body: '{}',
    });
    expect(listTables.status).toBe(200);
    expect(listTables.headers.get('access-control-allow-origin')).toBeNull();
    const preflight = {
      ...evil,
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'content-type,x-amz-target,authorization',
    };
    for (const port of [dynamoPort, s3Port]) {
      const answer = await fetch(`http://127.0.0.1:${port}/`, { method: 'OPTIONS', headers: preflight });
      expect({ port, allowOrigin: answer.headers.get('access-control-allow-origin') }).toEqual({ port, allowOrigin: null });
    }
    const bucket = await fetch(`http://127.0.0.1:${s3Port}/artissist`, { headers: evil });
    expect(bucket.headers.get('access-control-allow-origin')).toBeNull();

    first.child.kill('SIGTERM');
    expect(await exited(first.child)).toBe(0);
    expect(await until(() => javaPids(dataDir).length === 0)).toBe(true);

    // A restart keeps the data and the development signing key, so the old token still works. It
    // runs on a Node in npm's cache (npm_config_cache, as npm sets it for a script), as the README's
    // `npx -y node@26 "$(command -v npm)" start` on Node 20 does: the banner then names that route,
    // since the shell's own npm would refuse its commands on Node 20.
    const second = await startProcess(
      process.execPath,
      [MAIN],
      cleanEnv({ DATA_DIR: dataDir, npm_config_cache: dirname(dirname(process.execPath)) }),
    );
    expect(second.output()).toContain('Using table Artissist');
    const npx = 'npx -y node@26 "$(command -v npm)"';
    expect(second.output()).toContain(`More tokens:      ${npx} run token -- --tenant <id> --roles editor,worker\n`);
    expect(second.output()).toContain(`Demo data:        ${npx} run demo  (`);
    const again = await gql(second.url, first.token, `{ project(projectId: "${projectId}") { title } }`);
    expect(again.data.project.title).toBe('Kept');

    // Even a hard kill of the server takes DynamoDB Local down with it.
    second.child.kill('SIGKILL');
    await exited(second.child);
    expect(await until(() => javaPids(dataDir).length === 0)).toBe(true);
  });

  it('says Java 17+ is needed and exits non-zero when java is missing', () => {
    const result = spawnSync(process.execPath, [MAIN], {
      env: cleanEnv({ DATA_DIR: dataDir, PATH: '/nonexistent' }),
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(result.status).toBe(1);
    expect(result.stdout).toMatch(/Java 17 or newer is required/);
  });

  it('reports a taken port clearly and exits non-zero, before it starts DynamoDB Local', async () => {
    const blocker = fixture('port blocker', createServer().listen(0, '127.0.0.1'), (s) => s.close());
    await new Promise((r) => blocker.once('listening', r));
    const port = (blocker.address() as { port: number }).port;
    const result = spawnSync(process.execPath, [MAIN], {
      env: cleanEnv({ DATA_DIR: dataDir, PORT: String(port) }),
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(result.status).toBe(1);
    // Said before anything slow starts: neither DynamoDB Local nor the local S3 was started first.
    expect(result.stdout).toBe(`\nCannot start: port ${port} on 127.0.0.1 is in use. Stop what uses it or set PORT to another port.\n`);
    expect(javaPids(dataDir)).toEqual([]);
  });
});
