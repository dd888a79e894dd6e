import { resolve } from 'node:path';
import { App, DefaultStackSynthesizer } from 'aws-cdk-lib';
import { ServiceStack, type ServiceImage, type ServiceStackProps } from './service-stack';
import { StorageStack, type Store } from './storage-stack';

type Env = Record<string, string | undefined>;

/** What the deploy template is made from: the server's own setting names where they exist (see docs/deploying.md). */
export interface DeploySettings {
  stackName: string;
  /** STORE: the server's store, DynamoDB (the table and its Pipe) or PostgreSQL (Aurora, in the service stack); one, never both. */
  store: Store;
  tableName: string;
  bucketName?: string;
  corsOrigins: string[];
  archiveAfterDays: number;
  abortMultipartAfterDays: number;
  /** REPLICA_REGIONS: regions the table is replicated to (a global table); see docs/scaling.md. */
  replicaRegions: string[];
  account?: string;
  region?: string;
  /** The optional service stack (DEPLOY_SERVICE=true): the server on Fargate, its load balancer and Redis. */
  service?: ServiceSettings;
}

/** What the service stack is made from (docs/deploying.md, "The service stack"). */
export interface ServiceSettings {
  stackName: string;
  image: ServiceImage;
  desiredCount: number;
  cpu: number;
  memoryMiB: number;
  idleTimeoutSeconds: number;
  certificateArn?: string;
  redisNodeType: string;
  redisReplicas: number;
  /** With STORE=postgres: the Aurora Serverless v2 writer's largest size, in ACUs (DATABASE_MAX_ACU). */
  databaseMaxAcu: number;
  auth: ServiceStackProps['auth'];
  otlpEndpoint?: string;
  /** With STORE=postgres: the receiver of the events the server sends downstream (DOWNSTREAM_URL). */
  downstreamUrl?: string;
}

/** The repository's root, where the Dockerfile is (this file runs from deploy/ or dist/deploy/). */
const ROOT = resolve(__dirname, __dirname.endsWith('dist/deploy') ? '../..' : '..');

function whole(env: Env, name: string, fallback: number, what: string, min = 0): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min) throw new Error(`${name} must be a whole number of ${what}, got "${raw}".`);
  return value;
}

function days(env: Env, name: string, fallback: number): number {
  return whole(env, name, fallback, 'days');
}

function serviceSettings(env: Env): ServiceSettings | undefined {
  const raw = (env.DEPLOY_SERVICE ?? '').toLowerCase();
  if (!['true', '1', 'yes', 'on'].includes(raw)) {
    if (['', 'false', '0', 'no', 'off'].includes(raw)) return undefined;
    throw new Error(`DEPLOY_SERVICE must be true or false, got "${env.DEPLOY_SERVICE}".`);
  }
  const otlpEndpoint = env.OTEL_EXPORTER_OTLP_ENDPOINT || undefined;
  const image: ServiceImage = env.SERVICE_IMAGE
    ? { kind: 'uri', uri: env.SERVICE_IMAGE }
    : // Tracing needs the optional OpenTelemetry SDK in the image (see the Dockerfile).
      { kind: 'asset', directory: ROOT, buildArgs: otlpEndpoint ? { TRACING: 'true' } : {} };
  const idleTimeoutSeconds = whole(env, 'LB_IDLE_TIMEOUT_SECONDS', 120, 'seconds', 1);
  if (idleTimeoutSeconds > 4000) throw new Error('LB_IDLE_TIMEOUT_SECONDS must be at most 4000 (the load balancer allows no more).');
  return {
    stackName: env.SERVICE_STACK_NAME || 'ArtissistService',
    image,
    desiredCount: whole(env, 'SERVICE_DESIRED_COUNT', 2, 'tasks'),
    cpu: whole(env, 'SERVICE_CPU', 512, 'CPU units', 256),
    memoryMiB: whole(env, 'SERVICE_MEMORY_MIB', 1024, 'MiB', 512),
    idleTimeoutSeconds,
    certificateArn: env.CERTIFICATE_ARN || undefined,
    redisNodeType: env.REDIS_NODE_TYPE || 'cache.t4g.micro',
    redisReplicas: whole(env, 'REDIS_REPLICAS', 1, 'replicas'),
    databaseMaxAcu: whole(env, 'DATABASE_MAX_ACU', 4, 'ACUs', 1),
    auth: {
      jwksUrl: env.AUTH_JWKS_URL || undefined,
      issuer: env.AUTH_ISSUER || undefined,
      audience: env.AUTH_AUDIENCE || undefined,
      operator: {
        jwksUrl: env.AUTH_OPERATOR_JWKS_URL || undefined,
        issuer: env.AUTH_OPERATOR_ISSUER || undefined,
        audience: env.AUTH_OPERATOR_AUDIENCE || undefined,
      },
    },
    otlpEndpoint,
    downstreamUrl: downstreamUrl(env),
  };
}

/**
 * DOWNSTREAM_URL, an http(s) URL, for the server on PostgreSQL (which sends committed events there
 * itself); with DynamoDB the table's stream and the storage stack's Pipe send them, so it is refused.
 */
