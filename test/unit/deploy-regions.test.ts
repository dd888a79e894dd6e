import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Template } from 'aws-cdk-lib/assertions';
import { buildApp, deploySettings } from '../../deploy/app';
import { indexNames, tableDefinition } from '../../src/infra/dynamo/table';

/*
 * The deploy option for global tables (REPLICA_REGIONS, docs/scaling.md): the table becomes a
 * DynamoDB global table with a replica in each region, each with the server's keys and indexes,
 * recovery, encryption and deletion protection, and the runtime policy names every replica; no
 * replica region leaves the regional table as it was.
 */

/** Each synthesis in a folder of its own: another test file synthesizing the same stack name at the same time must not be read. */
const outdir = mkdtempSync(join(tmpdir(), 'artissist-regions-'));
afterAll(() => rmSync(outdir, { recursive: true, force: true }));

function storageOf(env: Record<string, string>) {
  const settings = deploySettings({ TABLE_NAME: 'ArtissistProd', AWS_REGION: 'us-east-1', CDK_DEFAULT_ACCOUNT: '123456789012', ...env });
  const { storage } = buildApp(settings, mkdtempSync(join(outdir, 'synth-')));
  return { template: Template.fromStack(storage), tableId: storage.getLogicalId(storage.table!) };
}

describe('deploy template: replica regions', () => {
  it('keeps one regional table without REPLICA_REGIONS', () => {
    const { template } = storageOf({});
    expect(Object.keys(template.findResources('AWS::DynamoDB::GlobalTable'))).toEqual([]);
    expect(Object.keys(template.findResources('AWS::DynamoDB::Table'))).toHaveLength(1);
  });

  it('makes a global table with a replica in each region, and grants each replica to the runtime', () => {
    const { template, tableId } = storageOf({ REPLICA_REGIONS: 'eu-west-1, ap-southeast-2' });
    expect(Object.keys(template.findResources('AWS::DynamoDB::Table'))).toEqual([]);
    const table = template.findResources('AWS::DynamoDB::GlobalTable')[tableId];
    const definition = tableDefinition('ArtissistProd');
    expect(table.Properties).toMatchObject({
      TableName: 'ArtissistProd',
      BillingMode: 'PAY_PER_REQUEST',
      KeySchema: definition.KeySchema,
      GlobalSecondaryIndexes: definition.GlobalSecondaryIndexes,
      StreamSpecification: { StreamViewType: 'NEW_AND_OLD_IMAGES' },
    });
    expect(table.Properties.Replicas.map((r: { Region: string }) => r.Region)).toEqual(['us-east-1', 'eu-west-1', 'ap-southeast-2']);
    for (const replica of table.Properties.Replicas)
      expect(replica).toMatchObject({
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        DeletionProtectionEnabled: true,
      });
    expect(table.DeletionPolicy).toBe('Retain');
    const policy = Object.values(template.findResources('AWS::IAM::ManagedPolicy'))[0];
    const statements: { Sid: string; Resource: unknown }[] = policy.Properties.PolicyDocument.Statement;
    const items = JSON.stringify(statements.find((s) => s.Sid === 'TableItems')?.Resource);
    for (const region of ['eu-west-1', 'ap-southeast-2']) expect(items).toContain(`:dynamodb:${region}:123456789012:table/ArtissistProd`);
    const indexes = statements.find((s) => s.Sid === 'IndexQueries')?.Resource;
    expect(Array.isArray(indexes) && indexes.length).toBe(indexNames.length * 3);
  });

  it('refuses a malformed region, and replicas without the stack’s own region', () => {
    expect(() => deploySettings({ REPLICA_REGIONS: 'europe', AWS_REGION: 'us-east-1' })).toThrow(/REPLICA_REGIONS takes region names/);
    expect(() => deploySettings({ REPLICA_REGIONS: 'eu-west-1' })).toThrow(/needs the stack’s own region/);
  });
});
