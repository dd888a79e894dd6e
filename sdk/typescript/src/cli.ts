/*
 * The SDK's command line (bin/artissist-worker.js). `artissist-worker types` prints a TypeScript
 * module of the declared kinds' inputs and outputs (typegen.ts), read from the server at
 * ARTISSIST_URL with ARTISSIST_TOKEN (a tenant's token: a pool worker's may not read jobKinds).
 */
import { post } from './renewals';
import { type DeclaredKind, JOB_KINDS_QUERY, typedModule } from './typegen';

const USAGE = 'Usage: artissist-worker types > kinds.ts   (reads ARTISSIST_URL and ARTISSIST_TOKEN)';

/**
 * Runs the command `argv` names, writing its output to `out`, and resolves to the process's exit
 * code: 0, or 1 with the reason on `err` (a usage error, a variable not set, the server's error).
 */
export async function main(argv: string[], out = process.stdout, err = process.stderr): Promise<number> {
  if (argv[0] !== 'types' || argv.length > 1) {
    err.write(`${USAGE}\n`);
    return argv[0] === '--help' ? 0 : 1;
  }
  const { ARTISSIST_URL: url, ARTISSIST_TOKEN: token } = process.env;
  if (!url || !token) {
    err.write(`ARTISSIST_URL and ARTISSIST_TOKEN must be set.\n${USAGE}\n`);
    return 1;
  }
  const answer = await post(url, token, JOB_KINDS_QUERY, {});
  if ('code' in answer) {
    err.write(`jobKinds failed: ${answer.code}: ${answer.message}\n`);
    return 1;
  }
  out.write(typedModule(answer.data.jobKinds as DeclaredKind[]));
  return 0;
}
