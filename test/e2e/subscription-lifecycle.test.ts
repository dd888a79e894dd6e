import { request } from 'node:http';
import type { Socket } from 'node:net';
import { runInNewContext } from 'node:vm';
import { setFlagsFromString } from 'node:v8';
import {
  CancelJobDocument,
  CompleteStepDocument,
  CreateJobDocument,
  CreateProjectDocument,
  FailStepDocument,
  ReportStepProgressDocument,
  RetryJobDocument,
  StartStepDocument,
} from '../../src/client/gql/graphql';
import type { ServerCounts, ServerHeld } from '../../src/app';
import { workSignalHubOf } from '../../src/events/work-signals';
import { Worker } from '../../sdk/typescript/src/index';
import { signDevToken } from '../../src/auth/jwt';
import { MAX_FRAMES_IN_FLIGHT } from '../../src/http/direct-delivery';
import { dataOf, Role, startTestServer, TEST_SECRET, type TestServer } from '../support/server';
import { captureLogs } from '../support/logs';
import { eventually, JOB_PROGRESS, metricValue, rawConnection, rawSocket, subscribe, wsClient, type RawSocket } from '../support/ws';
import { restoredAfter, stopOnPurpose } from '../support/fixtures';

/*
 * What happens after a subscription ends. Every test reads what the server holds (open sockets,
 * live operations, event-bus listeners) before and after, and looks at the frames a client gets.
 */

const ZERO: ServerCounts = { graphql_ws_connections: 0, graphql_ws_subscriptions: 0, graphql_sse_streams: 0, event_bus_listeners: 0 };
const NOTHING_HELD: ServerHeld = { lease_watches: 0, bound_workers: 0, rate_draws: 0, rate_sockets: 0, bus_connections: 0 };

/** A forced full GC; `--expose-gc` is switched on at run time so a plain `jest` run can do it too. */
function collectGarbage(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const WORK_SIGNALS = 'subscription { workSignals(kinds: ["BATCH"]) { type available } }';

/**
 * Creates a BATCH job of one item in `tenantId`'s project: its WORK_AVAILABLE starts a lease watch
 * of the job's stage on a server with a workSignals subscriber of BATCH (WorkSignalHub.watch).
 */
async function batchJob(server: TestServer, editor: string, tenantId: string, projectId: string): Promise<void> {
  const input = { projectId, kind: 'BATCH', inputs: { label: String(Math.random()) }, items: [{ source: `tenants/${tenantId}/in/0.png` }] };
  const { body } = await server.raw(
    { query: 'mutation($input: CreateJobInput!) { createJob(input: $input) { jobId } }', variables: { input } },
    editor,
  );
  expect(body.errors).toBeUndefined();
}

/**
 * A worker's workSignals over SSE on a socket of its own (no agent), as the SDKs hold it; resolves
 * with that socket once SUBSCRIBED arrived, for the test to destroy.
 */
function sseWorkSignals(url: string, token: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        agent: false,
        headers: { accept: 'text/event-stream', 'content-type': 'application/json', authorization: `Bearer ${token}` },
      },
      (res) => {
        // The socket is destroyed on purpose: the response's abort is expected, not a failure.
        res.on('error', () => {});
        res.on('data', (chunk: Buffer) => {
          if (chunk.toString().includes('SUBSCRIBED')) resolve(res.socket);
        });
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify({ query: WORK_SIGNALS }));
  });
}

