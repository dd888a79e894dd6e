import type { EmbeddedDynamo } from '../../src/infra/dynamo/embedded';
import type { TurnServer } from './turns';

/** Stops the DynamoDB Locals and the turn server globalSetup started. */
export default async function globalTeardown(): Promise<void> {
  const started = globalThis as { __dynamos__?: EmbeddedDynamo[]; __turns__?: TurnServer };
  await Promise.all([...(started.__dynamos__ ?? []).map((d) => d.stop()), started.__turns__?.close()]);
}
