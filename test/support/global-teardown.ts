import type { EmbeddedDynamo } from '../../src/infra/dynamo/embedded';
import type { TurnServer } from './turns';

/** Stops the DynamoDB Local and the turn server globalSetup started. */
export default async function globalTeardown(): Promise<void> {
  const started = globalThis as { __dynamo__?: EmbeddedDynamo; __turns__?: TurnServer };
  await Promise.all([started.__dynamo__?.stop(), started.__turns__?.close()]);
}