function downstreamUrl(env: Env): string | undefined {
  const raw = env.DOWNSTREAM_URL;
  if (!raw) return undefined;
  if (store(env) !== 'postgres')
    throw new Error(
      "DOWNSTREAM_URL applies with STORE=postgres; DynamoDB's deploy sends events downstream through its table stream and Pipe.",
    );
  if (!/^https?:\/\/[^\s]+$/.test(raw)) throw new Error(`DOWNSTREAM_URL must be an http(s) URL, got "${raw}".`);
  return raw;
}

/** REPLICA_REGIONS, a comma-separated list of region names; a global table needs the stack's own region fixed (AWS_REGION). */
function replicaRegions(env: Env): string[] {
  const regions = (env.REPLICA_REGIONS ?? '')
    .split(',')
    .map((region) => region.trim())
    .filter(Boolean);
  const malformed = regions.find((region) => !/^[a-z]{2}(-[a-z]+)+-\d$/.test(region));
  if (malformed) throw new Error(`REPLICA_REGIONS takes region names such as eu-west-1, got "${malformed}".`);
  if (regions.length && !(env.AWS_REGION || env.CDK_DEFAULT_REGION))
    throw new Error('REPLICA_REGIONS needs the stack’s own region (AWS_REGION): a global table lists every region it is in.');
  return regions;
}

/** STORE, `dynamodb` (the default) or `postgres`. */
function store(env: Env): Store {
  const raw = (env.STORE ?? '').toLowerCase();
  if (raw === '' || raw === 'dynamodb') return 'dynamodb';
  if (raw === 'postgres') return 'postgres';
  throw new Error(`STORE must be dynamodb or postgres, got "${env.STORE}".`);
}

export function deploySettings(env: Env = process.env): DeploySettings {
  const chosen = store(env);
  // A global table is DynamoDB's; PostgreSQL's replicas are another matter (Aurora Global Database), not made here.
  if (chosen === 'postgres' && env.REPLICA_REGIONS)
    throw new Error('REPLICA_REGIONS replicates the DynamoDB table; it does not apply with STORE=postgres.');
  return {
    stackName: env.STACK_NAME || 'ArtissistStorage',
    store: chosen,
    tableName: env.TABLE_NAME || 'Artissist',
    bucketName: env.S3_BUCKET || undefined,
    corsOrigins: (env.CORS_ORIGINS ?? '')
      .split(',')
      .map((origin) => origin.trim())
      .filter(Boolean),
    archiveAfterDays: days(env, 'ARCHIVE_AFTER_DAYS', 0),
    abortMultipartAfterDays: days(env, 'ABORT_MULTIPART_AFTER_DAYS', 1),
    replicaRegions: replicaRegions(env),
    account: env.CDK_DEFAULT_ACCOUNT || undefined,
    region: env.AWS_REGION || env.CDK_DEFAULT_REGION || undefined,
    service: serviceSettings(env),
  };
}

/**
 * Builds the CDK app: the storage stack, and the service stack when settings.service is given.
 * Synthesis is offline: nothing here looks anything up in an AWS account, and nothing runs Docker
 * (an image built from the Dockerfile is only staged as an asset, built at `cdk deploy`). The
 * templates carry no bootstrap-version rule and no CDK metadata resource, so the storage stack, and
 * the service stack with SERVICE_IMAGE (no asset), deploy with plain `aws cloudformation deploy` as
 * well as with `cdk deploy --app cdk.out`.
 */
export function buildApp(settings: DeploySettings, outdir = 'cdk.out'): { app: App; storage: StorageStack; service?: ServiceStack } {
  const app = new App({
    outdir,
    analyticsReporting: false,
    // Strong references (CloudFormation exports): the storage stack cannot be deleted, nor lose
    // what the service reads, while the service stack uses it. Said here, so synthesis does not warn.
    context: { '@aws-cdk/core:defaultCrossStackReferences': 'strong' },
  });
  const env = settings.account || settings.region ? { account: settings.account, region: settings.region } : undefined;
  const storage = new StorageStack(app, settings.stackName, {
    ...settings,
    env,
    synthesizer: new DefaultStackSynthesizer({ generateBootstrapVersionRule: false }),
    description:
      settings.store === 'postgres'
        ? 'Artissist: the S3 bucket and the runtime policy of the GraphQL server (its store is PostgreSQL)'
        : 'Artissist: the DynamoDB table, the S3 bucket and the runtime policy of the GraphQL server',
  });
  if (!settings.service) return { app, storage };
  // The service reads the storage stack's table, bucket and policy through CloudFormation exports,
  // so it is deployed after it (and the storage stack cannot be deleted while the service uses it).
  const service = new ServiceStack(app, settings.service.stackName, {
    ...settings.service,
    storage,
    store: settings.store,
    corsOrigins: settings.corsOrigins,
    env,
    synthesizer: new DefaultStackSynthesizer({ generateBootstrapVersionRule: false }),
    description:
      settings.store === 'postgres'
        ? 'Artissist: the GraphQL server on ECS Fargate behind an Application Load Balancer, with Aurora PostgreSQL'
        : 'Artissist: the GraphQL server on ECS Fargate behind an Application Load Balancer, with ElastiCache Redis',
  });
  return { app, storage, service };
}

if (require.main === module) {
  const settings = deploySettings();
  const assembly = buildApp(settings).app.synth();
  for (const stack of assembly.stacks) process.stdout.write(`${stack.stackName}: ${assembly.directory}/${stack.templateFile}\n`);
}
