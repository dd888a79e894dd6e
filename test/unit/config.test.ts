import { clusterTarget, loadConfig } from '../../src/config';

/*
 * Settings read from the environment that the other tests do not reach: each accepts what its row
 * in docs/settings.md says and refuses the rest, naming the setting.
 */

/** The settings of `env`, with a secret and an endpoint of their own: nothing is generated under a data folder. */
const configWith = (env: Record<string, string | undefined>) =>
  loadConfig({ AUTH_JWT_SECRET: 'unit-secret-0123456789abcdef0123456789', DYNAMODB_ENDPOINT: 'http://127.0.0.1:9', ...env });

describe('settings', () => {
  it('takes COLD_STORAGE_AFTER_DAYS from 0, fractions included, up to two weeks before the TTL backstop', () => {
    const days = (value?: string) => configWith({ COLD_STORAGE_AFTER_DAYS: value }).coldStorage.afterDays;
    expect(days()).toBe(90);
    expect(days('0')).toBe(0);
    expect(days('0.001')).toBe(0.001);
    expect(days('106')).toBe(106);
    expect(() => days('107')).toThrow('COLD_STORAGE_AFTER_DAYS must be at most 106');
    expect(() => days('-1')).toThrow('COLD_STORAGE_AFTER_DAYS must be a number of days from 0, got "-1".');
    expect(() => days('soon')).toThrow('COLD_STORAGE_AFTER_DAYS must be a number of days from 0, got "soon".');
  });

  it('takes METRICS_STORE_READ_MS, the period /metrics reuses the counts it reads from the store, as whole milliseconds from 0', () => {
    const period = (value?: string) => configWith({ METRICS_STORE_READ_MS: value }).metrics.storeReadMs;
    expect(period()).toBe(5000);
    expect(period('100')).toBe(100);
    expect(period('0')).toBe(0);
    expect(() => period('0.5')).toThrow('METRICS_STORE_READ_MS must be a whole number, got "0.5".');
  });

  it('takes DOWNSTREAM_URL on PostgreSQL only: on DynamoDB the table stream and its Pipe send events downstream', () => {
    const base = { AUTH_JWT_SECRET: 'unit-secret-0123456789abcdef0123456789' };
    expect(() => loadConfig({ ...base, DOWNSTREAM_URL: 'http://127.0.0.1:9/events' })).toThrow(
      /DOWNSTREAM_URL is for a server on PostgreSQL/,
    );
    const postgres = { ...base, DATABASE_URL: 'postgres://app@127.0.0.1/db' };
    expect(() => loadConfig({ ...postgres, DOWNSTREAM_URL: 'ftp://receiver/events' })).toThrow(/DOWNSTREAM_URL must be an http/);
    expect(loadConfig({ ...postgres, DOWNSTREAM_URL: 'https://receiver/events', DOWNSTREAM_RETRY_MS: '50' }).postgres?.downstream).toEqual({
      url: 'https://receiver/events',
      retryMs: 50,
      pollMs: 1000,
    });
    expect(loadConfig(postgres).postgres?.downstream).toBeUndefined();
  });

  it('takes a REDIS_URL of one node as it is, and one of a cluster (redis+cluster://) with each node host:port', () => {
    const redis = (value: string) => configWith({ REDIS_URL: value }).redisUrl;
    expect(redis('redis://127.0.0.1:6379')).toBe('redis://127.0.0.1:6379');
    expect(clusterTarget('redis://127.0.0.1:6379')).toBeUndefined();
    expect(redis('redis+cluster://10.0.0.1:7000,10.0.0.2:7001/')).toBe('redis+cluster://10.0.0.1:7000,10.0.0.2:7001/');
    expect(clusterTarget('redis+cluster://app:s%3Acret@10.0.0.1:7000,redis-b:7001')).toEqual({
      nodes: [
        { host: '10.0.0.1', port: 7000 },
        { host: 'redis-b', port: 7001 },
      ],
      username: 'app',
      password: 's:cret',
    });
    expect(() => redis('redis+cluster://10.0.0.1')).toThrow('REDIS_URL names a cluster node "10.0.0.1" that is not host:port');
    expect(() => redis('redis+cluster://')).toThrow('REDIS_URL names a cluster node "" that is not host:port');
  });
});
