import { Role, startTestServer, type TestServer } from '../support/server';

/**
 * A decision on a job reads the job and the current attempt of each of its steps, never every
 * attempt ever made: a step retried many times costs its next decision no more than a fresh one.
 * The step history (the `steps` field) is read only when a client asks for it, and the earlier
 * attempts of a finished job take its expiry from the settle sweep. Real DynamoDB Local, a real
 * server; reads are counted by the server's own DynamoDB client (CallCounter).
 */
describe("a decision's read of a job's steps", () => {
  let server: TestServer;
  let editor: string;
  let worker: string;
  let projectId: string;
  const tenantId = `step-reads-${Date.now()}`;

  beforeAll(async () => {
    // No background sweeps, system jobs or plan reads of the rate budgets: the tests count and time the DynamoDB reads of their own requests.
    server = await startTestServer({
      env: { OUTBOX_SWEEP_MS: '3600000', JOB_SETTLE_SWEEP_MS: '3600000', SYSTEM_JOB_IDLE_MS: '3600000', TENANT_RATE_LIMITS: 'off' },
    });
    editor = await server.token(tenantId, [Role.EDITOR], 'artist');
    worker = await server.token(tenantId, [Role.WORKER], 'gpu');
    projectId = (await ok(editor, 'mutation { createProject(input: { title: "Retries" }) { projectId } }')).createProject.projectId;
  });

  const ok = async (token: string, query: string, variables: Record<string, unknown> = {}) => {
    const out = (await server.raw({ query, variables }, token)).body;
    if (out.errors) throw new Error(JSON.stringify(out.errors));
    return out.data;
  };
  const createJob = async (label: string): Promise<string> =>
    (
      await ok(editor, 'mutation($i: CreateJobInput!) { createJob(input: $i) { jobId } }', {
        i: { projectId, kind: 'RETRIED', steps: ['render', 'encode'], maxAttempts: 10, inputs: { label } },
      })
    ).createJob.jobId;
  const START = 'mutation($j: ID!, $s: String!) { startStep(jobId: $j, stepName: $s) { status } }';
  const FAIL = 'mutation($j: ID!) { failStep(jobId: $j, stepName: "render", code: "OOM", message: "out of memory") { status } }';
  const COMPLETE = 'mutation($j: ID!, $s: String!) { completeStep(jobId: $j, stepName: $s) { status currentStep } }';

  /** The DynamoDB calls and the items they read while `work` runs. */
  async function readsOf(work: () => Promise<unknown>): Promise<{ calls: number; items: number }> {
    await server.resetCalls();
    await work();
    const items = [...server.app.calls.itemsByCommand.values()].reduce((a, b) => a + b, 0);
    return { calls: server.app.calls.total, items };
  }

  it('reads no more to start and complete a step retried 8 times than one retried once, and keeps its history readable', async () => {
    // Two running jobs alike but for their attempts: render failed once in one, 8 times in the other.
    const once = await createJob('once');
    const retried = await createJob('retried');
    for (const [jobId, fails] of [
      [once, 1],
      [retried, 8],
    ] as const) {
      for (let attempt = 1; attempt <= fails; attempt++) {
        await ok(worker, START, { j: jobId, s: 'render' });
        expect((await ok(worker, FAIL, { j: jobId })).failStep.status).toBe('RUNNING');
      }
    }
    const costs = [];
    for (const jobId of [once, retried]) {
      const start = await readsOf(() => ok(worker, START, { j: jobId, s: 'render' }));
      const complete = await readsOf(async () =>
        expect((await ok(worker, COMPLETE, { j: jobId, s: 'render' })).completeStep).toEqual({ status: 'RUNNING', currentStep: 'encode' }),
      );
      costs.push({ start, complete });
    }
    console.log(`reads of a decision, a step retried once then 8 times: ${JSON.stringify(costs)}`);
    // The ninth attempt of a step is decided on the same reads as the second: the job and one row
    // for each of its two planned steps, not a row for every attempt.
    expect(costs[1]).toEqual(costs[0]);
    expect(costs[0].complete.items).toBe(3);

    // The history lists every attempt, read when asked for: from the job, and from a decision's answer.
    const history = (await ok(editor, `{ job(jobId: "${retried}") { steps { name attempt status } } }`)).job.steps;
    expect(history.map((s: { name: string; attempt: number }) => `${s.name}#${s.attempt}`)).toEqual([
      ...Array.from({ length: 9 }, (_, i) => `render#${i + 1}`),
      'encode#1',
    ]);
    expect(history.filter((s: { status: string }) => s.status === 'FAILED')).toHaveLength(8);
    await ok(worker, START, { j: retried, s: 'encode' });
    const done = (
      await ok(worker, 'mutation($j: ID!) { completeStep(jobId: $j, stepName: "encode") { status steps { name attempt status } } }', {
        j: retried,
      })
    ).completeStep;
    expect(done.status).toBe('COMPLETED');
    expect(done.steps).toHaveLength(10);
    expect(done.steps.at(-1)).toEqual({ name: 'encode', attempt: 1, status: 'COMPLETED' });

    // Finished, the job's current attempts took its expiry with it; the earlier ones take it from the settle sweep.
    const pk = `TENANT#${tenantId}#JOB#${retried}`;
    const job = await server.app.store.get({ PK: pk, SK: 'JOB' });
    expect(job?.expiresAt).toEqual(expect.any(Number));
    const expiries = async () => (await server.app.store.queryAll({ pk, skPrefix: 'STEP#' })).map((row) => row.expiresAt);
    expect((await expiries()).filter((at) => at === job?.expiresAt)).toHaveLength(2);
    await server.app.settler.sweep();
    expect(await expiries()).toEqual(Array.from({ length: 10 }, () => job?.expiresAt));
    expect(await server.app.store.get({ PK: pk, SK: 'SETTLE' })).toBeNull();
  });

  it("createJob with items reads its plan's itemsPerJob beside the idempotency key's record: one round of reads (the stream heads) between them and its transaction", async () => {
    // The store's calls as they are made and answered (the real calls, only timed).
    const { store } = server.app;
    const calls: { name: string; sk: string; start: number; end: number }[] = [];
    const timed = { get: store.get, batchGet: store.batchGet, transactOnce: store.transactOnce };
    for (const name of ['get', 'batchGet', 'transactOnce'] as const) {
      const original = timed[name].bind(store) as (arg: never) => Promise<unknown>;
      Object.assign(store, {
        [name]: async (arg: never) => {
          const start = performance.now();
          try {
            return await original(arg);
          } finally {
            calls.push({ name, sk: name === 'get' ? String((arg as { SK: string }).SK) : '', start, end: performance.now() });
          }
        },
      });
    }
    try {
      await ok(editor, 'mutation($i: CreateJobInput!) { createJob(input: $i) { jobId } }', {
        i: { projectId, kind: 'BATCH', inputs: { label: 'rounds' }, items: [{ source: `tenants/${tenantId}/in/1.png` }] },
      });
    } finally {
      Object.assign(store, timed);
    }
    // Rounds of calls from the key's record read on: a call that starts after every call of the round before it ended starts a round.
    const ordered = calls.sort((a, b) => a.start - b.start);
    const from = ordered.findIndex((c) => c.sk === 'CREATE' || c.sk === 'TENANT');
    const rounds: string[][] = [];
    let ended = Number.NEGATIVE_INFINITY;
    for (const call of ordered.slice(from)) {
      if (rounds.length === 0 || call.start >= ended) {
        rounds.push([]);
        ended = call.end;
      }
      rounds[rounds.length - 1].push(call.name === 'get' ? `get ${call.sk}` : call.name);
      ended = Math.max(ended, call.end);
    }
    expect(rounds.slice(0, 3).map((round) => round.sort())).toEqual([['get CREATE', 'get TENANT'], ['batchGet'], ['transactOnce']]);
  });
});
