import { attr } from '../../src/infra/dynamo/entity';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config';
import { backoffSeconds, fanOutOf, JOB_KINDS, type RetryBackoff } from '../../src/job/job.kinds';
import { Role, startTestServer, type TestServer } from '../support/server';
import { subscribe, wsClient } from '../support/ws';

/**
 * Attempt timeouts, retry backoff and dead letters of work items (job.aggregate.ts, job.dead-letters.ts):
 * a worker that keeps renewing loses its item when its attempt's time is up, failed attempts come
 * back after a growing backoff, and a filtered replay reopens exactly the matching dead letters.
 * Real DynamoDB Local and a real server. The server runs in this process, so the test declares
 * kinds of its own, with timeouts and backoffs of a second or two, beside the seeds' kinds. The
 * server's clock (the requests' Scope.now) is the test's: it moves the clock on to a timeout or to
 * the end of a backoff instead of waiting for it.
 */

const BACKOFF: RetryBackoff = { initialSeconds: 1, factor: 2, maxSeconds: 3, jitter: 0.25 };
const TIMEOUT_SECONDS = 2;
const item = { inputs: { n: attr.int() }, outputs: { ok: attr.boolean() } };

JOB_KINDS.TEST_TIMEOUT = {
  description: 'One fan-out stage whose attempts may run 2 s, without backoff.',
  inputs: {},
  stages: [{ name: 'slow', phase: 'processing', fanOut: { ...item, attempts: 3, attemptTimeoutSeconds: TIMEOUT_SECONDS } }],
};
JOB_KINDS.TEST_BACKOFF = {
  description: 'One fan-out stage whose failed attempts wait 1, 2, then 3 s (less up to a quarter).',
  inputs: {},
  stages: [
    { name: 'flaky', phase: 'processing', fanOut: { ...item, attempts: 4, retryBackoff: BACKOFF, failurePolicy: { maxFailed: 10 } } },
  ],
};
// Two kinds to make dead letters of: one tolerant stage, one strict (its first failed item fails the job).
JOB_KINDS.TEST_DEAD_A = {
  description: 'A tolerant stage of one attempt an item.',
  inputs: {},
  stages: [{ name: 'one', phase: 'processing', fanOut: { ...item, attempts: 1, failurePolicy: { maxFailed: 10 } } }],
};
JOB_KINDS.TEST_DEAD_B = {
  description: 'A strict stage of one attempt an item.',
  inputs: {},
  stages: [{ name: 'two', phase: 'processing', fanOut: { ...item, attempts: 1 } }],
};
// Single-step stages: one whose attempts may run 2 s, one whose failed attempts wait 1, 2, then 3 s (no jitter).
JOB_KINDS.TEST_STEP_TIMEOUT = {
  description: 'One step whose attempts may run 2 s.',
  inputs: {},
  stages: [{ name: 'render', phase: 'processing', attemptTimeoutSeconds: TIMEOUT_SECONDS }],
};
JOB_KINDS.TEST_STEP_BACKOFF = {
  description: 'One step whose failed attempts wait before the next.',
  inputs: {},
  stages: [{ name: 'render', phase: 'processing', retryBackoff: { ...BACKOFF, jitter: 0 } }],
};
JOB_KINDS.TEST_DEAD_C = {
  description: 'A strict stage of one attempt an item, for the admins’ list across tenants.',
  inputs: {},
  stages: [{ name: 'three', phase: 'processing', fanOut: { ...item, attempts: 1 } }],
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** How far the server's clock is ahead of the wall clock: the tests move it on instead of waiting. */
let ahead = 0;
/** While set, the wall-clock time the server's clock stopped at (see freeze). */
let frozen: number | undefined;
const clock = () => new Date((frozen ?? Date.now()) + ahead);
/** Stops the server's clock until thaw: it then moves only by pass, so a slow machine's steps take none of a test's time. */
const freeze = () => {
  frozen = Date.now();
};
/** Lets the server's clock run on from where it stood. */
const thaw = () => {
  if (frozen === undefined) return;
  ahead -= Date.now() - frozen;
  frozen = undefined;
};
/** Moves the server's clock on by `ms` (a worker's pause between two reports, say). */
const pass = (ms: number) => {
  ahead += ms;
};
/** Moves the server's clock on to `iso`, if it is not there yet (the end of a backoff). */
const passUntil = (iso: string) => pass(Math.max(0, Date.parse(iso) - clock().getTime()));
const ITEM = 'jobId stage sequence status attempt worker error { code } leaseExpiresAt timesOutAt availableAt startedAt';

describe('attempt timeouts, retry backoff and dead letters', () => {
  afterEach(thaw);

  let server: TestServer;
  let tenantCounter = 0;

  beforeAll(async () => {
    // A long lease, so only the attempt timeout can end an attempt whose worker reports.
    server = await startTestServer({ env: { JOB_LEASE_SECONDS: '600' }, now: clock });
  });

  async function tenant() {
    const tenantId = `timeouts-${Date.now()}-${++tenantCounter}`;
    const editor = await server.token(tenantId, [Role.EDITOR], 'operator');
    const gql = async (token: string, query: string, variables: Record<string, unknown> = {}) =>
      (await server.raw({ query, variables }, token)).body;
    const data = async (token: string, query: string, variables: Record<string, unknown> = {}) => {
      const out = await gql(token, query, variables);
      if (out.errors) throw new Error(JSON.stringify(out.errors));
      return out.data;
    };
    const { projectId } = (await data(editor, 'mutation { createProject(input: { title: "Timeouts" }) { projectId } }')).createProject;
    const worker = (n: number) => server.token(tenantId, [Role.WORKER], `worker-${n}`);
    const createJob = async (kind: string, items: number) =>
      (
        await data(editor, 'mutation($i: CreateJobInput!) { createJob(input: $i) { jobId } }', {
          i: { projectId, kind, items: Array.from({ length: items }, (_, n) => ({ n: n + 1 })) },
        })
      ).createJob.jobId as string;
    const claim = async (token: string, kind: string) =>
      (await data(token, `mutation($k: String) { claimWork(kind: $k) { item { ${ITEM} } } }`, { k: kind })).claimWork?.item ?? null;
    /** Claims until an item is handed out (a backoff or a lease may hold it a while), at most 15 s. */
    const claimWhenReady = async (token: string, kind: string) => {
      const deadline = Date.now() + 15_000;
      for (;;) {
        const claimed = await claim(token, kind);
        if (claimed) return claimed;
        if (Date.now() > deadline) throw new Error(`nothing of ${kind} to claim within 15 s`);
        await sleep(50);
      }
    };
    const ref = (i: { jobId: string; stage: string; sequence: number; attempt: number }) => ({
      j: i.jobId,
      s: i.stage,
      n: i.sequence,
      a: i.attempt,
    });
    const report = (token: string, i: Parameters<typeof ref>[0]) =>
      gql(
        token,
        `mutation($j: ID!, $s: String!, $n: Int!, $a: Int!) { reportWorkItemProgress(jobId: $j, stage: $s, sequence: $n, attempt: $a, progress: 0.5) { ${ITEM} } }`,
        ref(i),
      );
    const fail = async (token: string, i: Parameters<typeof ref>[0], code: string) =>
      (
        await data(
          token,
          `mutation($j: ID!, $s: String!, $n: Int!, $a: Int!, $c: String!) { failWorkItem(jobId: $j, stage: $s, sequence: $n, attempt: $a, code: $c, message: "It broke.") { ${ITEM} } }`,
          { ...ref(i), c: code },
        )
      ).failWorkItem;
    const job = async (jobId: string) =>
      (
        await data(
          editor,
          `query($j: ID!) { job(jobId: $j) { status seq updatedAt currentStep itemCounts { total pending running completed failed } items(first: 10) { nodes { ${ITEM} } } } }`,
          { j: jobId },
        )
      ).job;
    /** The job's stream replayed from its start: every event's type and item. */
    const events = async (jobId: string) => {
      const { seq } = await job(jobId);
      const client = wsClient(server.url, editor);
      const replay = subscribe(
        client,
        'subscription($j: ID!) { jobProgress(jobId: $j, afterSeq: 0) { seq type item { sequence attempt status } } }',
        {
          j: jobId,
        },
      );
      await replay.ack;
      return (await replay.waitFor(seq)) as Array<{
        seq: number;
        type: string;
        item: { sequence: number; attempt: number; status: string } | null;
      }>;
    };
    return { tenantId, projectId, editor, gql, data, worker, createJob, claim, claimWhenReady, report, fail, job, events };
  }

  it('ends an attempt at its timeout although its worker keeps renewing: the next claim holds attempt 2 (ATTEMPT_TIMED_OUT), and the old worker is refused', async () => {
    const t = await tenant();
    const jobId = await t.createJob('TEST_TIMEOUT', 1);
    const slow = await t.worker(1);
    // The reports below count the server's time only as the test moves it, however slowly each is answered.
    freeze();
    const first = await t.claim(slow, 'TEST_TIMEOUT');
    expect(first).toMatchObject({ jobId, sequence: 1, attempt: 1, status: 'RUNNING', worker: 'worker-1' });
    const timesOutAt = Date.parse(first.timesOutAt);
    expect(timesOutAt - Date.parse(first.startedAt)).toBe(TIMEOUT_SECONDS * 1000);
    // The lease (600 s) never outlasts the attempt's time.
    expect(first.leaseExpiresAt).toBe(first.timesOutAt);

    // The worker reports every 200 ms (of the server's clock). Each report before the timeout is
    // taken and renews the lease only up to the timeout; meanwhile nobody else can claim the item.
    // The first report past the timeout is refused with ATTEMPT_TIMED_OUT.
    const rescuer = await t.worker(2);
    let accepted = 0;
    let refused: { extensions: Record<string, unknown> } | undefined;
    for (let n = 0; n < 50 && !refused; n++) {
      const out = await t.report(slow, first);
      if (out.errors) {
        refused = out.errors[0];
        break;
      }
      accepted++;
      expect(out.data.reportWorkItemProgress.leaseExpiresAt).toBe(first.timesOutAt);
      if (clock().getTime() < timesOutAt - 300) expect(await t.claim(rescuer, 'TEST_TIMEOUT')).toBeNull();
      pass(200);
    }
    expect(accepted).toBeGreaterThanOrEqual(3);
    expect(refused?.extensions).toMatchObject({ code: 'ATTEMPT_TIMED_OUT', attempt: 1, timedOutAt: first.timesOutAt });
    expect(clock().getTime()).toBeGreaterThanOrEqual(timesOutAt);

    // The next claim takes the item over as attempt 2, the timeout named as attempt 1's error.
    const second = await t.claim(rescuer, 'TEST_TIMEOUT');
    expect(second).toMatchObject({
      jobId,
      sequence: 1,
      attempt: 2,
      status: 'RUNNING',
      worker: 'worker-2',
      error: { code: 'ATTEMPT_TIMED_OUT' },
    });
    expect(Date.parse(second.timesOutAt) - Date.parse(second.startedAt)).toBe(TIMEOUT_SECONDS * 1000);

    // The old worker's next report (and its completion) are refused: its attempt is over.
    const before = await t.job(jobId);
    const late = await t.report(slow, first);
    expect(late.errors[0].extensions).toMatchObject({ code: 'INVALID_TRANSITION', from: 'at attempt 2', to: 'attempt 1' });
    const lateDone = await t.gql(
      slow,
      'mutation($j: ID!) { completeWorkItem(jobId: $j, stage: "slow", sequence: 1, attempt: 1, outputs: { ok: true }) { status } }',
      { j: jobId },
    );
    expect(lateDone.errors[0].extensions).toMatchObject({ code: 'INVALID_TRANSITION', from: 'at attempt 2' });
    expect((await t.job(jobId)).seq).toBe(before.seq);
    const types = (await t.events(jobId)).filter((e) => e.type.startsWith('ITEM_')).map((e) => [e.type, e.item?.attempt]);
    expect(types).toEqual([['ITEM_STARTED', 1], ...Array.from({ length: accepted }, () => ['ITEM_PROGRESS', 1]), ['ITEM_RECLAIMED', 2]]);
  }, 60_000);

  it('holds a failed item back for its backoff, which grows per the declared schedule within its jitter; a claim before it ends gets nothing', async () => {
    const t = await tenant();
    const jobId = await t.createJob('TEST_BACKOFF', 1);
    const w = await t.worker(1);
    const delays: number[] = [];
    let current = await t.claim(w, 'TEST_BACKOFF');
    for (let attempt = 1; attempt <= 3; attempt++) {
      expect(current).toMatchObject({ sequence: 1, attempt, status: 'RUNNING' });
      const waiting = await t.fail(w, current, 'FLAKY');
      const failedAt = (await t.job(jobId)).updatedAt;
      expect(waiting).toMatchObject({ status: 'PENDING', attempt: attempt + 1, error: { code: 'FLAKY' }, availableAt: expect.any(String) });
      const delay = Date.parse(waiting.availableAt) - Date.parse(failedAt);
      // The exact delay: the schedule's, less the share of the jitter that this job, stage,
      // sequence and attempt take (a hash, so the test can compute it).
      expect(delay).toBe(Math.round(backoffSeconds(BACKOFF, { jobId, stage: 'flaky', sequence: 1, attempt }) * 1000));
      const base = Math.min(BACKOFF.maxSeconds, BACKOFF.initialSeconds * BACKOFF.factor ** (attempt - 1)) * 1000;
      expect(delay).toBeGreaterThanOrEqual(base * (1 - BACKOFF.jitter));
      expect(delay).toBeLessThanOrEqual(base);
      delays.push(delay);

      // Before the backoff ends nothing is handed out (only a claim answered in time says so);
      // once the clock has passed its end, the next claim hands the item out.
      const early = await t.claim(w, 'TEST_BACKOFF');
      if (clock().getTime() < Date.parse(waiting.availableAt)) expect(early).toBeNull();
      passUntil(waiting.availableAt);
      current = early ?? (await t.claimWhenReady(w, 'TEST_BACKOFF'));
      expect(current).toMatchObject({ attempt: attempt + 1, status: 'RUNNING' });
      expect(Date.parse(current.startedAt)).toBeGreaterThanOrEqual(Date.parse(waiting.availableAt));
    }
    expect(delays[1]).toBeGreaterThan(delays[0]);
    expect(delays[2]).toBeGreaterThan(delays[1]);

    // The last attempt fails: the item is a dead letter (no backoff), listed by its code.
    const dead = await t.fail(w, current, 'FLAKY');
    expect(dead).toMatchObject({ status: 'FAILED', attempt: 4, availableAt: null });
    const listed = await t.data(
      t.editor,
      `query { deadLetters(kind: "TEST_BACKOFF", stage: "flaky", errorCode: "FLAKY") { nodes { ${ITEM} } } }`,
    );
    expect(listed.deadLetters.nodes).toEqual([expect.objectContaining({ jobId, sequence: 1, status: 'FAILED', error: { code: 'FLAKY' } })]);
  }, 60_000);

  it('replays exactly the dead letters a filter matches, in bounded batches, each with its ITEM_RETRIED event, and leaves the others', async () => {
    const t = await tenant();
    const w = await t.worker(1);
    // A (tolerant): four of its five items are claimed (claimWork hands them out in no fixed
    // order); the two lowest fail with DECODE, the other two with OOM, in sequence order; the
    // fifth waits, so the stage still runs.
    const a = await t.createJob('TEST_DEAD_A', 5);
    const claimed: Array<{ jobId: string; stage: string; sequence: number; attempt: number }> = [];
    for (let n = 0; n < 4; n++) claimed.push(await t.claim(w, 'TEST_DEAD_A'));
    claimed.sort((x, y) => x.sequence - y.sequence);
    const [d1, d2, o1, o2] = claimed.map((c) => c.sequence);
    for (const [i, c] of claimed.entries()) expect(await t.fail(w, c, i < 2 ? 'DECODE' : 'OOM')).toMatchObject({ status: 'FAILED' });
    const waiting = [1, 2, 3, 4, 5].find((n) => !claimed.some((c) => c.sequence === n));
    // B1 and B2 (strict): one item each fails, with DECODE and OOM, and fails its job.
    const b1 = await t.createJob('TEST_DEAD_B', 2);
    const b1Item = await t.claim(w, 'TEST_DEAD_B');
    expect(await t.fail(w, b1Item, 'DECODE')).toMatchObject({ jobId: b1, status: 'FAILED' });
    const b2 = await t.createJob('TEST_DEAD_B', 2);
    const b2Item = await t.claim(w, 'TEST_DEAD_B');
    expect(await t.fail(w, b2Item, 'OOM')).toMatchObject({ jobId: b2, status: 'FAILED' });
    expect(await t.job(b1)).toMatchObject({ status: 'FAILED' });
    expect(await t.job(b2)).toMatchObject({ status: 'FAILED' });

    const letters = async (kind: string, stage: string, code?: string) =>
      (
        await t.data(
          t.editor,
          'query($k: String!, $s: String!, $c: String) { deadLetters(kind: $k, stage: $s, errorCode: $c) { nodes { jobId sequence error { code } } } }',
          {
            k: kind,
            s: stage,
            c: code,
          },
        )
      ).deadLetters.nodes.map(
        (n: { jobId: string; sequence: number; error: { code: string } }) => `${n.jobId}/${n.sequence}/${n.error.code}`,
      );
    // By code, newest first; without a code, by code (descending), newest first in each.
    expect(await letters('TEST_DEAD_A', 'one', 'DECODE')).toEqual([`${a}/${d2}/DECODE`, `${a}/${d1}/DECODE`]);
    expect(await letters('TEST_DEAD_A', 'one')).toEqual([`${a}/${o2}/OOM`, `${a}/${o1}/OOM`, `${a}/${d2}/DECODE`, `${a}/${d1}/DECODE`]);
    expect(await letters('TEST_DEAD_B', 'two')).toEqual([`${b2}/${b2Item.sequence}/OOM`, `${b1}/${b1Item.sequence}/DECODE`]);

    const replay = (filter: Record<string, unknown>, max?: number, after?: string) =>
      t.data(
        t.editor,
        'mutation($f: DeadLetterFilter!, $m: Int, $a: String) { replayDeadLetters(filter: $f, max: $m, after: $a) { reopened skipped remaining cursor } }',
        {
          f: filter,
          m: max,
          a: after,
        },
      );

    // A worker may not replay; an unknown stage is the client's mistake.
    const denied = await t.gql(w, 'mutation { replayDeadLetters(filter: { kind: "TEST_DEAD_A" }) { reopened } }');
    expect(denied.errors[0].extensions.code).toBe('FORBIDDEN');
    const unknown = await t.gql(t.editor, 'mutation { replayDeadLetters(filter: { kind: "TEST_DEAD_A", stage: "nope" }) { reopened } }');
    expect(unknown.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'filter.stage' });

    const seqBefore = { a: (await t.job(a)).seq, b1: (await t.job(b1)).seq, b2: (await t.job(b2)).seq };
    // Kind A's DECODE letters: exactly items 1 and 2 reopen, as attempt 2 each.
    expect((await replay({ kind: 'TEST_DEAD_A', errorCode: 'DECODE' })).replayDeadLetters).toEqual({
      reopened: 2,
      skipped: 0,
      remaining: false,
      cursor: null,
    });
    const afterA = await t.job(a);
    const status = (j: { items: { nodes: Array<{ sequence: number; status: string; attempt: number }> } }) =>
      j.items.nodes.map((i) => [i.sequence, i.status, i.attempt]);
    const expected: Record<number, [string, number]> = {
      [d1]: ['PENDING', 2],
      [d2]: ['PENDING', 2],
      [o1]: ['FAILED', 1],
      [o2]: ['FAILED', 1],
      [waiting ?? 0]: ['PENDING', 1],
    };
    expect(status(afterA)).toEqual([1, 2, 3, 4, 5].map((n) => [n, ...expected[n]]));
    expect(afterA).toMatchObject({ status: 'RUNNING', itemCounts: { failed: 2, pending: 3 } });
    const retried = (await t.events(a)).filter((e) => e.seq > seqBefore.a);
    expect(retried.map((e) => [e.type, e.item?.sequence, e.item?.attempt])).toEqual([
      ['ITEM_RETRIED', d1, 2],
      ['ITEM_RETRIED', d2, 2],
    ]);
    // Kind B's DECODE letter (same code, another kind) is untouched, and so are both B jobs.
    expect((await t.job(b1)).seq).toBe(seqBefore.b1);
    expect((await t.job(b2)).seq).toBe(seqBefore.b2);
    expect(await letters('TEST_DEAD_A', 'one')).toEqual([`${a}/${o2}/OOM`, `${a}/${o1}/OOM`]);

    // One job's OOM letter of kind B: it reopens, and its strict stage and its job with it.
    expect((await replay({ kind: 'TEST_DEAD_B', stage: 'two', errorCode: 'OOM', jobId: b2 })).replayDeadLetters).toMatchObject({
      reopened: 1,
      skipped: 0,
    });
    expect(await t.job(b2)).toMatchObject({ status: 'RUNNING', itemCounts: { failed: 0 } });
    expect(await t.job(b1)).toMatchObject({ status: 'FAILED', seq: seqBefore.b1 });
    expect(await letters('TEST_DEAD_B', 'two')).toEqual([`${b1}/${b1Item.sequence}/DECODE`]);

    // Kind A's remaining letters one a call: the cursor goes on, and the last call says nothing remains.
    const one = (await replay({ kind: 'TEST_DEAD_A' }, 1)).replayDeadLetters;
    expect(one).toMatchObject({ reopened: 1, skipped: 0, remaining: true, cursor: expect.any(String) });
    const two = (await replay({ kind: 'TEST_DEAD_A' }, 1, one.cursor)).replayDeadLetters;
    expect(two).toMatchObject({ reopened: 1, skipped: 0, remaining: true });
    expect((await replay({ kind: 'TEST_DEAD_A' }, 1, two.cursor)).replayDeadLetters).toEqual({
      reopened: 0,
      skipped: 0,
      remaining: false,
      cursor: null,
    });
    expect(status(await t.job(a)).map(([n, s]) => [n, s])).toEqual([
      [1, 'PENDING'],
      [2, 'PENDING'],
      [3, 'PENDING'],
      [4, 'PENDING'],
      [5, 'PENDING'],
    ]);
    expect(await letters('TEST_DEAD_A', 'one')).toEqual([]);
    const bad = await t.gql(t.editor, 'mutation { replayDeadLetters(filter: { kind: "TEST_DEAD_A" }, max: 501) { reopened } }');
    expect(bad.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'max' });
  }, 90_000);

  it('holds a single step to its stage’s attempt timeout (renewals or not) and retry backoff', async () => {
    const t = await tenant();
    const STEP = 'name attempt status worker error { code } leaseExpiresAt timesOutAt waitsUntil startedAt finishedAt';
    const createStepJob = async (kind: string) =>
      (
        await t.data(t.editor, 'mutation($i: CreateJobInput!) { createJob(input: $i) { jobId } }', {
          i: { projectId: t.projectId, kind, maxAttempts: 4 },
        })
      ).createJob.jobId as string;
    const claimStep = async (token: string, kind: string) =>
      (await t.data(token, `mutation($k: String) { claimWork(kind: $k) { step { ${STEP} } } }`, { k: kind })).claimWork?.step ?? null;
    const claimStepWhenReady = async (token: string, kind: string) => {
      const deadline = Date.now() + 15_000;
      for (;;) {
        const claimed = await claimStep(token, kind);
        if (claimed) return claimed;
        if (Date.now() > deadline) throw new Error(`no step of ${kind} to claim within 15 s`);
        await sleep(50);
      }
    };
    const attempts = async (jobId: string) =>
      (await t.data(t.editor, `query($j: ID!) { job(jobId: $j) { steps { ${STEP} } } }`, { j: jobId })).job.steps;

    // The timeout: the holder reports every 200 ms; each report before its time renews the lease
    // only up to it, the first one after it is refused, and the next claim holds attempt 2.
    const timed = await createStepJob('TEST_STEP_TIMEOUT');
    const slow = await t.worker(1);
    const first = await claimStep(slow, 'TEST_STEP_TIMEOUT');
    expect(first).toMatchObject({ name: 'render', attempt: 1, status: 'RUNNING', worker: 'worker-1' });
    expect(Date.parse(first.timesOutAt) - Date.parse(first.startedAt)).toBe(TIMEOUT_SECONDS * 1000);
    expect(first.leaseExpiresAt).toBe(first.timesOutAt);
    let refused: { extensions: { code: string } } | undefined;
    for (let n = 0; n < 50 && !refused; n++) {
      const out = await t.gql(
        slow,
        `mutation($j: ID!) { reportStepProgress(jobId: $j, stepName: "render", progress: 0.5, attempt: 1) { steps { ${STEP} } } }`,
        { j: timed },
      );
      refused = out.errors?.[0];
      if (!refused) {
        expect(out.data.reportStepProgress.steps[0].leaseExpiresAt).toBe(first.timesOutAt);
        pass(200);
      }
    }
    expect(refused?.extensions.code).toBe('ATTEMPT_TIMED_OUT');
    const second = await claimStepWhenReady(await t.worker(2), 'TEST_STEP_TIMEOUT');
    expect(second).toMatchObject({ attempt: 2, status: 'RUNNING', worker: 'worker-2' });
    expect((await attempts(timed))[0]).toMatchObject({ attempt: 1, status: 'FAILED', error: { code: 'ATTEMPT_TIMED_OUT' } });
    const late = await t.gql(slow, 'mutation($j: ID!) { completeStep(jobId: $j, stepName: "render", attempt: 1) { status } }', {
      j: timed,
    });
    expect(late.errors[0].extensions.code).toBe('INVALID_TRANSITION');

    // The backoff: each failed attempt's successor waits 1 s, then 2 s, then 3 s from the failure,
    // and no claim hands it out before.
    const backed = await createStepJob('TEST_STEP_BACKOFF');
    const w = await t.worker(3);
    const waits: number[] = [];
    let held = await claimStep(w, 'TEST_STEP_BACKOFF');
    for (let attempt = 1; attempt <= 3; attempt++) {
      expect(held).toMatchObject({ attempt, status: 'RUNNING' });
      await t.data(
        w,
        'mutation($j: ID!, $a: Int) { failStep(jobId: $j, stepName: "render", code: "FLAKY", message: "no", attempt: $a) { status } }',
        {
          j: backed,
          a: attempt,
        },
      );
      const steps = await attempts(backed);
      const failed = steps.find((s: { attempt: number }) => s.attempt === attempt);
      const next = steps.find((s: { attempt: number }) => s.attempt === attempt + 1);
      expect(next).toMatchObject({ status: 'PENDING' });
      waits.push(Date.parse(next.waitsUntil) - Date.parse(failed.finishedAt));
      expect(await claimStep(w, 'TEST_STEP_BACKOFF')).toBeNull();
      passUntil(next.waitsUntil);
      held = await claimStepWhenReady(w, 'TEST_STEP_BACKOFF');
      expect(Date.parse(held.startedAt)).toBeGreaterThanOrEqual(Date.parse(next.waitsUntil));
    }
    expect(waits).toEqual([1000, 2000, 3000]);
  }, 60_000);

  it('lists every tenant’s dead letters to admins only, each with its tenant, by code, paged across shards; a replay takes them out', async () => {
    // Two tenants, each with dead letters of its own codes, in a kind no other test uses.
    const [t1, t2] = [await tenant(), await tenant()];
    const letter = async (t: Awaited<ReturnType<typeof tenant>>, code: string) => {
      const jobId = await t.createJob('TEST_DEAD_C', 1);
      await t.fail(await t.worker(1), await t.claim(await t.worker(1), 'TEST_DEAD_C'), code);
      return jobId;
    };
    const gpu = await letter(t1, 'GPU');
    const disk = await letter(t2, 'DISK');
    const oom = await letter(t2, 'OOM');
    const admin = await server.operatorToken('ops');
    const across = async (variables: Record<string, unknown>) =>
      (
        await t1.data(
          admin,
          'query($c: String, $f: Int, $a: String) { deadLettersAcrossTenants(kind: "TEST_DEAD_C", stage: "three", errorCode: $c, first: $f, after: $a) { nodes { tenantId jobId sequence error { code } } pageInfo { hasNextPage endCursor } } }',
          variables,
        )
      ).deadLettersAcrossTenants;
    const rows = (page: { nodes: Array<{ tenantId: string; jobId: string; error: { code: string } }> }) =>
      page.nodes.map((n) => `${n.tenantId}/${n.jobId}/${n.error.code}`);
    // By code, descending (OOM, GPU, DISK), whichever of the index's shards each job is in.
    expect(rows(await across({}))).toEqual([`${t2.tenantId}/${oom}/OOM`, `${t1.tenantId}/${gpu}/GPU`, `${t2.tenantId}/${disk}/DISK`]);
    expect(rows(await across({ c: 'GPU' }))).toEqual([`${t1.tenantId}/${gpu}/GPU`]);
    // Paged one at a time, the same three, each once.
    const paged: string[] = [];
    let after: string | undefined;
    for (let n = 0; n < 4; n++) {
      const page = await across({ f: 1, a: after });
      paged.push(...rows(page));
      if (!page.pageInfo.hasNextPage) break;
      after = page.pageInfo.endCursor;
    }
    expect(paged).toEqual([`${t2.tenantId}/${oom}/OOM`, `${t1.tenantId}/${gpu}/GPU`, `${t2.tenantId}/${disk}/DISK`]);
    // Not for a tenant's editor; a tenant's own list still shows only its own.
    const denied = await t1.gql(t1.editor, '{ deadLettersAcrossTenants(kind: "TEST_DEAD_C", stage: "three") { nodes { jobId } } }');
    expect(denied.errors[0].extensions.code).toBe('FORBIDDEN');
    const own = await t1.data(t1.editor, '{ deadLetters(kind: "TEST_DEAD_C", stage: "three") { nodes { jobId tenantId } } }');
    expect(own.deadLetters.nodes).toEqual([{ jobId: gpu, tenantId: null }]);
    // A replay of tenant 1's letters takes them out of the admins' list too.
    await t1.data(t1.editor, 'mutation { replayDeadLetters(filter: { kind: "TEST_DEAD_C" }) { reopened } }');
    expect(rows(await across({}))).toEqual([`${t2.tenantId}/${oom}/OOM`, `${t2.tenantId}/${disk}/DISK`]);
  }, 60_000);
});

