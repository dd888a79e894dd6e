import { join } from 'node:path';
import { workSignalHubOf } from '../../src/events/work-signals';
import { ROOT } from '../support/processes';
import { Role, startTestServer, type TestServer } from '../support/server';
import { waitFor } from '../support/wait';
import { gqlAs, PYTHON_WORKER, type Proc, startWorker } from '../support/worker-process';
import { subscribe, wsClient } from '../support/ws';

/*
 * Issue 49's "a handler busy for 60 s with leases of 10 s keeps its lease throughout", for both
 * SDKs, each a worker process against the real server, scaled down by the lease so that both runs
 * fit this file in about 30 s (the issue's numbers would take two minutes): leases of 3 s
 * (JOB_LEASE_SECONDS) instead of 10 s, and a handler busy for 9 s, three leases rather than the
 * issue's six. That still takes about nine renewals (one every third of the lease); without them
 * the lease runs out 6 s before the handler returns, and the rival below takes the item. Leases of
 * 2 s left a renewal 1.3 s between its send and the lease's end, less than a loaded two-core
 * machine's server took to commit one in a CI run (0.4 s past the end).
 *
 * Everything is seen from outside: the job's event stream (jobProgress) shows each renewal as an
 * ITEM_PROGRESS whose item carries the new leaseExpiresAt, and a rival worker claims the stage all
 * along, so a lease that ran out would be taken over (BATCH retries after a backoff, so the rival's
 * claim would fail the attempt with LEASE_EXPIRED: ITEM_ATTEMPT_FAILED) rather than go unnoticed.
 */

const LEASE_SECONDS = 3;
const BUSY_SECONDS = 9;
/** The item events that say an attempt ended before its handler returned. */
const LOST_EVENTS = ['ITEM_ATTEMPT_FAILED', 'ITEM_RECLAIMED', 'ITEM_FAILED', 'ITEM_HANDED_BACK'];
const JOB_EVENTS = `subscription($jobId: ID!) { jobProgress(jobId: $jobId, afterSeq: 0) {
  seq type at item { sequence attempt status leaseExpiresAt error { code } } } }`;
const CLAIM = 'mutation { claimWork(kind: "BATCH", stage: "process") { item { sequence attempt } } }';
const SIGNALS = 'subscription { workSignals(kinds: ["BATCH"]) { type kind stage jobId reason } }';

let TENANT = '';
let tenants = 0;

