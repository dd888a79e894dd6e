import Redis, { ReplyError } from 'ioredis';
import type { Pool } from 'pg';
import { logger } from '../logger';
import { CATCH_UP, type EventBus, IN_EFFECT, type Listener, Listeners, type Listening, redisOutcome, TopicListening } from './bus-core';
import { classify, isOutage, serviceUnavailable } from './dependency';
import type { Metrics } from './metrics';
import { OutageLog } from './outage';
import { createClusterBus } from './pubsub-cluster';
import { createPostgresBus } from './pubsub-postgres';
import { clusterTarget, endConnection, openSockets } from './redis-target';

export { CATCH_UP, type EventBus, type Listener, type Listening, redisOutcome, UNCOUNTED, type Uncounted } from './bus-core';

const noop = () => {};

/**
 * One listener of a topic on the Redis bus (see TopicListening): once the topic's last listener
 * here has closed, the bus unsubscribes from it.
 */
class RedisListening implements Listening {
  constructor(
    private readonly listeners: Listeners,
    private readonly topic: string,
    private readonly listener: Listener,
    public ready: Promise<void>,
    private readonly unsubscribe: (topic: string) => void,
  ) {
    // Once in effect it is the one shared settled promise, not its own for the subscription's
    // life; a refusal stays as it is, for whoever awaits it.
    if (ready !== IN_EFFECT) ready.then(() => (this.ready = IN_EFFECT), noop);
  }

  close(): void {
    if (this.listeners.remove(this.topic, this.listener)) this.unsubscribe(this.topic);
  }
}

/**
 * Routes a Redis client's connection errors to the outage log: one line when Redis starts failing,
 * then a summary per interval and one when it answers again, like DynamoDB's. Without an `error`
 * listener ioredis prints every failed reconnection as a plain-text stack trace on stderr.
 */
function reportConnection(client: Redis, outage: OutageLog): void {
  client.on('error', (error) => outage.failure('redis', classify(error)));
  client.on('ready', () => outage.connected('redis'));
}

/**
 * The event bus through Redis: one connection publishes, one subscribes (a subscribed connection
 * takes no other command but PING). What happens while Redis is unreachable is decided here, not
 * left to ioredis's defaults (ioredis 5, read from its source):
 *
 *   - Neither connection keeps a command for a later connection (`maxRetriesPerRequest: 0`): a
 *     command sent or queued while the connection is down fails at the next failed reconnection
 *     attempt (within ioredis's retry delay, at most 2 s) instead of after 20 of them.
 *   - A failed PUBLISH rejects `publish`, so the event stays in the outbox; it is counted
 *     (artissist_redis_calls_total{command="PUBLISH",outcome}) and summarized by the outage log
 *     with the connection's own failures, not logged one line per event.
 *   - The subscribing connection neither queues commands while it is down (`enableOfflineQueue:
 *     false`) nor resubscribes by itself (`autoResubscribe: false`): this bus knows which topics
 *     it wants (those with listeners here), and on every connection, the first and each one after
 *     an outage, it subscribes to all of them, then PINGs, and once that PING is answered hands
 *     every listener CATCH_UP. A listener that starts while the connection is down is therefore
 *     `ready` at once: whatever is published before its SUBSCRIBE is in effect was committed, so
 *     in the store, before that PING was answered, and the store read that CATCH_UP asks for finds
 *     it. So a subscription started during an outage is acknowledged and replayed from the store
 *     at once, and its live events follow once Redis is back.
 */
