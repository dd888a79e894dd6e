process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
import { createDynamo } from '../infra/dynamo/client';
import { envelopeOf } from '../infra/dynamo/downstream';
import { StreamReader } from '../infra/dynamo/stream-reader';
import { errorMessage } from '../guards';
import { commandLine } from './cli';
import { findRunningServer } from './running-server';

/*
 * Prints, one JSON line each, the envelopes the deploy template's EventBridge Pipe would send to
 * the event bus for what the table's stream carries: the same filter and the same mapping
 * (src/infra/dynamo/downstream.ts), read from DynamoDB Local's stream.
 *   npm run events:tail                 # from now on, until Ctrl-C
 *   npm run events:tail -- --from-start --once
 */

const POLL_MS = 1000;

async function main() {
  const values = commandLine(
    {
      'from-start': { type: 'boolean', default: false },
      once: { type: 'boolean', default: false },
      endpoint: { type: 'string' },
      table: { type: 'string' },
    },
    'Usage: npm run events:tail -- [--from-start] [--once] [--endpoint URL] [--table NAME]\n' +
      'Prints the downstream envelope of every event item the table stream carries, one JSON line each:\n' +
      'from now on (or from the oldest record with --from-start), until Ctrl-C (or once caught up with --once).\n' +
      'The endpoint and table are the running server’s (npm start), or DYNAMODB_ENDPOINT and TABLE_NAME.\n',
  );
  if (!values) return;
  const server = values.endpoint && values.table ? undefined : findRunningServer();
  const endpoint = values.endpoint ?? process.env.DYNAMODB_ENDPOINT ?? server?.dynamoEndpoint;
  const tableName = values.table ?? process.env.TABLE_NAME ?? server?.tableName;
  if (!tableName) throw new Error('No table to read: start the server (npm start), or pass --table (and --endpoint for DynamoDB Local).');
  const dynamo = createDynamo({ endpoint, region: process.env.AWS_REGION || 'us-east-1', requestTimeoutMs: 10_000 });
  const reader = await StreamReader.open(dynamo.client, tableName, values['from-start'] ? 'TRIM_HORIZON' : 'LATEST', endpoint);
  let stopped = false;
  const stop = () => {
    stopped = true;
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    while (!stopped) {
      for (const record of await reader.poll()) {
        const envelope = envelopeOf(record);
        if (envelope) process.stdout.write(`${JSON.stringify(envelope)}\n`);
      }
      if (values.once) break;
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  } finally {
    reader.close();
    dynamo.client.destroy();
  }
}

void main().catch((error) => {
  process.stderr.write(`${errorMessage(error)}\n`);
  process.exit(1);
});
