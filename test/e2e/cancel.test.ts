import { entities } from '../../src/common/entities';
import { openQueues } from '../../src/job/job.aggregate';
import { Role, startTestServer, type TestServer, STORES } from '../support/server';
import { waitFor } from '../support/wait';

/**
 * Cancellation that reaches every worker: a 500-item stage with 20 workers mid-flight is
 * cancelled; from the commit on no claim or report succeeds, each worker learns it within one call
 * (JOB_CANCELLED, or no work), the counters stay as the cancellation left them, and the settle
 * sweep cancels the unfinished items and empties the job's claimable index, shown by its entry's
 * absence. Real DynamoDB Local, a real server, concurrent workers over HTTP.
 */
describe.each(STORES)('cancelling a job while 20 workers are mid-flight, on %s', (store) => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer({ store, env: { JOB_LEASE_SECONDS: '600', JOB_SETTLE_SWEEP_MS: '100' } });
  });

  it('refuses every call after the commit, tells each worker within one call, keeps the counters and sweeps the items', async () => {
    const tenantId = `cancel-${Date.now()}`;
    const editor = await server.token(tenantId, [Role.EDITOR, Role.WORKER], 'artist');
    const gql = async (token: string, query: string, variables: Record<string, unknown> = {}) =>
      (await server.raw({ query, variables }, token)).body;
    const key = (name: string) => `tenants/${tenantId}/${name}`;
    const projectId = (await gql(editor, 'mutation { createProject(input: { title: "Cancel" }) { projectId } }')).data.createProject
      .projectId;
    const batch = (from: number, n: number) => Array.from({ length: n }, (_, i) => ({ source: key(`in/${from + i}.png`) }));
    const created = await gql(editor, 'mutation($i: CreateJobInput!) { createJob(input: $i) { jobId } }', {
      i: { projectId, kind: 'BATCH', items: batch(1, 50) },
    });
    const jobId: string = created.data.createJob.jobId;
    for (let from = 51; from <= 500; from += 75) {
      const n = Math.min(75, 501 - from);
      const added = await gql(
        editor,
        'mutation($j: ID!, $i: [JSONObject!]!) { addWorkItems(jobId: $j, stage: "process", items: $i) { jobId } }',
        {
          j: jobId,
          i: batch(from, n),
        },
      );
      expect(added.errors).toBeUndefined();
    }

    // Watches (and passes on) the store's transactions, keeping those that committed, to see how
    // the settle sweep writes the items (a transaction that lost a round is sent again).
    const send = server.app.store.transactOnce.bind(server.app.store);
    const committed: Parameters<typeof send>[0][] = [];
    const batched = jest.spyOn(server.app.store, 'transactOnce').mockImplementation(async (writes) => {
      const outcome = await send(writes);
      if (outcome === 'committed') committed.push(writes);
      return outcome;
    });

    // Each worker claims, reports progress and completes, and writes down every call: when it
    // started, and what it got.
    type Call = { worker: number; kind: string; startedAt: number; ok: boolean; empty?: boolean; code?: string };
    const calls: Call[] = [];
    let cancelledAt = Number.POSITIVE_INFINITY;
    let completed = 0;
    // The editor cancels the job once the workers have completed 60 items: the 60th completion
    // sets it off, while the workers go on.
    let sixtyCompleted!: () => void;
    const cancelled = new Promise<void>((resolve) => (sixtyCompleted = resolve)).then(async () => {
      const out = await gql(editor, 'mutation($j: ID!) { cancelJob(jobId: $j) { status } }', { j: jobId });
      if (out.errors) throw new Error(JSON.stringify(out.errors));
      cancelledAt = performance.now();
    });
    const call = async (worker: number, kind: string, token: string, query: string, variables: Record<string, unknown>) => {
      const startedAt = performance.now();
      const out = await gql(token, query, variables);
      const entry: Call = {
        worker,
        kind,
        startedAt,
        ok: !out.errors,
        empty: kind === 'claim' && !out.errors && !out.data.claimWork,
        code: out.errors?.[0]?.extensions?.code,
      };
      calls.push(entry);
      return { out, entry };
    };
    const ITEM = 'item { sequence attempt }';
    const workers = await Promise.all(Array.from({ length: 20 }, (_, n) => server.token(tenantId, [Role.WORKER], `worker-${n}`)));
    await Promise.all(
      workers.map(async (token, w) => {
        for (let guard = 0; guard < 200; guard++) {
          const claimed = await call(w, 'claim', token, `mutation { claimWork(kind: "BATCH") { ${ITEM} } }`, {});
          if (claimed.out.errors) throw new Error(JSON.stringify(claimed.out.errors));
          const item = claimed.out.data.claimWork?.item;
          // No work: the job is cancelled (or every item is taken); this worker stops.
          if (!item) return;
          const args = { j: jobId, n: item.sequence, a: item.attempt };
          const progress = await call(
            w,
            'progress',
            token,
            'mutation($j: ID!, $n: Int!, $a: Int!) { reportWorkItemProgress(jobId: $j, stage: "process", sequence: $n, attempt: $a, progress: 0.5) { status } }',
            args,
          );
          if (progress.entry.code === 'JOB_CANCELLED') return;
          const done = await call(
            w,
            'complete',
            token,
            'mutation($j: ID!, $n: Int!, $a: Int!, $o: JSONObject!) { completeWorkItem(jobId: $j, stage: "process", sequence: $n, attempt: $a, outputs: $o) { status } }',
            { ...args, o: { result: key(`out/${item.sequence}.png`) } },
          );
          if (done.entry.code === 'JOB_CANCELLED') return;
          if (!done.entry.ok) throw new Error(`complete failed: ${done.entry.code}`);
          if (++completed === 60) sixtyCompleted();
        }
      }),
    );
    await cancelled;

    // Nothing a worker started after the cancellation committed succeeded: a claim found no work,
    // a report or completion got JOB_CANCELLED.
    for (const c of calls.filter((c) => c.startedAt > cancelledAt)) {
      if (c.kind === 'claim') expect(c).toMatchObject({ ok: true, empty: true });
      else expect(c).toMatchObject({ ok: false, code: 'JOB_CANCELLED' });
    }
    // Each worker learnt it within one call: its calls are successes up to one that told it
    // (JOB_CANCELLED on the item it held, or a claim with no work), and that one is its last.
    let toldMidFlight = 0;
    for (let w = 0; w < workers.length; w++) {
      const own = calls.filter((c) => c.worker === w);
      const told = own.findIndex((c) => !c.ok || c.empty);
      expect(told).toBe(own.length - 1);
      if (own[told].code === 'JOB_CANCELLED') toldMidFlight++;
    }
    // Workers were holding items when the cancellation came (20 workers, each most of its time on a held item).
    expect(toldMidFlight).toBeGreaterThan(0);
    // The job's stream agrees: no item finished after the cancellation's event.
    const events = (await server.app.store.queryAll({ pk: entities.Job.key.pkOf(tenantId, { jobId }), skPrefix: 'EVENT#' })).filter((e) =>
      entities.JobEvent.is(e),
    );
    const cancelSeq = events.find((e) => e.type === 'JOB_CANCELLED')?.seq;
    expect(cancelSeq).toEqual(expect.any(Number));
    const finished = events.filter((e) => e.type === 'ITEM_COMPLETED');
    expect(finished).toHaveLength(completed);
    expect(events.filter((e) => e.seq > (cancelSeq ?? 0))).toEqual([]);

    const read = async () =>
      (
        await gql(editor, 'query($j: ID!) { job(jobId: $j) { status version itemCounts { total running completed failed } } }', {
          j: jobId,
        })
      ).data.job;
    const atCancel = await read();
    expect(atCancel).toMatchObject({ status: 'CANCELLED', itemCounts: { total: 500, completed } });

    // The settle sweep cancels the unfinished items and empties the job's claimable index; the
    // transaction that removes its entry is its last. That is awaited as the watch above recorded
    // it, not as the entry's absence in the store: another connection sees the entry gone as soon
    // as the transaction commits, before the server has taken in its answer (and the watch pushed
    // it), and a busy machine stretches that moment enough to count one page short.
    const settleKey = entities.JobSettle.keyOf(tenantId, { jobId });
    const removesEntry = (writes: Parameters<typeof send>[0]) =>
      writes.some((w) => w.key.PK === settleKey.PK && w.key.SK === settleKey.SK && w.action.op === 'Delete');
    await waitFor(async () => committed.some(removesEntry), 'the settle sweep removing its entry', { ms: 30_000, everyMs: 50 });
    expect(await server.app.store.get(settleKey)).toBeNull();
    // The sweep wrote the items a page at a time (40 rows, job.settle.ts), each page in one
    // transaction, not one transaction an item.
    const jobPk = entities.Job.key.pkOf(tenantId, { jobId });
    const settled = (writes: readonly { key: { PK: string; SK: string }; item?: Record<string, unknown> }[]) =>
      writes.filter((w) => w.key.PK === jobPk && w.key.SK.startsWith('ITEM#') && w.item?.expiresAt !== undefined);
    // The sweep's transactions are those that move (or remove) the job's JobSettle entry; a group
    // decided on the cancelled job also gives the items it changed their expiry.
    const sweeping = committed.filter((writes) => writes.some((w) => w.key.PK === settleKey.PK && w.key.SK === settleKey.SK));
    batched.mockRestore();
    // The cancel's own transaction writes the entry; then one transaction a page of 40 rows (the
    // 500 items and the job's step attempts; a page short of 40 is the last).
    const steps = (await server.app.store.queryAll({ pk: jobPk, skPrefix: 'STEP#' })).length;
    expect(sweeping.length).toBe(1 + Math.floor((500 + steps) / 40) + 1);
    const expired = new Set(committed.flatMap((writes) => settled(writes).map((w) => w.key.SK)));
    expect(expired.size).toBe(500);
    const claimable = await server.app.store.queryAll(entities.WorkItem.query(tenantId, 'claimableInJob', { jobId }));
    expect(claimable).toEqual([]);
    const items = (await server.app.store.queryAll(entities.WorkItem.key.prefixOf(tenantId, { jobId, stage: 'process' }))).filter((item) =>
      entities.WorkItem.is(item),
    );
    expect(items).toHaveLength(500);
    const byStatus = new Map<string, number>();
    for (const item of items) byStatus.set(item.status, (byStatus.get(item.status) ?? 0) + 1);
    expect(Object.fromEntries(byStatus)).toEqual({ COMPLETED: completed, CANCELLED: 500 - completed });
    for (const item of items) expect(item.expiresAt).toEqual(expect.any(Number));
    // The counters are final: the sweep changed no job field, and no report moved them.
    expect(await read()).toEqual(atCancel);
    expect(openQueues(server.app.store)).toBe(0);
  }, 180_000);
});
