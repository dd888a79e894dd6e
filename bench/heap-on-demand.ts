import { createInterface } from 'node:readline';
import { writeHeapSnapshot } from 'node:v8';

/*
 * Preloaded into a bench child (node --require dist/bench/heap-on-demand.js): a line
 * `HEAPSNAPSHOT <file>` on stdin collects garbage, writes a V8 heap snapshot to <file> and prints
 * `HEAP {"file", "rss", "heapUsed", "external", "arrayBuffers"}` once it is written, so the parent
 * knows the snapshot is complete (a --heapsnapshot-signal snapshot says nothing when it is done).
 */
const gc = (globalThis as { gc?: () => void }).gc;
createInterface({ input: process.stdin }).on('line', (line) => {
  const match = /^HEAPSNAPSHOT (.+)$/.exec(line);
  if (!match) return;
  gc?.();
  gc?.();
  const file = writeHeapSnapshot(match[1]);
  const { rss, heapUsed, external, arrayBuffers } = process.memoryUsage();
  process.stdout.write(`HEAP ${JSON.stringify({ file, rss, heapUsed, external, arrayBuffers })}\n`);
});
