import { ReplyError } from 'ioredis';
import { logger } from '../logger';
import { classify } from './dependency';
import type { CallOutcome } from './metrics';

// What every event bus shares (pubsub.ts, pubsub-cluster.ts): its interface, the listeners of this
// process, the CATCH_UP signal, and what a failed Redis command means.
/** A live subscription to one topic: `ready` once it is in effect everywhere; `close` ends it. */
export interface Listening {
  ready: Promise<void>;
  close(): void;
}

/**
 * Carries committed events to subscribers: in-process by default, through Redis when `redisUrl`
 * is set, so that a subscriber on one instance gets events committed through another (on a Redis
 * Cluster, `redis+cluster://…`, by sharded pub/sub: see pubsub-cluster.ts). Payloads are plain
 * JSON, because Redis carries them between processes.
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
   * event object for every listener of the topic in this process. `ready` resolves once a reader
   * can look at the store without a gap: once the subscription is in effect everywhere (with
   * Redis: once the server has confirmed it), or at once while the bus has no connection. After
   * the bus (re)connected, every listener is called once with CATCH_UP, once its subscription is
   * in effect: events published before may never arrive, so a stream reads what it missed from
   * the store. A listener made while the bus was down gets that CATCH_UP too, which covers what
   * was published between its start and the bus's return. A listener made with `uncounted` (the
   * server's own bookkeeping, such as a topic's known head, rather than a subscriber) is left out
   * of `listenerCount`.
   */
  listen(topic: string, listener: Listener, uncounted?: Uncounted): Listening;
  /** Resolves when the bus can carry events (with Redis: both connections answer PING); for readiness. */
  ping(): Promise<void>;
  /** Listeners in this process, all topics together, but those made `uncounted`; for metrics. */
  listenerCount(): number;
  /**
   * The connections to Redis or PostgreSQL the bus holds now, open or opening (none in process).
   * Tests read it to see each released once the bus is closed.
   */
  connections(): number;
  /** Stops carrying events and drops every listener, including those of subscriptions still starting. */
  close(): Promise<void>;
}

/** Passed to `listen` for a listener that is the server's own bookkeeping, not a subscriber's (see EventBus.listen). */
export const UNCOUNTED = Symbol('uncounted');
export type Uncounted = typeof UNCOUNTED;

/** Handed to every listener after the bus (re)connected: "read the store for what you may have missed". */
export const CATCH_UP: object = Object.freeze({ catchUp: true });

/**
 * What a bus calls with each event of a topic: a function, or an object whose `onLive` it calls.
 * The object form is for a listener that is an object already (a subscriber's stream), which then
 * needs no function bound to it (48 bytes, for as long as it listens).
 */
export type Listener = ((payload: object) => void) | { onLive(payload: object): void };

/** Hands `payload` to `listener`, whichever its form. */
export function callListener(listener: Listener, payload: object): void {
  if (typeof listener === 'function') listener(payload);
  else listener.onLive(payload);
}

/**
 * The listeners of this process, by topic. One event reaches every listener through a plain
 * loop: a busy topic with thousands of subscribers costs a function call each, not an event
 * dispatch and a queue per subscriber.
 */
export class Listeners {
  private readonly byTopic = new Map<string, Set<Listener>>();
  /** The listeners left out of `count` (see EventBus.listen). */
  private readonly uncounted = new WeakSet<Listener>();
  count = 0;

  /** Adds a listener; returns true when it is the topic's first. */
  add(topic: string, listener: Listener, uncounted?: Uncounted): boolean {
    let set = this.byTopic.get(topic);
    const first = !set;
    if (!set) this.byTopic.set(topic, (set = new Set()));
    if (uncounted) this.uncounted.add(listener);
    else if (!set.has(listener)) this.count++;
    set.add(listener);
    return first;
  }

  /** Removes a listener; returns true when the topic has none left. */
  remove(topic: string, listener: Listener): boolean {
    const set = this.byTopic.get(topic);
    if (!set) return false;
    if (set.delete(listener) && !this.uncounted.has(listener)) this.count--;
    if (set.size > 0) return false;
    this.byTopic.delete(topic);
    return true;
  }

