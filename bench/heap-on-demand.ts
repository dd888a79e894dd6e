import { createInterface } from 'node:readline';
import { getHeapSpaceStatistics, writeHeapSnapshot } from 'node:v8';

/*
 * Preloaded into a bench child (node --require dist/bench/heap-on-demand.js): a line
 * `HEAPSNAPSHOT <file>` on stdin collects garbage, writes a V8 heap snapshot to <file> and prints
 * `HEAP {"file", "rss", "heapUsed", "external", "arrayBuffers"}` once it is written, so the parent
 * knows the snapshot is complete (a --heapsnapshot-signal snapshot says nothing when it is done).
 * A line `MEMORY` collects garbage and prints `HEAP {…}` with process.memoryUsage() and each V8
 * heap space's committed and used bytes: what of the RSS is the JS heap's, used or only committed.
 */
const gc = (globalThis as { gc?: () => void }).gc;
createInterface({ input: process.stdin }).on('line', (line) => {
  if (line === 'MEMORY') {
    gc?.();
    gc?.();
    const spaces = Object.fromEntries(
      getHeapSpaceStatistics().map((space) => [space.space_name, { committed: space.physical_space_size, used: space.space_used_size }]),
    );
    process.stdout.write(`HEAP ${JSON.stringify({ ...process.memoryUsage(), spaces })}\n`);
    return;
  }
  const match = /^HEAPSNAPSHOT (.+)$/.exec(line);
  if (!match) return;
  gc?.();
  gc?.();
  const file = writeHeapSnapshot(match[1]);
  const { rss, heapUsed, external, arrayBuffers } = process.memoryUsage();
  process.stdout.write(`HEAP ${JSON.stringify({ file, rss, heapUsed, external, arrayBuffers })}\n`);
});
