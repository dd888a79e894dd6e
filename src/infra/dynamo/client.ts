import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { logger } from '../../logger';

/*
 * The SDK logs every call through `logger?.info?.({ input: filter(input), output: filter(output) })`,
 * and the filter walks the whole response (every item of a page) to mask sensitive fields even
 * when nothing would print it. A logger without `info` skips building that entry; warnings and
 * errors still reach our log.
 */
const sdkLogger = {
  debug: () => {},
  warn: (message: unknown) => logger.warn({ sdk: message }, 'aws-sdk warning'),
  error: (message: unknown) => logger.error({ sdk: message }, 'aws-sdk error'),
} as unknown as DynamoDBClientConfig['logger'];

export interface DynamoOptions {
  endpoint?: string;
  region: string;
  requestTimeoutMs: number;
}

/** Counts the DynamoDB calls a client makes, by command name; tests and benchmarks read it. */
export class CallCounter {
  readonly byCommand = new Map<string, number>();

  record(command: string): void {
    this.byCommand.set(command, (this.byCommand.get(command) ?? 0) + 1);
  }

  get total(): number {
    let sum = 0;
    for (const n of this.byCommand.values()) sum += n;
    return sum;
  }

  reset(): void {
    this.byCommand.clear();
  }
}

export interface Dynamo {
  client: DynamoDBClient;
  doc: DynamoDBDocumentClient;
  calls: CallCounter;
}

/**
 * Creates the DynamoDB clients. Every request is bounded by `requestTimeoutMs`; throttling and 5xx
 * answers are retried by the SDK's standard retry strategy. Against a local endpoint, fixed dummy
 * credentials are used, because DynamoDB Local accepts any.
 */
export function createDynamo(options: DynamoOptions): Dynamo {
  const client = new DynamoDBClient({
    region: options.region,
    endpoint: options.endpoint,
    maxAttempts: 4,
    retryMode: 'standard',
    logger: sdkLogger,
    requestHandler: { requestTimeout: options.requestTimeoutMs, connectionTimeout: Math.min(options.requestTimeoutMs, 3000) },
    ...(options.endpoint && !process.env.AWS_ACCESS_KEY_ID
      ? { credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }
      : {}),
  });
  const calls = new CallCounter();
  client.middlewareStack.add(
    (next, context) => async (args) => {
      calls.record(String(context.commandName ?? 'unknown'));
      return next(args);
    },
    { step: 'initialize', name: 'callCounter' },
  );
  const doc = DynamoDBDocumentClient.from(client, {
    marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
  });
  return { client, doc, calls };
}
