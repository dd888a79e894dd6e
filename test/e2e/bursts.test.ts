import WebSocket from 'ws';
import { CreateJobDocument, CreateProjectDocument, ReportStepProgressDocument, StartStepDocument } from '../../src/client/gql/graphql';
import { dataOf, Role, startTestServer, type TestServer } from '../support/server';
import { eventually } from '../support/ws';
import { registerFixture } from '../support/fixtures';

/*
 * Many subscribers at once on one stream, each on its own socket with one jobProgress
 * subscription (as a fleet of browsers, or the fan-out benchmark): a burst of subscribes, then
 * events fanned out to all of them. Real graphql-transport-ws sockets, the real server, DynamoDB
 * Local; the DynamoDB calls are the server's own counter (app.calls).
 */

const QUERY =
  'subscription($jobId: ID!, $afterSeq: Int) { jobProgress(jobId: $jobId, afterSeq: $afterSeq) { seq type job { status progress } } }';

interface Subscriber {
  ws: WebSocket;
  /** Every `next` payload's jobProgress, the acknowledgement first. */
  received: Array<{ seq: number; type: string }>;
  errors: unknown[];
}

/**
 * A graphql-transport-ws socket to the server, registered with the fixture registry: a test that
 * fails before its own `closeAll` leaves none open for the next test's counts.
 */
function socket(url: string): WebSocket {
  const ws = new WebSocket(url.replace(/^http/, 'ws'), 'graphql-transport-ws');
  registerFixture('subscriber socket', () => ws.terminate());
  return ws;
}

/** Opens one socket, initialises it and subscribes once; resolves when the subscription is acknowledged. */
function subscriber(url: string, token: string, jobId: string): Promise<Subscriber> {
  return new Promise((resolve, reject) => {
    const ws = socket(url);
    const self: Subscriber = { ws, received: [], errors: [] };
    ws.on('error', reject);
    ws.on('open', () => ws.send(JSON.stringify({ type: 'connection_init', payload: { authorization: `Bearer ${token}` } })));
    ws.on('message', (data) => {
      const message = JSON.parse(data.toString());
      if (message.type === 'connection_ack') {
        ws.send(JSON.stringify({ type: 'subscribe', id: '1', payload: { query: QUERY, variables: { jobId } } }));
      } else if (message.type === 'next') {
        if (message.payload.errors) self.errors.push(...message.payload.errors);
        else self.received.push(message.payload.data.jobProgress);
        if (self.received.length === 1) resolve(self);
      } else if (message.type === 'error') {
        self.errors.push(message.payload);
        reject(new Error(JSON.stringify(message.payload)));
      }
    });
    ws.on('close', (code) => reject(new Error(`closed with ${code}`)));
  });
}

/** Opens one socket and initialises it; `subscribe` then sends one subscription and resolves once it is acknowledged. */
function initialised(
  url: string,
  token: string,
): Promise<{ ws: WebSocket; subscribe(jobId: string, afterSeq?: number): Promise<Subscriber> }> {
  return new Promise((resolve, reject) => {
    const ws = socket(url);
    const self: Subscriber = { ws, received: [], errors: [] };
    let acknowledged: ((s: Subscriber) => void) | undefined;
    let failed: ((e: Error) => void) | undefined;
    ws.on('error', reject);
    ws.on('open', () => ws.send(JSON.stringify({ type: 'connection_init', payload: { authorization: `Bearer ${token}` } })));
    ws.on('message', (data) => {
      const message = JSON.parse(data.toString());
      if (message.type === 'connection_ack') {
        resolve({
          ws,
          subscribe: (jobId, afterSeq) =>
            new Promise<Subscriber>((ok, fail) => {
              acknowledged = ok;
              failed = fail;
              ws.send(JSON.stringify({ type: 'subscribe', id: '1', payload: { query: QUERY, variables: { jobId, afterSeq } } }));
            }),
        });
      } else if (message.type === 'next') {
        if (message.payload.errors) self.errors.push(...message.payload.errors);
        else self.received.push(message.payload.data.jobProgress);
        if (self.received.length === 1) acknowledged?.(self);
      } else if (message.type === 'error') {
        self.errors.push(message.payload);
        failed?.(new Error(JSON.stringify(message.payload)));
      }
    });
  });
}

