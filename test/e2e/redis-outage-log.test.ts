import { randomUUID } from 'node:crypto';
import { signDevToken } from '../../src/auth/jwt';
import { Role } from '../../src/auth/principal';
import { testEndpoint } from '../support/dynamo';
import { gqlAt, startInstance, type Instance } from '../support/instances';
import { startRedis, type RedisServer } from '../support/redis';
import { TEST_SECRET } from '../support/server';
import { eventually, metricValue, subscribe, type Subscription, wsClient } from '../support/ws';

/*
 * Redis killed (SIGKILL) and brought back on the same port while one real server instance, with
 * DynamoDB up, keeps committing events and serving subscriptions.
 */

const INTERVAL_MS = 2000;
const ACTIVITY = 'subscription($p: ID!, $after: Int) { projectActivity(projectId: $p, after: $after) { eventId position action } }';
const FAILED_PUBLISHES = 'artissist_redis_calls_total{command="PUBLISH",outcome="unreachable"}';

interface ActivityMessage {
  eventId: string;
  position: number;
  action: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The value of a counter, 0 before its first increment (a labelled counter has no series until then). */
async function counter(url: string, name: string): Promise<number> {
  const value = await metricValue(url, name);
  return Number.isNaN(value) ? 0 : value;
}

/** Settles with the promise, or fails naming `what` once `ms` have passed. */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  // AbortSignal.timeout's timer does not hold the process open, so nothing needs to clear it.
  const late = new Promise<never>((_, reject) =>
    AbortSignal.timeout(ms).addEventListener('abort', () => reject(new Error(`${what}: nothing after ${ms} ms`))),
  );
  return Promise.race([promise, late]);
}

/** Expects the positions `from`+1 … `to`, each once, in order. */
function expectExactly(received: ActivityMessage[], from: number, to: number): void {
  expect(received.map((m) => m.position)).toEqual(Array.from({ length: to - from }, (_, i) => from + 1 + i));
  expect(new Set(received.map((m) => m.eventId)).size).toBe(received.length);
}

