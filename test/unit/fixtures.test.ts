import { disposeFixtures, outlivingTheTest, pendingFixtures, registerFixture } from '../support/fixtures';

// The scopes come from test/support/environment.ts: these tests run in order and read what the
// ones before them left.
const disposed: string[] = [];
registerFixture('registered at load', () => void disposed.push('registered at load'));

describe('the registry between tests and blocks', () => {
  beforeAll(() => {
    registerFixture("the block's server", () => void disposed.push("the block's server"));
  });

  it('starts a fixture inside a test, and one that replaces a fixture of the block', async () => {
    registerFixture("the test's client", () => void disposed.push("the test's client"));
    await outlivingTheTest(async () => registerFixture('the replacement', () => void disposed.push('the replacement')));
    expect(disposed).toEqual([]);
  });

  it("has disposed the previous test's fixture after it, and keeps the block's and the file's", () => {
    expect(disposed).toEqual(["the test's client"]);
    expect(pendingFixtures()).toEqual(['registered at load', "the block's server", 'the replacement']);
  });
});

describe('after a block', () => {
  it("has disposed the block's fixtures, and keeps the file's until the file is done", () => {
    expect(disposed).toEqual(["the test's client", 'the replacement', "the block's server"]);
    expect(pendingFixtures()).toEqual(['registered at load']);
  });
});

// These dispose everything registered, so they come after the tests of scopes.
describe('the test fixture registry', () => {
  it('disposes every fixture once, the last registered first, and leaves none behind', async () => {
    const order: string[] = [];
    registerFixture('server', () => void order.push('server'));
    const stopClient = registerFixture('client', () => void order.push('client'));
    // A test that ends a fixture on purpose: the registry's own call after it does nothing more.
    await stopClient();
    await disposeFixtures();
    expect(order).toEqual(['client', 'server']);
    expect(pendingFixtures()).toEqual([]);
  });

  it('disposes the rest when one disposal fails, then rejects naming the one that failed', async () => {
    const disposed: string[] = [];
    registerFixture('redis-server', () => void disposed.push('redis-server'));
    registerFixture('browser', () => {
      throw new Error('would not close');
    });
    registerFixture('socket', () => void disposed.push('socket'));
    await expect(disposeFixtures()).rejects.toThrow('browser: would not close');
    expect(disposed).toEqual(['socket', 'redis-server']);
    expect(pendingFixtures()).toEqual([]);
  });

  it('shares one disposal between an early stop and the registry, even while it is still running', async () => {
    let runs = 0;
    let finish!: () => void;
    const stop = registerFixture('slow server', () => {
      runs++;
      return new Promise<void>((resolve) => (finish = resolve));
    });
    const early = stop();
    const after = disposeFixtures();
    finish();
    await Promise.all([early, after]);
    expect(runs).toBe(1);
  });
});
