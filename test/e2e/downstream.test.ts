import { execFile } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { QueryCommand } from '@aws-sdk/client-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import type { Dynamo } from '../../src/infra/dynamo/client';
import { DOWNSTREAM_STREAMS, envelopeOf, RESTORED_ATTRIBUTE, type Envelope } from '../../src/infra/dynamo/downstream';
import { StreamReader } from '../../src/infra/dynamo/stream-reader';
import { Client, escapeIdentifier } from 'pg';
import { DEFAULT_ROLES, DOWNSTREAM_TABLE, TENANT_SETTING } from '../../src/infra/postgres/schema';
import { testDynamo, testEndpoint } from '../support/dynamo';
import { fixture } from '../support/fixtures';
import { gqlAt, startInstance } from '../support/instances';
import { startPostgresForServer } from '../support/postgres';
import { ROOT } from '../support/processes';
import { scrape, sample } from '../support/prometheus';
import { Role, STORES, startTestServer, type StoreName, type TestServer } from '../support/server';
import { waitFor } from '../support/wait';

/*
 * Every event downstream (issue 34, part 3): the table's stream carries each committed event item,
 * and the envelopes the deploy template's Pipe would make of it (the same filter and mapping,
 * src/infra/dynamo/downstream.ts) hold each event exactly once, against DynamoDB Local's stream.
 * A project moved to cold storage and restored (issue 48, item 3) sends none of its old events
 * again: the restore is one new event, at the next position of its activity.
 *
 * On PostgreSQL (issue 50) the same cases hold of what the server's relay POSTs to DOWNSTREAM_URL,
 * here a real HTTP receiver of the test's (src/infra/postgres/downstream.ts); a receiver that
 * refuses shows the retries, their order and their bound.
 */

const TENANT = 'downstream';
const DAY = 86_400_000;
/** How far the server's clock is moved ahead (the archive takes projects archived 90 days ago). */
let ahead = 0;

/**
 * A receiver of the relay's requests on a free port: every envelope it took, in the order taken, and
 * every request, taken or not. `refuse` answers the next requests 503 while it returns true.
 */
