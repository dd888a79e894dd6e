import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export type Environment = 'development' | 'production' | 'test';

/** Every Environment, to match NODE_ENV against. */
const ENVIRONMENTS: readonly Environment[] = ['development', 'production', 'test'];

export interface Config {
  env: Environment;
  host: string;
  port: number;
  /** The folder that keeps embedded DynamoDB Local's data and the generated development secret. */
  dataDir: string;
  tableName: string;
  dynamo: {
    /** True when no DynamoDB was configured, so the server starts DynamoDB Local itself. */
    embedded: boolean;
    /**
     * Create the table (and add missing indexes) at start-up; otherwise only check that it matches
     * the definition and refuse to start when it does not. Never in production, whose runtime role
     * has no table-management rights.
     */
    createTable: boolean;
    /**
     * Whether a table the server makes gets its change stream (TABLE_STREAM, on by default), which
     * the deploy template's Pipe and `npm run events:tail` read. Off, an existing stream is left as it is.
     */
    stream: boolean;
    endpoint?: string;
    region: string;
    /** Timeout of one attempt of a DynamoDB call (connect included); the SDK retries within the request budget. */
    requestTimeoutMs: number;
  };
  /**
   * PostgreSQL instead of DynamoDB (DATABASE_URL set): the server's connection (its role bound by
   * row-level security) and, with DATABASE_OWNER_URL, the schema owner's, with which the derived
   * schema is applied at start-up; without it the schema is only checked (docs/postgres.md).
   * Undefined: the server runs on DynamoDB.
   */
  postgres?: {
    url: string;
    ownerUrl?: string;
    /**
     * Where committed events go downstream (DOWNSTREAM_URL), as the Pipe sends them from DynamoDB's
     * stream: POSTed by a relay in the server (docs/postgres.md#events-downstream). Undefined: none go.
     */
    downstream?: { url: string; retryMs: number; pollMs: number };
  };
  /** Time allowed to open a TCP connection to DynamoDB or S3. */
  connectTimeoutMs: number;
  /** Total time one GraphQL HTTP request may spend on DynamoDB and S3 calls, retries included. */
  requestBudgetMs: number;
  readiness: {
    /** Time each readiness check (DynamoDB, S3, Redis) may take before it counts as down. */
    timeoutMs: number;
    /** How long a readiness result is reused, so a probe storm makes one check per period. */
    cacheMs: number;
  };
  metrics: {
    /** Serve Prometheus metrics at /metrics. */
    enabled: boolean;
    /** Serve them on this port (on HOST) instead of the API's port. */
    port?: number;
    /**
     * How long the counts /metrics reads from the store (the outbox backlog, the downstream queue)
     * are reused, so frequent scrapes make one read per period.
     */
    storeReadMs: number;
  };
  /** How often an ongoing dependency outage is summarized in the log. */
  outageLogIntervalMs: number;
  auth: {
    /** HS256 secret (development and tests) — unset when JWKS verification is configured. */
    secret?: Uint8Array;
    /** True when the secret was generated and stored under the data folder. */
    secretGenerated: boolean;
    jwksUrl?: string;
    issuer?: string;
    audience?: string;
    /** Tokens valid for longer than this (from `iat`) are refused; every token needs `exp`. */
    maxTokenLifetimeSeconds: number;
    /**
     * The operator issuer, whose key alone makes a token with the role operator valid (see
     * TokenVerifier): AUTH_OPERATOR_JWKS_URL with AUTH_OPERATOR_ISSUER, or AUTH_OPERATOR_SECRET, or
     * beside a generated development signing secret, one generated under the data folder. Unset
     * otherwise: no operator token is accepted.
     */
    operator?: { secret?: Uint8Array; jwksUrl?: string; issuer?: string; audience?: string };
    /** True when the operator secret was generated and stored under the data folder. */
    operatorSecretGenerated: boolean;
  };
  cursorSecret: string;
  introspection: boolean;
  /** Serve GraphiQL at GET /graphql for browsers. */
  graphiql: boolean;
  eventRetentionDays: number;
  /**
   * How long a worker holds a step it started or claimed without reporting (JOB_LEASE_SECONDS);
   * each progress report renews it. When it runs out, claimWork hands the step to another worker
   * as a new attempt.
   */
  jobLeaseSeconds: number;
  /**
   * How long after a bound worker's connection is lost abruptly its claims wait for it to subscribe
   * again before the server hands them back (WORKER_GRACE_SECONDS; see src/events/bound-workers.ts).
   */
  workerGraceSeconds: number;
  /**
   * ATTEMPT_TIMEOUT_SECONDS, outside production only: the attempt timeout every stage that
   * declares one gets instead of its own (BATCH's 900 s, MUSIC_VIDEO's 1,800 s), so a timeout can
   * be watched locally; undefined: the declarations hold.
   */
  attemptTimeoutSeconds?: number;
  /**
   * Browser origins allowed to call the API: CORS_ORIGINS, or outside production, when it is
   * unset, any port of http://localhost and http://127.0.0.1 (a frontend's dev server).
   */
  corsOrigins: Array<string | RegExp> | true;
  /**
   * Apollo's CSRF prevention: refuse a GET (or a POST that is not JSON) unless it carries a header
   * that forces a CORS preflight. Off by default: the only credential is an Authorization header,
   * which a cross-site page cannot attach without a preflight. Turn it on when a deployment
   * authenticates with cookies (CSRF_PREVENTION=true).
   */
  csrfPrevention: boolean;
  /**
   * The trusted documents manifest (PERSISTED_DOCUMENTS, written by `npm run codegen`) and whether
   * only its operations run (TRUSTED_DOCUMENTS_ONLY; on by default in production when a manifest is set).
   */
  trustedDocuments: { manifestPath?: string; only: boolean };
  s3: {
    /** True when no bucket was configured, so the server starts a local S3 (s3rver) itself. */
    embedded: boolean;
    bucket: string;
    endpoint?: string;
    forcePathStyle: boolean;
    /** Timeout of one attempt of an S3 call (HEAD, DELETE); presigning makes no call. */
    requestTimeoutMs: number;
  };
  files: {
    uploadMaxBytes: number;
    uploadUrlTtlSeconds: number;
    downloadUrlTtlSeconds: number;
    downloadUrlMaxTtlSeconds: number;
    /** Uploads not confirmed within this many hours expire. */
    uploadExpiryHours: number;
  };
  /**
   * Redis for events between instances, and for the tenants' rate budgets; in-process when unset.
   * `redis+cluster://host:port,…` names a Redis Cluster (see infra/redis-target.ts).
   */
  redisUrl?: string;
  /**
   * What each plan allows a tenant (PLAN_LIMITS overrides the defaults, see PLAN_DEFAULTS); a
   * tenant's own overrides, set by an operator (setTenantPlan), go over its plan's.
   */
  plans: Record<PlanName, PlanLimits>;
  /** Enforce the plans' request-rate and cost budgets (TENANT_RATE_LIMITS, on by default). */
  tenantRateLimits: boolean;
  ws: {
    /** Open WebSockets per instance; further handshakes are refused with 503 (WS_MAX_CONNECTIONS). */
    maxConnections: number;
    maxSubscriptions: number;
    maxPayloadBytes: number;
    keepAliveMs: number;
    initTimeoutMs: number;
  };
  /** GraphQL over Server-Sent Events (see src/http/sse.ts). */
  sse: {
    /** How often an idle stream gets a comment line, so proxies keep it open and a dead peer is noticed. */
    keepAliveMs: number;
    /** The reconnection delay a stream suggests to EventSource clients (the SSE `retry` field). */
    retryMs: number;
  };
  /** Live events a subscription buffers for a slow client before it sends RESYNC. */
  subscriptionBuffer: number;
  /** The most events a resume replays; a client further behind gets history lost (see events/replay.ts). */
  replayMaxEvents: number;
  outbox: { sweepIntervalMs: number; graceMs: number };
  /** How often the settle sweep looks for finished jobs whose items are not yet settled (src/job/job.settle.ts). */
  jobSettleSweepMs: number;
  /**
   * Cold storage (src/archive): finished jobs, and projects archived, this many days ago go to S3
   * (COLD_STORAGE_AFTER_DAYS, default 90, the seed's; at most FINISHED_JOB_TTL_DAYS − 14, so a run
   * that fails has two weeks before the TTL backstop); each instance tries to start the period's
   * run (a system job, one per period across instances) every ARCHIVE_INTERVAL_MS (default an
   * hour; 0: only the operator mutation runArchive starts one).
   */
  coldStorage: { afterDays: number; intervalMs: number };
  /**
   * The server's own jobs (migrations, src/system-jobs/runner.ts): how many of their work items this
   * process runs at once (0: none, this instance leaves them to others), and how long an idle
   * runner waits before it looks for work again (a job started on this instance wakes it at once).
   */
  systemJobs: { slots: number; idleMs: number };
  /**
   * The pauses before each restart of an embedded part that died (DynamoDB Local, the local S3),
   * in order; the last repeats (see Supervisor). A person's server waits a moment before each try;
   * a test of the restarts sets shorter ones.
   */
  embeddedRestartBackoffMs: number[];
  /**
   * How long start-up waits for an external DynamoDB that does not answer yet (retrying with
   * backoff, readiness 503 meanwhile) before it gives up with a message naming it.
   */
  startupDeadlineMs: number;
  /** On SIGINT/SIGTERM, how long in-flight HTTP requests may take to finish before they are cut off. */
  shutdownDrainMs: number;
  /**
   * Limits on HTTP connections against clients that hold them open (slow headers or bodies, idle
   * keep-alive): Node's own defaults check only every 30 s and allow 5 minutes for a request.
   */
  http: {
    /** Time to receive a request's headers; then 408 and the connection is closed. */
    headersTimeoutMs: number;
    /** Time to receive a whole request, body included; then 408 and the connection is closed. */
    requestTimeoutMs: number;
    /** How long an idle keep-alive connection stays open for the next request. */
    keepAliveTimeoutMs: number;
    /** Open connections per instance, WebSockets included; further ones are refused. */
    maxConnections: number;
  };
  limits: {
    maxDepth: number;
    maxCost: number;
    maxAliases: number;
    maxTokens: number;
    maxDirectives: number;
    bodyLimitBytes: number;
  };
}

