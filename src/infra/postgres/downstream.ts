import { marshall } from '@aws-sdk/util-dynamodb';
import { type ClientBase, escapeIdentifier as ident, type Pool } from 'pg';
import { logger } from '../../logger';
import { type Envelope, envelopeOf } from '../dynamo/downstream';
import type { Item } from '../dynamo/write';
import { withCrossTenantRead, withTenant } from './apply';
import { DOWNSTREAM_TABLE } from './schema';
import { onConnection } from './outcome';

/*
 * Events downstream on PostgreSQL (docs/postgres.md#events-downstream). PostgreSQL has no table
 * stream for an EventBridge Pipe to read, so the store does what the stream and the Pipe do on
 * DynamoDB: each new event of a downstream stream is queued in the event's own transaction (a row
 * of DOWNSTREAM_TABLE holding its envelope, the same filter and mapping as the Pipe's), and this
 * relay sends the queued envelopes to DOWNSTREAM_URL, deleting each once the receiver took it.
 *
 * The same guarantees as the Pipe's: at least once (a row goes only after the receiver answered 2xx,
 * so a relay stopped between the two sends it again), deduplicated by `detail.id`; in commit order
 * within one stream (one relay sends at a time, the oldest first, and retries the oldest before
 * anything after it); an event a restore puts back is not queued (the filter); a refused event is
 * retried `maxAttempts` times in all with a doubling delay, then parked in its row, logged with
 * DOWNSTREAM_EVENT_PARKED and counted by the `downstream_parked` gauge, and the relay goes on.
 */

/** The envelope `item`, written as new at `key`, goes downstream as; null when the Pipe's filter would drop it. */
export function downstreamEnvelope(item: Item): Envelope | null {
  const image = marshall(item, { removeUndefinedValues: true, convertClassInstanceToMap: false });
  return envelopeOf({ eventName: 'INSERT', dynamodb: { Keys: { PK: image.PK, SK: image.SK }, NewImage: image } });
}

export interface DownstreamOptions {
  /** Where the envelopes are POSTed, as `{"events": [envelope, …]}`; a 2xx answer takes the whole batch. */
  url: string;
  /** The delay before the first retry of a refused event; it doubles with each attempt, up to 64 times it. */
  retryMs: number;
  /** How often an idle relay looks for queued events. */
  pollMs: number;
  /** Attempts of one event before it is parked (the Pipe's is 10 retries after the first). */
  maxAttempts?: number;
  /** Events in one request (EventBridge's PutEvents takes at most 10). */
  batchSize?: number;
  /** How long one request may take before it counts as refused. */
  timeoutMs?: number;
}

/** A queued row as the relay reads it. */
interface Queued {
  tenant_id: string;
  item_pk: string;
  item_sk: string;
  envelope: Envelope;
  attempts: string;
}

/** What one round of the relay did. */
type Round = 'idle' | 'more' | 'refused' | 'elsewhere';

export class DownstreamRelay {
  private readonly table: string;
  private readonly maxAttempts: number;
  private readonly batchSize: number;
  private readonly timeoutMs: number;
  private stopped = true;
  private loop: Promise<void> | undefined;
  private wakeUp: (() => void) | undefined;
  /** Aborted by stop: a request under way is cut short rather than waited for up to its timeout. */
  private halt = new AbortController();

  constructor(
    private readonly pool: Pool,
    private readonly schema: string,
    private readonly options: DownstreamOptions,
  ) {
    this.table = `${ident(schema)}.${ident(DOWNSTREAM_TABLE.name)}`;
    this.maxAttempts = options.maxAttempts ?? 11;
    this.batchSize = options.batchSize ?? 10;
    this.timeoutMs = options.timeoutMs ?? 10_000;
  }

