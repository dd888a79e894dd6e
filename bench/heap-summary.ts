import { readFileSync } from 'node:fs';

/**
 * Self size by constructor in a V8 heap snapshot, or the difference between two snapshots divided
 * by a count: node dist/bench/heap-summary.js <with> [<without> <count>]
 */
function bySelfSize(file: string): Map<string, number> {
  const snapshot = JSON.parse(readFileSync(file, 'utf8'));
  const fields: string[] = snapshot.snapshot.meta.node_fields;
  const types: string[] = snapshot.snapshot.meta.node_types[0];
  const width = fields.length;
  const [typeAt, nameAt, sizeAt] = ['type', 'name', 'self_size'].map((f) => fields.indexOf(f));
  const sizes = new Map<string, number>();
  const nodes: number[] = snapshot.nodes;
  for (let i = 0; i < nodes.length; i += width) {
    const type = types[nodes[i + typeAt]];
    const name = type === 'object' || type === 'closure' ? `${type}:${snapshot.strings[nodes[i + nameAt]]}` : type;
    sizes.set(name, (sizes.get(name) ?? 0) + nodes[i + sizeAt]);
  }
  return sizes;
}

const [withFile, withoutFile, countText] = process.argv.slice(2);
const a = bySelfSize(withFile);
const b = withoutFile ? bySelfSize(withoutFile) : new Map<string, number>();
const count = Number(countText ?? 1);
const rows = [...new Set([...a.keys(), ...b.keys()])]
  .map((k) => [k, ((a.get(k) ?? 0) - (b.get(k) ?? 0)) / count] as const)
  .sort((x, y) => y[1] - x[1]);
const total = rows.reduce((s, [, v]) => s + v, 0);
process.stdout.write(`total ${(total / 1024).toFixed(1)} KiB\n`);
for (const [k, v] of rows.slice(0, 30)) process.stdout.write(`${v.toFixed(0).padStart(8)} B  ${k}\n`);
