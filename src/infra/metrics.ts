import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/**
 * Keeps a label's values bounded: the first `max` distinct values are kept (cut to `maxLength`
 * characters), every later one becomes `other`. Used for values a client chooses, like operation
 * names, so no client can grow the metrics without bound.
 */
export class LabelCap {
  private readonly seen = new Set<string>();

  constructor(
    private readonly max: number,
    private readonly maxLength = 64,
  ) {}

  value(raw: string): string {
    const value = raw.slice(0, this.maxLength);
    if (this.seen.has(value)) return value;
    if (this.seen.size >= this.max) return 'other';
    this.seen.add(value);
    return value;
  }
}

/** The outcome of a DynamoDB, S3, Redis or PostgreSQL call (see dependency.ts `classify`, pubsub.ts): a fixed set of values. */
export type CallOutcome =
  | 'ok'
  | 'conditional_failed'
  | 'not_found'
  | 'throttled'
  | 'timeout'
  | 'deadline'
  | 'unreachable'
  | 'server_error'
  | 'error';
export type Dependency = 'dynamodb' | 's3' | 'redis' | 'postgres';

/**
 * The prefix of every metric the server defines itself, so its series are told apart from other
 * exporters' on a shared Prometheus (and from Node's own `process_*` and `nodejs_*`, which keep
 * their standard names). Names end in their unit (`_seconds`) or, for counters, `_total`.
 */
export const METRIC_PREFIX = 'artissist_';

/** The names of the gauges other parts register through `registerGauge` (METRIC_PREFIX is added there). */
export const GAUGES = {
  wsConnections: 'graphql_ws_connections',
  wsSubscriptions: 'graphql_ws_subscriptions',
  sseStreams: 'graphql_sse_streams',
  busListeners: 'event_bus_listeners',
} as const;

const OPERATION_TYPES = new Set(['query', 'mutation', 'subscription']);
const SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** OpenTelemetry's recommended boundaries for http.server.request.duration. */
const HTTP_SECONDS = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];
/** The routes the HTTP server serves; any other path is `other`, so a scanner cannot add series. */
const HTTP_ROUTES = new Set(['/graphql', '/healthz', '/readyz', '/metrics']);
const HTTP_METHODS = new Set(['GET', 'POST', 'OPTIONS', 'HEAD']);
const CALL_SECONDS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * The server's Prometheus metrics, in a registry of its own (not prom-client's global one), so
 * several servers can run in one process. Every label value is bounded: operation types and call
 * outcomes are fixed sets; operation names, error codes and SDK commands are capped (LabelCap).
 */
export class Metrics {
  readonly registry = new Registry();

  readonly graphqlOperations = this.counter(
    'graphql_operations_total',
    "GraphQL operations by type, name and outcome code (OK, or the first error's extensions.code).",
    ['type', 'name', 'code'],
  );
  readonly graphqlDuration = new Histogram({
    name: `${METRIC_PREFIX}graphql_operation_duration_seconds`,
    help: 'Time from receiving a GraphQL operation to sending its response, by type and name.',
    labelNames: ['type', 'name'] as const,
    buckets: SECONDS,
    registers: [this.registry],
  });

  /**
   * Every HTTP request to the API's port, whatever it asked for, by method, route and status: the
   * OpenTelemetry convention http.server.request.duration under Prometheus names. A response that
   * was never completed (the client went away, or the shutdown drain cut it) has the status `cut`.
   */
  readonly httpDuration = new Histogram({
    name: `${METRIC_PREFIX}http_server_request_duration_seconds`,
    help: 'Time from receiving an HTTP request to the end of its response, by method, route and status (cut: never completed).',
    labelNames: ['http_request_method', 'http_route', 'http_response_status_code'] as const,
    buckets: HTTP_SECONDS,
    registers: [this.registry],
  });

  private readonly calls = {
    dynamodb: this.callMetrics('dynamodb', 'DynamoDB', 'calls (retries included)'),
    s3: this.callMetrics('s3', 'S3', 'calls (retries included)'),
    // The event bus's PUBLISHes, which ioredis does not retry (see pubsub.ts), and Redis has no
    // throttling to count.
    redis: this.callMetrics('redis', 'Redis', 'commands of the event bus'),
    // The LISTEN/NOTIFY bus's statements (pubsub-postgres.ts): each pg_notify (NOTIFY) and each
    // connection's LISTEN, the first and every reconnection; PostgreSQL has no throttling to count.
    postgres: this.callMetrics('postgres', 'PostgreSQL', 'statements of the event bus (NOTIFY, and the LISTEN of each connection)'),
  };

  /** Bounded labels: the plan (a fixed set), never the tenant id, and the budget (tenant, user, cost, worker). */
  readonly tenantThrottled = this.counter(
    'tenant_throttled_total',
    "Operations refused with RATE_LIMITED, by the tenant's plan and the budget that ran out.",
    ['plan', 'budget'],
  );

  /** Bounded labels: the plan and the quota (projects, storedBytes), never the tenant id. */
  readonly quotaRefused = this.counter(
    'tenant_quota_refusals_total',
    "Writes refused with QUOTA_EXCEEDED, by the tenant's plan and the quota.",
    ['plan', 'quota'],
  );

