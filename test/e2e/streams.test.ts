/** @long Started first on a clean clone (test/support/sequencer.js): one of the slowest files. */
import { BoundTenant } from '../../src/common/bound-tenant';
import { randomUUID } from 'node:crypto';
import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { signDevToken } from '../../src/auth/jwt';
import { Role } from '../../src/auth/principal';
import { JOB_STATUS_SHARDS, streams } from '../../src/common/streams';
import { encodeCursor } from '../../src/events/shard-cursor';
import { jobEventsAfter } from '../../src/job/job.keys';
import type { QuerySpec } from '../../src/infra/dynamo/store';
import { OUTBOX_SHARDS } from '../../src/infra/dynamo/write';
import { freshTable, testEndpoint, type TestTable } from '../support/dynamo';
import { gqlAt, startInstance, type Instance } from '../support/instances';
import { startRedis, type RedisServer } from '../support/redis';
import { TEST_SECRET } from '../support/server';
import { eventually, settledOf, wsClient } from '../support/ws';
import { fixture, stopOnPurpose } from '../support/fixtures';

/*
 * Every stream resumable with no gap and no duplicate, across instances: three server processes
 * share one DynamoDB Local table and one redis-server, writers spread their mutations over all of
 * them, and subscribers keep dropping their connection and resuming, each time on a random
 * instance, from the position of the last message they received. What they end up with is
 * compared with the stream as stored in the table. Then Redis goes away for 5 s, and then one
 * instance is SIGKILLed mid-stream.
 */

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Waits for every one of `work`, then fails with the first failure: unlike Promise.all, no writer
 * is left running into the next test after another one failed.
 */
async function settled(work: Promise<unknown>[]): Promise<void> {
  const results = await Promise.allSettled(work);
  const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
}
const random = <T>(list: readonly T[]) => list[Math.floor(Math.random() * list.length)];

type StreamName = 'jobProgress' | 'projectJobStatus' | 'tenantJobStatus' | 'projectActivity';

/** One message as a client sees it: an event, or a control message of the server. */
interface Message {
  eventId: string;
  position: number;
  /** The tenant's job status stream (sharded): where it stands in every shard after this message. */
  cursor?: string;
  control?: 'ack' | 'lost' | 'resync';
}

const CONTROL: Record<string, Message['control']> = {
  SUBSCRIBED: 'ack',
  HISTORY_LOST: 'lost',
  RESYNC: 'resync',
  'subscription.started': 'ack',
  'subscription.history_lost': 'lost',
  'subscription.resync': 'resync',
};

interface Subject {
  tenantId: string;
  projectId: string;
  jobId: string;
}

function operation(stream: StreamName, subject: Subject, after: number | null, cursor?: string) {
  switch (stream) {
    case 'jobProgress':
      return {
        query: 'subscription($id: ID!, $after: Int) { jobProgress(jobId: $id, afterSeq: $after) { eventId position type } }',
        variables: { id: subject.jobId, after },
      };
    case 'projectJobStatus':
      return {
        query: 'subscription($id: ID!, $after: Int) { jobStatusChanges(projectId: $id, after: $after) { eventId position type } }',
        variables: { id: subject.projectId, after },
      };
    case 'tenantJobStatus':
      // Sharded: resumed by the cursor of the last message, once there is one.
      return cursor
        ? {
            query: 'subscription($c: String) { jobStatusChanges(afterCursor: $c) { eventId position cursor type } }',
            variables: { c: cursor },
          }
        : { query: 'subscription($after: Int) { jobStatusChanges(after: $after) { eventId position cursor type } }', variables: { after } };
    case 'projectActivity':
      return {
        query: 'subscription($id: ID!, $after: Int) { projectActivity(projectId: $id, after: $after) { eventId position action } }',
        variables: { id: subject.projectId, after },
      };
  }
}

/** The stream as the table holds it, in position order; the tenant's job status stream shard by shard. */
function storedSpecs(stream: StreamName, subject: Subject): QuerySpec[] {
  if (stream !== 'tenantJobStatus') return [storedSpec(stream, subject)];
  return Array.from({ length: JOB_STATUS_SHARDS }, (_, shard) => streams.tenantJobStatus(subject.tenantId, shard).after(0));
}

