import { createServer, connect, type Server, type Socket } from 'node:net';
import { registerFixture } from './fixtures';

/**
 * A TCP proxy in front of a server, on a free 127.0.0.1 port, that a test can cut: `drop()`
 * destroys every connection through it at once (an abrupt network failure: no close frame, no
 * `complete`, the server sees its socket reset) and refuses new ones until `restore()`.
 */
export interface CuttableProxy {
  /** The server's URL with the proxy's host and port. */
  url: string;
  drop(): void;
  restore(): void;
  /** Connections made through the proxy so far. */
  readonly connections: number;
  stop(): Promise<void>;
}

export async function startProxy(targetUrl: string): Promise<CuttableProxy> {
  const target = new URL(targetUrl);
  const open = new Set<Socket>();
  let down = false;
  let connections = 0;
  const server: Server = createServer((client) => {
    if (down) {
      client.destroy();
      return;
    }
    connections++;
    const upstream = connect(Number(target.port), target.hostname);
    for (const socket of [client, upstream]) {
      open.add(socket);
      socket.on('close', () => open.delete(socket));
      // A reset on either side is what a drop does; the other side is destroyed with it.
      socket.on('error', () => {});
    }
    client.pipe(upstream).pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('the proxy has no port');
  const url = new URL(targetUrl);
  url.port = String(address.port);
  const drop = () => {
    down = true;
    for (const socket of [...open]) socket.resetAndDestroy();
  };
  const stop = registerFixture(`cuttable proxy ${url}`, async () => {
    drop();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return {
    url: url.toString(),
    drop,
    restore: () => {
      down = false;
    },
    get connections() {
      return connections;
    },
    stop,
  };
}

/**
 * What the graphql-sse client leaves out of SSE: it reads each message's `event` and `data` but
 * not its `id`, and so never sends `Last-Event-ID`. This fetch does what an EventSource does: it
 * notes the `id` of every message passing through and sends the last one with the next request.
 * Give it to graphql-sse's `createClient` as `fetchFn` (one per subscription).
 */
export function lastEventIdFetch(): { fetchFn: typeof fetch; lastEventId(): string | undefined } {
  let lastEventId: string | undefined;
  const fetchFn: typeof fetch = async (input, init) => {
    const headers = new Headers(init?.headers);
    if (lastEventId !== undefined) headers.set('last-event-id', lastEventId);
    const response = await fetch(input, { ...init, headers });
    if (!response.body) return response;
    const decoder = new TextDecoder();
    let pending = '';
    const watch = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        pending += decoder.decode(chunk, { stream: true });
        const lines = pending.split(/\r\n|\r|\n/);
        pending = lines.pop() ?? '';
        // An id counts once its message is complete (the blank line), as EventSource reads it.
        let id: string | undefined;
        for (const line of lines) {
          if (line.startsWith('id:')) id = line.slice(line.startsWith('id: ') ? 4 : 3);
          else if (line === '' && id !== undefined) {
            lastEventId = id;
            id = undefined;
          }
        }
        if (id !== undefined) pending = `id: ${id}\n${pending}`;
        controller.enqueue(chunk);
      },
    });
    return new Response(response.body.pipeThrough(watch), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
  return { fetchFn, lastEventId: () => lastEventId };
}

/** One message of an event stream as read raw: its fields, or a comment. */
export interface RawMessage {
  id?: string;
  event?: string;
  data?: string;
  retry?: string;
  comment?: boolean;
}

/** Reads a raw event stream response until it ends or `until` says so; every message and comment in order. */
export async function readStream(response: Response, until: (messages: RawMessage[]) => boolean = () => false): Promise<RawMessage[]> {
  const messages: RawMessage[] = [];
  if (!response.body) return messages;
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let pending = '';
  let current: RawMessage = {};
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return messages;
      pending += decoder.decode(value, { stream: true });
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) {
        if (line === '') {
          if (Object.keys(current).length) messages.push(current);
          current = {};
        } else if (line.startsWith(':')) current.comment = true;
        else {
          const colon = line.indexOf(':');
          const field = line.slice(0, colon);
          const value = line.slice(colon + (line[colon + 1] === ' ' ? 2 : 1));
          if (field === 'id' || field === 'event' || field === 'data' || field === 'retry') current[field] = value;
        }
      }
      if (until(messages)) return messages;
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}
