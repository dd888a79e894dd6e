#!/usr/bin/env node
// Builds dist/ with tsc only when a source is newer than the last build, so `npm start` does not
// pay for loading the TypeScript compiler (about 2–3 s) when nothing changed. On an unsupported Node
// it stops first, in one line (check-node.cjs), so `npm run token` and the other tools say so too.
require('./check-node.cjs');
const { readdirSync, statSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');
const { spawnSync } = require('node:child_process');

const root = join(__dirname, '../..');
// Written after every successful build (tsc leaves its own .tsbuildinfo alone when nothing changed).
const stamp = join(root, 'dist/.build-stamp');

function newest(path) {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return readdirSync(path).reduce((max, name) => Math.max(max, newest(join(path, name))), 0);
}

// `npm run build` has just run tsc itself: it only records that, so the next start skips tsc.
if (require.main === module && process.argv.includes('--built')) {
  writeFileSync(stamp, new Date().toISOString());
  process.exit(0);
}

let built = 0;
try {
  built = statSync(stamp).mtimeMs;
} catch {
  // Never built.
}
const sources = Math.max(
  newest(join(root, 'src')),
  newest(join(root, 'sdk/typescript')),
  newest(join(root, 'tsconfig.json')),
  newest(join(root, 'tsconfig.build.json')),
  newest(join(root, 'package.json')),
);
if (sources > built) {
  let tsc;
  try {
    tsc = require.resolve('typescript/bin/tsc');
  } catch {
    // A fresh clone, not installed yet: one line that says what to run, not a resolver stack trace.
    const script = process.env.npm_lifecycle_event;
    const again = !script ? 'this again' : ['start', 'test'].includes(script) ? `npm ${script}` : `npm run ${script}`;
    process.stderr.write(`TypeScript is not installed, so nothing can be built: run npm ci first, then ${again}.\n`);
    process.exit(1);
  }
  // tsc prints nothing until it is done, and a first build takes about 15 s of CPU (50 s on a busy
  // machine): said on stderr, so that `TOKEN=$(npm run -s token)` still captures the token alone.
  process.stderr.write('Compiling the TypeScript into dist/ (tsc; the first build takes longest) …\n');
  const result = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
  writeFileSync(stamp, new Date().toISOString());
}
