import { CfnOutput, Duration, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as pipes from 'aws-cdk-lib/aws-pipes';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { DOWNSTREAM_DETAIL_TYPE, DOWNSTREAM_FILTER, DOWNSTREAM_SOURCE, envelopeTemplate } from '../src/infra/dynamo/downstream';
import { indexNames, TTL_ATTRIBUTE, tableDefinition } from '../src/infra/dynamo/table';
import { ARCHIVE_PREFIX, ARCHIVED_TAG } from '../src/infra/s3/archive-tag';

/**
 * The server's store: DynamoDB (the table, its stream and the Pipe downstream, in this stack) or
 * PostgreSQL (DATABASE_URL: Aurora in the service stack, or a database of your own). One of them,
 * never both: a server runs on one store (docs/postgres.md).
 */
export type Store = 'dynamodb' | 'postgres';

export interface StorageStackProps extends StackProps {
  /** With `postgres` the stack holds no table and no Pipe: the bucket and the runtime policy (objects only). */
  store?: Store;
  /** The table's name; the server's TABLE_NAME must say the same. */
  tableName: string;
  /** The bucket's name; CloudFormation generates one when it is not given (read it from the outputs). */
  bucketName?: string;
  /** Origins allowed to PUT presigned uploads and GET downloads from a browser; no CORS rule when empty. */
  corsOrigins: string[];
  /** Days after which an object tagged as archived moves to the archival storage class. */
  archiveAfterDays: number;
  /** Days after which an incomplete multipart upload is aborted (its parts cost storage until then). */
  abortMultipartAfterDays: number;
  /**
   * Regions the table is replicated to besides the stack's own (REPLICA_REGIONS): with any, the
   * table is a DynamoDB global table (eventually consistent across regions). What holds across
   * regions, and where a tenant's writes must go, is in docs/scaling.md. Empty: one region.
   */
  replicaRegions?: string[];
}

/**
 * Item-level DynamoDB actions the server uses: reads (GetItem, BatchGetItem, Query, and Scan, which
 * only the server's own jobs use: a migration's segments and the drift check read the whole
 * table; no request scans) and writes (PutItem, UpdateItem, DeleteItem and ConditionCheckItem: the
 * server writes through TransactWriteItems and UpdateItem, and IAM authorizes a transaction item
 * by item; BatchWriteItem, an action of its own, deletes published outbox entries, Store.deleteEach). No action that creates, changes, describes or deletes the table itself is
 * granted: the template owns the table.
 */
export const TABLE_ACTIONS = [
  'dynamodb:GetItem',
  'dynamodb:BatchGetItem',
  'dynamodb:Query',
  'dynamodb:Scan',
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
  'dynamodb:ConditionCheckItem',
  'dynamodb:BatchWriteItem',
];

/** Indexes are only ever queried. */
export const INDEX_ACTIONS = ['dynamodb:Query'];

/**
 * Object actions: presigned uploads (PutObject) and downloads (GetObject, which also covers
 * HeadObject when an upload is confirmed), deletes (DeleteObjects needs DeleteObject per key), and
 * the object tags that mark an archived version.
 */
export const OBJECT_ACTIONS = ['s3:GetObject', 's3:PutObject', 's3:DeleteObject', 's3:GetObjectTagging', 's3:PutObjectTagging'];

/** HeadBucket, which readiness calls, is authorized as ListBucket on the bucket. */
export const BUCKET_ACTIONS = ['s3:ListBucket'];

/**
 * Every object key the server writes starts with one of these prefixes: a tenant's files
 * (`tenants/<tenant>/…`, see src/common/s3-key.ts) and the cold storage of finished jobs and
 * archived projects (`archive/tenants/<tenant>/…`, see src/archive).
 */
export const OBJECT_PREFIX = 'tenants/';
export { ARCHIVE_PREFIX };

/** What the Pipe may do with the table's stream: read it, and nothing else of the table. */
export const STREAM_ACTIONS = ['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator', 'dynamodb:ListStreams'];

/** Attempts the Pipe makes to put a batch on the bus before its records go to the dead-letter queue. */
const PIPE_RETRY_ATTEMPTS = 10;

/**
 * The server's state: the one DynamoDB table, built from the same definition the server creates
 * locally (src/infra/dynamo/table.ts), the bucket for files, and the managed policy to attach to
 * the server's runtime role. Both data resources are retained when the stack is deleted.
 */
export class StorageStack extends Stack {
  /** The table: a regional table, or a global table with replicas when replicaRegions are given; none on PostgreSQL. */
  readonly table?: dynamodb.CfnTable | dynamodb.CfnGlobalTable;
  readonly bucket: s3.Bucket;
  readonly runtimePolicy: iam.ManagedPolicy;
  /** Downstream events from the table's stream; none on PostgreSQL (docs/postgres.md, "Not yet"). */
  readonly eventBus?: events.EventBus;
  readonly deadLetters?: sqs.Queue;
  readonly pipe?: pipes.CfnPipe;

  constructor(scope: Construct, id: string, props: StorageStackProps) {
    super(scope, id, props);
    const bucket = this.files(props);
    this.bucket = bucket;
    const objectStatements = [
      new iam.PolicyStatement({
        sid: 'Objects',
        actions: OBJECT_ACTIONS,
        resources: [bucket.arnForObjects(`${OBJECT_PREFIX}*`), bucket.arnForObjects(`${ARCHIVE_PREFIX}*`)],
      }),
      new iam.PolicyStatement({ sid: 'Bucket', actions: BUCKET_ACTIONS, resources: [bucket.bucketArn] }),
    ];
    new CfnOutput(this, 'BucketName', { value: bucket.bucketName, description: 'S3_BUCKET for the server' });
    if (props.store === 'postgres') {
      // The database's rights are its roles' (docs/postgres.md), not IAM's: the policy is the bucket's alone.
      this.runtimePolicy = new iam.ManagedPolicy(this, 'RuntimePolicy', {
        description: 'What the Artissist server needs at run time on PostgreSQL: objects of its bucket.',
        statements: objectStatements,
      });
      new CfnOutput(this, 'RuntimePolicyArn', { value: this.runtimePolicy.managedPolicyArn, description: "Attach to the server's role" });
      return;
    }

    // The level-1 construct takes the CreateTable definition attribute for attribute, so the
    // template's keys and indexes are the server's and cannot drift from them.
    const definition = tableDefinition(props.tableName);
    const shape = {
      tableName: definition.TableName,
      billingMode: definition.BillingMode,
      attributeDefinitions: (definition.AttributeDefinitions ?? []).map((a) => ({
        attributeName: a.AttributeName!,
        attributeType: a.AttributeType!,
      })),
      keySchema: keySchema(definition.KeySchema),
      globalSecondaryIndexes: (definition.GlobalSecondaryIndexes ?? []).map((index) => ({
        indexName: index.IndexName!,
        keySchema: keySchema(index.KeySchema),
        projection: { projectionType: index.Projection?.ProjectionType },
      })),
      timeToLiveSpecification: { attributeName: TTL_ATTRIBUTE, enabled: true },
    };
    const replicaRegions = [...new Set(props.replicaRegions ?? [])].filter((region) => region !== this.region);
    this.table = replicaRegions.length
      ? new dynamodb.CfnGlobalTable(this, 'Table', {
          ...shape,
          // Replication needs the table's stream (new and old images, which the Pipe below reads
          // too); each replica is its own regional table with the same keys, indexes, recovery,
          // encryption and protection.
          streamSpecification: { streamViewType: 'NEW_AND_OLD_IMAGES' },
          sseSpecification: { sseEnabled: true, sseType: 'KMS' },
          replicas: [this.region, ...replicaRegions].map((region) => ({
            region,
            pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
            sseSpecification: { kmsMasterKeyId: 'alias/aws/dynamodb' },
            deletionProtectionEnabled: true,
          })),
        })
      : new dynamodb.CfnTable(this, 'Table', {
          ...shape,
          // Every committed item as it is after the write, for the Pipe below.
          streamSpecification: { streamViewType: definition.StreamSpecification?.StreamViewType ?? 'NEW_IMAGE' },
          pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
          // Encrypted with the AWS managed KMS key (aws/dynamodb), whose use shows in CloudTrail.
          sseSpecification: { sseEnabled: true, sseType: 'KMS' },
          deletionProtectionEnabled: true,
        });
    this.table.applyRemovalPolicy(RemovalPolicy.RETAIN);
    const table = this.table;

    // A server in a replica's region uses that region's replica: the policy names each one.
    const tableArns = [
      table.attrArn,
      ...replicaRegions.map((region) =>
        this.formatArn({ service: 'dynamodb', region, resource: 'table', resourceName: definition.TableName }),
      ),
    ];
    this.runtimePolicy = new iam.ManagedPolicy(this, 'RuntimePolicy', {
      description: 'What the Artissist server needs at run time: items of its table and indexes, objects of its bucket.',
      statements: [
        new iam.PolicyStatement({ sid: 'TableItems', actions: TABLE_ACTIONS, resources: tableArns }),
        // Each index by name rather than `index/*`, so an index added by hand grants nothing.
        new iam.PolicyStatement({
          sid: 'IndexQueries',
          actions: INDEX_ACTIONS,
          resources: tableArns.flatMap((arn) => indexNames.map((name) => `${arn}/index/${name}`)),
        }),
        ...objectStatements,
      ],
    });

    // Downstream: every committed event item, from the table's stream through an EventBridge Pipe
    // (filtered to event items, mapped to the versioned envelope of src/infra/dynamo/downstream.ts)
    // to an event bus. What the bus refuses past the retries goes to the dead-letter queue.
    const eventBus = new events.EventBus(this, 'Events', {
      description: 'Artissist events for downstream consumers (docs/operations.md).',
    });
    const deadLetters = new sqs.Queue(this, 'EventDeadLetters', {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    this.eventBus = eventBus;
    this.deadLetters = deadLetters;
    const streamArn = table.attrStreamArn;
    const pipeRole = new iam.Role(this, 'EventPipeRole', {
      assumedBy: new iam.ServicePrincipal('pipes.amazonaws.com'),
      description: 'The event Pipe: reads the table stream, puts events on the bus, parks failures in the dead-letter queue.',
      inlinePolicies: {
        pipe: new iam.PolicyDocument({
          statements: [
            new iam.PolicyStatement({ sid: 'ReadStream', actions: STREAM_ACTIONS, resources: [streamArn] }),
            new iam.PolicyStatement({ sid: 'PutEvents', actions: ['events:PutEvents'], resources: [eventBus.eventBusArn] }),
            new iam.PolicyStatement({ sid: 'DeadLetters', actions: ['sqs:SendMessage'], resources: [deadLetters.queueArn] }),
          ],
        }),
      },
    });
    const pipe = new pipes.CfnPipe(this, 'EventPipe', {
      description: 'Event items of the table stream, as the versioned downstream envelope, to the event bus.',
      roleArn: pipeRole.roleArn,
      source: streamArn,
      sourceParameters: {
        dynamoDbStreamParameters: {
          startingPosition: 'TRIM_HORIZON',
          batchSize: 10,
          maximumRetryAttempts: PIPE_RETRY_ATTEMPTS,
          deadLetterConfig: { arn: deadLetters.queueArn },
        },
        filterCriteria: { filters: [{ pattern: JSON.stringify(DOWNSTREAM_FILTER) }] },
      },
      target: eventBus.eventBusArn,
      targetParameters: {
        inputTemplate: envelopeTemplate(),
        eventBridgeEventBusParameters: { source: DOWNSTREAM_SOURCE, detailType: DOWNSTREAM_DETAIL_TYPE },
      },
    });
    // The role's policy must exist before the Pipe starts reading with it.
    pipe.node.addDependency(pipeRole);
    this.pipe = pipe;

    new CfnOutput(this, 'TableName', { value: table.ref, description: 'TABLE_NAME for the server' });
    new CfnOutput(this, 'EventBusName', { value: eventBus.eventBusName, description: 'The bus downstream consumers subscribe to' });
    new CfnOutput(this, 'EventDeadLetterQueueUrl', { value: deadLetters.queueUrl, description: 'Events the Pipe could not deliver' });
    new CfnOutput(this, 'RuntimePolicyArn', { value: this.runtimePolicy.managedPolicyArn, description: "Attach to the server's role" });
  }

  /** The bucket for files, the same on either store. */
  private files(props: StorageStackProps): s3.Bucket {
    return new s3.Bucket(this, 'Files', {
      bucketName: props.bucketName,
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      encryption: s3.BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      removalPolicy: RemovalPolicy.RETAIN,
      lifecycleRules: [
        { id: 'abort-incomplete-multipart-uploads', abortIncompleteMultipartUploadAfter: Duration.days(props.abortMultipartAfterDays) },
        {
          id: 'archive-tagged-versions',
          tagFilters: { [ARCHIVED_TAG.key]: ARCHIVED_TAG.value },
          // Instant Retrieval keeps presigned GETs working on archived versions; the deeper
          // classes would need a restore before every download.
          transitions: [
            { storageClass: s3.StorageClass.GLACIER_INSTANT_RETRIEVAL, transitionAfter: Duration.days(props.archiveAfterDays) },
          ],
        },
        {
          id: 'archive-prefix-to-cold-storage',
          prefix: ARCHIVE_PREFIX,
          // The cold storage of finished jobs and archived projects: rarely read, never changed.
          // Instant Retrieval keeps archivedJob and restoreProject answering at once.
          transitions: [
            { storageClass: s3.StorageClass.GLACIER_INSTANT_RETRIEVAL, transitionAfter: Duration.days(props.archiveAfterDays) },
          ],
        },
      ],
      cors: props.corsOrigins.length
        ? [
            {
              allowedOrigins: props.corsOrigins,
              // Presigned PUT uploads, and GET/HEAD for downloads shown in the page.
              allowedMethods: [s3.HttpMethods.PUT, s3.HttpMethods.GET, s3.HttpMethods.HEAD],
              allowedHeaders: ['content-type', 'content-length', 'content-md5', 'x-amz-*'],
              exposedHeaders: ['ETag'],
              maxAge: 3600,
            },
          ]
        : undefined,
    });
  }
}

function keySchema(schema: { AttributeName?: string; KeyType?: string }[] | undefined): dynamodb.CfnTable.KeySchemaProperty[] {
  return (schema ?? []).map((k) => ({ attributeName: k.AttributeName!, keyType: k.KeyType! }));
}
