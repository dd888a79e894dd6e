import { spawn } from 'node:child_process';
import { signDevToken } from '../../src/auth/jwt';
import { entities } from '../../src/common/entities';
import { JOB_KINDS } from '../../src/job/job.kinds';
import { processFixture } from '../support/processes';
import { Role, startTestServer, TEST_SECRET, type TestServer } from '../support/server';
import { waitFor } from '../support/wait';

// One single step, claimed by pool workers, with no retry backoff: a lease that ran out is taken over at once.
JOB_KINDS.TEST_POOL_CAPPED_STEP = {
  description: 'One single step.',
  inputs: { label: { kind: 'string', required: true } },
  stages: [{ name: 'render', phase: 'processing' }],
};

// One strict fan-out stage whose items get one attempt each: the first failure fails the stage and the job.
JOB_KINDS.TEST_POOL_STRICT = {
  description: 'Numbered items, one attempt each; none may fail.',
  inputs: { label: { kind: 'string', required: true } },
  stages: [{ name: 'process', phase: 'processing', fanOut: { inputs: { n: { kind: 'int', required: true } }, outputs: {}, attempts: 1 } }],
};

/** How long a lease lasts on this file's server: short, so that the takeovers come soon. */
const LEASE_SECONDS = 2;
/** BATCH's declared retry backoff after a first attempt: 1 s, with a jitter of 20 %. */
const BATCH_BACKOFF_MS = 1200;
/**
 * What a takeover may take beyond the lease's end and the backoff: the new workers' polls (every
 * 100 ms), the claims' round trips and the scheduler's view of the pool (up to 250 ms old) on a
 * busy two-core machine.
 */
const SLACK_MS = 2500;

/**
 * A capped tenant (PoolShare.maxRunning) whose pool workers all die mid-item: their attempts
 * count as running until a claim ends them, so the claims made at the limit must end them, as
 * claims do without a cap. The pool workers are real processes, SIGKILLed while they hold their
 * work; new pool workers then take it over within the backoff after the leases end.
 */
