import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import WebSocket from 'ws';
import { signDevToken } from '../../src/auth/jwt';
import { Role } from '../../src/auth/principal';
import { testEndpoint } from '../support/dynamo';
import { fixture } from '../support/fixtures';
import { gqlAt as gql, type Instance, startInstance } from '../support/instances';
import { startRedis } from '../support/redis';
import { TEST_SECRET } from '../support/server';
import { metricValue } from '../support/ws';
import { waitFor } from '../support/wait';

/**
 * bench/fanout-scale.ts scaled down: one job's subscribers spread over three instances on one
 * Redis (`node dist/bench/fanout-scale.js 50000 3` runs it at 50,000; docs/scaling.md). With a
 * keep-alive of 2 s, rounds of pings (in slices of 500 sockets, src/http/slices.ts) run all
 * through. Every subscriber must have every event once and in order, none may be dropped by the
 * keep-alive, and once the subscribers leave, no instance may hold a socket, a subscription or a
 * bus listener, nor Redis a subscribed topic.
 */
const PER_INSTANCE = 600;
const EVENTS = 10;

describe('one job fanned out to subscribers on three instances over one Redis', () => {
  it('delivers every event to every subscriber once, in order, and releases everything after they leave', async () => {
    const redis = await startRedis();
    const env = {
      DYNAMODB_ENDPOINT: testEndpoint(),
      TABLE_NAME: `t_${randomUUID().slice(0, 8)}`,
      REDIS_URL: redis.url,
      // Rounds run all through (opening takes seconds); at 300 ms this busy process's sockets, which
      // answer the pings, could not answer in time and were rightly dropped (1006).
      WS_KEEPALIVE_MS: '2000',
      // The subscribes of a burst count against the tenant's budgets; these are set above it.
      PLAN_LIMITS: JSON.stringify({ free: { requestsPerSecond: 100_000, userRequestsPerSecond: 100_000 } }),
      // No outbox sweep, as test/support/server.ts has it: the writers publish what they commit, and
      // no publish here is meant to fail. At the production pace each instance queried the outbox
      // shards about 3 times a second for this file's minute (62 Queries against 10 for an idle
      // instance in 21 s), CPU spent in DynamoDB Local for nothing asserted.
      OUTBOX_SWEEP_MS: '3600000',
    };
    const instances: Instance[] = await Promise.all([startInstance(env), startInstance(env), startInstance(env)]);
    const secret = new TextEncoder().encode(TEST_SECRET);
    const editor = await signDevToken(secret, { sub: 'e', tenantId: 'fan', roles: [Role.EDITOR] });
    const worker = await signDevToken(secret, { sub: 'w', tenantId: 'fan', roles: [Role.WORKER] });
    const projectId = (await gql(instances[0].url, editor, 'mutation { createProject(input: { title: "Fan" }) { projectId } }')).data
      .createProject.projectId;
    const jobId = (
      await gql(
        instances[0].url,
        editor,
        `mutation { createJob(input: { projectId: "${projectId}", kind: "K", steps: ["render"] }) { jobId } }`,
      )
    ).data.createJob.jobId;
    await gql(instances[0].url, worker, `mutation { startStep(jobId: "${jobId}", stepName: "render") { seq } }`);

    // Per socket, the seqs of the events it had, and whether it was told it is subscribed.
    const seqs: number[][] = [];
    const subscribed: boolean[] = [];
    const closes: number[] = [];
    const sockets: WebSocket[] = [];
    // Resolved once every subscriber has had EVENTS events (each socket's message is the event awaited).
    let complete = 0;
    let allDelivered: () => void = () => {};
    const delivered = new Promise<void>((resolve) => (allDelivered = resolve));
    const open = (index: number) =>
      new Promise<void>((resolve, reject) => {
        const ws = new WebSocket(instances[index % 3].url.replace(/^http/, 'ws'), 'graphql-transport-ws');
        fixture(`subscriber ${index}`, ws, (socket) => socket.terminate());
        sockets.push(ws);
        seqs[index] = [];
        ws.on('error', reject);
        ws.on('close', (code) => closes.push(code));
        ws.on('open', () => ws.send(JSON.stringify({ type: 'connection_init', payload: { authorization: `Bearer ${editor}` } })));
        ws.on('message', (data) => {
          const message = JSON.parse(data.toString());
          if (message.type === 'connection_ack')
            ws.send(
              JSON.stringify({
                id: '1',
                type: 'subscribe',
                payload: { query: `subscription { jobProgress(jobId: "${jobId}") { seq type } }` },
              }),
            );
          else if (message.type === 'next' && message.payload.data.jobProgress.type === 'SUBSCRIBED') {
            subscribed[index] = true;
            resolve();
          } else if (message.type === 'next') {
            seqs[index].push(message.payload.data.jobProgress.seq);
            if (seqs[index].length === EVENTS && ++complete === PER_INSTANCE * 3) allDelivered();
          } else reject(new Error(`subscriber ${index} got ${data.toString().slice(0, 300)}`));
        });
      });
    for (let i = 0; i < PER_INSTANCE * 3; i += 100) await Promise.all(Array.from({ length: 100 }, (_, k) => open(i + k)));
    expect(subscribed.filter(Boolean)).toHaveLength(PER_INSTANCE * 3);
    for (const instance of instances) expect(await metricValue(instance.url, 'artissist_graphql_ws_subscriptions')).toBe(PER_INSTANCE);

    const sent: number[] = [];
    for (let round = 0; round < EVENTS; round++) {
      sent.push(
        (
          await gql(
            instances[round % 3].url,
            worker,
            `mutation { reportStepProgress(jobId: "${jobId}", stepName: "render", progress: ${round / 100}) { seq } }`,
          )
        ).data.reportStepProgress.seq,
      );
    }
    // A deadline that says what was missing, rather than the test's timeout.
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const short = seqs.findIndex((s) => s.length < EVENTS);
        reject(
          new Error(
            `${complete} of ${PER_INSTANCE * 3} subscribers had every event; subscriber ${short} had ${seqs[short]} of ${sent}; closes ${closes.slice(0, 10)}`,
          ),
        );
      }, 60_000);
    });
    await Promise.race([delivered, late]).finally(() => clearTimeout(timer));
    // Once and in order, on every instance's subscribers alike; and the keep-alive dropped none of them.
    for (const s of seqs) expect(s).toEqual(sent);
    expect(closes).toEqual([]);

    for (const ws of sockets) ws.close();
    for (const instance of instances) {
      await waitFor(
        async () =>
          (await metricValue(instance.url, 'artissist_graphql_ws_connections')) === 0 &&
          (await metricValue(instance.url, 'artissist_graphql_ws_subscriptions')) === 0 &&
          (await metricValue(instance.url, 'artissist_event_bus_listeners')) === 0,
        `${instance.url} to release its sockets, subscriptions and bus listeners`,
        { ms: 10_000 },
      );
    }
    // No instance still follows the job's topic in Redis: each keeps listening for its known head
    // (src/events/known-heads.ts) until no subscribe asked for it for 10 s, checked every 10 s.
    const probe = new Redis(redis.url);
    fixture('redis probe', probe, (client) => client.disconnect());
    await waitFor(async () => (await probe.pubsub('CHANNELS')).length === 0, 'Redis to have no subscribed topic', { ms: 30_000 });
  }, 180_000);
});
