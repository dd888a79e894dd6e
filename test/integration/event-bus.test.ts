import Redis from 'ioredis';
import { Client, Pool } from 'pg';
import { isServiceUnavailable } from '../../src/infra/dependency';
import { Metrics } from '../../src/infra/metrics';
import { OutageLog } from '../../src/infra/outage';
import { CATCH_UP, createEventBus, type EventBus } from '../../src/infra/pubsub';
import { DRAW_TIMEOUT_MS, PAUSE_AFTER_TIMEOUT_MS, RateBudgets } from '../../src/infra/rate-limits';
import { startPostgresForServer } from '../support/postgres';
import { startRedis, type RedisServer } from '../support/redis';
import { startTcpProxy } from '../support/tcp-proxy';
import { eventually } from '../support/ws';
import { fixture, registerFixture, restoredAfter, stoppedAfter } from '../support/fixtures';

/*
 * The Redis event bus against a real redis-server that is killed (SIGKILL) and brought back on the
 * same port: what a listener and a publish see while Redis is down, and once it is back; and, with
 * the rate budgets' connection beside it, what a close leaves when Redis is frozen (SIGSTOP). The
 * PostgreSQL bus (LISTEN/NOTIFY) against a database of the run's PostgreSQL, reached through a
 * proxy that can refuse new connections while every session is ended.
 */

const counter = async (metrics: Metrics, name: string, labels: Record<string, string>) => {
  const values = (await metrics.registry.getSingleMetric(name)!.get()).values;
  return values.find((v) => Object.entries(labels).every(([k, l]) => v.labels[k] === l))?.value ?? 0;
};