describe('a capped tenant whose pool workers all die', () => {
  let server: TestServer;
  const secret = new TextEncoder().encode(TEST_SECRET);
  const run = Date.now();

  beforeAll(async () => {
    server = await startTestServer({ env: { JOB_LEASE_SECONDS: String(LEASE_SECONDS) } });
  });

  const ok = async (token: string, query: string, variables: Record<string, unknown> = {}) => {
    const out = (await server.raw({ query, variables }, token)).body;
    if (out.errors) throw new Error(JSON.stringify(out.errors));
    return out.data;
  };
  const poolToken = (sub: string, kinds: string[]) => signDevToken(secret, { sub, pool: { kinds } });

  /** A tenant with a project and a running limit of `maxRunning` pool claims. */
  async function cappedTenant(name: string, maxRunning: number) {
    const tenantId = `${name}-${run}`;
    const editor = await server.token(tenantId, [Role.EDITOR], 'artist');
    const operator = await server.operatorToken('ops');
    await ok(operator, 'mutation($t: ID!, $m: Int!) { setPoolShare(tenantId: $t, weight: 1, maxRunning: $m) { maxRunning } }', {
      t: tenantId,
      m: maxRunning,
    });
    const projectId = (await ok(editor, 'mutation { createProject(input: { title: "Capped" }) { projectId } }')).createProject.projectId;
    return { tenantId, editor, projectId };
  }

  /**
   * A pool worker process that claims once with `query`, prints the claim as a line of JSON and
   * then holds it without ever reporting, until it is killed.
   */
  function holdingWorker(token: string, query: string): Promise<{ child: ReturnType<typeof spawn>; claim: any }> {
    const script = `
      fetch(process.env.URL, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer ' + process.env.TOKEN },
        body: JSON.stringify({ query: process.env.QUERY }),
      }).then((r) => r.json()).then((out) => {
        process.stdout.write(JSON.stringify(out) + '\\n');
        setInterval(() => {}, 60_000);
      }, (error) => { console.error(error); process.exit(2); });`;
    const child = processFixture(
      spawn(process.execPath, ['-e', script], {
        env: { PATH: process.env.PATH, URL: server.url, TOKEN: token, QUERY: query },
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    );
    return new Promise((resolve, reject) => {
      let output = '';
      child.stderr!.on('data', (chunk) => (output += chunk));
      child.stdout!.on('data', (chunk) => {
        output += chunk;
        if (!output.includes('\n')) return;
        const out = JSON.parse(output);
        if (out.errors || !out.data?.claimWork) reject(new Error(`the worker claimed nothing: ${output}`));
        else resolve({ child, claim: out.data.claimWork });
      });
      child.once('exit', (code) => reject(new Error(`the worker exited with ${code}: ${output}`)));
    });
  }

  const killed = (child: ReturnType<typeof spawn>) =>
    new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGKILL');
    });

  /**
   * Claims with `query` as pool worker `token`, as a polling worker does, until a claim is handed
   * out (failing after `ms`), or until `done` says there is no more work to wait for (then null).
   */
  async function claimWithin(token: string, query: string, ms: number, done = () => false) {
    const answer = await waitFor(
      async () => {
        if (done()) return { claimed: null };
        const claimed = (await ok(token, query)).claimWork;
        return claimed && { claimed };
      },
      'a claim',
      { ms },
    );
    return answer.claimed;
  }

  it('has its items taken over by new pool workers within the backoff after the leases end, never past its limit', async () => {
    const { tenantId, editor, projectId } = await cappedTenant('capped-items', 2);
    const jobId = (
      await ok(editor, 'mutation($i: CreateJobInput!) { createJob(input: $i) { jobId } }', {
        i: {
          projectId,
          kind: 'BATCH',
          inputs: { label: 'capped' },
          items: Array.from({ length: 4 }, (_, i) => ({ source: `tenants/${tenantId}/in/${i}.png` })),
        },
      })
    ).createJob.jobId;
    const CLAIM =
      'mutation { claimWork(kind: "BATCH") { tenantId lease job { jobId } item { sequence attempt startedAt leaseExpiresAt } } }';
    // Two pool workers take the tenant's two places, then die holding them.
    const dying = await Promise.all(['gpu-dies-1', 'gpu-dies-2'].map(async (sub) => holdingWorker(await poolToken(sub, ['BATCH']), CLAIM)));
    const leaseEnds = dying.map(({ claim }) => Date.parse(claim.item.leaseExpiresAt));
    expect(dying.map(({ claim }) => claim.item.attempt)).toEqual([1, 1]);
    const fresh = await poolToken('gpu-fresh', ['BATCH']);
    // At the limit while they hold it: nothing for anyone else.
    expect((await ok(fresh, CLAIM)).claimWork).toBeNull();
    await Promise.all(dying.map(({ child }) => killed(child)));

    // New pool workers claim until all four items are done; each held item comes back as attempt 2.
    const heldSequences = new Set(dying.map(({ claim }) => claim.item.sequence));
    const workers = await Promise.all(['gpu-new-1', 'gpu-new-2'].map((sub) => poolToken(sub, ['BATCH'])));
    const taken: Array<{ sequence: number; attempt: number; startedAt: number }> = [];
    const deadline = Math.max(...leaseEnds) + BATCH_BACKOFF_MS + SLACK_MS + 4000;
    await Promise.all(
      workers.map(async (token) => {
        while (taken.length < 4 && Date.now() < deadline) {
          const claimed = await claimWithin(token, CLAIM, deadline - Date.now(), () => taken.length >= 4);
          if (!claimed) break;
          taken.push({ sequence: claimed.item.sequence, attempt: claimed.item.attempt, startedAt: Date.parse(claimed.item.startedAt) });
          await ok(
            token,
            'mutation($j: ID!, $n: Int!, $a: Int!, $l: String, $o: JSONObject!) { completeWorkItem(jobId: $j, stage: "process", sequence: $n, attempt: $a, lease: $l, outputs: $o) { status } }',
            {
              j: jobId,
              n: claimed.item.sequence,
              a: claimed.item.attempt,
              l: claimed.lease,
              o: { result: `tenants/${tenantId}/out/${claimed.item.sequence}.png` },
            },
          );
        }
      }),
    );
    expect(taken.map((t) => t.sequence).sort()).toEqual([1, 2, 3, 4]);
    // The items the dead workers held were taken over as their second attempt, within the
    // backoff after their leases ended.
    for (const t of taken.filter((t) => heldSequences.has(t.sequence))) {
      expect(t.attempt).toBe(2);
      expect(t.startedAt).toBeLessThanOrEqual(Math.max(...leaseEnds) + BATCH_BACKOFF_MS + SLACK_MS);
    }
    const job = (await ok(editor, `{ job(jobId: "${jobId}") { status itemCounts { running completed } } }`)).job;
    expect(job).toEqual({ status: 'COMPLETED', itemCounts: { running: 0, completed: 4 } });
    // The limit held at every commit: never more than two items running under the pool at once.
    const events = await server.app.store.queryAll({ pk: `TENANT#${tenantId}#JOB#${jobId}`, skPrefix: 'EVENT#' });
    let running = 0;
    let most = 0;
    for (const e of events) {
      if (e.type === 'ITEM_STARTED' || e.type === 'ITEM_RECLAIMED') running += e.type === 'ITEM_STARTED' ? 1 : 0;
      if (e.type === 'ITEM_COMPLETED' || e.type === 'ITEM_ATTEMPT_FAILED' || e.type === 'ITEM_FAILED') running--;
      most = Math.max(most, running);
    }
    expect(most).toBe(2);
    expect(running).toBe(0);
    expect((await server.app.store.get({ PK: `TENANT#${tenantId}`, SK: 'POOLLOAD' }))?.running).toBe(0);
  }, 90_000);

  it('has its single step taken over within a moment of the lease ending, under a limit of one, whichever of its jobs holds it', async () => {
    const { tenantId, editor, projectId } = await cappedTenant('capped-step', 1);
    const create = async (label: string, priority: number) =>
      (
        await ok(editor, 'mutation($i: CreateJobInput!) { createJob(input: $i) { jobId } }', {
          i: { projectId, kind: 'TEST_POOL_CAPPED_STEP', inputs: { label }, priority },
        })
      ).createJob.jobId as string;
    const CLAIM =
      'mutation { claimWork(kind: "TEST_POOL_CAPPED_STEP") { tenantId lease job { jobId } step { name attempt startedAt leaseExpiresAt } } }';
    // Two jobs: the first one's step is claimed and its worker dies; the second, of a higher
    // priority, comes first in the pool's order, and the claims at the limit must still reach the first.
    const first = await create('one', 5);
    const { child, claim } = await holdingWorker(await poolToken('gpu-step-dies', ['TEST_POOL_CAPPED_STEP']), CLAIM);
    expect(claim).toMatchObject({ tenantId, job: { jobId: first }, step: { name: 'render', attempt: 1 } });
    const second = await create('two', 9);
    const leaseEnd = Date.parse(claim.step.leaseExpiresAt);
    await killed(child);

    const fresh = await poolToken('gpu-step-new', ['TEST_POOL_CAPPED_STEP']);
    const taken = await claimWithin(fresh, CLAIM, leaseEnd + SLACK_MS + 4000 - Date.now());
    expect(taken).toMatchObject({ tenantId, job: { jobId: first }, step: { name: 'render', attempt: 2 } });
    expect(Date.parse(taken.step.startedAt)).toBeLessThanOrEqual(leaseEnd + SLACK_MS);
    // Still one at a time: the second job's step waits while the first's new attempt runs.
    expect((await ok(fresh, CLAIM)).claimWork).toBeNull();
    await ok(fresh, 'mutation($j: ID!, $l: String) { completeStep(jobId: $j, stepName: "render", lease: $l) { status } }', {
      j: first,
      l: taken.lease,
    });
    const next = await claimWithin(fresh, CLAIM, 10_000);
    expect(next).toMatchObject({ tenantId, job: { jobId: second }, step: { name: 'render', attempt: 1 } });
    await ok(fresh, 'mutation($j: ID!, $l: String) { completeStep(jobId: $j, stepName: "render", lease: $l) { status } }', {
      j: second,
      l: next.lease,
    });
    expect((await server.app.store.get({ PK: `TENANT#${tenantId}`, SK: 'POOLLOAD' }))?.running).toBe(0);
  }, 90_000);

  it('gets its pool places back when a job ends with pool work still running: a stage failed by its policy, a cancelled step, a deleted job', async () => {
    const { tenantId, editor, projectId } = await cappedTenant('capped-ended', 2);
    // The tenant's count of work running under pool claims, as the claims' transactions keep it.
    const load = async () => (await server.app.store.get(entities.PoolLoad.keyOf(tenantId, {})))?.running;
    const create = async (kind: string, label: string, items?: object[]) =>
      (
        await ok(editor, 'mutation($i: CreateJobInput!) { createJob(input: $i) { jobId } }', {
          i: { projectId, kind, inputs: { label }, items },
        })
      ).createJob.jobId as string;
    const gpu = await poolToken('gpu-ended', ['TEST_POOL_STRICT', 'TEST_POOL_CAPPED_STEP']);
    const CLAIM_ITEM = 'mutation { claimWork(kind: "TEST_POOL_STRICT") { lease job { jobId } item { sequence attempt } } }';
    const FAIL =
      'mutation($j: ID!, $n: Int!, $l: String) { failWorkItem(jobId: $j, stage: "process", sequence: $n, attempt: 1, lease: $l, code: "BROKEN", message: "broken") { status } }';
    const itemStatuses = async (jobId: string) =>
      (await ok(editor, 'query($j: ID!) { job(jobId: $j) { status items { nodes { status } } } }', { j: jobId })).job;
    // The sweep runs when this test says, so that each way back is seen on its own; it runs on its timer again after.
    await server.app.settler.stop();
    try {
      // A strict stage fails by its first failed item while a pool worker still holds the other.
      const failing = await create('TEST_POOL_STRICT', 'fails', [{ n: 1 }, { n: 2 }]);
      const held = [(await ok(gpu, CLAIM_ITEM)).claimWork, (await ok(gpu, CLAIM_ITEM)).claimWork];
      expect(held.map((c) => [c.job.jobId, c.item.sequence])).toEqual([
        [failing, 1],
        [failing, 2],
      ]);
      expect(await load()).toBe(2);
      await ok(gpu, FAIL, { j: failing, n: 1, l: held[0].lease });
      expect(await itemStatuses(failing)).toEqual({ status: 'FAILED', items: { nodes: [{ status: 'FAILED' }, { status: 'RUNNING' }] } });
      // The other still counts: no report of its worker is accepted now, and no claim takes it over.
      expect(await load()).toBe(1);
      await server.app.settler.sweep();
      expect(await load()).toBe(0);
      // It stays running (a retry of the stage may take it over, or its worker finish it): only the count moved.
      expect(await itemStatuses(failing)).toEqual({ status: 'FAILED', items: { nodes: [{ status: 'FAILED' }, { status: 'RUNNING' }] } });

      // A pool worker's single step, when its job is cancelled: its place comes back with the cancellation.
      const cancelled = await create('TEST_POOL_CAPPED_STEP', 'cancelled');
      expect((await ok(gpu, 'mutation { claimWork(kind: "TEST_POOL_CAPPED_STEP") { job { jobId } } }')).claimWork.job.jobId).toBe(
        cancelled,
      );
      expect(await load()).toBe(1);
      await ok(editor, 'mutation($j: ID!) { cancelJob(jobId: $j) { status } }', { j: cancelled });
      expect(await load()).toBe(0);

      // A job that failed with an item still held is deleted before the sweep settled it: its place comes back with the deletion.
      const deleted = await create('TEST_POOL_STRICT', 'deleted', [{ n: 1 }, { n: 2 }]);
      const twice = [(await ok(gpu, CLAIM_ITEM)).claimWork, (await ok(gpu, CLAIM_ITEM)).claimWork];
      expect(twice.map((c) => c.job.jobId)).toEqual([deleted, deleted]);
      await ok(gpu, FAIL, { j: deleted, n: 1, l: twice[0].lease });
      expect(await load()).toBe(1);
      await ok(editor, 'mutation($j: ID!) { deleteJob(jobId: $j) { status } }', { j: deleted });
      expect(await load()).toBe(0);

      // The same with more rows than a deletion's own transaction deletes (87, first by key): the job's
      // events sort before its items, so with 90 progress reports the held item is left to the sweep's purge.
      const large = await create('TEST_POOL_STRICT', 'large', [{ n: 1 }, { n: 2 }]);
      const last = [(await ok(gpu, CLAIM_ITEM)).claimWork, (await ok(gpu, CLAIM_ITEM)).claimWork];
      expect(last.map((c) => [c.job.jobId, c.item.sequence])).toEqual([
        [large, 1],
        [large, 2],
      ]);
      const PROGRESS =
        'mutation($j: ID!, $p: Float!, $l: String) { reportWorkItemProgress(jobId: $j, stage: "process", sequence: 2, attempt: 1, lease: $l, progress: $p) { status } }';
      for (let n = 1; n <= 90; n++) await ok(gpu, PROGRESS, { j: large, p: n / 100, l: last[1].lease });
      await ok(gpu, FAIL, { j: large, n: 1, l: last[0].lease });
      await ok(editor, 'mutation($j: ID!) { deleteJob(jobId: $j) { status } }', { j: large });
      expect(await load()).toBe(1);
      await server.app.settler.sweep();
      expect(await load()).toBe(0);
      expect(await server.app.store.queryFirst({ pk: entities.Job.key.pkOf(tenantId, { jobId: large }) }, 10)).toEqual([]);
    } finally {
      server.app.settler.start();
    }
  }, 60_000);
});
