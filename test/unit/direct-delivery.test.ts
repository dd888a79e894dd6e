import type { ExecutionResult } from 'graphql';
import { MessageType } from 'graphql-ws';
import type { Delivery } from '../../src/graphql/shared-subscriptions';
import { deliverDirectly, MAX_FRAMES_IN_FLIGHT } from '../../src/http/direct-delivery';
import { Operation } from '../../src/http/ws-transport';

/*
 * The direct live path on the transport's Operation, over an in-memory socket: frames, the end of
 * a stream (complete), a failure (error), the client's complete, the socket's close, and frames in
 * flight. The e2e protocol tests run the same through a real server and graphql-ws clients.
 */

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
/**
 * The moment everything the test's last step set off has run: the source, the delivery and the
 * socket here move by promise continuations only, with no I/O or timer among them, so a timer fires
 * only after all of them. The tests wait on it because they assert what was written in full (these
 * frames and nothing more, nothing after the end), which no event can show.
 */
const settle = () => new Promise((resolve) => setTimeout(resolve, 5));

/** One socket's operations delivering directly; `hold` keeps frames "in flight". */
function connection(options: { hold?: boolean } = {}) {
  const frames: Array<{ id?: string; type: string; payload?: unknown }> = [];
  const held: Array<() => void> = [];
  const socket = {
    write: (data: string | Uint8Array, written: () => void) => {
      frames.push(JSON.parse(Buffer.from(data).toString()));
      if (options.hold) held.push(written);
      else written();
    },
    release: () => released++,
  };
  let released = 0;
  const subscribe = (id: string) => {
    const operation = new Operation(id, socket, true);
    const src = source();
    deliverDirectly(src.stream, {
      target: operation,
      payload: (result) => Buffer.from(JSON.stringify(result)),
      finished: (failure) => (failure ? operation.error([{ message: String((failure.error as Error).message) }]) : operation.complete()),
    });
    return { operation, src };
  };
  return {
    frames,
    held,
    subscribe,
    get released() {
      return released;
    },
  };
}

describe('direct delivery on an Operation', () => {
  it('writes each result as a next frame with the id spliced in, then complete once the stream ends', async () => {
    const c = connection();
    const { operation, src } = c.subscribe('a"b');
    src.push(tick(1));
    src.push(tick(2));
    await settle();
    // The stream ends by itself (a finished job's last event): complete goes out after every frame.
    src.push(null);
    await settle();
    expect(c.frames).toEqual([
      { id: 'a"b', type: MessageType.Next, payload: { data: { tick: '1' } } },
      { id: 'a"b', type: MessageType.Next, payload: { data: { tick: '2' } } },
      { id: 'a"b', type: MessageType.Complete },
    ]);
    expect(src.returned).toBe(true);
    expect(operation.ended).toBe(true);
    expect(c.released).toBe(1);
  });

  it('splices in any id as its JSON: plain, beyond ASCII, or with characters JSON escapes', async () => {
    const ids = ['1', 'é✓𝄞', 'a\\b\n', '\ud800'];
    const c = connection();
    const subscribed = ids.map((id) => c.subscribe(id).src);
    for (const src of subscribed) src.push(tick(7));
    await settle();
    expect(c.frames).toEqual(ids.map((id) => ({ id, type: MessageType.Next, payload: { data: { tick: '7' } } })));
  });

  it("ends the operation on the client's complete, writes nothing more and sends no complete back", async () => {
    const c = connection();
    const { operation, src } = c.subscribe('1');
    src.push(tick(1));
    await settle();
    operation.completedByClient();
    expect(operation.ended).toBe(true);
    src.push(tick(2));
    await settle();
    expect(c.frames.map((f) => f.type)).toEqual([MessageType.Next]);
    expect(src.returned).toBe(true);
    expect(c.released).toBe(1);
  });

  it('ends a stream that fails with an error frame', async () => {
    const c = connection();
    const { operation, src } = c.subscribe('e');
    src.push(new Error('the source failed'));
    await settle();
    expect(c.frames).toEqual([{ id: 'e', type: MessageType.Error, payload: [{ message: 'the source failed' }] }]);
    expect(operation.ended).toBe(true);
    expect(src.returned).toBe(true);
  });

  it('ends quietly when the socket closes', async () => {
    const c = connection();
    const subscribed = [c.subscribe('x'), c.subscribe('y')];
    await settle();
    for (const { operation } of subscribed) operation.cancel();
    // A pull under way stops when it returns (the pipeline's stream returns its source at the end
    // of the lifetime; this bare source gives one more item instead).
    for (const { src } of subscribed) src.push(tick(1));
    await settle();
    expect(subscribed.map(({ operation, src }) => [operation.ended, src.returned])).toEqual([
      [true, true],
      [true, true],
    ]);
    expect(c.frames).toEqual([]);
    expect(c.released).toBe(2);
  });

  it('drops the frames of a query the client completed, and releases its slot only when it finishes', async () => {
    const frames: unknown[] = [];
    let released = 0;
    const socket = {
      write: (data: string | Uint8Array, written: () => void) => {
        frames.push(JSON.parse(Buffer.from(data).toString()));
        written();
      },
      release: () => released++,
    };
    const operation = new Operation('q', socket, true);
    operation.stoppable = false;
    operation.completedByClient();
    expect(operation.ended).toBe(false);
    expect(released).toBe(0);
    operation.next(Buffer.from('{"data":{}}'));
    operation.complete();
    expect(operation.ended).toBe(true);
    expect(released).toBe(1);
    expect(frames).toEqual([]);
  });

  it(`stops taking results while ${MAX_FRAMES_IN_FLIGHT} frames have not left, and goes on as they leave`, async () => {
    const c = connection({ hold: true });
    const { operation, src } = c.subscribe('slow');
    for (let n = 1; n <= MAX_FRAMES_IN_FLIGHT + 10; n++) src.push(tick(n));
    await settle();
    expect(c.frames.filter((f) => f.type === MessageType.Next)).toHaveLength(MAX_FRAMES_IN_FLIGHT);
    for (const written of c.held.splice(0, 10)) written();
    await settle();
    expect(c.frames.filter((f) => f.type === MessageType.Next)).toHaveLength(MAX_FRAMES_IN_FLIGHT + 10);
    // Ending while it waits for frames to leave stops it at once.
    for (let n = 0; n < 10; n++) src.push(tick(0));
    await settle();
    operation.completedByClient();
    await settle();
    expect(src.returned).toBe(true);
  });
});