/** The stream as the table holds it, in position order (one shard of the tenant's job status stream: shard 0). */
function storedSpec(stream: StreamName, subject: Subject): QuerySpec {
  switch (stream) {
    case 'jobProgress':
      return jobEventsAfter(new BoundTenant(subject.tenantId), subject.jobId, 0);
    case 'projectJobStatus':
      return streams.projectJobStatus(subject.tenantId, subject.projectId).after(0);
    case 'tenantJobStatus':
      return streams.tenantJobStatus(subject.tenantId, 0).after(0);
    case 'projectActivity':
      return streams.projectActivity(subject.tenantId, subject.projectId).after(0);
  }
}

/** Sockets opened by the followers, so a follower can cut its own connection abruptly. */
/** A follower's socket, terminated by the fixture registry after its test should it still be open. */
class TrackedWebSocket extends WebSocket {
  constructor(...args: ConstructorParameters<typeof WebSocket>) {
    super(...args);
    fixture('follower socket', this, (socket) => socket.terminate());
  }
}

/**
 * A client that follows one stream the way docs/streams.md tells client authors to: it resubscribes
 * with the position of the last message it received, and checks each subscription's first message
 * is the acknowledgement of exactly that position.
 */
class Follower {
  last = 0;
  /** The cursor of the last message (the tenant's job status stream only). */
  cursor: string | undefined;
  readonly events: string[] = [];
  /** Anything a correct stream never does: a wrong acknowledgement, a gap, a repeat, an error. */
  readonly anomalies: string[] = [];
  subscriptions = 0;
  /** Subscriptions whose first message (the acknowledgement, sent once the live listener is in effect) arrived. */
  acknowledged = 0;
  lost = 0;
  private client?: Client;
  private socket?: WebSocket;

  constructor(
    readonly stream: StreamName,
    private readonly subject: Subject,
    private readonly token: string,
  ) {}

  /**
   * One subscription on `url` from the last position. Resolves when it ends: after `ms`, when the
   * connection drops (the instance died), when the server ends it, or, given `upTo`, as soon as it
   * has reached that position (a catch-up ends when there is nothing more to read).
   */
  async follow(url: string, ms: number, abrupt: boolean, upTo?: number): Promise<void> {
    let first = true;
    let unconfirmed: number | undefined;
    const checkAck = () => {
      if (unconfirmed !== undefined) this.anomalies.push(`acknowledged ${unconfirmed}, resumed from ${from}`);
      unconfirmed = undefined;
    };
    let active = true;
    let ended!: () => void;
    const done = new Promise<void>((resolve) => (ended = resolve));
    const client = createClient({
      url: url.replace(/^http/, 'ws'),
      webSocketImpl: TrackedWebSocket,
      connectionParams: { authorization: `Bearer ${this.token}` },
      retryAttempts: 0,
      lazy: true,
      on: { connected: (socket) => (this.socket = socket as WebSocket) },
    });
    this.client = client;
    this.subscriptions++;
    const from = this.last;
    client.subscribe<Record<string, { eventId: string; position: number; cursor?: string; type?: string; action?: string }>>(
      operation(this.stream, this.subject, from, this.cursor),
      {
        next: ({ data, errors }) => {
          if (!active) return;
          if (errors) this.anomalies.push(`errors: ${JSON.stringify(errors)}`);
          const raw = data && Object.values(data)[0];
          if (!raw) return;
          const message: Message = {
            eventId: raw.eventId,
            position: raw.position,
            cursor: raw.cursor ?? undefined,
            control: CONTROL[raw.type ?? raw.action ?? ''],
          };
          if (this.stream === 'tenantJobStatus' && !message.cursor) this.anomalies.push(`no cursor: ${JSON.stringify(raw)}`);
          if (first) {
            first = false;
            this.acknowledged++;
            if (message.control !== 'ack') this.anomalies.push(`first message is not an acknowledgement: ${JSON.stringify(raw)}`);
            // It names the position resumed from; only when history was lost, the head the stream
            // goes on from, and then the next message says so.
            if (message.position !== from) unconfirmed = message.position;
            else {
              this.cursor = message.cursor;
              if (upTo !== undefined && from >= upTo) ended();
            }
            return;
          }
          if (message.control === 'lost') {
            this.lost++;
            if (message.position !== unconfirmed) this.anomalies.push(`history lost at ${message.position}, acknowledged ${unconfirmed}`);
            unconfirmed = undefined;
            this.last = message.position;
            this.cursor = message.cursor;
            return;
          }
          checkAck();
          if (message.control) return;
          if (message.position !== this.last + 1) this.anomalies.push(`position ${message.position} after ${this.last}`);
          this.events.push(message.eventId);
          this.last = message.position;
          this.cursor = message.cursor;
          if (upTo !== undefined && this.last >= upTo) ended();
        },
        // A dropped connection is what this test does on purpose; the follower resumes elsewhere.
        error: () => ended(),
        complete: () => ended(),
      },
    );
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([done, new Promise((r) => (timer = setTimeout(r, ms)))]);
    clearTimeout(timer);
    active = false;
    checkAck();
    if (abrupt) this.socket?.terminate();
    await client.dispose();
  }

