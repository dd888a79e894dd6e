import { createClient, type Client, type ClientOptions } from 'graphql-ws';
import WebSocket from 'ws';
import { fixture } from './fixtures';

/**
 * The least any wait below allows, whatever a test asks: waits are upper bounds that return as soon
 * as what they wait for is there, and on a busy 2-core machine a message or a release that takes
 * milliseconds when idle can take seconds. No test depends on a wait running out.
 */
export const WAIT_FLOOR_MS = 20_000;

/**
 * A graphql-ws client authenticated with `token` in connection_init (no retries unless `options`
 * say otherwise), disposed by the fixture registry after the test that made it (a test may dispose
 * it earlier to see what closing does).
 */
export function wsClient(httpUrl: string, token: string, options: Partial<ClientOptions> = {}): Client {
  const client = createClient({
    url: httpUrl.replace(/^http/, 'ws'),
    webSocketImpl: WebSocket,
    connectionParams: { authorization: `Bearer ${token}` },
    retryAttempts: 0,
    lazy: true,
    ...options,
  });
  return fixture(`graphql-ws client of ${httpUrl}`, client, (c) => c.dispose());
}

export interface Subscription<T> {
  /**
   * The subscription's first message: the server's acknowledgement (SUBSCRIBED, or
   * subscription.started), with the position the subscription starts from. It is not in `received`.
   */
  ack: Promise<T>;
  /** Every `data` payload received so far after the acknowledgement. */
  received: T[];
  errors: unknown[];
  /** Resolves once `count` payloads have arrived (or rejects after `timeoutMs`). */
  waitFor(count: number, timeoutMs?: number): Promise<T[]>;
  done: Promise<void>;
  stop(): void;
}

/** Subscribes and collects payloads (the first root field of each `data`), the acknowledgement apart. */
export function subscribe<T = any>(client: Client, query: string, variables: Record<string, unknown> = {}): Subscription<T> {
  const received: T[] = [];
  // Only a subscription is acknowledged; a query or mutation over the socket has one result.
  let acknowledged: ((ack: T) => void) | undefined;
  const ack = new Promise<T>((resolve) => (acknowledged = /^\s*subscription\b/.test(query) ? resolve : undefined));
  const errors: unknown[] = [];
  const waiters: Array<{ count: number; resolve: () => void }> = [];
  let finish!: () => void;
  const done = new Promise<void>((r) => (finish = r));
  const notify = () => {
    for (const w of [...waiters]) if (received.length >= w.count) w.resolve();
  };
  const stop = client.subscribe<Record<string, T>>(
    { query, variables },
    {
      next: (result) => {
        if (result.errors) errors.push(...result.errors);
        if (result.data) {
          const payload = Object.values(result.data)[0] as T;
          if (acknowledged) {
            acknowledged(payload);
            acknowledged = undefined;
          } else {
            received.push(payload);
          }
        }
        notify();
      },
      error: (error) => {
        errors.push(error);
        finish();
      },
      complete: () => finish(),
    },
  );
  return {
    ack,
    received,
    errors,
    done,
    stop,
    waitFor(count, timeoutMs = 15_000) {
      timeoutMs = Math.max(timeoutMs, WAIT_FLOOR_MS);
      if (received.length >= count) return Promise.resolve(received);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () =>
            reject(
              new Error(
                `got ${received.length} of ${count} events: ${JSON.stringify(received.slice(-3))} errors: ${JSON.stringify(errors)}`,
              ),
            ),
          timeoutMs,
        );
        waiters.push({
          count,
          resolve: () => {
            clearTimeout(timer);
            resolve(received);
          },
        });
      });
    },
  };
}

export const JOB_PROGRESS = `subscription($jobId: ID!, $afterSeq: Int) {
  jobProgress(jobId: $jobId, afterSeq: $afterSeq) { eventId seq prevSeq position type actor job { status currentStep progress completedSteps failedSteps } step { name attempt status progress } resumeAfterSeq }
}`;

