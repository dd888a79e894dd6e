import { randomUUID } from 'node:crypto';
import { testEndpoint } from '../support/dynamo';
import { startInstance, type Instance } from '../support/instances';
import { startRedis, type RedisServer } from '../support/redis';
import { eventually } from '../support/ws';

describe('a Redis outage in the log', () => {
  let redis: RedisServer;
  let instance: Instance;
  let stderr = '';

  beforeAll(async () => {
    redis = await startRedis();
    instance = await startInstance({
      DYNAMODB_ENDPOINT: testEndpoint(),
      TABLE_NAME: `t_${randomUUID().slice(0, 8)}`,
      REDIS_URL: redis.url,
      OUTAGE_LOG_INTERVAL_MS: '2000',
    });
    instance.child.stderr!.on('data', (chunk) => (stderr += chunk));
  });
  afterAll(async () => {
    await instance?.stop();
    await redis?.stop();
  });

  it('is a few rate-limited JSON summaries, with no plain-text stack trace on stderr', async () => {
    const before = instance.output().length;
    await redis.kill();
    await new Promise((r) => setTimeout(r, 5000));
    redis = await startRedis(redis.port);
    // The instance reconnects by itself; a summary interval without failures says Redis answers again.
    await eventually(
      () => instance.output().slice(before),
      (text) => text.includes('redis answers again'),
      20_000,
    );
    const lines = instance
      .output()
      .slice(before)
      .split('\n')
      .filter((line) => line.includes('redis'));
    const entries = lines.map((line) => JSON.parse(line));
    expect(entries[0]).toMatchObject({ level: 40, dependency: 'redis', msg: expect.stringContaining('redis is failing') });
    expect(entries.at(-1)).toMatchObject({ level: 30, dependency: 'redis', msg: 'redis answers again' });
    // One line when it starts failing, one summary per 2 s interval, one when it is back.
    process.stdout.write(`redis outage of 5 s: ${entries.length} log lines\n`);
    expect(entries.length).toBeLessThanOrEqual(8);
    expect(stderr).not.toContain('Unhandled error event');
    expect(stderr).not.toMatch(/\n\s+at /);
  }, 60_000);
});
