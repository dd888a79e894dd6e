import { CreateTableCommand, DescribeTableCommand, ResourceNotFoundException, UpdateTimeToLiveCommand, waitUntilTableExists, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { TTL_ATTRIBUTE, tableDefinition } from './table';

/**
 * Creates the table with its indexes and TTL when it does not exist yet, and resolves once it is
 * active. An existing table is left as it is.
 */
export async function ensureTable(client: DynamoDBClient, tableName: string): Promise<'created' | 'exists'> {
  try {
    await client.send(new DescribeTableCommand({ TableName: tableName }));
    return 'exists';
  } catch (error) {
    if (!(error instanceof ResourceNotFoundException)) throw error;
  }
  try {
    await client.send(new CreateTableCommand(tableDefinition(tableName)));
  } catch (error) {
    // Another instance created it first: that is what we wanted.
    if ((error as Error).name !== 'ResourceInUseException') throw error;
  }
  await waitUntilTableExists({ client, maxWaitTime: 60, minDelay: 1 }, { TableName: tableName });
  await client.send(
    new UpdateTimeToLiveCommand({
      TableName: tableName,
      TimeToLiveSpecification: { AttributeName: TTL_ATTRIBUTE, Enabled: true },
    }),
  ).catch(() => {
    // TTL is an optimisation (reads hide expired items anyway); a refusal must not stop start-up.
  });
  return 'created';
}
