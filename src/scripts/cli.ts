import { type ParseArgsConfig, parseArgs } from 'node:util';

type Options = NonNullable<ParseArgsConfig['options']>;

/**
 * The options of a command's line (node:util parseArgs): null when `--help` (`-h`) asked for the
 * usage instead, which is then printed to stdout and the command does nothing else. Throws, as
 * parseArgs does, on an unknown option or a missing value.
 */
export function commandLine<const O extends Options>(options: O, usage: string) {
  if (process.argv.slice(2).some((arg) => arg === '--help' || arg === '-h')) {
    process.stdout.write(usage);
    return null;
  }
  return parseArgs({ options }).values;
}