describe('subscriptions end when they should', () => {
  let server: TestServer;
  let editor: string;
  let worker: string;
  let projectId: string;
  const counts = () => server.app.counts();
  const settled = () => eventually(counts, (c) => JSON.stringify(c) === JSON.stringify(ZERO));

  beforeAll(async () => {
    // Keep-alive is short so the dropped-peer case is quick, but not so short that a busy machine's
    // own lag (clients and server share this process) drops healthy test sockets.
    server = await startTestServer({ env: { WS_MAX_SUBSCRIPTIONS: '10', WS_KEEPALIVE_MS: '1000' } });
    editor = await server.token('life', [Role.EDITOR]);
    worker = await server.token('life', [Role.WORKER]);
    projectId = dataOf(await server.request(CreateProjectDocument, { input: { title: 'Lifecycle' } }, editor)).createProject.projectId;
  });
  afterEach(() => settled());

  /** A job with one step started (seq 2), ready to report progress events. */
  async function runningJob(steps = ['work']): Promise<string> {
    const { jobId } = dataOf(
      await server.request(CreateJobDocument, { input: { projectId, kind: 'K', steps, inputs: { n: Math.random() } } }, editor),
    ).createJob;
    await server.request(StartStepDocument, { jobId, stepName: steps[0] }, worker);
    return jobId;
  }

  async function progress(jobId: string, n: number, step = 'work'): Promise<void> {
    for (let i = 1; i <= n; i++)
      dataOf(await server.request(ReportStepProgressDocument, { jobId, stepName: step, progress: i / (n + 1) }, worker));
  }

  const subscribeFrame = (id: string, jobId: string, afterSeq: number | null) => ({
    type: 'subscribe',
    id,
    payload: {
      query: 'subscription($jobId: ID!, $afterSeq: Int) { jobProgress(jobId: $jobId, afterSeq: $afterSeq) { seq type job { status } } }',
      variables: { jobId, afterSeq },
    },
  });
  const nextsFor = (socket: RawSocket, id: string) => socket.log.filter(({ message }) => message.type === 'next' && message.id === id);

  it('sends nothing for an id after the client completes it, and releases it at once', async () => {
    const jobId = await runningJob();
    const socket = await rawConnection(server.url, editor);
    socket.send(subscribeFrame('a', jobId, 2));
    // The acknowledgement comes first, with the seq the subscription starts from.
    expect((await socket.next('next', 5000, 'a')).payload.data.jobProgress).toEqual({ seq: 2, type: 'SUBSCRIBED', job: null });
    await progress(jobId, 1);
    expect((await socket.next('next', 5000, 'a')).payload.data.jobProgress.seq).toBe(3);
    expect(counts()).toEqual({ graphql_ws_connections: 1, graphql_ws_subscriptions: 1, graphql_sse_streams: 0, event_bus_listeners: 1 });
    // The same counts are the Prometheus gauges (named with the server's prefix).
    for (const [name, value] of Object.entries(counts())) expect(await metricValue(server.url, `artissist_${name}`)).toBe(value);

    socket.send({ type: 'complete', id: 'a' });
    const completedAt = Date.now();
    await eventually(counts, (c) => c.graphql_ws_subscriptions === 0 && c.event_bus_listeners === 0, 1000);
    expect(await metricValue(server.url, 'artissist_graphql_ws_subscriptions')).toBe(0);
    expect(await metricValue(server.url, 'artissist_event_bus_listeners')).toBe(0);
    // A second socket follows the same job, so we know when the next 20 events have all been published.
    const witness = await rawConnection(server.url, editor);
    witness.send(subscribeFrame('w', jobId, 3));
    await progress(jobId, 20);
    await eventually(
      () => nextsFor(witness, 'w').length,
      (n) => n === 21,
      5000,
    );
    witness.ws.close();

    expect(socket.log.filter(({ at, message }) => message.id === 'a' && at >= completedAt)).toEqual([]);
    expect(nextsFor(socket, 'a')).toHaveLength(2);
    expect(socket.ws.readyState).toBe(socket.ws.OPEN);
    socket.ws.close();
  });

  it('delivers each event exactly once to an id reused after complete', async () => {
    const jobId = await runningJob();
    const socket = await rawConnection(server.url, editor);
    socket.send(subscribeFrame('same', jobId, 2));
    await progress(jobId, 1);
    await socket.next('next', 5000, 'same');
    await socket.next('next', 5000, 'same');
    socket.send({ type: 'complete', id: 'same' });
    socket.send(subscribeFrame('same', jobId, 3));
    await progress(jobId, 20);
    const frames = () =>
      nextsFor(socket, 'same').map(({ message }) => [message.payload.data.jobProgress.type, message.payload.data.jobProgress.seq]);
    await eventually(
      () => frames().flatMap(([type, seq]) => (type === 'SUBSCRIBED' ? [] : [seq as number])),
      (s) => s.length >= 21,
      5000,
    );
    // One more event, written after the 21 were delivered: a late or repeated frame of those 21 is
    // sent on this socket before it, so once it is here every such frame would be here too.
    await progress(jobId, 1);
    const seqs = await eventually(
      () => frames().flatMap(([type, seq]) => (type === 'SUBSCRIBED' ? [] : [seq as number])),
      (s) => s.includes(24),
      5000,
    );
    // Each subscription under the id was acknowledged once, at the seq it started from.
    expect(frames().filter(([type]) => type === 'SUBSCRIBED')).toEqual([
      ['SUBSCRIBED', 2],
      ['SUBSCRIBED', 3],
    ]);
    expect(frames().flatMap(([type, seq]) => (type === 'SUBSCRIBED' ? [] : [seq]))).toEqual(seqs);
    expect(seqs).toEqual(Array.from({ length: 22 }, (_, i) => i + 3));
    expect(counts()).toMatchObject({ graphql_ws_subscriptions: 1, event_bus_listeners: 1 });
    socket.ws.close();
  });

  it('counts only live operations against the per-socket limit', async () => {
    const jobId = await runningJob();
    const socket = await rawConnection(server.url, editor);
    for (let i = 1; i <= 10; i++) socket.send(subscribeFrame(`s${i}`, jobId, null));
    await eventually(counts, (c) => c.event_bus_listeners === 10);
    for (let i = 1; i <= 4; i++) socket.send({ type: 'complete', id: `s${i}` });
    await eventually(counts, (c) => c.graphql_ws_subscriptions === 6 && c.event_bus_listeners === 6);
    for (let i = 11; i <= 14; i++) socket.send(subscribeFrame(`s${i}`, jobId, null));
    await eventually(counts, (c) => c.event_bus_listeners === 10);
    socket.send(subscribeFrame('s15', jobId, null));
    const refused = await socket.next('error', 5000, 's15');
    expect(refused.payload[0].message).toMatch(/At most 10 operations/);
    expect(socket.messages.filter((m) => m.type === 'error')).toEqual([]);
    expect(counts()).toMatchObject({ graphql_ws_subscriptions: 10, event_bus_listeners: 10 });
    socket.ws.close();
  });

  it('ends every operation of a socket that closes cleanly, is terminated, or is closed by the server', async () => {
    const jobId = await runningJob();
    const open = async (token = editor, options = {}) => {
      const socket = await rawConnection(server.url, token, options);
      for (const id of ['x', 'y', 'z']) socket.send(subscribeFrame(id, jobId, null));
      await eventually(counts, (c) => c.event_bus_listeners === 3);
      return socket;
    };
    (await open()).ws.close();
    await settled();
    (await open()).ws.terminate();
    await settled();

    // The server closes it: the token expires.
    const shortLived = await signDevToken(
      new TextEncoder().encode(TEST_SECRET),
      { sub: 'brief', tenantId: 'life' },
      { expiresIn: Math.floor(Date.now() / 1000) + 2 },
    );
    const expiring = await open(shortLived);
    expect((await expiring.closed).code).toBe(4403);
    await settled();

    // The server closes it: a peer that stops answering pings (WS_KEEPALIVE_MS is 1000 here).
    const silent = await open(editor, { autoPong: false });
    expect((await silent.closed).code).toBe(1006);
    await settled();
  });

  it('releases a worker’s workSignals subscription when it is completed, when its socket is destroyed, and when an SDK worker stops', async () => {
    // The server's own count of live work-signal subscriptions (the tests share its process).
    const hub = workSignalHubOf(server.app.bus);
    const holds = (n: number) =>
      eventually(
        () => hub.size,
        (size) => size === n,
      );
    const released = () => holds(0);
    const subscribeFrame = (id: string) => ({ type: 'subscribe', id, payload: { query: WORK_SIGNALS } });

    // graphql-ws: completed by the client, then held on a socket destroyed with no close frame.
    const socket = await rawConnection(server.url, worker);
    socket.send(subscribeFrame('w'));
    expect((await socket.next('next', 5000, 'w')).payload.data.workSignals.type).toBe('SUBSCRIBED');
    expect(hub.size).toBe(1);
    socket.send({ type: 'complete', id: 'w' });
    await released();
    socket.send(subscribeFrame('v'));
    await socket.next('next', 5000, 'v');
    expect(hub.size).toBe(1);
    // New work: the subscriber is told, and the server watches the job's stage for a lease running out.
    await batchJob(server, editor, 'life', projectId);
    expect((await socket.next('next', 5000, 'v')).payload.data.workSignals.type).toBe('WORK_AVAILABLE');
    expect(server.app.held().lease_watches).toBe(1);
    socket.ws.terminate();
    await released();
    // The watch went with the topic's last subscriber: no timer is left to read the job.
    expect(server.app.held().lease_watches).toBe(0);

    // SSE, as the SDKs hold it: a stream whose socket is destroyed.
    const sse = await sseWorkSignals(server.url, worker);
    expect(hub.size).toBe(1);
    sse.destroy();
    await released();

    // The TypeScript SDK's worker: its subscription ends with stop() (the client ends its SSE request).
    const sdk = new Worker({ url: server.url, token: worker, handleSignals: false, log: () => {} });
    sdk.stage('BATCH', 'process', () => ({}));
    const running = sdk.run();
    await holds(1);
    sdk.stop();
    await running;
    await released();
  });

  it('survives 1,000 connect-subscribe-disconnect cycles holding nothing afterwards', async () => {
    const jobId = await runningJob();
    const modes = ['close', 'terminate', 'complete-then-close', 'close-right-after-subscribe'] as const;
    const cycle = async (i: number) => {
      const socket = await rawConnection(server.url, editor);
      const mode = modes[i % modes.length];
      socket.send(subscribeFrame('c', jobId, 0));
      // The first answer: the replayed event, or (on a machine so busy that DynamoDB Local times out)
      // an error; or the socket's end, should keep-alive drop a client this very process was too busy to answer.
      if (mode !== 'close-right-after-subscribe') {
        await Promise.race([
          socket.closed,
          eventually(
            () => socket.log.some(({ message }) => message.id === 'c'),
            (seen) => seen,
            60_000,
          ),
        ]);
      }
      if (mode === 'complete-then-close') socket.send({ type: 'complete', id: 'c' });
      if (mode === 'terminate') socket.ws.terminate();
      else socket.ws.close();
      await socket.closed;
    };
    const cycles = async (n: number) => {
      let next = 0;
      await Promise.all(
        Array.from({ length: 10 }, async () => {
          while (next < n) await cycle(next++);
        }),
      );
      return eventually(counts, (c) => JSON.stringify(c) === JSON.stringify(ZERO), 15_000);
    };
    await cycles(200); // warm-up: compiled code, caches and pools reach their steady size
    collectGarbage();
    const before = process.memoryUsage().heapUsed;
    expect(await cycles(1000)).toEqual(ZERO);
    collectGarbage();
    // Between the two collections, a moment for what the first one let go of to be finished on
    // later turns (finalizers, native handles closed): the heap's size has no event to await.
    await sleep(100);
    collectGarbage();
    const grown = process.memoryUsage().heapUsed - before;
    // eslint-disable-next-line no-console
    console.log(`1,000 cycles: heap ${(grown / 1e6).toFixed(2)} MB after a forced GC; counts ${JSON.stringify(counts())}`);
    expect(grown).toBeLessThan(5 * 1024 * 1024);
  }, 300_000);

  it('completes jobProgress after a COMPLETED or CANCELLED job’s final event, and keeps it open on FAILED', async () => {
    const client = wsClient(server.url, editor);
    const completed = await runningJob(['only']);
    const toCompletion = subscribe(client, JOB_PROGRESS, { jobId: completed, afterSeq: 2 });
    await progress(completed, 1, 'only');
    await server.request(CompleteStepDocument, { jobId: completed, stepName: 'only' }, worker);
    await toCompletion.done;
    expect(toCompletion.received.map((e) => [e.seq, e.job.status])).toEqual([
      [3, 'RUNNING'],
      [4, 'COMPLETED'],
    ]);

    const cancelled = await runningJob();
    const toCancel = subscribe(client, JOB_PROGRESS, { jobId: cancelled, afterSeq: 2 });
    await server.request(CancelJobDocument, { jobId: cancelled }, editor);
    await toCancel.done;
    expect(toCancel.received.map((e) => [e.type, e.job.status])).toEqual([['JOB_CANCELLED', 'CANCELLED']]);

    // FAILED is not the end: retryJob runs the job again, and the same subscription sees it.
    const failing = dataOf(
      await server.request(
        CreateJobDocument,
        { input: { projectId, kind: 'K', steps: ['flaky'], maxAttempts: 1, inputs: { n: Math.random() } } },
        editor,
      ),
    ).createJob.jobId;
    await server.request(StartStepDocument, { jobId: failing, stepName: 'flaky' }, worker);
    const throughFailure = subscribe(client, JOB_PROGRESS, { jobId: failing, afterSeq: 2 });
    await server.request(FailStepDocument, { jobId: failing, stepName: 'flaky', code: 'OOM', message: 'out of memory' }, worker);
    await throughFailure.waitFor(1);
    expect(throughFailure.received[0].job.status).toBe('FAILED');
    // The window is the assertion: a server that took FAILED for the end would complete the
    // subscription right after sending it, and nothing marks the moment it did not.
    await sleep(200);
    expect(counts().graphql_ws_subscriptions).toBe(1);
    await server.request(RetryJobDocument, { jobId: failing }, editor);
    await server.request(StartStepDocument, { jobId: failing, stepName: 'flaky' }, worker);
    await server.request(CompleteStepDocument, { jobId: failing, stepName: 'flaky' }, worker);
    await throughFailure.done;
    expect(throughFailure.received.map((e) => e.job.status)).toEqual(['FAILED', 'RUNNING', 'RUNNING', 'COMPLETED']);
    expect(throughFailure.errors).toEqual([]);

    // A finished job: afterSeq 0 replays its whole history and completes; without a position it completes at once.
    const replayedBefore = await metricValue(server.url, 'artissist_events_replayed_total');
    const replay = subscribe(client, JOB_PROGRESS, { jobId: completed, afterSeq: 0 });
    await replay.done;
    expect(replay.received.map((e) => e.seq)).toEqual([1, 2, 3, 4]);
    expect(await metricValue(server.url, 'artissist_events_replayed_total')).toBe(replayedBefore + 4);
    const nothingLeft = subscribe(client, JOB_PROGRESS, { jobId: completed });
    await nothingLeft.done;
    expect(nothingLeft.received).toEqual([]);
    await client.dispose();
  });

  it('logs one line per WebSocket operation when it ends, with a request id on its errors and a metrics sample', async () => {
    const logs = captureLogs();
    const socket = await rawConnection(server.url, editor);
    const okBefore = await metricValue(server.url, 'artissist_graphql_operations_total{type="query",name="WhoAmI",code="OK"}');
    socket.send({ type: 'subscribe', id: 'q', payload: { query: 'query WhoAmI { viewer { tenantId } }' } });
    expect((await socket.next('next', 5000, 'q')).payload.data.viewer.tenantId).toBe('life');
    socket.send({
      type: 'subscribe',
      id: 'missing',
      payload: {
        query: 'mutation Cancel($jobId: ID!) { cancelJob(jobId: $jobId) { status } }',
        variables: { jobId: 'job_01ARZ3NDEKTSV4RRFFQ69G5FAV' },
      },
    });
    const failed = (await socket.next('next', 5000, 'missing')).payload.errors[0];
    expect(failed.extensions).toEqual(expect.objectContaining({ code: 'NOT_FOUND', requestId: expect.any(String) }));
    expect(failed.extensions.http).toBeUndefined();
    await socket.next('complete', 5000, 'missing');
    socket.send({ type: 'subscribe', id: 'invalid', payload: { query: 'query Broken { nope }' } });
    const invalid = (await socket.next('error', 5000, 'invalid')).payload[0];
    expect(invalid.extensions).toEqual(expect.objectContaining({ code: 'GRAPHQL_VALIDATION_FAILED', requestId: expect.any(String) }));
    const lines = await eventually(
      () => logs.entries().filter((e) => e.msg === 'graphql request'),
      (l) => l.length >= 3,
    );
    expect(lines.map(({ operationType, operationName, outcome }) => [operationType, operationName, outcome])).toEqual([
      ['query', 'WhoAmI', 'OK'],
      ['mutation', 'Cancel', 'NOT_FOUND'],
      [null, null, 'GRAPHQL_VALIDATION_FAILED'],
    ]);
    expect(lines[1].requestId).toBe(failed.extensions.requestId);
    expect(JSON.stringify(lines)).not.toContain('job_01ARZ3NDEKTSV4RRFFQ69G5FAV');
    expect(await metricValue(server.url, 'artissist_graphql_operations_total{type="query",name="WhoAmI",code="OK"}')).toBe(
      (okBefore || 0) + 1,
    );
    socket.ws.close();
  });

  it('closes protocol mistakes with 4400, answers over-deep variables with an error, and prints nothing', async () => {
    const consoleError = restoredAfter(jest.spyOn(console, 'error'));
    const stderr = restoredAfter(jest.spyOn(process.stderr, 'write'));
    for (const mistake of [{ type: 'connection_ack' }, { type: 'next', id: '1', payload: {} }, { type: 'whatever' }, 'not json']) {
      const socket = await rawConnection(server.url, editor);
      socket.send(mistake);
      expect((await socket.closed).code).toBe(4400);
    }
    const beforeInit = await rawSocket(server.url);
    beforeInit.send({ type: 'connection_ack' });
    expect((await beforeInit.closed).code).toBe(4400);

    // A pong may be sent at any time (the protocol allows unsolicited pongs as a heartbeat).
    const socket = await rawConnection(server.url, editor);
    socket.send({ type: 'pong' });
    socket.send({ type: 'pong', payload: { at: 1 } });
    // A ping is answered with a bare pong: its payload is not echoed, so no payload can overflow the server.
    socket.send(`{"type":"ping","payload":${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}}`);
    expect(await socket.next('pong')).toEqual({ type: 'pong' });
    // Variables nested far too deep for any argument: an error for that operation, the socket stays.
    // (Written as text: JSON.stringify itself would overflow on it.)
    const deep = `${'['.repeat(5000)}"bottom"${']'.repeat(5000)}`;
    const jobId = await runningJob();
    socket.send(
      `{"type":"subscribe","id":"deep","payload":{"query":"subscription($jobId: ID!) { jobProgress(jobId: $jobId) { seq } }","variables":{"jobId":"${jobId}","deep":${deep}}}}`,
    );
    const error = await socket.next('error', 5000, 'deep');
    expect(error.payload[0]).toMatchObject({ extensions: { code: 'BAD_USER_INPUT', variable: 'deep', limit: 64 } });
    socket.send(subscribeFrame('fine', jobId, 0));
    expect((await socket.next('next', 5000, 'fine')).payload.data.jobProgress).toMatchObject({ seq: 0, type: 'SUBSCRIBED' });
    expect((await socket.next('next', 5000, 'fine')).payload.data.jobProgress.seq).toBe(1);
    socket.ws.close();
    expect(consoleError).not.toHaveBeenCalled();
    expect(stderr).not.toHaveBeenCalled();
  });
});

