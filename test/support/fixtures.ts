/**
 * The one fixture registry of the test suite, after graphql-ws's `tests/utils/tservers.ts`
 * (`leftovers`): every server, table, Redis, DynamoDB Local, proxy, browser, client and child
 * process a test starts through test/support registers its disposal here, and
 * test/support/after-file.ts (jest `setupFilesAfterEnv`) disposes them all after the test file,
 * whether its tests passed or failed. A test never writes its own teardown.
 */

type Dispose = () => unknown;

interface Leftover {
  what: string;
  dispose: () => Promise<void>;
}

const leftovers: Leftover[] = [];

/**
 * Runs `dispose` once, however many times it is called: a test may end a fixture on purpose (a
 * Redis outage, a server stopped to see what it leaves behind), and the registry's call after the
 * file then waits for that same disposal instead of starting a second one.
 */
export function once(dispose: Dispose): () => Promise<void> {
  let done: Promise<void> | undefined;
  return () => {
    // Started at once (not in a later microtask), and a synchronous throw becomes a rejection.
    done ??= (async () => {
      await dispose();
    })();
    return done;
  };
}

/**
 * Registers `dispose` to run after the current test file, later registrations first (a client
 * goes before the server it talks to), and returns the same disposal made idempotent: call it from
 * the fixture's own `stop` so an early stop and the registry's share one run.
 */
export function registerFixture(what: string, dispose: Dispose): () => Promise<void> {
  const leftover = { what, dispose: once(dispose) };
  leftovers.push(leftover);
  return leftover.dispose;
}

/**
 * Registers a resource that has its own `stop()`, `close()` or `dispose()`, and returns it.
 * For fixtures made by libraries (a graphql-ws client, an Apollo client, a browser).
 */
export function fixture<T extends object>(what: string, resource: T, dispose: (resource: T) => unknown): T {
  registerFixture(what, () => dispose(resource));
  return resource;
}

/**
 * Disposes every registered fixture, last registered first, each even when an earlier one
 * failed. Rejects with every failure named by its fixture, so a teardown that breaks fails the file
 * instead of leaving a process behind unnoticed.
 */
export async function disposeFixtures(): Promise<void> {
  const failures: string[] = [];
  while (leftovers.length > 0) {
    const leftover = leftovers.pop()!;
    try {
      await leftover.dispose();
    } catch (error) {
      failures.push(`${leftover.what}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  if (failures.length > 0) throw new Error(`Disposing the test fixtures failed:\n${failures.join('\n')}`);
}

/** How many fixtures are registered and not yet disposed (for the registry's own test). */
export function pendingFixtures(): string[] {
  return leftovers.map((l) => l.what);
}
