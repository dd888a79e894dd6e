/** @long Started first on a clean clone (test/support/sequencer.js): one of the slowest files. */
import { signDevToken } from '../../src/auth/jwt';
import { JOB_KINDS } from '../../src/job/job.kinds';
import { poolSchedulerOf } from '../../src/job/job.pool';
import { Role, startTestServer, TEST_SECRET, type TestServer, dynamoDocOf } from '../support/server';
import { registerFixture } from '../support/fixtures';
import { Pulse } from '../support/wait';

// One single step that pool workers pause for review (no other test claims it).
JOB_KINDS.TEST_POOL_REVIEW = {
  description: 'One single step, paused for review by its worker.',
  inputs: { label: { kind: 'string', required: true } },
  stages: [{ name: 'render', phase: 'processing' }],
};
// Two single-step stages, for pool workers that claim steps (the server runs in this process).
JOB_KINDS.TEST_POOL_STEPS = {
  description: 'Two single steps.',
  inputs: { label: { kind: 'string', required: true } },
  stages: [
    { name: 'render', phase: 'processing' },
    { name: 'encode', phase: 'processing' },
  ],
};
// One single step, for the write count of a pooled step's progress reports (no other test claims it).
JOB_KINDS.TEST_POOL_REPORTS = {
  description: 'One single step.',
  inputs: { label: { kind: 'string', required: true } },
  stages: [{ name: 'render', phase: 'processing' }],
};

/**
 * Shared worker pools: pool workers bound to no tenant claim every tenant's work of their kinds,
 * by the tenants' weights (deficit round robin), a tenant's higher-priority jobs first, and report
 * on it with the lease each claim hands out, which is all they can reach. Real DynamoDB Local, a
 * real server, concurrent pool workers over HTTP.
 */
