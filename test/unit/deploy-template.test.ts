import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CfnElement, type Stack } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { buildApp, deploySettings } from '../../deploy/app';
import { STREAM_ACTIONS, TABLE_ACTIONS } from '../../deploy/storage-stack';
import { DOWNSTREAM_DETAIL_TYPE, DOWNSTREAM_FILTER, DOWNSTREAM_SOURCE, envelopeTemplate } from '../../src/infra/dynamo/downstream';
import { indexNames, TTL_ATTRIBUTE, tableDefinition } from '../../src/infra/dynamo/table';
import { ARCHIVE_PREFIX, ARCHIVED_TAG } from '../../src/infra/s3/archive-tag';
import { ROOT } from '../support/processes';
import { registerFixture, tempDir } from '../support/fixtures';

/** The synthesized storage stack, as a deployer with these settings would get it. */
function synth(env: Record<string, string> = {}) {
  const { storage } = buildApp(deploySettings({ CORS_ORIGINS: 'https://app.example.com, https://studio.example.com', ...env }));
  const bucket = storage.bucket.node.defaultChild;
  if (!(bucket instanceof CfnElement)) throw new Error('The bucket has no CloudFormation resource.');
  return { template: Template.fromStack(storage), tableId: storage.getLogicalId(storage.table!), bucketId: storage.getLogicalId(bucket) };
}

