import { signDevToken } from '../../src/auth/jwt';
import { JOB_KINDS } from '../../src/job/job.kinds';
import { Role, startTestServer, TEST_SECRET, type TestServer } from '../support/server';
import { readStream } from '../support/sse';
import { startTcpProxy } from '../support/tcp-proxy';
import { waitFor } from '../support/wait';
import { subscribe, wsClient } from '../support/ws';
import { PollingSignal, Worker } from '../../sdk/typescript/src/index';
import { isIdle, PYTHON_WORKER, pythonPushWorker, startWorker, tsPushWorker } from '../support/worker-process';

// A single step with a retry backoff, claimed by no other file (the server runs in this process).
JOB_KINDS.TEST_SIGNAL_STEP = {
  description: 'One single step.',
  inputs: { label: { kind: 'string', required: true } },
  stages: [{ name: 'render', phase: 'processing' }],
};

const SIGNALS = `subscription($kinds: [String!], $stages: [String!]) {
  workSignals(kinds: $kinds, stages: $stages) { type tenantId kind stage count availableAt available jobId sequence attempt reason }
}`;

interface Signal {
  type: string;
  tenantId: string | null;
  kind: string | null;
  stage: string | null;
  count: number | null;
  available: boolean | null;
  jobId: string | null;
  sequence: number | null;
  attempt: number | null;
  reason: string | null;
}

/**
 * workSignals: work pushed to idle workers instead of polled. What it bounds in time (new work
 * pushed within 200 ms of createJob committing it) is measured in worker-push.test, an `@alone`
 * file; these run beside other files, as they bound no latency. Real DynamoDB Local, a real server,
 * real graphql-ws and SSE clients. The server's lease is 30 s, and its clock is moved ahead by the
 * test when a lease is to run out: a lease short enough to run out in real time ran out under a
 * loaded machine between a claim and the test's next request, and its lapse was signalled
 * (WORK_AVAILABLE) before what the test waits for.
 */
