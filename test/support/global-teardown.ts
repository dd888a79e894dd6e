import type { EmbeddedDynamo } from '../../src/infra/dynamo/embedded';

export default async function globalTeardown(): Promise<void> {
  await (globalThis as { __dynamo__?: EmbeddedDynamo }).__dynamo__?.stop();
}