describe('shared worker pools', () => {
  let server: TestServer;
  const secret = new TextEncoder().encode(TEST_SECRET);
  const run = Date.now();

  beforeAll(async () => {
    server = await startTestServer({ env: { JOB_LEASE_SECONDS: '600' } });
  });

  const gql = async (token: string, query: string, variables: Record<string, unknown> = {}) =>
    (await server.raw({ query, variables }, token)).body;
  const ok = async (token: string, query: string, variables: Record<string, unknown> = {}) => {
    const out = await gql(token, query, variables);
    if (out.errors) throw new Error(JSON.stringify(out.errors));
    return out.data;
  };
  const poolToken = (sub: string, kinds = ['BATCH']) => signDevToken(secret, { sub, pool: { kinds } });
  const CLAIM = 'mutation { claimWork(kind: "BATCH") { tenantId lease job { jobId } item { stage sequence attempt startedAt } } }';
  const COMPLETE =
    'mutation($j: ID!, $n: Int!, $a: Int!, $l: String, $o: JSONObject!) { completeWorkItem(jobId: $j, stage: "process", sequence: $n, attempt: $a, lease: $l, outputs: $o) { status } }';

  /** Completes what a pool worker claimed, with its lease, its output under the work's tenant. */
  const completeWithLease = (
    token: string,
    claimed: { tenantId: string; lease: string; job: { jobId: string }; item: { sequence: number; attempt: number } },
  ) =>
    ok(token, COMPLETE, {
      j: claimed.job.jobId,
      n: claimed.item.sequence,
      a: claimed.item.attempt,
      l: claimed.lease,
      o: { result: `tenants/${claimed.tenantId}/out/${claimed.item.sequence}.png` },
    });

  /** A tenant with a project, an editor (also a worker, to add items) and a way to make BATCH jobs of n items. */
  async function tenant(name: string) {
    const tenantId = `${name}-${run}`;
    const editor = await server.token(tenantId, [Role.EDITOR, Role.WORKER], 'artist');
    const projectId = (await ok(editor, 'mutation { createProject(input: { title: "Pool" }) { projectId } }')).createProject.projectId;
    const key = (file: string) => `tenants/${tenantId}/${file}`;
    let jobs = 0;
    const job = async (n: number, priority?: number) => {
      // Each job's inputs differ, or createJob would answer with the first job (its derived idempotency key).
      const batch = ++jobs;
      const items = (from: number, count: number) =>
        Array.from({ length: count }, (_, i) => ({ source: key(`in/${batch}/${from + i}.png`) }));
      const first = Math.min(n, 50);
      const jobId = (
        await ok(editor, 'mutation($i: CreateJobInput!) { createJob(input: $i) { jobId } }', {
          i: {
            projectId,
            kind: 'BATCH',
            inputs: { label: `job ${batch}` },
            items: items(1, first),
            ...(priority !== undefined ? { priority } : {}),
          },
        })
      ).createJob.jobId;
      for (let from = first + 1; from <= n; from += 80) {
        await ok(editor, 'mutation($j: ID!, $i: [JSONObject!]!) { addWorkItems(jobId: $j, stage: "process", items: $i) { jobId } }', {
          j: jobId,
          i: items(from, Math.min(80, n - from + 1)),
        });
      }
      return jobId;
    };
    return { tenantId, editor, key, job };
  }

  it('shares claims 1 : 1 : 2 while three tenants have work, the small one finishing early, priority first within a tenant', async () => {
    const admin = await server.operatorToken('ops');
    const [a, b, c] = await Promise.all([tenant('big'), tenant('small'), tenant('double')]);
    for (const [t, weight] of [
      [a, 1],
      [b, 1],
      [c, 2],
    ] as const) {
      await ok(admin, 'mutation($t: ID!, $w: Int!) { setPoolShare(tenantId: $t, weight: $w) { weight } }', { t: t.tenantId, w: weight });
    }
    // 800, 60 and 200 claimable items, the big and the double tenant's in two jobs each; the
    // double-weight tenant's high-priority job is made last, and must still be served first. The
    // shares are asserted only while all three have work: the small tenant's 60 claims at a quarter
    // end that window near the 240th claim, where the big tenant has taken about 60 of its 800 and
    // the double one about 120 of its 200 (its high-priority 100 among them), so both still have
    // work to its end. 2,000 and 400 items (until 2026-11) made the claims after the window, which
    // assert nothing of the shares, 90 % of the run; the small one must still finish before a fifth
    // of the big one's work, now 160 items rather than 400.
    const BIG = 800;
    await a.job(BIG / 2);
    await a.job(BIG / 2);
    await b.job(60);
    const low = await c.job(100, 1);
    const high = await c.job(100, 9);

    type Claim = { n: number; tenantId: string; jobId: string; at: number; startedAt: string };
    const claims: Claim[] = [];
    const finishedAt = new Map<string, number>();
    const remaining = new Map([
      [a.tenantId, BIG],
      [b.tenantId, 60],
      [c.tenantId, 200],
    ]);
    const workers = await Promise.all(Array.from({ length: 20 }, (_, i) => poolToken(`gpu-${i}`)));
    await Promise.all(
      workers.map(async (token) => {
        for (;;) {
          const claimed = (await ok(token, CLAIM)).claimWork;
          if (!claimed) return;
          claims.push({
            n: claims.length,
            tenantId: claimed.tenantId,
            jobId: claimed.job.jobId,
            at: performance.now(),
            startedAt: claimed.item.startedAt,
          });
          await completeWithLease(token, claimed);
          const left = (remaining.get(claimed.tenantId) ?? 0) - 1;
          remaining.set(claimed.tenantId, left);
          if (left === 0) finishedAt.set(claimed.tenantId, performance.now());
        }
      }),
    );

    // Once no tenant has work, the scheduler holds nothing of them (views and cached shares go).
    expect(poolSchedulerOf(server.app.store, () => new Date()).held()).toEqual({ tenantsWithWork: 0, shares: 0 });
    // Every item of every tenant was handed out once.
    expect(Object.fromEntries(remaining)).toEqual({ [a.tenantId]: 0, [b.tenantId]: 0, [c.tenantId]: 0 });
    expect(claims).toHaveLength(BIG + 260);
    // While all three had work (up to the small tenant's last claim), each got its weight's share,
    // ±10 %. Claims are taken in the order the server decided them (each item's startedAt), not in
    // the order their answers came back to 20 concurrent workers.
    const decided = [...claims].sort((x, y) => x.startedAt.localeCompare(y.startedAt) || x.n - y.n);
    const lastOfSmall = decided.map((x) => x.tenantId).lastIndexOf(b.tenantId);
    const window = decided.slice(0, lastOfSmall + 1);
    const share = (t: string) => window.filter((x) => x.tenantId === t).length / window.length;
    expect(share(a.tenantId)).toBeGreaterThan(0.25 * 0.9);
    expect(share(a.tenantId)).toBeLessThan(0.25 * 1.1);
    expect(share(b.tenantId)).toBeGreaterThan(0.25 * 0.9);
    expect(share(b.tenantId)).toBeLessThan(0.25 * 1.1);
    expect(share(c.tenantId)).toBeGreaterThan(0.5 * 0.9);
    expect(share(c.tenantId)).toBeLessThan(0.5 * 1.1);
    // The small tenant finished long before the big one: before a fifth of the big one's work was done.
    const bigDoneWhenSmallFinished = claims.filter((x) => x.tenantId === a.tenantId && x.at <= (finishedAt.get(b.tenantId) ?? 0)).length;
    console.log(
      `pool shares while all three had work (${window.length} claims): ${[a, b, c].map((t) => `${(100 * share(t.tenantId)).toFixed(1)} %`).join(', ')}; the big tenant had done ${bigDoneWhenSmallFinished} of ${BIG} when the small one finished`,
    );
    expect(bigDoneWhenSmallFinished).toBeLessThan(BIG / 5);
    // Within the double tenant, every item of the high-priority job was claimed before any of the low one's.
    const ofC = decided.filter((x) => x.tenantId === c.tenantId);
    const firstLow = ofC.findIndex((x) => x.jobId === low);
    expect(ofC.slice(0, firstLow).every((x) => x.jobId === high)).toBe(true);
    expect(firstLow).toBe(100);
  }, 600_000);

  it("holds a tenant's running limit at every instant, while the other tenants' work goes on", async () => {
    const admin = await server.operatorToken('ops');
    const [limited, free] = await Promise.all([tenant('limited'), tenant('free')]);
    await ok(admin, 'mutation($t: ID!) { setPoolShare(tenantId: $t, weight: 1, maxRunning: 3) { maxRunning } }', { t: limited.tenantId });
    const limitedJob = await limited.job(60);
    await free.job(60);
    const workers = await Promise.all(Array.from({ length: 10 }, (_, i) => poolToken(`gpu-limit-${i}`)));
    const left = new Map([
      [limited.tenantId, 60],
      [free.tenantId, 60],
    ]);
    // A worker that got nothing waits for another's completion, the only thing here that frees a
    // place under the limit or hands back work (a claim at the limit reads the tenant's job and
    // load, so asking again every 20 ms spent most of this test on claims that got nothing). With
    // nothing held by anyone it asks again at once: then the pool owes it work.
    const completed = new Pulse();
    let held = 0;
    await Promise.all(
      workers.map(async (token) => {
        while ((left.get(limited.tenantId) ?? 0) > 0 || (left.get(free.tenantId) ?? 0) > 0) {
          const asked = completed.next();
          const claimed = (await ok(token, CLAIM)).claimWork;
          if (!claimed) {
            if (held > 0) await asked;
            continue;
          }
          held++;
          // Hold the item a moment, so that several are running at once.
          await new Promise((r) => setTimeout(r, 30));
          await completeWithLease(token, claimed);
          held--;
          left.set(claimed.tenantId, (left.get(claimed.tenantId) ?? 0) - 1);
          completed.beat();
        }
      }),
    );
    // The limited job's stream, in commit order: never more than 3 of its items running, and 3 reached.
    const events = await server.app.store.queryAll({ pk: `TENANT#${limited.tenantId}#JOB#${limitedJob}`, skPrefix: 'EVENT#' });
    let running = 0;
    let most = 0;
    for (const e of events) {
      if (e.type === 'ITEM_STARTED') running++;
      if (e.type === 'ITEM_COMPLETED') running--;
      most = Math.max(most, running);
    }
    expect(most).toBe(3);
    expect(running).toBe(0);
    // The tenant's pool load is back to 0 with nothing running.
    const load = await server.app.store.get({ PK: `TENANT#${limited.tenantId}`, SK: 'POOLLOAD' });
    expect(load?.running).toBe(0);
  }, 300_000);

  it("holds a running limit set while a busy job's items are being claimed, from the next claim sent", async () => {
    // A server of its own, so that no other test's work is in its pool. Ten pool workers claim a
    // 50-item job's items and hold them; once 10 are held, an admin sets the tenant's limit to 3.
    // The job's groups decide on the state their last commit left (they read no pool load while
    // the tenant has no limit), so this shows that a commit checks no limit was set since.
    // No timed sweeps, whose calls could land in the call count at the end.
    const own = await startTestServer({ env: { JOB_LEASE_SECONDS: '600', JOB_SETTLE_SWEEP_MS: '3600000', SYSTEM_JOB_IDLE_MS: '3600000' } });
    const call = async (token: string, query: string, variables: Record<string, unknown> = {}) => {
      const out = (await own.raw({ query, variables }, token)).body;
      if (out.errors) throw new Error(JSON.stringify(out.errors));
      return out.data;
    };
    const tenantId = `late-limit-${run}`;
    const editor = await own.token(tenantId, [Role.EDITOR], 'artist');
    const admin = await own.operatorToken('ops');
    const projectId = (await call(editor, 'mutation { createProject(input: { title: "Late" }) { projectId } }')).createProject.projectId;
    const jobId = (
      await call(editor, 'mutation($i: CreateJobInput!) { createJob(input: $i) { jobId } }', {
        i: {
          projectId,
          kind: 'BATCH',
          inputs: { label: 'late limit' },
          items: Array.from({ length: 50 }, (_, i) => ({ source: `tenants/${tenantId}/in/${i}.png` })),
        },
      })
    ).createJob.jobId;
    const workers = await Promise.all(Array.from({ length: 10 }, (_, i) => poolToken(`gpu-late-${i}`)));
    let held = 0;
    let limitSet = false;
    let setting: Promise<void> | undefined;
    const afterLimit: boolean[] = [];
    await Promise.all(
      workers.map(async (token) => {
        while (afterLimit.length < 40) {
          const sentAfterLimit = limitSet;
          const claimed = (await call(token, CLAIM)).claimWork;
          if (sentAfterLimit) {
            afterLimit.push(claimed !== null);
            continue;
          }
          if (claimed) held++;
          if (held >= 10 && !setting)
            setting = call(admin, 'mutation($t: ID!) { setPoolShare(tenantId: $t, weight: 1, maxRunning: 3) { maxRunning } }', {
              t: tenantId,
            }).then(() => {
              limitSet = true;
            });
          if (!claimed) await setting;
        }
      }),
    );
    // More than 3 were held when the limit came, and work was left: every claim sent after it got nothing.
    const job = (await call(editor, `{ job(jobId: "${jobId}") { itemCounts { running pending } } }`)).job;
    expect(job.itemCounts.running).toBeGreaterThan(3);
    expect(job.itemCounts.pending).toBeGreaterThan(0);
    expect(afterLimit).toEqual(Array(afterLimit.length).fill(false));
    expect(afterLimit.length).toBeGreaterThanOrEqual(40);
    // A claim that finds every tenant in view at its limit answers after one try of each (and one
    // more after a fresh read of the pool index), not after passes over the ring: it made 66
    // DynamoDB calls when it went round 16 times (33 here), 9 since.
    await own.resetCalls();
    expect((await call(workers[0], CLAIM)).claimWork).toBeNull();
    const calls = [...own.app.calls.byCommand.values()].reduce((sum, n) => sum + n, 0);
    console.log(`null claim at the limit: ${calls} DynamoDB calls`);
    expect(calls).toBeGreaterThan(0);
    expect(calls).toBeLessThanOrEqual(20);
  }, 120_000);

  it('reaches exactly the work it holds a lease on, and nothing without one', async () => {
    const t = await tenant('leased');
    const other = await tenant('other');
    const jobId = await t.job(3);
    const otherJob = await other.job(1);
    const worker = await poolToken('gpu-lease');
    const thief = await poolToken('gpu-thief');
    const claimed = (await ok(worker, CLAIM)).claimWork;
    expect(claimed.tenantId).toEqual(expect.any(String));
    expect(claimed.lease).toEqual(expect.any(String));
    const mine = claimed.tenantId === t.tenantId ? jobId : otherJob;
    expect(claimed.job.jobId).toBe(mine);
    const { sequence, attempt } = claimed.item;
    const report = (token: string, vars: Record<string, unknown>) =>
      gql(token, COMPLETE, {
        j: mine,
        n: sequence,
        a: attempt,
        l: claimed.lease,
        o: { result: `tenants/${claimed.tenantId}/x.png` },
        ...vars,
      });
    const codeOf = (out: { errors?: Array<{ extensions?: { code?: string } }> }) => out.errors?.[0]?.extensions?.code;
    // No lease, a forged or altered lease, another worker's lease, or a lease for another item: refused.
    expect(codeOf(await report(worker, { l: null }))).toBe('FORBIDDEN');
    expect(codeOf(await report(worker, { l: `${claimed.lease}x` }))).toBe('FORBIDDEN');
    expect(codeOf(await report(thief, {}))).toBe('FORBIDDEN');
    expect(codeOf(await report(worker, { n: sequence === 1 ? 2 : 1 }))).toBe('FORBIDDEN');
    expect(codeOf(await report(worker, { j: mine === jobId ? otherJob : jobId }))).toBe('FORBIDDEN');
    // A pool worker reads nothing of any tenant: not its jobs, projects or activity, not even the leased job.
    for (const query of [
      '{ projects { nodes { projectId } } }',
      `{ job(jobId: "${mine}") { jobId } }`,
      '{ activity { nodes { action } } }',
      '{ viewer { tenantId } }',
    ]) {
      expect(codeOf(await gql(worker, query))).toBe('FORBIDDEN');
    }
    // With its lease, exactly that item: completed once.
    expect((await report(worker, {})).data.completeWorkItem.status).toBe('COMPLETED');
    expect(codeOf(await report(worker, {}))).toBe('INVALID_TRANSITION');
  });

  it("hands out single steps too: by lease only, within the tenant's running limit, each step once", async () => {
    const admin = await server.operatorToken('ops');
    const [a, b] = await Promise.all([tenant('steps-a'), tenant('steps-b')]);
    await ok(admin, 'mutation($t: ID!) { setPoolShare(tenantId: $t, weight: 1, maxRunning: 1) { maxRunning } }', { t: a.tenantId });
    const projectOf = async (editor: string) => (await ok(editor, '{ projects { nodes { projectId } } }')).projects.nodes[0].projectId;
    const stepJob = async (t: typeof a, label: string) =>
      (
        await ok(t.editor, 'mutation($i: CreateJobInput!) { createJob(input: $i) { jobId } }', {
          i: { projectId: await projectOf(t.editor), kind: 'TEST_POOL_STEPS', inputs: { label } },
        })
      ).createJob.jobId as string;
    const aJobs = [await stepJob(a, 'one'), await stepJob(a, 'two')];
    const [w1, w2, w3, thief] = await Promise.all(
      ['gpu-s1', 'gpu-s2', 'gpu-s3', 'gpu-s4'].map((sub) => poolToken(sub, ['TEST_POOL_STEPS'])),
    );
    const CLAIM_STEP =
      'mutation { claimWork(kind: "TEST_POOL_STEPS") { tenantId lease job { jobId } step { name attempt status } item { sequence } } }';
    const PROGRESS =
      'mutation($j: ID!, $s: String!, $l: String) { reportStepProgress(jobId: $j, stepName: $s, progress: 0.5, lease: $l) { jobId } }';
    const DONE = 'mutation($j: ID!, $s: String!, $l: String) { completeStep(jobId: $j, stepName: $s, lease: $l) { status currentStep } }';
    const codeOf = (out: { errors?: Array<{ extensions?: { code?: string } }> }) => out.errors?.[0]?.extensions?.code;

    // A's first step goes to w1, with a lease naming it; A is then at its limit of 1, and has nothing else for w2.
    const first = (await ok(w1, CLAIM_STEP)).claimWork;
    expect(first).toMatchObject({ tenantId: a.tenantId, step: { name: 'render', attempt: 1, status: 'RUNNING' }, item: null });
    expect(aJobs).toContain(first.job.jobId);
    expect((await ok(w2, CLAIM_STEP)).claimWork).toBeNull();
    // Another tenant's step is handed out meanwhile.
    const bJob = await stepJob(b, 'three');
    const other = (await ok(w3, CLAIM_STEP)).claimWork;
    expect(other).toMatchObject({ tenantId: b.tenantId, job: { jobId: bJob }, step: { name: 'render' } });

    // Reports need the lease, for exactly that step, from the worker it was handed to.
    const vars = { j: first.job.jobId, s: 'render', l: first.lease };
    expect(codeOf(await gql(w1, PROGRESS, { ...vars, l: null }))).toBe('FORBIDDEN');
    expect(codeOf(await gql(thief, PROGRESS, vars))).toBe('FORBIDDEN');
    expect(codeOf(await gql(w1, PROGRESS, { ...vars, s: 'encode' }))).toBe('FORBIDDEN');
    expect(codeOf(await gql(w1, PROGRESS, { ...vars, j: other.job.jobId }))).toBe('FORBIDDEN');
    expect(codeOf(await gql(w1, PROGRESS, vars))).toBeUndefined();
    expect((await ok(w1, DONE, vars)).completeStep).toEqual({ status: 'RUNNING', currentStep: 'encode' });
    expect(codeOf(await gql(w1, DONE, vars))).toBe('INVALID_TRANSITION');

    // With room again, A's steps go out one at a time until both of its jobs complete; each step once.
    const done: string[] = [`${first.job.jobId}/render`];
    for (let n = 0; n < 20 && done.length < 4; n++) {
      const claimed = (await ok(w2, CLAIM_STEP)).claimWork;
      if (!claimed) continue;
      expect(claimed.tenantId).toBe(a.tenantId);
      expect((await ok(w1, CLAIM_STEP)).claimWork).toBeNull();
      await ok(w2, DONE, { j: claimed.job.jobId, s: claimed.step.name, l: claimed.lease });
      done.push(`${claimed.job.jobId}/${claimed.step.name}`);
    }
    expect(done.sort()).toEqual(aJobs.flatMap((j) => [`${j}/encode`, `${j}/render`]).sort());
    for (const jobId of aJobs) expect((await ok(a.editor, `{ job(jobId: "${jobId}") { status } }`)).job.status).toBe('COMPLETED');
    // Nothing of A's is running through the pool any more.
    expect((await server.app.store.get({ PK: `TENANT#${a.tenantId}`, SK: 'POOLLOAD' }))?.running).toBe(0);
    await ok(w3, DONE, { j: other.job.jobId, s: 'render', l: other.lease });
  }, 120_000);

  it('lets a pool worker pause its step for review with its lease, for an editor of the tenant to approve', async () => {
    const t = await tenant('review');
    const projectId = (await ok(t.editor, '{ projects { nodes { projectId } } }')).projects.nodes[0].projectId;
    const reviewJob = async (label: string) =>
      (
        await ok(t.editor, 'mutation($i: CreateJobInput!) { createJob(input: $i) { jobId } }', {
          i: { projectId, kind: 'TEST_POOL_REVIEW', inputs: { label } },
        })
      ).createJob.jobId as string;
    const jobs = [await reviewJob('one'), await reviewJob('two')];
    const [worker, second, thief] = await Promise.all(['gpu-r1', 'gpu-r2', 'gpu-r3'].map((sub) => poolToken(sub, ['TEST_POOL_REVIEW'])));
    const CLAIM_STEP = 'mutation { claimWork(kind: "TEST_POOL_REVIEW") { tenantId lease job { jobId } step { name attempt } } }';
    const mine = (await ok(worker, CLAIM_STEP)).claimWork;
    const theirs = (await ok(second, CLAIM_STEP)).claimWork;
    expect(mine).toMatchObject({ tenantId: t.tenantId, step: { name: 'render', attempt: 1 } });
    expect([mine.job.jobId, theirs.job.jobId].sort()).toEqual([...jobs].sort());
    const PAUSE =
      'mutation($j: ID!, $a: Int, $l: String) { pauseStepForReview(jobId: $j, stepName: "render", attempt: $a, lease: $l) { status steps { name attempt status } } }';
    const vars = { j: mine.job.jobId, a: 1, l: mine.lease };
    const codeOf = (out: { errors?: Array<{ extensions?: { code?: string } }> }) => out.errors?.[0]?.extensions?.code;
    // Without its lease, with another worker's lease, or with a lease for other work: refused, nothing paused.
    expect(codeOf(await gql(worker, PAUSE, { ...vars, l: null }))).toBe('FORBIDDEN');
    expect(codeOf(await gql(thief, PAUSE, vars))).toBe('FORBIDDEN');
    expect(codeOf(await gql(worker, PAUSE, { ...vars, l: theirs.lease }))).toBe('FORBIDDEN');
    expect(codeOf(await gql(worker, PAUSE, { ...vars, j: theirs.job.jobId }))).toBe('FORBIDDEN');
    expect(codeOf(await gql(worker, PAUSE, { ...vars, a: 2 }))).toBe('FORBIDDEN');
    const STATUS = 'query($j: ID!) { job(jobId: $j) { status steps { status } } }';
    expect((await ok(t.editor, STATUS, { j: mine.job.jobId })).job).toEqual({ status: 'RUNNING', steps: [{ status: 'RUNNING' }] });
    // With it: the job waits for a person, and the answer's steps are the tenant's, read under the lease.
    const paused = (await ok(worker, PAUSE, vars)).pauseStepForReview;
    expect(paused).toEqual({ status: 'PAUSED', steps: [{ name: 'render', attempt: 1, status: 'PAUSED' }] });
    expect(codeOf(await gql(worker, PAUSE, vars))).toBe('INVALID_TRANSITION');
    // A paused step no longer runs under the pool: only the other worker's step counts in the tenant's load.
    expect((await server.app.store.get({ PK: `TENANT#${t.tenantId}`, SK: 'POOLLOAD' }))?.running).toBe(1);
    const review = await ok(t.editor, '{ stepsAwaitingReview { nodes { jobId name } } }');
    expect(review.stepsAwaitingReview.nodes).toEqual([{ jobId: mine.job.jobId, name: 'render' }]);
    // Approving is an editor's: the pool worker cannot, the editor can, and the job completes.
    const APPROVE = 'mutation($j: ID!) { approveStep(jobId: $j, stepName: "render", comment: "fine") { status } }';
    expect(codeOf(await gql(worker, APPROVE, { j: mine.job.jobId }))).toBe('FORBIDDEN');
    expect((await ok(t.editor, APPROVE, { j: mine.job.jobId })).approveStep.status).toBe('COMPLETED');
    const DONE = 'mutation($j: ID!, $l: String) { completeStep(jobId: $j, stepName: "render", lease: $l) { status } }';
    await ok(second, DONE, { j: theirs.job.jobId, l: theirs.lease });
    expect((await server.app.store.get({ PK: `TENANT#${t.tenantId}`, SK: 'POOLLOAD' }))?.running).toBe(0);
  });

  it("writes a pooled step's pool entry once per half a lease, not with every progress report", async () => {
    const t = await tenant('reports');
    const projectId = (await ok(t.editor, '{ projects { nodes { projectId } } }')).projects.nodes[0].projectId;
    const jobId = (
      await ok(t.editor, 'mutation($i: CreateJobInput!) { createJob(input: $i) { jobId } }', {
        i: { projectId, kind: 'TEST_POOL_REPORTS', inputs: { label: 'reports' } },
      })
    ).createJob.jobId;
    const worker = await poolToken('gpu-reports', ['TEST_POOL_REPORTS']);
    const claimed = (await ok(worker, 'mutation { claimWork(kind: "TEST_POOL_REPORTS") { tenantId lease job { jobId } step { name } } }'))
      .claimWork;
    expect(claimed).toMatchObject({ tenantId: t.tenantId, job: { jobId }, step: { name: 'render' } });
    // The transactions the server sends, captured from its own DynamoDB client (read only).
    const sent: { TransactItems?: { Put?: { Item: Record<string, unknown> } }[] }[] = [];
    const doc = dynamoDocOf(server.app);
    doc.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === 'TransactWriteItemsCommand') sent.push(structuredClone(args.input) as (typeof sent)[number]);
        return next(args);
      },
      { step: 'initialize', name: 'reportCostProbe' },
    );
    // The server outlives this test: the probe goes once the test is done, also when it fails.
    registerFixture('reportCostProbe middleware', () => doc.middlewareStack.remove('reportCostProbe'));
    const perReport: { items: number; entries: number }[] = [];
    let resent = 0;
    for (let i = 1; i <= 20; i++) {
      sent.length = 0;
      await ok(
        worker,
        'mutation($j: ID!, $p: Float!, $l: String) { reportStepProgress(jobId: $j, stepName: "render", progress: $p, lease: $l) { jobId } }',
        { j: jobId, p: i / 21, l: claimed.lease },
      );
      // The report's own transaction: the one that writes this job (the settle sweep of an earlier
      // test's jobs may commit meanwhile), the last one sent: on a busy machine the committer may
      // send it again after a conflict (its one retry loop), and only the last one committed.
      const mine = sent.filter((tx) => JSON.stringify(tx).includes(`#JOB#${jobId}"`));
      resent += Math.max(0, mine.length - 1);
      const items = mine.at(-1)?.TransactItems ?? [];
      perReport.push({ items: items.length, entries: items.filter((w) => w.Put?.Item.entityType === 'JobWork').length });
    }
    // Each report writes the job, the step and the event; the pool entry follows the lease on a
    // grid of half a lease (300 s here), so 20 reports in a few seconds cross it at most once.
    const entries = perReport.reduce((n, r) => n + r.entries, 0);
    expect(entries).toBeLessThanOrEqual(1);
    expect(perReport.filter((r) => r.entries === 0).every((r) => r.items === 3)).toBe(true);
    // The entry still offers the step no later than its lease's end, and ahead of now: no claim is tried on it.
    const entry = await server.app.store.get({ PK: `TENANT#${t.tenantId}#JOB#${jobId}`, SK: 'WORK' });
    const step = (await ok(t.editor, `{ job(jobId: "${jobId}") { steps { leaseExpiresAt } } }`)).job.steps[0];
    expect(String(entry?.availableAt) <= step.leaseExpiresAt).toBe(true);
    expect(String(entry?.availableAt) > new Date().toISOString()).toBe(true);
    console.log(
      `pooled step progress: ${perReport.map((r) => r.items).join(', ')} items a report; pool entry written ${entries} times in 20 reports; ${resent} transactions sent again`,
    );
    await ok(worker, 'mutation($j: ID!, $l: String) { completeStep(jobId: $j, stepName: "render", lease: $l) { status } }', {
      j: jobId,
      l: claimed.lease,
    });
  });

  it("tries a quiet worker's pooled step once before its lease ends, and hands it out as a new attempt once it has", async () => {
    // A 4 s lease: the pool entry of a running step is on a 2 s grid, so it lists the step up to 2 s
    // before its lease ends. The server runs on a clock the test moves (Scope.now, which the pool
    // scheduler compares the index's times on too), so no wait is needed for a lease to end.
    let shift = 0;
    const clock = () => new Date(Date.now() + shift);
    const short = await startTestServer({ env: { JOB_LEASE_SECONDS: '4' }, now: clock });
    const call = async (token: string, query: string, variables: Record<string, unknown> = {}) => {
      const out = (await short.raw({ query, variables }, token)).body;
      if (out.errors) throw new Error(JSON.stringify(out.errors));
      return out.data;
    };
    const tenantId = `quiet-${run}`;
    const editor = await short.token(tenantId, [Role.EDITOR], 'artist');
    const projectId = (await call(editor, 'mutation { createProject(input: { title: "Quiet" }) { projectId } }')).createProject.projectId;
    const jobId = (
      await call(editor, 'mutation($i: CreateJobInput!) { createJob(input: $i) { jobId } }', {
        i: { projectId, kind: 'TEST_POOL_REPORTS', inputs: { label: 'quiet' } },
      })
    ).createJob.jobId;
    const [quiet, other] = await Promise.all(['gpu-quiet', 'gpu-other'].map((sub) => poolToken(sub, ['TEST_POOL_REPORTS'])));
    const CLAIM_STEP = 'mutation { claimWork(kind: "TEST_POOL_REPORTS") { lease job { jobId } step { attempt startedAt } } }';
    const first = (await call(quiet, CLAIM_STEP)).claimWork;
    expect(first).toMatchObject({ job: { jobId }, step: { attempt: 1 } });
    // Its one report is sent when the server's clock is 1 s into a 2 s grid cell, so the lease ends
    // about that far past a grid line and the entry lists the step that much early; then the worker goes quiet.
    shift += (3000 - (clock().getTime() % 2000)) % 2000;
    await call(
      quiet,
      'mutation($j: ID!, $l: String) { reportStepProgress(jobId: $j, stepName: "render", progress: 0.1, lease: $l) { jobId } }',
      {
        j: jobId,
        l: first.lease,
      },
    );
    const leaseEnd: string = (await call(editor, `{ job(jobId: "${jobId}") { steps { leaseExpiresAt } } }`)).job.steps[0].leaseExpiresAt;
    const entry = await short.app.store.get({ PK: `TENANT#${tenantId}#JOB#${jobId}`, SK: 'WORK' });
    const listedFrom = String(entry?.availableAt);
    expect(listedFrom < leaseEnd).toBe(true);
    // The claims' reads of the job item, counted from the server's own DynamoDB client (read only).
    let jobReads = 0;
    const doc = dynamoDocOf(short.app);
    doc.middlewareStack.add(
      (next, context) => async (args) => {
        // A read of the job item names its partition and its sort key JOB (a GetItem of it, or a
        // query from it), marshalled ({ S: … }) or not.
        const input = JSON.stringify(args.input ?? {});
        const read = context.commandName === 'QueryCommand' || context.commandName === 'GetItemCommand';
        if (read && input.includes(`#JOB#${jobId}"`) && input.includes('"JOB"')) jobReads++;
        return next(args);
      },
      { step: 'initialize', name: 'quietReadProbe' },
    );
    // Listed, but before the lease's end: another pool worker gets nothing, twice.
    shift += Date.parse(listedFrom) + 100 - clock().getTime();
    expect(clock().toISOString() < leaseEnd).toBe(true);
    expect((await call(other, CLAIM_STEP)).claimWork).toBeNull();
    expect((await call(other, CLAIM_STEP)).claimWork).toBeNull();
    const refused = jobReads;
    // Once the lease has ended, the next claim takes the step over as a new attempt.
    shift += Date.parse(leaseEnd) + 10 - clock().getTime();
    const taken = (await call(other, CLAIM_STEP)).claimWork;
    doc.middlewareStack.remove('quietReadProbe');
    expect(taken).toMatchObject({ job: { jobId }, step: { attempt: 2 } });
    expect(String(taken?.step.startedAt) >= leaseEnd).toBe(true);
    // Listed early, the step was tried at most once before its lease ended (then left out until its end), and once to take it.
    expect(refused).toBeLessThanOrEqual(1);
    expect(jobReads).toBeLessThanOrEqual(2);
    console.log(`quiet pooled step: ${jobReads} reads of the job by claims until it was taken over`);
  }, 60_000);

  it("lets a pool worker holding MUSIC_VIDEO's generate-scenes add its scenes with that lease, and nobody else: no lease or an item's is FORBIDDEN, a lease taken over is INVALID_TRANSITION", async () => {
    // The server runs on a clock the test moves, so the first holder's lease ends without a wait.
    let shift = 0;
    const short = await startTestServer({ env: { JOB_LEASE_SECONDS: '30' }, now: () => new Date(Date.now() + shift) });
    const call = async (token: string, query: string, variables: Record<string, unknown> = {}) =>
      (await short.raw({ query, variables }, token)).body;
    const codeOf = (out: { errors?: Array<{ extensions?: { code?: string } }> }) => out.errors?.[0]?.extensions?.code;
    const tenantId = `scenes-${run}`;
    const key = (file: string) => `tenants/${tenantId}/${file}`;
    const editor = await short.token(tenantId, [Role.EDITOR], 'artist');
    const projectId = (await call(editor, 'mutation { createProject(input: { title: "Video" }) { projectId } }')).data.createProject
      .projectId;
    const jobId = (
      await call(editor, 'mutation($i: CreateJobInput!) { createJob(input: $i) { jobId } }', {
        i: { projectId, kind: 'MUSIC_VIDEO', inputs: { characterImage: key('hero.png'), audioBackingTrack: key('track.mp3') } },
      })
    ).data.createJob.jobId;
    const scenes = (from: number, count: number) =>
      Array.from({ length: count }, (_, i) => ({
        prompt: `Scene ${from + i}`,
        durationSeconds: 4,
        audioClip: key(`clips/${from + i}.mp3`),
      }));
    const [first, second] = await Promise.all(
      ['gpu-scenes-1', 'gpu-scenes-2'].map((sub) =>
        signDevToken(secret, { sub, pool: { kinds: ['MUSIC_VIDEO'], stages: ['generate-scenes'] } }),
      ),
    );
    const renderer = await signDevToken(secret, { sub: 'gpu-render', pool: { kinds: ['MUSIC_VIDEO'], stages: ['render-scenes'] } });
    const CLAIM =
      'mutation { claimWork(kind: "MUSIC_VIDEO") { tenantId lease job { jobId } step { name attempt } item { sequence attempt } } }';
    const ADD =
      'mutation($j: ID!, $i: [JSONObject!]!, $l: String) { addWorkItems(jobId: $j, stage: "render-scenes", items: $i, lease: $l) { jobId stageItemCounts { stage total } } }';
    const held = (await call(first, CLAIM)).data.claimWork;
    expect(held).toMatchObject({ tenantId, job: { jobId }, step: { name: 'generate-scenes', attempt: 1 } });

    // Without its lease, or with a lease altered, nothing is added; with it, the scenes go in under the lease's tenant.
    expect(codeOf(await call(first, ADD, { j: jobId, i: scenes(1, 2), l: null }))).toBe('FORBIDDEN');
    expect(codeOf(await call(first, ADD, { j: jobId, i: scenes(1, 2), l: `${held.lease}x` }))).toBe('FORBIDDEN');
    expect(codeOf(await call(second, ADD, { j: jobId, i: scenes(1, 2), l: held.lease }))).toBe('FORBIDDEN');
    const added = await call(first, ADD, { j: jobId, i: scenes(1, 2), l: held.lease });
    expect(added).toEqual({ data: { addWorkItems: { jobId, stageItemCounts: [{ stage: 'render-scenes', total: 2 }] } } });

    // The first holder goes quiet past its lease; the second pool worker takes generate-scenes over as attempt 2.
    shift += 31_000;
    let taken: { lease: string; step: { attempt: number } } | null = null;
    for (let n = 0; n < 20 && !taken; n++) taken = (await call(second, CLAIM)).data.claimWork;
    expect(taken).toMatchObject({ job: { jobId }, step: { name: 'generate-scenes', attempt: 2 } });
    // The old lease adds nothing and reports nothing any more: the attempt it names is over.
    const stale = await call(first, ADD, { j: jobId, i: scenes(3, 1), l: held.lease });
    expect({ code: codeOf(stale), message: stale.errors?.[0]?.message }).toEqual({
      code: 'INVALID_TRANSITION',
      message: expect.stringContaining('that attempt is over'),
    });
    const COMPLETE =
      'mutation($j: ID!, $l: String, $n: Int!) { completeStep(jobId: $j, stepName: "generate-scenes", lease: $l, outputs: { sceneCount: $n }) { currentStep } }';
    expect(codeOf(await call(first, COMPLETE, { j: jobId, l: held.lease, n: 2 }))).toBe('INVALID_TRANSITION');
    // The new holder adds the rest and completes its step: the scenes render.
    expect(codeOf(await call(second, ADD, { j: jobId, i: scenes(3, 1), l: taken!.lease }))).toBeUndefined();
    expect((await call(second, COMPLETE, { j: jobId, l: taken!.lease, n: 3 })).data.completeStep).toEqual({ currentStep: 'render-scenes' });
    expect(codeOf(await call(second, ADD, { j: jobId, i: scenes(4, 1), l: taken!.lease }))).toBe('INVALID_TRANSITION');

    // A lease on an item adds nothing (only a step's holder adds its job's items), and a kind outside the token is FORBIDDEN.
    const scene = (await call(renderer, CLAIM)).data.claimWork;
    expect(scene).toMatchObject({ tenantId, job: { jobId }, item: { sequence: 1, attempt: 1 } });
    expect(codeOf(await call(renderer, ADD, { j: jobId, i: scenes(4, 1), l: scene.lease }))).toBe('FORBIDDEN');
    expect(codeOf(await call(renderer, 'mutation { claimWork(kind: "BATCH") { lease } }'))).toBe('FORBIDDEN');
    const counts = (await call(editor, `{ job(jobId: "${jobId}") { stageItemCounts { stage total } } }`)).data.job.stageItemCounts;
    expect(counts).toEqual([{ stage: 'render-scenes', total: 3 }]);
  }, 60_000);

  it('refuses pool tokens that name a tenant or other roles, and tenant tokens that claim the pool role', async () => {
    const pool = await signDevToken(secret, { sub: 'gpu', pool: { kinds: ['BATCH'] } });
    expect((await gql(pool, CLAIM)).errors).toBeUndefined();
    const sneaky = await signDevToken(secret, { sub: 'gpu', tenantId: 'acme', roles: [Role.POOL] });
    expect((await server.raw({ query: CLAIM }, sneaky)).status).toBe(401);
    const wrongKind = await gql(pool, 'mutation { claimWork(kind: "MUSIC_VIDEO") { tenantId } }');
    expect(wrongKind.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
  });
});
