import 'reflect-metadata';
import { join } from 'node:path';
import { signDevToken, TokenVerifier } from './auth/jwt';
import { Role } from './auth/principal';
import { exampleIdsFromApi, type GraphiQLHints } from './http/graphiql';
import type { Config } from './config';
import { overrideAttemptTimeouts } from './job/job.kinds';
import { CursorCodec } from './infra/cursor';
import { createDynamo, probeTable, type CallCounter } from './infra/dynamo/client';
import { startDynamoDbLocal, type EmbeddedDynamo } from './infra/dynamo/embedded';
import { ensureTable } from './infra/dynamo/ensure-table';
import { verifyTable } from './infra/dynamo/verify-table';
import { DynamoStore, type Item, type Store } from './infra/dynamo/store';
import { openPostgres } from './infra/postgres/start';
import { entities } from './common/entities';
import { SharedItemReads } from './infra/shared-reads';
import { Outbox, type OutboxOptions } from './events/outbox';
import { workSignalHubOf } from './events/work-signals';
import { observeClaims } from './job/job.repository';
import { JobSettler } from './job/job.settle';
import { committerOf } from './infra/dynamo/committer';
import { ensureSystemProject, SystemJobRunner } from './system-jobs/runner';
import { Migrations } from './migrations/migration.service';
import { systemJobsEnv } from './wiring';
import { LeaseCodec } from './auth/lease';
import { CachedSnapshot, tableOutbox } from './infra/dynamo/outbox-stats';
import { requestBudget } from './infra/deadline';
import { GAUGES, Metrics } from './infra/metrics';
import { OutageLog } from './infra/outage';
import { StartupCancelled, untilAnswering } from './infra/startup';
import { healthRouter, Readiness } from './http/health';
import { metricsRouter, startMetricsServer } from './http/metrics';
import { OperationPipeline } from './graphql/pipeline';
import { startHttpServer } from './http/server';
import { serveGraphQLOverSse, type SseCounts } from './http/sse';
import { attachWebSocket, type WebSocketCounts } from './http/websocket';
import { createEventBus, type EventBus } from './infra/pubsub';
import { RateBudgets } from './infra/rate-limits';
import type { EmbeddedS3 } from './infra/s3/embedded';
import { FileStore } from './infra/s3/files';
import { ArchiveJobs } from './archive/archive.jobs';
import type { ArchiveManifest } from './archive/archive.format';
import { Archiver } from './archive/archive.service';
import type { PartState } from './infra/supervisor';
import { errorName } from './guards';
import { logger } from './logger';
import { buildAppSchema } from './schema';

/** The tenant of the development token and of the demo data. */

export const DEV_TENANT = 'demo';