describe('a subscription that ends on the server side', () => {
  it('ends and releases everything on RESYNC and on shutdown with 50 subscriptions and two workers’ work signals open', async () => {
    const server = await startTestServer({ env: { SUBSCRIPTION_BUFFER: '2' } });
    const editor = await server.token('ends', [Role.EDITOR]);
    const worker = await server.token('ends', [Role.WORKER]);
    const projectId = dataOf(await server.request(CreateProjectDocument, { input: { title: 'Ends' } }, editor)).createProject.projectId;
    const { jobId } = dataOf(await server.request(CreateJobDocument, { input: { projectId, kind: 'K', steps: ['a'] } }, editor)).createJob;

    // RESYNC: events published at once overflow a buffer of two; the stream says so and ends. A
    // subscriber that is caught up takes live events straight from the bus (the hand-over) until
    // MAX_FRAMES_IN_FLIGHT of them wait, so enough are published to overflow either way.
    const client = wsClient(server.url, editor);
    const slow = subscribe(client, JOB_PROGRESS, { jobId, afterSeq: 1 });
    // Caught up (its acknowledgement arrived), so the subscriber takes live events by the hand-over.
    await slow.ack;
    for (let seq = 2; seq <= MAX_FRAMES_IN_FLIGHT + 8; seq++) {
      server.app.bus.publish(`JOB:ends:${jobId}`, {
        eventId: `${jobId}:${seq}`,
        jobId,
        projectId,
        seq,
        prevSeq: seq - 1,
        type: 'STEP_PROGRESS',
        actor: 'test',
        at: new Date().toISOString(),
        job: { status: 'RUNNING', progress: 0, completedSteps: 0, failedSteps: 0 },
      });
    }
    await slow.done;
    expect(slow.received.at(-1)).toMatchObject({ type: 'RESYNC' });
    expect(await metricValue(server.url, 'artissist_subscription_resyncs_total')).toBe(1);
    // (The lazy client may close its idle socket meanwhile, so only the operation counts are fixed here.)
    expect(server.app.counts()).toMatchObject({ graphql_ws_subscriptions: 0, event_bus_listeners: 0 });

    // Shutdown: 50 subscriptions over 5 sockets.
    const sockets = await Promise.all(Array.from({ length: 5 }, () => rawConnection(server.url, editor)));
    sockets.forEach((socket, s) => {
      for (let i = 0; i < 10; i++)
        socket.send({
          type: 'subscribe',
          id: `${s}-${i}`,
          payload: { query: `subscription { jobProgress(jobId: "${jobId}") { seq } }` },
        });
    });
    await eventually(
      () => server.app.counts(),
      (c) => c.graphql_ws_subscriptions === 50 && c.event_bus_listeners === 50,
    );
    // Two workers' work signals, one over each transport (both on the one BATCH topic's bus listener).
    const hub = workSignalHubOf(server.app.bus);
    const signals = await rawConnection(server.url, worker);
    signals.send({ type: 'subscribe', id: 'w', payload: { query: WORK_SIGNALS } });
    await signals.next('next', 5000, 'w');
    const sse = await sseWorkSignals(server.url, worker);
    sse.on('error', () => {});
    expect(hub.size).toBe(2);
    // New work for them: the server watches its job's stage for a lease running out (a timer).
    // (Its WORK_AVAILABLE is dealt to one of the two, so the count is what is awaited.)
    await batchJob(server, editor, 'ends', projectId);
    await eventually(
      () => server.app.held().lease_watches,
      (n) => n === 1,
    );
    await client.dispose();
    await stopOnPurpose(server);
    expect(server.app.counts()).toEqual(ZERO);
    expect(hub.size).toBe(0);
    expect(server.app.held()).toEqual(NOTHING_HELD);
    expect((await signals.closed).code).toBe(1001);
    expect((await Promise.all(sockets.map((s) => s.closed))).map((c) => c.code)).toEqual([1001, 1001, 1001, 1001, 1001]);
  });
});
