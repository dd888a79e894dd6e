import { BoundTenant } from '../../src/common/bound-tenant';
import { EventSource } from 'eventsource';
import { createClient } from 'graphql-sse';
import {
  CompleteStepDocument,
  CreateJobDocument,
  CreateProjectDocument,
  ReportStepProgressDocument,
  StartStepDocument,
} from '../../src/client/gql/graphql';
import type { ServerCounts } from '../../src/app';
import { streams } from '../../src/common/streams';
import { jobEventsAfter } from '../../src/job/job.keys';
import { dataOf, Role, startTestServer, type TestServer } from '../support/server';
import { lastEventIdFetch, readStream, startProxy, type CuttableProxy } from '../support/sse';
import { eventually, metricValue } from '../support/ws';
import { METRIC_PREFIX } from '../../src/infra/metrics';
import { fixture, stopOnPurpose } from '../support/fixtures';

/*
 * GraphQL over Server-Sent Events (graphql-sse's distinct connections mode) on /graphql. Two real
 * clients — graphql-sse's own, and the `eventsource` package (the WHATWG EventSource, reconnecting
 * by itself with Last-Event-ID) — follow a job and a project's activity through a proxy that
 * drops every connection abruptly; what they received is compared with the stream as stored in
 * the table. After each drop, what the server holds for the stream is counted.
 */

const TENANT = 'sse';
const IDLE = { graphql_ws_connections: 0, graphql_ws_subscriptions: 0, graphql_sse_streams: 0, event_bus_listeners: 0 };
const JOB_PROGRESS =
  'subscription Follow($jobId: ID!, $afterSeq: Int) { jobProgress(jobId: $jobId, afterSeq: $afterSeq) { seq type job { status } } }';
const ACTIVITY =
  'subscription Activity($projectId: ID!, $after: Int) { projectActivity(projectId: $projectId, after: $after) { eventId position action } }';

const STATUS = 'subscription Status($after: Int) { jobStatusChanges(after: $after) { jobId seq type cursor } }';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A plain EventSource on `url` sending `token` (the eventsource package lets a fetch add it), closed by the fixture. */
function sourceWith(url: URL, token: string): EventSource {
  return fixture(
    'EventSource',
    new EventSource(url, {
      fetch: (input, init) => {
        const headers = new Headers(init?.headers);
        headers.set('authorization', `Bearer ${token}`);
        return fetch(input, { ...init, headers });
      },
    }),
    (s) => s.close(),
  );
}

