import 'reflect-metadata';
import { setTimeout as sleep } from 'node:timers/promises';
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
import { errorMessage } from '../guards';
import { SystemJobRunner } from '../system-jobs/runner';
import type { MigrationOverview } from '../migrations/migration.service';
import { systemJobsEnv } from '../wiring';
import { toolTarget } from './system-tool';
import { commandLine } from './cli';

/*
 * `npm run migrate`: runs the pending migrations (src/migrations), each once, in number order, and
 * waits until they are applied, printing each one's progress, counts and rewrite rate against its
 * budget. Against a table it reaches itself (DYNAMODB_ENDPOINT, or AWS) it is one more runner of
 * the migration's segments, beside any server instances; with the embedded default it asks the
 * running server (see system-tool.ts). Killed, it leaves each segment at its last checkpoint: the
 * next run (or a server) takes the segments over once their leases run out (JOB_LEASE_SECONDS).
 *   npm run migrate -- [--items-per-second N] [--status] [--url http://…/graphql]
 * Exits 0 when every migration is applied, 1 when one failed (run it again to take it up).
 */

/** A migration's line, the same in both modes. */
interface Line {
  id: string;
  name: string;
  state: string;
  itemsPerSecond: number;
  progress?: number | null;
  rewriteRate?: number | null;
  counts?: { scanned: number; rewritten: number; unchanged: number; skipped: number; conflicts: number } | null;
}

const MIGRATIONS_QUERY = `{ migrations { id name state itemsPerSecond progress rewriteRate counts { scanned rewritten unchanged skipped conflicts } } }`;

const lineOf = (o: MigrationOverview): Line => ({
  id: o.migration.id,
  name: o.migration.name,
  state: o.state,
  itemsPerSecond: o.migration.itemsPerSecond,
  progress: o.progress,
  rewriteRate: o.rewriteRate,
  counts: o.counts,
});

function describe(line: Line): string {
  const parts = [`${line.id}-${line.name}: ${line.state}`];
  if (line.progress != null) parts.push(`${Math.round(line.progress * 100)}%`);
  if (line.counts) {
    const c = line.counts;
    parts.push(`scanned ${c.scanned}, rewritten ${c.rewritten}, unchanged ${c.unchanged}, skipped ${c.skipped}, conflicts ${c.conflicts}`);
  }
  if (line.rewriteRate != null) parts.push(`${line.rewriteRate.toFixed(1)} rewrites/s (budget ${line.itemsPerSecond}/s)`);
  return parts.join(' · ');
}

async function main() {
  const values = commandLine(
    {
      url: { type: 'string' },
      status: { type: 'boolean', default: false },
      'items-per-second': { type: 'string' },
    },
    'Usage: npm run migrate -- [--items-per-second N] [--status] [--url http://…/graphql]\n' +
      'Runs the pending migrations of the table (src/migrations), each once, and waits until they are applied.\n' +
      '--status only prints where each migration stands. See docs/operations.md.\n',
  );
  if (!values) return;
  const budget = values['items-per-second'];
  const itemsPerSecond = budget === undefined ? null : Number(budget);
  if (itemsPerSecond !== null && !(Number.isInteger(itemsPerSecond) && itemsPerSecond >= 1))
    throw new Error('--items-per-second takes a whole number from 1.');
  const target = await toolTarget(values.url);
  let runner: SystemJobRunner | undefined;
  const stop = () => {
    void (runner?.stop() ?? Promise.resolve()).finally(() => process.exit(130));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  let read: () => Promise<Line[]>;
  if (target.kind === 'table') {
    read = async () => (await target.migrations.overview()).map(lineOf);
    if (!values.status) {
      await target.migrations.runPending({ itemsPerSecond });
      const env = systemJobsEnv(target.deps);
      runner = new SystemJobRunner(env.systemJobs, [target.migrations.handler()], {
        slots: Math.max(1, target.config.systemJobs.slots),
        idleMs: 500,
        leaseSeconds: target.config.jobLeaseSeconds,
      });
      runner.start();
    }
  } else {
    read = async () => (await target.request<{ migrations: Line[] }>(MIGRATIONS_QUERY)).migrations;
    if (!values.status) await target.request(`mutation($n: Int) { runMigrations(itemsPerSecond: $n) { id } }`, { n: itemsPerSecond });
    process.stdout.write(`Asking the server at ${target.url}.\n`);
  }
  let lines = await read();
  let said = '';
  while (!values.status && lines.some((l) => l.state === 'RUNNING' || l.state === 'PENDING') && !lines.some((l) => l.state === 'FAILED')) {
    const now = lines
      .filter((l) => l.state === 'RUNNING')
      .map(describe)
      .join('\n');
    if (now && now !== said) process.stdout.write(`${now}\n`);
    said = now;
    await sleep(1000);
    lines = await read();
  }
  await runner?.stop();
  if (target.kind === 'table') await target.close();
  for (const line of lines) process.stdout.write(`${describe(line)}\n`);
  if (lines.some((l) => l.state === 'FAILED')) {
    process.stdout.write(
      'A migration failed: its job keeps the error and its segments their checkpoints; run npm run migrate again to take it up.\n',
    );
    process.exitCode = 1;
  }
}

main().catch((error) => {
  process.stderr.write(`${errorMessage(error)}\n`);
  process.exit(1);
});
