/**
 * @alone Latency bounds (a hand-back claimed again within 1 s, a cancellation heard within 1 s, new
 * work within 200 ms, to the SDKs' workers and to a workSignals subscriber) that another file's load
 * on the same cores would bend.
 */
import type { Work } from '../../sdk/typescript/src/index';
import { workSignalHubOf } from '../../src/events/work-signals';
import { watchJobCreations } from '../support/commits';
import { Role, startTestServer, type TestServer } from '../support/server';
import { startTcpProxy } from '../support/tcp-proxy';
import { waitFor } from '../support/wait';
import { subscribe, wsClient } from '../support/ws';
import { gqlAs, batchJob, idleCount, isIdle, type Proc, pythonPushWorker, tsPushWorker } from '../support/worker-process';

/*
 * The SDKs' pushed work (workSignals) and hand-back against the real server: Python worker
 * processes (python3, the standard library; SIGTERM is a real signal) and in-process TypeScript
 * workers. Leases are 60 s (JOB_LEASE_SECONDS), renewed every 20 s: everything below that happens
 * within a second is the push or the hand-back, never a renewal or a lease running out.
 */

/** How long the server waits for a lost worker to subscribe again before it hands back its work. */
const GRACE_SECONDS = 1;

/** Each test's tenant, its own: a tenant-bound worker serves every job of its tenant. */
let TENANT = '';
let tenants = 0;
/** How many HTTP requests (POSTs) went through a proxy so far. */
const posts = (sent: string[]) => sent.filter((chunk) => chunk.startsWith('POST ')).length;