describe('a Redis outage', () => {
  let redis: RedisServer;
  let instance: Instance;
  let stderr = '';
  let editor: string;

  beforeAll(async () => {
    redis = await startRedis();
    instance = await startInstance({
      DYNAMODB_ENDPOINT: testEndpoint(),
      TABLE_NAME: `t_${randomUUID().slice(0, 8)}`,
      REDIS_URL: redis.url,
      OUTAGE_LOG_INTERVAL_MS: String(INTERVAL_MS),
      // The sweeper publishes what the outage held back soon after Redis is back: within a second
      // and its grace, far inside the waits' 15-20 s. At 250 ms its Queries of the outbox shards
      // were most of this file's DynamoDB calls (423 Queries of 660 calls in all).
      OUTBOX_SWEEP_MS: '1000',
      OUTBOX_GRACE_MS: '500',
    });
    instance.child.stderr!.on('data', (chunk) => (stderr += chunk));
    editor = await signDevToken(new TextEncoder().encode(TEST_SECRET), { sub: 'e', tenantId: 'outage', roles: [Role.EDITOR] });
  });

  const project = async () =>
    (await gqlAt(instance.url, editor, 'mutation { createProject(input: { title: "Outage" }) { projectId } }')).data.createProject
      .projectId as string;
  /** Commits one event to the project's activity stream (through DynamoDB: Redis has no part in the commit). */
  const log = async (projectId: string) => {
    const result = await gqlAt(
      instance.url,
      editor,
      `mutation { createLog(projectId: "${projectId}", input: { rawText: "x" }) { logId } }`,
    );
    expect(result.errors).toBeUndefined();
  };
  /** The last position of the project's activity stream, as a client reads it (newest first). */
  const head = async (projectId: string) =>
    (await gqlAt(instance.url, editor, `{ activity(projectId: "${projectId}", first: 1) { nodes { position } } }`)).data.activity.nodes[0]
      .position as number;
  const follow = (projectId: string, after: number | null): Subscription<ActivityMessage> => {
    return subscribe<ActivityMessage>(wsClient(instance.url, editor), ACTIVITY, { p: projectId, after });
  };
  /** The lines the instance wrote since `from` (an offset in its output) that are about Redis or a publish. */
  const redisLines = (from: number) =>
    instance
      .output()
      .slice(from)
      .split('\n')
      .filter((line) => /redis|publish/i.test(line));
  /** Brings Redis back where the instance expects it, and waits until the instance says it answers again. */
  const restart = async (from: number) => {
    redis = await startRedis(redis.port);
    await eventually(
      () => instance.output().slice(from),
      (text) => text.includes('redis answers again'),
      20_000,
    );
  };

  it('is a few rate-limited JSON summaries, with no plain-text stack trace on stderr', async () => {
    const before = instance.output().length;
    await redis.kill();
    const downAt = Date.now();
    // The outage itself: Redis stays away until the instance has said so and summed up one interval.
    await eventually(
      () => redisLines(before).length,
      (n) => n >= 2,
      20_000,
    );
    // The instance reconnects by itself; a summary interval without failures says Redis answers again.
    await restart(before);
    const entries = redisLines(before).map((line) => JSON.parse(line));
    expect(entries[0]).toMatchObject({ level: 40, dependency: 'redis', msg: expect.stringContaining('redis is failing') });
    expect(entries.at(-1)).toMatchObject({ level: 30, dependency: 'redis', msg: 'redis answers again' });
    // One line when it starts failing, one summary per 2 s interval, one when it is back.
    process.stdout.write(`redis outage of ${Date.now() - downAt} ms: ${entries.length} log lines\n`);
    expect(entries.length).toBeLessThanOrEqual(8);
    expect(stderr).not.toContain('Unhandled error event');
    expect(stderr).not.toMatch(/\n\s+at /);
  }, 60_000);

  it('while events are committed at a steady pace, is still a few summaries; failed publishes are counted and every event reaches a subscriber once', async () => {
    const projectId = await project();
    const subscriber = follow(projectId, null);
    const start = (await subscriber.ack).position;
    const failedBefore = await counter(instance.url, FAILED_PUBLISHES);
    const before = instance.output().length;
    // One writer, one createLog every 40 ms or so: about as steady a pace as a worker's.
    let writing = true;
    let written = 0;
    const writer = (async () => {
      while (writing) {
        await log(projectId);
        written++;
        await sleep(40);
      }
    })();
    await eventually(
      () => written,
      (n) => n >= 5,
    );
    await redis.kill();
    const writtenBeforeOutage = written;
    // The outage itself: Redis stays away while the writer goes on, until the instance has summed
    // up one interval of failures and more than 20 events are committed.
    await eventually(
      () => redisLines(before).length >= 2 && written > writtenBeforeOutage + 20,
      (enough) => enough,
      30_000,
    );
    const writtenDuringOutage = written - writtenBeforeOutage;
    await restart(before);
    // A few more once Redis is back, then the writer stops.
    const target = written + 10;
    await eventually(
      () => written,
      (n) => n >= target,
    );
    writing = false;
    await writer;
    // Every event once, in order: those held back in the outbox and those committed since.
    await subscriber.waitFor(written);
    await eventually(
      () => metricValue(instance.url, 'artissist_outbox_backlog'),
      (n) => n === 0,
    );
    expectExactly(subscriber.received, start, start + written);
    expect(subscriber.errors).toEqual([]);

    const lines = redisLines(before);
    process.stdout.write(
      `redis outage under ${writtenDuringOutage} commits: ${lines.length} log lines about Redis or publishing, ${lines.join('\n').length} bytes\n`,
    );
    expect(writtenDuringOutage).toBeGreaterThan(20);
    // No line per event: only the outage log's lines, and no stack trace anywhere.
    const entries = lines.map((line) => JSON.parse(line));
    for (const entry of entries) expect(entry.dependency).toBe('redis');
    expect(instance.output().slice(before)).not.toContain('publish failed');
    expect(instance.output().slice(before)).not.toMatch(/\n\s+at /);
    expect(entries.length).toBeLessThanOrEqual(8);
    // Each summary comes at least an interval after the one before it.
    const summaries = entries.filter((e) => e.failures !== undefined);
    expect(summaries.length).toBeGreaterThan(0);
    for (let i = 1; i < summaries.length; i++) expect(summaries[i].time - summaries[i - 1].time).toBeGreaterThanOrEqual(INTERVAL_MS - 50);
    // The failed publishes are counted, by the metric and in the summaries.
    const failed = (await counter(instance.url, FAILED_PUBLISHES)) - failedBefore;
    expect(failed).toBeGreaterThan(0);
    expect(summaries.reduce((n, e) => n + e.failures, 0)).toBeGreaterThanOrEqual(failed);
  }, 90_000);

  it('acknowledges and replays at once a subscription started during the outage, whose live events follow once Redis is back', async () => {
    const projectId = await project();
    for (let i = 0; i < 4; i++) await log(projectId);
    // The client's last position: two events before the head.
    const from = (await head(projectId)) - 2;
    const before = instance.output().length;
    await redis.kill();
    // Committed during the outage, before anyone subscribes: stored, not published.
    for (let i = 0; i < 4; i++) await log(projectId);
    const atSubscribe = await head(projectId);
    // One subscription resumes from `from`, another starts at the head; neither of their topics
    // has a Redis subscription yet on this instance.
    const started = Date.now();
    const resumed = follow(projectId, from);
    const fresh = follow(projectId, null);
    // Redis stays away until both are acknowledged and the replay is in: they wait on DynamoDB only.
    const [resumedAck, freshAck] = await within(Promise.all([resumed.ack, fresh.ack]), 10_000, 'acknowledgement while Redis is down');
    await within(resumed.waitFor(atSubscribe - from), 10_000, 'replay while Redis is down');
    const waited = Date.now() - started;
    process.stdout.write(`subscribed during a Redis outage: acknowledged and replayed in ${waited} ms\n`);
    expect(waited).toBeLessThan(2000);
    expect(resumedAck.position).toBe(from);
    expect(freshAck.position).toBe(atSubscribe);
    expectExactly(resumed.received, from, atSubscribe);
    // Committed after their replay, while Redis is still down: read from the store once it is back.
    for (let i = 0; i < 4; i++) await log(projectId);
    await restart(before);
    // And committed once it is back: live.
    for (let i = 0; i < 4; i++) await log(projectId);
    const last = atSubscribe + 8;
    await resumed.waitFor(last - from);
    await fresh.waitFor(last - atSubscribe);
    await eventually(
      () => metricValue(instance.url, 'artissist_outbox_backlog'),
      (n) => n === 0,
    );
    expect(await head(projectId)).toBe(last);
    expectExactly(resumed.received, from, last);
    expectExactly(fresh.received, atSubscribe, last);
    expect([...resumed.errors, ...fresh.errors]).toEqual([]);
  }, 90_000);
});
