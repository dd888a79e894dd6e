import { QueryCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { indexNames, keySchemas, type IndexName, type KeySchema } from './table';

/** The table or one of its indexes is not what the one table definition says; the message names it. */
export class TableMismatchError extends Error {}

/** A partition value no item ever has: the probes read nothing, and cost DynamoDB's minimum read. */
const PROBE_PARTITION = 'ARTISSIST#STARTUP_CHECK';

const HOW_TO_FIX =
  'The server does not create or change tables outside development: deploy the template (`npm run synth`, docs/deploying.md), ' +
  'or create the table from `npm run table:template`.';

/**
 * One Query on the table or an index, keyed by its partition and sort key attributes. DynamoDB
 * refuses it with a ValidationException when the index does not exist or is keyed by other
 * attributes, so the answer checks both, and it needs only `dynamodb:Query`, which the runtime
 * policy grants anyway (no DescribeTable right).
 */
function probe(tableName: string, keys: KeySchema, indexName?: IndexName): QueryCommand {
  return new QueryCommand({
    TableName: tableName,
    IndexName: indexName,
    KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :sk)',
    ExpressionAttributeNames: { '#pk': keys.pk, '#sk': keys.sk },
    ExpressionAttributeValues: { ':pk': { S: PROBE_PARTITION }, ':sk': { S: 'X' } },
    Limit: 1,
  });
}

function isValidationError(error: unknown): boolean {
  return error instanceof Error && error.name === 'ValidationException';
}

/**
 * Checks, without changing anything, that `tableName` exists with the keys and every index of the
 * one table definition. Throws TableMismatchError naming the table or the first index that is
 * missing or keyed differently; any other failure (DynamoDB unreachable, access denied) is thrown
 * as it came.
 */
export async function verifyTable(client: DynamoDBClient, tableName: string): Promise<void> {
  try {
    await client.send(probe(tableName, keySchemas.TABLE));
  } catch (error) {
    if (error instanceof Error && error.name === 'ResourceNotFoundException') {
      throw new TableMismatchError(`DynamoDB table "${tableName}" does not exist. ${HOW_TO_FIX}`);
    }
    if (isValidationError(error)) {
      throw new TableMismatchError(
        `DynamoDB table "${tableName}" is not keyed by ${keySchemas.TABLE.pk} and ${keySchemas.TABLE.sk} (string keys). ${HOW_TO_FIX}`,
      );
    }
    throw error;
  }
  for (const name of indexNames) {
    try {
      await client.send(probe(tableName, keySchemas[name], name));
    } catch (error) {
      if (!isValidationError(error)) throw error;
      const { pk, sk } = keySchemas[name];
      throw new TableMismatchError(
        `DynamoDB table "${tableName}" has no index "${name}" keyed by ${pk} and ${sk} (string keys), or it is still being built. ${HOW_TO_FIX}`,
      );
    }
  }
}