/** The plans a tenant can be on (the Tenant entity's `plan`). */
export type PlanName = 'free' | 'studio' | 'enterprise';

/**
 * What a plan allows one tenant. Rates are per second, held across every instance (in Redis when
 * REDIS_URL is set); the rest are quotas, each checked in the transaction of the write that would
 * pass it (src/common/quota.ts). docs/operations.md says how to size them. (Running jobs and items
 * per job are bounded per job kind and by pool shares, not yet by the plan.)
 */
export interface PlanLimits {
  /** Operations a second of the whole tenant (queries, mutations, subscription starts; not workers'). */
  requestsPerSecond: number;
  /** Operations a second of one user of the tenant. */
  userRequestsPerSecond: number;
  /** Query cost a second of the whole tenant (the cost MAX_QUERY_COST bounds per operation). */
  costPerSecond: number;
  /** Workers' claims and reports a second: a budget of their own, so frontend traffic never stalls a pipeline. */
  workerRequestsPerSecond: number;
  /** Projects the tenant may hold. */
  projects: number;
  /** Bytes of confirmed files (asset versions, inspiration files) the tenant may store. */
  storedBytes: number;
  /** Jobs not yet finished (queued, running or paused) the tenant may hold. */
  runningJobs: number;
  /** Work items one job may hold over all its fan-out stages (each stage holds at most 10,000). */
  itemsPerJob: number;
}

