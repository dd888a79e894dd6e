import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * The one fixture registry of the test suite, after graphql-ws's `tests/utils/tservers.ts`
 * (`leftovers`): every server, table, Redis, DynamoDB Local, proxy, browser, client, child
 * process and temporary folder a test starts through test/support registers its disposal here,
 * and they are disposed whether the tests passed or failed. A test never writes its own teardown.
 *
 * What a test starts inside `it` (or its `beforeEach`) is disposed right after that test, as
 * graphql-ws does; what a describe block's `beforeAll` starts is disposed when that block is done;
 * what is left when the file is done, then. test/support/environment.ts (jest `testEnvironment`,
 * installed once for every file) marks those boundaries and asks for the disposals.
 */
import type { FixtureBridge } from './environment';

type Dispose = () => unknown;

interface Leftover {
  what: string;
  dispose: () => Promise<void>;
  /** The test, describe block or file it was registered in, as the environment named it. */
  scope: string;
}

const leftovers: Leftover[] = [];
const bridge = globalThis as FixtureBridge;
bridge.__disposeFixtures = (scope) => disposeFixtures(scope);

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
  const leftover: Leftover = { what, dispose: once(dispose), scope: bridge.__fixtureScope ?? 'file' };
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
 * Registers a resource that its `stop()` disposes (a demo, a simulator, a runner, a local S3), and
 * returns it: the registry stops it after the test, block or file that started it.
 */
export function stoppedAfter<T extends { stop(): unknown }>(what: string, resource: T): T {
  return fixture(what, resource, (r) => r.stop());
}

/**
 * Stops `resource` because stopping it is what the test is about (an outage of Redis, what a
 * stopped server or runner leaves behind, a simulator halted so the table stands still), never to
 * clean up: the registry disposes whatever a test started anyway. A test server's, an instance's
 * and a Redis's `stop` is the registry's own disposal, which then runs once (see `once`); what
 * stoppedAfter registers is stopped again by the registry, so its `stop` must allow a second call.
 * Tests say this instead of `.stop()`, so that a count of `.stop()` in the tests counts
 * hand-written teardown alone (there is none).
 */
export function stopOnPurpose<R>(resource: { stop(): R }): R {
  return resource.stop();
}

/**
 * Disposes the registered fixtures (only those of scope `only`, when given), last registered
 * first, each even when an earlier one failed. Rejects with every failure named by
 * its fixture, so a teardown that breaks fails the file instead of leaving a process behind
 * unnoticed.
 */
export async function disposeFixtures(only?: string): Promise<void> {
  const failures: string[] = [];
  for (let i = leftovers.length - 1; i >= 0; i--) {
    const leftover = leftovers[i];
    if (only && leftover.scope !== only) continue;
    leftovers.splice(i, 1);
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

/**
 * Runs `start` with what it registers belonging to the describe block of the running test, not
 * the test: for a fixture that takes the place of one of the block's own (a Redis brought back on
 * its port after an outage), which the tests after this one go on using.
 */
export async function outlivingTheTest<T>(start: () => Promise<T>): Promise<T> {
  const testScope = bridge.__fixtureScope;
  bridge.__fixtureScope = bridge.__fixtureBlockScope ?? testScope;
  try {
    return await start();
  } finally {
    bridge.__fixtureScope = testScope;
  }
}

/** A new folder under the system's temporary folder, removed with everything in it after the test file. */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  registerFixture(`folder ${dir}`, () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A jest spy, restored by the registry once the test (or block) that made it is done. */
export function restoredAfter<S extends { mockRestore(): void }>(spy: S): S {
  return fixture('jest spy', spy, (s) => s.mockRestore());
}