export interface App {
  url: string;
  /** The DynamoDB endpoint in use (the embedded one when it was started). */
  dynamoEndpoint?: string;
  embeddedDynamo?: EmbeddedDynamo;
  /** The S3 endpoint of the embedded S3, when it was started. */
  embeddedS3Endpoint?: string;
  files: FileStore;
  /** DynamoDB calls made by this app, by command. */
  calls: CallCounter;
  /** The operation pipeline HTTP, WebSocket and SSE share; tests read its counters (sharedExecutions). */
  pipeline: OperationPipeline;
  store: Store;
  outbox: Outbox;
  /** Settles finished jobs' work items (their expiry; a cancelled job's unfinished ones cancelled). */
  settler: JobSettler;
  /** Runs the server's own jobs' work items (a migration's segments, the archive's run) in this process. */
  systemJobs: SystemJobRunner;
  /** Starts the archive's system job once a period, and an operator's runs (runArchive). */
  archive: ArchiveJobs;
  bus: EventBus;
  /** This app's Prometheus metrics (served at /metrics unless METRICS=off). */
  metrics: Metrics;
  /** What /readyz reports. */
  readiness: Readiness;
  /** The metrics URL when METRICS_PORT puts them on a port of their own. */
  metricsUrl?: string;
  /** A development token (tenant `demo`, role editor, 30 days); undefined in production or with JWKS. */
  devToken?: string;
  /**
   * What the server holds right now, named as the Prometheus gauges that export it (without their
   * `artissist_` prefix): open WebSocket connections, live WebSocket operations, open SSE streams
   * and event-bus listeners.
   */
  counts(): ServerCounts;
  /**
   * What the server holds besides what counts() says, each of which a stop (or the last
   * subscriber's departure) must release: the jobs' stages its lease watches follow (timers), the
   * rate draws not yet answered and the sockets of the budgets' Redis connection, and the event
   * bus's connections to Redis or PostgreSQL. Tests read it.
   */
  held(): ServerHeld;
  /** Subscription results delivered so far, by path (see OperationPipeline.results); tests read it. */
  liveResults(): { handedOver: number; pulled: number };
  /**
   * Lets the demo tell GraphiQL which project and job to show in its example tabs. Without it the
   * tabs name the development tenant's own data, looked up on every page load.
   */
  setGraphiQLHints(hints: () => Omit<GraphiQLHints, 'token'> | Promise<Omit<GraphiQLHints, 'token'>>): void;
  /**
   * True from the moment stop() begins: the server is shutting down and must get no new traffic,
   * so readiness (/readyz) answers 503 while it is true. It never turns false again.
   */
  readonly draining: boolean;
  /**
   * The state of each embedded part this app started (a key is absent when that part is external):
   * `up` while it serves; `restarting` from its unexpected death until a restart answers (requests
   * to it fail meanwhile); `down` once stopped, or given up after 3 failed restarts in a row.
   * Readiness reports it.
   */
  embeddedStates(): { dynamodb?: PartState; s3?: PartState };
  /**
   * Stops everything, in this order: `draining` turns true and the HTTP listener closes at once
   * (new connections are refused); in-flight HTTP requests get `SHUTDOWN_DRAIN_MS` to finish;
   * WebSockets are closed (1001); the outbox is flushed; the event bus and clients close; the
   * embedded S3 and DynamoDB Local stop last, with no restart. Calling it again returns the same
   * promise.
   */
  stop(): Promise<void>;
}

export interface ServerCounts extends WebSocketCounts, SseCounts {
  event_bus_listeners: number;
}

/** See App.held. */
export interface ServerHeld {
  lease_watches: number;
  /** Bound worker processes recorded and their hand-backs under way (src/events/bound-workers.ts). */
  bound_workers: number;
  rate_draws: number;
  rate_sockets: number;
  bus_connections: number;
}

export interface StartOptions {
  /** Reports start-up steps to a person (the CLI prints them; tests stay quiet). */
  progress?: (message: string) => void;
  /** Measurement only: read items one by one instead of batching (see ContextDeps.batchLoads). */
  batchLoads?: boolean;
  /** Comparison only: list reads return whole items whatever their selection (see ContextDeps.projectReads). */
  projectReads?: boolean;
  /** DynamoDB Local already starting (main.ts starts it before loading the server); started here otherwise. */
  embeddedDynamo?: Promise<EmbeddedDynamo>;
  /** Test hook: events for which this returns true are not published by the writer (see Outbox). */
  failPublish?: OutboxOptions['failPublish'];
  /** Test hook: called between an archive's export and its removal; a throw there is a crash at that point (see Archiver). */
  afterArchiveExport?: (manifest: ArchiveManifest) => void | Promise<void>;
  /**
   * Called when an embedded part died and could not be restarted (main.ts stops and exits
   * non-zero). Without it, the failure is only logged and the part stays `down`.
   */
  onEmbeddedFailure?: (error: Error) => void;
  /**
   * Calls off the start-up (main.ts aborts it on a signal): the HTTP listener, if already open,
   * closes at once, the table and bucket checks are cancelled, what was opened is closed, the
   * embedded parts stop last, and startApp rejects with StartupCancelled.
   */
  signal?: AbortSignal;
  /** Test hook: the requests' clock (see ContextDeps.now), also readiness's cache clock; the wall clock when omitted. */
  now?: () => Date;
}

