/** @long Started first on a clean clone (test/support/sequencer.js): one of the slowest files. */
import { keptJobStates, openQueues } from '../../src/job/job.aggregate';
import { Role, startTestServer, type TestServer } from '../support/server';
import { subscribe, wsClient } from '../support/ws';

/**
 * A 10,000-item stage (issue 31): added by concurrent addWorkItems calls on one job, claimed and
 * completed by 50 concurrent workers over HTTP against one server. Each item is completed exactly
 * once, the counters are exact, the job's stream is gapless (each item's ITEM_STARTED and
 * ITEM_COMPLETED once), the job completes, and the job can then be deleted (its partition holds
 * over 20,000 rows, far more than one transaction). Real DynamoDB Local, a real server.
 */
describe('a 10,000-item stage', () => {
  const ITEMS = 10_000;
  const WORKERS = 50;
  /** Items one addWorkItems takes (MAX_ITEMS_PER_ADD), and how many such calls run at once. */
  const PER_ADD = 80;
  const ADDERS = 8;
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer({
      env: {
        JOB_LEASE_SECONDS: '600',
        // No timed settle sweep: once the job completes it would rewrite each of its 10,000 items
        // with the job's expiry (100 transactions of 100) while the stream is replayed, all of it
        // deleted right after. The test sweeps itself after the deletion, which purges the partition.
        JOB_SETTLE_SWEEP_MS: '3600000',
      },
    });
  });

  const JOB = 'jobId status seq version itemCounts { total pending running completed failed }';

  it('50 workers complete each of 10,000 items exactly once: exact counters, a gapless stream, the job completed, then deleted', async () => {
    const tenantId = `scale-${Date.now()}`;
    const editor = await server.token(tenantId, [Role.EDITOR], 'artist');
    const gql = async (token: string, query: string, variables: Record<string, unknown> = {}) => {
      const { body } = await server.raw({ query, variables }, token);
      if (body.errors) throw new Error(JSON.stringify(body.errors));
      return body.data;
    };
    const key = (name: string) => `tenants/${tenantId}/${name}`;
    const batch = (from: number, n: number) => Array.from({ length: n }, (_, i) => ({ source: key(`in/${from + i}.png`) }));
    const { projectId } = (await gql(editor, 'mutation { createProject(input: { title: "Scale" }) { projectId } }')).createProject;
    const created = (
      await gql(editor, `mutation($i: CreateJobInput!) { createJob(input: $i) { ${JOB} } }`, {
        i: { projectId, kind: 'BATCH', items: batch(1, 50) },
      })
    ).createJob;
    const jobId: string = created.jobId;

    // The rest in calls of PER_ADD, ADDERS at a time on the one job: they are commands on the job's
    // committer, so each gets its own sequence numbers and the counters add up.
    const feeder = await server.token(tenantId, [Role.WORKER], 'feeder');
    const chunks: number[] = [];
    for (let from = 51; from <= ITEMS; from += PER_ADD) chunks.push(from);
    const addStarted = performance.now();
    await Promise.all(
      Array.from({ length: ADDERS }, async () => {
        for (let from = chunks.shift(); from !== undefined; from = chunks.shift()) {
          await gql(feeder, 'mutation($j: ID!, $i: [JSONObject!]!) { addWorkItems(jobId: $j, stage: "process", items: $i) { jobId } }', {
            j: jobId,
            i: batch(from, Math.min(PER_ADD, ITEMS + 1 - from)),
          });
        }
      }),
    );
    const addSeconds = (performance.now() - addStarted) / 1000;
    const job = async () => (await gql(editor, `query($j: ID!) { job(jobId: $j) { ${JOB} } }`, { j: jobId })).job;
    expect((await job()).itemCounts).toEqual({ total: ITEMS, pending: ITEMS, running: 0, completed: 0, failed: 0 });

    const tokens = await Promise.all(Array.from({ length: WORKERS }, (_, n) => server.token(tenantId, [Role.WORKER], `worker-${n}`)));
    const completions: number[] = [];
    let finished = false;
    await server.resetCalls();
    const started = performance.now();
    await Promise.all(
      tokens.map(async (token) => {
        while (!finished) {
          const claimed = (await gql(token, 'mutation { claimWork(kind: "BATCH", stage: "process") { item { sequence attempt } } }'))
            .claimWork;
          if (!claimed) {
            // Nothing claimable now: the others hold the last items, or the job is done.
            if ((await job()).status === 'COMPLETED') finished = true;
            continue;
          }
          const { sequence, attempt } = claimed.item;
          await gql(
            token,
            'mutation($j: ID!, $n: Int!, $a: Int!, $o: JSONObject!) { completeWorkItem(jobId: $j, stage: "process", sequence: $n, attempt: $a, outputs: $o) { status } }',
            { j: jobId, n: sequence, a: attempt, o: { result: key(`out/${sequence}.png`) } },
          );
          completions.push(sequence);
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    console.log(
      `${ITEMS} items: added in ${addSeconds.toFixed(1)} s; claimed and completed by ${WORKERS} workers in ${seconds.toFixed(1)} s (${(ITEMS / seconds).toFixed(1)} items/s)`,
    );

    const perItem = (counts: Map<string, number>) => [...counts].map(([command, n]) => `${command} ${(n / ITEMS).toFixed(2)}`).join(', ');
    console.log(
      `DynamoDB calls per item: ${perItem(server.app.calls.byCommand)}; items read per item: ${perItem(server.app.calls.itemsByCommand)}`,
    );
    expect(completions).toHaveLength(ITEMS);
    expect(completions.sort((a, b) => a - b)).toEqual(Array.from({ length: ITEMS }, (_, i) => i + 1));
    expect(openQueues(server.app.store)).toBe(0);
    // The last group completed the stage (a step changed), so no state of the job is kept for a next one.
    expect(keptJobStates(server.app.store)).toBe(0);
    const final = await job();
    expect(final).toMatchObject({
      status: 'COMPLETED',
      itemCounts: { total: ITEMS, pending: 0, running: 0, completed: ITEMS, failed: 0 },
    });

    // The stream from 0: created, stage started, one ITEMS_ADDED a call, each item's start and
    // completion, the stage's completion (which completes the job); seq 1..N without a gap.
    const adds = Math.ceil((ITEMS - 50) / PER_ADD);
    const total = 1 + 1 + adds + 2 * ITEMS + 1;
    expect(final.seq).toBe(total);
    const client = wsClient(server.url, editor);
    const replay = subscribe(client, 'subscription($j: ID!) { jobProgress(jobId: $j, afterSeq: 0) { seq type item { sequence } } }', {
      j: jobId,
    });
    await replay.ack;
    const events: { seq: number; type: string; item?: { sequence: number } }[] = await replay.waitFor(total, 120_000);
    await replay.done;
    expect(events.map((e) => e.seq)).toEqual(Array.from({ length: total }, (_, i) => i + 1));
    const sequences = (type: string) =>
      events
        .filter((e) => e.type === type)
        .map((e) => e.item?.sequence ?? 0)
        .sort((a, b) => a - b);
    const each = Array.from({ length: ITEMS }, (_, i) => i + 1);
    expect(sequences('ITEM_STARTED')).toEqual(each);
    expect(sequences('ITEM_COMPLETED')).toEqual(each);
    expect(events.filter((e) => e.type === 'ITEMS_ADDED')).toHaveLength(adds);

    // Deleting it: the job goes at once, its 10,000 items and 20,000 events after it, in bounded
    // transactions; nothing of its partition is left.
    const deleted = (await gql(editor, 'mutation($j: ID!) { deleteJob(jobId: $j) { jobId status } }', { j: jobId })).deleteJob;
    expect(deleted).toEqual({ jobId, status: 'COMPLETED' });
    expect(
      (await server.raw({ query: `query($j: ID!) { job(jobId: $j) { jobId } }`, variables: { j: jobId } }, editor)).body.data.job,
    ).toBeNull();
    const partition = `TENANT#${tenantId}#JOB#${jobId}`;
    // No timed sweep runs here (JOB_SETTLE_SWEEP_MS): each sweep purges what it finds; sweep until no entry is left.
    do await server.app.settler.sweep();
    while ((await server.app.settler.pending()) > 0);
    expect(await server.app.store.queryFirst({ pk: partition }, 1)).toEqual([]);
  }, 900_000);
});
