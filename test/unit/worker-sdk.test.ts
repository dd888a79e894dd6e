import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { leaseSeconds, missingOutputs, PollingSignal, type PushTarget, Worker, type WorkSignal } from '../../sdk/typescript/src/index';
import { renewals } from '../../sdk/typescript/src/renewals';
import { ROOT } from '../support/processes';
import { blocksOf } from '../support/doc-blocks';
import { registerFixture, tempDir } from '../support/fixtures';
import { waitFor } from '../support/wait';

/*
 * The worker SDKs' parts that need no server. The Python SDK's own unittest suite
 * (sdk/python/tests, standard library only: CI has python3 but no pytest) runs from here, so that
 * `npm test` and `npm run test:quick` run it. Their e2e tests are test/e2e/worker-sdk.test.ts.
 */
describe('the worker SDKs, without a server', () => {
  it("the Python SDK's unittest suite passes", () => {
    const run = spawnSync('python3', ['-m', 'unittest', 'discover', '-s', 'sdk/python/tests', '-t', 'sdk/python'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, PYTHONDONTWRITEBYTECODE: '1' },
      encoding: 'utf8',
      timeout: 60_000,
    });
    // unittest reports on stderr: "Ran N tests … OK", or each failure, whose report a failing run shows here whole.
    const failures = run.stderr.split(/^={70}$/m).slice(1);
    expect({ status: run.status, error: run.error?.message, tail: run.stderr.trim().split('\n').slice(-1)[0], failures }).toEqual({
      status: 0,
      error: undefined,
      tail: 'OK',
      failures: [],
    });
    expect(Number(/Ran (\d+) tests/.exec(run.stderr)?.[1])).toBeGreaterThanOrEqual(18);
  });

  it('the Python SDK and the Python worker docs/workers.md shows are clean under mypy --strict (Debian’s mypy, which .ci/run installs)', () => {
    const hello = blocksOf('docs/workers.md').find((b) => b.lang === 'python' && b.text.includes('@worker.stage'));
    const file = join(tempDir('mypy'), 'worker.py');
    writeFileSync(file, hello?.text ?? '');
    const run = spawnSync('mypy', ['--strict', '--no-incremental', 'sdk/python/artissist_worker', file], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, MYPYPATH: join(ROOT, 'sdk/python') },
      encoding: 'utf8',
      timeout: 120_000,
    });
    expect({ status: run.status, error: run.error?.message, out: run.stdout.trim().split('\n').slice(-1)[0] }).toEqual({
      status: 0,
      error: undefined,
      out: expect.stringMatching(/^Success: no issues found in \d+ source files$/),
    });
  });

  it("the TypeScript SDK measures a lease on the server's clock, with the default when the claim does not say", () => {
    expect(leaseSeconds('2026-01-01T00:00:00Z', '2026-01-01T00:00:02.500Z')).toBe(2.5);
    expect(leaseSeconds(null, '2026-01-01T00:00:02Z')).toBe(60);
    expect(leaseSeconds('2026-01-01T00:00:05Z', '2026-01-01T00:00:02Z')).toBe(60);
  });

  it('the TypeScript SDK names the required outputs left out or null, in declaration order', () => {
    const declared = [
      { name: 'videoClip', required: true },
      { name: 'lipSyncedClip', required: false },
      { name: 'poster', required: true },
    ];
    expect(missingOutputs(declared, { lipSyncedClip: 'k', poster: null })).toEqual(['videoClip', 'poster']);
    expect(missingOutputs(declared, { videoClip: 'a', poster: 'b' })).toEqual([]);
    expect(missingOutputs(undefined, {})).toEqual([]);
  });

  it("the TypeScript SDK's polling waits grow to the cap while claims find nothing, start again after work, and end at once on stop", async () => {
    const signal = new PollingSignal(20, 60, 2);
    const waited = async () => {
      const started = Date.now();
      await signal.wait(new AbortController().signal);
      return Date.now() - started;
    };
    const first = await waited();
    const second = await waited();
    expect(first).toBeGreaterThanOrEqual(15);
    expect(second).toBeGreaterThanOrEqual(35);
    signal.found();
    const stop = new AbortController();
    stop.abort();
    const started = Date.now();
    await signal.wait(stop.signal);
    expect(Date.now() - started).toBeLessThan(15);
  });

  it("the TypeScript SDK's renewal thread sends each held unit's renewals with its progress, tells a lost attempt, and is released only once its renewal in flight is answered", async () => {
    // A GraphQL endpoint of a few lines: each request is kept, and answered by `answer` (the thread
    // sends them by HTTP like any client; the lease logic behind them is the e2e tests').
    const requests: Array<{ variables: Record<string, unknown>; res: ServerResponse }> = [];
    let answer = (res: ServerResponse) => res.end('{"data":{"renewed":true}}');
    const http = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        requests.push({ variables: JSON.parse(body).variables, res });
        answer(res);
      });
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    registerFixture('renewals endpoint', () => new Promise<void>((resolve) => http.close(() => resolve())));
    const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/graphql`;
    const heard: string[] = [];
    const events = (unit: string) => ({
      lost: (code: string) => heard.push(`${unit} lost ${code}`),
      failed: (message: string) => heard.push(`${unit} failed ${message}`),
      stopped: (message: string) => heard.push(`${unit} stopped ${message}`),
    });
    const of = (unit: string) => requests.filter((r) => r.variables.unit === unit);
    renewals.open();
    try {
      const a = renewals.hold(
        { url, token: 't', query: 'mutation', variables: { unit: 'a' }, intervalMs: 40, minReportMs: 10 },
        events('a'),
      );
      renewals.progress(a, 0.25);
      await waitFor(async () => of('a').length >= 3, 'three renewals of a', { everyMs: 10 });
      expect(of('a').at(-1)?.variables).toEqual({ unit: 'a', progress: 0.25 });

      // A renewal left unanswered: the release waits for it, and nothing is sent after it.
      let unanswered: ServerResponse | undefined;
      answer = (res) => (unanswered = res);
      await waitFor(async () => unanswered, 'a renewal in flight', { everyMs: 10 });
      let released = false;
      const release = renewals.release(a).then(() => (released = true));
      // The window is the assertion: the release must not settle while the renewal goes unanswered.
      // A thread that did not wait for it would answer the release within a turn or two of this loop.
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(released).toBe(false);
      unanswered?.end('{"data":{"renewed":true}}');
      await release;
      const sent = of('a').length;

      // An answer that says the attempt is over: told once, and no renewal follows.
      answer = (res) => res.end('{"errors":[{"message":"cancelled","extensions":{"code":"JOB_CANCELLED"}}]}');
      const b = renewals.hold(
        { url, token: 't', query: 'mutation', variables: { unit: 'b' }, intervalMs: 20, minReportMs: 10 },
        events('b'),
      );
      await waitFor(async () => heard.length > 0, 'b lost', { everyMs: 10 });
      await renewals.release(b);
      expect(heard).toEqual(['b lost JOB_CANCELLED']);
      expect(of('b')).toHaveLength(1);
      expect(of('a')).toHaveLength(sent);
    } finally {
      await renewals.close();
    }
  });

  it('the TypeScript SDK claims again after a signal that came while a claim that finds nothing was on its way (no lost wake-up), and names its process on claims only once subscribed (a polling worker never)', async () => {
    // The server's side, a GraphQL endpoint of a few lines: no declared kinds, and claims that find
    // nothing. The first claim's answer is held until the test lets it go, so that the signal comes
    // while it is on its way, after the server decided it: the one moment a real server cannot be
    // made to keep on cue.
    const claims: ServerResponse[] = [];
    const claimIds: unknown[] = [];
    let kindsRead = false;
    const http = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        if (!body.includes('claimWork')) {
          kindsRead = true;
          return res.end('{"data":{"jobKinds":[]}}');
        }
        claimIds.push(JSON.parse(body).variables.workerId);
        claims.push(res);
        if (claims.length > 1) res.end('{"data":{"claimWork":null}}');
      });
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    registerFixture('claims endpoint', () => new Promise<void>((resolve) => http.close(() => resolve())));
    // A signal source that says nothing of its own: a slot's wait ends only at a stop, so a stage the
    // worker took out of its list is not claimed again here (a pushed worker would wait for its 30 s
    // fallback). The test tells the worker of new work as PushSignal does on WORK_AVAILABLE.
    let target: PushTarget | undefined;
    const quiet: WorkSignal = {
      found: () => {},
      wait: (stop) => new Promise<void>((resolve) => (stop.aborted ? resolve() : stop.addEventListener('abort', () => resolve()))),
      start: (told) => (target = told),
      close: () => {},
    };
    const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/graphql`;
    const states: string[] = [];
    const worker = new Worker({
      url,
      token: 't',
      workSignal: quiet,
      handleSignals: false,
      graceMs: 0,
      log: () => {},
      onState: (state) => states.push(state),
    });
    worker.stage('BATCH', 'process', () => ({}));
    const running = worker.run();
    try {
      // A pushed worker's first claim waits for its subscription's acknowledgement (what PushSignal
      // tells at SUBSCRIBED), so that it is bound to it: none is sent once the worker read its kinds
      // and started its source, and the first one sent after the acknowledgement names the process
      // (below), where one sent before it would name none.
      await waitFor(async () => target !== undefined && kindsRead, 'the source started and the kinds read', { everyMs: 5 });
      expect(claims.length).toBe(0);
      target?.subscribed(true);
      await waitFor(async () => claims.length === 1, 'the first claim', { everyMs: 5 });
      // Work appears after the server decided the claim under way (it will answer null): its signal comes now.
      target?.hint('BATCH', 'process');
      claims[0].end('{"data":{"claimWork":null}}');
      // The stage stayed worth a claim: the slot claims again with no other signal. (Bounded so that
      // a lost wake-up, the slot waiting for a signal that never comes, fails here.)
      await waitFor(async () => claims.length === 2, 'a second claim, after the signal that came during the first', {
        ms: 5_000,
        everyMs: 5,
      });
      // That claim found nothing too: the worker waits, subscribed, and says so once.
      await waitFor(async () => states.includes('idle'), 'idle told', { ms: 5_000, everyMs: 5 });
      expect(worker.idle).toBe(true);
    } finally {
      if (claims[0] && !claims[0].writableEnded) claims[0].end('{"data":{"claimWork":null}}');
      worker.stop();
      await running;
    }
    // Each claim names the process, as its subscription does (target.workerId): the server binds the claim to it.
    expect(claimIds).toEqual([worker.workerId, worker.workerId]);
    expect(states).toEqual(['subscribed', 'idle']);
    // A polling worker is bound to no subscription: its claims name no process (the server would
    // forward each claim and report over the bus to a topic no instance listens to), and it is told
    // idle at each wait.
    const polled: string[] = [];
    const polling = new Worker({
      url,
      token: 't',
      workSignal: new PollingSignal(10, 10),
      handleSignals: false,
      log: () => {},
      onState: (state) => polled.push(state),
    });
    polling.stage('BATCH', 'process', () => ({}));
    const pollingRun = polling.run();
    await waitFor(async () => polled.filter((s) => s === 'idle').length >= 2, 'idle told at two waits', { ms: 5_000, everyMs: 5 });
    polling.stop();
    await pollingRun;
    expect(claimIds.length).toBeGreaterThanOrEqual(4);
    expect(new Set(claimIds.slice(2))).toEqual(new Set([null]));
    expect(target?.workerId).toBe(worker.workerId);
    expect(new Worker({ url, token: 't' }).workerId).not.toBe(worker.workerId);
    expect(new Worker({ url, token: 't', workerId: 'gpu-3' }).workerId).toBe('gpu-3');
  });
});
