import type { EmbeddedDynamo } from '../../src/infra/dynamo/embedded';

/** Stops the DynamoDB Locals globalSetup started. */
export default async function globalTeardown(): Promise<void> {
  await Promise.all(((globalThis as { __dynamos__?: EmbeddedDynamo[] }).__dynamos__ ?? []).map((d) => d.stop()));
}
