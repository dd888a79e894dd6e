import { createRedisEventTarget } from '@graphql-yoga/redis-event-target';
import Redis from 'ioredis';
import { logger } from '../logger';
import { classify } from './dependency';
import { OutageLog } from './outage';

/** A live subscription to one topic: `ready` once it is in effect everywhere; `close` ends it. */
export interface Listening {
  ready: Promise<void>;
  close(): void;
}

/**
 * Carries committed events to subscribers: in-process by default, through Redis when `redisUrl`
 * is set, so that a subscriber on one instance gets events committed through another. Payloads
 * are plain JSON, because Redis carries them between processes.
 */
export interface EventBus {
  /**
   * Carries `payload` to the topic's listeners everywhere. Resolves once the bus has taken it (with
   * Redis: once the server answered the PUBLISH); rejects when it could not (Redis unreachable),
   * in which case the event must stay in the outbox for a later attempt.
   */
  publish(topic: string, payload: object): Promise<void>;
  /**
   * Calls `listener` with each event published to `topic` from now on, in order, with the same
   * event object for every listener of the topic in this process. `ready` resolves once the
   * subscription is in effect everywhere (with Redis: once the server has confirmed it), so a
   * reader can then look at the store without a gap. After the bus lost its connection and got
   * it back, every listener is called once with CATCH_UP: events published meanwhile may never
   * arrive, so a stream reads what it missed from the store.
   */
  listen(topic: string, listener: (payload: object) => void): Listening;
  /** Resolves when the bus can carry events (with Redis: both connections answer PING); for readiness. */
  ping(): Promise<void>;
  /** Listeners in this process, all topics together; for metrics. */
  listenerCount(): number;
  /** Stops carrying events and drops every listener, including those of subscriptions still starting. */
  close(): Promise<void>;
}

/** Handed to every listener after the bus reconnected: "read the store for what you may have missed". */
export const CATCH_UP: object = Object.freeze({ catchUp: true });

/**
 * The listeners of this process, by topic. One event reaches every listener through a plain
 * loop: a busy topic with thousands of subscribers costs a function call each, not an event
 * dispatch and a queue per subscriber.
 */
class Listeners {
  private readonly byTopic = new Map<string, Set<(payload: object) => void>>();
  count = 0;

  /** Adds a listener; returns true when it is the topic's first. */
  add(topic: string, listener: (payload: object) => void): boolean {
    let set = this.byTopic.get(topic);
    const first = !set;
    if (!set) this.byTopic.set(topic, (set = new Set()));
    if (!set.has(listener)) this.count++;
    set.add(listener);
    return first;
  }

  /** Removes a listener; returns true when the topic has none left. */
  remove(topic: string, listener: (payload: object) => void): boolean {
    const set = this.byTopic.get(topic);
    if (!set) return false;
    if (set.delete(listener)) this.count--;
    if (set.size > 0) return false;
    this.byTopic.delete(topic);
    return true;
  }

  /** Drops every listener: a closed bus holds nothing, even for subscriptions still starting. */
  clear(): void {
    this.byTopic.clear();
    this.count = 0;
  }

  /** Calls every listener of every topic with `payload` (see CATCH_UP). */
  deliverAll(payload: object): void {
    for (const topic of [...this.byTopic.keys()]) this.deliver(topic, payload);
  }

  deliver(topic: string, payload: object): void {
    for (const listener of this.byTopic.get(topic) ?? []) {
      try {
        listener(payload);
      } catch (err) {
        logger.warn({ err, topic }, 'an event listener failed');
      }
    }
  }
}

/** The `ready` of every in-process listener: it is in effect at once. */
const IN_EFFECT: Promise<void> = Promise.resolve();

/**
 * One in-process listener: an object with its method on the prototype rather than a closure, since
 * every idle subscription holds one for as long as it is subscribed.
 */
class InProcessListening implements Listening {
  constructor(
    private readonly listeners: Listeners,
    private readonly topic: string,
    private readonly listener: (payload: object) => void,
  ) {}

  get ready(): Promise<void> {
    return IN_EFFECT;
  }

  close(): void {
    this.listeners.remove(this.topic, this.listener);
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

export function createEventBus(options: { redisUrl?: string; outage?: OutageLog } = {}): EventBus {
  const listeners = new Listeners();
  if (!options.redisUrl) {
    return {
      publish: async (topic, payload) => listeners.deliver(topic, payload),
      listen(topic, listener) {
        listeners.add(topic, listener);
        return new InProcessListening(listeners, topic, listener);
      },
      ping: async () => {},
      listenerCount: () => listeners.count,
      close: async () => listeners.clear(),
    };
  }
  // A PUBLISH fails at the first failed reconnection while Redis is unreachable, instead of
  // waiting for it in memory: the event stays in the outbox until Redis has taken it.
  const publishClient = new Redis(options.redisUrl, { maxRetriesPerRequest: 0 });
  const subscribeClient = new Redis(options.redisUrl);
  // A bus made without the app's outage log (tests, tools) still keeps Redis errors off stderr.
  const outage = options.outage ?? new OutageLog(10_000);
  for (const client of [publishClient, subscribeClient]) reportConnection(client, outage);
  // One Redis subscription per topic with listeners here; Redis hands each message over once.
  // Its events carry what the message's JSON parsed to: nothing is assumed about it here.
  const redis = createRedisEventTarget<CustomEvent<unknown>>({ publishClient, subscribeClient });
  // `publish` only ever sends an object's JSON; anything else on the channel is no event of ours.
  const onMessage = (event: CustomEvent<unknown>) => {
    if (typeof event.detail === 'object' && event.detail !== null) listeners.deliver(event.type, event.detail);
  };
  // ioredis subscribes again by itself after a reconnect (autoResubscribe); once the PING sent
  // after those SUBSCRIBEs is answered they are in effect, and every stream catches up from the
  // store on what was published while the connection was down.
  let connectedBefore = false;
  subscribeClient.on('ready', () => {
    if (!connectedBefore) {
      connectedBefore = true;
      return;
    }
    subscribeClient
      .ping()
      .then(() => listeners.deliverAll(CATCH_UP))
      .catch(() => {});
  });
  return {
    // The same JSON on the same channel as the event target's dispatchEvent, which would not say
    // whether Redis took the message.
    publish: async (topic, payload) => {
      await publishClient.publish(topic, JSON.stringify(payload));
    },
    listen(topic, listener) {
      if (listeners.add(topic, listener)) redis.addEventListener(topic, onMessage);
      return {
        // Redis answers a connection's commands in order, so once this PING is answered the
        // SUBSCRIBE sent before it on the same connection is in effect.
        ready: subscribeClient.ping().then(() => {}),
        close: () => {
          if (listeners.remove(topic, listener)) redis.removeEventListener(topic, onMessage);
        },
      };
    },
    async ping() {
      // A lost connection fails at once instead of queueing the PING until it reconnects.
      for (const client of [publishClient, subscribeClient]) {
        if (['reconnecting', 'close', 'end'].includes(client.status)) throw new Error(`redis connection is ${client.status}`);
      }
      await Promise.all([publishClient.ping(), subscribeClient.ping()]);
    },
    listenerCount: () => listeners.count,
    async close() {
      listeners.clear();
      await Promise.allSettled([publishClient.quit(), subscribeClient.quit()]);
      if (!options.outage) outage.stop();
    },
  };
}
