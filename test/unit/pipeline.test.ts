import { GraphQLError, GraphQLInt, GraphQLObjectType, GraphQLSchema, GraphQLString, type ExecutionResult } from 'graphql';
import { Role, type Principal } from '../../src/auth/principal';
import { loadConfig } from '../../src/config';
import type { Context } from '../../src/context';
import { OperationPipeline } from '../../src/graphql/pipeline';
import { Operation } from '../../src/http/ws-transport';
import type { Store } from '../../src/infra/dynamo/store';
import { waitFor } from '../support/wait';

/*
 * The pipeline's shared per-event execution, on a schema made for the purpose: its payload field
 * `viewer` tries to depend on the individual user, which sharing must make impossible.
 */

/** A topic that hands every listener the same event object, as the event bus does. */
function topic() {
  const listeners = new Set<(event: object) => void>();
  let closed = 0;
  return {
    publish: (event: object) => listeners.forEach((listener) => listener(event)),
    get listeners() {
      return listeners.size;
    },
    get closed() {
      return closed;
    },
    /** Like a bus listener: `return` stops listening at once, even while a `next` waits. */
    listen(): AsyncIterableIterator<object> {
      const queue: object[] = [];
      let waiting: ((result: IteratorResult<object>) => void) | undefined;
      const listener = (event: object) => {
        if (waiting) waiting({ done: false, value: event });
        else queue.push(event);
        waiting = undefined;
      };
      listeners.add(listener);
      const iterator: AsyncIterableIterator<object> = {
        next: () =>
          queue.length ? Promise.resolve({ done: false, value: queue.shift()! }) : new Promise((resolve) => (waiting = resolve)),
        async return() {
          if (listeners.delete(listener)) closed++;
          waiting?.({ done: true, value: undefined });
          return { done: true, value: undefined };
        },
        [Symbol.asyncIterator]: () => iterator,
      };
      return iterator;
    },
  };
}

const ticks = topic();
const Tick = new GraphQLObjectType<{ n: number }, Context>({
  name: 'Tick',
  fields: {
    n: { type: GraphQLInt },
    viewer: { type: GraphQLString, resolve: (_tick, _args, ctx) => ctx.principal?.userId || null },
    tenant: { type: GraphQLString, resolve: (_tick, _args, ctx) => ctx.principal?.tenantId ?? null },
  },
});
const schema = new GraphQLSchema({
  query: new GraphQLObjectType({ name: 'Query', fields: { ok: { type: GraphQLString } } }),
  subscription: new GraphQLObjectType({
    name: 'Subscription',
    fields: { ticks: { type: Tick, subscribe: () => ticks.listen(), resolve: (tick) => tick } },
  }),
});

describe('the operation pipeline', () => {
  const config = loadConfig({
    NODE_ENV: 'test',
    AUTH_JWT_SECRET: 'unit-secret-0123456789abcdef0123456789',
    CURSOR_SECRET: 'c',
    DYNAMODB_ENDPOINT: 'http://127.0.0.1:9',
  });
  const pipeline = new OperationPipeline({ config, schema, store: {} as Store, eventRetentionDays: 1 });

  async function subscribe(principal: Principal) {
    const prepared = await pipeline.documents.prepare('subscription { ticks { n viewer tenant } }');
    const lifetime = new Operation(principal.userId, { write: (_data, written) => written(), release: () => {} }, true);
    const deliveries = await pipeline.stream({
      schema,
      document: prepared.document!,
      contextValue: pipeline.context(principal),
      lifetime,
      principal,
    });
    if (!(Symbol.asyncIterator in deliveries)) throw new Error(JSON.stringify(deliveries));
    // Each result, as a transport that does not label messages with positions takes them.
    const stream = (async function* results(): AsyncGenerator<ExecutionResult> {
      for await (const { result } of deliveries) yield result;
    })();
    return { lifetime, stream };
  }

  it('executes each event once per share key, without the individual user, and stops at the end of the lifetime', async () => {
    const alice = await subscribe({ userId: 'alice', tenantId: 't1', roles: [Role.EDITOR] });
    const bob = await subscribe({ userId: 'bob', tenantId: 't1', roles: [Role.EDITOR] });
    const carol = await subscribe({ userId: 'carol', tenantId: 't1', roles: [Role.VIEWER] });
    const nexts = [alice, bob, carol].map(({ stream }) => stream.next());
    // The sources start listening on their first pull.
    await waitFor(async () => ticks.listeners >= 3, 'the three sources listening', { ms: 5000, everyMs: 1 });
    const before = pipeline.subscriptions.sharedExecutions;
    ticks.publish({ n: 1 });
    const results = await Promise.all(nexts);
    expect(results.map((r) => r.value.data.ticks)).toEqual([
      { n: 1, viewer: null, tenant: 't1' },
      { n: 1, viewer: null, tenant: 't1' },
      { n: 1, viewer: null, tenant: 't1' },
    ]);
    // Alice and Bob share one execution; Carol's roles differ, so hers is another.
    expect(pipeline.subscriptions.sharedExecutions - before).toBe(2);
    expect(results[0].value).toBe(results[1].value);
    expect(results[2].value).not.toBe(results[0].value);
    // Its `next` payload is serialized once per share key too: Alice and Bob get the same bytes.
    const serialized = pipeline.subscriptions.sharedSerializations;
    const payloads = results.map((r) => pipeline.subscriptions.sharedPayload(r.value));
    expect(pipeline.subscriptions.sharedSerializations - serialized).toBe(2);
    expect(payloads[0]).toBe(payloads[1]);
    expect(JSON.parse(payloads[0]!.toString())).toEqual(results[0].value);
    expect(pipeline.subscriptions.sharedPayload({ data: null, errors: [new GraphQLError('x')] })).toBeUndefined();

    alice.lifetime.end();
    expect(ticks.closed).toBe(1);
    expect(await alice.stream.next()).toEqual({ done: true, value: undefined });
    for (const { lifetime } of [bob, carol]) lifetime.end();
    expect(ticks.closed).toBe(3);
  });

  it('caches only valid documents and reports parse and validation failures with their codes', async () => {
    expect((await pipeline.documents.prepare('subscription {')).errors?.[0].extensions.code).toBe('GRAPHQL_PARSE_FAILED');
    expect((await pipeline.documents.prepare('{ nope }')).errors?.[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
    const first = await pipeline.documents.prepare('{ ok }');
    expect((await pipeline.documents.prepare('{ ok }')).document).toBe(first.document);
    expect((await pipeline.documents.prepare('{ nope }')).document).toBeUndefined();
  });
});
