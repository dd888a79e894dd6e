import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { CreateTableCommand, DescribeTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { startApp } from '../../src/app';
import { loadConfig } from '../../src/config';
import { ensureTable } from '../../src/infra/dynamo/ensure-table';
import { tableDefinition } from '../../src/infra/dynamo/table';
import { dropTable, testClient } from '../support/dynamo';
import { productionEnv } from '../support/server';
import { fixture, registerFixture, tempDir, stoppedAfter } from '../support/fixtures';
import { processFixture } from '../support/processes';

const MAIN = join(__dirname, '../../dist/src/main.js');

describe('the table at start-up outside development', () => {
  let client: DynamoDBClient;
  let dataDir: string;
  const newName = () => {
    const name = `t_${randomUUID().slice(0, 8)}`;
    registerFixture(`table ${name}`, () => dropTable(name));
    return name;
  };
  const exists = (name: string) =>
    client.send(new DescribeTableCommand({ TableName: name })).then(
      (out) => out.Table,
      () => undefined,
    );

  beforeAll(() => {
    client = fixture('DynamoDB client', testClient(), (c) => c.destroy());
    dataDir = tempDir('artissist-verify-');
  });

  it('creates tables only against a local DynamoDB outside production', () => {
    const base = { AUTH_JWT_SECRET: 's', CURSOR_SECRET: 'c', DATA_DIR: dataDir };
    expect(loadConfig({ ...base }).dynamo.createTable).toBe(true); // embedded DynamoDB Local
    expect(loadConfig({ ...base, DYNAMODB_ENDPOINT: 'http://127.0.0.1:8000' }).dynamo.createTable).toBe(true);
    // Real AWS (credentials, no endpoint) and production only check the table.
    expect(loadConfig({ ...base, TABLE_NAME: 'T', AWS_ACCESS_KEY_ID: 'a' }).dynamo.createTable).toBe(false);
    expect(loadConfig(productionEnv('T', dataDir)).dynamo.createTable).toBe(false);
    expect(() => loadConfig({ ...productionEnv('T', dataDir), CREATE_TABLE: 'true' })).toThrow(/CREATE_TABLE cannot be on in production/);
  });

  it('refuses to start in production when the table is missing, names it, and creates nothing', async () => {
    const tableName = newName();
    const child = spawn(process.execPath, [MAIN], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...productionEnv(tableName, dataDir) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    processFixture(child);
    let output = '';
    child.stdout.on('data', (c) => (output += c));
    child.stderr.on('data', (c) => (output += c));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).toBe(1);
    expect(output).toContain(`Cannot start: DynamoDB table "${tableName}" does not exist.`);
    expect(output).toContain('docs/deploying.md');
    expect(await exists(tableName)).toBeUndefined();
  });

  it('refuses to start when an index is missing, names it, and adds nothing', async () => {
    const tableName = newName();
    const definition = tableDefinition(tableName);
    const withoutGsi4 = (definition.GlobalSecondaryIndexes ?? []).filter((i) => i.IndexName !== 'GSI4');
    await client.send(
      new CreateTableCommand({
        ...definition,
        AttributeDefinitions: definition.AttributeDefinitions?.filter((a) => !a.AttributeName?.startsWith('GSI4')),
        GlobalSecondaryIndexes: withoutGsi4,
      }),
    );
    const config = loadConfig(productionEnv(tableName, dataDir));
    await expect(startApp(config)).rejects.toThrow(`DynamoDB table "${tableName}" has no index "GSI4" keyed by GSI4PK and GSI4SK`);
    expect((await exists(tableName))?.GlobalSecondaryIndexes?.map((i) => i.IndexName).sort()).toEqual(['GSI1', 'GSI2', 'GSI3', 'OUTBOX']);
  });

  it('starts against a table that matches the definition and answers', async () => {
    const tableName = newName();
    await ensureTable(client, tableName);
    const said: string[] = [];
    const app = stoppedAfter('app', await startApp(loadConfig(productionEnv(tableName, dataDir)), { progress: (m) => said.push(m) }));
    expect(said).toContain(`Using table ${tableName} (its keys and indexes checked).`);
    const res = await fetch(app.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ __typename }' }),
    });
    expect(res.status).toBe(200);
  });
});