describe('work signals', () => {
  let server: TestServer;
  let clockAhead = 0;
  const secret = new TextEncoder().encode(TEST_SECRET);
  const gql = async (token: string, query: string, variables: Record<string, unknown> = {}) =>
    (await server.raw({ query, variables }, token)).body;
  const codeOf = (out: { errors?: Array<{ extensions?: { code?: string } }> }) => out.errors?.[0]?.extensions?.code;
  const CLAIM = 'mutation($k: String) { claimWork(kind: $k) { lease job { jobId } step { attempt } item { sequence attempt } } }';

  /** A tenant with an editor, a project and its workers. */
  const tenant = async (name: string) => {
    const editor = await server.token(name, [Role.EDITOR], 'artist');
    const projectId = (await gql(editor, 'mutation { createProject(input: { title: "Signals" }) { projectId } }')).data.createProject
      .projectId;
    const create = async (input: Record<string, unknown>) =>
      (await gql(editor, 'mutation($input: CreateJobInput!) { createJob(input: $input) { jobId } }', { input: { projectId, ...input } }))
        .data.createJob.jobId as string;
    return {
      editor,
      worker: (n: number) => server.token(name, [Role.WORKER], `worker-${n}`),
      batch: (items: number, label = String(Math.random())) =>
        create({
          kind: 'BATCH',
          inputs: { label },
          items: Array.from({ length: items }, (_, i) => ({ source: `tenants/${name}/in/${i}.png` })),
        }),
      step: () => create({ kind: 'TEST_SIGNAL_STEP', inputs: { label: String(Math.random()) } }),
    };
  };

  const listen = async (token: string, kinds: string[] | null, stages: string[] | null = null) => {
    const sub = subscribe<Signal>(wsClient(server.url, token), SIGNALS, { kinds, stages });
    const first = await sub.ack;
    return { sub, first };
  };

  beforeAll(async () => {
    server = await startTestServer({
      env: { JOB_LEASE_SECONDS: '30', WORKER_GRACE_SECONDS: '1' },
      now: () => new Date(Date.now() + clockAhead),
    });
  });

  it('deals one new item to one idle worker, and a batch of items to as many', async () => {
    const t = await tenant('signals-deal');
    const subs = await Promise.all([1, 2, 3].map(async (n) => (await listen(await t.worker(n), ['BATCH'])).sub));
    await t.batch(1);
    const heard = async () => subs.reduce((n, s) => n + s.received.length, 0);
    await Promise.race(subs.map((s) => s.waitFor(1)));
    await t.batch(2);
    // One item: one worker told; two items: two more (in turn, so not the same one twice).
    await Promise.all([subs[1].waitFor(1), subs[2].waitFor(1)]);
    expect(subs.map((s) => s.received.length)).toEqual([1, 1, 1]);
    expect(await heard()).toBe(3);
  }, 60_000);

  it('tells the holder when its job is cancelled, when its lease is taken over, and tells the others when work is handed back', async () => {
    const t = await tenant('signals-lease');
    const [holder, rescuer] = await Promise.all([t.worker(1), t.worker(2)]);
    const { sub } = await listen(holder, ['BATCH', 'TEST_SIGNAL_STEP']);
    const cancelled = await t.batch(1);
    await sub.waitFor(1);
    expect((await gql(holder, CLAIM, { k: 'BATCH' })).data.claimWork.job.jobId).toBe(cancelled);
    await gql(t.editor, 'mutation($j: ID!) { cancelJob(jobId: $j) { status } }', { j: cancelled });
    expect((await sub.waitFor(2))[1]).toMatchObject({ type: 'LEASE_ENDED', jobId: cancelled, reason: 'JOB_CANCELLED', stage: null });

    // A step held past its lease is taken over by the rescuer's claim: the holder is told which attempt ended.
    const stepJob = await t.step();
    await sub.waitFor(3);
    expect((await gql(holder, CLAIM, { k: 'TEST_SIGNAL_STEP' })).data.claimWork.step.attempt).toBe(1);
    clockAhead += 30_500;
    expect((await gql(rescuer, CLAIM, { k: 'TEST_SIGNAL_STEP' })).data.claimWork.step.attempt).toBe(2);
    expect((await sub.waitFor(4))[3]).toMatchObject({
      type: 'LEASE_ENDED',
      jobId: stepJob,
      stage: 'render',
      sequence: null,
      attempt: 1,
      reason: 'LEASE_EXPIRED',
    });
    // Handed back: claimable at once, and said so.
    await gql(rescuer, 'mutation($j: ID!) { handBackStep(jobId: $j, stepName: "render", attempt: 2) { status } }', { j: stepJob });
    expect((await sub.waitFor(5))[4]).toMatchObject({ type: 'WORK_AVAILABLE', kind: 'TEST_SIGNAL_STEP', stage: 'render', count: 1 });
  }, 60_000);

  it('pushes a pool worker every tenant’s work of its kinds, and refuses kinds outside its pool', async () => {
    const t = await tenant('signals-pool');
    const gpu = await signDevToken(secret, { sub: 'gpu-signals', pool: { kinds: ['BATCH'] } });
    const refused = subscribe<Signal>(wsClient(server.url, gpu), SIGNALS, { kinds: ['TEST_SIGNAL_STEP'], stages: null });
    await refused.done;
    expect(JSON.stringify(refused.errors)).toContain('FORBIDDEN');
    const { sub, first } = await listen(gpu, null);
    expect(first.type).toBe('SUBSCRIBED');
    await t.batch(1);
    expect((await sub.waitFor(1))[0]).toMatchObject({ type: 'WORK_AVAILABLE', tenantId: 'signals-pool', kind: 'BATCH' });
    // A tenant's worker names its kinds.
    const none = subscribe<Signal>(wsClient(server.url, await t.worker(9)), SIGNALS, { kinds: null, stages: null });
    await none.done;
    expect(JSON.stringify(none.errors)).toContain('BAD_USER_INPUT');
  }, 60_000);

  it('hands back what a bound tenant worker (a step) and a bound pool worker (an item, through its lease) held once their socket dropped without a close frame', async () => {
    const t = await tenant('signals-bound');
    const BOUND = `subscription($kinds: [String!], $w: String) { workSignals(kinds: $kinds, workerId: $w) { type } }`;
    const CLAIM_AS = `mutation($k: String, $w: String) { claimWork(kind: $k, workerId: $w) {
      tenantId lease job { jobId } step { name attempt } item { sequence attempt } } }`;
    const proxy = await startTcpProxy(server.url);
    const through = `${proxy.url}${new URL(server.url).pathname}`;
    // Each worker's subscription first (its claims bind to it), then its claim.
    const bind = async (token: string, kind: string, workerId: string) => {
      await subscribe(wsClient(through, token), BOUND, { kinds: [kind], w: workerId }).ack;
      return (await gql(token, CLAIM_AS, { k: kind, w: workerId })).data.claimWork;
    };
    const stepJob = await t.step();
    const step = await bind(await t.worker(1), 'TEST_SIGNAL_STEP', 'render-proc');
    expect(step).toMatchObject({ job: { jobId: stepJob }, step: { name: 'render', attempt: 1 } });
    await t.batch(1);
    // The pools serve every tenant: the pool worker may take an item an earlier test left waiting, of another tenant.
    const gpu = await signDevToken(secret, { sub: 'gpu-bound', pool: { kinds: ['BATCH'] } });
    const item = await bind(gpu, 'BATCH', 'gpu-proc');
    expect(item).toMatchObject({ tenantId: expect.any(String), lease: expect.any(String), item: { attempt: expect.any(Number) } });
    const itemEditor = await server.token(item.tenantId, [Role.EDITOR], 'artist');
    proxy.cut();
    // A hand-back writes HANDED_BACK (the step's attempt) and PENDING (the item); a lease running out writes nothing until a claim.
    const STEPS = 'query($j: ID!) { job(jobId: $j) { steps { name attempt status } } }';
    const ITEMS = 'query($j: ID!) { job(jobId: $j) { items(first: 50) { nodes { sequence attempt status } } } }';
    await waitFor(async () => {
      const steps = (await gql(t.editor, STEPS, { j: stepJob })).data.job.steps;
      return steps.some((s: { attempt: number; status: string }) => s.attempt === 1 && s.status === 'HANDED_BACK');
    }, 'the step handed back');
    await waitFor(async () => {
      const items = (await gql(itemEditor, ITEMS, { j: item.job.jobId })).data.job.items.nodes;
      return items.find((n: { sequence: number }) => n.sequence === item.item.sequence)?.status === 'PENDING';
    }, "the pool worker's item handed back");
  }, 60_000);

  it('idle Python and TypeScript SDK workers make no request beyond their connection for 6 s', async () => {
    const proxy = await startTcpProxy(server.url);
    const through = `${proxy.url}${new URL(server.url).pathname}`;
    /** How many HTTP requests (POSTs) went through the proxy so far. */
    const posts = () => proxy.sent.filter((chunk) => chunk.startsWith('POST ')).length;
    const token = (sub: string) => server.token('signals-idle', [Role.WORKER], sub);
    const py = await pythonPushWorker(through, await token('py-quiet'), 'py-quiet');
    const ts = tsPushWorker(through, await token('ts-quiet'), 'ts-quiet', { returns: () => true });
    // Each made its kinds read, its subscription (acknowledged) and a claim of each stage it serves
    // (the Python fixture's two, the TypeScript worker's one), and the SDK told it idle.
    await waitFor(async () => isIdle(py) && isIdle(ts), 'both workers idle', { everyMs: 10 });
    const settled = posts();
    expect(settled).toBe(4 + 3);
    // The window is the assertion: from the moment both were idle, 6 s without a request.
    await new Promise((resolve) => setTimeout(resolve, 6000));
    expect(posts()).toBe(settled);
    expect(isIdle(py) && isIdle(ts)).toBe(true);
  }, 60_000);

  it('polling Python and TypeScript SDK workers name no workerId, so their items send nothing over the bus to bound workers', async () => {
    // A workerId binds a claim to its worker's workSignals subscription; one a polling worker named
    // had the server forward its claim and its completion to the worker's bus topic, which no
    // instance listens to (two publishes an item). Observed on the server's own bus: the spy calls
    // the real publish and only counts the bound workers' topics.
    const bus = server.app.bus;
    const publish = bus.publish.bind(bus);
    const forwarded: string[] = [];
    bus.publish = (topic, payload) => {
      if (topic.startsWith('BOUND_WORKER:')) forwarded.push(topic);
      return publish(topic, payload);
    };
    try {
      const t = await tenant('signals-polled');
      const jobId = await t.batch(2);
      const py = startWorker('python3', [PYTHON_WORKER], {
        ARTISSIST_URL: server.url,
        ARTISSIST_TOKEN: await t.worker(1),
        STAGES: 'BATCH',
      });
      const ts = new Worker({
        url: server.url,
        token: await t.worker(2),
        workSignal: new PollingSignal(100, 1000),
        handleSignals: false,
        log: () => {},
      });
      ts.stage('BATCH', 'process', (work) => ({ result: `tenants/signals-polled/out/${work.sequence}.png` }));
      const running = ts.run();
      const ITEMS = 'query($j: ID!) { job(jobId: $j) { status items(first: 10) { nodes { worker } } } }';
      const done = await waitFor(async () => {
        const job = (await gql(t.editor, ITEMS, { j: jobId })).data.job;
        return job.status === 'COMPLETED' && job;
      }, 'the job completed');
      ts.stop();
      // Signalled once it serves (its handlers installed), so that it stops as a worker does.
      await py.until((l) => l.event === 'idle', 'the Python worker idle');
      py.child.kill('SIGTERM');
      await running;
      expect(await py.exited).toMatchObject({ code: 0 });
      // Both items were done by the polling workers (either may have taken both), with nothing forwarded.
      expect(done.items.nodes.every((n: { worker: string }) => ['worker-1', 'worker-2'].includes(n.worker))).toBe(true);
      expect(forwarded).toEqual([]);
    } finally {
      bus.publish = publish;
    }
  }, 60_000);

  it('pushes over SSE too', async () => {
    const t = await tenant('signals-sse');
    const response = await fetch(server.url, {
      method: 'POST',
      headers: { accept: 'text/event-stream', 'content-type': 'application/json', authorization: `Bearer ${await t.worker(1)}` },
      body: JSON.stringify({ query: SIGNALS, variables: { kinds: ['BATCH'] } }),
    });
    expect(response.status).toBe(200);
    let created: Promise<string> | undefined;
    const messages = await readStream(response, (read) => {
      const data = read.filter((m) => m.event === 'next');
      // Once acknowledged, a job is made; the stream is read until its signal.
      if (data.length === 1) created ??= t.batch(1);
      return data.length >= 2;
    });
    const [ack, signal] = messages.filter((m) => m.event === 'next').map((m) => JSON.parse(m.data ?? '{}').data.workSignals);
    expect(ack).toMatchObject({ type: 'SUBSCRIBED', available: false });
    expect(signal).toMatchObject({ type: 'WORK_AVAILABLE', kind: 'BATCH', stage: 'process' });
    await created;
    expect(codeOf(await gql(await t.worker(1), CLAIM, { k: 'BATCH' }))).toBeUndefined();
  }, 60_000);
});
