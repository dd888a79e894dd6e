#!/usr/bin/env node
// `npm test`'s checks before jest: the typecheck runs beside the lint and then the build, each
// lane on a core of its own, rather than all three one after another (on a clean clone of 2
// cores: about 16 s against 23 s). Each script's output is printed whole once it ends, so the two
// lanes' lines never interleave. Exits 1 when any script failed (after both lanes end), naming it.
// Plain CommonJS with no dependencies, like the other scripts npm runs before a build exists.
const { spawn } = require('node:child_process');

const LANES = [['typecheck'], ['lint', 'build']];

/** Runs `npm run <script> --silent`; resolves with whether it succeeded (a failure to spawn is one). */
function run(script) {
  return new Promise((resolve) => {
    // npm sets npm_execpath to its own CLI when it runs a script; the npm on PATH otherwise.
    const npm = process.env.npm_execpath;
    const child = npm
      ? spawn(process.execPath, [npm, 'run', script, '--silent'], { stdio: ['ignore', 'pipe', 'pipe'] })
      : spawn('npm', ['run', script, '--silent'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    let ended = false;
    // Once, whichever comes first: a process that could not be started may report only `error`.
    const end = (ok, why) => {
      if (ended) return;
      ended = true;
      process.stdout.write(output);
      if (!ok) process.stderr.write(`npm run ${script} failed (${why})\n`);
      resolve(ok);
    };
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('error', (error) => end(false, `could not run it: ${error.message}`));
    child.on('close', (code, signal) => end(code === 0, signal ?? `exit code ${code}`));
  });
}

async function lane(scripts) {
  for (const script of scripts) if (!(await run(script))) return false;
  return true;
}

Promise.all(LANES.map(lane)).then((results) => {
  process.exitCode = results.every(Boolean) ? 0 : 1;
});