describe('deploy template (npm run synth)', () => {
  it('builds the table from the definition the server uses, with on-demand billing, PITR, encryption, TTL and deletion protection', () => {
    const { template, tableId } = synth({ TABLE_NAME: 'ArtissistProd' });
    const definition = tableDefinition('ArtissistProd');
    const tables = template.findResources('AWS::DynamoDB::Table');
    expect(Object.keys(tables)).toEqual([tableId]);
    const table = tables[tableId];
    // CloudFormation spells the key schema exactly like CreateTable, so the two compare as they are.
    expect(table.Properties.TableName).toBe('ArtissistProd');
    expect(table.Properties.KeySchema).toEqual(definition.KeySchema);
    expect(table.Properties.AttributeDefinitions).toEqual(definition.AttributeDefinitions);
    expect(table.Properties.GlobalSecondaryIndexes).toEqual(definition.GlobalSecondaryIndexes);
    expect(table.Properties.GlobalSecondaryIndexes.map((i: { IndexName: string }) => i.IndexName)).toEqual(indexNames);
    expect(table.Properties).toMatchObject({
      BillingMode: 'PAY_PER_REQUEST',
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      SSESpecification: { SSEEnabled: true },
      TimeToLiveSpecification: { AttributeName: TTL_ATTRIBUTE, Enabled: true },
      DeletionProtectionEnabled: true,
    });
    expect(table.DeletionPolicy).toBe('Retain');
  });

  it('makes a private, encrypted bucket with the lifecycle rules and CORS for the configured origins', () => {
    const { template, bucketId } = synth();
    template.resourceCountIs('AWS::S3::Bucket', 1);
    const bucket = template.findResources('AWS::S3::Bucket')[bucketId];
    expect(bucket.DeletionPolicy).toBe('Retain');
    expect(bucket.Properties.PublicAccessBlockConfiguration).toEqual({
      BlockPublicAcls: true,
      BlockPublicPolicy: true,
      IgnorePublicAcls: true,
      RestrictPublicBuckets: true,
    });
    expect(bucket.Properties.BucketEncryption.ServerSideEncryptionConfiguration[0].ServerSideEncryptionByDefault.SSEAlgorithm).toBe(
      'AES256',
    );
    const rules = bucket.Properties.LifecycleConfiguration.Rules;
    expect(rules).toContainEqual(
      expect.objectContaining({ Status: 'Enabled', AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 } }),
    );
    expect(rules).toContainEqual(
      expect.objectContaining({
        Status: 'Enabled',
        TagFilters: [{ Key: ARCHIVED_TAG.key, Value: ARCHIVED_TAG.value }],
        Transitions: [{ StorageClass: 'GLACIER_IR', TransitionInDays: 0 }],
      }),
    );
    expect(bucket.Properties.CorsConfiguration.CorsRules).toEqual([
      expect.objectContaining({
        AllowedOrigins: ['https://app.example.com', 'https://studio.example.com'],
        AllowedMethods: expect.arrayContaining(['PUT', 'GET']),
      }),
    ]);
    // Plain HTTP is refused by the bucket policy.
    template.hasResourceProperties('AWS::S3::BucketPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } })]),
      },
    });
  });

  it('moves the archive prefix to a colder storage class', () => {
    const { template, bucketId } = synth({ ARCHIVE_AFTER_DAYS: '0' });
    const rules = template.findResources('AWS::S3::Bucket')[bucketId].Properties.LifecycleConfiguration.Rules;
    expect(rules).toContainEqual(
      expect.objectContaining({
        Status: 'Enabled',
        Prefix: ARCHIVE_PREFIX,
        Transitions: [{ StorageClass: 'GLACIER_IR', TransitionInDays: 0 }],
      }),
    );
  });

  it('turns on the table stream and sends its event items through a filtered Pipe with a dead-letter queue to an event bus', () => {
    const { template, tableId } = synth();
    const table = template.findResources('AWS::DynamoDB::Table')[tableId];
    expect(table.Properties.StreamSpecification).toEqual({ StreamViewType: 'NEW_IMAGE' });
    expect(tableDefinition('x').StreamSpecification).toEqual({ StreamEnabled: true, StreamViewType: 'NEW_IMAGE' });

    template.resourceCountIs('AWS::Events::EventBus', 1);
    template.resourceCountIs('AWS::SQS::Queue', 1);
    const pipes = Object.values(template.findResources('AWS::Pipes::Pipe'));
    expect(pipes).toHaveLength(1);
    const pipe = pipes[0].Properties;
    const streamArn = { 'Fn::GetAtt': [tableId, 'StreamArn'] };
    expect(pipe.Source).toEqual(streamArn);
    const queueId = Object.keys(template.findResources('AWS::SQS::Queue'))[0];
    const busId = Object.keys(template.findResources('AWS::Events::EventBus'))[0];
    expect(pipe.SourceParameters.DynamoDBStreamParameters).toMatchObject({
      StartingPosition: 'TRIM_HORIZON',
      DeadLetterConfig: { Arn: { 'Fn::GetAtt': [queueId, 'Arn'] } },
    });
    expect(pipe.SourceParameters.DynamoDBStreamParameters.MaximumRetryAttempts).toBeGreaterThan(0);
    expect(pipe.SourceParameters.FilterCriteria.Filters.map((f: { Pattern: string }) => JSON.parse(f.Pattern))).toEqual([
      DOWNSTREAM_FILTER,
    ]);
    expect(pipe.Target).toEqual({ 'Fn::GetAtt': [busId, 'Arn'] });
    expect(pipe.TargetParameters).toEqual({
      InputTemplate: envelopeTemplate(),
      EventBridgeEventBusParameters: { Source: DOWNSTREAM_SOURCE, DetailType: DOWNSTREAM_DETAIL_TYPE },
    });

    // The Pipe's role: the stream read, PutEvents on this bus, SendMessage to this queue; nothing else.
    const roles = template.findResources('AWS::IAM::Role', { Properties: { AssumeRolePolicyDocument: Match.objectLike({}) } });
    const pipeRoles = Object.entries(roles).filter(([, role]) =>
      JSON.stringify(role.Properties.AssumeRolePolicyDocument).includes('pipes.amazonaws.com'),
    );
    expect(pipeRoles).toHaveLength(1);
    const [roleId, role] = pipeRoles[0];
    expect(pipe.RoleArn).toEqual({ 'Fn::GetAtt': [roleId, 'Arn'] });
    expect(role.Properties.ManagedPolicyArns).toBeUndefined();
    const statements = role.Properties.Policies.flatMap((p: { PolicyDocument: { Statement: unknown[] } }) => p.PolicyDocument.Statement);
    expect(statements).toEqual([
      { Sid: 'ReadStream', Effect: 'Allow', Action: [...STREAM_ACTIONS], Resource: streamArn },
      { Sid: 'PutEvents', Effect: 'Allow', Action: 'events:PutEvents', Resource: { 'Fn::GetAtt': [busId, 'Arn'] } },
      { Sid: 'DeadLetters', Effect: 'Allow', Action: 'sqs:SendMessage', Resource: { 'Fn::GetAtt': [queueId, 'Arn'] } },
    ]);
  });

  it('leaves CORS out when no origin is configured', () => {
    const bucket = Object.values(synth({ CORS_ORIGINS: '' }).template.findResources('AWS::S3::Bucket'))[0];
    expect(bucket.Properties.CorsConfiguration).toBeUndefined();
  });

  it('grants the runtime item reads and writes on the table, its indexes and the bucket only', () => {
    const { template, tableId, bucketId } = synth();
    const policies = Object.values(template.findResources('AWS::IAM::ManagedPolicy'));
    expect(policies).toHaveLength(1);
    const statements: { Effect: string; Action: string | string[]; Resource: unknown }[] = policies[0].Properties.PolicyDocument.Statement;
    const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : [value]);
    const tableArn = { 'Fn::GetAtt': [tableId, 'Arn'] };
    const bucketArn = { 'Fn::GetAtt': [bucketId, 'Arn'] };

    for (const statement of statements) {
      expect(statement.Effect).toBe('Allow');
      for (const action of list(statement.Action)) {
        expect(action).not.toMatch(/\*/);
        // Nothing that creates, changes, describes or deletes a table, nor any bucket configuration.
        expect(action).not.toMatch(/^dynamodb:(Create|Update(Table|TimeToLive|ContinuousBackups)|Delete(Table|Backup)|Describe|List|Tag)/);
        expect(action).not.toMatch(/^s3:(Create|Delete|Put)Bucket|^s3:PutBucket|^s3:PutLifecycle/);
      }
      for (const resource of list(statement.Resource)) expect(resource).not.toBe('*');
    }

    const byResource = (resource: unknown) =>
      statements.filter((s) => list(s.Resource).some((r) => JSON.stringify(r) === JSON.stringify(resource))).flatMap((s) => list(s.Action));
    expect(byResource(tableArn).sort()).toEqual([...TABLE_ACTIONS].sort());
    for (const name of indexNames) {
      expect(byResource({ 'Fn::Join': ['', [tableArn, `/index/${name}`]] })).toEqual(['dynamodb:Query']);
    }
    expect(byResource(bucketArn)).toEqual(['s3:ListBucket']);
    for (const prefix of ['/tenants/*', '/archive/*']) {
      expect(byResource({ 'Fn::Join': ['', [bucketArn, prefix]] }).sort()).toEqual(
        ['s3:DeleteObject', 's3:GetObject', 's3:GetObjectTagging', 's3:PutObject', 's3:PutObjectTagging'].sort(),
      );
    }
    // Every resource of the policy is one of those: the table, an index of it, the bucket or its objects.
    const known = [tableArn, bucketArn, ...indexNames.map((n) => ({ 'Fn::Join': ['', [tableArn, `/index/${n}`]] }))];
    known.push({ 'Fn::Join': ['', [bucketArn, '/tenants/*']] }, { 'Fn::Join': ['', [bucketArn, '/archive/*']] });
    for (const resource of statements.flatMap((s) => list(s.Resource))) {
      expect(known.map((k) => JSON.stringify(k))).toContain(JSON.stringify(resource));
    }
  });

  it('synthesizes offline into a folder of CloudFormation templates', () => {
    const outdir = tempDir('artissist-cdk-');
    const assembly = buildApp(deploySettings({ STACK_NAME: 'ArtissistTest' }), outdir).app.synth();
    expect(assembly.stacks.map((s) => s.stackName)).toEqual(['ArtissistTest']);
    const file = join(outdir, 'ArtissistTest.template.json');
    expect(existsSync(file)).toBe(true);
    const template = JSON.parse(readFileSync(file, 'utf8'));
    // Deployable with plain `aws cloudformation deploy`: no bootstrap rule or parameter, no CDK metadata.
    expect(template.Rules).toBeUndefined();
    expect(template.Parameters).toBeUndefined();
    expect(
      Object.values(template.Resources)
        .map((r) => (r as { Type: string }).Type)
        .sort(),
    ).toEqual(
      [
        'AWS::DynamoDB::Table',
        'AWS::IAM::ManagedPolicy',
        'AWS::S3::Bucket',
        'AWS::S3::BucketPolicy',
        // Downstream: the Pipe, its role, the bus and the dead-letter queue (with its TLS-only policy).
        'AWS::Pipes::Pipe',
        'AWS::IAM::Role',
        'AWS::Events::EventBus',
        'AWS::SQS::Queue',
        'AWS::SQS::QueuePolicy',
      ].sort(),
    );
  });
});