  /** Events handed to the bus, by the writer after a commit or by the outbox sweeper. */
  readonly eventsPublished = this.counter(
    'events_published_total',
    'Committed events published to subscribers (by the writer or the outbox sweeper).',
  );
  /** Stored events sent to a subscriber that resumed from an earlier position (replay.ts increments it). */
  readonly eventsReplayed = this.counter(
    'events_replayed_total',
    'Stored events replayed to subscriptions that resumed from an earlier position.',
  );
  /** RESYNC events sent to subscribers that read too slowly (live.ts increments it). */
  readonly resyncsSent = this.counter('subscription_resyncs_total', 'RESYNC events sent to subscriptions whose client read too slowly.');

  /** History-lost messages sent to subscriptions that resumed from a position older than the stored events. */
  readonly historyLostSent = this.counter(
    'subscription_history_lost_total',
    'History-lost messages sent to subscriptions that resumed from a position older than the stored events.',
  );

  /** A counter of this registry named METRIC_PREFIX + `name` (which ends in `_total`), with those labels. */
  private counter<L extends string = never>(name: string, help: string, labelNames: readonly L[] = []): Counter<L> {
    return new Counter({ name: `${METRIC_PREFIX}${name}`, help, labelNames, registers: [this.registry] });
  }

  private readonly names = new LabelCap(100);
  private readonly codes = new LabelCap(50);
  private readonly commands = new LabelCap(100);
  private readonly gaugeReaders = new Map<string, () => number>();

  constructor(options: { processMetrics?: boolean } = {}) {
    if (options.processMetrics ?? true) collectDefaultMetrics({ register: this.registry });
  }

  private callMetrics(prefix: Dependency, label: string, what: string) {
    const throttled = prefix === 'dynamodb' || prefix === 's3';
    return {
      total: this.counter(`${prefix}_calls_total`, `${label} ${what} by command and outcome.`, ['command', 'outcome']),
      duration: new Histogram({
        name: `${METRIC_PREFIX}${prefix}_call_duration_seconds`,
        help: `${label} latency of ${what}, by command.`,
        labelNames: ['command'] as const,
        buckets: CALL_SECONDS,
        registers: [this.registry],
      }),
      throttles: throttled
        ? this.counter(`${prefix}_throttles_total`, `${label} attempts refused by throttling (the SDK retries them), by command.`, [
            'command',
          ])
        : undefined,
    };
  }

  /** Records one GraphQL operation. `type` is query, mutation or subscription (else `unknown`). */
  recordOperation(operation: { type?: string | null; name?: string | null; code?: string | null; seconds: number }): void {
    const type = operation.type && OPERATION_TYPES.has(operation.type) ? operation.type : 'unknown';
    const name = type === 'unknown' ? 'unknown' : operation.name ? this.names.value(operation.name) : 'anonymous';
    const code = operation.code ? this.codes.value(operation.code) : 'OK';
    this.graphqlOperations.inc({ type, name, code });
    this.graphqlDuration.observe({ type, name }, operation.seconds);
  }

  /**
   * Records one HTTP request. Method and route outside the known few are `other`; `status` is
   * undefined for a response that was never completed.
   */
  recordHttpRequest(request: { method?: string; path: string; status?: number; seconds: number }): void {
    this.httpDuration.observe(
      {
        http_request_method: request.method && HTTP_METHODS.has(request.method) ? request.method : 'other',
        http_route: HTTP_ROUTES.has(request.path) ? request.path : 'other',
        http_response_status_code: request.status === undefined ? 'cut' : String(request.status),
      },
      request.seconds,
    );
  }

  /** Records one SDK call (its retries included), or one Redis command or PostgreSQL statement of the event bus. */
  recordCall(dependency: Dependency, command: string, seconds: number, outcome: CallOutcome): void {
    const label = this.commands.value(command);
    this.calls[dependency].total.inc({ command: label, outcome });
    this.calls[dependency].duration.observe({ command: label }, seconds);
  }

  /** Records one throttled attempt. */
  recordThrottle(dependency: Dependency, command: string): void {
    this.calls[dependency].throttles?.inc({ command: this.commands.value(command) });
  }

  /**
   * A gauge whose value is read from `read` at each scrape. Registering a name again replaces its
   * reader, so a part that is restarted (or wired later) can register again.
   */
  registerGauge(name: string, help: string, read: () => number): void {
    const known = this.gaugeReaders.has(name);
    this.gaugeReaders.set(name, read);
    if (known) return;
    const readers = this.gaugeReaders;
    new Gauge({
      name: `${METRIC_PREFIX}${name}`,
      help,
      registers: [this.registry],
      collect() {
        this.set(readers.get(name)!());
      },
    });
  }

  /** A gauge read asynchronously at each scrape (a slow source should cache; see CachedSnapshot). */
  registerAsyncGauge(name: string, help: string, read: () => Promise<number>): void {
    new Gauge({
      name: `${METRIC_PREFIX}${name}`,
      help,
      registers: [this.registry],
      async collect() {
        this.set(await read());
      },
    });
  }

  /** The Prometheus text exposition of every metric. */
  async expose(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