/** Seconds as the docs say them: whole minutes from two minutes on, else seconds. */
const duration = (seconds: number) => (seconds >= 120 && seconds % 60 === 0 ? `${seconds / 60} minutes` : `${seconds} s`);

/**
 * What docs/pipelines.md says of the declared kinds' timeouts and backoffs, derived from the
 * declarations: each stage's attempt time, its first three waits (each the last times the
 * factor), the cap and the jitter.
 */
function declaredPolicies(): string {
  const parts: string[] = [];
  for (const [kind, declaration] of Object.entries(JOB_KINDS)) {
    if (declaration.system || kind.startsWith('TEST_')) continue;
    for (const stage of declaration.stages) {
      const policy = stage.fanOut ?? stage;
      if (!policy.attemptTimeoutSeconds && !policy.retryBackoff) continue;
      const said: string[] = [];
      if (policy.attemptTimeoutSeconds) said.push(`${duration(policy.attemptTimeoutSeconds)} an attempt`);
      const b = policy.retryBackoff;
      if (b) {
        const waits = [0, 1, 2].map((n) => b.initialSeconds * b.factor ** n).filter((w) => w < b.maxSeconds);
        said.push(`${waits.map(duration).join(', ')}, … up to ${duration(b.maxSeconds)}, jitter ${b.jitter}`);
      }
      parts.push(`\`${kind}\`'s \`${stage.name}\` (${said.join('; ')})`);
    }
  }
  return `The declared kinds use them: ${parts.join(' and ')}.`;
}