  /** Starts sending; every instance runs one, and one of them sends at a time (an advisory lock). */
  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.halt = new AbortController();
    this.loop = this.run();
  }

  /**
   * Stops after the round under way, whose request is cut short: its events stay queued as they
   * were (not counted as refused), for whichever relay runs next, so a receiver that took them
   * without its answer arriving gets them again (at least once, as documented).
   */
  async stop(): Promise<void> {
    this.stopped = true;
    this.halt.abort();
    this.wakeUp?.();
    await this.loop;
  }

  /** How many events wait to be sent, and how many were parked; read across tenants. */
  async snapshot(): Promise<{ waiting: number; parked: number }> {
    const out = await onConnection(await this.pool.connect(), (client) =>
      withCrossTenantRead(client, (c) =>
        c.query(`SELECT count(*) FILTER (WHERE failed_at IS NULL)::int AS waiting, count(failed_at)::int AS parked FROM ${this.table}`),
      ),
    );
    return { waiting: Number(out.rows[0]?.waiting ?? 0), parked: Number(out.rows[0]?.parked ?? 0) };
  }

  private async run(): Promise<void> {
    let failures = 0;
    while (!this.stopped) {
      let round: Round;
      try {
        round = await this.round();
        failures = 0;
      } catch (err) {
        // PostgreSQL out of reach: nothing was lost (the rows stay), so the relay tries again, less often while it lasts.
        failures++;
        if (failures === 1 || failures % 100 === 0)
          logger.warn({ err, failures }, 'the downstream relay could not read its queue; retrying');
        round = 'idle';
      }
      if (round === 'more') continue;
      const delay = round === 'refused' ? this.retryDelay : this.options.pollMs;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, delay);
        this.wakeUp = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wakeUp = undefined;
    }
  }

  /** The delay before the next attempt of the oldest event, set by the round that saw it refused. */
  private retryDelay = 0;

  /**
   * One round: under the relay lock (one instance at a time, held by a read-only transaction across
   * tenants while the request is under way), the oldest queued events are sent; taken ones are
   * deleted, a refused one gets its attempt counted, or is parked at the last attempt. A refused
   * event is retried alone, so only it can be parked, never the events queued after it.
   */
  private async round(): Promise<Round> {
    return onConnection(await this.pool.connect(), (client) =>
      withCrossTenantRead(client, async (c): Promise<Round> => {
        const lock = await c.query('SELECT pg_try_advisory_xact_lock(hashtext($1)) AS held', [`artissist downstream ${this.schema}`]);
        if (!lock.rows[0]?.held) return 'elsewhere';
        const head = await this.queued(c, 1);
        if (head.length === 0) return 'idle';
        const retrying = Number(head[0].attempts) > 0;
        const rows = retrying ? head : await this.queued(c, this.batchSize);
        const refusal = await this.send(rows.map((r) => r.envelope));
        // Cut short by stop: not the receiver's refusal, so nothing is counted against the events.
        if (refusal !== undefined && this.stopped) return 'idle';
        if (refusal === undefined) {
          await this.settle(rows, (t, keys) =>
            t.query(
              `DELETE FROM ${this.table} WHERE tenant_id = $1 AND (item_pk, item_sk) IN (SELECT * FROM unnest($2::text[], $3::text[]))`,
              keys,
            ),
          );
          return rows.length === this.batchSize ? 'more' : 'idle';
        }
        const attempts = Number(rows[0].attempts) + 1;
        const park = attempts >= this.maxAttempts;
        await this.settle(rows, (t, keys) =>
          t.query(
            `UPDATE ${this.table} SET attempts = attempts + 1, last_error = $4${park ? ', failed_at = clock_timestamp()' : ''}
              WHERE tenant_id = $1 AND (item_pk, item_sk) IN (SELECT * FROM unnest($2::text[], $3::text[]))`,
            [...keys, refusal],
          ),
        );
        if (park)
          logger.error(
            { code: 'DOWNSTREAM_EVENT_PARKED', eventIds: rows.map((r) => r.envelope.detail.id), attempts, refusal },
            'an event was refused downstream at every attempt and is parked (docs/postgres.md#events-downstream)',
          );
        else
          logger.warn({ eventIds: rows.map((r) => r.envelope.detail.id), attempts, refusal }, 'downstream refused an event; retrying it');
        this.retryDelay = park ? 0 : this.options.retryMs * 2 ** Math.min(attempts - 1, 6);
        return park ? 'more' : 'refused';
      }),
    );
  }

  /** Up to `limit` of the oldest unparked queued rows, across tenants. */
  private async queued(client: ClientBase, limit: number): Promise<Queued[]> {
    const out = await client.query<Queued>(
      `SELECT tenant_id, item_pk, item_sk, envelope, attempts FROM ${this.table} WHERE failed_at IS NULL
        ORDER BY queued_at, item_pk COLLATE "C", item_sk COLLATE "C" LIMIT $1`,
      [limit],
    );
    return out.rows;
  }

  /** Runs `change` on `rows`, one transaction of each tenant's (row-level security lets a write touch its own tenant's rows only). */
  private async settle(
    rows: Queued[],
    change: (client: ClientBase, keys: [string, string[], string[]]) => Promise<unknown>,
  ): Promise<void> {
    const byTenant = new Map<string, Queued[]>();
    for (const row of rows) byTenant.set(row.tenant_id, [...(byTenant.get(row.tenant_id) ?? []), row]);
    await onConnection(await this.pool.connect(), async (client) => {
      for (const [tenantId, own] of byTenant)
        await withTenant(client, tenantId, (t) => change(t, [tenantId, own.map((r) => r.item_pk), own.map((r) => r.item_sk)]));
    });
  }

  /** POSTs the envelopes; undefined when the receiver took them (2xx), else why not, in a few words. */
  private async send(envelopes: Envelope[]): Promise<string | undefined> {
    try {
      const res = await fetch(this.options.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ events: envelopes }),
        signal: AbortSignal.any([AbortSignal.timeout(this.timeoutMs), this.halt.signal]),
      });
      // The body is not needed, but must be read (or cancelled) for the connection to be reused.
      await res.body?.cancel();
      return res.ok ? undefined : `HTTP ${res.status}`;
    } catch (err) {
      return err instanceof Error ? `${err.name}: ${err.message}` : String(err);
    }
  }
}
