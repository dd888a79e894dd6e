import type { EnvironmentContext, JestEnvironmentConfig } from '@jest/environment';
import type { Circus } from '@jest/types';
import { TestEnvironment } from 'jest-environment-node';
import { type Turn, takeTurn } from './turns';

// What this module sets in the worker process's own environment, a test file's sandbox copies when
// it is made, and a child process that a test spawns without an environment of its own inherits:
// a setting made inside the sandbox (a setup file) would reach neither of those children.

// This worker's database in the run's DynamoDB Local, which keeps one for each region: globalSetup
// named a region for each worker (JEST_WORKER_ID counts from 1, and is 1 when jest runs the files in
// its own process). Test clients ask testRegion() (test/support/dynamo.ts).
const regions = (process.env.TEST_DYNAMODB_REGIONS ?? '').split(' ').filter(Boolean);
if (regions.length > 0) process.env.AWS_REGION = regions[(Number(process.env.JEST_WORKER_ID ?? '1') - 1) % regions.length];

// Test tables have no change stream unless a test asks for one (TABLE_STREAM=on, or
// `freshTable({ stream: true })`): DynamoDB Local keeps every stream record of the run, dropped
// tables' too, and its writes slowed about a hundredfold as they piled up over the suite (see
// ensureTable).
process.env.TABLE_STREAM ??= 'off';

/**
 * The bridge between this environment and test/support/fixtures.ts, which runs inside the test
 * file's sandbox and keeps the registered fixtures: the environment says which scope is current
 * and asks for a scope's fixtures to be disposed when it ends.
 */
export interface FixtureBridge {
  /** The scope fixtures registered now belong to: a test, a describe block, or the file. */
  __fixtureScope?: string;
  /** The describe block the running test is in (for a fixture that must outlive the test). */
  __fixtureBlockScope?: string;
  /** Disposes the fixtures of `scope` (every one left, when omitted); rejects naming each failure. */
  __disposeFixtures?: (scope?: string) => Promise<void>;
}

/**
 * jest's node environment with the fixture registry's scopes (jest config `testEnvironment`): what
 * a test starts (in `it`, `beforeEach` or `afterEach`) is disposed once that test is done, after its
 * own hooks; what a describe block's `beforeAll` starts, once that block is done, after its own
 * `afterAll`; what the file starts at load, after the file. A disposal that fails fails the test,
 * or the file. jest's event hooks give the exact boundaries that hooks installed by a setup file
 * cannot: such an `afterEach` runs before a nested block's own, and an `afterAll` cannot end with
 * each describe block.
 */
export default class FixtureEnvironment extends TestEnvironment {
  private readonly describes: string[] = [];
  private next = 0;
  /** Whether the file's docblock says `@alone` (test/support/turns.ts). */
  private readonly alone: boolean;
  /** Whether an `@alone` file holds its alone turn (from its first test on). */
  private aloneTaken = false;
  /** The turn server's port (globalSetup), or 0 when the file runs without one. */
  private port = 0;
  private turn?: Turn;

  constructor(config: JestEnvironmentConfig, context: EnvironmentContext) {
    super(config, context);
    this.alone = 'alone' in context.docblockPragmas;
  }

  /**
   * Waits for a shared turn before any of the file runs: an `@alone` file too loads its modules
   * and runs its `beforeAll` hooks beside the other workers' files (starting servers, a Redis
   * Cluster, instances), and takes its alone turn at its first test (handleTestEvent).
   */
  override async setup(): Promise<void> {
    await super.setup();
    this.port = Number(process.env.TEST_TURNS_PORT ?? 0);
    if (this.port > 0) this.turn = await takeTurn(this.port, 'shared');
  }

  /** Gives the turn back; a turn the server dropped fails the file, after the sandbox is torn down. */
  override async teardown(): Promise<void> {
    try {
      this.turn?.release();
    } finally {
      await super.teardown();
    }
  }

  /**
   * An `@alone` file's tests run while no other file does: at its first test it gives its shared
   * turn back and waits for an alone one, which it holds to its end (hooks of nested blocks and
   * the fixtures' disposal included). What it bounds (a latency, a rate) is measured in tests,
   * never in a `beforeAll`. The wait counts in that first test's reported time.
   */
  private async takeAloneTurn(): Promise<void> {
    if (!this.alone || this.aloneTaken || !this.turn) return;
    this.aloneTaken = true;
    this.turn.release();
    this.turn = undefined;
    this.turn = await takeTurn(this.port, 'alone');
  }

  private get bridge(): FixtureBridge {
    return this.global as unknown as FixtureBridge;
  }

  private async dispose(scope: string | undefined, errors: unknown[]): Promise<void> {
    try {
      await this.bridge.__disposeFixtures?.(scope);
    } catch (error) {
      errors.push(error);
    }
  }

  async handleTestEvent(event: Circus.AsyncEvent, state: Circus.State): Promise<void> {
    switch (event.name) {
      case 'run_describe_start':
        this.describes.push(`describe ${this.next++} ${event.describeBlock.name}`);
        this.bridge.__fixtureScope = this.describes.at(-1);
        break;
      case 'test_started':
        await this.takeAloneTurn();
        break;
      case 'test_start':
        this.bridge.__fixtureBlockScope = this.describes.at(-1);
        this.bridge.__fixtureScope = `test ${this.next++} ${event.test.name}`;
        break;
      case 'test_done': {
        const scope = this.bridge.__fixtureScope;
        this.bridge.__fixtureScope = this.describes.at(-1);
        await this.dispose(scope, event.test.errors);
        break;
      }
      case 'run_describe_finish': {
        const scope = this.describes.pop();
        this.bridge.__fixtureScope = this.describes.at(-1);
        // The file's own block is the last to finish: whatever is left goes with it.
        await this.dispose(this.describes.length === 0 ? undefined : scope, state.unhandledErrors);
        break;
      }
    }
  }
}