  close() {
    return this.client?.dispose();
  }
}

/** The stream's event ids as stored, in position order (the tenant's job status stream shard after shard). */
async function stored(table: TestTable, stream: StreamName, subject: Subject): Promise<string[]> {
  const shards = await Promise.all(storedSpecs(stream, subject).map((spec) => table.store.queryAll(spec, 100_000)));
  return shards.flat().map((item) => item.eventId as string);
}

/** The stream's last position as stored (0 when empty): for the sharded stream, the sum of its shards' (what its messages say). */
async function headOf(table: TestTable, stream: StreamName, subject: Subject): Promise<number> {
  const shards = await Promise.all(storedSpecs(stream, subject).map((spec) => table.store.queryAll(spec, 100_000)));
  return shards.reduce((sum, items) => sum + (items.length ? (items[items.length - 1].position as number) : 0), 0);
}

/**
 * `events` as the stream promises them against `want` (the stored ids): exactly `want`'s order for
 * a one-shard stream; for the tenant's sharded job status stream, `want`'s ids, each job's in its
 * own order (a job's event id is `<jobId>:<seq>`), changes of different jobs in any order.
 */
function asPromised(stream: StreamName, events: string[], want: string[]): string[] {
  if (stream !== 'tenantJobStatus') return events;
  const byJob = (ids: string[]) => [...ids].sort((a, b) => a.split(':')[0].localeCompare(b.split(':')[0]));
  // A stable sort by job keeps each job's delivered order: equal to want's sorted alike only if each job's order held.
  const wanted = new Set(want);
  return events.every((id) => wanted.has(id)) ? byJob(events) : events;
}

/**
 * Checks that `events`, what a follower that started at the head received, are the newest of
 * `want`: its last ones in order for a one-shard stream; for the tenant's sharded stream, each
 * job's last ones in that job's order.
 */
function expectTail(stream: StreamName, events: string[], want: string[]) {
  if (stream !== 'tenantJobStatus') return expect(events).toEqual(want.slice(want.length - events.length));
  const jobOf = (id: string) => id.split(':')[0];
  const group = (ids: string[]) => {
    const jobs = new Map<string, string[]>();
    for (const id of ids) jobs.set(jobOf(id), [...(jobs.get(jobOf(id)) ?? []), id]);
    return jobs;
  };
  const wanted = group(want);
  const tails = [...group(events)].map(([job, ids]) => [job, (wanted.get(job) ?? []).slice(-ids.length)]);
  expect([...group(events)]).toEqual(tails);
}

/** `want` as asPromised compares it. */
function promised(stream: StreamName, want: string[]): string[] {
  return stream === 'tenantJobStatus' ? [...want].sort((a, b) => a.split(':')[0].localeCompare(b.split(':')[0])) : want;
}