/** The limits of each plan, unless PLAN_LIMITS says otherwise. */
export const PLAN_DEFAULTS: Record<PlanName, PlanLimits> = {
  free: {
    requestsPerSecond: 300,
    userRequestsPerSecond: 300,
    costPerSecond: 200_000,
    workerRequestsPerSecond: 1_000,
    projects: 1_000,
    storedBytes: 10 * 1024 ** 3,
    runningJobs: 100,
    itemsPerJob: 10_000,
  },
  studio: {
    requestsPerSecond: 1_000,
    userRequestsPerSecond: 500,
    costPerSecond: 1_000_000,
    workerRequestsPerSecond: 3_000,
    projects: 10_000,
    storedBytes: 1024 ** 4,
    runningJobs: 1_000,
    itemsPerJob: 50_000,
  },
  enterprise: {
    requestsPerSecond: 5_000,
    userRequestsPerSecond: 1_000,
    costPerSecond: 5_000_000,
    workerRequestsPerSecond: 10_000,
    projects: 100_000,
    storedBytes: 20 * 1024 ** 4,
    runningJobs: 10_000,
    itemsPerJob: 200_000,
  },
};

/** The names of a plan's limits, to check a PLAN_LIMITS entry or an operator's override against. */
export const PLAN_LIMIT_NAMES = Object.keys(PLAN_DEFAULTS.free).filter((name): name is keyof PlanLimits => name in PLAN_DEFAULTS.free);

/**
 * PLAN_LIMITS: JSON such as `{"free":{"projects":50}}`, each named limit a whole number from 0;
 * the limits it does not name keep their defaults. Throws, naming the entry, on anything else.
 */
