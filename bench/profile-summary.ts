import { readFileSync } from 'node:fs';

/** Prints the functions with the most self time in a V8 .cpuprofile: node dist/bench/profile-summary.js <file> [top] */
interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount: number;
}
const profile = JSON.parse(readFileSync(process.argv[2], 'utf8')) as { nodes: Node[]; samples: number[]; timeDeltas: number[] };
const top = Number(process.argv[3] ?? 25);
const self = new Map<string, number>();
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
profile.samples.forEach((id, i) => {
  const frame = byId.get(id)!.callFrame;
  const where = frame.url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*\/dist\//, 'dist/');
  const key = `${frame.functionName || '(anonymous)'} ${where}:${frame.lineNumber + 1}`;
  self.set(key, (self.get(key) ?? 0) + (profile.timeDeltas[i] ?? 0));
});
const total = [...self.values()].reduce((a, b) => a + b, 0);
for (const [key, us] of [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, top)) {
  process.stdout.write(`${((us / total) * 100).toFixed(1).padStart(5)}%  ${key}\n`);
}
