#!/usr/bin/env node
// `npm test`: the typecheck in one lane; the lint, the build and then jest in the other. The
// typecheck (about 12 s of a core) runs beside the build and the start of jest instead of before
// them: jest spends much of its time waiting on DynamoDB Local and child processes, so the
// typecheck takes a core jest would leave idle, and `npm test` ends that much sooner. jest needs
// the build (its tests start the built server and scripts), so it comes after it. That build
// skips tsc's type checking (`build:unchecked`, the same output in about 4 s instead of 6 s on a
// clean clone): the typecheck lane checks the same sources, with the tests, and its failure fails
// `npm test` all the same.
//
// A script's output is printed whole once it ends, so the lanes' lines never interleave with each
// other; jest's goes straight to the terminal as it runs. A typecheck that fails says so when it
// ends, and jest runs on. Exits 1 when anything failed (after both lanes end), naming each failure;
// a lint or build failure means jest does not run. Arguments go to jest (`npm test -- <file>`).
// Plain CommonJS with no dependencies, like the other scripts npm runs before a build exists.
const { spawn } = require('node:child_process');

const LANES = [['typecheck'], ['lint', 'build:unchecked', 'jest']];
const failures = [];

/** Starts `npm run <script> --silent`, or jest itself with this script's arguments. */
function start(step) {
  if (step === 'jest') {
    return spawn(process.execPath, [require.resolve('jest/bin/jest'), ...process.argv.slice(2)], { stdio: 'inherit' });
  }
  // npm sets npm_execpath to its own CLI when it runs a script; the npm on PATH otherwise.
  const npm = process.env.npm_execpath;
  const args = ['run', step, '--silent'];
  return npm
    ? spawn(process.execPath, [npm, ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
    : spawn('npm', args, { stdio: ['ignore', 'pipe', 'pipe'] });
}

/** Runs one step; resolves with whether it succeeded (a failure to spawn is one). */
function run(step) {
  return new Promise((resolve) => {
    const child = start(step);
    const name = step === 'jest' ? 'jest' : `npm run ${step}`;
    let output = '';
    let ended = false;
    // Once, whichever comes first: a process that could not be started may report only `error`.
    const end = (ok, why) => {
      if (ended) return;
      ended = true;
      process.stdout.write(output);
      if (!ok) {
        failures.push(`${name} (${why})`);
        process.stderr.write(`${name} failed (${why})\n`);
      }
      resolve(ok);
    };
    child.stdout?.on('data', (chunk) => (output += chunk));
    child.stderr?.on('data', (chunk) => (output += chunk));
    child.on('error', (error) => end(false, `could not run it: ${error.message}`));
    child.on('close', (code, signal) => end(code === 0, signal ?? `exit code ${code}`));
  });
}

async function lane(steps) {
  for (const step of steps) if (!(await run(step))) return;
}

Promise.all(LANES.map(lane)).then(() => {
  if (failures.length > 0) process.stderr.write(`npm test failed: ${failures.join('; ')}\n`);
  process.exitCode = failures.length > 0 ? 1 : 0;
});