describe('pushed work, cancellation and hand-back in the worker SDKs', () => {
  let server: TestServer;
  let editor: string;
  let projectId: string;
  const gql = (query: string, variables: Record<string, unknown> = {}, token = editor) => gqlAs(server, token, query, variables);
  const workerToken = (sub: string) => server.token(TENANT, [Role.WORKER], sub);
  /** A Python worker on pushed signals (PUSH=1), through `url` (the server's own by default). */
  const python = async (sub: string, env: Record<string, string> = {}, url = server.url) =>
    pythonPushWorker(url, await workerToken(sub), sub, env);
  /** A BATCH job of items with these params (see test/fixtures/workers/batch_worker.py). */
  const batch = (params: Record<string, unknown>[]) => batchJob(gql, TENANT, projectId, params);
  const jobOf = async (jobId: string) =>
    (
      await gql(
        'query($j: ID!) { job(jobId: $j) { status itemCounts { total completed failed } items(first: 100) { nodes { sequence status attempt worker } } } }',
        { j: jobId },
      )
    ).job;
  const finished = (jobId: string, ...workers: Proc[]) => {
    let last: any;
    return waitFor(
      async () => {
        last = await jobOf(jobId);
        return ['COMPLETED', 'FAILED', 'CANCELLED'].includes(last.status) && last;
      },
      () =>
        `job ${jobId} finished (now ${JSON.stringify(last?.itemCounts)}); the workers printed:\n${workers.map((w) => w.output()).join('\n---\n')}`,
    );
  };
  /** A TypeScript worker whose BATCH handler waits until its signal aborts (or `returns` says to return at once). */
  const tsWorker = async (sub: string, options: { url?: string; graceMs?: number; returns?: (work: Work) => boolean } = {}) =>
    tsPushWorker(options.url ?? server.url, await workerToken(sub), sub, options);

  beforeAll(async () => {
    // A lost worker's work is handed back after 1 s (WORKER_GRACE_SECONDS), far inside the 60 s lease.
    server = await startTestServer({ env: { JOB_LEASE_SECONDS: '60', WORKER_GRACE_SECONDS: String(GRACE_SECONDS) } });
  });

  beforeEach(async () => {
    TENANT = `push-${++tenants}`;
    editor = await server.token(TENANT, [Role.EDITOR], 'artist');
    projectId = (await gql('mutation { createProject(input: { title: "Push" }) { projectId } }')).createProject.projectId;
  });

  it('Python: after a SIGTERM, the worker hands its item back and an idle worker claims it within 1 s; a cancellation reaches a handler that reports nothing within 1 s', async () => {
    await batch([{ hold: { 1: 60 } }]);
    const stopping = await python('py-stopping', { GRACE_SECONDS: '0.2' });
    await stopping.until((l) => l.event === 'claimed' && l.attempt === 1, 'the claim of attempt 1');
    const idle = await python('py-idle');
    await idle.until((l) => l.event === 'idle', 'the other worker idle');
    const termAt = Date.now();
    stopping.child.kill('SIGTERM');
    const taken = await idle
      .until((l) => l.event === 'claimed' && l.attempt === 2, 'the item claimed again')
      .catch((error) => {
        throw new Error(`${error.message}\n--- the stopped worker printed:\n${stopping.output()}`);
      });
    const handBackMs = taken.at * 1000 - termAt;
    expect(await stopping.exited).toMatchObject({ code: 0 });
    expect(stopping.lines.find((l) => l.event === 'cancelled')).toMatchObject({ code: 'WORKER_STOPPED' });
    // A job cancelled while the other worker holds its item (held for 60 s, renewed only every 20 s): heard from the push.
    const cancelled = await batch([{ hold: { 1: 60 } }]);
    await idle.until((l) => l.event === 'claimed' && l.attempt === 1, 'the new item held');
    const cancelAt = Date.now();
    await gql('mutation($j: ID!) { cancelJob(jobId: $j) { status } }', { j: cancelled });
    const heard = await idle.until((l) => l.event === 'cancelled', 'the cancellation heard');
    const cancelMs = heard.at * 1000 - cancelAt;
    console.log(
      `Python: SIGTERM → claimed again ${handBackMs.toFixed(0)} ms (grace 200 ms); cancelJob → handler told ${cancelMs.toFixed(0)} ms`,
    );
    expect(handBackMs).toBeLessThan(1000);
    expect(heard.code).toBe('JOB_CANCELLED');
    expect(cancelMs).toBeLessThan(1000);
    idle.child.kill('SIGTERM');
    expect(await idle.exited).toMatchObject({ code: 0 });
  });

  // That idle workers make no request beyond their connection is work-signals.test's (it bounds no
  // latency, so it runs beside other files).
  it('new work reaches idle Python and TypeScript workers within 200 ms of createJob committing it, at ≤ 3 requests an item', async () => {
    const proxy = await startTcpProxy(server.url);
    const through = `${proxy.url}${new URL(server.url).pathname}`;
    const py = await python('py-quiet', {}, through);
    const ts = await tsWorker('ts-quiet', { url: through, returns: () => true });
    // Settled: each made its kinds read, its subscription and its claim, and the SDK told it idle.
    await waitFor(async () => isIdle(py) && isIdle(ts), 'both workers idle', { everyMs: 10 });
    // New work, one job at a time: it reaches one of them (each item is dealt to one) within 200 ms.
    const delays: number[] = [];
    const perItem: number[] = [];
    const { committedAt } = watchJobCreations(server.app.store);
    for (let n = 0; n < 10; n++) {
      const before = posts(proxy.sent);
      const idleBefore = [idleCount(py), idleCount(ts)];
      // From the moment createJob's transaction committed (watchJobCreations; the wall clock of this
      // machine, as the workers' `at`), not from before the request nor from the job's createdAt:
      // createJob's own HTTP round trip and its DynamoDB calls are not the push's delay, and a loaded
      // machine stretches them alone (213 ms at the median in one CI run; 896 ms from createdAt to
      // a worker's signal with three busy loops beside this file).
      const jobId = await batchJob(gql, TENANT, projectId, [{}]);
      const sent = committedAt(jobId);
      const heard = await waitFor(
        async () =>
          py.lines.find((l) => l.event === 'signal' && l.type === 'WORK_AVAILABLE' && l.at * 1000 >= sent)?.at * 1000 ||
          ts.signals.find((s) => s.type === 'WORK_AVAILABLE' && s.at >= sent)?.at,
        'new work heard',
        { everyMs: 10 },
      );
      delays.push(Math.round(heard - sent));
      await finished(jobId, py);
      // The requests it took are made once the worker that took it claimed again, found nothing, and
      // was told idle again (a worker told of the job that did not take it is idle again too).
      const tookIt = py.lines.some((l) => l.event === 'claimed' && l.jobId === jobId) ? 0 : 1;
      await waitFor(
        async () => isIdle(py) && isIdle(ts) && [idleCount(py), idleCount(ts)][tookIt] > idleBefore[tookIt],
        'the workers idle again',
        { everyMs: 10 },
      );
      perItem.push(posts(proxy.sent) - before);
    }
    delays.sort((a, b) => a - b);
    console.log(
      `createJob committed → an idle worker told: p50 ${delays[5]} ms, p90 ${delays[8]} ms, max ${delays[9]} ms; requests an item: ${perItem.join(' ')}`,
    );
    // Within 200 ms at the median; the slowest bounded at a second, as the two cores this runs on are shared.
    expect(delays[5]).toBeLessThan(200);
    expect(delays[9]).toBeLessThan(1000);
    // A claim, a completion and the claim that found nothing more; the other worker slept through it.
    expect(Math.max(...perItem)).toBeLessThanOrEqual(3);
    py.child.kill('SIGTERM');
    ts.worker.stop();
    await ts.running;
    expect(await py.exited).toMatchObject({ code: 0 });
  });

  it('TypeScript: stop() hands back past the grace and another worker takes the item within 1 s; a cancellation aborts a silent handler within 1 s', async () => {
    const jobId = await batch([{}, {}]);
    const first = await tsWorker('ts-first', { graceMs: 200 });
    await waitFor(async () => first.started.length === 1 && true, 'the first claim', { everyMs: 10 });
    const second = await tsWorker('ts-second');
    await waitFor(async () => second.started.length === 1 && true, 'the second claim', { everyMs: 10 });
    // A third, idle (its first claim found nothing), is the one the handed-back item is dealt to.
    const third = await tsWorker('ts-third');
    await waitFor(async () => isIdle(third), 'the third worker idle (subscribed, its claim found nothing)', { everyMs: 10 });
    const stopAt = Date.now();
    first.worker.stop();
    await first.running;
    expect(first.aborted.map((a) => a.code)).toEqual(['WORKER_STOPPED']);
    const taken = await waitFor(async () => third.started[0], 'the item taken again', { everyMs: 10 });
    expect(taken.work.attempt).toBe(2);
    const handBackMs = taken.at - stopAt;
    const cancelAt = Date.now();
    await gql('mutation($j: ID!) { cancelJob(jobId: $j) { status } }', { j: jobId });
    await waitFor(async () => second.aborted.length === 1 && third.aborted.length === 1, 'both handlers aborted', { everyMs: 10 });
    const cancelMs = Math.max(second.aborted[0].at, third.aborted[0].at) - cancelAt;
    console.log(`TypeScript: stop() → claimed again ${handBackMs} ms (grace 200 ms); cancelJob → handlers aborted ${cancelMs} ms`);
    expect(handBackMs).toBeLessThan(1000);
    expect(second.aborted[0].code).toBe('JOB_CANCELLED');
    expect(cancelMs).toBeLessThan(1000);
    for (const w of [second, third]) w.worker.stop();
    await Promise.all([second.running, third.running]);
  });
  // The server's own push, without an SDK: the latency bound of workSignals (test/e2e/work-signals.test.ts
  // has its other behaviours, which bound no latency and run beside other files).
  it('workSignals starts with whether work is claimable, then pushes new work within 200 ms of createJob committing it, to its own tenant only', async () => {
    const SIGNALS = `subscription($kinds: [String!], $stages: [String!]) {
      workSignals(kinds: $kinds, stages: $stages) { type tenantId kind stage count available jobId } }`;
    type Signal = {
      type: string;
      tenantId: string | null;
      kind: string | null;
      stage: string | null;
      count: number | null;
      available: boolean | null;
      jobId: string | null;
    };
    /** A tenant of its own with an editor, a project, its workers and BATCH jobs of one item. */
    const tenant = async (name: string) => {
      const owner = await server.token(name, [Role.EDITOR], 'artist');
      const project = (await gql('mutation { createProject(input: { title: "Signals" }) { projectId } }', {}, owner)).createProject
        .projectId;
      return {
        worker: (n: number) => server.token(name, [Role.WORKER], `worker-${n}`),
        batch: async () =>
          (
            await gql(
              'mutation($input: CreateJobInput!) { createJob(input: $input) { jobId } }',
              {
                input: {
                  projectId: project,
                  kind: 'BATCH',
                  inputs: { label: String(Math.random()) },
                  items: [{ source: `tenants/${name}/in/0.png` }],
                },
              },
              owner,
            )
          ).createJob.jobId as string,
      };
    };
    const listen = async (token: string, kinds: string[], stages: string[] | null = null) => {
      const sub = subscribe<Signal>(wsClient(server.url, token), SIGNALS, { kinds, stages });
      const first = await sub.ack;
      return { sub, first };
    };
    const t = await tenant('signals-a');
    const other = await tenant('signals-b');
    const { sub, first } = await listen(await t.worker(1), ['BATCH']);
    expect(first).toMatchObject({ type: 'SUBSCRIBED', available: false });
    const { sub: otherSub } = await listen(await other.worker(1), ['BATCH']);
    // Twenty jobs, one at a time, after one that warms the path up: pushed within 200 ms of
    // createJob committing the job (the figures are printed), when its work became claimable
    // (watchJobCreations), not from before the request: the request's way in and the commit's own
    // DynamoDB calls are not the push's delay, and on a loaded machine they alone took 228-588 ms at
    // the median (from the job's createdAt, its read of the stream heads and its transaction still
    // took 339-412 ms), where the push from the commit took tens of ms.
    await t.batch();
    await sub.waitFor(1);
    const { committedAt } = watchJobCreations(server.app.store);
    const delays: number[] = [];
    const answers: number[] = [];
    for (let i = 1; i <= 20; i++) {
      const sent = performance.now();
      const created = t.batch().then((jobId) => {
        answers.push(performance.now() - sent);
        return jobId;
      });
      const signal = (await sub.waitFor(i + 1))[i];
      const heardAt = Date.now();
      expect(signal).toMatchObject({ type: 'WORK_AVAILABLE', tenantId: 'signals-a', kind: 'BATCH', stage: 'process', count: 1 });
      const jobId = await created;
      expect(signal.jobId).toBe(jobId);
      delays.push(heardAt - committedAt(jobId));
    }
    delays.sort((a, b) => a - b);
    answers.sort((a, b) => a - b);
    console.log(
      `createJob committed → WORK_AVAILABLE over 20 jobs: p50 ${delays[10]} ms, max ${delays[19]} ms (createJob's own answer: p50 ${answers[10].toFixed(0)} ms, max ${answers[19].toFixed(0)} ms)`,
    );
    // Within 200 ms at the median; the slowest bounded at a second, as the two cores this runs on are
    // shared.
    expect(delays[10]).toBeLessThan(200);
    expect(delays[19]).toBeLessThan(1000);
    // The other tenant's worker heard nothing of it; a new subscription sees the work waiting, and
    // one to a kind the tenant has no work of sees none.
    expect(otherSub.received).toEqual([]);
    expect((await listen(await t.worker(2), ['BATCH'], ['process'])).first).toMatchObject({ type: 'SUBSCRIBED', available: true });
    expect((await listen(await t.worker(3), ['MUSIC_VIDEO'])).first).toMatchObject({ type: 'SUBSCRIBED', available: false });
  });

  describe('a lost worker process (bound by its workerId)', () => {
    /** The bound workers' registry of the server (src/events/bound-workers.ts). */
    const bound = () => workSignalHubOf(server.app.bus).bound;
    const itemOf = async (jobId: string, sequence: number) =>
      (await jobOf(jobId)).items.nodes.find((n: { sequence: number }) => n.sequence === sequence);

    it('SIGKILLed with an item in hand: the server hands it back after the grace and an idle worker claims it within grace + 1 s, the 60 s lease unexpired; nothing is held after', async () => {
      const jobId = await batch([{ hold: { 1: 60 } }]);
      const killed = await python('py-killed');
      await killed.until((l) => l.event === 'claimed' && l.attempt === 1, 'the claim of attempt 1');
      await waitFor(async () => bound().held === 1, 'the claim bound to its subscription', { everyMs: 10 });
      const idle = await python('py-idle');
      await idle.until((l) => l.event === 'idle', 'the other worker idle');
      const killAt = Date.now();
      killed.child.kill('SIGKILL');
      expect(await killed.exited).toMatchObject({ signal: 'SIGKILL' });
      const taken = await idle.until((l) => l.event === 'claimed' && l.attempt === 2, 'the item claimed again');
      const handBackMs = taken.at * 1000 - killAt;
      console.log(`Python: SIGKILL → claimed again ${handBackMs.toFixed(0)} ms (WORKER_GRACE_SECONDS ${GRACE_SECONDS})`);
      // Not before the grace (the killed worker could not hand back; a lease of 60 s had 59 s to run).
      expect(handBackMs).toBeGreaterThanOrEqual(GRACE_SECONDS * 1000 - 20);
      expect(handBackMs).toBeLessThan(GRACE_SECONDS * 1000 + 1000);
      // Attempt 2 is not held (the fixture holds attempt 1 only): the idle worker completes it.
      expect((await finished(jobId, idle)).items.nodes[0]).toMatchObject({ status: 'COMPLETED', attempt: 2, worker: 'py-idle' });
      idle.child.kill('SIGTERM');
      expect(await idle.exited).toMatchObject({ code: 0 });
      await waitFor(async () => bound().count === 0 && bound().held === 0, 'every bound worker released', { everyMs: 10 });
    });

    it('over WebSocket: completing the subscription hands nothing back; a socket dropped and subscribed again within the grace keeps its item; one dropped for good (1006, no close frame) is handed back after the grace', async () => {
      const jobId = await batch([{}, {}, {}]);
      const token = await workerToken('ws-worker');
      const SIGNALS = 'subscription($w: String) { workSignals(kinds: ["BATCH"], workerId: $w) { type } }';
      const CLAIM = 'mutation($w: String) { claimWork(kind: "BATCH", workerId: $w) { item { sequence attempt } } }';
      const lost = bound().lostConnections;
      const clean = subscribe(wsClient(server.url, token), SIGNALS, { w: 'ws-clean' });
      await clean.ack;
      const kept = (await gql(CLAIM, { w: 'ws-clean' }, token)).claimWork.item;
      expect(bound().held).toBe(1);
      clean.stop();
      // Forgotten at once, with no grace: nothing of it is left to hand back.
      await waitFor(async () => bound().count === 0 && bound().held === 0, 'the clean end forgotten', { everyMs: 10 });
      expect(bound().lostConnections).toBe(lost);
      const proxy = await startTcpProxy(server.url);
      const through = `${proxy.url}${new URL(server.url).pathname}`;
      // Dropped, then subscribed again (directly) within the grace: the grace is called off and the item stays held.
      const blip = subscribe(wsClient(through, token), SIGNALS, { w: 'ws-blip' });
      await blip.ack;
      const stays = (await gql(CLAIM, { w: 'ws-blip' }, token)).claimWork.item;
      proxy.cut();
      await waitFor(async () => bound().graces === 1, 'the grace started', { everyMs: 10 });
      const back = subscribe(wsClient(server.url, token), SIGNALS, { w: 'ws-blip' });
      await back.ack;
      expect({ graces: bound().graces, held: bound().held, lost: bound().lostConnections }).toEqual({ graces: 0, held: 1, lost: lost + 1 });
      back.stop();
      await waitFor(async () => bound().count === 0 && bound().held === 0, 'the clean end forgotten', { everyMs: 10 });
      expect(await itemOf(jobId, stays.sequence)).toMatchObject({ status: 'RUNNING', attempt: 1 });
      const dropped = subscribe(wsClient(through, token), SIGNALS, { w: 'ws-lost' });
      await dropped.ack;
      const given = (await gql(CLAIM, { w: 'ws-lost' }, token)).claimWork.item;
      expect(bound().held).toBe(1);
      const cutAt = Date.now();
      proxy.cut();
      await waitFor(async () => (await itemOf(jobId, given.sequence))?.status === 'PENDING', 'the dropped worker’s item handed back', {
        everyMs: 50,
      });
      const handBackMs = Date.now() - cutAt;
      expect(bound().lostConnections).toBe(lost + 2);
      expect(handBackMs).toBeGreaterThanOrEqual(GRACE_SECONDS * 1000 - 20);
      expect(handBackMs).toBeLessThan(GRACE_SECONDS * 1000 + 1000);
      expect(await itemOf(jobId, kept.sequence)).toMatchObject({ status: 'RUNNING', attempt: 1 });
      await waitFor(async () => bound().count === 0 && bound().held === 0, 'every bound worker released', { everyMs: 10 });
    });
  });
});
