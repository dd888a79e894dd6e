import { Client, escapeIdentifier, type Pool } from 'pg';
import { bounded, CATCH_UP, deliverMessage, encodeMessage, type EventBus, type Listeners, retryPause, TopicListening } from './bus-core';
import { isOutage, serviceUnavailable } from './dependency';
import type { CallOutcome, Metrics } from './metrics';
import type { OutageLog } from './outage';
import { postgresOutcome } from './postgres/outcome';

/*
 * The event bus through PostgreSQL's LISTEN/NOTIFY, for a server on PostgreSQL without Redis
 * (DATABASE_URL set, REDIS_URL not): instances on one database carry events to each other through
 * it, with nothing else to run. A notification is a hint, as a Redis message is: whatever one
 * misses (a lost connection, an event too large to carry) a stream reads from its stored positions.
 */

/** PostgreSQL's bound on a NOTIFY payload in its default build: shorter than 8000 bytes. */
export const NOTIFY_MAX_BYTES = 8000;
/** The `application_name` of the LISTEN connection, which names it in `pg_stat_activity`. */
export const LISTEN_APPLICATION = 'artissist-bus';
/** How often the LISTEN connection is asked a query, so one lost without a word (a dropped network) is noticed. */
const CHECK_MS = 5_000;
/** How long a connection attempt, and each check, may take before the connection counts as lost. */
const ANSWER_MS = 5_000;

/**
 * The NOTIFY channel of the schema's events. One channel carries every topic (a channel is an
 * identifier of at most 63 bytes, which topics would outgrow), so every instance gets every event
 * and hands on those of the topics it has listeners for; the schema in its name keeps two
 * deployments on one database apart.
 */
export function notifyChannel(schema: string): string {
  return `${schema}.events`;
}

/**
 * The event bus through PostgreSQL (see the file's comment). Publishing is one `pg_notify` on a
 * connection of the store's `pool`, so it is delivered once that statement commits; an event whose
 * message is NOTIFY_MAX_BYTES or longer goes as a hint (its topic alone), and its listeners read it
 * from the store. One connection of its own (`url`, `application_name` LISTEN_APPLICATION) LISTENs:
 * on every connection, the first and each one after it was lost (ended, failed, or silent past a
 * check), it LISTENs again and, once that is in effect, hands every listener CATCH_UP, since
 * notifications sent meanwhile are gone. It tries again at once, then every 100 ms, then every
 * 500 ms (retryPause), for as long as the bus is open; each failure goes to the outage log.
 * Each connection's LISTEN (the first and every reconnection) and each NOTIFY is counted in
 * `metrics` (artissist_postgres_calls_total{command,outcome}), as the Redis bus counts its PUBLISHes.
 * A listener is in effect at once (`ready`): while the connection is up it already listens to the
 * one channel, and while it is down the CATCH_UP of the next connection covers what is published
 * meanwhile, as on Redis.
 */
export function createPostgresBus(
  settings: { url: string; pool: Pool; schema: string },
  listeners: Listeners,
  outage: OutageLog,
  metrics?: Metrics,
): EventBus {
  const channel = notifyChannel(settings.schema);
  /** The connection that LISTENs, once its LISTEN is in effect. */
  let client: Client | undefined;
  /** Ends the connection of the attempt under way or in effect, and resolves once it has ended. */
  let endCurrent: (() => Promise<void>) | undefined;
  let closed = false;
  let attempt = 0;
  let retryTimer: NodeJS.Timeout | undefined;
  /** Every connection made and not yet ended (the one in effect, or an attempt, or one ending). */
  const open = new Set<Client>();

  const connect = () => {
    retryTimer = undefined;
    if (closed) return;
    const started = performance.now();
    const listened = (outcome: CallOutcome) => metrics?.recordCall('postgres', 'LISTEN', (performance.now() - started) / 1000, outcome);
    const next = new Client({
      connectionString: settings.url,
      application_name: LISTEN_APPLICATION,
      keepAlive: true,
      connectionTimeoutMillis: ANSWER_MS,
    });
    open.add(next);
    let ended: Promise<void> | undefined;
    let checker: NodeJS.Timeout | undefined;
    // The one place a connection ends, whatever ends it first (its end, an error, a silent check,
    // the bus's close): once, and the next attempt follows unless the bus is closed.
    const lose = (error: unknown): Promise<void> => {
      if (ended) return ended;
      clearInterval(checker);
      if (client === next) client = undefined;
      next.removeAllListeners('notification');
      ended = next.end().finally(() => open.delete(next));
      if (!closed) {
        outage.failure('postgres', postgresOutcome(error));
        retryTimer = setTimeout(connect, retryPause(attempt++));
        retryTimer.unref();
      }
      return ended;
    };
    endCurrent = () => lose(undefined);
    next.on('error', lose);
    next.on('end', () => void lose(new Error('the LISTEN connection ended')));
    next.on('notification', (note) => {
      if (note.channel === channel && note.payload !== undefined) deliverMessage(listeners, note.payload, channel);
    });
    next
      .connect()
      .then(() => next.query(`LISTEN ${escapeIdentifier(channel)}`))
      .then(
        () => {
          if (ended) return;
          listened('ok');
          client = next;
          attempt = 0;
          outage.connected('postgres');
          // Asked of the connection now and then: one whose network went silent answers nothing, and is replaced.
          checker = setInterval(() => {
            bounded(next.query('SELECT 1'), ANSWER_MS, 'the LISTEN connection').catch(lose);
          }, CHECK_MS);
          checker.unref();
          // The LISTEN is in effect: whatever was published before it is in the store.
          listeners.deliverAll(CATCH_UP);
        },
        (error: unknown) => {
          // An attempt that failed (not one the bus's close ended): counted, and the next one follows.
          if (!closed) listened(postgresOutcome(error));
          return lose(error);
        },
      );
  };
  connect();

  return {
    async publish(topic, payload) {
      const message = encodeMessage(topic, payload);
      const sent = Buffer.byteLength(message) < NOTIFY_MAX_BYTES ? message : encodeMessage(topic);
      const started = performance.now();
      try {
        await settings.pool.query('SELECT pg_notify($1, $2)', [channel, sent]);
      } catch (error) {
        // PostgreSQL's own refusal is the statement's failure, for the caller to log; anything else
        // is an outage, counted by the outage log: the event stays in the outbox either way.
        const outcome = postgresOutcome(error);
        metrics?.recordCall('postgres', 'NOTIFY', (performance.now() - started) / 1000, outcome);
        if (!isOutage(outcome)) throw error;
        outage.failure('postgres', outcome);
        throw serviceUnavailable('postgres', outcome, error);
      }
      metrics?.recordCall('postgres', 'NOTIFY', (performance.now() - started) / 1000, 'ok');
    },
    listen(topic, listener, uncounted) {
      listeners.add(topic, listener, uncounted);
      return new TopicListening(listeners, topic, listener);
    },
    async ping() {
      if (!client) throw new Error('the event bus LISTEN connection is down');
      await client.query('SELECT 1');
    },
    listenerCount: () => listeners.count,
    connections: () => open.size,
    async close() {
      closed = true;
      clearTimeout(retryTimer);
      listeners.clear();
      await endCurrent?.();
    },
  };
}