function createRedisBus(
  url: string,
  listeners: Listeners,
  outage: OutageLog,
  metrics: Metrics | undefined,
): Omit<EventBus, 'close'> & {
  clients: Redis[];
} {
  const publishClient = new Redis(url, { maxRetriesPerRequest: 0 });
  const subscribeClient = new Redis(url, { maxRetriesPerRequest: 0, enableOfflineQueue: false, autoResubscribe: false });
  for (const client of [publishClient, subscribeClient]) reportConnection(client, outage);

  /**
   * Whether a failed SUBSCRIBE, UNSUBSCRIBE or PING was refused by Redis (a ReplyError), rather than
   * lost with the connection; a refusal is logged here. ioredis fails these commands itself only
   * when the connection is closing or closed: "Stream isn't writeable" (its status can still say
   * `ready` while the socket closes), MaxRetriesPerRequestError (closed with the command in
   * flight), "Connection is closed" (the bus was closed). A lost command is the outage itself,
   * which the `error` listener already counts, and the next connection subscribes and catches up:
   * nothing to add.
   */
  const refused = (error: unknown, what: string, topic?: string): boolean => {
    if (!(error instanceof ReplyError)) return false;
    logger.warn({ err: error, topic }, `redis refused ${what}`);
    return true;
  };

  /**
   * Per topic with listeners here, when its subscription is in effect on the current connection:
   * the promise of the SUBSCRIBE (and the PING after it) sent for it, or IN_EFFECT once answered.
   * A topic's later listeners share it instead of each sending a PING of their own: a listener is
   * added before it reads `ready`, so from the moment the topic's subscription is in effect every
   * event published to it reaches that listener too. A burst of subscribers of one job (50,000
   * after a deploy) was one PING and one promise each, 8 % of the server's CPU while they
   * subscribed (bench/fanout-scale.ts). Emptied when a connection becomes ready (it subscribes to
   * every topic again, see below) and a topic's entry goes with its last listener.
   */
  const inEffect = new Map<string, Promise<void>>();

  /** The `ready` of a topic's SUBSCRIBE (sent first when `subscribed` is given) and the PING after it, kept in `inEffect`. */
  const confirm = (topic: string, subscribed: Promise<unknown>): Promise<void> => {
    const ready: Promise<void> = Promise.all([subscribed, subscribeClient.ping()]).then(
      () => {
        if (inEffect.get(topic) === ready) inEffect.set(topic, IN_EFFECT);
      },
      (error) => {
        // Lost before the answer: the next connection subscribes and catches up (see above); the
        // entry goes, so that the topic's next listener asks again rather than share this answer.
        if (inEffect.get(topic) === ready) inEffect.delete(topic);
        if (refused(error, 'a SUBSCRIBE', topic)) throw error;
      },
    );
    inEffect.set(topic, ready);
    return ready;
  };

  /** A topic's last listener here closed: the connection, if up, stops receiving it. */
  const unsubscribe = (topic: string) => {
    inEffect.delete(topic);
    if (subscribeClient.status !== 'ready') return;
    subscribeClient.unsubscribe(topic).catch((error) => refused(error, 'an UNSUBSCRIBE', topic));
  };

  // Payloads are the JSON of an object (see `publish`); anything else on a channel is no event of
  // ours and is dropped, with a line, since it means another client publishes on our channels.
  subscribeClient.on('message', (topic: string, message: string) => {
    let payload: unknown;
    try {
      payload = JSON.parse(message);
    } catch (error) {
      logger.warn({ err: error, topic }, 'a message on an event channel is not JSON; dropped');
      return;
    }
    if (typeof payload === 'object' && payload !== null) listeners.deliver(topic, payload);
  });

  subscribeClient.on('ready', () => {
    const topics = listeners.topics();
    // What an earlier connection confirmed does not hold on this one; a listener that comes before
    // the subscriptions below are answered sends its own PING after them.
    inEffect.clear();
    // Sent in this order on one connection, so once the PING is answered every SUBSCRIBE before it
    // is in effect, and every event published before that is in the store.
    const subscribed = topics.length > 0 ? subscribeClient.subscribe(...topics) : Promise.resolve();
    Promise.all([subscribed, subscribeClient.ping()]).then(
      () => listeners.deliverAll(CATCH_UP),
      (error) => {
        // Lost again before the answer: the next connection does all of this again. Refused (an
        // ACL that forbids a channel): no live event comes, and the line says so; the streams
        // still read from the store what they missed so far.
        if (refused(error, 'the subscriptions of a new connection')) listeners.deliverAll(CATCH_UP);
      },
    );
  });

  return {
    clients: [publishClient, subscribeClient],
    async publish(topic, payload) {
      const message = JSON.stringify(payload);
      const started = performance.now();
      try {
        // Only ioredis's own failures come here: a lost connection, or Redis's answer.
        await publishClient.publish(topic, message);
      } catch (error) {
        const outcome = redisOutcome(error);
        metrics?.recordCall('redis', 'PUBLISH', (performance.now() - started) / 1000, outcome);
        if (!isOutage(outcome)) {
          outage.success('redis');
          throw error;
        }
        outage.failure('redis', outcome);
        throw serviceUnavailable('redis', outcome, error);
      }
      metrics?.recordCall('redis', 'PUBLISH', (performance.now() - started) / 1000, 'ok');
      outage.success('redis');
    },
    listen(topic, listener, uncounted) {
      const first = listeners.add(topic, listener, uncounted);
      // Down (or not yet up): the next connection subscribes to this topic and hands it CATCH_UP.
      if (subscribeClient.status !== 'ready') return new RedisListening(listeners, topic, listener, IN_EFFECT, unsubscribe);
      // Redis answers a connection's commands in order, so once this PING is answered the
      // SUBSCRIBE sent before it (by this listener, or by the topic's first) is in effect. A later
      // listener of a topic whose SUBSCRIBE and PING were sent on this connection shares their answer.
      const known = first ? undefined : inEffect.get(topic);
      const ready = known ?? confirm(topic, first ? subscribeClient.subscribe(topic) : Promise.resolve());
      return new RedisListening(listeners, topic, listener, ready, unsubscribe);
    },
    async ping() {
      // A lost connection fails at once instead of waiting for a reconnection.
      for (const client of [publishClient, subscribeClient]) {
        if (client.status !== 'ready') throw new Error(`redis connection is ${client.status}`);
      }
      await Promise.all([publishClient.ping(), subscribeClient.ping()]);
    },
    listenerCount: () => listeners.count,
    connections: () => openSockets(publishClient) + openSockets(subscribeClient),
  };
}

