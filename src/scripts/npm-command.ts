import { sep } from 'node:path';

/** npm on Node 26 without installing it: the README's route on an older Node (check-node.cjs names it too). */
const NPM_ON_NODE26 = 'npx -y node@26 "$(command -v npm)"';

/**
 * How a person types `npm <command>` in the shell that started this server: as it is, unless this
 * process runs on a Node from npm's cache (`npm_config_cache`, which npm sets for every script it
 * runs). npm documents that `npm exec` (npx) installs a package it lacks "to a folder in the npm
 * cache", so such a Node is the one the README's `npx -y node@26 "$(command -v npm)" start` fetched
 * for a shell whose own Node is too old (20, 22): there `npm <command>` would only be refused, so
 * the same npx route is named instead.
 */
export function npmCommand(command: string, env: NodeJS.ProcessEnv = process.env, execPath: string = process.execPath): string {
  const cache = env.npm_config_cache;
  const fromCache = !!cache && execPath.startsWith(cache.endsWith(sep) ? cache : `${cache}${sep}`);
  return `${fromCache ? NPM_ON_NODE26 : 'npm'} ${command}`;
}
