import { GraphQLObjectType, GraphQLSchema, GraphQLString, parse, type ExecutionResult } from 'graphql';
import { makeServer, MessageType } from 'graphql-ws';
import type { Delivery } from '../../src/graphql/pipeline';
import { deliverDirectly, MAX_FRAMES_IN_FLIGHT } from '../../src/http/direct-delivery';
import { Operation } from '../../src/http/ws-transport';

/*
 * The direct live path under graphql-ws's real protocol core (makeServer), over an in-memory
 * socket: what direct-delivery.ts relies on graphql-ws doing is checked here, so an upgrade of
 * graphql-ws that changes it fails this test rather than a client.
 */

const schema = new GraphQLSchema({
  query: new GraphQLObjectType({ name: 'Query', fields: { ok: { type: GraphQLString } } }),
  subscription: new GraphQLObjectType({ name: 'Subscription', fields: { tick: { type: GraphQLString } } }),
});

/** A source of deliveries the test pushes into: an Error makes the pull throw, `null` ends the stream. */
function source() {
  const queue: Array<ExecutionResult | Error | null> = [];
  let wake: (() => void) | undefined;
  let returned = false;
  async function* run(): AsyncGenerator<Delivery> {
    try {
      for (;;) {
        while (queue.length === 0) await new Promise<void>((resolve) => (wake = resolve));
        const item = queue.shift()!;
        if (item === null) return;
        if (item instanceof Error) throw item;
        yield { result: item, event: {} };
      }
    } finally {
      returned = true;
    }
  }
  return {
    stream: run(),
    push(item: ExecutionResult | Error | null) {
      queue.push(item);
      wake?.();
    },
    get returned() {
      return returned;
    },
  };
}

const tick = (n: number): ExecutionResult => ({ data: { tick: String(n) } });
const settle = () => new Promise((resolve) => setTimeout(resolve, 5));

/** One acknowledged connection of graphql-ws's core whose `subscribe` delivers directly; `hold` keeps frames "in flight". */
async function connection(options: { hold?: boolean } = {}) {
  const frames: Array<{ id?: string; type: string; payload?: unknown }> = [];
  const held: Array<() => void> = [];
  const sources = new Map<string, ReturnType<typeof source>>();
  const operations = new Map<string, Operation>();
  let onMessage!: (data: string) => Promise<void>;
  // The operation's id reaches `subscribe` through the execution args' rootValue.
  const protocol = makeServer({
    schema,
    onSubscribe: async (_ctx, id, payload) => {
      operations.set(id, new Operation(id, () => {}));
      return { schema, document: parse(payload.query), operationName: undefined, rootValue: id };
    },
    subscribe: (args) => {
      const id = String(args.rootValue);
      const src = source();
      sources.set(id, src);
      return deliverDirectly(src.stream, {
        id,
        write: (data, written) => {
          frames.push(JSON.parse(data));
          if (options.hold) held.push(written);
          else written();
        },
        lifetime: operations.get(id)!,
        payload: (result) => JSON.stringify(result),
      });
    },
  });
  const closed = protocol.opened(
    {
      protocol: 'graphql-transport-ws',
      send: (data) => {
        frames.push(JSON.parse(data));
      },
      close: () => {},
      onMessage: (cb) => (onMessage = cb),
    },
    {},
  );
  await onMessage(JSON.stringify({ type: MessageType.ConnectionInit }));
  const subscribe = (id: string) => {
    const handled = onMessage(JSON.stringify({ id, type: MessageType.Subscribe, payload: { query: 'subscription { tick }' } }));
    return handled;
  };
  const c = { frames, held, sources, operations, subscribe, send: (message: object) => onMessage(JSON.stringify(message)) };
  open.push(() => closed(1000, ''));
  return c;
}

/** Closes each test's connection, as its socket's close would: graphql-ws returns what still runs. */
const open: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((close) => close()));
});

describe('direct delivery under graphql-ws', () => {
  it('writes each result as a next frame with the id spliced in, then graphql-ws completes once the stream ends', async () => {
    const c = await connection();
    const handled = c.subscribe('a"b');
    await settle();
    const src = c.sources.get('a"b')!;
    src.push(tick(1));
    src.push(tick(2));
    await settle();
    // The stream ends by itself (a finished job's last event): graphql-ws sends complete after every frame.
    src.push(null);
    await handled;
    expect(c.frames).toEqual([
      { type: MessageType.ConnectionAck },
      { id: 'a"b', type: MessageType.Next, payload: { data: { tick: '1' } } },
      { id: 'a"b', type: MessageType.Next, payload: { data: { tick: '2' } } },
      { id: 'a"b', type: MessageType.Complete },
    ]);
    expect(src.returned).toBe(true);
  });

  it("ends the operation on the client's complete, writes nothing more and sends no complete back", async () => {
    const c = await connection();
    const handled = c.subscribe('1');
    await settle();
    const src = c.sources.get('1')!;
    src.push(tick(1));
    await settle();
    await c.send({ id: '1', type: MessageType.Complete });
    await handled;
    expect(c.operations.get('1')!.ended).toBe(true);
    src.push(tick(2));
    await settle();
    expect(c.frames.map((f) => f.type)).toEqual([MessageType.ConnectionAck, MessageType.Next]);
    // The id is free again in graphql-ws's bookkeeping: a new operation under it runs.
    const again = c.subscribe('1');
    await settle();
    c.sources.get('1')!.push(tick(3));
    await settle();
    expect(c.frames.at(-1)).toEqual({ id: '1', type: MessageType.Next, payload: { data: { tick: '3' } } });
    await c.send({ id: '1', type: MessageType.Complete });
    await again;
  });

  it('hands a stream that fails to graphql-ws, which sends error', async () => {
    const c = await connection();
    const handled = c.subscribe('e');
    await settle();
    c.sources.get('e')!.push(new Error('the source failed'));
    await handled;
    expect(c.frames.at(-1)).toEqual({ id: 'e', type: MessageType.Error, payload: [{ message: 'the source failed' }] });
  });

  it('ends every operation when the socket closes', async () => {
    const c = await connection();
    const handled = [c.subscribe('x'), c.subscribe('y')];
    await settle();
    await open.pop()!();
    await Promise.all(handled);
    expect([...c.operations.values()].map((operation) => operation.ended)).toEqual([true, true]);
  });

  it(`stops taking results while ${MAX_FRAMES_IN_FLIGHT} frames have not left, and goes on as they leave`, async () => {
    const c = await connection({ hold: true });
    const handled = c.subscribe('slow');
    await settle();
    const src = c.sources.get('slow')!;
    for (let n = 1; n <= MAX_FRAMES_IN_FLIGHT + 10; n++) src.push(tick(n));
    await settle();
    expect(c.frames.filter((f) => f.type === MessageType.Next)).toHaveLength(MAX_FRAMES_IN_FLIGHT);
    for (const written of c.held.splice(0, 10)) written();
    await settle();
    expect(c.frames.filter((f) => f.type === MessageType.Next)).toHaveLength(MAX_FRAMES_IN_FLIGHT + 10);
    // Ending while it waits for frames to leave stops it at once.
    for (let n = 0; n < 10; n++) src.push(tick(0));
    await settle();
    await c.send({ id: 'slow', type: MessageType.Complete });
    await handled;
    await settle();
    expect(src.returned).toBe(true);
  });
});
