import type { Config } from '@jest/types';
import { startDynamoDbLocal } from '../../src/infra/dynamo/embedded';
import { startTurnServer } from './turns';

/**
 * Starts one in-memory DynamoDB Local on a free port for each jest worker the run may use, at
 * once: each worker's test files use their own (test/support/env.ts picks it by JEST_WORKER_ID),
 * so two files that run at the same time never share one. A run of one worker starts one. It also
 * starts the turn server (test/support/turns.ts) that keeps an `@alone` file from running beside
 * another.
 */
export default async function globalSetup(globalConfig: Config.GlobalConfig): Promise<void> {
  const workers = Math.max(1, globalConfig.maxWorkers);
  const [turns, ...dynamos] = await Promise.all([
    startTurnServer(),
    ...Array.from({ length: workers }, () => startDynamoDbLocal({ dataPath: null })),
  ]);
  process.env.TEST_DYNAMODB_ENDPOINTS = dynamos.map((d) => d.endpoint).join(' ');
  process.env.TEST_TURNS_PORT = String(turns.port);
  Object.assign(globalThis, { __dynamos__: dynamos, __turns__: turns });
}
