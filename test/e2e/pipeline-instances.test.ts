import { randomUUID } from 'node:crypto';
import { Role } from '../../src/auth/principal';
import { signDevToken } from '../../src/auth/jwt';
import { entities } from '../../src/common/entities';
import { CursorCodec } from '../../src/infra/cursor';
import { openPostgres } from '../../src/infra/postgres/start';
import type { StoreApi } from '../../src/infra/store-api';
import { freshTable, testEndpoint } from '../support/dynamo';
import { registerFixture } from '../support/fixtures';
import { gqlAt, startInstance, type Instance } from '../support/instances';
import { startPostgresForServer } from '../support/postgres';
import { TEST_SECRET } from '../support/server';

/**
 * One job's fan-out stage worked through several instances, one of which is SIGKILLed mid-stage (as
 * a crashed machine): the job's committer groups of the survivors and the lost answers of the dead
 * one must leave no item lost and none completed twice. Workers move to another instance when
 * theirs does not answer, and an item whose claim or completion died with it comes back when its
 * lease runs out. Real processes, a real signal, DynamoDB Local or PostgreSQL (where the dead
 * instance's open transactions are PostgreSQL's to abort).
 *
 * PostgreSQL's case is smaller (two instances, 60 items, 6 workers): it shows the same at about a
 * third of the cost, since npm test is over its time budget.
 */
/**
 * No outbox sweep, as test/support/server.ts has it: what is checked is read from the store, not
 * from the bus, so an event the killed instance committed but never published needs no sweeper to
 * deliver it. At the production pace each instance queried the outbox shards about 3 times a second
 * (62 Queries against 10 for an idle instance in 21 s), CPU spent in the store for nothing asserted.
 */
const NO_SWEEP = { OUTBOX_SWEEP_MS: '3600000' };

const CASES = [
  { store: 'dynamodb', instances: 3, items: 200, workers: 12, killAt: 60 },
  { store: 'postgres', instances: 2, items: 60, workers: 6, killAt: 20 },
] as const;

