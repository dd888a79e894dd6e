import { GraphQLInt, GraphQLNonNull, GraphQLObjectType, GraphQLSchema, GraphQLString } from 'graphql';
import { Role, type Principal } from '../../src/auth/principal';
import { loadConfig } from '../../src/config';
import { replayThenLive } from '../../src/events/replay';
import { OperationPipeline } from '../../src/graphql/pipeline';
import type { DeliveryStream, DirectWriter } from '../../src/graphql/shared-subscriptions';
import { deliverDirectly, MAX_FRAMES_IN_FLIGHT } from '../../src/http/direct-delivery';
import { Operation } from '../../src/http/ws-transport';
import type { Store } from '../../src/infra/dynamo/store';
import { PARKED } from '../../src/infra/handover';
import { createEventBus } from '../../src/infra/pubsub';

/*
 * The live path's hand-over (infra/handover.ts) from end to end in one process: a real event bus,
 * replay-then-live streams as the subscription source, the operation pipeline's shared execution
 * and the direct delivery to a socket-like target. What a caught-up subscriber gets must be
 * exactly what the pulled path gives: every event once, in order, with the same frames; and the
 * path must give way to pulls for gaps, overflows and the final event.
 */

interface Tick {
  n: number;
  final?: boolean;
  kind?: string;
}

const bus = createEventBus();
/** The stored events (for replays and gaps), by topic. */
const stored = new Map<string, Tick[]>();
const reads: number[] = [];
/** Events whose execution is held back until released (to finish executions out of order). */
const held = new Map<number, () => void>();
const holdBack = new Set<number>();
let maxBuffer = 1000;

const TickType = new GraphQLObjectType<Tick>({
  name: 'Tick',
  fields: {
    n: { type: new GraphQLNonNull(GraphQLInt) },
    kind: { type: GraphQLString },
    // Resolves late for the events the test holds back, so their executions finish after later ones.
    late: {
      type: GraphQLInt,
      resolve: (tick) => (holdBack.has(tick.n) ? new Promise((resolve) => held.set(tick.n, () => resolve(tick.n))) : tick.n),
    },
  },
});

const schema = new GraphQLSchema({
  query: new GraphQLObjectType({ name: 'Query', fields: { ok: { type: GraphQLString } } }),
  subscription: new GraphQLObjectType({
    name: 'Subscription',
    fields: {
      ticks: {
        type: TickType,
        args: { topic: { type: new GraphQLNonNull(GraphQLString) }, from: { type: GraphQLInt } },
        resolve: (tick) => tick,
        subscribe: (_root, args: { topic: string; from?: number }) => {
          const topic = args.topic;
          const head = Math.max(0, ...(stored.get(topic) ?? []).map((t) => t.n));
          return replayThenLive<Tick>({
            live: (push) => bus.listen(topic, push),
            takeStart: () => Promise.resolve({ from: args.from ?? null, head }),
            readPage: async (after, limit) => {
              reads.push(after);
              return (stored.get(topic) ?? []).filter((t) => t.n > after).slice(0, limit);
            },
            positionOf: (t) => t.n,
            accept: (payload): payload is Tick => typeof payload === 'object' && payload !== null && 'n' in payload,
            isFinal: (t) => t.final === true,
            acknowledge: (n) => ({ n, kind: 'ack' }),
            historyLost: (n) => ({ n, kind: 'lost' }),
            resync: (n) => ({ n, kind: 'resync' }),
            maxBuffer,
          });
        },
      },
    },
  }),
});

const config = loadConfig({
  NODE_ENV: 'test',
  AUTH_JWT_SECRET: 'unit-secret-0123456789abcdef0123456789',
  CURSOR_SECRET: 'c',
  DYNAMODB_ENDPOINT: 'http://127.0.0.1:9',
});
const pipeline = new OperationPipeline({ config, schema, store: {} as Store, eventRetentionDays: 1 });

/** Every subscriber's lifetime, ended after each test (a failed test leaves its subscribers running). */
const everyone: Operation[] = [];

