import {
  CreateTableCommand,
  DescribeTableCommand,
  ResourceNotFoundException,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
  type DynamoDBClient,
  type TableDescription,
} from '@aws-sdk/client-dynamodb';
import { errorName, isRecord } from '../../guards';
import { logger } from '../../logger';
import { TTL_ATTRIBUTE, tableDefinition } from './table';

/** Waits `ms`, or less when `signal` aborts (the caller then sees the abort before its next call). */
function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

/**
 * DescribeTable as the question "does the table exist?". The SDK's logger middleware reports every
 * failed call at error level, and here "no such table" is an expected answer (every first start
 * gets it), not an error: a newcomer's first screen showed a level-50 `aws-sdk error` just before
 * "Created table". So for this one call the logger the middleware sees skips exactly
 * ResourceNotFoundException; any other failure (throttling, access denied, a dead endpoint) is
 * still logged and still thrown.
 */
function describeExisting(tableName: string): DescribeTableCommand {
  const command = new DescribeTableCommand({ TableName: tableName });
  command.middlewareStack.add(
    (next, context) => (args) => {
      const logger = context.logger;
      if (logger?.error) {
        const error = logger.error.bind(logger);
        const filtered = (entry: unknown) => {
          if (!isRecord(entry) || errorName(entry.error) !== 'ResourceNotFoundException') error(entry);
        };
        // Everything else is the logger's own, including methods it may lack (the SDK calls `info` only if present).
        context.logger = new Proxy(logger, {
          get: (target, property, receiver) => (property === 'error' ? filtered : Reflect.get(target, property, receiver)),
        });
      }
      return next(args);
    },
    // Ahead of the SDK's logger middleware (same step, normal priority), which reads context.logger when the call fails.
    { step: 'initialize', priority: 'high', name: 'expectMissingTable' },
  );
  return command;
}

/**
 * Waits until the table and all its indexes are ACTIVE (DynamoDB builds a new index in the
 * background). Just after CreateTable, DynamoDB may still say the table does not exist: that is
 * waited out too. Any other failure ends the wait at once. (The SDK's waitUntilTableExists, used
 * before, retried every failure, a dead endpoint included, for a minute.)
 */
async function waitActive(client: DynamoDBClient, tableName: string, signal?: AbortSignal, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    signal?.throwIfAborted();
    let Table: TableDescription | undefined;
    try {
      ({ Table } = await client.send(describeExisting(tableName)));
    } catch (error) {
      if (!(error instanceof ResourceNotFoundException)) throw error;
    }
    const indexes = Table?.GlobalSecondaryIndexes ?? [];
    if (Table?.TableStatus === 'ACTIVE' && indexes.every((i) => i.IndexStatus === 'ACTIVE')) return;
    if (Date.now() > deadline) throw new Error(`Table ${tableName} did not become ACTIVE in time.`);
    await sleep(500, signal);
  }
}

/**
 * Makes the table match the one definition: creates it with its indexes, stream and TTL when
 * missing, adds any index an existing table lacks (one at a time, as DynamoDB requires) and turns
 * its stream on when it is off. Resolves when everything is ACTIVE. Existing data, indexes and a
 * stream already on are never changed.
 *
 * With `stream: false` (TABLE_STREAM=off) the stream is neither made nor turned on. DynamoDB Local
 * keeps every stream record it has ever made, even a dropped table's, and each write gets slower as
 * they pile up: 5,000 writes took 0.8 s without a stream and went from 2.6 s to 88 s over twelve
 * tables with one. The test suite, which makes a table per file, and a long-lived local setup that
 * does not read the stream turn it off.
 *
 * When `signal` aborts (the server is told to stop while it starts), no further call is made and
 * the promise rejects with the abort's reason once the call in flight, if any, has ended (each is
 * bounded by the client's timeouts). Calls are not cancelled mid-flight: the caller stops
 * DynamoDB Local after this settles, so none is left to fail against a stopped one.
 */
export async function ensureTable(
  client: DynamoDBClient,
  tableName: string,
  options: { signal?: AbortSignal; stream?: boolean } = {},
): Promise<'created' | 'exists' | 'updated'> {
  const { signal, stream = true } = options;
  signal?.throwIfAborted();
  const definition = tableDefinition(tableName, { stream });
  let existing: string[] | null = null;
  let active = false;
  let streaming = false;
  try {
    const { Table } = await client.send(describeExisting(tableName));
    existing = (Table?.GlobalSecondaryIndexes ?? []).map((i) => i.IndexName!);
    streaming = Table?.StreamSpecification?.StreamEnabled === true;
    active = Table?.TableStatus === 'ACTIVE' && (Table.GlobalSecondaryIndexes ?? []).every((i) => i.IndexStatus === 'ACTIVE');
  } catch (error) {
    if (!(error instanceof ResourceNotFoundException)) throw error;
  }

  if (existing === null) {
    signal?.throwIfAborted();
    try {
      await client.send(new CreateTableCommand(definition));
    } catch (error) {
      // Another instance created it first: that is what we wanted.
      if (errorName(error) !== 'ResourceInUseException') throw error;
    }
    await waitActive(client, tableName, signal);
    signal?.throwIfAborted();
    await client
      .send(new UpdateTimeToLiveCommand({ TableName: tableName, TimeToLiveSpecification: { AttributeName: TTL_ATTRIBUTE, Enabled: true } }))
      .catch((error: unknown) => {
        // TTL is an optimisation (reads hide expired items anyway), so a refusal must not stop
        // start-up; but expired items then stay and are paid for, so an operator is told.
        logger.warn(
          { err: error, table: tableName, attribute: TTL_ATTRIBUTE },
          'DynamoDB refused to turn TTL on for the new table: expired items stay stored until it is turned on (reads hide them)',
        );
      });
    return 'created';
  }

  const missing = (definition.GlobalSecondaryIndexes ?? []).filter((index) => !existing!.includes(index.IndexName!));
  for (const index of missing) {
    await waitActive(client, tableName, signal);
    signal?.throwIfAborted();
    await client.send(
      new UpdateTableCommand({
        TableName: tableName,
        AttributeDefinitions: definition.AttributeDefinitions,
        GlobalSecondaryIndexUpdates: [{ Create: { IndexName: index.IndexName, KeySchema: index.KeySchema, Projection: index.Projection } }],
      }),
    );
  }
  // A table made before the stream was part of the definition gets it, so `npm run events:tail`
  // sees what the deploy template's pipe would (a stream, once on, keeps its view type).
  const addStream = stream && !streaming;
  if (addStream) {
    await waitActive(client, tableName, signal);
    signal?.throwIfAborted();
    try {
      await client.send(new UpdateTableCommand({ TableName: tableName, StreamSpecification: definition.StreamSpecification }));
    } catch (error) {
      // Another instance starting at the same time turned it on first: that is what we wanted.
      // DynamoDB says so only in the message of a ValidationException.
      const alreadyOn =
        error instanceof Error && error.name === 'ValidationException' && /already has an enabled stream/i.test(error.message);
      if (!alreadyOn) throw error;
    }
  }
  const changed = missing.length > 0 || addStream;
  // Also covers a table another instance is still creating; a table seen ACTIVE needs no second look.
  if (changed || !active) await waitActive(client, tableName, signal);
  return changed ? 'updated' : 'exists';
}