export interface RawSocket {
  ws: WebSocket;
  /** Messages received and not yet taken by `next`. */
  messages: any[];
  /** Every message received, in order, with the time it arrived. */
  log: Array<{ at: number; message: any; binary: boolean }>;
  closed: Promise<{ code: number; reason: string }>;
  send(message: object | string): void;
  /** Takes the first unread message of `type` (and `id`, when given), waiting up to `timeoutMs`. */
  next(type: string, timeoutMs?: number, id?: string): Promise<any>;
}

/** A bare graphql-transport-ws socket, to speak the protocol exactly (or wrongly) on purpose. */
export async function rawSocket(url: string, options: WebSocket.ClientOptions = {}): Promise<RawSocket> {
  const ws = new WebSocket(url.replace(/^http/, 'ws'), 'graphql-transport-ws', options);
  const messages: any[] = [];
  const log: Array<{ at: number; message: any; binary: boolean }> = [];
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() })),
  );
  // Whether each frame came as binary is kept: every graphql-transport-ws message must be text
  // (a browser hands a binary frame to graphql-ws as a Blob, which it cannot parse).
  ws.on('message', (data, isBinary) => {
    const message = JSON.parse(data.toString());
    messages.push(message);
    log.push({ at: Date.now(), message, binary: isBinary });
  });
  ws.on('error', () => {});
  // Closed by the fixture registry after the file; terminated, since a test that closes it on
  // purpose has had its close handshake already.
  fixture(`raw socket to ${url}`, ws, (socket) => socket.terminate());
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  return {
    ws,
    messages,
    log,
    closed,
    send: (message) => ws.send(typeof message === 'string' ? message : JSON.stringify(message)),
    async next(type, timeoutMs = 5000, id) {
      timeoutMs = Math.max(timeoutMs, WAIT_FLOOR_MS);
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = messages.find((m) => m.type === type && (id === undefined || m.id === id));
        if (found) {
          messages.splice(messages.indexOf(found), 1);
          return found;
        }
        if (Date.now() > deadline)
          throw new Error(`no ${type} message${id ? ` for ${id}` : ''}; got ${JSON.stringify(messages).slice(0, 500)}`);
        await new Promise((r) => setTimeout(r, 10));
      }
    },
  };
}

/** Opens a raw socket and completes connection_init with `token`. */
export async function rawConnection(url: string, token: string, options: WebSocket.ClientOptions = {}): Promise<RawSocket> {
  const socket = await rawSocket(url, options);
  socket.send({ type: 'connection_init', payload: { authorization: `Bearer ${token}` } });
  await socket.next('connection_ack');
  return socket;
}

/**
 * Polls `read` until `accept` holds, or fails with the last value after `timeoutMs`; `everyMs`
 * apart (a read that costs a round trip, a browser page's, say, is better polled less often).
 */
export async function eventually<T>(read: () => T | Promise<T>, accept: (value: T) => boolean, timeoutMs = 3000, everyMs = 10): Promise<T> {
  timeoutMs = Math.max(timeoutMs, WAIT_FLOOR_MS);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (accept(value)) return value;
    if (Date.now() > deadline) throw new Error(`still ${JSON.stringify(value)} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/**
 * A condition that holds once `work` has settled (fulfilled or rejected): for a loop that runs
 * beside `work` for as long as it does, whatever its outcome, so that the loop never outlives it.
 */
export function settledOf(work: Promise<unknown>): () => boolean {
  let settled = false;
  const done = () => {
    settled = true;
  };
  work.then(done, done);
  return () => settled;
}

/** The value of one series (a name, with its labels as Prometheus prints them) on the server's /metrics page; NaN when it is missing. */
export async function metricValue(httpUrl: string, name: string): Promise<number> {
  const text = await (await fetch(httpUrl.replace(/\/graphql$/, '/metrics'))).text();
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const match = new RegExp(`^${escaped} (\\S+)$`, 'm').exec(text);
  return match ? Number(match[1]) : NaN;
}