describe('the Redis event bus while Redis is down', () => {
  let redis: RedisServer;
  let bus: EventBus;
  let metrics: Metrics;
  let outage: OutageLog;
  let logged: string[] = [];

  beforeEach(async () => {
    redis = await startRedis();
    logged = [];
    metrics = new Metrics({ processMetrics: false });
    outage = stoppedAfter(
      'outage log',
      new OutageLog(60_000, {
        warn: (_: object, m: string) => logged.push(m),
        info: (_: object, m: string) => logged.push(m),
      } as never),
    );
    bus = fixture('event bus', createEventBus({ redisUrl: redis.url, outage, metrics }), (b) => b.close());
    await eventually(
      () =>
        bus.ping().then(
          () => true,
          () => false,
        ),
      (up) => up,
    );
  });

  /** Kills redis-server and waits until the bus sees it gone (its PING fails). */
  const killRedis = async () => {
    await redis.kill();
    await eventually(
      () =>
        bus.ping().then(
          () => true,
          () => false,
        ),
      (up) => !up,
    );
  };

  it('makes a listener ready at once, and hands it CATCH_UP once its subscription is in effect after Redis is back', async () => {
    await killRedis();
    const received: object[] = [];
    const listening = bus.listen('topic-a', (payload) => received.push(payload));
    // Ready while Redis is down: a stream may read the store at once (it catches up later).
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<string>((resolve) => (timer = setTimeout(() => resolve('not ready after 1 s'), 1000)));
    expect(await Promise.race([listening.ready.then(() => 'ready'), late])).toBe('ready');
    clearTimeout(timer);
    redis = await startRedis(redis.port);
    await eventually(
      () => received.length,
      (n) => n > 0,
    );
    expect(received).toEqual([CATCH_UP]);
    // CATCH_UP comes once the SUBSCRIBE is in effect: a message published now by another client
    // reaches the listener, with no wait for anything else.
    const other = fixture('Redis client', new Redis(redis.url), (r) => r.disconnect());
    expect(await other.publish('topic-a', JSON.stringify({ n: 1 }))).toBe(1);
    await eventually(
      () => received.length,
      (n) => n === 2,
    );
    expect(received[1]).toEqual({ n: 1 });
    listening.close();
  });

  it('rejects a PUBLISH while Redis is down as SERVICE_UNAVAILABLE, counts it and summarizes it, without a line of its own', async () => {
    await redis.kill();
    const failures: unknown[] = [];
    for (let i = 0; i < 5; i++) await bus.publish('topic-b', { i }).catch((error) => failures.push(error));
    expect(failures).toHaveLength(5);
    for (const failure of failures) expect(isServiceUnavailable(failure)).toBe(true);
    expect(await counter(metrics, 'artissist_redis_calls_total', { command: 'PUBLISH', outcome: 'unreachable' })).toBe(5);
    expect(outage.failing()).toEqual(['redis']);
    // One line when Redis started failing; the rest waits for the interval's summary.
    expect(logged.filter((m) => m.startsWith('redis is failing'))).toHaveLength(1);
    expect(logged).toHaveLength(1);
    redis = await startRedis(redis.port);
    await eventually(
      () =>
        bus.publish('topic-b', { i: 5 }).then(
          () => true,
          () => false,
        ),
      (ok) => ok,
    );
    expect(await counter(metrics, 'artissist_redis_calls_total', { command: 'PUBLISH', outcome: 'ok' })).toBe(1);
  });

  it('closed while Redis is down, ends at once and leaves no connection behind once Redis is back', async () => {
    // The clients' reconnection delays go on a fake clock from here (the bus was made on the real
    // one), so the test can run them out instead of waiting for them; I/O, promises, setImmediate
    // and Date stay real. The registry puts the real timers back should the test fail on the way.
    registerFixture('fake timers', () => jest.useRealTimers());
    jest.useFakeTimers({ doNotFake: ['Date', 'hrtime', 'nextTick', 'performance', 'queueMicrotask', 'setImmediate'] });
    await redis.kill();
    // The bus sees Redis gone: its clients schedule a reconnection (a timer on the fake clock).
    const deadline = Date.now() + 10_000;
    while (jest.getTimerCount() === 0 && Date.now() < deadline) await new Promise((r) => setImmediate(r));
    expect(jest.getTimerCount()).toBeGreaterThan(0);
    const started = Date.now();
    await bus.close();
    expect(Date.now() - started).toBeLessThan(1000);
    // A minute of the clients' clock passes: every reconnection delay (at most 2 s) has run out,
    // and not one client tried to connect again. The spy only watches (it calls through).
    const connect = restoredAfter(jest.spyOn(Redis.prototype, 'connect'));
    await jest.advanceTimersByTimeAsync(60_000);
    expect(connect).not.toHaveBeenCalled();
    jest.useRealTimers();
    redis = await startRedis(redis.port);
    const probe = fixture('Redis client', new Redis(redis.url), (r) => r.disconnect());
    const clients = String(await probe.client('LIST'))
      .trim()
      .split('\n');
    expect(clients).toHaveLength(1);
  });

  it('closed while Redis is frozen, ends within its bound, answers the rate draws waiting on it, and holds no connection after', async () => {
    // The rate budgets' connection beside the bus's two: all three must go, whatever Redis does.
    const budgets = fixture('rate budgets', new RateBudgets({ redisUrl: redis.url, outage }), (b) => b.close());
    const probe = fixture('Redis client', new Redis(redis.url), (r) => r.disconnect());
    const clients = async () =>
      String(await probe.client('LIST'))
        .trim()
        .split('\n').length - 1;
    const draw = () => budgets.draw([{ budget: 'tenant', key: 'frozen', points: 100, cost: 1 }]);
    // A draw counted in Redis (not on the insurance limiter): the budgets' connection is in use.
    await eventually(
      async () => (await draw()) === null && (await probe.exists('artissist:rate:tenant:frozen')) === 1,
      (counted) => counted,
    );
    expect(await clients()).toBe(3);
    expect(bus.connections()).toBe(2);
    expect(budgets.held()).toEqual({ draws: 0, sockets: 1 });

    // Redis stops answering with its connections open: what is sent now waits for an answer. It
    // runs again before anything else is disposed, should the test fail before it thaws it.
    const thaw = registerFixture('frozen redis-server', () => redis.thaw());
    redis.freeze();
    const answers: unknown[] = [];
    const draws = [draw(), draw(), draw()].map((d) => d.then((answer) => answers.push(answer)));
    await new Promise((resolve) => setImmediate(resolve));
    expect(budgets.held().draws).toBe(3);
    expect(answers).toEqual([]);

    // Closing may wait a moment for answers under way, not for ever: a shutdown would hang on it.
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<string>((resolve) => (timer = setTimeout(() => resolve('still closing after 5 s'), 5_000)));
    const closed = Promise.all([bus.close(), budgets.close()]).then(() => 'closed');
    expect(await Promise.race([closed, bound])).toBe('closed');
    clearTimeout(timer);
    // Closed means their sockets are gone, not only told to go (endConnection awaits ended()).
    expect(bus.connections()).toBe(0);
    expect(budgets.held().sockets).toBe(0);
    // The draws waiting on the frozen Redis were answered (by the instance's own count), and nothing is held.
    await Promise.all(draws);
    expect(answers).toEqual([null, null, null]);
    await eventually(
      () => ({ ...budgets.held(), bus: bus.connections() }),
      (held) => held.draws === 0 && held.sockets === 0 && held.bus === 0,
    );
    // Redis, running again, holds the probe's connection alone.
    await thaw();
    await eventually(clients, (n) => n === 0);
  });
});

