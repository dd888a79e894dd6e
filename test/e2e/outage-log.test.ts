import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { signDevToken } from '../../src/auth/jwt';
import { Role } from '../../src/auth/principal';
import { msUntil, startOwnDynamo, type OwnDynamo } from '../support/outage';
import { TEST_SECRET } from '../support/server';
import { stopOnPurpose, tempDir } from '../support/fixtures';
import { processFixture } from '../support/processes';

/*
 * What the log shows during a DynamoDB outage, read the way an operator reads it: the built
 * server runs as a child process with LOG_LEVEL=info, and its stdout (pino's JSON lines) is
 * captured whole. Its DynamoDB Local is this test's own, which the test kills and restarts.
 */
const MAIN = join(__dirname, '../../dist/src/main.js');
const INTERVAL_MS = 1000;

interface Child {
  child: ChildProcess;
  url: string;
  output(): string;
  stop(): Promise<number | null>;
}

function startServer(env: Record<string, string>): Promise<Child> {
  const child = spawn(process.execPath, [MAIN], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, NODE_ENV: 'development', PORT: '0', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  processFixture(child);
  let output = '';
  child.stdout!.on('data', (c) => (output += c));
  child.stderr!.on('data', (c) => (output += c));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no start-up banner within 60 s:\n${output}`)), 60_000);
    child.once('exit', (code) => reject(new Error(`exited with ${code} during start:\n${output}`)));
    const check = () => {
      const url = /GraphQL \(HTTP\):\s+(\S+)/.exec(output)?.[1];
      if (!url || !output.includes('Stop with Ctrl-C')) return;
      clearTimeout(timer);
      child.stdout!.off('data', check);
      resolve({
        child,
        url,
        output: () => output,
        async stop() {
          if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
          return exited;
        },
      });
    };
    child.stdout!.on('data', check);
  });
}

/** The JSON log lines of `text` (the banner's plain lines are left out). */
const logLines = (text: string) =>
  text
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => ({ line, entry: JSON.parse(line) as { level: number; msg: string; dependency?: string; failures?: number } }));

describe('logging a DynamoDB outage', () => {
  let dynamo: OwnDynamo | undefined;
  let server: Child | undefined;
  let dataDir: string;

  beforeAll(() => {
    if (!existsSync(MAIN)) throw new Error('dist/ is missing: run `npm run build` first (npm test does).');
    dataDir = tempDir('artissist-outage-log-');
  });

  it('summarizes it once per interval with a count, never a line per request, never user text', async () => {
    dynamo = await startOwnDynamo();
    server = await startServer({
      DATA_DIR: dataDir,
      DYNAMODB_ENDPOINT: dynamo.endpoint,
      AUTH_JWT_SECRET: TEST_SECRET,
      CURSOR_SECRET: 'c',
      OUTAGE_LOG_INTERVAL_MS: String(INTERVAL_MS),
      // A killed DynamoDB refuses connections at once, so the outage does not wait for these; they
      // only have to let the first writes to a cold DynamoDB Local through on a busy machine.
      REQUEST_BUDGET_MS: '6000',
      DYNAMODB_TIMEOUT_MS: '3000',
    });
    const token = await signDevToken(new TextEncoder().encode(TEST_SECRET), {
      sub: 'artist',
      tenantId: 'outage-log',
      roles: [Role.EDITOR],
    });
    let requests = 0;
    const gql = async (query: string, variables?: object) => {
      requests++;
      const res = await fetch(server!.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ query, variables }),
      });
      return { status: res.status, body: (await res.json()) as any };
    };
    const secret = `SECRET-RAWTEXT-${randomUUID()}`;
    const createLog = 'mutation($p: ID!, $t: String) { createLog(projectId: $p, input: { rawText: $t, materials: ["ink"] }) { logId } }';
    const projectId = (await gql('mutation { createProject(input: { title: "Logged" }) { projectId } }')).body.data.createProject.projectId;
    expect((await gql(createLog, { p: projectId, t: secret })).body.data.createLog.logId).toMatch(/^log_/);
    const before = server.output().length;

    dynamo.kill();
    requests = 0;
    const started = Date.now();
    const statuses: number[] = [];
    // Many requests, 10 at a time, each carrying the secret text. A fixed count, not a fixed time: on
    // a busy machine a few seconds hold few requests, and the bounds below compare lines to requests.
    for (let round = 0; round < 20; round++) {
      const batch = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          i % 2
            ? gql(createLog, { p: projectId, t: secret })
            : gql('query($p: ID!) { logs(projectId: $p) { logId rawText } }', { p: projectId }),
        ),
      );
      for (const res of batch) {
        statuses.push(res.status);
        expect(res.body.errors[0].extensions.code).toBe('SERVICE_UNAVAILABLE');
      }
    }
    const outageMs = Date.now() - started;
    await dynamo.restart();
    // A successful call after the restart, then an interval without failures: the recovery line.
    await msUntil(
      async () =>
        (await gql('query($p: ID!) { project(projectId: $p) { title } }', { p: projectId })).body.data?.project?.title === 'Logged',
      10_000,
      'queries succeed again',
    );
    await msUntil(async () => server!.output().slice(before).includes('answers again'), 5 * INTERVAL_MS, 'the recovery line');

    const lines = logLines(server.output().slice(before));
    const warnings = lines.filter((l) => l.entry.level >= 40);
    const summaries = warnings.filter((l) => l.entry.dependency === 'dynamodb');
    const failures = summaries.reduce((sum, l) => sum + (l.entry.failures ?? 0), 0);
    console.log(
      `outage of ${outageMs} ms, ${statuses.length} requests (all ${[...new Set(statuses)].join('/')}): ${lines.length} log lines after the outage began, ` +
        `${warnings.length} at warn or above, summing ${failures} failed DynamoDB calls:\n${lines.map((l) => l.line).join('\n')}`,
    );
    expect(statuses.every((s) => s === 503)).toBe(true);
    // Never user data, in any line.
    expect(server.output()).not.toContain(secret);
    // One line when it starts failing, then at most one per interval (plus one for timing slack).
    expect(warnings.length).toBeGreaterThanOrEqual(2);
    expect(warnings.length).toBeLessThanOrEqual(2 + Math.ceil((Date.now() - started) / INTERVAL_MS));
    // Far fewer lines than failed requests (those of the outage and the polls while DynamoDB restarts).
    expect(warnings.length).toBeLessThan(requests / 2);
    expect(summaries.length).toBe(warnings.length);
    expect(failures).toBeGreaterThanOrEqual(statuses.length);
    expect(lines.some((l) => l.entry.level === 30 && l.entry.msg === 'dynamodb answers again')).toBe(true);

    expect(await stopOnPurpose(server)).toBe(0);
  }, 120_000);
});
