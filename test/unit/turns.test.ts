import type { JestEnvironmentConfig } from '@jest/environment';
import { writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { Circus } from '@jest/types';
import type { Test } from '@jest/test-result';
import FixtureEnvironment from '../support/environment';
import { registerFixture, tempDir } from '../support/fixtures';
import { startTurnServer, type Turn, takeTurn, type TurnServer } from '../support/turns';

// The test sequencer: plain JavaScript, which jest loads with require (see its header), untyped.
const LongFirst: new (...args: never[]) => { sort(tests: Test[]): Promise<Test[]> } = require('../support/sequencer');

// The turn server that keeps an `@alone` file's tests from running beside another file (jest's workers ask it
// through test/support/environment.ts). These tests run their own, as the workers would use it.
async function server(): Promise<TurnServer> {
  const turns = await startTurnServer();
  // A test that closes it early shares the registry's one disposal.
  return { ...turns, close: registerFixture('turn server', () => turns.close()) };
}

/** Resolves to the turn once granted; `granted()` says whether it has been, without waiting. */
function ask(port: number, kind: 'alone' | 'shared'): { turn: Promise<Turn>; granted: () => boolean } {
  let granted = false;
  const turn = takeTurn(port, kind).then((held) => {
    granted = true;
    registerFixture(`${kind} turn`, () => held.release());
    return held;
  });
  return { turn, granted: () => granted };
}

/** Waits until the server holds and queues what is expected (the asks travel over sockets). */
async function until(turns: TurnServer, expected: ReturnType<TurnServer['held']>): Promise<void> {
  while (JSON.stringify(turns.held()) !== JSON.stringify(expected)) await new Promise((r) => setImmediate(r));
}

describe('turns between test files', () => {
  it('runs shared files together, and an alone file only once they are done', async () => {
    const turns = await server();
    const a = ask(turns.port, 'shared');
    const b = ask(turns.port, 'shared');
    const [first, second] = await Promise.all([a.turn, b.turn]);
    const alone = ask(turns.port, 'alone');
    await until(turns, { alone: 0, shared: 2, waiting: 1 });
    first.release();
    await until(turns, { alone: 0, shared: 1, waiting: 1 });
    expect(alone.granted()).toBe(false);
    second.release();
    await alone.turn;
    expect(turns.held()).toEqual({ alone: 1, shared: 0, waiting: 0 });
  });

  it('keeps a shared file that asked after a waiting alone file behind it, first come first served', async () => {
    const turns = await server();
    const running = await ask(turns.port, 'shared').turn;
    const alone = ask(turns.port, 'alone');
    await until(turns, { alone: 0, shared: 1, waiting: 1 });
    const later = ask(turns.port, 'shared');
    await until(turns, { alone: 0, shared: 1, waiting: 2 });
    running.release();
    const held = await alone.turn;
    await until(turns, { alone: 1, shared: 0, waiting: 1 });
    expect(later.granted()).toBe(false);
    held.release();
    await later.turn;
    expect(turns.held()).toEqual({ alone: 0, shared: 1, waiting: 0 });
  });

  it('gives a turn back when its holder goes, refuses an ask it does not know, and says when a held turn was dropped', async () => {
    const turns = await server();
    const held = await ask(turns.port, 'alone').turn;
    held.release();
    await until(turns, { alone: 0, shared: 0, waiting: 0 });
    await expect(takeTurn(turns.port, 'first' as 'alone')).rejects.toThrow('unknown turn "first"');
    const dropped = await takeTurn(turns.port, 'shared');
    await turns.close();
    await expect(takeTurn(turns.port, 'shared')).rejects.toThrow('ECONNREFUSED');
    await dropped.closed;
    expect(() => dropped.release()).toThrow('the turn server dropped a shared turn while the file held it');
  });

  it("runs an @alone file's loading and beforeAll beside shared files, and its tests alone from the first on", async () => {
    const turns = await server();
    // The environment asks the turn server globalSetup names; here, this test's own.
    const runs = process.env.TEST_TURNS_PORT;
    process.env.TEST_TURNS_PORT = String(turns.port);
    registerFixture('the run turn server port', () => {
      process.env.TEST_TURNS_PORT = runs;
    });
    const other = await ask(turns.port, 'shared').turn;
    const config = {
      projectConfig: { testEnvironmentOptions: {}, globals: {}, fakeTimers: {} },
      globalConfig: {},
    } as unknown as JestEnvironmentConfig;
    const environment = new FixtureEnvironment(config, { console, docblockPragmas: { alone: '' }, testPath: 'alone.test.ts' });
    registerFixture('the @alone environment', () => environment.teardown());
    await environment.setup();
    expect(turns.held()).toEqual({ alone: 0, shared: 2, waiting: 0 });
    const test = { name: 'first', errors: [] } as unknown as Circus.TestEntry;
    let alone = false;
    const started = environment.handleTestEvent({ name: 'test_started', test }, {} as Circus.State).then(() => {
      alone = true;
    });
    await until(turns, { alone: 0, shared: 1, waiting: 1 });
    expect(alone).toBe(false);
    other.release();
    await started;
    expect(turns.held()).toEqual({ alone: 1, shared: 0, waiting: 0 });
    // Its next tests keep the turn it holds.
    await environment.handleTestEvent({ name: 'test_started', test }, {} as Circus.State);
    expect(turns.held()).toEqual({ alone: 1, shared: 0, waiting: 0 });
  });
});

describe('the order jest starts the files in (test/support/sequencer.js)', () => {
  it('starts @long files first, then the shared ones, then the @alone files, those with @longSetup before the others', async () => {
    const folder = tempDir('artissist-sequencer-');
    const files: Array<[string, string, number]> = [
      ['alone-small.test.ts', '/** @alone A latency bound. */', 10],
      ['shared-big.test.ts', '/** A shared file. */', 300],
      ['alone-setup.test.ts', '/**\n * @alone A latency bound.\n * @longSetup Instances.\n */', 1],
      ['long.test.ts', '/** @long A slow one. */', 2],
      ['shared-small.test.ts', '', 20],
      ['alone-big.test.ts', '/** @alone A rate bound. */', 200],
    ];
    // No timings (a clean clone): jest's own order is by size, largest first.
    const context = { config: { cache: false, rootDir: folder }, hasteFS: { getSize: (path: string) => sizes.get(path) } };
    const sizes = new Map<string, number>();
    const tests = files.map(([name, docblock, size]) => {
      const path = join(folder, name);
      writeFileSync(path, `${docblock}\nit('runs', () => {});\n`);
      sizes.set(path, size);
      return { path, context } as unknown as Test;
    });
    const order = (await new LongFirst().sort(tests)).map((test) => basename(test.path));
    expect(order).toEqual([
      'long.test.ts',
      'shared-big.test.ts',
      'shared-small.test.ts',
      'alone-setup.test.ts',
      'alone-big.test.ts',
      'alone-small.test.ts',
    ]);
  });
});
