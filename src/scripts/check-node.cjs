#!/usr/bin/env node
// Refuses, in one line, a Node older than `engines` allows, before anything else runs: on Node 20
// and 22 the optional OpenTelemetry packages are left out of an install (they need 22.15+) and the
// build then fails with a screenful of TS2307 errors that do not say the Node is the cause.
// `npm start`, `npm run demo` (start.cjs requires this first), `npm test` (its pretest) and every
// script that builds first (ensure-built.cjs requires this first: `npm run token` and the other
// tools) run it; `npm install` and `npm ci` are refused by npm itself, at once, because .npmrc sets
// engine-strict.
// Plain CommonJS with no dependencies, so it runs on any Node.
const { existsSync, readFileSync } = require('node:fs');
const { join } = require('node:path');

const MINIMUM = 24;

/**
 * The arguments npm was given after `--` (`npm run token -- --tenant acme`), shell-quoted, or ''.
 * npm appends them, quoted, to the script's command and runs it under `sh -c`, so a step that runs
 * before the tool (this check, ensure-built.cjs) never gets them in its own argv: they are read from
 * that shell's command line, past the script as package.json has it (npm_lifecycle_script). Where
 * there is no /proc (macOS), or the script's shell exec'ed another process, the command is named
 * without them.
 */
function scriptArguments() {
  const script = process.env.npm_lifecycle_script;
  if (!script) return '';
  try {
    const [, flag, command] = readFileSync(`/proc/${process.ppid}/cmdline`, 'utf8').split('\0');
    if (flag === '-c' && command?.startsWith(`${script} `)) return command.slice(script.length + 1);
  } catch {
    // No /proc: the command is named without its arguments.
  }
  return '';
}

const major = Number(process.versions.node.split('.')[0]);
if (major < MINIMUM) {
  // The npm command that ran this (`npm test` runs it as `pretest`), as npm is to be given it again.
  const script = (process.env.npm_lifecycle_event ?? 'start').replace(/^pre/, '');
  const args = scriptArguments();
  const command = `${['start', 'test'].includes(script) ? script : `run ${script}`}${args ? ` -- ${args}` : ''}`;
  const npm26 = 'npx -y node@26 "$(command -v npm)"';
  // In a fresh clone the install was refused too (engine-strict), so the command alone would stop
  // at a missing package: it is then preceded by the install, on the same Node 26.
  const installed = existsSync(join(__dirname, '../../node_modules'));
  const run = installed ? `${npm26} ${command}` : `${npm26} ci && ${npm26} ${command}`;
  process.stderr.write(
    `Node ${process.versions.node} is not supported: this project needs Node ${MINIMUM} or newer (26 recommended); ` +
      `without installing it, ${installed ? 'run npm on Node 26' : 'install and run with npm on Node 26'}: ${run}\n`,
  );
  process.exit(1);
}
