import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CfnElement } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { buildApp, deploySettings } from '../../deploy/app';
import { TABLE_ACTIONS } from '../../deploy/storage-stack';
import { indexNames, TTL_ATTRIBUTE, tableDefinition } from '../../src/infra/dynamo/table';
import { ARCHIVED_TAG } from '../../src/infra/s3/archive-tag';

/** The synthesized storage stack, as a deployer with these settings would get it. */
function synth(env: Record<string, string> = {}) {
  const { storage } = buildApp(deploySettings({ CORS_ORIGINS: 'https://app.example.com, https://studio.example.com', ...env }));
  const bucket = storage.bucket.node.defaultChild;
  if (!(bucket instanceof CfnElement)) throw new Error('The bucket has no CloudFormation resource.');
  return { template: Template.fromStack(storage), tableId: storage.getLogicalId(storage.table), bucketId: storage.getLogicalId(bucket) };
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
    expect(byResource({ 'Fn::Join': ['', [bucketArn, '/tenants/*']] }).sort()).toEqual(
      ['s3:DeleteObject', 's3:GetObject', 's3:GetObjectTagging', 's3:PutObject', 's3:PutObjectTagging'].sort(),
    );
    // Every resource of the policy is one of those: the table, an index of it, the bucket or its objects.
    const known = [tableArn, bucketArn, ...indexNames.map((n) => ({ 'Fn::Join': ['', [tableArn, `/index/${n}`]] }))];
    known.push({ 'Fn::Join': ['', [bucketArn, '/tenants/*']] });
    for (const resource of statements.flatMap((s) => list(s.Resource))) {
      expect(known.map((k) => JSON.stringify(k))).toContain(JSON.stringify(resource));
    }
  });

  it('synthesizes offline into a folder of CloudFormation templates', () => {
    const outdir = mkdtempSync(join(tmpdir(), 'artissist-cdk-'));
    try {
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
      ).toEqual(['AWS::DynamoDB::Table', 'AWS::IAM::ManagedPolicy', 'AWS::S3::Bucket', 'AWS::S3::BucketPolicy'].sort());
    } finally {
      rmSync(outdir, { recursive: true, force: true });
    }
  });
});