function planLimits(raw: string | undefined): Record<PlanName, PlanLimits> {
  const plans: Record<PlanName, PlanLimits> = {
    free: { ...PLAN_DEFAULTS.free },
    studio: { ...PLAN_DEFAULTS.studio },
    enterprise: { ...PLAN_DEFAULTS.enterprise },
  };
  if (!raw) return plans;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new Error('PLAN_LIMITS must be JSON, e.g. {"free":{"projects":50}}.');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new Error('PLAN_LIMITS must be a JSON object of plans.');
  for (const [plan, limits] of Object.entries(parsed)) {
    if (plan !== 'free' && plan !== 'studio' && plan !== 'enterprise') throw new Error(`PLAN_LIMITS names no plan "${plan}".`);
    if (typeof limits !== 'object' || limits === null) throw new Error(`PLAN_LIMITS.${plan} must be an object of limits.`);
    for (const [name, value] of Object.entries(limits)) {
      const known = PLAN_LIMIT_NAMES.find((n) => n === name);
      if (!known) throw new Error(`PLAN_LIMITS.${plan} names no limit "${name}"; the limits are ${PLAN_LIMIT_NAMES.join(', ')}.`);
      if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0)
        throw new Error(`PLAN_LIMITS.${plan}.${name} must be a whole number from 0.`);
      plans[plan][known] = value;
    }
  }
  return plans;
}

type Env = Record<string, string | undefined>;

/** A Redis Cluster's seed nodes, and the credentials every node takes. */
export interface ClusterTarget {
  nodes: Array<{ host: string; port: number }>;
  username?: string;
  password?: string;
}

/** The scheme of a REDIS_URL that names a Redis Cluster: `redis+cluster://host:port,host:port`. */
export const CLUSTER_SCHEME = 'redis+cluster:';

/**
 * The Redis Cluster a REDIS_URL names (`redis+cluster://[user:password@]host:port[,host:port…]`,
 * the seed nodes: any one of them that answers tells the client the rest), or undefined for a
 * URL of one node (`redis://…`, `rediss://…`), which ioredis takes as it is. Throws, naming the
 * setting, for a cluster URL without a node or with a node that is not `host:port`.
 */
export function clusterTarget(url: string): ClusterTarget | undefined {
  if (!url.startsWith(`${CLUSTER_SCHEME}//`)) return undefined;
  let rest = url.slice(CLUSTER_SCHEME.length + 2).replace(/\/$/, '');
  let username: string | undefined;
  let password: string | undefined;
  const at = rest.lastIndexOf('@');
  if (at >= 0) {
    const [user, ...secret] = rest.slice(0, at).split(':');
    username = user ? decodeURIComponent(user) : undefined;
    password = secret.length > 0 ? decodeURIComponent(secret.join(':')) : undefined;
    rest = rest.slice(at + 1);
  }
  const nodes = rest.split(',').map((node) => {
    const match = /^([^:,/\s]+):(\d{1,5})$/.exec(node.trim());
    if (!match || Number(match[2]) > 65535) {
      throw new Error(`REDIS_URL names a cluster node "${node}" that is not host:port (e.g. redis+cluster://10.0.0.1:6379,10.0.0.2:6379).`);
    }
    return { host: match[1], port: Number(match[2]) };
  });
  return { nodes, username, password };
}

/** REDIS_URL as given (undefined when empty); a cluster URL's nodes are checked now, so a typo stops the start. */
function redisUrl(raw: string | undefined): string | undefined {
  if (!raw) return undefined;
  clusterTarget(raw);
  return raw;
}

