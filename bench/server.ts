import 'reflect-metadata';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import './support';
import { startApp } from '../src/app';
import { loadConfig } from '../src/config';
import type { Write } from '../src/infra/dynamo/write';
import { itemWriteStats } from '../src/job/job.aggregate';
import { report } from './support';

/*
 * Our server as a bench child: configured by environment like `npm start`, reporting when ready.
 * With BENCH_REPORT_COMMITS=1 it also prints `COMMIT {"eventId", "type", "jobId", "sequence",
 * "attempt", "sent", "at"}` when DynamoDB has acknowledged the transaction of a job event (sent:
 * when the transaction was sent, at: when it was acknowledged, epoch ms with sub-ms precision), so
 * the fan-out benchmark can time from the commit and the workers' soak take a signal's time apart. With BENCH_ITEM_STATS=1 it answers a line ITEMSTATS
 * on stdin with `RESULT {…}`, the work items' write-path counters (src/job/job.aggregate.ts). With
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