describe('every stream resumable across three instances, Redis and instance failures', () => {
  let table: TestTable;
  let redis: RedisServer;
  let instances: Instance[] = [];
  let env: Record<string, string>;
  let editor: string;
  let subject: Subject;
  const alive = () => instances.filter((i) => i.child.exitCode === null && i.child.signalCode === null);

  beforeAll(async () => {
    table = await freshTable();
    redis = await startRedis();
    env = {
      DYNAMODB_ENDPOINT: testEndpoint(),
      TABLE_NAME: table.tableName,
      REDIS_URL: redis.url,
      // The sweepers deliver what a Redis outage or a killed instance left in the outbox (the last
      // tests) within a second. Every 250 ms, the three instances' sweeps made ~1,400 of the 2,060
      // Queries they sent in the first three tests (each a Query of an empty outbox shard).
      OUTBOX_SWEEP_MS: '1000',
      OUTBOX_GRACE_MS: '500',
      READINESS_CACHE_MS: '0',
    };
    instances = await Promise.all([startInstance(env), startInstance(env), startInstance(env)]);
    const tenantId = `streams-${randomUUID().slice(0, 8)}`;
    editor = await signDevToken(new TextEncoder().encode(TEST_SECRET), { sub: 'writer', tenantId, roles: [Role.EDITOR, Role.WORKER] });
    const projectId = (await gqlAt(instances[0].url, editor, 'mutation { createProject(input: { title: "Streams" }) { projectId } }')).data
      .createProject.projectId;
    const jobId = (
      await gqlAt(
        instances[0].url,
        editor,
        `mutation { createJob(input: { projectId: "${projectId}", kind: "LONG", steps: ["render"] }) { jobId } }`,
      )
    ).data.createJob.jobId;
    await gqlAt(instances[1].url, editor, `mutation { startStep(jobId: "${jobId}", stepName: "render") { seq } }`);
    subject = { tenantId, projectId, jobId };
  }, 120_000);

  /**
   * Runs a mutation on a random live instance, moving to another one when an instance does not
   * answer or answers with a transient error (CONFLICT, CONTENDED under contention, SERVICE_UNAVAILABLE), as
   * a worker behind a load balancer would. Returns the data, or null after 8 tries.
   */
  async function write(query: string): Promise<Record<string, any> | null> {
    let unanswered = false;
    for (let attempt = 0; attempt < 8; attempt++) {
      try {
        const result = await gqlAt(random(alive()).url, editor, query);
        if (!result.errors) return result.data;
        const code = result.errors[0].extensions?.code;
        // A step change whose answer was lost with a dying instance may have committed: its retry
        // then finds the step moved on. The table, not this writer, says what happened.
        if (code === 'INVALID_TRANSITION' && unanswered) return null;
        if (!['CONFLICT', 'CONTENDED', 'SERVICE_UNAVAILABLE'].includes(code ?? '')) throw new Error(JSON.stringify(result.errors));
      } catch (error) {
        // (By name: fetch's errors come from outside jest's realm, so instanceof TypeError fails.)
        if (!['TypeError', 'TimeoutError'].includes((error as Error).name)) throw error;
        // A network error: that instance is gone or going; the next try picks another.
        unanswered = true;
      }
      await sleep(20 + Math.random() * 50);
    }
    return null;
  }

  /** One writer's mix: activity (logs, milestones), the long job's progress, and short jobs that change status. */
  /**
   * Writes at random until `until`, and then on until `enough(counts)` holds, if given: a busy
   * machine writes less in the same time, and a test that needs so many events gets them anyway.
   */
  async function writer(until: number, counts: Record<string, number>, enough: (counts: Record<string, number>) => boolean = () => true) {
    const { projectId, jobId } = subject;
    let n = 0;
    while (Date.now() < until || !enough(counts)) {
      n++;
      const choice = Math.random();
      if (choice < 0.3) {
        if (await write(`mutation { createLog(projectId: "${projectId}", input: { rawText: "note ${n}" }) { logId } }`)) counts.logs++;
      } else if (choice < 0.45) {
        if (await write(`mutation { createMilestone(projectId: "${projectId}", input: { name: "m${n}" }) { milestoneId } }`))
          counts.milestones++;
      } else if (choice < 0.75) {
        const progress = Math.random().toFixed(3);
        if (await write(`mutation { reportStepProgress(jobId: "${jobId}", stepName: "render", progress: ${progress}) { seq } }`))
          counts.progress++;
      } else {
        const created = await write(
          `mutation { createJob(input: { projectId: "${projectId}", kind: "SHORT", steps: ["a"], idempotencyKey: "${randomUUID()}" }) { jobId } }`,
        );
        if (!created) continue;
        counts.jobs++;
        await write(`mutation { startStep(jobId: "${created.createJob.jobId}", stepName: "a") { seq } }`);
        await write(`mutation { completeStep(jobId: "${created.createJob.jobId}", stepName: "a") { seq } }`);
      }
    }
  }

  /** Lets every follower resume until it has what the table holds; returns the table's streams. */
  async function catchUp(followers: Follower[]): Promise<Map<StreamName, string[]>> {
    const expected = new Map<StreamName, string[]>();
    const heads = new Map<StreamName, number>();
    for (const stream of new Set(followers.map((f) => f.stream))) {
      expected.set(stream, await stored(table, stream, subject));
      heads.set(stream, await headOf(table, stream, subject));
    }
    const deadline = Date.now() + 60_000;
    await Promise.all(
      followers.map(async (follower) => {
        while (follower.last < heads.get(follower.stream)! && Date.now() < deadline) {
          await follower.follow(random(alive()).url, 2000, false, heads.get(follower.stream));
        }
      }),
    );
    return expected;
  }

  function expectExact(followers: Follower[], expected: Map<StreamName, string[]>) {
    for (const follower of followers) {
      const want = expected.get(follower.stream)!;
      const seen = new Set(follower.events);
      const missing = want.filter((id) => !seen.has(id)).length;
      const duplicates = follower.events.length - seen.size;
      expect({ stream: follower.stream, missing, duplicates, anomalies: follower.anomalies, lost: follower.lost }).toEqual({
        stream: follower.stream,
        missing: 0,
        duplicates: 0,
        anomalies: [],
        lost: 0,
      });
      expect(asPromised(follower.stream, follower.events, want)).toEqual(promised(follower.stream, want));
    }
  }

  /** Events still in the outbox (not yet taken by the bus), all shards together. */
  async function waiting(): Promise<number> {
    let left = 0;
    for (let shard = 0; shard < OUTBOX_SHARDS; shard++) {
      left += (await table.store.queryFirst({ index: 'OUTBOX', pk: `OUTBOX#${shard}` }, 1000)).length;
    }
    return left;
  }

  const STREAMS: StreamName[] = ['jobProgress', 'projectJobStatus', 'tenantJobStatus', 'projectActivity'];

  it('acknowledges every subscription with its position, reports history lost, and refuses a position ahead of the stream', async () => {
    // Something in every stream first: writers run in rounds until each stream holds at least two
    // events (a round writes two progress reports, a short job and two activities; a busy machine
    // may need more rounds), within 30 s.
    const deadline = Date.now() + 30_000;
    do {
      const round = { logs: 0, milestones: 0, progress: 0, jobs: 0 };
      const enough = () => round.progress >= 2 && round.jobs >= 1 && round.logs + round.milestones >= 2;
      await settled([writer(0, round, enough), writer(0, round, enough)]);
    } while (
      Date.now() < deadline &&
      (await Promise.all(STREAMS.map((stream) => stored(table, stream, subject)))).some((ids) => ids.length < 2)
    );
    for (const stream of STREAMS) {
      const ids = await stored(table, stream, subject);
      expect(ids.length).toBeGreaterThan(1);
      // Without a position: acknowledged at the head, which is what the table holds.
      const fresh = new Follower(stream, subject, editor);
      fresh.last = await headOf(table, stream, subject);
      await fresh.follow(instances[0].url, 300, false, fresh.last);
      expect(fresh.anomalies).toEqual([]);
      expect(fresh.subscriptions).toBe(1);
      // A position ahead of the stream is the client's mistake.
      const ahead = operation(stream, subject, ids.length + 1000);
      const client = wsClient(instances[1].url, editor);
      const refused = await new Promise<unknown[]>((resolve) =>
        client.subscribe(ahead, {
          next: ({ errors }) => errors && resolve([...errors]),
          error: (e) => resolve(e as unknown[]),
          complete: () => resolve([]),
        }),
      );
      expect(refused).toEqual([expect.objectContaining({ extensions: expect.objectContaining({ code: 'BAD_USER_INPUT' }) })]);
    }
  });

  it('still resumes after an afterEventId (deprecated), and reports history lost for an event it no longer has', async () => {
    // Enough activity to resume in the middle of, whatever the writers of the test before managed.
    for (let i = 0; i < 5; i++)
      await write(`mutation { createLog(projectId: "${subject.projectId}", input: { rawText: "resume ${i}" }) { logId } }`);
    const stored = await table.store.queryAll(storedSpec('projectActivity', subject), 100_000);
    const third = stored[2];
    const messages = (variables: Record<string, unknown>, n: number) =>
      new Promise<Array<{ position: number; action: string; eventId: string }>>((resolve, reject) => {
        const client = wsClient(instances[0].url, editor);
        const got: Array<{ position: number; action: string; eventId: string }> = [];
        const timer = setTimeout(() => reject(new Error(`got ${got.length} of ${n} messages: ${JSON.stringify(got)}`)), 15_000);
        client.subscribe<{ projectActivity: { position: number; action: string; eventId: string } }>(
          {
            query: 'subscription($id: ID!, $e: ID) { projectActivity(projectId: $id, afterEventId: $e) { position action eventId } }',
            variables: { id: subject.projectId, ...variables },
          },
          {
            next: ({ data, errors }) => {
              if (errors) reject(new Error(JSON.stringify(errors)));
              // The replay goes on until the registry disposes the client after the test: only the first n are looked at.
              if (got.length === n) return;
              got.push(data!.projectActivity);
              if (got.length === n) {
                clearTimeout(timer);
                resolve(got);
              }
            },
            error: reject,
            complete: () => resolve(got),
          },
        );
      });
    const resumed = await messages({ e: third.eventId }, 3);
    expect(resumed.map((m) => [m.action, m.position])).toEqual([
      ['subscription.started', third.position],
      [stored[3].action, stored[3].position],
      [stored[4].action, stored[4].position],
    ]);
    const unknown = await messages({ e: 'evt_01ARZ3NDEKTSV4RRFFQ69G5FAV' }, 2);
    expect(unknown.map((m) => m.action)).toEqual(['subscription.started', 'subscription.history_lost']);
    expect(unknown[1].position).toBe(stored[stored.length - 1].position);
  });

  it('delivers every event once, in order, to subscribers that keep reconnecting to random instances while 8 writers write through all three', async () => {
    const until = Date.now() + 20_000;
    const counts = { logs: 0, milestones: 0, progress: 0, jobs: 0 };
    const followers = STREAMS.flatMap((stream) => [0, 1, 2].map(() => new Follower(stream, subject, editor)));
    // The subscribers reconnect for as long as anyone writes: 20 s, or longer on a busy machine
    // until every stream has more than 20 events (a job's status changes at least three times).
    // They stop once the writers are done, also when one of them failed.
    const enough = (c: Record<string, number>) => c.progress > 20 && c.logs + c.milestones > 20 && c.jobs >= 8;
    const writing = settled(Array.from({ length: 8 }, () => writer(until, counts, enough)));
    const written = settledOf(writing);
    const following = followers.map(async (follower) => {
      while (!written()) await follower.follow(random(alive()).url, 100 + Math.random() * 400, Math.random() < 0.5);
    });
    await settled([writing, ...following]);
    const expected = await catchUp(followers);
    const figures = Object.fromEntries(
      STREAMS.map((s) => [
        s,
        {
          events: expected.get(s)!.length,
          subscriptions: followers.filter((f) => f.stream === s).map((f) => f.subscriptions),
        },
      ]),
    );
    console.log(`reconnecting subscribers: ${JSON.stringify({ writes: counts, streams: figures })}`);
    for (const stream of STREAMS) expect(expected.get(stream)!.length).toBeGreaterThan(20);
    expectExact(followers, expected);
  }, 180_000);

  it('delivers, in order, every event committed while Redis was down to live subscribers on every instance', async () => {
    const streamsHere: StreamName[] = ['projectActivity', 'tenantJobStatus', 'jobProgress'];
    const followers = instances.flatMap(() => streamsHere.map((stream) => new Follower(stream, subject, editor)));
    for (const follower of followers) follower.last = await headOf(table, follower.stream, subject);
    // One long subscription each, one set per instance; none of them reconnects.
    const following = followers.map((follower, i) => follower.follow(instances[Math.floor(i / streamsHere.length)].url, 30_000, false));
    // Each is live (its listener in effect) once its acknowledgement has arrived.
    await eventually(
      () => followers.every((f) => f.subscriptions === 1 && f.acknowledged === 1),
      (ok) => ok,
      20_000,
    );
    const counts = { logs: 0, milestones: 0, progress: 0, jobs: 0 };
    const writes = () => counts.logs + counts.milestones + counts.progress + counts.jobs;
    // The writers go on until ten more writes committed after Redis came back (not for a fixed time).
    let writesAtReturn: number | undefined;
    const writing = settled(
      Array.from({ length: 4 }, () => writer(0, counts, () => writesAtReturn !== undefined && writes() >= writesAtReturn + 10)),
    );
    // Redis goes once the writers are well under way, and stays away while ten more writes commit.
    await eventually(writes, (n) => n >= 10, 20_000);
    await stopOnPurpose(redis);
    const writesAtOutage = writes();
    // Readiness says so meanwhile.
    await eventually(
      async () => (await fetch(`${instances[0].url.replace(/\/graphql$/, '')}/readyz`)).status,
      (status) => status === 503,
      5000,
    );
    await eventually(writes, (n) => n >= writesAtOutage + 10, 20_000);
    // What was committed meanwhile is still in the outbox: nothing leaves it before Redis takes it.
    const heldBack = await waiting();
    expect(heldBack).toBeGreaterThan(0);
    redis = await startRedis(redis.port);
    writesAtReturn = writes();
    await writing;
    const expected = new Map<StreamName, string[]>();
    const heads = new Map<StreamName, number>();
    for (const stream of streamsHere) {
      expected.set(stream, await stored(table, stream, subject));
      heads.set(stream, await headOf(table, stream, subject));
    }
    // Every live subscription catches up without reconnecting.
    await eventually(
      () => followers.map((f) => f.last - heads.get(f.stream)!),
      (behind) => behind.every((n) => n === 0),
      30_000,
    );
    for (const follower of followers) void follower.close();
    await Promise.all(following);
    // And the sweepers emptied the outbox once Redis was back.
    await eventually(waiting, (left) => left === 0, 15_000);
    const first = new Map(followers.map((f) => [f.stream, f.events[0]]));
    const during = streamsHere.map((s) => expected.get(s)!.length - expected.get(s)!.indexOf(first.get(s)!));
    console.log(`redis outage: ${JSON.stringify({ writes: counts, eventsSinceSubscribing: during, heldBackInOutbox: heldBack })}`);
    expect(followers.every((f) => f.subscriptions === 1)).toBe(true);
    for (const follower of followers) {
      expect(follower.anomalies).toEqual([]);
      expectTail(follower.stream, follower.events, expected.get(follower.stream)!);
      expect(follower.events.length).toBeGreaterThan(0);
    }
  }, 120_000);

  it('loses nothing when one of three instances is SIGKILLed mid-stream: its subscribers resume on the others', async () => {
    const victim = instances[2];
    const followers = STREAMS.map((stream) => new Follower(stream, subject, editor));
    for (const follower of followers) follower.last = await headOf(table, follower.stream, subject);
    const counts = { logs: 0, milestones: 0, progress: 0, jobs: 0 };
    const writes = () => counts.logs + counts.milestones + counts.progress + counts.jobs;
    // The writers go on until the survivors took ten writes after the kill (not for a fixed time).
    let writesAtKill: number | undefined;
    const writing = settled(
      Array.from({ length: 6 }, () => writer(0, counts, () => writesAtKill !== undefined && writes() >= writesAtKill + 10)),
    );
    const written = settledOf(writing);
    // Each follower starts on the victim, and moves to a survivor when its connection dies; it
    // follows there for as long as anyone writes, and resumes at least once whatever the pace.
    const following = followers.map(async (follower) => {
      await follower.follow(victim.url, 60_000, false);
      while (!written() || follower.subscriptions < 2) await follower.follow(random(alive()).url, 1000, false);
    });
    // The victim dies once every follower is on it and the writers are under way.
    await eventually(
      () => followers.every((f) => f.subscriptions >= 1) && writes() >= 10,
      (ready) => ready,
      20_000,
    );
    await victim.kill();
    writesAtKill = writes();
    const inOutbox = await waiting();
    await settled([writing, ...following]);
    const expected = await catchUp(followers);
    console.log(
      `instance killed: ${JSON.stringify({ writes: counts, inOutboxAtKill: inOutbox, subscriptions: followers.map((f) => f.subscriptions) })}`,
    );
    for (const follower of followers) {
      expect(follower.anomalies).toEqual([]);
      expect(follower.subscriptions).toBeGreaterThan(1);
      expectTail(follower.stream, follower.events, expected.get(follower.stream)!);
      expect(follower.last).toBe(await headOf(table, follower.stream, subject));
    }
    // The survivors' sweepers published whatever the victim had committed and not published.
    await eventually(waiting, (left) => left === 0, 15_000);
  }, 120_000);

  it('gets history lost, once and without a partial replay, for a position older than the stored events', async () => {
    // The streams one beside the other: each follows for a second, to see that nothing is replayed.
    await settled(
      STREAMS.map(async (stream) => {
        // Sharded, the tenant's job status stream loses the history of its fullest shard: the shard a
        // job's changes land in follows from its random id, so any one shard may hold none of them.
        const shards = await Promise.all(storedSpecs(stream, subject).map((shard) => table.store.queryAll(shard, 100_000)));
        const lossy = shards.reduce((best, items, k) => (items.length > shards[best].length ? k : best), 0);
        const items = shards[lossy];
        expect(items.length).toBeGreaterThan(2);
        // Events expire oldest first (DynamoDB's TTL deletes them): the first two go.
        for (const item of items.slice(0, 2)) {
          await table.dynamo.doc.send(new DeleteCommand({ TableName: table.tableName, Key: { PK: item.PK, SK: item.SK } }));
        }
        const follower = new Follower(stream, subject, editor);
        follower.last = 1;
        if (stream === 'tenantJobStatus') {
          // A cursor at position 1 of that shard and at the head of every other one, so that shard
          // alone lost its history.
          const heads = shards.map((shard) => (shard.at(-1)?.position as number) ?? 0);
          follower.cursor = encodeCursor(heads.map((head, k) => (k === lossy ? 1 : head)));
          follower.last = 1 + heads.reduce((sum, head, k) => (k === lossy ? sum : sum + head), 0);
        }
        await follower.follow(random(alive()).url, 1000, false);
        expect({ stream, lost: follower.lost, replayed: follower.events.length, anomalies: follower.anomalies }).toEqual({
          stream,
          lost: 1,
          replayed: 0,
          anomalies: [],
        });
        // It reads on from the head it was told.
        expect(follower.last).toBe(stream === 'tenantJobStatus' ? await headOf(table, stream, subject) : items[items.length - 1].position);
      }),
    );
  }, 60_000);
});