describe('the declared timeouts and backoffs, as docs/pipelines.md states them', () => {
  it("states each declared stage's attempt time and waits as its declaration computes them", () => {
    const docs = readFileSync(join(__dirname, '../../docs/pipelines.md'), 'utf8').replace(/\s+/g, ' ');
    expect(docs).toContain(declaredPolicies());
  });
});

/*
 * ATTEMPT_TIMEOUT_SECONDS lets a person try the declared timeouts (BATCH's 15 minutes,
 * MUSIC_VIDEO's 30) locally: every stage that declares one gets it instead, jobKinds says so, and
 * a claimed item's attempt runs out on it. Refused in production; the declarations hold again
 * once the server stops.
 */
describe('ATTEMPT_TIMEOUT_SECONDS, for trying attempt timeouts locally', () => {
  afterEach(thaw);

  it('replaces every declared attempt timeout, as jobKinds shows and a claimed item runs out on; refused in production and at 0', async () => {
    const production = {
      NODE_ENV: 'production',
      DYNAMODB_ENDPOINT: 'http://127.0.0.1:1',
      S3_BUCKET: 'b',
      AUTH_JWT_SECRET: 's',
      CURSOR_SECRET: 'c',
    };
    expect(() => loadConfig(production)).not.toThrow();
    expect(() => loadConfig({ ...production, ATTEMPT_TIMEOUT_SECONDS: '5' })).toThrow(
      'ATTEMPT_TIMEOUT_SECONDS is for trying attempt timeouts in development; in production the declared timeouts hold.',
    );
    expect(() => loadConfig({ ATTEMPT_TIMEOUT_SECONDS: '0', DATA_DIR: tmpdir() })).toThrow('ATTEMPT_TIMEOUT_SECONDS must be above 0.');

    const short = await startTestServer({ env: { JOB_LEASE_SECONDS: '600', ATTEMPT_TIMEOUT_SECONDS: '3' }, now: clock });
    const tenantId = `timeout-setting-${Date.now()}`;
    const editor = await short.token(tenantId, [Role.EDITOR], 'operator');
    const worker = await short.token(tenantId, [Role.WORKER], 'worker-1');
    const data = async (token: string, query: string, variables: Record<string, unknown> = {}) => {
      const out = (await short.raw({ query, variables }, token)).body;
      if (out.errors) throw new Error(JSON.stringify(out.errors));
      return out.data;
    };
    const kinds: Array<{
      name: string;
      stages: Array<{ name: string; attemptTimeoutSeconds: number | null; fanOut: { attemptTimeoutSeconds: number | null } | null }>;
    }> = (await data(editor, '{ jobKinds { name stages { name attemptTimeoutSeconds fanOut { attemptTimeoutSeconds } } } }')).jobKinds;
    const timeouts = Object.fromEntries(
      kinds.flatMap((k) =>
        k.stages.map((s) => [`${k.name}/${s.name}`, s.fanOut ? s.fanOut.attemptTimeoutSeconds : s.attemptTimeoutSeconds]),
      ),
    );
    // The stages that declare a timeout get 3 s; those that declare none still have none.
    expect(timeouts).toMatchObject({ 'BATCH/process': 3, 'MUSIC_VIDEO/render-scenes': 3, 'MUSIC_VIDEO/generate-scenes': null });

    const { projectId } = (await data(editor, 'mutation { createProject(input: { title: "Timeout" }) { projectId } }')).createProject;
    const { jobId } = (
      await data(editor, 'mutation($i: CreateJobInput!) { createJob(input: $i) { jobId } }', {
        i: { projectId, kind: 'BATCH', inputs: { label: 'timeout' }, items: [{ source: `tenants/${tenantId}/in/1.png` }] },
      })
    ).createJob;
    freeze();
    const CLAIM = `mutation { claimWork(kind: "BATCH") { item { ${ITEM} } } }`;
    const first = (await data(worker, CLAIM)).claimWork.item;
    expect(first).toMatchObject({ jobId, attempt: 1, status: 'RUNNING' });
    expect(Date.parse(first.timesOutAt) - Date.parse(first.startedAt)).toBe(3000);
    // Three seconds on (of the server's clock), the worker's report is refused and the next claim takes the item over.
    passUntil(first.timesOutAt);
    pass(1);
    const late = (
      await short.raw(
        {
          query:
            'mutation($j: ID!) { reportWorkItemProgress(jobId: $j, stage: "process", sequence: 1, attempt: 1, progress: 0.5) { status } }',
          variables: { j: jobId },
        },
        worker,
      )
    ).body;
    expect(late.errors?.[0]?.extensions?.code).toBe('ATTEMPT_TIMED_OUT');
    // BATCH's items wait out a retry backoff (1 s, 2 s, … up to 60 s) after a failed attempt: the clock moves on until it is over.
    let second: Record<string, unknown> | null = null;
    for (let n = 0; n < 10 && !second; n++) {
      second = (await data(worker, CLAIM)).claimWork?.item ?? null;
      pass(10_000);
    }
    expect(second).toMatchObject({ jobId, attempt: 2, error: { code: 'ATTEMPT_TIMED_OUT' } });

    // Once the server stops, the declarations hold again (900 s for BATCH's items).
    await short.stop();
    expect(fanOutOf({ kind: 'BATCH', declared: true }, 'process')?.attemptTimeoutSeconds).toBe(900);
  }, 60_000);
});
