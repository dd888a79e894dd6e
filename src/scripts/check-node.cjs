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

/** `arg` as a shell reads it back: bare when it holds nothing the shell treats specially, else single-quoted. */
const quoted = (arg) => (/^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, "'\\''")}'`);

/** The command line of process `pid` (NUL-separated in /proc), and its parent's id. */
function processOf(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return {
    argv: readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0'),
    ppid: Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]),
  };
}

/**
 * The arguments npm was given after `--` (`npm run token -- --tenant acme`), shell-quoted, or ''.
 * npm appends them, quoted, to the script's command and runs it under `sh -c`, so a step that runs
 * before the tool (this check, ensure-built.cjs) never gets them in its own argv: they are read from
 * that shell's command line, past the script as package.json has it (npm_lifecycle_script). A
 * script that `exec`s (`npm start`: `exec node src/scripts/start.cjs`) has no shell left: this
 * process is its command, and they are its own arguments past those the script names. A pre
 * script (`pretest`) is given none: they are read from npm's process title (`npm test <args>`),
 * where npm shows them unquoted, so an argument with a space in it comes back as two. Where there
 * is no /proc (macOS), the command is named without them.
 */
function scriptArguments() {
  const script = process.env.npm_lifecycle_script;
  if (!script) return '';
  if (script.startsWith('exec ')) return process.argv.slice(script.slice(5).trim().split(/\s+/).length).map(quoted).join(' ');
  try {
    const shell = processOf(process.ppid);
    const [, flag, command] = shell.argv;
    if (flag === '-c' && command?.startsWith(`${script} `)) return command.slice(script.length + 1);
    const event = process.env.npm_lifecycle_event ?? '';
    if (!event.startsWith('pre')) return '';
    const [title] = processOf(shell.ppid).argv;
    const main = event.slice(3);
    const named = [`npm ${main} `, `npm run ${main} `, `npm run-script ${main} `].find((prefix) => title?.startsWith(prefix));
    return named ? title.slice(named.length).trim() : '';
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
  // A silent run (`npm run -s token`, whose output a shell often captures: TOKEN=$(…)) stays silent,
  // so the command can be pasted where this one was: npm's own header lines would join the output.
  const silent = process.env.npm_config_loglevel === 'silent' ? '-s ' : '';
  const command = `${silent}${['start', 'test'].includes(script) ? script : `run ${script}`}${args ? ` -- ${args}` : ''}`;
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
