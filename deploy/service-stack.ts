import { Aws, CfnOutput, Duration, IgnoreMode, Stack, type StackProps } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as ecr from 'aws-cdk-lib/aws-ecr';
import { Platform } from 'aws-cdk-lib/aws-ecr-assets';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import * as elasticache from 'aws-cdk-lib/aws-elasticache';
import * as elbv2 from 'aws-cdk-lib/aws-elasticloadbalancingv2';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import type { StorageStack } from './storage-stack';

/** The port the container listens on (the image's PORT). */
export const CONTAINER_PORT = 4000;
/** The Redis port; the only one the cache's security group opens, and only to the service. */
export const REDIS_PORT = 6379;

/** Where the container image comes from. */
export type ServiceImage =
  /** Built from the repository's Dockerfile at deploy time (`cdk deploy` builds and pushes it); synthesis only stages the folder. */
  | { kind: 'asset'; directory: string; buildArgs: Record<string, string> }
  /** An image already pushed: an ECR URI (the task's execution role may pull it) or any public registry's name. */
  | { kind: 'uri'; uri: string };

export interface ServiceStackProps extends StackProps {
  /** The table, bucket and runtime policy: the task role gets exactly that policy. */
  storage: StorageStack;
  image: ServiceImage;
  desiredCount: number;
  cpu: number;
  memoryMiB: number;
  /** The load balancer's idle timeout; the server's keep-alive is set a few seconds longer. */
  idleTimeoutSeconds: number;
  /** An ACM certificate for HTTPS on 443 (HTTP on 80 then redirects); plain HTTP on 80 without it. */
  certificateArn?: string;
  redisNodeType: string;
  /** Read replicas of the Redis primary; with one or more, a failed primary fails over. */
  redisReplicas: number;
  /** Browser origins, passed to the server's CORS_ORIGINS (the bucket's CORS takes the same list). */
  corsOrigins: string[];
  /**
   * Tokens from an identity provider's JWKS; without it the stack generates a shared HS256 secret.
   * The same for the platform's operators, whose issuer is never the tenants' (see TokenVerifier).
   */
  auth: { jwksUrl?: string; issuer?: string; audience?: string; operator?: { jwksUrl?: string; issuer?: string; audience?: string } };
  /** An OTLP endpoint: the image is built with the tracing SDK and the server exports spans to it. */
  otlpEndpoint?: string;
}

/** `<account>.dkr.ecr.<region>.amazonaws.com/<repository>[:tag]`, split into what the CDK needs to grant a pull. */
const ECR_URI = /^(\d{12})\.dkr\.ecr\.([a-z0-9-]+)\.amazonaws\.com(?:\.cn)?\/([^:@]+)(?::([^@]+))?$/;

function containerImage(scope: Construct, image: ServiceImage): ecs.ContainerImage {
  if (image.kind === 'asset') {
    // Only staged at synthesis (the folder is copied into cdk.out, minus what .dockerignore
    // leaves out); Docker runs when the asset is published, at `cdk deploy`.
    return ecs.ContainerImage.fromAsset(image.directory, {
      file: 'Dockerfile',
      ignoreMode: IgnoreMode.DOCKER,
      platform: Platform.LINUX_AMD64,
      buildArgs: image.buildArgs,
    });
  }
  const ecrUri = ECR_URI.exec(image.uri);
  if (ecrUri) {
    const [, account, region, name, tag] = ecrUri;
    const repository = ecr.Repository.fromRepositoryAttributes(scope, 'ImageRepository', {
      repositoryName: name,
      repositoryArn: `arn:${Aws.PARTITION}:ecr:${region}:${account}:repository/${name}`,
    });
    return ecs.ContainerImage.fromEcrRepository(repository, tag ?? 'latest');
  }
  return ecs.ContainerImage.fromRegistry(image.uri);
}