describe(`leases of ${LEASE_SECONDS} s: a busy handler keeps its lease, a crashed worker's lapses into an idle worker's hands`, () => {
  let server: TestServer;
  let editor: string;
  let projectId: string;
  const gql = (query: string, variables: Record<string, unknown> = {}, token = editor) => gqlAs(server, token, query, variables);
  const env = async (sub: string) => ({ ARTISSIST_URL: server.url, ARTISSIST_TOKEN: await server.token(TENANT, [Role.WORKER], sub) });

  beforeAll(async () => {
    server = await startTestServer({ env: { JOB_LEASE_SECONDS: String(LEASE_SECONDS) } });
  });

  beforeEach(async () => {
    TENANT = `lease-${++tenants}`;
    editor = await server.token(TENANT, [Role.EDITOR], 'artist');
    projectId = (await gql('mutation { createProject(input: { title: "Leases" }) { projectId } }')).createProject.projectId;
  });

  /**
   * Runs one BATCH item on the worker `start` makes, with a rival claiming beside it, and checks
   * from the job's events that the attempt held its lease from claim to completion.
   */
  const keepsItsLease = async (start: () => Promise<Proc>) => {
    const { jobId } = (
      await gql('mutation($input: CreateJobInput!) { createJob(input: $input) { jobId } }', {
        input: {
          projectId,
          kind: 'BATCH',
          inputs: { label: 'busy' },
          // The Python fixture reads how long to be busy from the item; the TypeScript one from BUSY_MS.
          items: [{ source: `tenants/${TENANT}/in/1.png`, params: { busy: { 1: BUSY_SECONDS } } }],
        },
      })
    ).createJob;
    const events = subscribe<any>(wsClient(server.url, editor), JOB_EVENTS, { jobId });
    await events.ack;
    const worker = await start();
    const claimed = await worker.until((l) => l.event === 'claimed', 'the claim');
    // A rival worker claims the stage while the handler is busy (claims are pulled: this is the
    // claim loop a rival would run): a lease that ran out would be taken from the busy worker.
    const rival = await server.token(TENANT, [Role.WORKER], 'rival');
    const rivalClaims: unknown[] = [];
    const returned = await waitFor(
      async () => {
        const { claimWork } = await gql(CLAIM, {}, rival);
        if (claimWork) rivalClaims.push(claimWork);
        return worker.lines.find((l) => l.event === 'returned') ?? (rivalClaims.length > 0 && { rival: rivalClaims });
      },
      () => `the handler returned; the worker printed:\n${worker.output()}`,
      { everyMs: 250 },
    );
    // The item's last event: its completion, or the end of its attempt before the handler returned.
    await waitFor(async () => events.received.some((e) => e.type === 'ITEM_COMPLETED' || LOST_EVENTS.includes(e.type)), 'the item done', {
      ms: 20_000,
      everyMs: 50,
    });
    const items = events.received.filter((e) => e.item);
    expect(items.filter((e) => LOST_EVENTS.includes(e.type))).toEqual([]);
    expect(rivalClaims).toEqual([]);
    expect(items.map((e) => [e.item.attempt, e.item.error])).toEqual(items.map(() => [1, null]));
    // The handler was busy the whole time: past the lease three times over.
    expect(returned.at - claimed.at).toBeGreaterThanOrEqual(BUSY_SECONDS);
    const startedEvent = items.find((e) => e.type === 'ITEM_STARTED');
    const renewals = items.filter((e) => e.type === 'ITEM_PROGRESS');
    const completed = items.find((e) => e.type === 'ITEM_COMPLETED');
    expect(completed).toMatchObject({ item: { status: 'COMPLETED', attempt: 1 } });
    // Renewed every third of the lease, about nine times; a 3 s lease spans 9 s with three renewals only if each came at its last moment.
    expect(renewals.length).toBeGreaterThanOrEqual(BUSY_SECONDS / LEASE_SECONDS + 1);
    // Each renewal and the completion came while the lease before it still held, and each renewal moved it on.
    const gaps: string[] = [];
    let lease = Date.parse(startedEvent.item.leaseExpiresAt);
    for (const event of [...renewals, completed]) {
      const at = Date.parse(event.at);
      if (at >= lease)
        gaps.push(`${event.type} #${event.seq} at ${event.at}, the lease having run out at ${new Date(lease).toISOString()}`);
      if (event.type === 'ITEM_PROGRESS') {
        const next = Date.parse(event.item.leaseExpiresAt);
        if (next <= lease) gaps.push(`${event.type} #${event.seq} did not move the lease on (${event.item.leaseExpiresAt})`);
        lease = next;
      }
    }
    expect(gaps).toEqual([]);
    // The completion was accepted: the job completed, and the worker counted the unit as completed.
    await waitFor(
      async () => (await gql('query($j: ID!) { job(jobId: $j) { status } }', { j: jobId })).job.status === 'COMPLETED',
      'the job completed',
    );
    worker.child.kill('SIGTERM');
    expect(await worker.exited).toMatchObject({ code: 0 });
    expect(worker.lines.find((l) => l.event === 'exited')).toMatchObject({ completed: 1 });
    console.log(
      `${BUSY_SECONDS} s busy, ${LEASE_SECONDS} s leases: ${renewals.length} renewals, the handler returned ${(returned.at - claimed.at).toFixed(1)} s after its claim`,
    );
  };

  it('Python: a handler busy in CPU-bound Python (a loop that never sleeps or waits: it lets go of the GIL only at the interpreter’s switch interval) keeps its lease, renewed from the SDK’s own thread', async () => {
    await keepsItsLease(async () => startWorker('python3', [PYTHON_WORKER], await env('py-busy')));
  });

  it('TypeScript: a handler that blocks its event loop (in one piece, never awaiting) keeps its lease, renewed from the SDK’s own thread', async () => {
    await keepsItsLease(async () =>
      startWorker(process.execPath, [join(ROOT, 'test/fixtures/workers/busy_worker.cjs')], {
        ...(await env('ts-busy')),
        BUSY_MS: String(BUSY_SECONDS * 1000),
        SLICE_MS: String(BUSY_SECONDS * 1000),
      }),
    );
  });

  it('a crashed worker’s item is pushed to an idle worker as its lease runs out (the server watches the job’s leases), and the watch ends with the job', async () => {
    const idle = subscribe<any>(wsClient(server.url, await server.token(TENANT, [Role.WORKER], 'idle')), SIGNALS);
    await idle.ack;
    const { jobId } = (
      await gql('mutation($input: CreateJobInput!) { createJob(input: $input) { jobId } }', {
        input: { projectId, kind: 'BATCH', inputs: { label: 'crash' }, items: [{ source: `tenants/${TENANT}/in/1.png` }] },
      })
    ).createJob;
    expect((await idle.waitFor(1))[0]).toMatchObject({ type: 'WORK_AVAILABLE', jobId });
    // The worker that crashes: it claims the item and is never heard of again (no renewal, no report).
    const crashed = await server.token(TENANT, [Role.WORKER], 'crashed');
    const { claimWork } = await gql(
      'mutation { claimWork(kind: "BATCH", stage: "process") { item { attempt leaseExpiresAt } } }',
      {},
      crashed,
    );
    expect(claimWork.item.attempt).toBe(1);
    // The idle worker claims nothing meanwhile. What it hears before the lease ends can only say the
    // item waits (a look of the server's that came before the claim committed, on a slow machine);
    // the first thing it hears after is the lapsed item.
    const leaseEnd = Date.parse(claimWork.item.leaseExpiresAt);
    let pushed: any;
    for (let n = 2; !pushed; n++) {
      const signal = (await idle.waitFor(n))[n - 1];
      expect(signal).toMatchObject({ type: 'WORK_AVAILABLE', kind: 'BATCH', stage: 'process', jobId });
      if (Date.now() >= leaseEnd) pushed = signal;
    }
    // Told within a lease of its end, where an idle SDK worker would otherwise look only at its 30 s fallback.
    const late = Date.now() - leaseEnd;
    expect(late).toBeLessThan(LEASE_SECONDS * 1000);
    // Its claim takes the lapsed attempt over (BATCH retries it after a backoff: the attempt failed, LEASE_EXPIRED).
    await gql(CLAIM, {}, await server.token(TENANT, [Role.WORKER], 'idle'));
    const item = (await gql('query($j: ID!) { job(jobId: $j) { items(first: 1) { nodes { attempt error { code } } } } }', { j: jobId })).job
      .items.nodes[0];
    expect(item).toMatchObject({ attempt: 2 });
    console.log(`a crashed worker's lease ran out: the idle worker was told ${late} ms later (leases of ${LEASE_SECONDS} s)`);
    // A cancelled job has no work left: the next look ends its watch.
    await gql('mutation($j: ID!) { cancelJob(jobId: $j) { status } }', { j: jobId });
    const hub = workSignalHubOf(server.app.bus);
    await waitFor(async () => hub.watched === 0, 'the watch ended', { ms: 3 * LEASE_SECONDS * 1000, everyMs: 50 });
  });
});
