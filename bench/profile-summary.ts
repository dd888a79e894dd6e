import { readFileSync } from 'node:fs';

/*
 * Summarizes a V8 .cpuprofile (as `npm run bench -- --profile` writes them):
 *   node dist/bench/profile-summary.js <file> [top] [--by self|package|inclusive] [--match text]
 * Shares are of the busy samples after start-up (idle, and the main module's loading, excluded).
 *   self       the functions with the most self time (default);
 *   package    self time by where the code lives: an npm package, our dist file, or node itself;
 *   inclusive  the functions by the time spent in them and all they call (each function counted
 *              once per sample), which shows which of our steps (context, auth, a plugin) costs what;
 *   --match    only samples whose stack has a frame whose function or file contains `text`.
 */
interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
const args = process.argv.slice(2);
const option = (name: string) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const profile = JSON.parse(readFileSync(args[0], 'utf8')) as { nodes: Node[]; samples: number[]; timeDeltas: number[] };
const top = Number(args[1] && !args[1].startsWith('--') ? args[1] : 25);
const by = option('--by') ?? 'self';
const match = option('--match');
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

const where = (frame: Node['callFrame']) => frame.url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*\/dist\//, 'dist/');
const label = (frame: Node['callFrame']) => `${frame.functionName || '(anonymous)'} ${where(frame)}:${frame.lineNumber + 1}`;
const packageOf = (frame: Node['callFrame']) => {
  const url = frame.url;
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1];
  if (url.includes('/dist/')) return where(frame);
  if (url.startsWith('node:')) return 'node';
  return frame.functionName || '(native)';
};
const stackOf = (id: number) => {
  const stack: Node[] = [];
  for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) stack.push(byId.get(at)!);
  return stack;
};

const totals = new Map<string, number>();
let total = 0;
profile.samples.forEach((id, i) => {
  const leaf = byId.get(id)!;
  const name = leaf.callFrame.functionName;
  if (name === '(idle)' || name === '(program)') return;
  const stack = stackOf(id);
  if (stack.some((n) => n.callFrame.url === 'node:internal/main/run_main_module')) return;
  if (match && !stack.some((n) => label(n.callFrame).includes(match))) return;
  const us = profile.timeDeltas[i] ?? 0;
  total += us;
  const keys =
    by === 'inclusive'
      ? new Set(stack.map((n) => label(n.callFrame)))
      : [by === 'package' ? packageOf(leaf.callFrame) : label(leaf.callFrame)];
  for (const key of keys) totals.set(key, (totals.get(key) ?? 0) + us);
});
process.stdout.write(`busy ${(total / 1000).toFixed(0)} ms${match ? ` in stacks matching "${match}"` : ''}\n`);
for (const [key, us] of [...totals.entries()].sort((a, b) => b[1] - a[1]).slice(0, top)) {
  process.stdout.write(`${((us / total) * 100).toFixed(1).padStart(5)}%  ${key}\n`);
}