/** One subscriber: its frames as the socket would carry them, and the means to hold frames in flight. */
async function subscriber(topic: string, principal: Principal, options: { from?: number; hold?: boolean; fields?: string } = {}) {
  const frames: Array<{ n: number; kind: string | null; late?: number | null }> = [];
  const inFlight: Array<() => void> = [];
  const socket = {
    write: (data: string | Uint8Array, written: () => void) => {
      const frame = JSON.parse(Buffer.from(data).toString());
      expect(frame.id).toBe(principal.userId);
      if (frame.type === 'next') frames.push(frame.payload.data.ticks);
      if (options.hold) inFlight.push(written);
      else written();
    },
    release: () => {},
  };
  const lifetime = new Operation(principal.userId, socket, true);
  const prepared = await pipeline.documents.prepare(
    `subscription($topic: String!, $from: Int) { ticks(topic: $topic, from: $from) { n kind ${options.fields ?? ''} } }`,
  );
  const stream = await pipeline.stream({
    schema,
    document: prepared.document!,
    variableValues: { topic, from: options.from ?? null },
    contextValue: pipeline.context(principal),
    lifetime,
    principal,
  });
  if (!(Symbol.asyncIterator in stream)) throw new Error(JSON.stringify(stream));
  let completed = false;
  let finished!: () => void;
  const over = new Promise<void>((resolve) => (finished = resolve));
  deliverDirectly(stream, {
    target: lifetime,
    payload: (result) => pipeline.subscriptions.sharedPayload(result) ?? Buffer.from(JSON.stringify(result)),
    finished: () => {
      completed = true;
      lifetime.complete();
      finished();
    },
  });
  everyone.push(lifetime);
  return {
    frames,
    lifetime,
    over,
    get completed() {
      return completed;
    },
    /** Lets every frame in flight leave. */
    release: () => {
      for (const written of inFlight.splice(0)) written();
    },
    shown: () => frames.map((f) => (f.kind ? `${f.kind}@${f.n}` : f.n)),
  };
}

const alice: Principal = { userId: 'alice', tenantId: 't1', roles: [Role.EDITOR] };
const bob: Principal = { userId: 'bob', tenantId: 't1', roles: [Role.EDITOR] };
const carol: Principal = { userId: 'carol', tenantId: 't1', roles: [Role.VIEWER] };
/**
 * The moment everything the test's last step set off has run. The bus, the streams, the pipeline
 * and the sockets here live in this process and move by promise continuations only, with no I/O or
 * timer among them, so a timer fires only after all of them. The tests wait on it where they assert
 * that something did not happen (nothing overtook an event, nothing came after the end, no listener
 * is left), which no event can show; what does happen they await with `until`.
 */
const settle = () => new Promise((resolve) => setTimeout(resolve, 5));
/** Awaits `condition` for 400 settles (2 s or more); a failure names it by its source text. */
async function until(condition: () => boolean) {
  for (let i = 0; i < 400; i++) {
    if (condition()) return;
    await settle();
  }
  if (!condition()) throw new Error(`not within 400 settles: ${condition}`);
}
let topics = 0;
/** A fresh topic whose stored events are 1…`head`. */
function freshTopic(head = 0): string {
  const topic = `topic-${++topics}`;
  stored.set(
    topic,
    Array.from({ length: head }, (_, i) => ({ n: i + 1 })),
  );
  return topic;
}
/** Commits (stores) and publishes events, as the outbox does. */
async function commit(topic: string, ...ticks: Tick[]) {
  stored.get(topic)!.push(...ticks);
  for (const tick of ticks) await bus.publish(topic, tick);
}
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

afterEach(async () => {
  maxBuffer = 1000;
  holdBack.clear();
  for (const release of held.values()) release();
  held.clear();
  // Every test ends its subscribers itself and checks it; this only keeps a failure from spreading.
  for (const lifetime of everyone.splice(0)) lifetime.end();
  await settle();
  expect(bus.listenerCount()).toBe(0);
  // Every share group was let go with its last subscriber.
  expect(pipeline.subscriptions.shareGroupCount()).toBe(0);
});