type Resource = { Type: string; Properties: Record<string, any>; DependsOn?: unknown };

/**
 * Both stacks of `DEPLOY_SERVICE=true npm run synth`, synthesized into a folder of their own. The
 * docker command is pointed at nothing, so a synthesis that tried to build the image would fail:
 * the image is only staged, and built when the asset is published at deploy time.
 */
function synthService(env: Record<string, string> = {}) {
  const outdir = tempDir('artissist-cdk-service-');
  // The registry puts the docker command back once the test (or block) that synthesized is done.
  const docker = process.env.CDK_DOCKER;
  registerFixture('CDK_DOCKER', () => {
    if (docker === undefined) delete process.env.CDK_DOCKER;
    else process.env.CDK_DOCKER = docker;
  });
  process.env.CDK_DOCKER = join(outdir, 'no-docker-here');
  const { app, storage, service } = buildApp(
    deploySettings({ DEPLOY_SERVICE: 'true', CORS_ORIGINS: 'https://app.example.com', ...env }),
    outdir,
  );
  if (!service) throw new Error('DEPLOY_SERVICE=true made no service stack.');
  const assembly = app.synth();
  const template = assembly.getStackByName(service.stackName).template;
  const storageTemplate = assembly.getStackByName(storage.stackName).template;
  const resources: Record<string, Resource> = template.Resources;
  const ofType = (type: string) => Object.entries(resources).filter(([, r]) => r.Type === type);
  const one = (type: string): [string, Resource] => {
    const found = ofType(type);
    expect(found.map(([id]) => id)).toHaveLength(1);
    return found[0];
  };
  /** The storage stack's value behind an `Fn::ImportValue` of the service stack. */
  const imported = (value: unknown) => {
    const name = (value as { 'Fn::ImportValue'?: string })['Fn::ImportValue'];
    const output = Object.values<{ Value: unknown; Export?: { Name: string } }>(storageTemplate.Outputs).find(
      (o) => o.Export?.Name === name,
    );
    return output?.Value;
  };
  const assets = JSON.parse(readFileSync(join(outdir, `${service.stackName}.assets.json`), 'utf8'));
  const container = () => one('AWS::ECS::TaskDefinition')[1].Properties.ContainerDefinitions[0];
  const assertions = Template.fromJSON(template);
  return { outdir, storage, service, template, assertions, resources, ofType, one, imported, assets, storageTemplate, container };
}

