import { testEndpoint } from '../support/dynamo';
import { type KeyCounts, type PartitionProxy, startPartitionProxy } from '../support/partition-proxy';
import { Role, startTestServer, type TestServer } from '../support/server';
import { waitFor } from '../support/wait';
import { subscribe, wsClient } from '../support/ws';

/**
 * DynamoDB's per-partition limits (1,000 write and 3,000 read units a second per partition key)
 * at a ninth, emulated in front of DynamoDB Local (test/support/partition-proxy.ts): one job's
 * fan-out stage worked off by many workers at once, beside a tenant's creates. The server absorbs
 * the throttling with the SDK's backoff, loses nothing, never answers a client 500 or INTERNAL,
 * and the emulator names the hot keys (docs/scaling.md, "DynamoDB's partition limits").
 */
describe("DynamoDB's partition limits, emulated", () => {
  /**
   * The limits' divisor: 111 WCU and 333 RCU a second per key. At a ninth the job's partition (9.3
   * WCU an item, measured) lets about 12 items a second through, below the 14 to 22 this shared
   * machine does unthrottled, so the throttling binds; the stage takes about 25 s.
   */
  const SCALE = 9;
  const ITEMS = 50 + 3 * 80;
  const WORKERS = 24;
  const TENANT = 'hot-co';
  /** The status-change case: its jobs (two changes each), projects and concurrent writers, and its write limit a key. */
  const JOBS = 32;
  const PROJECTS = 16;
  const WRITERS = 16;
  /**
   * A 167th of DynamoDB's limit: the tenant's stream as one partition (about 5 WCU a change) would
   * take 1.2 changes a second, the binding keys now (a stream shard, under 1 WCU a change) about
   * 6.5, well below the 11 to 14 a second this shared machine does with no limit at all.
   */
  const STATUS_WCU = 6;
  /** The one-project case: its writers, their logs in all, and its write limit a key. */
  const PROJECT_WRITERS = 25;
  const LOGS = 75;
  const PROJECT_WCU = 24;
  let server: TestServer;
  /** Every error code a client saw, and every HTTP status other than 200. */
  const codes = new Map<string, number>();
  const statuses = new Map<number, number>();

  /**
   * Sends a GraphQL call as a client would: a SERVICE_UNAVAILABLE (the documented answer to an
   * outage or throttling the server's retries did not absorb) is sent again until another answer
   * comes (every 500 ms, for at most 20 s), as the worker SDK does; every other answer is returned.
   */
  const gql = (token: string, query: string, variables: Record<string, unknown> = {}): Promise<any> =>
    waitFor(
      async () => {
        const { status, body } = await server.raw({ query, variables }, token);
        if (status !== 200) statuses.set(status, (statuses.get(status) ?? 0) + 1);
        const code = body?.errors?.[0]?.extensions?.code as string | undefined;
        if (code) codes.set(code, (codes.get(code) ?? 0) + 1);
        return code !== 'SERVICE_UNAVAILABLE' && body;
      },
      `an answer other than SERVICE_UNAVAILABLE to ${query.slice(0, 60)}`,
      { ms: 20_000, everyMs: 500 },
    );

  let proxy: PartitionProxy;

  /**
   * The token of `user` with `roles` in `tenant`, on the ENTERPRISE plan (whose running jobs and
   * request rates hold a run; set before the tenant sends anything), with the limits lifted for
   * the set-up that follows (its creates load the keys a case does not measure).
   */
  const enterpriseToken = async (tenant: string, roles: Role[], user: string) => {
    proxy.limits.wcuPerSecond = 1e6;
    proxy.limits.rcuPerSecond = 1e6;
    const plan = await gql(await server.operatorToken(), 'mutation($t: ID!) { setTenantPlan(tenantId: $t, plan: ENTERPRISE) { plan } }', {
      t: tenant,
    });
    expect(plan.errors).toBeUndefined();
    return server.token(tenant, roles, user);
  };

  /** From now on, `wcu` write units a second on every key (and three times as many read units), counted afresh. */
  const limitEachKeyTo = (wcu: number) => {
    proxy.limits.wcuPerSecond = wcu;
    proxy.limits.rcuPerSecond = 3 * wcu;
    proxy.reset();
  };

  /** No client saw a 5xx other than the documented 503 of SERVICE_UNAVAILABLE, nor INTERNAL. */
  const expectNoServerErrors = () => {
    expect([...statuses.keys()].filter((status) => status !== 503)).toEqual([]);
    expect([...codes.keys()].filter((code) => code !== 'SERVICE_UNAVAILABLE')).toEqual([]);
  };

  beforeAll(async () => {
    proxy = await startPartitionProxy(testEndpoint(), {
      wcuPerSecond: 1000 / SCALE,
      rcuPerSecond: 3000 / SCALE,
      burstSeconds: 1,
      // DynamoDB's own answer to a throttled transaction: a TransactionCanceledException with
      // ThrottlingError reasons, which the SDK does not retry; the store retries it with backoff
      // and past its bound answers SERVICE_UNAVAILABLE (it reached clients as INTERNAL before).
      transactionAnswer: 'cancellation',
    });
    server = await startTestServer({
      env: {
        DYNAMODB_ENDPOINT: proxy.url,
        JOB_LEASE_SECONDS: '600',
        // No timed settle sweep: it would rewrite the first case's finished job (its items, with
        // their expiry) while a later case runs, and those units, on keys that case never writes,
        // would be counted as the key that binds it.
        JOB_SETTLE_SWEEP_MS: '3600000',
      },
    });
  }, 60_000);

  it('throttles the hot keys of a 290-item stage and 24 workers, and the server still completes every item with no 5xx', async () => {
    const editor = await server.token(TENANT, [Role.EDITOR], 'artist');
    const projectId = (await gql(editor, 'mutation { createProject(input: { title: "Hot" }) { projectId } }')).data.createProject.projectId;
    const created = await gql(editor, 'mutation($input: CreateJobInput!) { createJob(input: $input) { jobId } }', {
      input: {
        projectId,
        kind: 'BATCH',
        inputs: { label: 'hot' },
        items: Array.from({ length: 50 }, (_, i) => ({ source: `tenants/${TENANT}/in/${i}.png` })),
      },
    });
    expect(created.errors).toBeUndefined();
    const jobId: string = created.data.createJob.jobId;
    const workers = await Promise.all(Array.from({ length: WORKERS }, (_, n) => server.token(TENANT, [Role.WORKER], `worker-${n}`)));
    for (let call = 0; call < 3; call++) {
      const added = await gql(
        workers[0],
        'mutation($j: ID!, $i: [JSONObject!]!) { addWorkItems(jobId: $j, stage: "process", items: $i) { jobId } }',
        {
          j: jobId,
          i: Array.from({ length: 80 }, (_, i) => ({ source: `tenants/${TENANT}/in/${50 + call * 80 + i}.png` })),
        },
      );
      expect(added.errors).toBeUndefined();
    }
    proxy.reset();
    const started = performance.now();
    const completed: number[] = [];
    const work = Promise.all(
      workers.map(async (token) => {
        for (;;) {
          const claimed = (
            await gql(token, 'mutation { claimWork(kind: "BATCH", stage: "process") { job { jobId } item { sequence attempt } } }')
          ).data?.claimWork;
          if (!claimed) return;
          const done = await gql(
            token,
            'mutation($j: ID!, $n: Int!, $a: Int!, $o: JSONObject!) { completeWorkItem(jobId: $j, stage: "process", sequence: $n, attempt: $a, outputs: $o) { status } }',
            {
              j: claimed.job.jobId,
              n: claimed.item.sequence,
              a: claimed.item.attempt,
              o: { result: `tenants/${TENANT}/out/${claimed.item.sequence}.png` },
            },
          );
          expect(done.errors).toBeUndefined();
          completed.push(claimed.item.sequence);
        }
      }),
    );
    // The tenant's people meanwhile: new projects and logs, 8 at a time.
    const people = (async () => {
      for (let round = 0; round < 5; round++)
        await Promise.all(
          Array.from({ length: 8 }, async (_, i) => {
            const created = await gql(editor, 'mutation($t: String!) { createProject(input: { title: $t }) { projectId } }', {
              t: `P${round}-${i}`,
            });
            expect(created.errors).toBeUndefined();
            const logged = await gql(
              editor,
              'mutation($p: ID!, $t: String!) { createLog(projectId: $p, input: { rawText: $t, materials: ["gesso"], timeSpentMinutes: 5 }) { logId } }',
              { p: i % 2 ? projectId : created.data.createProject.projectId, t: `log ${round}-${i}` },
            );
            expect(logged.errors).toBeUndefined();
            // A job without items: a status change on the tenant's and the project's job-status streams.
            const job = await gql(editor, 'mutation($input: CreateJobInput!) { createJob(input: $input) { jobId } }', {
              input: { projectId, kind: 'RENDER_HOT', steps: ['render'], inputs: { n: `${round}-${i}` } },
            });
            expect(job.errors).toBeUndefined();
          }),
        );
    })();
    await Promise.all([work, people]);
    const seconds = (performance.now() - started) / 1000;

    // The figures docs/scaling.md quotes: units per item on each hot key, and the rate.
    const perItem = (c: KeyCounts) =>
      `${c.key.padEnd(60)} ${(c.wcu / ITEMS).toFixed(2).padStart(7)} WCU/item ${(c.rcu / ITEMS).toFixed(2).padStart(7)} RCU/item  ${c.throttled} throttled of ${c.calls}`;
    process.stdout.write(
      `partitions: ${ITEMS} items in ${seconds.toFixed(1)} s (${(ITEMS / seconds).toFixed(1)} items/s) at 1/${SCALE} of the limits ` +
        `(the job partition's ceiling: ${(proxy.limits.wcuPerSecond / (proxy.hottest(1)[0].wcu / ITEMS)).toFixed(1)} items/s); ` +
        `throttled calls ${JSON.stringify(Object.fromEntries(proxy.throttledCalls))}; client codes ${JSON.stringify(Object.fromEntries(codes))}\n` +
        `${proxy.hottest(12).map(perItem).join('\n')}\nby throttled:\n${proxy.hottest(6, 'throttled').map(perItem).join('\n')}\n`,
    );
    // What a claim reads of the tenant's claimable index (its stage's partition, in shards): Queries and read units a claim.
    const claimReads = proxy.counts().filter((c) => c.key.startsWith(`GSI3PK=TENANT#${TENANT}#WORK#CLAIMABLE#BATCH#process`));
    const claimQueries = claimReads.reduce((sum, c) => sum + (proxy.queries.get(c.key) ?? 0), 0);
    process.stdout.write(
      `claim reads: ${(claimQueries / ITEMS).toFixed(2)} Queries and ${(claimReads.reduce((sum, c) => sum + c.rcu, 0) / ITEMS).toFixed(2)} RCU ` +
        `of the claimable index a claim, over ${claimReads.length} of its shards\n`,
    );
    expect(completed.sort((a, b) => a - b)).toEqual(Array.from({ length: ITEMS }, (_, i) => i + 1));
    const job = (await gql(editor, 'query($j: ID!) { job(jobId: $j) { status itemCounts { completed } } }', { j: jobId })).data.job;
    expect(job).toEqual({ status: 'COMPLETED', itemCounts: { completed: ITEMS } });
    expectNoServerErrors();

    // The emulator refused calls, and on the keys it names hottest.
    const throttled = [...proxy.throttledCalls.values()].reduce((a, b) => a + b, 0);
    expect(throttled).toBeGreaterThan(0);
    const hot = proxy.hottest(12);
    // The job's own partition (its item, rewritten by every group, and its items) is the hottest
    // key and the one throttled first.
    expect(hot[0].key).toBe(`PK=TENANT#${TENANT}#JOB#${jobId}`);
    expect(proxy.hottest(1, 'throttled')[0].key).toBe(hot[0].key);
    expect(hot[0].throttled).toBeGreaterThan(0);
    // An item's two events cost 2 units each in their transaction, not 4: their rows stay under
    // 1 KB since the copies of the job and the item leave out what the event says (13.2 units an
    // item before, 9.3 after; the item's three writes and its share of the job's rewrites remain).
    expect(hot[0].wcu / ITEMS).toBeLessThan(10.5);
    // The stage went no faster than the job partition's limit lets through at the units it measured an item (the burst allowance aside).
    const ceiling = proxy.limits.wcuPerSecond / (hot[0].wcu / ITEMS);
    expect(ITEMS / seconds).toBeLessThanOrEqual(ceiling * 1.2);
    const keys = hot.map((c) => c.key);
    // Then the job's claimable-items index partition, an outbox shard, the tenant's partition and its job-status stream.
    expect(keys).toContain(`GSI4PK=TENANT#${TENANT}#JOB#${jobId}#WORK`);
    expect(keys.some((key) => key.startsWith('OUTBOXPK=OUTBOX#'))).toBe(true);
    expect(keys).toContain(`PK=TENANT#${TENANT}`);
    // The tenant's job status changes (its 40 jobs' and the stage's) spread over its stream's shards.
    const shards = proxy.counts().filter((c) => c.key.startsWith(`PK=TENANT#${TENANT}#JOBSTATUS`));
    expect(shards.length).toBeGreaterThan(8);
  }, 120_000);

  it("carries one tenant's job status changes past one partition's ceiling, to every subscriber once and in order per job", async () => {
    const tenant = 'status-co';
    // Set up at no limit: 16 projects and their jobs (a job's creation is a change too, and
    // creations load the tenant's own partition, which is not what this measures).
    const editor = await enterpriseToken(tenant, [Role.EDITOR, Role.WORKER], 'pipeline');
    const projects = await Promise.all(
      Array.from({ length: PROJECTS }, async (_, i) => {
        const created = await gql(editor, 'mutation($t: String!) { createProject(input: { title: $t }) { projectId } }', { t: `S${i}` });
        return created.data.createProject.projectId as string;
      }),
    );
    const jobs: string[] = [];
    for (let round = 0; round < JOBS / 16; round++)
      jobs.push(
        ...(await Promise.all(
          Array.from({ length: 16 }, async (_, i) => {
            const job = await gql(editor, 'mutation($input: CreateJobInput!) { createJob(input: $input) { jobId } }', {
              input: { projectId: projects[i % PROJECTS], kind: 'STATUS_HOT', steps: ['render'], inputs: { n: `${round}-${i}` } },
            });
            expect(job.errors).toBeUndefined();
            return job.data.createJob.jobId as string;
          }),
        )),
      );
    // Subscribers of the tenant's status changes, each acknowledged (its listeners in effect) before the changes start.
    const subscribers = Array.from({ length: 2 }, () =>
      subscribe<{ jobId: string; seq: number; type: string; position: number; cursor: string }>(
        wsClient(server.url, editor),
        'subscription { jobStatusChanges { jobId seq type position cursor } }',
      ),
    );
    await Promise.all(subscribers.map((subscriber) => subscriber.ack));

    // Then at the scaled-down limit: each job started and completed, 2 status changes a job, by WRITERS at once.
    limitEachKeyTo(STATUS_WCU);
    const started = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: WRITERS }, async () => {
        while (next < jobs.length) {
          const jobId = jobs[next++];
          for (const mutation of ['startStep', 'completeStep']) {
            const done = await gql(editor, `mutation($j: ID!) { ${mutation}(jobId: $j, stepName: "render") { seq } }`, { j: jobId });
            expect(done.errors).toBeUndefined();
          }
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    const changes = 2 * JOBS;

    // What the emulator's counts predict: each key lets through its limit's units a second, so the
    // key with the most units per change bounds the changes a second. The tenant's stream, as one
    // partition, would have taken all its shards' units (the ceiling before the sharding).
    const counts = proxy.counts();
    const perChange = (c: KeyCounts) => c.wcu / changes;
    const statusKeys = counts.filter((c) => c.key.startsWith(`PK=TENANT#${tenant}#JOBSTATUS`));
    const oneStream = statusKeys.reduce((sum, c) => sum + c.wcu, 0) / changes;
    const bound = [...counts].sort((a, b) => b.wcu - a.wcu)[0];
    const ceiling = STATUS_WCU / perChange(bound);
    const rate = changes / seconds;
    process.stdout.write(
      `status changes: ${changes} in ${seconds.toFixed(1)} s (${rate.toFixed(1)}/s) at ${STATUS_WCU} WCU a key; ` +
        `predicted ceiling ${ceiling.toFixed(1)}/s (bound by ${bound.key}, ${perChange(bound).toFixed(2)} WCU a change); ` +
        `one stream's ceiling ${(STATUS_WCU / oneStream).toFixed(1)}/s (${oneStream.toFixed(2)} WCU a change on ${statusKeys.length} shards); ` +
        `throttled ${JSON.stringify(Object.fromEntries(proxy.throttledCalls))}; client codes ${JSON.stringify(Object.fromEntries(codes))}\n` +
        `${[...counts]
          .sort((a, b) => b.wcu - a.wcu)
          .slice(0, 8)
          .map((c) => `${c.key.padEnd(60)} ${perChange(c).toFixed(2).padStart(6)} WCU/change ${c.throttled} throttled of ${c.calls}`)
          .join('\n')}\n`,
    );

    // Every subscriber got every change once, each job's in its order (seq), and each message's
    // position is the one before it plus one.
    await Promise.all(subscribers.map((subscriber) => subscriber.waitFor(changes, 30_000)));
    for (const subscriber of subscribers) {
      const events = subscriber.received.filter((m) => m.jobId !== '');
      expect(subscriber.errors).toEqual([]);
      expect(events.length).toBe(changes);
      expect(new Set(events.map((m) => `${m.jobId}:${m.seq}`)).size).toBe(changes);
      const seqs = new Map<string, number[]>();
      for (const m of events) seqs.set(m.jobId, [...(seqs.get(m.jobId) ?? []), m.seq]);
      expect([...seqs.values()].every((list) => list.length === 2 && list[0] < list[1])).toBe(true);
      expect(events.map((m) => m.type).filter((type) => type !== 'STEP_STARTED' && type !== 'STEP_COMPLETED')).toEqual([]);
      const positions = subscriber.received.map((m) => m.position);
      expect(positions.every((p, i) => i === 0 || p === positions[i - 1] + 1)).toBe(true);
    }
    expectNoServerErrors();
    // The shards took the tenant's changes (32 jobs over 16 shards use 14 of them on average).
    expect(statusKeys.length).toBeGreaterThanOrEqual(10);
    // The job item's tenant-wide list index partitions (by status, by creator) are write-sharded by
    // job as the stream is (IndexDeclaration.shards): 2 WCU a change each as one partition, now
    // spread over as many shards as the stream's.
    const indexKeys = counts.filter((c) => /^GSI\dPK=TENANT#[^#]+#(JOB_STATUS#|USER#)/.test(c.key));
    expect(indexKeys.filter((c) => c.key.startsWith(`GSI1PK=TENANT#${tenant}#JOB_STATUS#RUNNING`)).length).toBeGreaterThanOrEqual(10);
    expect(Math.max(...indexKeys.map(perChange))).toBeLessThan(1);
    // The operators' list of every tenant's jobs by status (GSI3, across tenants) is write-sharded
    // by job over OPS_SHARDS (16): 2 WCU a change as one partition; 0.69 on the busiest of the 4
    // shards of before, which capped the whole table near 2,000 changes a second.
    const opsKeys = counts.filter((c) => c.key.startsWith('GSI3PK=JOB_STATUS#RUNNING#'));
    process.stdout.write(
      `operators' status shards: ${opsKeys.length} keys, the busiest ${Math.max(...opsKeys.map(perChange)).toFixed(2)} WCU a change\n`,
    );
    expect(opsKeys.length).toBeGreaterThanOrEqual(10);
    expect(Math.max(...opsKeys.map(perChange))).toBeLessThan(0.5);
    // So are the claimable indexes (the tenant's work, by kind and by stage), which a step's start
    // and completion move, by job over 8 shards (CLAIMABLE_SHARDS): 2 WCU a change on each as one
    // partition, here 32 jobs over 6 or more of each index's shards.
    const claimableKeys = counts.filter((c) => c.key.includes(`=TENANT#${tenant}#WORK#CLAIMABLE`));
    process.stdout.write(
      `claimable shards: ${claimableKeys.length} keys, the busiest ${Math.max(...claimableKeys.map(perChange)).toFixed(2)} WCU a change\n`,
    );
    for (const index of ['GSI2PK', 'GSI3PK', 'GSI4PK'])
      expect(claimableKeys.filter((c) => c.key.startsWith(`${index}=`)).length).toBeGreaterThanOrEqual(6);
    expect(Math.max(...claimableKeys.map(perChange))).toBeLessThan(1);
    // A completion frees its job's slot of the plan's running jobs on one of the tenant's usage
    // release shards, not on its one counter (src/common/quota.ts): the tenant's own partition
    // takes none of the changes (it took 1 WCU a completion before), each shard a share.
    const tenantPartition = counts.find((c) => c.key === `PK=TENANT#${tenant}`);
    expect(tenantPartition?.wcu ?? 0).toBe(0);
    const releases = counts.filter((c) => c.key.startsWith(`PK=TENANT#${tenant}#USAGE#`));
    // One release a job, in its completion's transaction (2 WCU a transactional write).
    expect(releases.reduce((sum, c) => sum + c.wcu, 0)).toBe(2 * JOBS);
    expect(releases.length).toBeGreaterThanOrEqual(4);
    expect(Math.max(...releases.map(perChange))).toBeLessThan(0.25);
    // Past the one stream's ceiling, and at the ceiling the counts predict within 20 %.
    expect(rate).toBeGreaterThan(2 * (STATUS_WCU / oneStream));
    expect(rate).toBeGreaterThan(0.8 * ceiling);
    expect(rate).toBeLessThan(1.2 * ceiling);
  }, 120_000);

  it("takes 25 writers' logs on one project at the rate its hottest key predicts, each once and in order in the project's activity", async () => {
    const tenant = 'project-co';
    const editor = await enterpriseToken(tenant, [Role.EDITOR], 'studio');
    const created = await gql(editor, 'mutation { createProject(input: { title: "One" }) { projectId } }');
    expect(created.errors).toBeUndefined();
    const projectId: string = created.data.createProject.projectId;
    const subscriber = subscribe<{ position: number; action: string; subjectId: string }>(
      wsClient(server.url, editor),
      'subscription($p: ID!) { projectActivity(projectId: $p) { position action subjectId } }',
      { p: projectId },
    );
    await subscriber.ack;

    limitEachKeyTo(PROJECT_WCU);
    const started = performance.now();
    const logIds = (
      await Promise.all(
        Array.from({ length: PROJECT_WRITERS }, async (_, writer) => {
          const ids: string[] = [];
          for (let n = 0; n < LOGS / PROJECT_WRITERS; n++) {
            const logged = await gql(
              editor,
              'mutation($p: ID!, $t: String!) { createLog(projectId: $p, input: { rawText: $t, materials: ["gesso"], timeSpentMinutes: 5 }) { logId } }',
              { p: projectId, t: `log ${writer}-${n}` },
            );
            expect(logged.errors).toBeUndefined();
            ids.push(logged.data.createLog.logId);
          }
          return ids;
        }),
      )
    ).flat();
    const seconds = (performance.now() - started) / 1000;

    // As in the status case: the key with the most units a write bounds the writes a second.
    const counts = proxy.counts();
    const bound = [...counts].sort((a, b) => b.wcu - a.wcu)[0];
    const perWrite = (c: KeyCounts) => c.wcu / LOGS;
    const ceiling = PROJECT_WCU / perWrite(bound);
    const rate = LOGS / seconds;
    process.stdout.write(
      `one project: ${LOGS} logs by ${PROJECT_WRITERS} writers in ${seconds.toFixed(1)} s (${rate.toFixed(1)}/s) at ${PROJECT_WCU} WCU a key; ` +
        `predicted ceiling ${ceiling.toFixed(1)}/s; throttled ${JSON.stringify(Object.fromEntries(proxy.throttledCalls))}\n` +
        `${[...counts]
          .sort((a, b) => b.wcu - a.wcu)
          .slice(0, 6)
          .map((c) => `${c.key.padEnd(60)} ${perWrite(c).toFixed(2).padStart(6)} WCU/log ${c.throttled} throttled of ${c.calls}`)
          .join('\n')}\n`,
    );

    // Every log once in the project's activity, in commit order without gaps.
    await subscriber.waitFor(LOGS, 30_000);
    expect(subscriber.errors).toEqual([]);
    expect(subscriber.received.map((m) => m.action)).toEqual(Array(LOGS).fill('log.created'));
    expect(subscriber.received.map((m) => m.subjectId).sort()).toEqual([...logIds].sort());
    expect(new Set(logIds).size).toBe(LOGS);
    const positions = subscriber.received.map((m) => m.position);
    expect(positions.every((p, i) => i === 0 || p === positions[i - 1] + 1)).toBe(true);
    expectNoServerErrors();
    // The project's keys bind it (its tenant's partition or its activity stream), and the rate is the ceiling within 20 %.
    expect([`PK=TENANT#${tenant}`, `PK=TENANT#${tenant}#PROJECT#${projectId}#EVENTS`]).toContain(bound.key);
    expect(rate).toBeGreaterThan(0.8 * ceiling);
    expect(rate).toBeLessThan(1.2 * ceiling);
  }, 120_000);

  it("claims a tenant's single steps reading one shard of the claimable index at a time, not all of them each claim", async () => {
    // No limit: this counts what claims read. A lone worker, then 16 at once, claim and complete one-step jobs.
    const tenant = 'claim-co';
    const pipeline = await enterpriseToken(tenant, [Role.EDITOR, Role.WORKER], 'pipeline');
    const projectId = (await gql(pipeline, 'mutation { createProject(input: { title: "Claims" }) { projectId } }')).data.createProject
      .projectId;
    for (const [workers, jobs] of [
      [1, 24],
      [16, 96],
    ]) {
      const kind = `CLAIM_${workers}`;
      for (let i = 0; i < jobs; i += 8)
        await Promise.all(
          Array.from({ length: 8 }, async (_, n) => {
            const job = await gql(pipeline, 'mutation($input: CreateJobInput!) { createJob(input: $input) { jobId } }', {
              input: { projectId, kind, steps: ['render'], inputs: { n: i + n } },
            });
            expect(job.errors).toBeUndefined();
          }),
        );
      proxy.reset();
      const claimed: string[] = [];
      await Promise.all(
        Array.from({ length: workers }, async () => {
          for (;;) {
            const claim = (await gql(pipeline, `mutation { claimWork(kind: "${kind}") { job { jobId } step { attempt } } }`)).data
              ?.claimWork;
            if (!claim) return;
            claimed.push(claim.job.jobId);
            const done = await gql(
              pipeline,
              'mutation($j: ID!, $a: Int!) { completeStep(jobId: $j, stepName: "render", attempt: $a) { seq } }',
              {
                j: claim.job.jobId,
                a: claim.step.attempt,
              },
            );
            expect(done.errors).toBeUndefined();
          }
        }),
      );
      // Every job claimed once.
      expect(new Set(claimed).size).toBe(jobs);
      expect(claimed).toHaveLength(jobs);
      const keys = proxy.counts().filter((c) => c.key.startsWith(`GSI2PK=TENANT#${tenant}#WORK#CLAIMABLE#${kind}`));
      const queries = keys.reduce((sum, c) => sum + (proxy.queries.get(c.key) ?? 0), 0) / jobs;
      const rcu = keys.reduce((sum, c) => sum + c.rcu, 0) / jobs;
      process.stdout.write(
        `single-step claims, ${workers} worker(s): ${queries.toFixed(2)} Queries and ${rcu.toFixed(2)} RCU of the claimable index a claim over ${keys.length} shards\n`,
      );
      // Reading all 8 shards on every claim would be 8 Queries a claim or more (the final empty claims besides).
      expect(keys.length).toBeGreaterThanOrEqual(6);
      expect(queries).toBeLessThan(4);
    }
  }, 120_000);
});