async function startReceiver() {
  const taken: Envelope[] = [];
  const requests: { ids: string[]; status: number }[] = [];
  const receiver = {
    taken,
    requests,
    refuse: (_events: Envelope[]): boolean => false,
    /** Awaited after the receiver took a request's events and before it answers (the test's hook into that moment). */
    beforeAnswer: async (_events: Envelope[]): Promise<void> => {},
    /** While true, requests get no answer; each held one is counted, and counted again when its client gives up on it. */
    hold: false,
    held: 0,
    abandoned: 0,
    url: '',
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    if (receiver.hold) {
      receiver.held++;
      res.on('close', () => receiver.abandoned++);
      return;
    }
    req.on('end', async () => {
      const { events } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { events: Envelope[] };
      const ids = events.map((e) => e.detail.id);
      const status = receiver.refuse(events) ? 503 : 204;
      requests.push({ ids, status });
      if (status === 204) taken.push(...events);
      await receiver.beforeAnswer(events);
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fixture('downstream receiver', server, (s) => new Promise((resolve) => s.close(resolve)));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/events`;
  return receiver;
}

describe.each(STORES)('events downstream, on %s', (store: StoreName) => {
  let server: TestServer;
  let editor: string;
  let worker: string;
  /** DynamoDB's: the table stream, read as the Pipe reads it. */
  let reader: StreamReader;
  let dynamo: Dynamo;
  /** PostgreSQL's: what the relay POSTed. */
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  /** How many of the receiver's envelopes a readUntil has already handed out. */
  let handedOut = 0;

  const run = async (query: string, variables: Record<string, unknown> = {}, as = editor) => {
    const res = await server.raw({ query, variables }, as);
    expect(res.body.errors).toBeUndefined();
    return res.body.data;
  };

  /** The event items the store holds for the tenant, of the streams that go downstream and not put back by a restore (a scan: a fresh table or database of one file). */
  const storedEvents = async () => {
    const items: Record<string, unknown>[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const page = await server.app.store.scanPage(0, 1, 1000, start);
      items.push(...page.items);
      start = page.next;
    } while (start);
    return items.filter(
      (i) =>
        String(i.PK).startsWith(`TENANT#${TENANT}#`) &&
        i.entityType === 'Event' &&
        DOWNSTREAM_STREAMS.some((s) => s === i.stream) &&
        String(i.SK).startsWith('EVENT#') &&
        i[RESTORED_ATTRIBUTE] === undefined,
    );
  };

  /** The tenant's envelopes sent from where the reader stands (the stream's, or the receiver's) until `done` says they are all there. */
  const readUntil = async (done: (envelopes: Envelope[]) => boolean): Promise<Envelope[]> => {
    const envelopes: Envelope[] = [];
    // A change stream is read by asking (GetRecords): DynamoDB Local publishes to it a moment after
    // the commit. The relay sends within its poll interval.
    return waitFor(
      async () => {
        if (store === 'postgres') {
          envelopes.push(...receiver.taken.slice(handedOut).filter((e) => e.detail.tenant === TENANT));
          handedOut = receiver.taken.length;
        } else
          for (const record of await reader.poll()) {
            const envelope = envelopeOf(record);
            if (envelope?.detail.tenant === TENANT) envelopes.push(envelope);
          }
        return done(envelopes) && envelopes;
      },
      () => `the stream's envelopes (${envelopes.length} read)`,
      { everyMs: 200 },
    );
  };

  /** The tenant's envelopes `npm run events:tail -- --from-start --once` prints. */
  const tailed = async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['dist/src/scripts/events-tail.js', '--from-start', '--once', '--endpoint', testEndpoint(), '--table', server.config.tableName],
      { cwd: ROOT, timeout: 60_000 },
    );
    const printed: Envelope[] = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    return printed.filter((e) => e.detail.tenant === TENANT);
  };

  beforeAll(async () => {
    ahead = 0;
    if (store === 'postgres') {
      receiver = await startReceiver();
      // A short poll and retry delay: the relay's timing is not what this file measures. The
      // downstream gauges read the store every 100 ms rather than every 5 s (METRICS_STORE_READ_MS):
      // a test that awaits one waited out the 5 s.
      const env = {
        DOWNSTREAM_URL: receiver.url,
        DOWNSTREAM_POLL_MS: '50',
        DOWNSTREAM_RETRY_MS: '2',
        ARCHIVE_INTERVAL_MS: '0',
        METRICS_STORE_READ_MS: '100',
      };
      server = await startTestServer({ store, env, now: () => new Date(Date.now() + ahead) });
    } else {
      // This file reads the change stream, which test tables otherwise go without.
      server = await startTestServer({
        store,
        env: { TABLE_STREAM: 'on', ARCHIVE_INTERVAL_MS: '0' },
        now: () => new Date(Date.now() + ahead),
      });
      dynamo = fixture('DynamoDB client', testDynamo(), (d) => d.client.destroy());
      const opened = await StreamReader.open(dynamo.client, server.config.tableName, 'TRIM_HORIZON', testEndpoint());
      reader = fixture('stream reader', opened, (r) => r.close());
    }
    editor = await server.token(TENANT, [Role.EDITOR], 'editor-1');
    worker = await server.token(TENANT, [Role.WORKER], 'worker-1');
  });

  it('holds every event a burst of mixed mutations committed, once each, in the documented envelope', async () => {
    const projects = await Promise.all(
      [1, 2, 3].map(
        async (n) =>
          (await run('mutation($i: CreateProjectInput!) { createProject(input: $i) { projectId } }', { i: { title: `P${n}` } }))
            .createProject.projectId,
      ),
    );
    // Logs, milestones and inspiration on the projects at once, a project updated, a job run to its end.
    await Promise.all(
      projects.flatMap((projectId, n) => [
        run('mutation($p: ID!, $i: CreateLogInput!) { createLog(projectId: $p, input: $i) { logId } }', {
          p: projectId,
          i: { rawText: `Worked on ${n}`, materials: ['oil'], timeSpentMinutes: 30 + n },
        }),
        run('mutation($p: ID!, $i: CreateMilestoneInput!) { createMilestone(projectId: $p, input: $i) { milestoneId } }', {
          p: projectId,
          i: { name: `M${n}` },
        }),
        run('mutation($i: CreateInspirationInput!) { createInspiration(input: $i) { inspirationId } }', {
          i: { type: 'TEXT', text: `Idea ${n}` },
        }),
        run('mutation($p: ID!) { updateProject(projectId: $p, expectedVersion: 1, input: { medium: "oil" }) { version } }', {
          p: projectId,
        }),
      ]),
    );
    const job = (
      await run('mutation($i: CreateJobInput!) { createJob(input: $i) { jobId } }', {
        i: { projectId: projects[0], kind: 'STREAMED', steps: ['one', 'two'] },
      })
    ).createJob.jobId;
    for (const step of ['one', 'two']) {
      await run('mutation($j: ID!, $s: String!) { startStep(jobId: $j, stepName: $s) { seq } }', { j: job, s: step }, worker);
      await run('mutation($j: ID!, $s: String!) { completeStep(jobId: $j, stepName: $s) { seq } }', { j: job, s: step }, worker);
    }

    const stored = await storedEvents();
    // Project, log, milestone, inspiration, update and job events: every kind of stream is in the burst.
    expect(new Set(stored.map((e) => e.stream))).toEqual(new Set(['job', 'activity']));
    // 3 × (project created, log, milestone, inspiration, project updated), and the job's 5 (created, 2 × started and completed).
    expect(stored).toHaveLength(20);

    // The stream is read until it holds every stored event (or the test's time runs out).
    const wanted = new Set(stored.map((e) => String(e.eventId)));
    const envelopes = await readUntil((read) => {
      const seen = new Set(read.map((e) => e.detail.id));
      return [...wanted].every((id) => seen.has(id));
    });

    // Once each: no event twice, none that the table does not hold.
    expect(envelopes.map((e) => e.detail.id).sort()).toEqual([...wanted].sort());
    const byId = new Map(stored.map((e) => [String(e.eventId), e]));
    for (const { source, 'detail-type': detailType, detail } of envelopes) {
      const item = byId.get(detail.id)!;
      expect({ source, detailType, ...detail, item: unmarshall(detail.item) }).toEqual({
        source: 'artissist.graphql',
        detailType: 'artissist.event.v1',
        version: '1',
        id: item.eventId,
        tenant: TENANT,
        action: item.action,
        subject: { type: item.subjectType, id: item.subjectId },
        stream: item.stream,
        position: item.SK,
        at: item.at,
        actor: item.actor,
        // The item as committed: the outbox clears its index attributes later, which the stream
        // shows as a MODIFY the filter drops.
        item: expect.objectContaining({ PK: item.PK, SK: item.SK, eventId: item.eventId }),
      });
    }
    const actions = new Set(envelopes.map((e) => e.detail.action));
    for (const action of ['project.created', 'project.updated', 'log.created', 'milestone.created', 'inspiration.created'])
      expect(actions).toContain(action);
    // The job's stream in its order (the last completion finishes the job in the same event).
    expect(envelopes.filter((e) => e.detail.stream === 'job').map((e) => e.detail.action)).toEqual([
      'job.job_created',
      'job.step_started',
      'job.step_completed',
      'job.step_started',
      'job.step_completed',
    ]);
    // A job's events come in its order, as positions say.
    const jobPositions = envelopes.filter((e) => e.detail.subject.id === job).map((e) => e.detail.position);
    expect(jobPositions).toEqual([...jobPositions].sort());
  });

  // The tail reads DynamoDB Local's stream; PostgreSQL's relay is watched by its receiver.
  if (store === 'dynamodb')
    it('prints the same envelopes with `npm run events:tail -- --from-start --once`', async () => {
      expect((await tailed()).map((e) => e.detail.id).sort()).toEqual((await storedEvents()).map((e) => String(e.eventId)).sort());
    });

  it('sends none of a restored project’s old events again: the restore is one new event at the next position, and its words leave and come back with it', async () => {
    const admin = await server.operatorToken('operator');
    const projectId = (await run('mutation { createProject(input: { title: "Shelved vase" }) { projectId } }')).createProject.projectId;
    const logId = (
      await run(
        'mutation($p: ID!) { createLog(projectId: $p, input: { rawText: "Glazed in cobalt", materials: ["linseed"] }) { logId } }',
        {
          p: projectId,
        },
      )
    ).createLog.logId;
    // The word items of the project and its log, as the table holds them (on DynamoDB; PostgreSQL
    // writes none: its words are the rows' tsvector, which the searches here read).
    const words = async () => {
      const counts = await Promise.all(
        [projectId, logId].map(async (id) => {
          const out = await dynamo.client.send(
            new QueryCommand({
              TableName: server.config.tableName,
              KeyConditionExpression: 'PK = :pk',
              ExpressionAttributeValues: marshall({ ':pk': `TENANT#${TENANT}#SEARCH#${id}` }),
            }),
          );
          return out.Items?.length ?? 0;
        }),
      );
      return counts.reduce((a, b) => a + b, 0);
    };
    await run('mutation($p: ID!) { archiveProject(projectId: $p, expectedVersion: 1) { archived } }', { p: projectId });
    const ofProject = (envelopes: Envelope[]) =>
      envelopes.filter((e) => e.detail.item.projectId?.S === projectId || e.detail.subject.id === projectId);
    const before = await readUntil((read) => read.some((e) => e.detail.action === 'project.archived' && e.detail.subject.id === projectId));
    const history = ofProject(before);
    // Created, the log, archived: positions 1 to 3 of its activity.
    expect(history.map((e) => e.detail.position)).toEqual(['EVENT#000000000001', 'EVENT#000000000002', 'EVENT#000000000003']);
    const found = async (text: string) =>
      (await run('query($t: String!) { search(text: $t, first: 10) { nodes { entity { id } } } }', { t: text })).search.nodes.length;
    expect(await found('cobalt')).toBe(1);
    expect(await found('shelved')).toBe(1);
    // "shelved", "vase"; "glazed", "in", "cobalt", "linseed".
    if (store === 'dynamodb') expect(await words()).toBe(6);

    // 91 days on, the archive moves it to cold storage, its search words with it.
    ahead = 91 * DAY;
    const moved = await server.raw({ query: 'mutation { runArchive { projects failed } }' }, admin);
    expect(moved.body.data.runArchive).toEqual({ projects: 1, failed: 0 });
    expect(await found('cobalt')).toBe(0);
    expect(await found('shelved')).toBe(0);
    if (store === 'dynamodb') expect(await words()).toBe(0);

    await run('mutation($p: ID!) { restoreProject(projectId: $p) { projectId } }', { p: projectId });
    expect(await found('cobalt')).toBe(1);
    expect(await found('shelved')).toBe(1);
    if (store === 'dynamodb') expect(await words()).toBe(6);
    // The restore's own event is the project's last write, after every restored row in the same
    // stream partition: once it is read, any old event sent again would have been read before it.
    const after = ofProject(await readUntil((read) => read.some((e) => e.detail.action === 'project.restored')));
    expect(after.map((e) => [e.detail.position, e.detail.action])).toEqual([['EVENT#000000000004', 'project.restored']]);
    // The tail prints each of the project's events once, in its order: the restored ones not again.
    const ids = (envelopes: Envelope[]) => envelopes.map((e) => e.detail.id);
    if (store === 'dynamodb') expect(ids(ofProject(await tailed()))).toEqual(ids([...history, ...after]));
    // On PostgreSQL every envelope the receiver ever took, each once: the restored ones not again.
    else expect(ids(ofProject(receiver.taken))).toEqual(ids([...history, ...after]));
  });

  if (store === 'postgres')
    it('retries what the receiver refuses, the oldest first and alone, and parks an event refused 11 times, counted, without holding back the rest', async () => {
      const metricsUrl = new URL('/metrics', server.url).toString();
      const gauge = async (name: string) => sample((await scrape(metricsUrl)).exposition, name);
      const create = async (title: string) =>
        (await run('mutation($t: String!) { createProject(input: { title: $t }) { projectId } }', { t: title })).createProject.projectId;
      const from = receiver.requests.length;
      // Refused twice, then taken: retried in order, sent once.
      let refusals = 2;
      receiver.refuse = () => refusals-- > 0;
      const first = await create('Refused twice');
      const second = await create('Queued behind it');
      await readUntil((read) => [first, second].every((p) => read.some((e) => e.detail.subject.id === p)));
      const requests = receiver.requests.slice(from);
      const of = (projectId: string) => receiver.taken.filter((e) => e.detail.subject.id === projectId);
      expect([of(first).length, of(second).length]).toEqual([1, 1]);
      // The first one's creation was refused, retried alone (nothing sent past it meanwhile) and
      // refused again, then taken; the second was taken after it.
      const firstId = of(first)[0].detail.id;
      expect(requests[0]).toEqual({ ids: expect.arrayContaining([firstId]), status: 503 });
      expect(requests[0].ids[0]).toBe(firstId);
      expect(requests.slice(1, 3)).toEqual([
        { ids: [firstId], status: 503 },
        { ids: [firstId], status: 204 },
      ]);
      expect(receiver.taken.indexOf(of(first)[0])).toBeLessThan(receiver.taken.indexOf(of(second)[0]));

      // Refused at every attempt: 11 attempts (the first and 10 retries, as the Pipe's), then parked and counted.
      let poison: string | undefined;
      // Everything is refused until the project is known (its event is the only one queued meanwhile), then only its events.
      receiver.refuse = (events) => poison === undefined || events.some((e) => e.detail.subject.id === poison);
      poison = await create('Always refused');
      await waitFor(async () => (await gauge('artissist_downstream_parked')) === 1, 'the refused event parked');
      const refused = receiver.requests.slice(from + 3).filter((r) => r.status === 503);
      const poisonId = refused[0].ids[0];
      expect(refused).toEqual(Array(11).fill({ ids: [poisonId], status: 503 }));
      // The relay goes on: an event committed after it is taken, and the parked one is never sent again.
      const after = await create('After the parked one');
      await readUntil((read) => read.some((e) => e.detail.subject.id === after));
      expect(receiver.taken.some((e) => e.detail.id === poisonId)).toBe(false);
      // The gauges are read from a snapshot reused for up to 100 ms here (METRICS_STORE_READ_MS), so they are awaited.
      await waitFor(async () => (await gauge('artissist_downstream_waiting')) === 0, 'nothing waiting');
      expect(await gauge('artissist_downstream_parked')).toBe(1);
    });

  if (store === 'postgres')
    it('sends again what a relay SIGKILLed between the receiver’s answer and its delete had sent: the same envelope, deduplicated by detail.id', async () => {
      // A database, a receiver and built server processes of this case's own: the file's server runs a relay too.
      const database = await startPostgresForServer();
      const sink = await startReceiver();
      const env = { ...database, DOWNSTREAM_URL: sink.url, DOWNSTREAM_POLL_MS: '50', ARCHIVE_INTERVAL_MS: '0' };
      const first = await startInstance(env);
      // The schema's owner, bound by row-level security like the server's role: it sets the tenant.
      const owner = fixture('the owner connection', new Client({ connectionString: database.DATABASE_OWNER_URL }), (c) => c.end());
      await owner.connect();
      const queue = `${escapeIdentifier(DEFAULT_ROLES.schema)}.${escapeIdentifier(DOWNSTREAM_TABLE.name)}`;
      const asTenant = `SELECT set_config('${TENANT_SETTING}', '${TENANT}', true)`;
      const queued = async () => {
        await owner.query(`BEGIN; ${asTenant}`);
        const out = await owner.query(`SELECT count(*)::int AS n FROM ${queue}`);
        await owner.query('COMMIT');
        return Number(out.rows[0].n);
      };
      // The relay deletes what the receiver took once it answers. Its first request is answered only
      // after the test holds the queued rows' locks, so the delete waits on them: the kill lands between
      // the answer and the delete, in the relay's real code, with nothing of it replaced.
      let armed = true;
      const ours = (events: Envelope[]) => events.filter((e) => e.detail.tenant === TENANT);
      sink.beforeAnswer = async (events) => {
        if (!armed || ours(events).length === 0) return;
        armed = false;
        await owner.query(`BEGIN; ${asTenant}; SELECT 1 FROM ${queue} FOR UPDATE`);
      };
      const editor = await server.token(TENANT, [Role.EDITOR], 'editor-kill');
      const created = await gqlAt(first.url, editor, 'mutation { createProject(input: { title: "Killed relay" }) { projectId } }');
      expect(created.errors).toBeUndefined();
      // The relay's delete waits on the test's locks (the only statement that touches those rows after a 2xx).
      await waitFor(async () => {
        const out = await owner.query(
          'SELECT count(*)::int AS n FROM pg_locks WHERE NOT granted AND pg_backend_pid() = ANY(pg_blocking_pids(pid))',
        );
        return Number(out.rows[0].n) > 0;
      }, "the relay's delete waiting on the test's locks");
      const sent = ours(sink.taken).map((e) => e.detail.id);
      expect(sent).toHaveLength(1);
      expect(sink.requests.filter((r) => r.ids.includes(sent[0]))).toEqual([{ ids: sent, status: 204 }]);
      await first.kill();
      await owner.query('ROLLBACK');
      // The killed process's sessions end (PostgreSQL rolls back the delete its connection never committed).
      await waitFor(async () => {
        const out = await owner.query(
          'SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
        );
        return Number(out.rows[0].n) === 0;
      }, "the killed instance's sessions gone");
      expect(await queued()).toBe(1);

      // Restarted, the relay sends it again: the same envelope, the same id, and then it is gone from the queue.
      await startInstance(env);
      await waitFor(async () => ours(sink.taken).length === 2 && (await queued()) === 0, 'the event sent again and deleted');
      const taken = ours(sink.taken);
      expect(taken.map((e) => e.detail.id)).toEqual([...sent, ...sent]);
      expect(taken[1]).toEqual(taken[0]);
      // At least once: a receiver that keeps what it took by detail.id holds the event once.
      expect(new Map(taken.map((e) => [e.detail.id, e])).size).toBe(1);
    });

  if (store === 'postgres')
    it('stops at once while the receiver does not answer: the request under way is cut short, not waited for until its 10 s timeout', async () => {
      const silent = await startReceiver();
      silent.hold = true;
      const own = await startTestServer({ store, env: { DOWNSTREAM_URL: silent.url, DOWNSTREAM_POLL_MS: '50', ARCHIVE_INTERVAL_MS: '0' } });
      const token = await own.token(TENANT, [Role.EDITOR], 'editor-2');
      const created = await own.raw({ query: 'mutation { createProject(input: { title: "Unanswered" }) { projectId } }' }, token);
      expect(created.body.errors).toBeUndefined();
      await waitFor(async () => silent.held > 0, "the relay's request under way");
      const started = Date.now();
      await own.app.stop();
      expect(Date.now() - started).toBeLessThan(5_000);
      await waitFor(async () => silent.abandoned === silent.held, 'the held request let go');
    });
});
