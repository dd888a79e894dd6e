import { createRedisEventTarget } from '@graphql-yoga/redis-event-target';
import { createPubSub } from '@graphql-yoga/subscription';
import Redis from 'ioredis';

/**
 * Carries committed events to subscribers: in-process by default, through Redis when `redisUrl`
 * is set, so that a subscriber on one instance gets events committed through another. Payloads
 * are plain JSON, because Redis carries them between processes.
 */
export interface EventBus {
  publish(topic: string, payload: object): void;
  /**
   * Subscribes to `topic`. Live events are queued from the moment the returned iterator is first
   * pulled; `ready` resolves once the subscription is in effect everywhere (with Redis: once the
   * server has confirmed it), so a reader can then look at the store without a gap.
   */
  subscribe(topic: string): { events: AsyncIterator<unknown>; ready: () => Promise<void> };
  close(): Promise<void>;
}

export function createEventBus(options: { redisUrl?: string } = {}): EventBus {
  if (!options.redisUrl) {
    const pubsub = createPubSub<Record<string, [object]>>();
    return {
      publish: (topic, payload) => pubsub.publish(topic, payload),
      subscribe: (topic) => ({ events: pubsub.subscribe(topic)[Symbol.asyncIterator](), ready: async () => {} }),
      close: async () => {},
    };
  }
  const publishClient = new Redis(options.redisUrl, { lazyConnect: false, maxRetriesPerRequest: 3 });
  const subscribeClient = new Redis(options.redisUrl, { lazyConnect: false });
  const pubsub = createPubSub<Record<string, [object]>>({ eventTarget: createRedisEventTarget({ publishClient, subscribeClient }) });
  return {
    publish: (topic, payload) => pubsub.publish(topic, payload),
    subscribe: (topic) => ({
      events: pubsub.subscribe(topic)[Symbol.asyncIterator](),
      // Redis answers a connection's commands in order, so once this PING is answered the
      // SUBSCRIBE sent before it on the same connection is in effect.
      ready: async () => {
        await subscribeClient.ping();
      },
    }),
    async close() {
      await Promise.allSettled([publishClient.quit(), subscribeClient.quit()]);
    },
  };
}