/**
 * The server's event bus: through Redis when `redisUrl` is set; else, on PostgreSQL (`postgres`:
 * the store's pool, the URL its LISTEN connection opens, the schema), through LISTEN/NOTIFY
 * (pubsub-postgres.ts); else in this process only.
 */
export function createEventBus(
  options: { redisUrl?: string; postgres?: { url: string; pool: Pool; schema: string }; outage?: OutageLog; metrics?: Metrics } = {},
): EventBus {
  const listeners = new Listeners();
  if (!options.redisUrl && options.postgres) {
    const outage = options.outage ?? new OutageLog(10_000);
    const bus = createPostgresBus(options.postgres, listeners, outage, options.metrics);
    return {
      ...bus,
      async close() {
        await bus.close();
        if (!options.outage) outage.stop();
      },
    };
  }
  if (!options.redisUrl) {
    return {
      publish: async (topic, payload) => listeners.deliver(topic, payload),
      listen(topic, listener, uncounted) {
        listeners.add(topic, listener, uncounted);
        return new TopicListening(listeners, topic, listener);
      },
      ping: async () => {},
      listenerCount: () => listeners.count,
      connections: () => 0,
      close: async () => listeners.clear(),
    };
  }
  // A bus made without the app's outage log (tests, tools) still keeps Redis errors off stderr.
  const outage = options.outage ?? new OutageLog(10_000);
  const cluster = clusterTarget(options.redisUrl);
  if (cluster) {
    const bus = createClusterBus(cluster, listeners, outage, options.metrics);
    return {
      ...bus,
      async close() {
        await bus.close();
        if (!options.outage) outage.stop();
      },
    };
  }
  const { clients, ...bus } = createRedisBus(options.redisUrl, listeners, outage, options.metrics);
  return {
    ...bus,
    async close() {
      listeners.clear();
      await Promise.all(clients.map(endConnection));
      if (!options.outage) outage.stop();
    },
  };
}
