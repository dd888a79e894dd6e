import 'reflect-metadata';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import './support';
import { startApp } from '../src/app';
import { loadConfig } from '../src/config';
import type { Write } from '../src/infra/dynamo/write';
import { Committer } from '../src/infra/dynamo/committer';
import { budgetLeft } from '../src/infra/deadline';
import { itemWriteStats, JobAggregate } from '../src/job/job.aggregate';
import { report } from './support';

/*
 * Our server as a bench child: configured by environment like `npm start`, reporting when ready.
 * With BENCH_REPORT_COMMITS=1 it also prints `COMMIT {"eventId", "type", "jobId", "sequence",
 * "attempt", "sent", "at"}` when DynamoDB has acknowledged the transaction of a job event (sent:
 * when the transaction was sent, at: when it was acknowledged, epoch ms with sub-ms precision), so
 * the fan-out benchmark can time from the commit and the workers' soak take a signal's time apart. With BENCH_ITEM_STATS=1 it answers a line ITEMSTATS
 * on stdin with `RESULT {…}`, the work items' write-path counters (src/job/job.aggregate.ts). With
 * BENCH_REPORT_CALLS=1 it prints `CALL {name, what, start, end}` for each store call, and `TRACE`
 * lines: a job command reaching its aggregate (with how long its request had been in the server),
 * a committer group starting, and the event loop running late (with the CPU used meanwhile). With
 * BENCH_WHOLE_READS=1 its list reads take whole items whatever the query selects (projectReads:
 * false), as they did on PostgreSQL before its reads took the projection: a before-and-after in one run.
 */
startApp(loadConfig(), { projectReads: process.env.BENCH_WHOLE_READS === '1' ? false : undefined })
  .then((app) => {
    if (process.env.BENCH_REPORT_COMMITS === '1') {
      // transactOnce: the committer sends each round with it (and transact through it), so every commit is seen.
      const transactOnce = app.store.transactOnce.bind(app.store);
      app.store.transactOnce = async (writes: readonly Write[]) => {
        const sent = performance.timeOrigin + performance.now();
        const outcome = await transactOnce(writes);
        const at = performance.timeOrigin + performance.now();
        if (outcome !== 'committed') return outcome;
        for (const w of writes)
          if (w.isEvent && w.item?.stream === 'job') {
            const { eventId, type, jobId, item } = w.item;
            const unit = typeof item === 'object' && item !== null ? item : {};
            const { sequence, attempt } = unit as { sequence?: number; attempt?: number };
            process.stdout.write(`COMMIT ${JSON.stringify({ eventId, type, jobId, sequence, attempt, sent, at })}\n`);
          }
        return outcome;
      };
    }
    if (process.env.BENCH_REPORT_CALLS === '1') {
      // Every store call, with when it was made and answered and what it named, to take a request's wait apart.
      const store = app.store as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
      const sk = (k: unknown) => String((k as { SK?: unknown })?.SK ?? '').split('#')[0];
      const what = (name: string, args: unknown[]) => {
        const [first] = args;
        if (name === 'transactOnce' || name === 'transactEach')
          return (first as { isEvent?: boolean; item?: { type?: string; stream?: string }; key?: unknown }[])
            .map((w) => (w.isEvent ? `${w.item?.stream}:${w.item?.type}` : sk(w.key ?? w.item)))
            .join(',');
        if (name === 'batchGet' || name === 'deleteEach') return (first as unknown[]).map(sk).join(',');
        if (name === 'get') return sk(first);
        return String((first as { index?: string })?.index ?? (first as { pk?: string })?.pk?.split('#')[0] ?? '');
      };
      // The job's commands as they reach its aggregate, and the committer's groups as they start (by prototype: bench only).
      const trace = (line: Record<string, unknown>) =>
        process.stdout.write(`TRACE ${JSON.stringify({ ...line, t: performance.timeOrigin + performance.now() })}\n`);
      const aggregate = JobAggregate.prototype as unknown as { run: (...args: any[]) => Promise<unknown> };
      const run = aggregate.run;
      aggregate.run = function (
        this: unknown,
        jobId: unknown,
        command: { unit?: { sequence?: number }; action: { kind: string } },
        ...rest
      ) {
        // How long its request has been in the server (its budget started when the request came in).
        const left = budgetLeft();
        const since = left === undefined ? undefined : Math.round(Number(process.env.REQUEST_BUDGET_MS ?? 5000) - left);
        trace({ ev: 'act', jobId, kind: command.action.kind, sequence: command.unit?.sequence, since });
        return run.call(this, jobId, command, ...rest);
      };
      const committer = Committer.prototype as unknown as { run: (...args: any[]) => Promise<unknown> };
      const group = committer.run;
      committer.run = async function (this: unknown, id: string, commands: unknown[], ...rest) {
        trace({ ev: 'group', id: id.slice(id.lastIndexOf('\u0000') + 1), n: commands.length });
        return group.call(this, id, commands, ...rest);
      };
      // The event loop held: a 20 ms timer that fires late says by how much.
      // With the CPU time this process used meanwhile: near the lag, the loop was busy; far below, the process waited for a core.
      let expected = performance.now() + 20;
      let cpu = process.cpuUsage();
      setInterval(() => {
        const late = performance.now() - expected;
        const used = process.cpuUsage(cpu);
        if (late > 40) trace({ ev: 'lag', ms: Math.round(late), cpu: Math.round((used.user + used.system) / 1000) });
        expected = performance.now() + 20;
        cpu = process.cpuUsage();
      }, 20).unref();
      for (const name of ['get', 'batchGet', 'queryFirst', 'queryPage', 'queryAll', 'transactOnce', 'transactEach', 'deleteEach']) {
        const original = store[name].bind(app.store);
        store[name] = async (...args: unknown[]) => {
          const start = performance.timeOrigin + performance.now();
          try {
            return await original(...args);
          } finally {
            const end = performance.timeOrigin + performance.now();
            process.stdout.write(`CALL ${JSON.stringify({ name, what: what(name, args), start, end })}\n`);
          }
        };
      }
    }
    // The event loop's delays (10 ms resolution): "eld-reset" zeroes them, "eld" prints `ELD {maxMs, p99Ms}`,
    // the longest the loop was held since (the scale bench reads it over an idle keep-alive round).
    const loopDelay = monitorEventLoopDelay({ resolution: 10 });
    loopDelay.enable();
    // Commands on stdin, a line each: "reset" and "calls" zero and print (`CALLS {…}`) the DynamoDB
    // call counter (the burst line); "ITEMSTATS" prints the group-commit counters (batches,
    // intents, lost rounds) of the work-item line.
    createInterface({ input: process.stdin }).on('line', (line) => {
      if (line === 'reset') app.calls.reset();
      if (line === 'calls') {
        process.stdout.write(`CALLMS ${JSON.stringify(Object.fromEntries(app.calls.msByCommand))}\n`);
        process.stdout.write(`CALLS ${JSON.stringify(Object.fromEntries(app.calls.byCommand))}\n`);
      }
      if (line === 'eld-reset') loopDelay.reset();
      if (line === 'eld')
        process.stdout.write(`ELD ${JSON.stringify({ maxMs: loopDelay.max / 1e6, p99Ms: loopDelay.percentile(99) / 1e6 })}\n`);
      if (line.includes('ITEMSTATS')) report('RESULT', { ...itemWriteStats });
    });
    report('READY', { url: app.url, pid: process.pid });
    process.on('SIGTERM', () => void app.stop().then(() => process.exit(0)));
  })
  .catch((error) => {
    console.error(error);
    process.exit(1);
  });