function int(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a whole number, got "${raw}".`);
  return value;
}

/** A comma-separated list of whole numbers of milliseconds, at least one. */
function msList(env: Env, name: string, fallback: number[]): number[] {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const parts = raw.split(',').map((part) => part.trim());
  const values = parts.map(Number);
  if (parts.some((part, i) => part === '' || !Number.isInteger(values[i]) || values[i] < 0))
    throw new Error(`${name} must be whole numbers of milliseconds separated by commas, got "${raw}".`);
  return values;
}

/** A whole number above zero: a timeout of 0 would mean "no timeout" to the AWS SDK. */
function positive(env: Env, name: string, fallback: number): number {
  const value = int(env, name, fallback);
  if (value === 0) throw new Error(`${name} must be above 0.`);
  return value;
}

/**
 * ATTEMPT_TIMEOUT_SECONDS: whole seconds above 0, or undefined when unset. Refused in production,
 * where the declared timeouts are the ones the pipelines were measured for.
 */
function attemptTimeoutOverride(env: Env, production: boolean): number | undefined {
  if (!env.ATTEMPT_TIMEOUT_SECONDS) return undefined;
  if (production)
    throw new Error('ATTEMPT_TIMEOUT_SECONDS is for trying attempt timeouts in development; in production the declared timeouts hold.');
  return positive(env, 'ATTEMPT_TIMEOUT_SECONDS', 1);
}

/**
 * A finished job's TTL (its steps and items take it too): a backstop only. The archive moves a
 * finished job to cold storage after COLD_STORAGE_AFTER_DAYS (90 by default), well before this;
 * the TTL removes what a broken archive left, as the TTL alone did before cold storage existed.
 */
export const FINISHED_JOB_TTL_DAYS = 120;

/**
 * A job's own events expire this long after they are written, so that they are still there when
 * their job is archived (a job that finishes within 245 days of an event keeps it; the project
 * and tenant copies of job status events keep EVENT_RETENTION_DAYS).
 */
export const JOB_EVENT_TTL_DAYS = 365;

/**
 * COLD_STORAGE_AFTER_DAYS: a number of days from 0 to FINISHED_JOB_TTL_DAYS − 14, so the archive
 * always runs before the TTL backstop removes a finished job, with two weeks for failed runs to be
 * noticed and repeated. 0 and fractions are allowed (0.001 is about 86 s), so cold storage can be
 * tried locally without waiting a day.
 */
function coldStorageDays(env: Env): number {
  const raw = env.COLD_STORAGE_AFTER_DAYS;
  const days = raw === undefined || raw === '' ? 90 : Number(raw);
  if (!Number.isFinite(days) || days < 0) throw new Error(`COLD_STORAGE_AFTER_DAYS must be a number of days from 0, got "${raw}".`);
  const most = FINISHED_JOB_TTL_DAYS - 14;
  if (days > most)
    throw new Error(`COLD_STORAGE_AFTER_DAYS must be at most ${most} (the finished jobs' TTL backstop, less two weeks), got ${days}.`);
  return days;
}

function bool(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (['true', '1', 'yes'].includes(raw.toLowerCase())) return true;
  if (['false', '0', 'no'].includes(raw.toLowerCase())) return false;
  throw new Error(`${name} must be true or false, got "${raw}".`);
}

function onOff(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (['on', 'true', '1', 'yes'].includes(raw.toLowerCase())) return true;
  if (['off', 'false', '0', 'no'].includes(raw.toLowerCase())) return false;
  throw new Error(`${name} must be on or off, got "${raw}".`);
}

function hasAwsCredentials(env: Env): boolean {
  return Boolean(
    env.AWS_ACCESS_KEY_ID ||
      env.AWS_PROFILE ||
      env.AWS_WEB_IDENTITY_TOKEN_FILE ||
      env.AWS_CONTAINER_CREDENTIALS_FULL_URI ||
      env.AWS_CONTAINER_CREDENTIALS_RELATIVE_URI,
  );
}

/**
 * Reads the development signing secret: AUTH_JWT_SECRET when set, else the one stored under the
 * data folder, else a new random one that is stored there so tokens survive a restart and
 * `npm run token` signs with the same key as the running server. Throws in production, where a
 * secret is never generated.
 */
export function developmentSecret(env: Env, dataDir: string, production: boolean): { secret: Uint8Array; generated: boolean } {
  if (env.AUTH_JWT_SECRET) return { secret: new TextEncoder().encode(env.AUTH_JWT_SECRET), generated: false };
  if (production) {
    throw new Error('In production set AUTH_JWKS_URL (with AUTH_ISSUER and AUTH_AUDIENCE) or AUTH_JWT_SECRET.');
  }
  return { secret: storedSecret(dataDir, 'dev-jwt-secret'), generated: true };
}

/** The random secret kept in `file` under the data folder, made there (readable by this user only) when missing. */
function storedSecret(dataDir: string, name: string): Uint8Array {
  const file = join(dataDir, name);
  if (!existsSync(file)) {
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(file, randomBytes(32).toString('base64url'), { mode: 0o600 });
  }
  return new TextEncoder().encode(readFileSync(file, 'utf8').trim());
}

/** The file under the data folder that keeps the development operator secret (`npm run token -- --operator` reads it, src/scripts/running-server.ts). */
const OPERATOR_SECRET_FILE = 'dev-operator-secret';

/**
 * The operator issuer (see Config.auth.operator and TokenVerifier). Throws when it would be the
 * tenants' own issuer (the same secret or JWKS), which would let a tenant's issuer mint operators,
 * or when a JWKS comes without the issuer its tokens must name.
 */
export function operatorIssuer(
  env: Env,
  dataDir: string,
  tenants: { secret?: Uint8Array; generated?: boolean; jwksUrl?: string },
): { operator?: Config['auth']['operator']; generated: boolean } {
  const audience = env.AUTH_OPERATOR_AUDIENCE || env.AUTH_AUDIENCE || undefined;
  const issuer = env.AUTH_OPERATOR_ISSUER || undefined;
  const jwksUrl = env.AUTH_OPERATOR_JWKS_URL || undefined;
  if (jwksUrl) {
    if (jwksUrl === tenants.jwksUrl)
      throw new Error("AUTH_OPERATOR_JWKS_URL must not be AUTH_JWKS_URL: the operators' keys must be none of the tenants' issuer's.");
    if (!issuer) throw new Error('AUTH_OPERATOR_JWKS_URL needs AUTH_OPERATOR_ISSUER, the iss claim of the operators’ tokens.');
    return { operator: { jwksUrl, issuer, audience }, generated: false };
  }
  if (env.AUTH_OPERATOR_SECRET) {
    const secret = new TextEncoder().encode(env.AUTH_OPERATOR_SECRET);
    if (tenants.secret && Buffer.from(secret).equals(Buffer.from(tenants.secret)))
      throw new Error("AUTH_OPERATOR_SECRET must differ from the tenants' signing secret (AUTH_JWT_SECRET).");
    return { operator: { secret, issuer, audience }, generated: false };
  }
  // The development default, beside a generated signing secret: one more generated secret, so that
  // `npm run token -- --operator` works at once. Where the tenants' key is configured, so is the
  // operators' (or there is none, and no operator token is accepted).
  if (!tenants.generated) return { generated: false };
  return { operator: { secret: storedSecret(dataDir, OPERATOR_SECRET_FILE), issuer, audience }, generated: true };
}

function httpLimits(env: Env): Config['http'] {
  const limits = {
    headersTimeoutMs: positive(env, 'HTTP_HEADERS_TIMEOUT_MS', 10_000),
    requestTimeoutMs: positive(env, 'HTTP_REQUEST_TIMEOUT_MS', 30_000),
    keepAliveTimeoutMs: positive(env, 'HTTP_KEEPALIVE_TIMEOUT_MS', 5_000),
    maxConnections: positive(env, 'HTTP_MAX_CONNECTIONS', 10_000),
  };
  // Node refuses a header timeout longer than the request's, which includes the headers.
  if (limits.headersTimeoutMs > limits.requestTimeoutMs)
    throw new Error('HTTP_HEADERS_TIMEOUT_MS must not exceed HTTP_REQUEST_TIMEOUT_MS.');
  return limits;
}

/** Origins a frontend's dev server runs on (Vite's localhost:5173, CRA's :3000 …), allowed outside production by default. */
const DEV_ORIGINS = [/^http:\/\/localhost(:\d+)?$/, /^http:\/\/127\.0\.0\.1(:\d+)?$/];

/**
 * Builds the configuration from environment variables (see docs/settings.md). Throws with a
 * message naming the variable when a value is malformed or a production requirement is missing.
 */
export function loadConfig(env: Env = process.env): Config {
  const given = env.NODE_ENV ?? 'development';
  const envName = ENVIRONMENTS.find((name) => name === given);
  if (envName === undefined) {
    throw new Error(`NODE_ENV must be development, production or test, got "${given}".`);
  }
  const production = envName === 'production';
  const dataDir = resolve(env.DATA_DIR ?? '.data');
  const endpoint = env.DYNAMODB_ENDPOINT || undefined;
  const postgresUrl = env.DATABASE_URL || undefined;
  if (postgresUrl && !/^postgres(ql)?:\/\//.test(postgresUrl)) throw new Error('DATABASE_URL must be a postgres:// URL.');
  const downstreamUrl = env.DOWNSTREAM_URL || undefined;
  // On DynamoDB the table's stream and the deploy template's Pipe send events downstream, not the server.
  if (downstreamUrl && !postgresUrl)
    throw new Error(
      'DOWNSTREAM_URL is for a server on PostgreSQL (DATABASE_URL); on DynamoDB events go downstream by the table stream and its Pipe.',
    );
  if (downstreamUrl && !/^https?:\/\//.test(downstreamUrl)) throw new Error('DOWNSTREAM_URL must be an http:// or https:// URL.');
  // On PostgreSQL no DynamoDB is used, so none is started.
  const embedded = !postgresUrl && !endpoint && !(env.TABLE_NAME && hasAwsCredentials(env));
  if (production && embedded) {
    throw new Error('In production set DYNAMODB_ENDPOINT, or TABLE_NAME with AWS credentials; DynamoDB Local is for development.');
  }
  // A local DynamoDB (embedded, or a development endpoint) gets its table made; real AWS and
  // production only get it checked, since the deploy template owns the table there.
  const createTable = !postgresUrl && bool(env, 'CREATE_TABLE', !production && (embedded || Boolean(endpoint)));
  if (production && createTable) throw new Error('CREATE_TABLE cannot be on in production: the deploy template creates the table.');
  if (production && !env.S3_BUCKET) throw new Error('In production set S3_BUCKET; the embedded S3 is for development.');

  const jwksUrl = env.AUTH_JWKS_URL || undefined;
  const dev = jwksUrl ? undefined : developmentSecret(env, dataDir, production);
  const operator = operatorIssuer(env, dataDir, { ...dev, jwksUrl });

  let cursorSecret = env.CURSOR_SECRET;
  if (!cursorSecret) {
    if (production) throw new Error('In production set CURSOR_SECRET (shared by all instances) so page cursors stay valid.');
    cursorSecret = dev ? Buffer.from(dev.secret).toString('base64url') : randomBytes(32).toString('base64url');
  }

  const cors = env.CORS_ORIGINS;
  return {
    env: envName,
    host: env.HOST ?? '127.0.0.1',
    port: int(env, 'PORT', 4000),
    dataDir,
    tableName: env.TABLE_NAME || 'Artissist',
    dynamo: {
      embedded,
      createTable,
      stream: onOff(env, 'TABLE_STREAM', true),
      endpoint,
      region: env.AWS_REGION || env.AWS_DEFAULT_REGION || 'us-east-1',
      requestTimeoutMs: positive(env, 'DYNAMODB_TIMEOUT_MS', 2000),
    },
    postgres: postgresUrl
      ? {
          url: postgresUrl,
          ownerUrl: env.DATABASE_OWNER_URL || undefined,
          downstream: downstreamUrl
            ? { url: downstreamUrl, retryMs: positive(env, 'DOWNSTREAM_RETRY_MS', 1000), pollMs: positive(env, 'DOWNSTREAM_POLL_MS', 1000) }
            : undefined,
        }
      : undefined,
    connectTimeoutMs: positive(env, 'CONNECT_TIMEOUT_MS', 1000),
    requestBudgetMs: positive(env, 'REQUEST_BUDGET_MS', 5000),
    readiness: {
      timeoutMs: positive(env, 'READINESS_TIMEOUT_MS', 1000),
      cacheMs: int(env, 'READINESS_CACHE_MS', 1000),
    },
    metrics: {
      enabled: onOff(env, 'METRICS', true),
      port: env.METRICS_PORT ? int(env, 'METRICS_PORT', 0) : undefined,
      storeReadMs: int(env, 'METRICS_STORE_READ_MS', 5000),
    },
    outageLogIntervalMs: positive(env, 'OUTAGE_LOG_INTERVAL_MS', 10_000),
    auth: {
      secret: dev?.secret,
      secretGenerated: dev?.generated ?? false,
      jwksUrl,
      issuer: env.AUTH_ISSUER || undefined,
      audience: env.AUTH_AUDIENCE || undefined,
      // 30 days: the development token's lifetime; identity providers issue far shorter ones.
      maxTokenLifetimeSeconds: positive(env, 'AUTH_MAX_TOKEN_LIFETIME_SECONDS', 30 * 24 * 3600),
      operator: operator.operator,
      operatorSecretGenerated: operator.generated,
    },
    cursorSecret,
    introspection: bool(env, 'INTROSPECTION', !production),
    graphiql: bool(env, 'GRAPHIQL', !production),
    eventRetentionDays: int(env, 'EVENT_RETENTION_DAYS', 30),
    jobLeaseSeconds: int(env, 'JOB_LEASE_SECONDS', 60),
    workerGraceSeconds: positive(env, 'WORKER_GRACE_SECONDS', 5),
    attemptTimeoutSeconds: attemptTimeoutOverride(env, production),
    corsOrigins: cors ? (cors === '*' ? true : cors.split(',').map((s) => s.trim())) : production ? [] : DEV_ORIGINS,
    csrfPrevention: bool(env, 'CSRF_PREVENTION', false),
    trustedDocuments: {
      manifestPath: env.PERSISTED_DOCUMENTS || undefined,
      only: bool(env, 'TRUSTED_DOCUMENTS_ONLY', production && Boolean(env.PERSISTED_DOCUMENTS)),
    },
    s3: {
      embedded: !env.S3_BUCKET,
      bucket: env.S3_BUCKET || 'artissist',
      endpoint: env.S3_ENDPOINT || undefined,
      forcePathStyle: bool(env, 'S3_FORCE_PATH_STYLE', !env.S3_BUCKET),
      requestTimeoutMs: positive(env, 'S3_TIMEOUT_MS', 5000),
    },
    files: {
      uploadMaxBytes: int(env, 'UPLOAD_MAX_BYTES', 500 * 1024 * 1024),
      uploadUrlTtlSeconds: int(env, 'UPLOAD_URL_TTL_SECONDS', 900),
      downloadUrlTtlSeconds: int(env, 'DOWNLOAD_URL_TTL_SECONDS', 3600),
      downloadUrlMaxTtlSeconds: int(env, 'DOWNLOAD_URL_MAX_TTL_SECONDS', 3600),
      uploadExpiryHours: int(env, 'UPLOAD_EXPIRY_HOURS', 24),
    },
    redisUrl: redisUrl(env.REDIS_URL),
    plans: planLimits(env.PLAN_LIMITS),
    tenantRateLimits: onOff(env, 'TENANT_RATE_LIMITS', true),
    ws: {
      maxConnections: positive(env, 'WS_MAX_CONNECTIONS', 5_000),
      maxSubscriptions: int(env, 'WS_MAX_SUBSCRIPTIONS', 100),
      maxPayloadBytes: int(env, 'WS_MAX_PAYLOAD_BYTES', 65_536),
      keepAliveMs: int(env, 'WS_KEEPALIVE_MS', 12_000),
      initTimeoutMs: int(env, 'WS_INIT_TIMEOUT_MS', 3_000),
    },
    sse: {
      keepAliveMs: int(env, 'SSE_KEEPALIVE_MS', 12_000),
      retryMs: int(env, 'SSE_RETRY_MS', 1_000),
    },
    subscriptionBuffer: int(env, 'SUBSCRIPTION_BUFFER', 1000),
    replayMaxEvents: positive(env, 'REPLAY_MAX_EVENTS', 100_000),
    outbox: { sweepIntervalMs: int(env, 'OUTBOX_SWEEP_MS', 2_000), graceMs: int(env, 'OUTBOX_GRACE_MS', 3_000) },
    jobSettleSweepMs: int(env, 'JOB_SETTLE_SWEEP_MS', 10_000),
    coldStorage: { afterDays: coldStorageDays(env), intervalMs: int(env, 'ARCHIVE_INTERVAL_MS', 3_600_000) },
    systemJobs: { slots: int(env, 'SYSTEM_JOB_SLOTS', 4), idleMs: positive(env, 'SYSTEM_JOB_IDLE_MS', 30_000) },
    embeddedRestartBackoffMs: msList(env, 'EMBEDDED_RESTART_BACKOFF_MS', [250, 1000, 3000]),
    shutdownDrainMs: int(env, 'SHUTDOWN_DRAIN_MS', 5_000),
    startupDeadlineMs: positive(env, 'STARTUP_DEADLINE_MS', 60_000),
    http: httpLimits(env),
    limits: {
      maxDepth: int(env, 'MAX_QUERY_DEPTH', 6),
      maxCost: int(env, 'MAX_QUERY_COST', 5000),
      maxAliases: int(env, 'MAX_ALIASES', 15),
      maxTokens: int(env, 'MAX_TOKENS', 1000),
      maxDirectives: int(env, 'MAX_DIRECTIVES', 50),
      bodyLimitBytes: int(env, 'BODY_LIMIT_BYTES', 100_000),
    },
  };
}

/**
 * Whether OpenTelemetry tracing is asked for through the standard variables. It is off by default:
 * a server started without any OTEL_* setting loads no SDK and patches no module. It is on when an
 * OTLP endpoint is named (OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) or a
 * trace exporter is chosen (OTEL_TRACES_EXPORTER other than `none`), and OTEL_SDK_DISABLED, the
 * standard switch, turns it off whatever else is set. The logger asks it too, so that only a traced
 * server pays for trace ids in its log lines.
 */
export function tracingRequested(env: Env = process.env): boolean {
  if ((env.OTEL_SDK_DISABLED ?? '').trim().toLowerCase() === 'true') return false;
  const exporters = (env.OTEL_TRACES_EXPORTER ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  if (exporters.length > 0) return exporters[0] !== 'none';
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
}