/**
 * How long a stop waits for WebSocket peers to answer the close handshake before it terminates
 * their sockets: a peer that does not answer must not hold up shutdown.
 */
const WS_CLOSE_GRACE_MS = 1000;

/**
 * The local S3 module, loaded only when the embedded default uses it: it runs s3rver, a
 * development dependency that a production install (`npm ci --omit=dev`) leaves out.
 */
function embeddedS3(): typeof import('./infra/s3/embedded') {
  try {
    return require('./infra/s3/embedded');
  } catch (error) {
    if (error instanceof Error && 'code' in error && error.code === 'MODULE_NOT_FOUND' && error.message.includes("'s3rver'")) {
      throw new Error(
        'S3_BUCKET is unset, and the local S3 (s3rver) is a development dependency that is not installed here: set S3_BUCKET.',
      );
    }
    throw error;
  }
}

/**
 * Work the start-up starts now and awaits later (the local S3's start, the table and bucket checks,
 * which run while it goes on). Its outcome is kept as a value, its failure included, and thrown to
 * whoever awaits `result()`: every path of the start-up does, where it needs the work done or when
 * it undoes the part. The promise itself is not kept for that await: a failure before it would
 * count as unhandled, and Node would end the process.
 */
class Later<T> {
  private readonly outcome: Promise<{ ok: true; value: T } | { ok: false; error: unknown }>;

  constructor(work: Promise<T>) {
    this.outcome = work.then(
      (value) => ({ ok: true as const, value }),
      (error: unknown) => ({ ok: false as const, error }),
    );
  }

  /** The work's value once it is done; throws its failure. */
  async result(): Promise<T> {
    const outcome = await this.outcome;
    if (!outcome.ok) throw outcome.error;
    return outcome.value;
  }
}

/** A failure that says only that the start-up called a step off (its abort, or the caller's signal). */
function isCancellation(error: unknown): boolean {
  return error instanceof StartupCancelled || errorName(error) === 'AbortError';
}

/**
 * What a start-up has opened so far, each part with the name of its undoing. A start-up that fails
 * part-way undoes them all, the last opened first. An undoing that fails too is logged with its
 * name and the next one still runs, so the start-up's own error stays the one thrown.
 */
class OpenedParts {
  private readonly parts: Array<{ name: string; undo: () => unknown }> = [];

  add(name: string, undo: () => unknown): void {
    this.parts.push({ name, undo });
  }

  /**
   * Undoes every part, the last opened first. `known` picks out the failures that are told
   * already: the start-up's own error (a table check that failed it is awaited again here) and
   * the cancellations the failed start-up asked for.
   */
  async undoAll(known: (error: unknown) => boolean): Promise<void> {
    for (const { name, undo } of this.parts.splice(0).reverse()) {
      try {
        await undo();
      } catch (err) {
        if (!known(err)) logger.warn({ err, part: name }, `${name} failed too; the start-up's own failure is the one thrown`);
      }
    }
  }
}

/**
 * Starts everything the configuration asks for: DynamoDB Local when no DynamoDB is configured,
 * the table if missing, and the HTTP server. On a failure part-way, what was started is stopped
 * again before the error is rethrown.
 */
