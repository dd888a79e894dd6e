import { workSignalHubOf } from '../../src/events/work-signals';
import { startRedis } from '../support/redis';
import { Role, startTestServer, type TestServer } from '../support/server';
import { startTcpProxy } from '../support/tcp-proxy';
import { waitFor } from '../support/wait';
import { subscribe, wsClient } from '../support/ws';
import { batchJob, gqlAs } from '../support/worker-process';

/*
 * A lost worker's hand-back behind a load balancer (issue 49): two instances on one table and one
 * Redis, a worker's workSignals subscription on one (A) and its claims and reports on the other
 * (B), as a balancer sends them. What B serves is forwarded to A, where the subscription's end is
 * seen; a worker that subscribes again on B within the grace has its units handed over there.
 */

/** How long an instance waits for a lost worker to subscribe again (WORKER_GRACE_SECONDS). */
const GRACE_SECONDS = 1;
const SIGNALS = 'subscription($w: String) { workSignals(kinds: ["BATCH"], workerId: $w) { type } }';
const CLAIM = 'mutation($w: String) { claimWork(kind: "BATCH", workerId: $w) { item { sequence attempt } } }';

describe('workers bound across instances', () => {
  let a: TestServer;
  let b: TestServer;
  /** Each test's tenant, its own (a tenant-bound worker claims any of its tenant's work), with its editor's and worker's tokens. */
  let tenant = '';
  let tenants = 0;
  let editor: string;
  let worker: string;
  let projectId: string;
  const boundOf = (server: TestServer) => workSignalHubOf(server.app.bus).bound;
  /** What an instance holds for bound workers: records, units, hand-backs under way and workers' topics listened to. */
  const holding = (server: TestServer) => {
    const hub = workSignalHubOf(server.app.bus);
    return { records: hub.bound.count, units: hub.bound.held, topics: hub.boundListening };
  };
  const nothingHeld = { records: 0, units: 0, topics: 0 };
  const itemOf = async (jobId: string, sequence: number) =>
    (
      await gqlAs(a, editor, 'query($j: ID!) { job(jobId: $j) { items(first: 10) { nodes { sequence status attempt } } } }', { j: jobId })
    ).job.items.nodes.find((n: { sequence: number }) => n.sequence === sequence);

  beforeAll(async () => {
    const redis = await startRedis();
    const env = { REDIS_URL: redis.url, JOB_LEASE_SECONDS: '60', WORKER_GRACE_SECONDS: String(GRACE_SECONDS) };
    a = await startTestServer({ env });
    b = await startTestServer({ env: { ...env, TABLE_NAME: a.config.tableName } });
  });

  beforeEach(async () => {
    tenant = `bound-instances-${++tenants}`;
    editor = await a.token(tenant, [Role.EDITOR], 'artist');
    worker = await a.token(tenant, [Role.WORKER], 'gpu');
    projectId = (await gqlAs(a, editor, 'mutation { createProject(input: { title: "Instances" }) { projectId } }')).createProject.projectId;
  });

  it('a claim and a report served by the other instance bind and unbind the unit where the subscription is; a lost connection there hands back what is still held after the grace', async () => {
    const jobId = await batchJob((q, v) => gqlAs(a, editor, q, v), tenant, projectId, [{}, {}]);
    const proxy = await startTcpProxy(a.url);
    const through = `${proxy.url}${new URL(a.url).pathname}`;
    const subscription = subscribe(wsClient(through, worker), SIGNALS, { w: 'gpu-1' });
    await subscription.ack;
    await waitFor(async () => holding(a).topics === 1, "A listening on the worker's topic", { everyMs: 10 });

    const done = (await gqlAs(b, worker, CLAIM, { w: 'gpu-1' })).claimWork.item;
    await waitFor(async () => boundOf(a).held === 1, 'the claim served by B bound on A', { everyMs: 10 });
    expect(holding(b)).toEqual(nothingHeld);
    const COMPLETE =
      'mutation($j: ID!, $n: Int!, $a: Int!, $o: JSONObject!, $w: String) { completeWorkItem(jobId: $j, stage: "process", sequence: $n, attempt: $a, outputs: $o, workerId: $w) { status } }';
    const outputs = { result: `tenants/${tenant}/out/${done.sequence}.png` };
    await gqlAs(b, worker, COMPLETE, { j: jobId, n: done.sequence, a: done.attempt, o: outputs, w: 'gpu-1' });
    await waitFor(async () => boundOf(a).held === 0, 'the report served by B unbound on A', { everyMs: 10 });

    const kept = (await gqlAs(b, worker, CLAIM, { w: 'gpu-1' })).claimWork.item;
    await waitFor(async () => boundOf(a).held === 1, 'the second claim bound on A', { everyMs: 10 });
    const cutAt = Date.now();
    proxy.cut();
    await waitFor(async () => (await itemOf(jobId, kept.sequence))?.status === 'PENDING', 'the lost worker’s item handed back', {
      everyMs: 50,
    });
    const handBackMs = Date.now() - cutAt;
    console.log(`subscription on A, claim on B: connection cut → handed back ${handBackMs} ms (WORKER_GRACE_SECONDS ${GRACE_SECONDS})`);
    expect(handBackMs).toBeGreaterThanOrEqual(GRACE_SECONDS * 1000 - 20);
    // Far inside the 60 s lease: the hand-back, not the lease, made it claimable.
    expect(handBackMs).toBeLessThan(GRACE_SECONDS * 1000 + 2000);
    expect(await itemOf(jobId, done.sequence)).toMatchObject({ status: 'COMPLETED', attempt: 1 });
    await waitFor(async () => holding(a).records === 0 && holding(a).topics === 0, 'A released everything', { everyMs: 10 });
    expect({ a: holding(a), b: holding(b) }).toEqual({ a: nothingHeld, b: nothingHeld });
  });

  it('a worker that subscribes again on the other instance within the grace keeps its unit: its record moves there, and a clean end there hands nothing back', async () => {
    const jobId = await batchJob((q, v) => gqlAs(a, editor, q, v), tenant, projectId, [{}]);
    const proxy = await startTcpProxy(a.url);
    const first = subscribe(wsClient(`${proxy.url}${new URL(a.url).pathname}`, worker), SIGNALS, { w: 'gpu-2' });
    await first.ack;
    const held = (await gqlAs(b, worker, CLAIM, { w: 'gpu-2' })).claimWork.item;
    await waitFor(async () => boundOf(a).held === 1, 'the claim bound on A', { everyMs: 10 });
    proxy.cut();
    await waitFor(async () => boundOf(a).graces === 1, 'the grace started on A', { everyMs: 10 });
    const again = subscribe(wsClient(b.url, worker), SIGNALS, { w: 'gpu-2' });
    await again.ack;
    await waitFor(async () => boundOf(b).held === 1 && boundOf(a).count === 0, 'the unit handed over from A to B', { everyMs: 10 });
    // A's grace is called off with its record (no timer left there to hand the unit back).
    expect(holding(a)).toEqual(nothingHeld);
    again.stop();
    await waitFor(async () => holding(b).records === 0 && holding(b).topics === 0, 'B forgot the worker that ended cleanly', {
      everyMs: 10,
    });
    expect({ a: holding(a), b: holding(b) }).toEqual({ a: nothingHeld, b: nothingHeld });
    expect(await itemOf(jobId, held.sequence)).toMatchObject({ status: 'RUNNING', attempt: 1 });
  });

  // Last: it stops B.
  it("a stopping instance lets go of its bound workers' records and topics, and hands nothing back", async () => {
    const jobId = await batchJob((q, v) => gqlAs(a, editor, q, v), tenant, projectId, [{}]);
    const open = subscribe(wsClient(b.url, worker), SIGNALS, { w: 'gpu-3' });
    await open.ack;
    const held = (await gqlAs(a, worker, CLAIM, { w: 'gpu-3' })).claimWork.item;
    await waitFor(async () => boundOf(b).held === 1, 'the claim served by A bound on B', { everyMs: 10 });
    const listenersBefore = b.app.bus.listenerCount();
    await b.stop();
    expect({ b: holding(b), listeners: b.app.bus.listenerCount() }).toEqual({ b: nothingHeld, listeners: 0 });
    expect(listenersBefore).toBeGreaterThan(0);
    // A server that closes hands nothing back: the worker reconnects elsewhere or its lease ends it.
    expect(await itemOf(jobId, held.sequence)).toMatchObject({ status: 'RUNNING', attempt: 1 });
    open.stop();
  });
});