  /** True when `topic` has a listener here. */
  has(topic: string): boolean {
    return this.byTopic.has(topic);
  }

  /** The topics with listeners here. */
  topics(): string[] {
    return [...this.byTopic.keys()];
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
        callListener(listener, payload);
      } catch (err) {
        logger.warn({ err, topic }, 'an event listener failed');
      }
    }
  }
}

/**
 * One listener of a topic, in effect at once, as a bus's `listen` returns it: an object with its
 * method on the prototype rather than a closure (and its context) over the topic and the listener,
 * since every idle subscription holds one for as long as it is subscribed.
 */
export class TopicListening implements Listening {
  constructor(
    private readonly listeners: Listeners,
    private readonly topic: string,
    private readonly listener: Listener,
  ) {}

  get ready(): Promise<void> {
    return IN_EFFECT;
  }

  close(): void {
    this.listeners.remove(this.topic, this.listener);
  }
}

/**
 * A message on a channel that carries many topics (a Redis Cluster's channel group, PostgreSQL's
 * NOTIFY channel): the topic, a newline, the event's JSON (topics hold no newline). With nothing
 * after the newline it is a hint, not an event: see deliverMessage.
 */
export function encodeMessage(topic: string, payload?: object): string {
  return `${topic}\n${payload === undefined ? '' : JSON.stringify(payload)}`;
}

/**
 * Hands a message made by encodeMessage to its topic's listeners here, if it has any (every
 * instance gets the events of every topic on the channel, and most have no listener here, so they
 * are not parsed). A hint (no JSON after the topic: the event was too large for the channel) hands
 * them CATCH_UP, so they read the event from the store. A message that is not JSON is no event of
 * ours: it is dropped with a line naming `channel`, since it means another client writes to it.
 */
export function deliverMessage(listeners: Listeners, message: string, channel: string): void {
  const newline = message.indexOf('\n');
  const topic = newline < 0 ? '' : message.slice(0, newline);
  if (!listeners.has(topic)) return;
  const json = message.slice(newline + 1);
  if (json === '') {
    listeners.deliver(topic, CATCH_UP);
    return;
  }
  let payload: unknown;
  try {
    payload = JSON.parse(json);
  } catch (error) {
    logger.warn({ err: error, channel }, 'a message on an event channel is not JSON; dropped');
    return;
  }
  if (typeof payload === 'object' && payload !== null) listeners.deliver(topic, payload);
}

/**
 * The pause before a lost subscription's attempt to subscribe again: none at first, then 100 ms
 * for about 3 s (a failover or a restart takes a few seconds, and each attempt that finds the
 * service back sooner shortens the gap to fill), then 500 ms for as long as it stays unreachable.
 */
export function retryPause(attempt: number): number {
  return attempt === 0 ? 0 : attempt <= 30 ? 100 : 500;
}

/** `promise`, or a rejection once `ms` have passed or `failed` rejects, whichever comes first. */
export function bounded<T>(promise: Promise<T>, ms: number, what: string, failed?: Promise<never>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
  });
  return Promise.race(failed ? [promise, timeout, failed] : [promise, timeout]).finally(() => clearTimeout(timer));
}

/** The `ready` of every in-process listener: it is in effect at once. */
export const IN_EFFECT: Promise<void> = Promise.resolve();

/**
 * What a failed Redis command means, as a call outcome. An error Redis answered with (ReplyError:
 * a wrong command, an ACL refusal) is the server's verdict on the command, not an outage: `error`,
 * logged in full where it happens. Anything else is ioredis giving up on a command it could not
 * send or whose answer never came because the connection was lost (`maxRetriesPerRequest: 0`, pubsub.ts):
 * a socket error's own code where it has one (see dependency.ts `classify`), else `unreachable`.
 */
export function redisOutcome(error: unknown): CallOutcome {
  if (error instanceof ReplyError) return 'error';
  const outcome = classify(error);
  return outcome === 'error' ? 'unreachable' : outcome;
}
