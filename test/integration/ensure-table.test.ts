import { randomUUID } from 'node:crypto';
import { CreateTableCommand, DescribeTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ensureTable } from '../../src/infra/dynamo/ensure-table';
import { tableDefinition } from '../../src/infra/dynamo/table';
import { dropTable, testClient } from '../support/dynamo';
import { fixture, registerFixture } from '../support/fixtures';
import { captureLogs } from '../support/logs';

/*
 * The existence check of ensureTable expects "no such table" on every first start: that answer
 * must not reach the SDK's error log (a newcomer saw a level-50 line before "Created table"), while
 * any other failure of the same call still must.
 */
describe('ensureTable and the SDK error log', () => {
  const logged: Array<{ commandName?: string; error?: Error }> = [];
  let client: DynamoDBClient;

  beforeAll(() => {
    client = fixture(
      'DynamoDB client',
      testClient({ logger: { debug: () => {}, info: () => {}, warn: () => {}, error: (entry: any) => logged.push(entry) } }),
      (c) => c.destroy(),
    );
  });
  beforeEach(() => (logged.length = 0));

  it('creates a missing table without logging an error', async () => {
    const tableName = `t_${randomUUID().slice(0, 8)}`;
    registerFixture(`table ${tableName}`, () => dropTable(tableName));
    expect(await ensureTable(client, tableName)).toBe('created');
    expect(logged).toEqual([]);
  });

  it('still logs and throws any other failure of the existence check', async () => {
    // A one-letter name is invalid: DynamoDB answers ValidationException, a real error.
    await expect(ensureTable(client, 'x')).rejects.toThrow();
    expect(logged.map((entry) => [entry.commandName, entry.error?.name])).toEqual([['DescribeTableCommand', 'ValidationException']]);
  });

  it('with stream off (TABLE_STREAM=off) makes no stream and leaves an existing one on', async () => {
    const stream = async (tableName: string) =>
      (await client.send(new DescribeTableCommand({ TableName: tableName }))).Table?.StreamSpecification;
    const plain = `t_${randomUUID().slice(0, 8)}`;
    registerFixture(`table ${plain}`, () => dropTable(plain));
    expect(await ensureTable(client, plain, { stream: false })).toBe('created');
    expect(await stream(plain)).toBeUndefined();
    expect(await ensureTable(client, plain, { stream: false })).toBe('exists');
    const streaming = `t_${randomUUID().slice(0, 8)}`;
    registerFixture(`table ${streaming}`, () => dropTable(streaming));
    expect(await ensureTable(client, streaming)).toBe('created');
    expect(await ensureTable(client, streaming, { stream: false })).toBe('exists');
    expect(await stream(streaming)).toEqual({ StreamEnabled: true, StreamViewType: 'NEW_IMAGE' });
  });

  it("lets instances starting at once all turn on an older table's stream (one does, the others see it on)", async () => {
    const tableName = `t_${randomUUID().slice(0, 8)}`;
    registerFixture(`table ${tableName}`, () => dropTable(tableName));
    await client.send(new CreateTableCommand(tableDefinition(tableName, { stream: false })));
    const results = await Promise.all([1, 2, 3].map(() => ensureTable(client, tableName)));
    // Each turns it on, or finds it already on when another's update came before its own look:
    // which depends on how the three calls interleave, so only that one of them did and none
    // failed is certain.
    expect(results).toContain('updated');
    for (const result of results) expect(['updated', 'exists']).toContain(result);
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    expect(Table?.StreamSpecification).toEqual({ StreamEnabled: true, StreamViewType: 'NEW_IMAGE' });
  });

  it('turns the stream on for a table made before the stream was part of the definition, and leaves it on after', async () => {
    const tableName = `t_${randomUUID().slice(0, 8)}`;
    const { StreamSpecification: _stream, ...withoutStream } = tableDefinition(tableName);
    const stream = async () => (await client.send(new DescribeTableCommand({ TableName: tableName }))).Table?.StreamSpecification;
    // Dropped by the fixture registry after the test; a failure to drop it fails the test.
    registerFixture(`table ${tableName}`, () => dropTable(tableName));
    await client.send(new CreateTableCommand(withoutStream));
    expect(await stream()).toBeUndefined();
    expect(await ensureTable(client, tableName)).toBe('updated');
    expect(await stream()).toEqual({ StreamEnabled: true, StreamViewType: 'NEW_IMAGE' });
    expect(await ensureTable(client, tableName)).toBe('exists');
  });

  it('creates the table when DynamoDB refuses TTL, and says so in a warning naming the table', async () => {
    // DynamoDB Local turns TTL on whenever asked, so the refusal is injected: a client whose
    // UpdateTimeToLive fails as AWS answers a caller without the permission. Every other call goes through.
    const refusing = fixture('refusing DynamoDB client', testClient(), (c) => c.destroy());
    refusing.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === 'UpdateTimeToLiveCommand')
          throw Object.assign(new Error('not authorized: dynamodb:UpdateTimeToLive'), { name: 'AccessDeniedException' });
        return next(args);
      },
      { step: 'initialize', name: 'refuseTtl' },
    );
    const logs = captureLogs();
    const tableName = `t_${randomUUID().slice(0, 8)}`;
    registerFixture(`table ${tableName}`, () => dropTable(tableName));
    expect(await ensureTable(refusing, tableName, { stream: false })).toBe('created');
    const warnings = logs.entries().filter((entry) => entry.level === 40);
    expect(warnings).toEqual([
      expect.objectContaining({
        table: tableName,
        attribute: 'expiresAt',
        err: expect.objectContaining({ message: expect.stringContaining('dynamodb:UpdateTimeToLive') }),
      }),
    ]);
    expect(String(warnings[0].msg)).toMatch(/refused to turn TTL on/);
  });
});
