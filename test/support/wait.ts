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

/**
 * An event the test makes itself, to wait on instead of polling: `next()` settles at the first
 * `beat()` after it was called. Workers of a test that found nothing to claim wait on their peers'
 * completions this way, since in those tests nothing else makes work claimable again.
 */
export class Pulse {
  private resolve: () => void = () => {};
  private waiting = this.arm();

  /** Settles at the next beat. */
  next(): Promise<void> {
    return this.waiting;
  }

  /** Settles every next() asked so far. */
  beat(): void {
    this.resolve();
    this.waiting = this.arm();
  }

  private arm(): Promise<void> {
    return new Promise((resolve) => {
      this.resolve = resolve;
    });
  }
}
