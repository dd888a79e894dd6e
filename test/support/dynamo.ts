import { randomUUID } from 'node:crypto';
import { DeleteTableCommand, DynamoDBClient, type DynamoDBClientConfig, ResourceNotFoundException } from '@aws-sdk/client-dynamodb';
import { CursorCodec } from '../../src/infra/cursor';
import { createDynamo, type Dynamo } from '../../src/infra/dynamo/client';
import { ensureTable } from '../../src/infra/dynamo/ensure-table';
import { DynamoStore, type Store } from '../../src/infra/dynamo/store';
import { registerFixture } from './fixtures';

export function testEndpoint(): string {
  const endpoint = process.env.TEST_DYNAMODB_ENDPOINT;
  if (!endpoint) throw new Error('TEST_DYNAMODB_ENDPOINT is unset: run the tests through jest (globalSetup starts DynamoDB Local).');
  return endpoint;
}

/**
 * The region of this worker's database in the run's DynamoDB Local (test/support/environment.ts). That
 * DynamoDB Local keeps a database for each access key and region, so a client of testEndpoint()
 * with another region, or with a key other than `local` (the one createDynamo and a server use
 * there), sees another database, without this file's tables: build one with testClient().
 */
export function testRegion(): string {
  const region = process.env.AWS_REGION;
  if (!region) throw new Error('AWS_REGION is unset: run the tests through jest (test/support/environment.ts sets it for each worker).');
  return region;
}

/**
 * A plain SDK client of this worker's database in the run's DynamoDB Local; `config` adds settings
 * (a logger), or other credentials for a server that uses its own (which is then another database).
 */
export function testClient(config: Omit<DynamoDBClientConfig, 'endpoint' | 'region'> = {}): DynamoDBClient {
  return new DynamoDBClient({
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    ...config,
    endpoint: testEndpoint(),
    region: testRegion(),
  });
}

/** The clients a server makes (createDynamo), of this worker's database in the run's DynamoDB Local. */
export function testDynamo(): Dynamo {
  return createDynamo({ endpoint: testEndpoint(), region: testRegion(), requestTimeoutMs: 10_000 });
}

/**
 * What a server or script started with an environment of its own needs to reach this worker's
 * database in the run's DynamoDB Local: its endpoint and region.
 */
export function testDynamoEnv(): { DYNAMODB_ENDPOINT: string; AWS_REGION: string } {
  return { DYNAMODB_ENDPOINT: testEndpoint(), AWS_REGION: testRegion() };
}

export interface TestTable {
  tableName: string;
  dynamo: Dynamo;
  store: Store;
  /** Deletes the table and closes the client; the fixture registry does it after the file. */
  drop(): Promise<void>;
}

/** Whether test tables get the change stream: only where a test turned TABLE_STREAM on (test/support/environment.ts). */
export function testTableStream(): boolean {
  return process.env.TABLE_STREAM !== 'off';
}

/**
 * Makes `tableName` in the run's DynamoDB Local from the one table definition, as a deployment does
 * before a production server starts; the fixture registry drops it after the test (or block, or file).
 * It has the change stream when `stream` is true (by default, when TABLE_STREAM is not off).
 */
export async function createTable(tableName: string, options: { stream?: boolean } = {}): Promise<void> {
  registerFixture(`table ${tableName}`, () => dropTable(tableName));
  const dynamo = testDynamo();
  try {
    await ensureTable(dynamo.client, tableName, { stream: options.stream ?? testTableStream() });
  } finally {
    dynamo.client.destroy();
  }
}

/**
 * Deletes `tableName` from the run's DynamoDB Local, through `client` when given (the database its
 * credentials name), else through a client of this worker's database made for the call; a table
 * already gone is fine (a test may drop its own), any other failure rejects.
 */
export async function dropTable(tableName: string, client?: DynamoDBClient): Promise<void> {
  const through = client ?? testClient();
  try {
    await through.send(new DeleteTableCommand({ TableName: tableName }));
  } catch (error) {
    if (!(error instanceof ResourceNotFoundException)) throw error;
  } finally {
    if (!client) through.destroy();
  }
}

/**
 * A new, empty table in the run's DynamoDB Local, made from the one table definition, registered
 * with the fixture registry: the table is dropped and its client closed after the test file.
 */
export async function freshTable(options: { now?: () => number; stream?: boolean } = {}): Promise<TestTable> {
  const tableName = `t_${randomUUID().slice(0, 8)}`;
  const dynamo = testDynamo();
  const drop = registerFixture(`table ${tableName}`, async () => {
    try {
      await dropTable(tableName, dynamo.client);
    } finally {
      dynamo.client.destroy();
    }
  });
  await ensureTable(dynamo.client, tableName, { stream: options.stream ?? testTableStream() });
  const store = new DynamoStore(dynamo.doc, tableName, new CursorCodec('test-cursor-secret'), options.now);
  return { tableName, dynamo, store, drop };
}