const ref = (id: string) => ({ Ref: id });

/** The logical id of a level-2 construct's CloudFormation resource in its stack. */
function logicalId(stack: Stack, construct: Construct): string {
  const resource = construct.node.defaultChild;
  if (!(resource instanceof CfnElement)) throw new Error(`${construct.node.path} has no CloudFormation resource.`);
  return stack.getLogicalId(resource);
}
const groupId = (id: string) => ({ 'Fn::GetAtt': [id, 'GroupId'] });

describe('the optional service stack (DEPLOY_SERVICE=true npm run synth)', () => {
  let synth: ReturnType<typeof synthService>;
  beforeAll(() => {
    synth = synthService();
  });

  const container = () => synth.container();
  const environment = (): Record<string, unknown> =>
    Object.fromEntries(container().Environment.map((e: { Name: string; Value: unknown }) => [e.Name, e.Value]));

  it('is not made unless asked for', () => {
    expect(buildApp(deploySettings({})).service).toBeUndefined();
    expect(() => deploySettings({ DEPLOY_SERVICE: 'maybe' })).toThrow('DEPLOY_SERVICE must be true or false');
  });

  it("stages the repository's Dockerfile as an image asset, offline and without running Docker", () => {
    const images = Object.values<any>(synth.assets.dockerImages);
    expect(images).toHaveLength(1);
    expect(images[0].source).toEqual({
      directory: expect.stringMatching(/^asset\./),
      dockerFile: 'Dockerfile',
      dockerBuildArgs: {},
      platform: 'linux/amd64',
    });
    // The staged build context is what .dockerignore lets through: what the Dockerfile's build copies.
    const staged = join(synth.outdir, images[0].source.directory);
    expect(readFileSync(join(staged, 'Dockerfile'), 'utf8')).toBe(readFileSync(join(ROOT, 'Dockerfile'), 'utf8'));
    expect(existsSync(join(staged, 'src/main.ts'))).toBe(true);
    for (const left of ['node_modules', 'dist', 'test', '.git', 'cdk.out'])
      expect({ left, staged: existsSync(join(staged, left)) }).toEqual({ left, staged: false });
    expect(container().Image['Fn::Sub']).toMatch(/container-assets.*:[0-9a-f]{64}$/);
  });

  it("gives the task role the storage stack's runtime policy and nothing else", () => {
    const [taskDefinitionId, taskDefinition] = synth.one('AWS::ECS::TaskDefinition');
    expect(taskDefinitionId).toBeTruthy();
    const taskRoleId = taskDefinition.Properties.TaskRoleArn['Fn::GetAtt'][0];
    const taskRole = synth.resources[taskRoleId];
    expect(taskRole.Properties.AssumeRolePolicyDocument.Statement).toEqual([
      expect.objectContaining({ Action: 'sts:AssumeRole', Effect: 'Allow', Principal: { Service: 'ecs-tasks.amazonaws.com' } }),
    ]);
    expect(taskRole.Properties.Policies).toBeUndefined();
    synth.assertions.hasResourceProperties('AWS::IAM::Role', {
      AssumeRolePolicyDocument: { Statement: [Match.objectLike({ Principal: { Service: 'ecs-tasks.amazonaws.com' } })] },
      ManagedPolicyArns: [{ 'Fn::ImportValue': Match.stringLikeRegexp('RuntimePolicy') }],
      Policies: Match.absent(),
    });
    // Its one managed policy is the storage stack's RuntimePolicy (whose statements the tests above hold).
    expect(taskRole.Properties.ManagedPolicyArns).toHaveLength(1);
    expect(synth.imported(taskRole.Properties.ManagedPolicyArns[0])).toEqual(ref(logicalId(synth.storage, synth.storage.runtimePolicy)));
    // No inline policy anywhere names the task role: pulling the image, reading the secrets and
    // writing logs are the execution role's.
    for (const [, policy] of synth.ofType('AWS::IAM::Policy')) {
      expect(policy.Properties.Roles).not.toContainEqual(ref(taskRoleId));
      expect(policy.Properties.Roles).toEqual([ref(taskDefinition.Properties.ExecutionRoleArn['Fn::GetAtt'][0])]);
    }
  });

  it('wires the table, the bucket, Redis over TLS and the secrets into the container', () => {
    const [redisId] = synth.one('AWS::ElastiCache::ReplicationGroup');
    const env = environment();
    expect(env).toMatchObject({ NODE_ENV: 'production', HOST: '0.0.0.0', PORT: '4000', CORS_ORIGINS: 'https://app.example.com' });
    expect(synth.imported(env.TABLE_NAME)).toEqual(ref(synth.storage.getLogicalId(synth.storage.table!)));
    expect(synth.imported(env.S3_BUCKET)).toEqual(ref(logicalId(synth.storage, synth.storage.bucket)));
    expect(env.REDIS_URL).toEqual({
      'Fn::Join': [
        '',
        ['rediss://', { 'Fn::GetAtt': [redisId, 'PrimaryEndPoint.Address'] }, ':', { 'Fn::GetAtt': [redisId, 'PrimaryEndPoint.Port'] }],
      ],
    });
    // The token, operator token and cursor secrets come from Secrets Manager, generated there: no value in the template.
    const secrets = synth.ofType('AWS::SecretsManager::Secret');
    synth.assertions.resourceCountIs('AWS::SecretsManager::Secret', 3);
    synth.assertions.allResourcesProperties('AWS::SecretsManager::Secret', {
      GenerateSecretString: Match.objectLike({ PasswordLength: 48 }),
      SecretString: Match.absent(),
    });
    const byName = Object.fromEntries(container().Secrets.map((s: { Name: string; ValueFrom: unknown }) => [s.Name, s.ValueFrom]));
    expect(Object.keys(byName).sort()).toEqual(['AUTH_JWT_SECRET', 'AUTH_OPERATOR_SECRET', 'CURSOR_SECRET']);
    // Two keys, never one: the operators' is not the tenants'.
    expect(byName.AUTH_OPERATOR_SECRET).not.toEqual(byName.AUTH_JWT_SECRET);
    expect(secrets.map(([id]) => ref(id))).toEqual(expect.arrayContaining(Object.values(byName)));
    for (const name of Object.keys(env)) expect(name).not.toMatch(/SECRET/);
  });

  it('puts an Application Load Balancer in front, with its health check on /readyz and a WebSocket-friendly idle timeout', () => {
    synth.assertions.resourceCountIs('AWS::ElasticLoadBalancingV2::LoadBalancer', 1);
    synth.assertions.hasResourceProperties('AWS::ElasticLoadBalancingV2::LoadBalancer', {
      Scheme: 'internet-facing',
      LoadBalancerAttributes: Match.arrayWith([{ Key: 'idle_timeout.timeout_seconds', Value: '120' }]),
    });
    // The server keeps an idle connection open longer than the load balancer does, so the load
    // balancer never reuses one the server is closing.
    expect(Number(environment().HTTP_KEEPALIVE_TIMEOUT_MS)).toBeGreaterThan(120_000);
    synth.assertions.resourceCountIs('AWS::ElasticLoadBalancingV2::TargetGroup', 1);
    synth.assertions.hasResourceProperties('AWS::ElasticLoadBalancingV2::TargetGroup', {
      Port: 4000,
      Protocol: 'HTTP',
      TargetType: 'ip',
      HealthCheckPath: '/readyz',
      Matcher: { HttpCode: '200' },
    });
    synth.assertions.resourceCountIs('AWS::ElasticLoadBalancingV2::Listener', 1);
    synth.assertions.hasResourceProperties('AWS::ElasticLoadBalancingV2::Listener', { Port: 80, Protocol: 'HTTP' });
    // The container's own health check is liveness (/healthz): a DynamoDB outage takes tasks out
    // of the load balancer through /readyz, it does not get them replaced.
    expect(container().HealthCheck.Command.join(' ')).toContain('/healthz');
  });

  it('runs Redis in private subnets, reachable from the service only', () => {
    const [redisId, redis] = synth.one('AWS::ElastiCache::ReplicationGroup');
    expect(redisId).toBe('Redis');
    const [subnetGroupId, subnetGroup] = synth.one('AWS::ElastiCache::SubnetGroup');
    synth.assertions.hasResourceProperties('AWS::ElastiCache::ReplicationGroup', {
      Engine: 'redis',
      TransitEncryptionEnabled: true,
      AtRestEncryptionEnabled: true,
      Port: 6379,
      CacheSubnetGroupName: ref(subnetGroupId),
    });
    const [, service] = synth.one('AWS::ECS::Service');
    const network = service.Properties.NetworkConfiguration.AwsvpcConfiguration;
    expect(network.AssignPublicIp).toBe('DISABLED');
    expect(subnetGroup.Properties.SubnetIds).toEqual(network.Subnets);

    expect(redis.Properties.SecurityGroupIds).toHaveLength(1);
    const redisGroup = redis.Properties.SecurityGroupIds[0]['Fn::GetAtt'][0];
    const serviceGroup = network.SecurityGroups[0]['Fn::GetAtt'][0];
    expect(network.SecurityGroups).toEqual([groupId(serviceGroup)]);
    /** Every ingress rule of a security group: inline, and separate AWS::EC2::SecurityGroupIngress resources. */
    const ingress = (id: string) => [
      ...(synth.resources[id].Properties.SecurityGroupIngress ?? []),
      ...synth
        .ofType('AWS::EC2::SecurityGroupIngress')
        .filter(([, r]) => JSON.stringify(r.Properties.GroupId) === JSON.stringify(groupId(id)))
        .map(([, r]) => r.Properties),
    ];
    expect(ingress(redisGroup)).toEqual([
      expect.objectContaining({ IpProtocol: 'tcp', FromPort: 6379, ToPort: 6379, SourceSecurityGroupId: groupId(serviceGroup) }),
    ]);
    expect(JSON.stringify(ingress(redisGroup))).not.toMatch(/Cidr/);
    // The tasks take connections from the load balancer alone, on the container's port.
    const [lbGroup] = synth.ofType('AWS::EC2::SecurityGroup').find(([id]) => id.startsWith('LoadBalancer')) ?? [];
    expect(ingress(serviceGroup)).toEqual([
      expect.objectContaining({ IpProtocol: 'tcp', FromPort: 4000, ToPort: 4000, SourceSecurityGroupId: groupId(String(lbGroup)) }),
    ]);
  });
});

