import { randomUUID } from 'node:crypto';
import { spawnPort } from '../support/ports';
import { testEndpoint } from '../support/dynamo';
import { startInstance } from '../support/instances';
import { startTcpProxy } from '../support/tcp-proxy';
import { sample, scrape } from '../support/prometheus';
import { eventually } from '../support/ws';

async function readiness(url: string): Promise<{ status: number; body: any } | 'refused'> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(5000) });
    return { status: res.status, body: await res.json() };
  } catch {
    return 'refused';
  }
}

describe('start-up against an external DynamoDB that does not answer', () => {
  it('waits for it with backoff, answering readiness with 503 meanwhile, and serves once it answers', async () => {
    const [dynamoPort, port] = [await spawnPort(), await spawnPort()];
    const readyz = `http://127.0.0.1:${port}/readyz`;
    const starting = startInstance({
      DYNAMODB_ENDPOINT: `http://127.0.0.1:${dynamoPort}`,
      TABLE_NAME: `t_${randomUUID().slice(0, 8)}`,
      PORT: String(port),
    });
    starting.catch(() => {});
    // Nothing listens on the DynamoDB port: the server is up, and not ready.
    const waiting = await eventually(
      () => readiness(readyz),
      (r) => r !== 'refused',
      30_000,
    );
    expect(waiting).toEqual({
      status: 503,
      body: expect.objectContaining({ status: 'unavailable', checks: { startup: { status: 'starting' } } }),
    });
    // It keeps trying, with backoff, and stays unready meanwhile: each try of the start-up is one
    // DescribeTable call, counted as unreachable on /metrics (served while it starts). Three tries,
    // two of them after it first answered 503, are two waits of the backoff survived.
    const metrics = `http://127.0.0.1:${port}/metrics`;
    const unreachable = { command: 'DescribeTable', outcome: 'unreachable' };
    const tries = async () => sample((await scrape(metrics)).exposition, 'artissist_dynamodb_calls_total', unreachable);
    const triesAt503 = await tries();
    await eventually(tries, (n) => n >= Math.max(3, triesAt503 + 2), 30_000);
    expect(await readiness(readyz)).toMatchObject({ status: 503 });
    // DynamoDB comes up: the start-up finishes (the table is made), and readiness turns 200.
    await startTcpProxy(testEndpoint(), dynamoPort);
    const instance = await starting;
    const output = instance.output();
    expect(output).toMatch(/DynamoDB does not answer yet \(unreachable\); retrying for up to \d+ s/);
    expect(output).toContain('Created table');
    await eventually(
      () => readiness(readyz),
      (r) => r !== 'refused' && r.status === 200,
      10_000,
    );
  });

  it('gives up at STARTUP_DEADLINE_MS with a message naming DynamoDB, and exits 1', async () => {
    const dynamoPort = await spawnPort();
    const failure = await startInstance({
      DYNAMODB_ENDPOINT: `http://127.0.0.1:${dynamoPort}`,
      TABLE_NAME: `t_${randomUUID().slice(0, 8)}`,
      STARTUP_DEADLINE_MS: '3000',
    }).then(
      () => 'started',
      (error: Error) => error.message,
    );
    expect(failure).toMatch(/^instance exited with 1:/);
    expect(failure).toContain(`Cannot start: DynamoDB at http://127.0.0.1:${dynamoPort} did not answer within 3 s of start-up`);
    expect(failure).toMatch(/last failure: unreachable\)\. Check that it runs and is reachable from here, or raise STARTUP_DEADLINE_MS\./);
  });
});
