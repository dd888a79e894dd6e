import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

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