/**
 * The server itself, optional beside the storage stack: its container on ECS Fargate in private
 * subnets of a VPC of its own, an internet-facing Application Load Balancer in front (health check
 * on /readyz, an idle timeout that long-lived WebSocket and SSE connections live with), and
 * ElastiCache Redis carrying events between instances, reachable from the service only. The
 * task's role is the storage stack's runtime policy and nothing else; its secrets come from
 * Secrets Manager through the task's execution role, never from the template.
 */
export class ServiceStack extends Stack {
  readonly taskRole: iam.Role;
  readonly service: ecs.FargateService;
  readonly loadBalancer: elbv2.ApplicationLoadBalancer;
  readonly redis: elasticache.CfnReplicationGroup;
  readonly redisSecurityGroup: ec2.SecurityGroup;
  readonly serviceSecurityGroup: ec2.SecurityGroup;
  readonly cursorSecret: secretsmanager.Secret;
  readonly tokenSecret?: secretsmanager.Secret;
  /** The operators' HS256 key (AUTH_OPERATOR_SECRET), unless their tokens come from a JWKS of their own. */
  readonly operatorTokenSecret?: secretsmanager.Secret;

  constructor(scope: Construct, id: string, props: ServiceStackProps) {
    super(scope, id, props);
    const { storage } = props;

    // Two zones; the tasks and Redis in private subnets, one NAT gateway for the way out (ECR,
    // Secrets Manager, logs, an identity provider's JWKS). DynamoDB and S3 go through gateway
    // endpoints, which cost nothing and keep the data's traffic off the NAT gateway.
    const vpc = new ec2.Vpc(this, 'Network', {
      maxAzs: 2,
      natGateways: 1,
      subnetConfiguration: [
        { name: 'public', subnetType: ec2.SubnetType.PUBLIC, cidrMask: 24 },
        { name: 'private', subnetType: ec2.SubnetType.PRIVATE_WITH_EGRESS, cidrMask: 22 },
      ],
      gatewayEndpoints: {
        DynamoDB: { service: ec2.GatewayVpcEndpointAwsService.DYNAMODB },
        S3: { service: ec2.GatewayVpcEndpointAwsService.S3 },
      },
    });

    this.serviceSecurityGroup = new ec2.SecurityGroup(this, 'ServiceSecurityGroup', {
      vpc,
      description: 'Artissist server tasks: the load balancer in, anything out',
      allowAllOutbound: true,
    });

    // Redis: only the service may connect, on the Redis port; it makes no connection itself.
    this.redisSecurityGroup = new ec2.SecurityGroup(this, 'RedisSecurityGroup', {
      vpc,
      description: 'Artissist Redis: the service only',
      allowAllOutbound: false,
    });
    this.redisSecurityGroup.addIngressRule(this.serviceSecurityGroup, ec2.Port.tcp(REDIS_PORT), 'Artissist server tasks');
    const redisSubnets = new elasticache.CfnSubnetGroup(this, 'RedisSubnets', {
      description: 'Artissist Redis: the private subnets',
      subnetIds: vpc.privateSubnets.map((subnet) => subnet.subnetId),
    });
    this.redis = new elasticache.CfnReplicationGroup(this, 'Redis', {
      replicationGroupDescription: 'Artissist event bus between server instances',
      engine: 'redis',
      engineVersion: '7.1',
      cacheNodeType: props.redisNodeType,
      numCacheClusters: 1 + props.redisReplicas,
      automaticFailoverEnabled: props.redisReplicas > 0,
      multiAzEnabled: props.redisReplicas > 0,
      cacheSubnetGroupName: redisSubnets.ref,
      securityGroupIds: [this.redisSecurityGroup.securityGroupId],
      port: REDIS_PORT,
      // TLS in transit (the server connects with rediss://) and encryption at rest.
      transitEncryptionEnabled: true,
      atRestEncryptionEnabled: true,
    });

    // Secrets the instances share: the cursor secret always, the token secret unless tokens
    // come from an identity provider's JWKS. Generated by Secrets Manager, so their values
    // appear in no template; the execution role reads them when a task starts.
    this.cursorSecret = new secretsmanager.Secret(this, 'CursorSecret', {
      description: 'Artissist CURSOR_SECRET: signs page cursors, the same on every instance',
      generateSecretString: { passwordLength: 48, excludePunctuation: true },
    });
    const secrets: Record<string, ecs.Secret> = { CURSOR_SECRET: ecs.Secret.fromSecretsManager(this.cursorSecret) };
    if (!props.auth.jwksUrl) {
      this.tokenSecret = new secretsmanager.Secret(this, 'TokenSecret', {
        description: 'Artissist AUTH_JWT_SECRET: the HS256 key that signs and verifies access tokens',
        generateSecretString: { passwordLength: 48, excludePunctuation: true },
      });
      secrets.AUTH_JWT_SECRET = ecs.Secret.fromSecretsManager(this.tokenSecret);
    }
    // The operators' key is a secret of its own: whoever holds the tenants' key cannot mint an operator.
    const operator = props.auth.operator ?? {};
    if (!operator.jwksUrl) {
      this.operatorTokenSecret = new secretsmanager.Secret(this, 'OperatorTokenSecret', {
        description: "Artissist AUTH_OPERATOR_SECRET: the HS256 key that signs and verifies the platform operators' tokens",
        generateSecretString: { passwordLength: 48, excludePunctuation: true },
      });
      secrets.AUTH_OPERATOR_SECRET = ecs.Secret.fromSecretsManager(this.operatorTokenSecret);
    }

    // The task's own role: the runtime policy of the storage stack (items of the table and its
    // indexes, objects of the bucket) and nothing more. What starting a task needs (pulling the
    // image, reading the secrets, writing logs) goes to the separate execution role.
    this.taskRole = new iam.Role(this, 'TaskRole', {
      assumedBy: new iam.ServicePrincipal('ecs-tasks.amazonaws.com'),
      description: 'Artissist server at run time',
      managedPolicies: [storage.runtimePolicy],
    });

    const task = new ecs.FargateTaskDefinition(this, 'Task', {
      cpu: props.cpu,
      memoryLimitMiB: props.memoryMiB,
      taskRole: this.taskRole,
    });
    const logGroup = new logs.LogGroup(this, 'Logs', { retention: logs.RetentionDays.ONE_MONTH });
    const environment: Record<string, string> = {
      NODE_ENV: 'production',
      HOST: '0.0.0.0',
      PORT: String(CONTAINER_PORT),
      AWS_REGION: Aws.REGION,
      TABLE_NAME: storage.table.ref,
      S3_BUCKET: storage.bucket.bucketName,
      REDIS_URL: `rediss://${this.redis.attrPrimaryEndPointAddress}:${this.redis.attrPrimaryEndPointPort}`,
      // Longer than the load balancer's idle timeout, so the server never closes a kept-alive
      // connection the load balancer is about to reuse (which the client would see as a 502).
      HTTP_KEEPALIVE_TIMEOUT_MS: String((props.idleTimeoutSeconds + 5) * 1000),
    };
    if (props.corsOrigins.length) environment.CORS_ORIGINS = props.corsOrigins.join(',');
    if (props.auth.jwksUrl) environment.AUTH_JWKS_URL = props.auth.jwksUrl;
    if (props.auth.issuer) environment.AUTH_ISSUER = props.auth.issuer;
    if (props.auth.audience) environment.AUTH_AUDIENCE = props.auth.audience;
    if (operator.jwksUrl) environment.AUTH_OPERATOR_JWKS_URL = operator.jwksUrl;
    if (operator.issuer) environment.AUTH_OPERATOR_ISSUER = operator.issuer;
    if (operator.audience) environment.AUTH_OPERATOR_AUDIENCE = operator.audience;
    if (props.otlpEndpoint) environment.OTEL_EXPORTER_OTLP_ENDPOINT = props.otlpEndpoint;

    task.addContainer('Server', {
      image: containerImage(this, props.image),
      environment,
      secrets,
      portMappings: [{ containerPort: CONTAINER_PORT }],
      logging: ecs.LogDrivers.awsLogs({ logGroup, streamPrefix: 'artissist' }),
      // Liveness only (/healthz): /readyz turns 503 during a DynamoDB outage, which must take
      // the task out of the load balancer, not get it killed and replaced.
      healthCheck: {
        command: [
          'CMD',
          'node',
          '-e',
          `fetch('http://127.0.0.1:${CONTAINER_PORT}/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))`,
        ],
        interval: Duration.seconds(15),
        timeout: Duration.seconds(5),
        startPeriod: Duration.seconds(60),
        retries: 3,
      },
      // SIGTERM first: the server drains (SHUTDOWN_DRAIN_MS, 5 s) and exits well before SIGKILL.
      stopTimeout: Duration.seconds(20),
    });

    const cluster = new ecs.Cluster(this, 'Cluster', { vpc });
    this.service = new ecs.FargateService(this, 'Service', {
      cluster,
      taskDefinition: task,
      desiredCount: props.desiredCount,
      securityGroups: [this.serviceSecurityGroup],
      vpcSubnets: { subnetType: ec2.SubnetType.PRIVATE_WITH_EGRESS },
      minHealthyPercent: 100,
      maxHealthyPercent: 200,
      circuitBreaker: { rollback: true },
      healthCheckGracePeriod: Duration.seconds(60),
    });

    this.loadBalancer = new elbv2.ApplicationLoadBalancer(this, 'LoadBalancer', {
      vpc,
      internetFacing: true,
      // WebSocket and SSE connections stay open; the server's keep-alives (WS pings and SSE
      // comments every 12 s) keep them from ever being idle this long.
      idleTimeout: Duration.seconds(props.idleTimeoutSeconds),
      dropInvalidHeaderFields: true,
    });
    const listener = props.certificateArn
      ? this.loadBalancer.addListener('Https', {
          port: 443,
          certificates: [elbv2.ListenerCertificate.fromArn(props.certificateArn)],
          sslPolicy: elbv2.SslPolicy.RECOMMENDED_TLS,
        })
      : this.loadBalancer.addListener('Http', { port: 80 });
    if (props.certificateArn) this.loadBalancer.addRedirect();
    listener.addTargets('Server', {
      port: CONTAINER_PORT,
      protocol: elbv2.ApplicationProtocol.HTTP,
      targets: [this.service],
      healthCheck: {
        path: '/readyz',
        healthyHttpCodes: '200',
        interval: Duration.seconds(10),
        timeout: Duration.seconds(5),
        healthyThresholdCount: 2,
        unhealthyThresholdCount: 3,
      },
      // A stopping task gets no new requests for this long before ECS sends it SIGTERM.
      deregistrationDelay: Duration.seconds(15),
    });

    const scheme = props.certificateArn ? 'https' : 'http';
    new CfnOutput(this, 'GraphQLUrl', {
      value: `${scheme}://${this.loadBalancer.loadBalancerDnsName}/graphql`,
      description: 'The API (point a DNS name at the load balancer for the certificate to match)',
    });
    new CfnOutput(this, 'RedisEndpoint', { value: this.redis.attrPrimaryEndPointAddress, description: 'REDIS_URL host' });
    new CfnOutput(this, 'CursorSecretArn', { value: this.cursorSecret.secretArn });
    if (this.tokenSecret) {
      new CfnOutput(this, 'TokenSecretArn', { value: this.tokenSecret.secretArn, description: 'The HS256 key token issuers sign with' });
    }
    if (this.operatorTokenSecret) {
      new CfnOutput(this, 'OperatorTokenSecretArn', {
        value: this.operatorTokenSecret.secretArn,
        description: "The HS256 key the platform operators' token issuer signs with",
      });
    }
    new CfnOutput(this, 'ServiceName', { value: this.service.serviceName });
    new CfnOutput(this, 'ClusterName', { value: cluster.clusterName });
  }
}
