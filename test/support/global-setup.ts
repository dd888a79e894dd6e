import { startDynamoDbLocal } from '../../src/infra/dynamo/embedded';

/** Starts one in-memory DynamoDB Local on a free port for the run; test files read its endpoint. */
export default async function globalSetup(): Promise<void> {
  const dynamo = await startDynamoDbLocal({ dataPath: null });
  process.env.TEST_DYNAMODB_ENDPOINT = dynamo.endpoint;
  (globalThis as { __dynamo__?: typeof dynamo }).__dynamo__ = dynamo;
}
