import type { Config } from '@jest/types';
import { startDynamoDbLocal } from '../../src/infra/dynamo/embedded';
import { startPostgresBroker } from './postgres';
import { startTurnServer } from './turns';

/**
 * Regions the jest workers use, one each. DynamoDB Local keeps a database for each access key and
 * region when it is not told to share one, and each database has its own SQLite queue, so the
 * workers' files never wait on each other's writes. Real region names, because the SDK and the
 * server's configuration take only those; a run of more workers than these shares them in turn.
 */
const WORKER_REGIONS = [
  'us-east-1',
  'us-west-2',
  'eu-west-1',
  'eu-central-1',
  'ap-northeast-1',
  'ap-southeast-2',
  'sa-east-1',
  'ca-central-1',
];

/**
 * Starts one in-memory DynamoDB Local on a free port for the run, with a database for each jest
 * worker (test/support/environment.ts gives each worker its region, by JEST_WORKER_ID), so two files that
 * run at the same time never share a database; one java process compiles DynamoDB Local's hot code
 * once for all of them. Each test file makes its own tables. It also starts the turn server
 * (test/support/turns.ts) that keeps an `@alone` file from running beside another, and the broker
 * of the run's PostgreSQL (test/support/postgres.ts), which starts one cluster when a test first
 * runs a server on PostgreSQL, a database for each such server.
 */
export default async function globalSetup(globalConfig: Config.GlobalConfig): Promise<void> {
  const workers = Math.max(1, globalConfig.maxWorkers);
  const [turns, postgres, dynamo] = await Promise.all([
    startTurnServer(),
    startPostgresBroker(),
    startDynamoDbLocal({ dataPath: null, databasePerRegion: true }),
  ]);
  process.env.TEST_DYNAMODB_ENDPOINT = dynamo.endpoint;
  process.env.TEST_DYNAMODB_REGIONS = Array.from({ length: workers }, (_, n) => WORKER_REGIONS[n % WORKER_REGIONS.length]).join(' ');
  process.env.TEST_TURNS_PORT = String(turns.port);
  process.env.TEST_POSTGRES_BROKER_PORT = String(postgres.port);
  Object.assign(globalThis, { __dynamo__: dynamo, __turns__: turns, __postgres__: postgres });
}