export async function startApp(config: Config, options: StartOptions = {}): Promise<App> {
  const progress = options.progress ?? (() => {});
  // Checked between the steps of the start-up that do not watch the signal themselves.
  const stillWanted = () => {
    if (options.signal?.aborted) throw new StartupCancelled('The start-up was stopped.');
  };
  let embedded: EmbeddedDynamo | undefined;
  let s3: EmbeddedS3 | undefined;
  let s3Starting: Later<EmbeddedS3> | undefined;
  const opened = new OpenedParts();
  // The embedded parts stop last, the local S3 before DynamoDB Local, whether or not the start-up
  // got as far as awaiting their start; a failed start that is not the start-up's own error is told then.
  opened.add('stopping DynamoDB Local', async () => (embedded ?? (await options.embeddedDynamo))?.stop());
  opened.add('stopping the local S3', async () => (s3 ?? (await s3Starting?.result()))?.stop());
  // Calls off the table check when the start-up fails before it awaits it (a port in use), so that
  // undoing it does not wait for, or leave behind, a check that retries for up to
  // STARTUP_DEADLINE_MS; the caller's signal calls it off too. (The bucket check, made against the
  // local S3 only, takes no signal: it is awaited to its end.)
  const abandon = new AbortController();
  const checkSignal = options.signal ? AbortSignal.any([options.signal, abandon.signal]) : abandon.signal;
  try {
    // The local S3 starts while DynamoDB Local boots, and its bucket is made while the table is.
    // Its start is awaited once DynamoDB Local is up, or, when the start-up fails before that, by
    // the undoing of 'stopping the local S3' above.
    s3Starting = config.s3.embedded
      ? new Later(embeddedS3().startEmbeddedS3(join(config.dataDir, 's3'), config.embeddedRestartBackoffMs))
      : undefined;
    if (s3Starting) progress(`Starting the local S3 (files in ${join(config.dataDir, 's3')}) …`);
    let endpoint = config.dynamo.endpoint;
    if (config.dynamo.embedded) {
      if (!options.embeddedDynamo) progress(`Starting DynamoDB Local (data in ${join(config.dataDir, 'dynamodb')}) …`);
      embedded = await (options.embeddedDynamo ??
        startDynamoDbLocal({
          dataPath: join(config.dataDir, 'dynamodb'),
          signal: options.signal,
          quickStart: true,
          restartBackoffMs: config.embeddedRestartBackoffMs,
        }));
      stillWanted();
      endpoint = embedded.endpoint;
      progress(`DynamoDB Local is up at ${endpoint}.`);
      // It listens on 127.0.0.1 only unless its launcher could not make it (embedded.ts says why).
      if (embedded.exposed)
        progress(
          `Warning: DynamoDB Local listens on every network interface, not only 127.0.0.1: ${embedded.exposed}. ` +
            `Anyone who can reach port ${new URL(endpoint).port} of this machine can read and write its data (docs/operations.md).`,
        );
    }
    s3 = await s3Starting?.result();
    stillWanted();
    // Deaths and restarts of the embedded parts are told to the person watching the start-up.
    for (const part of [embedded, s3]) part?.report({ say: options.progress, giveUp: options.onEmbeddedFailure });
    const metrics = new Metrics();
    const outage = new OutageLog(config.outageLogIntervalMs);
    opened.add('stopping the outage log', () => outage.stop());
    const dynamo = createDynamo({
      endpoint,
      region: config.dynamo.region,
      requestTimeoutMs: config.dynamo.requestTimeoutMs,
      connectTimeoutMs: config.connectTimeoutMs,
      metrics,
      outage,
    });
    opened.add('closing the DynamoDB client', () => dynamo.client.destroy());
    const files = new FileStore({
      bucket: config.s3.bucket,
      region: config.dynamo.region,
      endpoint: s3?.endpoint ?? config.s3.endpoint,
      forcePathStyle: config.s3.forcePathStyle,
      credentials: s3?.credentials,
      requestTimeoutMs: config.s3.requestTimeoutMs,
      connectTimeoutMs: config.connectTimeoutMs,
      metrics,
      outage,
    });
    opened.add('closing the S3 client', () => files.destroy());
    // On PostgreSQL (DATABASE_URL) the store is the derived tables; DynamoDB is not used.
    const cursors = new CursorCodec(config.cursorSecret);
    const postgres = config.postgres ? openPostgres(config.postgres, entities, cursors, { poolWaitMs: config.requestBudgetMs }) : undefined;
    if (postgres) opened.add('closing the PostgreSQL pool', () => postgres.close());
    // Outside development the table is only checked: a missing table or index stops the start-up, naming it.
    const checkTable = () =>
      postgres
        ? postgres.ready()
        : config.dynamo.createTable
          ? ensureTable(dynamo.client, config.tableName, { signal: checkSignal, stream: config.dynamo.stream })
          : verifyTable(dynamo.client, config.tableName).then(() => 'verified' as const);
    // An external DynamoDB that does not answer yet is waited for, up to STARTUP_DEADLINE_MS, while
    // the HTTP server below already answers readiness probes with 503 (see `starting`). The wait
    // starts now and is awaited once the server listens.
    let announced = false;
    const tableReady = new Later(
      config.dynamo.embedded
        ? checkTable()
        : untilAnswering(checkTable, {
            what: postgres ? 'PostgreSQL' : `DynamoDB at ${endpoint ?? `the ${config.dynamo.region} endpoint`}`,
            deadlineMs: config.startupDeadlineMs,
            signal: checkSignal,
            onRetry: ({ kind, leftMs }) => {
              if (announced) return;
              announced = true;
              progress(
                `${postgres ? 'PostgreSQL' : 'DynamoDB'} does not answer yet (${kind}); retrying for up to ${Math.ceil(leftMs / 1000)} s …`,
              );
            },
          }),
    );
    const bucketReady = s3 ? new Later(files.ensureBucket()) : undefined;
    // Both checks are awaited once the server listens, or, when the start-up fails first, by their
    // undoing here, which reports a failure that is not the start-up's own. They end before the
    // clients above are closed and the embedded parts stopped, so no call of theirs reaches a
    // DynamoDB Local that is gone.
    opened.add('the table check', () => tableReady.result());
    if (bucketReady) opened.add('the bucket check', () => bucketReady.result());
    let starting = true;
    const store: Store = postgres?.store ?? new DynamoStore(dynamo.doc, config.tableName, cursors);
    // Without Redis, instances on one PostgreSQL carry events to each other through LISTEN/NOTIFY.
    const bus = createEventBus({ redisUrl: config.redisUrl, postgres: postgres?.bus, outage, metrics });
    opened.add('closing the event bus', () => bus.close());
    // The tenants' rate budgets, counted in Redis when it is configured so that every instance draws on one count.
    const budgets = new RateBudgets({ redisUrl: config.redisUrl, outage });
    opened.add('closing the rate budgets', () => budgets.close());
    const outbox = new Outbox(store, bus, {
      ...config.outbox,
      failPublish: options.failPublish,
      onPublished: () => metrics.eventsPublished.inc(),
    });
    metrics.registerGauge(GAUGES.busListeners, 'Event bus listeners in this process (one per live subscription topic listener).', () =>
      bus.listenerCount(),
    );
    const settler = new JobSettler(store, {
      intervalMs: config.jobSettleSweepMs,
      leaseSeconds: config.jobLeaseSeconds,
      // Made below, with the requests' dependencies; called only once the server runs.
      scopeOf: (tenantId) => systemEnv.scopeOf(tenantId, 'system:settle'),
    });
    // The requests' clock (the test hook's, when given), for the parts that compare times with what requests wrote.
    const clock = options.now ?? (() => new Date());
    // Cold storage: finished jobs and archived projects past the retention, moved to S3 by a system
    // job that this instance's schedule starts once a period and any instance's runner runs (src/archive).
    const archiver = new Archiver(store, files, {
      afterDays: config.coldStorage.afterDays,
      now: options.now,
      fileLimits: config.files,
      afterExport: options.afterArchiveExport,
    });
    const archive = new ArchiveJobs(
      {
        store,
        now: clock,
        // Made below, with the requests' dependencies; called only once the server runs.
        systemJobs: () => systemEnv.systemJobs(),
        wake: () => systemJobs.wake(),
      },
      archiver,
      { intervalMs: config.coldStorage.intervalMs },
    );
    // The outbox's backlog: DynamoDB's OUTBOX index, or PostgreSQL's outbox table.
    // Read at most once per METRICS_STORE_READ_MS, however often /metrics is scraped.
    const snapshotOptions = { maxAgeMs: config.metrics.storeReadMs, timeoutMs: 2_000 };
    const outboxStats = new CachedSnapshot(
      postgres ? () => postgres.store.outboxSnapshot() : tableOutbox(dynamo.doc, config.tableName),
      { backlog: 0, oldestAgeSeconds: 0 },
      snapshotOptions,
    );
    metrics.registerAsyncGauge(
      'outbox_backlog',
      "Outbox entries not yet published: an event, or one entry for a commit's several events (counted up to 1000 per OUTBOX shard).",
      async () => (await outboxStats.read()).backlog,
    );
    metrics.registerAsyncGauge(
      'outbox_oldest_event_age_seconds',
      'Age of the oldest committed event not yet published (0 when none waits).',
      async () => (await outboxStats.read()).oldestAgeSeconds,
    );
    // Events downstream on PostgreSQL (DOWNSTREAM_URL): what waits to be sent, and what was refused at every attempt.
    const downstream = postgres?.downstream;
    if (downstream) {
      const downstreamStats = new CachedSnapshot(() => downstream.snapshot(), { waiting: 0, parked: 0 }, snapshotOptions);
      metrics.registerAsyncGauge(
        'downstream_waiting',
        'Committed events queued to go downstream, not yet taken by the receiver.',
        async () => (await downstreamStats.read()).waiting,
      );
      metrics.registerAsyncGauge(
        'downstream_parked',
        'Events the downstream receiver refused at every attempt, parked and not sent again.',
        async () => (await downstreamStats.read()).parked,
      );
    }
    let draining = false;
    const readiness = new Readiness(
      {
        ...(postgres
          ? { postgres: (signal: AbortSignal) => postgres.probe(signal) }
          : { dynamodb: (signal: AbortSignal) => probeTable(dynamo.client, config.tableName, signal) }),
        s3: (signal) => files.check(signal),
        // The event bus between instances: Redis, or without it on PostgreSQL the LISTEN connection
        // (its store check above says nothing of that connection, which can be down on its own).
        ...(config.redisUrl ? { redis: () => bus.ping() } : postgres ? { postgresListen: () => bus.ping() } : {}),
      },
      {
        timeoutMs: config.readiness.timeoutMs,
        cacheMs: config.readiness.cacheMs,
        isDraining: () => draining,
        isStarting: () => starting,
        // The test hook's clock, when given, also ages the cached result (tests move it past cacheMs).
        now: () => clock().getTime(),
      },
    );
    const metricsOwnPort = config.metrics.enabled && config.metrics.port !== undefined;
    const metricsServer = metricsOwnPort ? await startMetricsServer(metrics, config.host, config.metrics.port!) : undefined;
    if (metricsServer) opened.add('closing the metrics server', () => metricsServer.close());
    const devToken =
      config.env !== 'production' && config.auth.secret
        ? await signDevToken(config.auth.secret, { sub: 'dev-user', tenantId: DEV_TENANT, roles: [Role.EDITOR] })
        : undefined;
    // Filled once the server listens (the lookup goes through its own URL); the demo replaces it.
    let exampleIds: () => Omit<GraphiQLHints, 'token'> | Promise<Omit<GraphiQLHints, 'token'>> = () => ({});
    const schema = buildAppSchema();
    // Reads shared across requests: a burst of subscribes to one stream reads its head a few times, not once each.
    const sharedReads = new SharedItemReads<Item>(store);
    // One operation pipeline for HTTP and WebSocket: limits, documents, context, errors, records.
    // Every stage's attempt timeout as it holds in this process: the declared one, unless
    // ATTEMPT_TIMEOUT_SECONDS replaces it (development). Set at each start, so an earlier app's does not linger.
    overrideAttemptTimeouts(config.attemptTimeoutSeconds);
    const pipelineDeps = {
      config,
      schema,
      store,
      outbox,
      bus,
      eventRetentionDays: config.eventRetentionDays,
      plans: config.plans,
      budgets,
      subscriptionBuffer: config.subscriptionBuffer,
      replayMaxEvents: config.replayMaxEvents,
      jobLeaseSeconds: config.jobLeaseSeconds,
      fileStore: files,
      fileLimits: config.files,
      batchLoads: options.batchLoads,
      projectReads: options.projectReads,
      metrics,
      sharedReads,
      leases: new LeaseCodec(config.cursorSecret),
      now: options.now,
      archive,
      // An admin's runMigrations wakes this instance's runner (made below) to start at once.
      wakeSystemJobs: () => systemJobs.wake(),
    };
    const pipeline = new OperationPipeline(pipelineDeps);
    // A bound worker's claims wait this long for it to subscribe again once its connection is lost.
    workSignalHubOf(bus).bound.graceMs = config.workerGraceSeconds * 1000;
    // Every claim and report is observed from the start, not from this instance's first workSignals
    // subscription: a worker's claims may come here while its subscription is on another instance.
    observeClaims(store, workSignalHubOf(bus));
    // The server's own jobs (migrations, the archive) are run by this process too, each item by one holder at a time.
    const systemEnv = systemJobsEnv(pipelineDeps);
    const systemJobs = new SystemJobRunner(systemEnv.systemJobs, [new Migrations(systemEnv).handler(), archive.handler()], {
      ...config.systemJobs,
      leaseSeconds: config.jobLeaseSeconds,
    });
    const verifier = new TokenVerifier(config.auth);
    const sse = serveGraphQLOverSse({ config, verifier, pipeline });
    const deps = {
      config,
      schema,
      verifier,
      pipeline,
      sse: sse.handler,
      graphiqlHints: async () => ({ token: devToken, ...(await exampleIds()) }),
      routers: [healthRouter(readiness), ...(config.metrics.enabled && !metricsOwnPort ? [metricsRouter(metrics)] : [])],
      beforeGraphQL: [requestBudget(config.requestBudgetMs)],
      metrics,
    };
    const http = await startHttpServer(deps);
    // Its in-flight requests are cut at once (no drain): the server never got to serve.
    opened.add('closing the HTTP server', () => http.stop(0));
    // A stop during the rest of the start-up closes the listener at once, as a stop after it does:
    // the port already answers (readiness says 503 meanwhile), and new connections must be refused.
    const closeListener = () => http.stopListening();
    options.signal?.addEventListener('abort', closeListener, { once: true });
    const ws = attachWebSocket(http.server, deps);
    opened.add('closing the WebSocket server', () => ws.close(0));
    // Undone first: the listener refuses new connections before the WebSockets and requests are closed.
    opened.add('closing the HTTP listener', () => http.stopListening());
    metrics.registerGauge(GAUGES.wsConnections, 'Open WebSocket connections.', () => ws.counts().graphql_ws_connections);
    metrics.registerGauge(
      GAUGES.wsSubscriptions,
      'Live WebSocket operations: subscriptions, and queries or mutations in flight.',
      () => ws.counts().graphql_ws_subscriptions,
    );
    metrics.registerGauge(
      GAUGES.sseStreams,
      'Open GraphQL-over-SSE responses: subscriptions, and queries or mutations in flight.',
      () => sse.counts().graphql_sse_streams,
    );
    try {
      stillWanted();
      const [created, bucket] = await Promise.all([tableReady.result(), bucketReady?.result()]);
      stillWanted();
      // The server's own jobs name a placeholder project, which PostgreSQL's foreign key requires to exist.
      if (postgres) await ensureSystemProject(store, clock());
      progress(
        {
          created: `Created table ${config.tableName} with its indexes.`,
          updated: `Brought table ${config.tableName} up to its definition (added the indexes or the stream it lacked).`,
          exists: `Using table ${config.tableName}.`,
          verified: postgres ? 'Using PostgreSQL (its schema checked).' : `Using table ${config.tableName} (its keys and indexes checked).`,
          applied: 'Applied the PostgreSQL schema derived from the declarations.',
        }[created],
      );
      if (s3) progress(`Local S3 is up at ${s3.endpoint}${bucket === 'created' ? `; created bucket ${config.s3.bucket}` : ''}.`);
    } finally {
      options.signal?.removeEventListener('abort', closeListener);
    }
    starting = false;
    outbox.start();
    downstream?.start();
    settler.start();
    archive.startSchedule();
    systemJobs.start();
    if (devToken) exampleIds = () => exampleIdsFromApi(http.url, devToken);
    logger.debug({ url: http.url }, 'listening');
    const ownEmbedded = embedded;
    const ownS3 = s3;
    let stopped: Promise<void> | undefined;
    return {
      url: http.url,
      dynamoEndpoint: endpoint,
      embeddedDynamo: ownEmbedded,
      embeddedS3Endpoint: ownS3?.endpoint,
      files,
      calls: dynamo.calls,
      pipeline,
      store,
      outbox,
      settler,
      systemJobs,
      archive,
      bus,
      metrics,
      readiness,
      metricsUrl: metricsServer?.url,
      devToken,
      counts: () => ({ ...ws.counts(), ...sse.counts(), event_bus_listeners: bus.listenerCount() }),
      held: () => {
        const rate = budgets.held();
        return {
          lease_watches: workSignalHubOf(bus).watched,
          bound_workers: workSignalHubOf(bus).bound.count,
          rate_draws: rate.draws,
          rate_sockets: rate.sockets,
          bus_connections: bus.connections(),
        };
      },
      liveResults: () => ({ ...pipeline.subscriptions.results }),
      setGraphiQLHints(hints) {
        exampleIds = hints;
      },
      get draining() {
        return draining;
      },
      embeddedStates() {
        return { ...(ownEmbedded && { dynamodb: ownEmbedded.state }), ...(ownS3 && { s3: ownS3.state }) };
      },
      stop() {
        stopped ??= (async () => {
          // Each step runs even when one before it failed: the embedded parts must stop regardless.
          const step = async (what: string, run: () => unknown) => {
            try {
              await run();
            } catch (err) {
              logger.warn({ err, step: what }, 'a shutdown step failed; going on');
            }
          };
          draining = true;
          http.stopListening();
          // SSE streams are HTTP responses that would hold the drain until its end: they are cut
          // first (without `complete`), so their clients reconnect to another instance and resume.
          await step('sse', () => sse.close());
          await step('http', () => http.stop(config.shutdownDrainMs));
          // Every operation ends at once; peers that do not finish the close handshake in time are cut off.
          await step('websockets', () => ws.close(WS_CLOSE_GRACE_MS));
          // Bound workers' graces end with the server: their workers reconnect to another instance.
          // The hand-backs already under way are waited for (as long as the HTTP drain at most),
          // before the outbox and the store they commit and publish through are stopped.
          await step('bound workers', () => workSignalHubOf(bus).close(config.shutdownDrainMs));
          // The archive's schedule stops first (it starts system jobs), then the system jobs, before
          // the outbox, so the events of their last writes are flushed.
          await step('archive', () => archive.stop());
          await step('system jobs', () => systemJobs.stop());
          await step('outbox', () => outbox.stop());
          await step('downstream relay', () => downstream?.stop());
          await step('job settle sweep', () => settler.stop());
          // The job states kept for busy jobs' next groups: the stopped process holds no items.
          committerOf(store).release();
          // The declarations hold again once this server is gone (a test's next server in the same process).
          if (config.attemptTimeoutSeconds !== undefined) overrideAttemptTimeouts(undefined);
          await step('event bus', () => bus.close());
          await step('rate budgets', () => budgets.close());
          await step('metrics server', () => metricsServer?.close());
          outage.stop();
          dynamo.client.destroy();
          await step('PostgreSQL', () => postgres?.close());
          files.destroy();
          await step('local S3', () => ownS3?.stop());
          await step('DynamoDB Local', () => ownEmbedded?.stop());
        })();
        return stopped;
      },
    };
  } catch (error) {
    // What this start-up opened is closed, the embedded parts last; a table check still running is
    // called off first. What fails meanwhile is logged by name; the start-up's failure is thrown.
    abandon.abort(new StartupCancelled('The start-up failed, so its table check was called off.'));
    await opened.undoAll((err) => err === error || isCancellation(err));
    // A start-up called off fails with what the abort made of whatever step it was in (an
    // AbortError from a table check, a part stopped): that is the expected end, said as such.
    if (options.signal?.aborted && !(error instanceof StartupCancelled))
      throw new StartupCancelled('The start-up was stopped.', { cause: error });
    throw error;
  }
}
