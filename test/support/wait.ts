/**
 * Awaits a condition that only a probe can see (a row in a table, a record on a change stream, a
 * claim a pull-based API hands out): `probe` is asked again every `everyMs` until it returns
 * something truthy, which is returned. Throws, naming `what`, once `ms` have passed without it.
 * The one polling loop of the tests whose condition has no event to wait on; a condition that has
 * one (a process's output, a socket's message) is awaited on that event instead.
 */
export async function waitFor<T>(
  probe: () => Promise<T | undefined | null | false>,
  what: string | (() => string),
  options: { ms?: number; everyMs?: number } = {},
): Promise<T> {
  const { ms = 30_000, everyMs = 100 } = options;
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`${typeof what === 'string' ? what : what()}: not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