describe('the hand-over of live events to caught-up subscribers', () => {
  it('delivers every live event once and in order through the hand-over, executed once per share key', async () => {
    const topic = freshTopic(3);
    const subs = [await subscriber(topic, alice), await subscriber(topic, bob), await subscriber(topic, carol, { from: 1 })];
    await until(() => subs.every((s) => s.frames.length >= 1 && s.frames.at(-1)?.n === 3));
    // Alice and Bob hold one share group (same document, variables, tenant and roles), Carol another.
    expect(pipeline.subscriptions.shareGroupCount()).toBe(2);
    const before = { ...pipeline.subscriptions.results };
    const executions = pipeline.subscriptions.sharedExecutions;
    for (const n of range(4, 43)) await commit(topic, { n });
    await until(() => subs.every((s) => s.frames.at(-1)?.n === 43));
    expect(subs[0].shown()).toEqual(['ack@3', ...range(4, 43)]);
    expect(subs[1].shown()).toEqual(['ack@3', ...range(4, 43)]);
    // Carol resumed from 1: the stored 2 and 3 were replayed (pulled) before the live events.
    expect(subs[2].shown()).toEqual(['ack@1', 2, 3, ...range(4, 43)]);
    // Every live event reached every subscriber by the hand-over, none by a pull.
    expect(pipeline.subscriptions.results.handedOver - before.handedOver).toBe(3 * 40);
    expect(pipeline.subscriptions.results.pulled - before.pulled).toBe(0);
    // Alice and Bob share a key; Carol's roles differ: two executions per event.
    expect(pipeline.subscriptions.sharedExecutions - executions).toBe(2 * 40);
    for (const s of subs) s.lifetime.end();
    await Promise.all(subs.map((s) => s.over));
  });

  it('hands results on in event order when executions finish out of order', async () => {
    const topic = freshTopic();
    const subs = [await subscriber(topic, alice, { fields: 'late' }), await subscriber(topic, bob, { fields: 'late' })];
    await until(() => subs.every((s) => s.frames.length === 1));
    holdBack.add(1);
    holdBack.add(3);
    await commit(topic, { n: 1 }, { n: 2 }, { n: 3 }, { n: 4 });
    await settle();
    // 2 and 4 are executed, but 1 is not: nothing may overtake it.
    expect(subs.map((s) => s.frames.length)).toEqual([1, 1]);
    held.get(3)!();
    await settle();
    expect(subs.map((s) => s.frames.length)).toEqual([1, 1]);
    held.get(1)!();
    await until(() => subs.every((s) => s.frames.length === 5));
    for (const s of subs)
      expect(s.frames.map((f) => [f.n, f.late])).toEqual([
        [0, 0],
        [1, 1],
        [2, 2],
        [3, 3],
        [4, 4],
      ]);
    for (const s of subs) s.lifetime.end();
    await Promise.all(subs.map((s) => s.over));
  });

  it('gives way to a pull for a gap, reads it from the store, and takes live events by hand-over again', async () => {
    const topic = freshTopic(2);
    const sub = await subscriber(topic, alice);
    await until(() => sub.frames.length === 1);
    // 3 and 4 are committed but their publishes never arrive (lost while the bus was down); 5 arrives.
    stored.get(topic)!.push({ n: 3 }, { n: 4 });
    reads.length = 0;
    await commit(topic, { n: 5 });
    await until(() => sub.frames.length === 4);
    expect(reads).toEqual([2]);
    const before = { ...pipeline.subscriptions.results };
    await commit(topic, { n: 6 }, { n: 7 });
    await until(() => sub.frames.length === 6);
    expect(sub.shown()).toEqual(['ack@2', 3, 4, 5, 6, 7]);
    expect(pipeline.subscriptions.results.handedOver - before.handedOver).toBe(2);
    sub.lifetime.end();
    await sub.over;
  });

  it('delivers the final event by a pull and completes', async () => {
    const topic = freshTopic();
    const sub = await subscriber(topic, alice);
    await until(() => sub.frames.length === 1);
    await commit(topic, { n: 1 }, { n: 2, final: true }, { n: 3 });
    await sub.over;
    expect(sub.shown()).toEqual(['ack@0', 1, 2]);
    expect(sub.lifetime.ended).toBe(true);
  });

  it(`stops taking events while ${MAX_FRAMES_IN_FLIGHT} frames are in flight, buffers, and ends with RESYNC when the buffer overflows`, async () => {
    maxBuffer = 20;
    const topic = freshTopic();
    const slow = await subscriber(topic, alice, { hold: true });
    const fast = await subscriber(topic, bob);
    await until(() => slow.frames.length === 1 && fast.frames.length === 1);
    for (const n of range(1, MAX_FRAMES_IN_FLIGHT + 10)) await commit(topic, { n });
    await until(() => fast.frames.length === MAX_FRAMES_IN_FLIGHT + 11);
    // The slow subscriber's frames do not leave: it stopped at the limit, the rest wait in its buffer.
    expect(slow.frames.length).toBe(MAX_FRAMES_IN_FLIGHT);
    slow.release();
    await until(() => slow.frames.length === MAX_FRAMES_IN_FLIGHT + 11);
    expect(slow.shown()).toEqual(['ack@0', ...range(1, MAX_FRAMES_IN_FLIGHT + 10)]);
    // Held again, the buffer (20) overflows: RESYNC after the last event that left, then the end.
    for (const n of range(MAX_FRAMES_IN_FLIGHT + 11, 3 * MAX_FRAMES_IN_FLIGHT)) await commit(topic, { n });
    slow.release();
    await until(() => slow.completed);
    slow.release();
    const last = slow.frames.at(-1)!;
    expect(last.kind).toBe('resync');
    expect(slow.frames.slice(MAX_FRAMES_IN_FLIGHT + 11, -1).map((f) => f.n)).toEqual(range(MAX_FRAMES_IN_FLIGHT + 11, last.n));
    expect(fast.frames.at(-1)!.n).toBe(3 * MAX_FRAMES_IN_FLIGHT);
    fast.lifetime.end();
    await fast.over;
  });

  it('releases its listener when the subscription ends while parked, and hands nothing on after the end', async () => {
    const topic = freshTopic();
    const sub = await subscriber(topic, alice);
    await until(() => sub.frames.length === 1);
    expect(bus.listenerCount()).toBe(1);
    sub.lifetime.end();
    await sub.over;
    expect(bus.listenerCount()).toBe(0);
    await commit(topic, { n: 1 });
    await settle();
    expect(sub.frames.length).toBe(1);
  });
  it('pulls again when the stream wakes it before its PARKED has arrived', async () => {
    // A stream made for the purpose: its second pull parks and, before that PARKED reaches the
    // consumer, wakes it (as a gap right after parking does); its third pull gives an event.
    let writer!: DirectWriter;
    let pulls = 0;
    const frames: unknown[] = [];
    const lifetime = new Operation(
      'w',
      {
        write: (data, written) => {
          const frame = JSON.parse(Buffer.from(data).toString());
          if (frame.type === 'next') frames.push(frame.payload.data.n);
          written();
        },
        release: () => {},
      },
      true,
    );
    const done: IteratorReturnResult<undefined> = { done: true, value: undefined };
    const stream: DeliveryStream = {
      next: async () => done,
      return: async () => done,
      throw: async () => done,
      [Symbol.asyncIterator]: () => stream,
      handOver: (w) => {
        writer = w;
        return {
          pull: async () => {
            pulls++;
            if (pulls === 2) {
              writer.wake();
              return { done: false, value: PARKED };
            }
            return pulls <= 3 ? { done: false, value: { result: { data: { n: pulls } }, event: {} } } : new Promise(() => {});
          },
        };
      },
    };
    deliverDirectly(stream, { target: lifetime, payload: (result) => Buffer.from(JSON.stringify(result)), finished: () => {} });
    await until(() => frames.length === 2);
    expect(frames).toEqual([1, 3]);
    lifetime.end();
  });
});
