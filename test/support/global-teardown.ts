import type { EmbeddedDynamo } from '../../src/infra/dynamo/embedded';
import type { PostgresBroker } from './postgres';
import type { TurnServer } from './turns';

/** Stops the DynamoDB Local, the turn server and the PostgreSQL (if one was asked for) globalSetup started. */
export default async function globalTeardown(): Promise<void> {
  const started = globalThis as { __dynamo__?: EmbeddedDynamo; __turns__?: TurnServer; __postgres__?: PostgresBroker };
  await Promise.all([started.__dynamo__?.stop(), started.__turns__?.close(), started.__postgres__?.close()]);
}