describe.each(CASES)('a fan-out stage through $instances instances on $store, one killed mid-stage', (shape) => {
  let store: StoreApi;
  let instances: Instance[] = [];

  beforeAll(async () => {
    if (shape.store === 'dynamodb') {
      const table = await freshTable();
      store = table.store;
      const env = { DYNAMODB_ENDPOINT: testEndpoint(), TABLE_NAME: table.tableName, JOB_LEASE_SECONDS: '3', ...NO_SWEEP };
      instances = await Promise.all(Array.from({ length: shape.instances }, () => startInstance(env)));
      return;
    }
    const database = await startPostgresForServer();
    // The first applies the schema with the owner's connection; the others only check it.
    const first = await startInstance({ ...database, JOB_LEASE_SECONDS: '3', ...NO_SWEEP });
    const env = { DATABASE_URL: database.DATABASE_URL, JOB_LEASE_SECONDS: '3', ...NO_SWEEP };
    instances = [first, ...(await Promise.all(Array.from({ length: shape.instances - 1 }, () => startInstance(env))))];
    // The test's own reads, as the server's role (row-level security: the tenant's rows only).
    const postgres = openPostgres({ url: database.DATABASE_URL }, entities, new CursorCodec('c'), { poolWaitMs: 10_000 });
    registerFixture("the test's PostgreSQL pool", () => postgres.close());
    store = postgres.store;
  }, 120_000);

  it('completes every item exactly once, with exact counters and a gapless stream', async () => {
    const tenantId = `kill-${randomUUID().slice(0, 8)}`;
    const secret = new TextEncoder().encode(TEST_SECRET);
    const editor = await signDevToken(secret, { sub: 'artist', tenantId, roles: [Role.EDITOR, Role.WORKER] });
    const alive = () => instances.filter((i) => i.child.exitCode === null && i.child.signalCode === null);
    const key = (file: string) => `tenants/${tenantId}/${file}`;
    const ok = async (url: string, token: string, query: string, variables: Record<string, unknown> = {}) => {
      const out = await gqlAt(url, token, query, variables);
      if (out.errors) throw new Error(JSON.stringify(out.errors));
      return out.data;
    };
    const projectId = (await ok(instances[0].url, editor, 'mutation { createProject(input: { title: "Kill" }) { projectId } }'))
      .createProject.projectId;
    const items = (from: number, n: number) => Array.from({ length: n }, (_, i) => ({ source: key(`in/${from + i}.png`) }));
    const jobId = (
      await ok(instances[0].url, editor, 'mutation($i: CreateJobInput!) { createJob(input: $i) { jobId } }', {
        i: { projectId, kind: 'BATCH', items: items(1, Math.min(50, shape.items)) },
      })
    ).createJob.jobId;
    for (let from = 51; from <= shape.items; from += 75) {
      await ok(
        instances[1].url,
        editor,
        'mutation($j: ID!, $i: [JSONObject!]!) { addWorkItems(jobId: $j, stage: "process", items: $i) { jobId } }',
        {
          j: jobId,
          i: items(from, Math.min(75, shape.items + 1 - from)),
        },
      );
    }

    /**
     * A worker's call on instance `n`, moving to another live one when that one does not answer:
     * a network error (it died, its answer is lost) is not an answer, and the call is not repeated.
     */
    const call = async (n: number, token: string, query: string, variables: Record<string, unknown>) => {
      const live = alive();
      const target = live[n % live.length];
      try {
        return { answered: true, body: await gqlAt(target.url, token, query, variables) };
      } catch (error) {
        if (!['TypeError', 'TimeoutError'].includes((error as Error).name)) throw error;
        return { answered: false, body: undefined };
      }
    };
    const completedByWorkers = new Map<number, number>();
    let claims = 0;
    const workers = await Promise.all(
      Array.from({ length: shape.workers }, (_, n) => signDevToken(secret, { sub: `w${n}`, tenantId, roles: [Role.WORKER] })),
    );
    let killed = false;
    // Asked like a worker's own calls: the instance asked may be the one being killed, whose lost
    // answer says nothing, so the worker asks again on its next turn.
    const done = async (n: number) => {
      const asked = await call(n, editor, 'query($j: ID!) { job(jobId: $j) { status } }', { j: jobId });
      if (asked.body?.errors) throw new Error(JSON.stringify(asked.body.errors));
      return asked.body?.data.job.status === 'COMPLETED';
    };
    await Promise.all(
      workers.map(async (token, n) => {
        for (let guard = 0; guard < 400; guard++) {
          const claim = await call(n, token, 'mutation { claimWork(kind: "BATCH") { item { sequence attempt } } }', {});
          if (!claim.answered) continue;
          if (claim.body?.errors) throw new Error(JSON.stringify(claim.body.errors));
          const item = claim.body?.data.claimWork?.item;
          if (!item) {
            if (await done(n)) return;
            // Items whose holder died come back when their lease runs out: ask again shortly.
            await new Promise((r) => setTimeout(r, 100));
            continue;
          }
          claims++;
          // Mid-stage, once: the first instance dies as a crashed machine would.
          if (claims === shape.killAt && !killed) {
            killed = true;
            await instances[0].kill();
          }
          const completion = await call(
            n,
            token,
            'mutation($j: ID!, $n: Int!, $a: Int!, $o: JSONObject!) { completeWorkItem(jobId: $j, stage: "process", sequence: $n, attempt: $a, outputs: $o) { status } }',
            { j: jobId, n: item.sequence, a: item.attempt, o: { result: key(`out/${item.sequence}.png`) } },
          );
          if (completion.answered && !completion.body?.errors)
            completedByWorkers.set(item.sequence, (completedByWorkers.get(item.sequence) ?? 0) + 1);
        }
      }),
    );
    expect(killed).toBe(true);
    // No answer said "completed" twice for one item.
    for (const [, count] of completedByWorkers) expect(count).toBe(1);

    // The table agrees: every item completed once, counters exact, the job's stream gapless.
    const stored = (await store.queryAll(entities.WorkItem.key.prefixOf(tenantId, { jobId, stage: 'process' }))).filter((item) =>
      entities.WorkItem.is(item),
    );
    expect(stored).toHaveLength(shape.items);
    for (const item of stored) expect(item.status).toBe('COMPLETED');
    const job = entities.Job.found(await store.get(entities.Job.keyOf(tenantId, { jobId })));
    expect(job?.itemCounts?.process).toEqual({ total: shape.items, running: 0, completed: shape.items, failed: 0 });
    const events = (await store.queryAll({ pk: entities.Job.key.pkOf(tenantId, { jobId }), skPrefix: 'EVENT#' })).filter((e) =>
      entities.JobEvent.is(e),
    );
    expect(events.map((e) => e.seq)).toEqual(Array.from({ length: events.length }, (_, i) => i + 1));
    expect(events[events.length - 1].seq).toBe(job?.version);
    const completions = events
      .filter((e) => e.type === 'ITEM_COMPLETED')
      .map((e) => (e.item && 'sequence' in e.item ? Number(e.item.sequence) : 0));
    expect(completions.sort((x, y) => x - y)).toEqual(Array.from({ length: shape.items }, (_, i) => i + 1));
  }, 240_000);
});
