#!/usr/bin/env node
// Refuses, in one line, a Node older than `engines` allows, before anything else runs: on Node 20
// and 22 the optional OpenTelemetry packages are left out of an install (they need 22.15+) and the
// build then fails with a screenful of TS2307 errors that do not say the Node is the cause.
// `npm start`, `npm run demo` (start.cjs requires this first) and `npm test` (its pretest) run it;
// `npm install` and `npm ci` are refused by npm itself, at once, because .npmrc sets engine-strict.
// Plain CommonJS with no dependencies, so it runs on any Node.
const MINIMUM = 24;
const major = Number(process.versions.node.split('.')[0]);
if (major < MINIMUM) {
  // The npm command that ran this (`npm test` runs it as `pretest`), as npm is to be given it again.
  const script = (process.env.npm_lifecycle_event ?? 'start').replace(/^pre/, '');
  const command = ['start', 'test'].includes(script) ? script : `run ${script}`;
  process.stderr.write(
    `Node ${process.versions.node} is not supported: this project needs Node ${MINIMUM} or newer (26 recommended); ` +
      `without installing it, run npm on Node 26: npx -y node@26 "$(command -v npm)" ${command}\n`,
  );
  process.exit(1);
}
