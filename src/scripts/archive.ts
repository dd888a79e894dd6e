process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
import { signDevToken } from '../auth/jwt';
import type { ArchiveRunOutcome } from '../common/feature';
import { errorMessage } from '../guards';
import { commandLine } from './cli';
import { findRunningServer, operatorSigningSecret } from './running-server';

/*
 * The operator's command for cold storage: runs the archive now on the running server, through
 * the operator mutation runArchive (the archive's system job, started or joined when one runs),
 * waits until the run finished, and prints what it did. A run longer than one request's budget
 * is followed by asking again with its job id, with a line on stderr for its progress.
 *   npm run archive                     # the server npm start runs (found as npm run token finds it)
 *   npm run archive -- --url https://api.example.com/graphql --token "$OPERATOR_TOKEN"
 */
async function main() {
  const values = commandLine(
    {
      url: { type: 'string' },
      token: { type: 'string' },
    },
    'Usage: npm run archive -- [--url URL] [--token OPERATOR_TOKEN]\n' +
      'Runs the archive now (finished jobs and archived projects past COLD_STORAGE_AFTER_DAYS go to cold storage)\n' +
      'and prints what it did, as JSON. Without --url it uses the running server (npm start), signing an operator\n' +
      'token with its development operator secret; elsewhere pass an operator token.\n',
  );
  if (!values) return;
  const server = values.url ? undefined : findRunningServer();
  if (!values.url && !server) throw new Error('No running server found: start one with `npm start` first, or pass --url and --token.');
  const url = values.url ?? server?.url ?? '';
  const token =
    values.token ?? (await signDevToken(operatorSigningSecret(server), { sub: 'operator', operator: true }, { expiresIn: '1h' }));
  const ask = async (jobId?: string): Promise<ArchiveRunOutcome> => {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({
        query: 'mutation($j: ID) { runArchive(jobId: $j) { jobId status progress jobs projects resumed rows bytes failed } }',
        variables: { j: jobId ?? null },
      }),
    });
    // The server's answer, as its schema says (JSON.parse types nothing; the schema is the contract).
    const body: { data?: { runArchive: ArchiveRunOutcome }; errors?: unknown } = JSON.parse(await res.text());
    if (body.errors || !body.data) throw new Error(`The archive did not run: ${JSON.stringify(body.errors ?? body)}`);
    return body.data.runArchive;
  };
  let answer = await ask();
  while (!FINISHED.has(answer.status)) {
    process.stderr.write(
      `archive run ${answer.jobId}: ${answer.status} ${Math.round(answer.progress * 100)}%, ${answer.jobs} jobs and ${answer.projects} projects moved so far\n`,
    );
    answer = await ask(answer.jobId);
  }
  const { jobs, projects, resumed, rows, bytes, failed } = answer;
  process.stdout.write(`${JSON.stringify({ runArchive: { jobs, projects, resumed, rows, bytes, failed } })}\n`);
  if (answer.status !== 'COMPLETED')
    throw new Error(`The archive run ${answer.jobId} ended ${answer.status}; the next run takes up what it left.`);
}

/** The statuses a run ends in. */
const FINISHED = new Set(['COMPLETED', 'FAILED', 'CANCELLED']);

main().catch((error) => {
  process.stderr.write(`${errorMessage(error)}\n`);
  process.exit(1);
});