describe('GraphQL over SSE', () => {
  let server: TestServer;
  let proxy: CuttableProxy;
  let editor: string;
  let worker: string;
  let projectId: string;
  const counts = (): ServerCounts => server.app.counts();
  /** Resolves once the server holds nothing for any stream: no response, no listener. */
  const idle = () => eventually(counts, (c) => JSON.stringify(c) === JSON.stringify(IDLE), 10_000);

  beforeAll(async () => {
    // A short keep-alive and retry hint, so the tests see comments and EventSource reconnects soon.
    server = await startTestServer({ env: { SSE_KEEPALIVE_MS: '300', SSE_RETRY_MS: '100' } });
    proxy = await startProxy(server.url);
    editor = await server.token(TENANT, [Role.EDITOR]);
    worker = await server.token(TENANT, [Role.WORKER]);
    projectId = dataOf(await server.request(CreateProjectDocument, { input: { title: 'Streams' } }, editor)).createProject.projectId;
  });

  /** A job with one step started (seq 2). */
  async function runningJob(): Promise<string> {
    const { jobId } = dataOf(
      await server.request(CreateJobDocument, { input: { projectId, kind: 'K', steps: ['work'], inputs: { n: Math.random() } } }, editor),
    ).createJob;
    dataOf(await server.request(StartStepDocument, { jobId, stepName: 'work' }, worker));
    return jobId;
  }

  async function progress(jobId: string, n: number): Promise<void> {
    for (let i = 1; i <= n; i++)
      dataOf(await server.request(ReportStepProgressDocument, { jobId, stepName: 'work', progress: i / (n + 1) }, worker));
  }

  async function milestones(n: number): Promise<void> {
    for (let i = 0; i < n; i++) {
      const { body } = await server.raw(
        {
          query:
            'mutation($projectId: ID!, $input: CreateMilestoneInput!) { createMilestone(projectId: $projectId, input: $input) { milestoneId } }',
          variables: { projectId, input: { name: `m${i}` } },
        },
        editor,
      );
      dataOf(body);
    }
  }

  /**
   * Drops every connection, checks the server let go of everything the stream held, runs `whileAway`
   * (writes committed while no client listens), and lets clients reconnect.
   */
  async function dropAndResume(whileAway: () => Promise<void>): Promise<void> {
    proxy.drop();
    await idle();
    await whileAway();
    proxy.restore();
  }

  it('resumes a job with the graphql-sse client across abrupt drops: every event once, as the table holds it', async () => {
    const jobId = await runningJob();
    const { fetchFn } = lastEventIdFetch();
    const client = fixture(
      'graphql-sse client',
      createClient({
        url: proxy.url,
        headers: { authorization: `Bearer ${editor}` },
        fetchFn,
        retryAttempts: 1000,
        // The client's pause before it reconnects (its own default backs off for seconds): part of
        // the scenario, a client that comes back soon after each drop.
        retry: async () => {
          await sleep(100);
        },
      }),
      (c) => c.dispose(),
    );
    const messages: Array<{ seq: number; type: string; job: { status: string } | null }> = [];
    const errors: unknown[] = [];
    const finished = new Promise<void>((resolve, reject) => {
      client.subscribe<{ jobProgress: { seq: number; type: string; job: { status: string } | null } }>(
        { query: JOB_PROGRESS, variables: { jobId, afterSeq: 2 } },
        {
          next: ({ data, errors: e }) => {
            if (e) errors.push(...e);
            if (data) messages.push(data.jobProgress);
          },
          error: reject,
          complete: resolve,
        },
      );
    });
    const events = () => messages.filter((m) => m.type !== 'SUBSCRIBED');
    await eventually(counts, (c) => c.graphql_sse_streams === 1 && c.event_bus_listeners === 1, 10_000);
    expect(await metricValue(server.url, `${METRIC_PREFIX}graphql_sse_streams`)).toBe(1);
    let expected = 0;
    for (let drop = 0; drop < 3; drop++) {
      await progress(jobId, 4);
      expected += 4;
      await eventually(
        () => events().length,
        (n) => n === expected,
        15_000,
      );
      await dropAndResume(() => progress(jobId, 3));
      expected += 3;
      await eventually(
        () => events().length,
        (n) => n === expected,
        15_000,
      );
    }
    dataOf(await server.request(CompleteStepDocument, { jobId, stepName: 'work' }, worker));
    // The job's final event completes the stream, and the client with it.
    await finished;

    const stored = (await server.app.store.queryAll(jobEventsAfter(new BoundTenant(TENANT), jobId, 2), 10_000)).map((item) =>
      Number(item.seq),
    );
    expect(stored.length).toBe(expected + 1);
    expect(events().map((e) => e.seq)).toEqual(stored);
    expect(events().at(-1)?.job?.status).toBe('COMPLETED');
    // One acknowledgement per connection, each of exactly the seq the client had last received.
    const acks = messages.flatMap((m, i) => (m.type === 'SUBSCRIBED' ? [[m.seq, i === 0 ? 2 : messages[i - 1].seq]] : []));
    expect(acks.length).toBe(4);
    for (const [ack, previous] of acks) expect(ack).toBe(previous);
    expect(errors).toEqual([]);
    expect(await idle()).toEqual(IDLE);
  }, 120_000);

  it('resumes a project’s activity with a plain EventSource over GET across abrupt drops: every event once, each id its position', async () => {
    const url = new URL(proxy.url);
    url.searchParams.set('query', ACTIVITY);
    url.searchParams.set('variables', JSON.stringify({ projectId }));
    const received: Array<{ id: string; eventId: string; position: number; action: string }> = [];
    let completed = 0;
    let errors = 0;
    const source = sourceWith(url, editor);
    source.addEventListener('next', (event) => {
      const { data } = JSON.parse(event.data);
      received.push({ id: event.lastEventId, ...data.projectActivity });
    });
    source.addEventListener('complete', () => completed++);
    source.addEventListener('error', () => errors++);
    const events = () => received.filter((m) => !m.action.startsWith('subscription.'));
    await eventually(
      () => received.length,
      (n) => n === 1,
      10_000,
    );
    const start = received[0];
    expect(start).toMatchObject({ action: 'subscription.started', id: String(start.position) });
    let expected = 0;
    for (let drop = 0; drop < 3; drop++) {
      await milestones(3);
      expected += 3;
      await eventually(
        () => events().length,
        (n) => n === expected,
        15_000,
      );
      await dropAndResume(() => milestones(2));
      expected += 2;
      await eventually(
        () => events().length,
        (n) => n === expected,
        15_000,
      );
    }
    const stored = await server.app.store.queryAll(streams.projectActivity(TENANT, projectId).after(start.position), 10_000);
    expect(stored.length).toBe(expected);
    expect(events().map((e) => [e.eventId, e.position])).toEqual(stored.map((item) => [item.eventId, Number(item.position)]));
    // Every message's SSE id is its position, which is what EventSource sent back as Last-Event-ID.
    for (const message of received) expect(message.id).toBe(String(message.position));
    const acks = received.flatMap((m, i) => (m.action === 'subscription.started' && i > 0 ? [[m.position, received[i - 1].position]] : []));
    expect(acks.length).toBe(3);
    for (const [ack, previous] of acks) expect(ack).toBe(previous);
    expect(completed).toBe(0);
    expect(errors).toBeGreaterThanOrEqual(3);
    source.close();
    expect(await idle()).toEqual(IDLE);
  }, 120_000);

  it("resumes the tenant's sharded job status stream with EventSource by the cursor in each id: every change once, each job's in order", async () => {
    const url = new URL(proxy.url);
    url.searchParams.set('query', STATUS);
    const received: Array<{ id: string; jobId: string; seq: number; type: string; cursor: string }> = [];
    let errors = 0;
    const source = sourceWith(url, editor);
    source.addEventListener('next', (event) => received.push({ id: event.lastEventId, ...JSON.parse(event.data).data.jobStatusChanges }));
    source.addEventListener('error', () => errors++);
    const changes = () => received.filter((m) => m.jobId !== '');
    await eventually(
      () => received.length,
      (n) => n === 1,
      10_000,
    );
    // Each job started: two changes (created, started), then two more jobs while no client listens.
    const jobs = [await runningJob(), await runningJob()];
    await eventually(
      () => changes().length,
      (n) => n === 4,
      15_000,
    );
    await dropAndResume(async () => {
      jobs.push(await runningJob(), await runningJob());
    });
    await eventually(
      () => changes().length,
      (n) => n === 8,
      15_000,
    );
    // Every message's SSE id is its cursor, which EventSource sent back as Last-Event-ID: the
    // resumed stream's acknowledgement is at the cursor of the message before it.
    for (const message of received) expect(message.id).toBe(message.cursor);
    const acks = received.flatMap((m, i) => (m.type === 'SUBSCRIBED' && i > 0 ? [[m.cursor, received[i - 1].cursor]] : []));
    expect(acks.length).toBe(1);
    expect(acks[0][0]).toBe(acks[0][1]);
    expect(
      changes()
        .map((m) => `${m.jobId}:${m.type}`)
        .sort(),
    ).toEqual(jobs.flatMap((jobId) => [`${jobId}:JOB_CREATED`, `${jobId}:STEP_STARTED`]).sort());
    expect(errors).toBeGreaterThanOrEqual(1);
    source.close();
    expect(await idle()).toEqual(IDLE);
  }, 60_000);

  /** A raw request to the server (not through the proxy) asking for an event stream. */
  const streamRequest = (init: {
    method?: string;
    body?: unknown;
    token?: string | null;
    headers?: Record<string, string>;
    search?: Record<string, string>;
  }) => {
    const url = new URL(server.url);
    for (const [name, value] of Object.entries(init.search ?? {})) url.searchParams.set(name, value);
    const token = init.token === undefined ? editor : init.token;
    return fetch(url, {
      method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
      headers: {
        accept: 'text/event-stream',
        ...(init.body !== undefined && typeof init.body !== 'string' ? { 'content-type': 'application/json' } : {}),
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...init.headers,
      },
      body: init.body === undefined ? undefined : typeof init.body === 'string' ? init.body : JSON.stringify(init.body),
    });
  };

  it('runs a query as one next and a complete, sends keep-alive comments, and ends the stream when the job ends', async () => {
    const query = await streamRequest({ body: { query: 'query Me { viewer { tenantId } }' } });
    expect(query.status).toBe(200);
    expect(query.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(query.headers.get('x-request-id')).toBeTruthy();
    expect(await readStream(query)).toEqual([
      { retry: '100' },
      { event: 'next', data: JSON.stringify({ data: { viewer: { tenantId: TENANT } } }) },
      { event: 'complete', data: '' },
    ]);

    const jobId = await runningJob();
    const follow = await streamRequest({ body: { query: JOB_PROGRESS, variables: { jobId } } });
    expect(follow.status).toBe(200);
    let stepped = false;
    const messages = await readStream(follow, (m) => {
      // Once two keep-alive comments came while nothing happened, the job is finished.
      if (!stepped && m.filter((x) => x.comment).length >= 2) {
        stepped = true;
        server.request(CompleteStepDocument, { jobId, stepName: 'work' }, worker).catch(() => {});
      }
      return false;
    });
    const nexts = messages.filter((m) => m.event === 'next').map((m) => [m.id, JSON.parse(m.data ?? '').data.jobProgress]);
    expect(nexts).toEqual([
      ['2', { seq: 2, type: 'SUBSCRIBED', job: null }],
      ['3', { seq: 3, type: 'STEP_COMPLETED', job: { status: 'COMPLETED' } }],
    ]);
    expect(messages.at(-1)).toEqual({ event: 'complete', data: '' });
    expect(await idle()).toEqual(IDLE);
  });

  it('answers client mistakes before any stream starts, with a 4xx and a stable code', async () => {
    const jobId = await runningJob();
    const follow = { query: JOB_PROGRESS, variables: { jobId } };
    const cases: Array<[string, Parameters<typeof streamRequest>[0], number, string]> = [
      ['no token', { body: follow, token: null }, 401, 'UNAUTHENTICATED'],
      ['a bad token', { body: follow, token: 'nope' }, 401, 'UNAUTHENTICATED'],
      ['a syntax error', { body: { query: 'subscription {' } }, 400, 'GRAPHQL_PARSE_FAILED'],
      ['an unknown field', { body: { query: 'subscription { nope }' } }, 400, 'GRAPHQL_VALIDATION_FAILED'],
      ['an unknown job', { body: { ...follow, variables: { jobId: 'job_01ARZ3NDEKTSV4RRFFQ69G5FAV' } } }, 404, 'NOT_FOUND'],
      ['a Last-Event-ID that is no position', { body: follow, headers: { 'last-event-id': 'abc' } }, 400, 'BAD_REQUEST'],
      ['a Last-Event-ID ahead of the stream', { body: follow, headers: { 'last-event-id': '999' } }, 400, 'BAD_USER_INPUT'],
      ['a Last-Event-ID on a query', { body: { query: '{ viewer { tenantId } }' }, headers: { 'last-event-id': '1' } }, 400, 'BAD_REQUEST'],
      ['a cursor on a stream without one', { body: follow, headers: { 'last-event-id': 'bm90LWEtY3Vyc29y' } }, 400, 'BAD_REQUEST'],
      [
        'a cursor the server never gave',
        { body: { query: STATUS }, headers: { 'last-event-id': 'bm90LWEtY3Vyc29y' } },
        400,
        'BAD_USER_INPUT',
      ],
      ['a mutation over GET', { search: { query: 'mutation { cancelJob(jobId: "x") { status } }' } }, 405, 'BAD_REQUEST'],
      ['variables that are not JSON', { search: { query: JOB_PROGRESS, variables: '{' } }, 400, 'BAD_REQUEST'],
      ['a missing required variable', { body: { query: JOB_PROGRESS, variables: {} } }, 400, 'BAD_USER_INPUT'],
      ['a variable of the wrong type', { body: { query: JOB_PROGRESS, variables: { jobId, afterSeq: 'x' } } }, 400, 'BAD_USER_INPUT'],
      ['a body that is not JSON', { body: 'query', headers: { 'content-type': 'text/plain' } }, 400, 'BAD_REQUEST'],
      ['no query', { search: {} }, 400, 'BAD_REQUEST'],
      ['a PUT', { method: 'PUT', body: follow }, 405, 'BAD_REQUEST'],
    ];
    const answers = [];
    for (const [what, init] of cases) {
      const res = await streamRequest(init);
      const body = (await res.json()) as { errors?: Array<{ extensions?: Record<string, unknown> }> };
      answers.push([what, res.status, body.errors?.[0]?.extensions?.code, typeof body.errors?.[0]?.extensions?.requestId]);
    }
    expect(answers).toEqual(cases.map(([what, , status, code]) => [what, status, code, 'string']));

    // An EventSource does not reconnect after a 4xx.
    const url = new URL(server.url);
    url.searchParams.set('query', JOB_PROGRESS);
    url.searchParams.set('variables', JSON.stringify({ jobId }));
    const refused = new EventSource(url);
    await new Promise((resolve) => refused.addEventListener('error', resolve));
    expect(refused.readyState).toBe(refused.CLOSED);
    expect(await idle()).toEqual(IDLE);
  });
});

describe('SSE streams the server ends', () => {
  it('end without complete on RESYNC and on shutdown (so clients resume), hold up no drain, and leave nothing held', async () => {
    const server = await startTestServer({ env: { SHUTDOWN_DRAIN_MS: '30000', SUBSCRIPTION_BUFFER: '2' } });
    const editor = await server.token(TENANT, [Role.EDITOR]);
    const projectId = dataOf(await server.request(CreateProjectDocument, { input: { title: 'Down' } }, editor)).createProject.projectId;

    // RESYNC: five events published at once overflow a buffer of two; the stream says where to
    // resume (its id) and ends without complete, so an EventSource reconnects from there.
    const { jobId } = dataOf(await server.request(CreateJobDocument, { input: { projectId, kind: 'K', steps: ['a'] } }, editor)).createJob;
    const slow = await fetch(server.url, {
      method: 'POST',
      headers: { accept: 'text/event-stream', 'content-type': 'application/json', authorization: `Bearer ${editor}` },
      body: JSON.stringify({ query: JOB_PROGRESS, variables: { jobId, afterSeq: 1 } }),
    });
    const slowMessages = readStream(slow);
    await eventually(server.app.counts, (c) => c.event_bus_listeners === 1, 10_000);
    for (let seq = 2; seq <= 6; seq++) {
      server.app.bus.publish(`JOB:${TENANT}:${jobId}`, {
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
    const resynced = await slowMessages;
    const last = resynced.filter((m) => m.event === 'next').at(-1);
    expect(JSON.parse(last?.data ?? '').data.jobProgress).toMatchObject({ type: 'RESYNC' });
    expect(last?.id).toBe(String(JSON.parse(last?.data ?? '').data.jobProgress.seq));
    expect(resynced.some((m) => m.event === 'complete')).toBe(false);
    await eventually(server.app.counts, (c) => JSON.stringify(c) === JSON.stringify(IDLE), 10_000);
    const open = await Promise.all(
      Array.from({ length: 5 }, () =>
        fetch(server.url, {
          method: 'POST',
          headers: { accept: 'text/event-stream', 'content-type': 'application/json', authorization: `Bearer ${editor}` },
          body: JSON.stringify({ query: ACTIVITY, variables: { projectId } }),
        }),
      ),
    );
    const reading = open.map((res) => readStream(res));
    await eventually(server.app.counts, (c) => c.graphql_sse_streams === 5 && c.event_bus_listeners === 5, 10_000);
    const stopping = Date.now();
    await stopOnPurpose(server);
    // The drain allows 30 s; streams are cut first, so none of it is spent waiting on them.
    expect(Date.now() - stopping).toBeLessThan(20_000);
    for (const messages of await Promise.all(reading)) {
      expect(messages.filter((m) => m.event === 'next')).toHaveLength(1);
      expect(messages.some((m) => m.event === 'complete')).toBe(false);
    }
    expect(server.app.counts()).toEqual(IDLE);
  });
});