describe('the service stack with its settings', () => {
  it('takes an image already pushed to ECR, with no asset, so plain CloudFormation deploys it; JWKS instead of a token secret', () => {
    const synth = synthService({
      SERVICE_IMAGE: '123456789012.dkr.ecr.eu-west-1.amazonaws.com/artissist:1.4.0',
      AUTH_JWKS_URL: 'https://idp.example.com/.well-known/jwks.json',
      AUTH_ISSUER: 'https://idp.example.com/',
      AUTH_AUDIENCE: 'artissist',
      AUTH_OPERATOR_JWKS_URL: 'https://ops-idp.example.com/.well-known/jwks.json',
      AUTH_OPERATOR_ISSUER: 'https://ops-idp.example.com/',
      CERTIFICATE_ARN: 'arn:aws:acm:eu-west-1:123456789012:certificate/abc',
      LB_IDLE_TIMEOUT_SECONDS: '300',
    });
    expect(synth.assets.dockerImages ?? {}).toEqual({});
    expect(JSON.stringify(synth.container())).toContain('/artissist:1.4.0');
    // No custom resource or function: nothing that would need the CDK's bootstrap bucket.
    expect(Object.values(synth.resources).filter((r) => /^Custom::|Lambda/.test(r.Type))).toEqual([]);
    const env = Object.fromEntries(synth.container().Environment.map((e: { Name: string; Value: unknown }) => [e.Name, e.Value]));
    expect(env).toMatchObject({
      AUTH_JWKS_URL: 'https://idp.example.com/.well-known/jwks.json',
      AUTH_ISSUER: 'https://idp.example.com/',
      AUTH_AUDIENCE: 'artissist',
      AUTH_OPERATOR_JWKS_URL: 'https://ops-idp.example.com/.well-known/jwks.json',
      AUTH_OPERATOR_ISSUER: 'https://ops-idp.example.com/',
      HTTP_KEEPALIVE_TIMEOUT_MS: '305000',
    });
    expect(synth.container().Secrets.map((s: { Name: string }) => s.Name)).toEqual(['CURSOR_SECRET']);
    // HTTPS on 443 with the certificate; port 80 only redirects.
    const listeners = synth.ofType('AWS::ElasticLoadBalancingV2::Listener').map(([, l]) => l.Properties);
    expect(listeners).toContainEqual(
      expect.objectContaining({
        Port: 443,
        Protocol: 'HTTPS',
        Certificates: [{ CertificateArn: 'arn:aws:acm:eu-west-1:123456789012:certificate/abc' }],
      }),
    );
    expect(listeners).toContainEqual(
      expect.objectContaining({ Port: 80, DefaultActions: [expect.objectContaining({ Type: 'redirect' })] }),
    );
  });

  it('builds the image with the tracing SDK when an OTLP endpoint is given', () => {
    const synth = synthService({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector.internal:4318' });
    expect(Object.values<any>(synth.assets.dockerImages)[0].source.dockerBuildArgs).toEqual({ TRACING: 'true' });
    expect(JSON.stringify(synth.container().Environment)).toContain('http://collector.internal:4318');
  });
});

describe('the PostgreSQL choice (STORE=postgres npm run synth)', () => {
  it('chooses one store: DynamoDB unless STORE=postgres, nothing else, and no DynamoDB replicas for PostgreSQL', () => {
    expect(deploySettings({}).store).toBe('dynamodb');
    expect(deploySettings({ STORE: 'postgres' }).store).toBe('postgres');
    expect(() => deploySettings({ STORE: 'mysql' })).toThrow('STORE must be dynamodb or postgres, got "mysql".');
    expect(() => deploySettings({ DEPLOY_SERVICE: 'true', DOWNSTREAM_URL: 'https://events.example.com' })).toThrow(
      "DOWNSTREAM_URL applies with STORE=postgres; DynamoDB's deploy sends events downstream through its table stream and Pipe.",
    );
    expect(() => deploySettings({ STORE: 'postgres', DEPLOY_SERVICE: 'true', DOWNSTREAM_URL: 'events.example.com' })).toThrow(
      'DOWNSTREAM_URL must be an http(s) URL, got "events.example.com".',
    );
    expect(() => deploySettings({ STORE: 'postgres', REPLICA_REGIONS: 'eu-west-1', AWS_REGION: 'us-east-1' })).toThrow(
      'REPLICA_REGIONS replicates the DynamoDB table; it does not apply with STORE=postgres.',
    );
  });

  it('makes the bucket and a runtime policy of its objects alone: no table, no stream, no Pipe', () => {
    const { template, bucketId } = (() => {
      const { storage } = buildApp(
        deploySettings({ STORE: 'postgres', CORS_ORIGINS: 'https://app.example.com' }),
        tempDir('artissist-cdk-pg-'),
      );
      return { template: Template.fromStack(storage), bucketId: logicalId(storage, storage.bucket) };
    })();
    const types = Object.values(template.toJSON().Resources).map((r) => (r as Resource).Type);
    expect(types.sort()).toEqual(['AWS::IAM::ManagedPolicy', 'AWS::S3::Bucket', 'AWS::S3::BucketPolicy']);
    const [policy] = Object.values(template.findResources('AWS::IAM::ManagedPolicy'));
    const actions = policy.Properties.PolicyDocument.Statement.flatMap((s: { Action: string | string[] }) => [s.Action].flat());
    expect(actions.filter((action: string) => !action.startsWith('s3:'))).toEqual([]);
    expect(JSON.stringify(policy)).toContain(bucketId);
    expect(Object.keys(template.toJSON().Outputs).sort()).toEqual(['BucketName', 'RuntimePolicyArn']);
  });

  it('runs the server on Aurora PostgreSQL reachable from the service only, with its URLs as secrets and no Redis', () => {
    // An image URI: no asset to stage, so this synthesis copies nothing.
    const synth = synthService({
      STORE: 'postgres',
      SERVICE_IMAGE: '123456789012.dkr.ecr.eu-west-1.amazonaws.com/artissist:1.4.0',
      DOWNSTREAM_URL: 'https://events.example.com/artissist',
    });
    expect(synth.ofType('AWS::ElastiCache::ReplicationGroup')).toEqual([]);
    // No custom resource or function: nothing that would need the CDK's bootstrap bucket.
    expect(Object.values(synth.resources).filter((r) => /^Custom::|Lambda/.test(r.Type))).toEqual([]);
    const [clusterId, cluster] = synth.one('AWS::RDS::DBCluster');
    expect(cluster.Properties).toMatchObject({
      Engine: 'aurora-postgresql',
      DatabaseName: 'artissist',
      Port: 5432,
      StorageEncrypted: true,
      DeletionProtection: true,
      BackupRetentionPeriod: 7,
      ServerlessV2ScalingConfiguration: { MinCapacity: 0.5, MaxCapacity: 4 },
    });
    expect(cluster.Properties.EngineVersion).toMatch(/^16\./);
    expect((synth.resources[clusterId] as Resource & { DeletionPolicy?: string }).DeletionPolicy).toBe('Snapshot');
    const [, writer] = synth.one('AWS::RDS::DBInstance');
    expect(writer.Properties).toMatchObject({ DBInstanceClass: 'db.serverless', DBClusterIdentifier: ref(clusterId) });
    expect(writer.Properties.PubliclyAccessible).toBe(false);

    // Reachable from the service's security group alone, on 5432.
    const [, service] = synth.one('AWS::ECS::Service');
    const serviceGroup = service.Properties.NetworkConfiguration.AwsvpcConfiguration.SecurityGroups[0]['Fn::GetAtt'][0];
    expect(cluster.Properties.VpcSecurityGroupIds).toHaveLength(1);
    const databaseGroup = cluster.Properties.VpcSecurityGroupIds[0]['Fn::GetAtt'][0];
    const ingress = [
      ...(synth.resources[databaseGroup].Properties.SecurityGroupIngress ?? []),
      ...synth
        .ofType('AWS::EC2::SecurityGroupIngress')
        .filter(([, r]) => JSON.stringify(r.Properties.GroupId) === JSON.stringify(groupId(databaseGroup)))
        .map(([, r]) => r.Properties),
    ];
    expect(ingress).toEqual([
      expect.objectContaining({ IpProtocol: 'tcp', FromPort: 5432, ToPort: 5432, SourceSecurityGroupId: groupId(serviceGroup) }),
    ]);

    // The container: no table, no Redis; DATABASE_URL and DATABASE_OWNER_URL from secrets whose
    // text CloudFormation makes from the generated passwords (dynamic references), never in the template.
    const container = synth.container();
    const names = container.Environment.map((e: { Name: string }) => e.Name);
    expect(names).not.toContain('TABLE_NAME');
    expect(names).not.toContain('REDIS_URL');
    // The server sends committed events downstream itself (no table stream, no Pipe): to the receiver synth was given.
    expect(container.Environment).toContainEqual({ Name: 'DOWNSTREAM_URL', Value: 'https://events.example.com/artissist' });
    const secrets = Object.fromEntries(container.Secrets.map((s: { Name: string; ValueFrom: unknown }) => [s.Name, s.ValueFrom]));
    expect(Object.keys(secrets).sort()).toEqual([
      'AUTH_JWT_SECRET',
      'AUTH_OPERATOR_SECRET',
      'CURSOR_SECRET',
      'DATABASE_OWNER_URL',
      'DATABASE_URL',
    ]);
    const secretText = (name: string) => JSON.stringify(synth.resources[(secrets[name] as { Ref: string }).Ref].Properties.SecretString);
    for (const [name, role, password] of [
      ['DATABASE_URL', 'artissist_app', 'DatabaseAppPassword'],
      ['DATABASE_OWNER_URL', 'artissist_owner', 'DatabaseOwnerPassword'],
    ]) {
      const text = secretText(name);
      expect(text).toContain(`postgres://${role}:{{resolve:secretsmanager:`);
      expect(text).toContain(password);
      expect(text).toContain(`"${clusterId}","Endpoint.Address"`);
      expect(text).toContain('/artissist');
    }
    // The task role is still the storage stack's runtime policy alone (objects of the bucket).
    const [, taskDefinition] = synth.one('AWS::ECS::TaskDefinition');
    const taskRole = synth.resources[taskDefinition.Properties.TaskRoleArn['Fn::GetAtt'][0]];
    expect(taskRole.Properties.ManagedPolicyArns).toHaveLength(1);
    expect(Object.keys(synth.template.Outputs)).toEqual(
      expect.arrayContaining(['DatabaseEndpoint', 'DatabaseAdminSecretArn', 'DatabaseOwnerPasswordArn', 'DatabaseAppPasswordArn']),
    );
    expect(Object.keys(synth.template.Outputs)).not.toContain('RedisEndpoint');
  });
});