describe('the rate budgets while Redis is frozen', () => {
  it("answer a draw within their bound from the instance's own count, log the timeout, ask Redis once a pause, and count in Redis again once it answers", async () => {
    const redis = await startRedis();
    const logged: string[] = [];
    const log = { warn: (_: object, m: string) => logged.push(m), info: (_: object, m: string) => logged.push(m) };
    const outage = stoppedAfter('outage log', new OutageLog(60_000, log as never));
    const budgets = fixture('rate budgets', new RateBudgets({ redisUrl: redis.url, outage }), (b) => b.close());
    const probe = fixture('Redis client', new Redis(redis.url), (r) => r.disconnect());
    const scriptCalls = async () =>
      [...(await probe.info('commandstats')).matchAll(/^cmdstat_(?:evalsha|eval):calls=(\d+)/gm)].reduce((sum, m) => sum + Number(m[1]), 0);
    const draw = (key: string) => budgets.draw([{ budget: 'tenant', key, points: 2, cost: 1 }]);
    const counted = (key: string) => async () => (await draw(key)) === null && (await probe.exists(`artissist:rate:tenant:${key}`)) === 1;
    await eventually(counted('before'), (yes) => yes);
    const sent = await scriptCalls();

    const thaw = registerFixture('frozen redis-server', () => redis.thaw());
    redis.freeze();
    // Three draws of one turn against a budget of two: answered within the bound (they waited for
    // as long as Redis stayed frozen), by this instance's count, which holds the budget.
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<string>((resolve) => (timer = setTimeout(() => resolve('unanswered after 5 s'), 5_000)));
    const started = Date.now();
    const answers = await Promise.race([Promise.all([draw('frozen'), draw('frozen'), draw('frozen')]), bound]);
    clearTimeout(timer);
    expect(Array.isArray(answers) ? answers.map((a) => a?.budget ?? null) : answers).toEqual([null, null, 'tenant']);
    expect(Date.now() - started).toBeGreaterThanOrEqual(DRAW_TIMEOUT_MS - 5);
    expect(logged).toEqual(['redis is failing (timeout); further failures are summarized']);
    // Paused: the draws of the next turns take the instance's count without sending Redis a call.
    for (let n = 0; n < 5; n++) expect(await draw(`paused-${n}`)).toBeNull();
    const pausedFor = Date.now() - started - DRAW_TIMEOUT_MS;

    await thaw();
    // Redis, running again, has run what was sent to it while frozen: the timed-out call, and one
    // more for each pause that ended before the draws above were done.
    const frozenCalls = await eventually(
      async () => (await scriptCalls()) - sent,
      (n) => n >= 1,
    );
    expect(frozenCalls).toBeLessThanOrEqual(1 + Math.floor(pausedFor / PAUSE_AFTER_TIMEOUT_MS));
    // Once the pause is over, the draws are counted in Redis again, and nothing waits.
    await eventually(counted('after'), (yes) => yes, 5_000);
    expect(budgets.held()).toEqual({ draws: 0, sockets: 1 });
  });
});

describe('the PostgreSQL event bus while PostgreSQL is out of reach', () => {
  it('rejects a NOTIFY as SERVICE_UNAVAILABLE, fails its ping while the LISTEN connection is lost, and counts every NOTIFY and LISTEN by outcome', async () => {
    const { DATABASE_URL } = await startPostgresForServer();
    const direct = new URL(DATABASE_URL);
    const proxy = await startTcpProxy(`http://${direct.host}`);
    const viaProxy = new URL(DATABASE_URL);
    viaProxy.port = new URL(proxy.url).port;
    const pool = fixture('pool', new Pool({ connectionString: viaProxy.toString(), connectionTimeoutMillis: 2000 }), (p) => p.end());
    // An idle connection ended below is the pool's to drop (as the server's pool does, postgres/start.ts).
    pool.on('error', () => {});
    const metrics = new Metrics({ processMetrics: false });
    const outage = stoppedAfter('outage log', new OutageLog(60_000, { warn: () => {}, info: () => {} } as never));
    const bus = fixture(
      'event bus',
      createEventBus({ postgres: { url: viaProxy.toString(), pool, schema: 'artissist' }, outage, metrics }),
      (b) => b.close(),
    );
    const pinged = () =>
      bus.ping().then(
        () => true,
        () => false,
      );
    const calls = (command: string, outcome: string) => counter(metrics, 'artissist_postgres_calls_total', { command, outcome });
    await eventually(pinged, (up) => up);
    expect(await calls('LISTEN', 'ok')).toBe(1);
    await bus.publish('topic-p', { n: 1 });
    expect(await calls('NOTIFY', 'ok')).toBe(1);

    // Every session of the database ended (the pool's and the LISTEN connection), and no new one let through.
    proxy.refuse(true);
    const admin = fixture('postgres client', new Client({ connectionString: DATABASE_URL }), (c) => c.end());
    await admin.connect();
    await admin.query(
      'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
    );
    await eventually(pinged, (up) => !up);
    const failure = await bus.publish('topic-p', { n: 2 }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(isServiceUnavailable(failure)).toBe(true);
    expect(await calls('NOTIFY', 'unreachable')).toBe(1);
    await eventually(
      () => calls('LISTEN', 'unreachable'),
      (n) => n >= 1,
    );

    proxy.refuse(false);
    await eventually(pinged, (up) => up);
    expect(await calls('LISTEN', 'ok')).toBe(2);
    await bus.publish('topic-p', { n: 3 });
    expect(await calls('NOTIFY', 'ok')).toBe(2);
  });
});