describe('bursts of subscribers on one stream', () => {
  let server: TestServer;
  let editor: string;
  let worker: string;
  let projectId: string;
  const warnings: Error[] = [];
  const onWarning = (warning: Error) => warnings.push(warning);

  beforeAll(async () => {
    // No periodic sweeps: the burst test counts every DynamoDB call the server makes.
    // A replay bound of 150 events, so that the test can go past it.
    server = await startTestServer({
      env: {
        WS_KEEPALIVE_MS: '600000',
        OUTBOX_SWEEP_MS: '3600000',
        // Nor job-settle sweeps or system-job looks, whose Queries would land in a burst that a
        // loaded machine stretches past their interval.
        JOB_SETTLE_SWEEP_MS: '3600000',
        SYSTEM_JOB_IDLE_MS: '3600000',
        REPLAY_MAX_EVENTS: '150',
        // A thousand subscribes of one tenant (and one user) in well under a second: a plan that
        // allows that many, since the free plan's 300 a second would refuse most of the burst.
        PLAN_LIMITS: JSON.stringify({ free: { requestsPerSecond: 100_000, userRequestsPerSecond: 100_000 } }),
      },
    });
    editor = await server.token('burst', [Role.EDITOR]);
    worker = await server.token('burst', [Role.WORKER]);
    projectId = dataOf(await server.request(CreateProjectDocument, { input: { title: 'Burst' } }, editor)).createProject.projectId;
    process.on('warning', onWarning);
    registerFixture('process warning listener', () => process.off('warning', onWarning));
  });

  async function runningJob(): Promise<string> {
    const { jobId } = dataOf(
      await server.request(CreateJobDocument, { input: { projectId, kind: 'K', steps: ['work'], inputs: { n: Math.random() } } }, editor),
    ).createJob;
    dataOf(await server.request(StartStepDocument, { jobId, stepName: 'work' }, worker));
    return jobId;
  }

  async function closeAll(subscribers: Subscriber[]): Promise<void> {
    for (const s of subscribers) s.ws.close();
    await eventually(
      () => server.app.counts(),
      (c) => c.graphql_ws_connections === 0 && c.event_bus_listeners === 0,
      30_000,
    );
  }

  it('serves a burst of subscribes to one job with a few shared head reads, every one acknowledged at the same seq', async () => {
    const N = 1000;
    const jobId = await runningJob();
    // Every socket connected and acknowledged first, so that the subscribes themselves come as one burst.
    const sockets: Array<{ ws: WebSocket; subscribe(jobId: string, afterSeq?: number): Promise<Subscriber> }> = [];
    for (let i = 0; i < N; i += 200) {
      sockets.push(...(await Promise.all(Array.from({ length: Math.min(200, N - i) }, () => initialised(server.url, editor)))));
    }
    await server.resetCalls();
    const executionsBefore = server.app.pipeline.subscriptions.sharedExecutions;
    const started = performance.now();
    const subscribers = await Promise.all(sockets.map((s) => s.subscribe(jobId)));
    const seconds = (performance.now() - started) / 1000;
    const calls = Object.fromEntries(server.app.calls.byCommand);
    const executions = server.app.pipeline.subscriptions.sharedExecutions - executionsBefore;
    console.log(`burst: ${N} subscribes acknowledged in ${seconds.toFixed(2)} s with DynamoDB calls ${JSON.stringify(calls)}`);
    expect(subscribers.map((s) => s.received[0])).toEqual(subscribers.map(() => ({ seq: 2, type: 'SUBSCRIBED', job: null })));
    // Only the job's head is read, shared: at most one read per 20 ms of the burst (and far fewer
    // than one per subscribe). The bound scales with the burst's length, not with its size.
    expect(Object.keys(calls)).toEqual(['GetItemCommand']);
    expect(calls.GetItemCommand).toBeLessThanOrEqual(Math.min(N / 10, Math.ceil((seconds * 1000) / 20) + 1));
    // The subscribers of one head read are acknowledged together with one message, executed once
    // for them all: at most one execution per read, not one per subscriber.
    expect(executions).toBeGreaterThanOrEqual(1);
    expect(executions).toBeLessThanOrEqual(calls.GetItemCommand);
    // No subscriber missed an event committed while the burst was served.
    dataOf(await server.request(ReportStepProgressDocument, { jobId, stepName: 'work', progress: 0.5 }, worker));
    await eventually(
      () => subscribers.filter((s) => s.received.length === 2).length,
      (n) => n === N,
      30_000,
    );
    expect(new Set(subscribers.map((s) => s.received[1].seq))).toEqual(new Set([3]));
    await closeAll(subscribers);
  });

  it('replays to many clients resuming one job at once a page at a time, sharing the reads; past the replay bound, history lost', async () => {
    const jobId = await runningJob();
    // 160 events in all: the job's start (2), then progress reports.
    for (let i = 1; i <= 158; i++)
      dataOf(await server.request(ReportStepProgressDocument, { jobId, stepName: 'work', progress: i / 1000 }, worker));
    const CLIENTS = 40;
    const sockets = await Promise.all(Array.from({ length: CLIENTS }, () => initialised(server.url, editor)));
    await server.resetCalls();
    // From 20: 140 events, two pages of the replay (100 at a time), under the bound of 150.
    const resumed = await Promise.all(sockets.map((s) => s.subscribe(jobId, 20)));
    await eventually(
      () => resumed.filter((s) => s.received.length === 141).length,
      (n) => n === CLIENTS,
      60_000,
    );
    const calls = Object.fromEntries(server.app.calls.byCommand);
    console.log(`${CLIENTS} clients resuming 140 events: DynamoDB calls ${JSON.stringify(calls)}`);
    const expected = JSON.stringify([20, ...Array.from({ length: 140 }, (_, i) => i + 21)]);
    expect(new Set(resumed.map((s) => JSON.stringify(s.received.map((e) => e.seq))))).toEqual(new Set([expected]));
    // Shared: fewer page reads than clients (unshared, two each: 80).
    expect(calls.QueryCommand).toBeLessThan(CLIENTS);
    await closeAll(resumed);

    // From 5: 155 events behind, past the bound: the acknowledgement at the head, then history lost, then live.
    const far = await initialised(server.url, editor);
    const lost = await far.subscribe(jobId, 5);
    await eventually(
      () => lost.received.length,
      (n) => n >= 2,
      10_000,
    );
    expect(lost.received.slice(0, 2)).toEqual([
      { seq: 160, type: 'SUBSCRIBED', job: null },
      { seq: 160, type: 'HISTORY_LOST', job: null },
    ]);
    expect(lost.errors).toEqual([]);
    await closeAll([lost]);
  });

  it('fans events out to many subscribers without any process warning (no listener per call on a shared signal)', async () => {
    const N = 600;
    const jobId = await runningJob();
    const subscribers: Subscriber[] = [];
    // 200 at a time, as the fan-out benchmark opens them.
    for (let i = 0; i < N; i += 200) {
      subscribers.push(...(await Promise.all(Array.from({ length: Math.min(200, N - i) }, () => subscriber(server.url, editor, jobId)))));
    }
    for (let round = 1; round <= 3; round++) {
      dataOf(await server.request(ReportStepProgressDocument, { jobId, stepName: 'work', progress: round / 10 }, worker));
      await eventually(
        () => subscribers.filter((s) => s.received.length === round + 1).length,
        (n) => n === N,
        30_000,
      );
    }
    // Every subscriber: the acknowledgement at seq 2, then seq 3, 4, 5 in order.
    expect(new Set(subscribers.map((s) => JSON.stringify(s.received.map((e) => e.seq))))).toEqual(new Set(['[2,3,4,5]']));
    expect(subscribers.flatMap((s) => s.errors)).toEqual([]);
    expect(warnings.map((w) => `${w.name}: ${w.message}`)).toEqual([]);
    // Every batch was handed on, and its share key's tail let go.
    const { subscriptions } = server.app.pipeline;
    expect(subscriptions.results.handedOver).toBeGreaterThan(0);
    await eventually(
      () => subscriptions.batchTailCount(),
      (n) => n === 0,
    );
    await closeAll(subscribers);
    // The subscribers' share group goes with the last of them.
    expect(server.app.pipeline.subscriptions.shareGroupCount()).toBe(0);
  });
});
