// @ts-check
// Plain JavaScript: jest loads a test sequencer with require, without the ts-jest transform.
const { readFileSync } = require('node:fs');
const TestSequencer = require('@jest/test-sequencer').default;
const { extract, parse } = require('jest-docblock');

/**
 * jest's own order (the files that failed last time first, then the slowest by the last run's
 * durations, or the largest on a first run), with the files whose docblock says `@long` moved to
 * the front and those that say `@alone` to the end.
 *
 * On a clean clone jest knows no durations and would start a small file that runs a minute and a
 * half (the 10,000-item stage) near the end, where the other workers would wait it out; started
 * first, the many short files fill the other workers beside it. The tests of an `@alone` file run
 * while no other file does (test/support/turns.ts): the other workers idle while they run, and
 * while it waits for the files they are running. Last, those are their last ones, and the
 * `@alone` files' `beforeAll` hooks (servers, instances, a Redis Cluster) run beside each other
 * and beside the last shared files.
 *
 * Among the `@alone` files, those that also say `@longSetup` (server instances, Redis, a Redis
 * Cluster in their `beforeAll`) come first. The `@alone` files after the first ones start only
 * once a worker is free, which at the end of the run is once an `@alone` file is done: the
 * set-up of those runs while no file's tests do, on a machine otherwise idle, and added to the
 * run's end; the first ones' set-up runs beside the last shared files and each other.
 */
class LongFirst extends TestSequencer {
  /** @param {import('@jest/test-result').Test[]} tests */
  async sort(tests) {
    const ordered = await super.sort(tests);
    /** @param {import('@jest/test-result').Test} test */
    const rank = (test) => {
      const pragmas = parse(extract(readFileSync(test.path, 'utf8')));
      if ('long' in pragmas) return 0;
      if (!('alone' in pragmas)) return 1;
      return 'longSetup' in pragmas ? 2 : 3;
    };
    const ranks = new Map(ordered.map((test) => [test, rank(test)]));
    // Array.prototype.sort is stable: within a rank, jest's own order stays.
    return [...ordered].sort((a, b) => (ranks.get(a) ?? 1) - (ranks.get(b) ?? 1));
  }
}

module.exports = LongFirst;
