import WebSocket from 'ws';

/**
 * The client side of the fan-out stress check (bench/fanout-stress.ts at 10,000 sockets,
 * test/e2e/fanout-stress.test.ts at 2,000): n graphql-transport-ws sockets, each with one
 * `jobProgress` subscription to one job, and per socket the exact sequence of what it received.
 * Each round one event is triggered; the round passes once every socket that reads has that
 * event, in order after the one before, within `lateMs` of the trigger's answer (which comes after
 * the commit; the round's figure is timed from the trigger's start). Some sockets stop reading (`ws.pause()`) for some rounds: once they read again,
 * each must have every event in order, or have been told to resume (RESYNC, then `complete`), or
 * have been closed by the server with a close code the slow-client policy documents. With
 * `resubscribe`, a socket told to resume does what a client does: it subscribes again after the
 * RESYNC's position, and from then on reads like the others, so the events around its RESYNC are
 * checked too. Anything else (a missing, repeated or out-of-order event, an unexpected error or
 * close, an event later than the bound) is a failure and is reported with the socket it happened to.
 */
export interface StressOptions {
  /** The server's GraphQL URL (http://…/graphql). */
  url: string;
  token: string;
  jobId: string;
  n: number;
  rounds: number;
  /** Triggers one event of the job; resolves with its seq once the server answered (after the commit). */
  trigger(round: number): Promise<number>;
  /**
   * Sockets that stop reading (every `pausedEvery`th socket; 0: none), from round `pauseFrom` to
   * `pauseUntil` (exclusive), or, when `pauseUntil` is a function, until the round before which it
   * first says true (asked before each round while they are paused); the rounds then end
   * `roundsAfterResume` rounds later (5 by default), or at `rounds` at the latest.
   */
  pausedEvery?: number;
  pauseFrom?: number;
  pauseUntil?: number | (() => Promise<boolean>);
  roundsAfterResume?: number;
  /** The fields of `jobProgress` the paused sockets select (`seq type` by default, as the others). */
  pausedSelection?: string;
  /** A socket told to resume (RESYNC, complete) subscribes again after the RESYNC's position. */
  resubscribe?: boolean;
  /** The bound on the trigger's answer (which follows the commit) → the event on the last reading socket. */
  lateMs: number;
  /** Sockets opened at once at most. */
  window?: number;
  /** Close codes a slow reader may be closed with (the server's documented slow-client policy). */
  allowedSlowCloses?: number[];
  log?(line: string): void;
}

export interface StressResult {
  /** Per round: the event's seq, and ms from the trigger's start to the last reading socket's receipt. */
  rounds: Array<{ seq: number; lastMs: number; missingAtBound: number }>;
  /** Every failure found, at most 20 spelled out, and how many there were. */
  failures: string[];
  failureCount: number;
  /**
   * What happened to the readers that paused: caught up, resynced (with `resubscribe`: resynced,
   * subscribed again and caught up), or closed (by code).
   */
  paused: { caughtUp: number; resynced: number; closed: Record<string, number> };
  /** The round before which the paused sockets read again. */
  resumedAt?: number;
  /** Client CPU over the rounds as a share of their wall time (1 = one core busy). */
  clientCpu: number;
}

interface Subscriber {
  index: number;
  ws: WebSocket;
  paused: boolean;
  /** The last seq received in order; the SUBSCRIBED acknowledgement's seq first. */
  last: number;
  acknowledged: boolean;
  /** The id of the socket's running subscription ('1', then 'r1', 'r2' … after each RESYNC with `resubscribe`). */
  operation: string;
  /** The resubscription's acknowledgement has not arrived yet. */
  resubscribing: boolean;
  resyncs: number;
  resyncedAt?: number;
  completed: boolean;
  closeCode?: number;
  /** When the last in-order event arrived (performance.now()). */
  lastAt: number;
}

const subscribeMessage = (jobId: string, selection = 'seq type', id = '1', afterSeq?: number) =>
  JSON.stringify({
    id,
    type: 'subscribe',
    payload: {
      query: `subscription { jobProgress(jobId: "${jobId}"${afterSeq === undefined ? '' : `, afterSeq: ${afterSeq}`}) { ${selection} } }`,
    },
  });

/** Opens the sockets, runs the rounds and checks every socket's sequence (see StressOptions). */
export async function stressSubscribers(options: StressOptions): Promise<StressResult> {
  const { n, lateMs } = options;
  const log = options.log ?? (() => {});
  const failures: string[] = [];
  let failureCount = 0;
  const fail = (text: string) => {
    failureCount++;
    if (failures.length < 20) failures.push(text);
  };
  const init = JSON.stringify({ type: 'connection_init', payload: { authorization: `Bearer ${options.token}` } });
  const subscribers: Subscriber[] = [];
  const selection = (s: Subscriber) => (s.paused ? (options.pausedSelection ?? 'seq type') : 'seq type');
  /** Called after every message, so a round's wait notices at once when it is complete. */
  let onProgress: (() => void) | undefined;

  const open = (index: number) =>
    new Promise<void>((resolve, reject) => {
      const ws = new WebSocket(options.url.replace(/^http/, 'ws'), 'graphql-transport-ws');
      const s: Subscriber = {
        index,
        ws,
        paused: (options.pausedEvery ?? 0) > 0 && index % options.pausedEvery! === 0,
        last: -1,
        acknowledged: false,
        operation: '1',
        resubscribing: false,
        resyncs: 0,
        completed: false,
        lastAt: 0,
      };
      subscribers.push(s);
      ws.on('error', (error) => {
        if (!s.acknowledged) reject(error);
        else fail(`socket ${index}: error ${String(error)}`);
      });
      ws.on('open', () => ws.send(init));
      ws.on('close', (code) => {
        s.closeCode = code;
        if (!s.acknowledged) reject(new Error(`socket ${index} closed with ${code} before its subscription was acknowledged`));
        onProgress?.();
      });
      ws.on('message', (data) => {
        const message = JSON.parse(data.toString());
        if (message.type === 'connection_ack') {
          ws.send(subscribeMessage(options.jobId, selection(s)));
          return;
        }
        if (message.id !== undefined && message.id !== s.operation) {
          fail(`socket ${index}: a message of operation ${message.id} while ${s.operation} runs`);
          return;
        }
        if (!s.acknowledged && !(message.type === 'next' && message.payload?.data?.jobProgress)) {
          reject(new Error(`socket ${index}: ${JSON.stringify(message).slice(0, 300)} before its acknowledgement`));
          return;
        }
        if (message.type === 'complete') {
          s.completed = true;
          if (s.resyncedAt === undefined) fail(`socket ${index}: completed without a RESYNC at seq ${s.last}`);
          else if (options.resubscribe) {
            // What a client does with a RESYNC: subscribe again after its position.
            s.operation = `r${++s.resyncs}`;
            s.resubscribing = true;
            ws.send(subscribeMessage(options.jobId, selection(s), s.operation, s.resyncedAt));
          }
        } else if (message.type === 'next') {
          const event = message.payload?.data?.jobProgress;
          if (!event) {
            fail(`socket ${index}: a next without an event: ${JSON.stringify(message).slice(0, 200)}`);
          } else if (s.resubscribing) {
            if (event.type !== 'SUBSCRIBED' || event.seq !== s.resyncedAt) {
              fail(`socket ${index}: ${event.type} at ${event.seq} first after resubscribing after ${s.resyncedAt}`);
            }
            s.resubscribing = false;
            s.resyncedAt = undefined;
            s.completed = false;
          } else if (!s.acknowledged) {
            if (event.type !== 'SUBSCRIBED') fail(`socket ${index}: first message ${event.type}, not SUBSCRIBED`);
            s.acknowledged = true;
            s.last = event.seq;
            resolve();
          } else if (event.type === 'RESYNC') {
            if (event.seq !== s.last) fail(`socket ${index}: RESYNC at ${event.seq} after receiving up to ${s.last}`);
            s.resyncedAt = event.seq;
          } else if (s.resyncedAt !== undefined) {
            fail(`socket ${index}: event ${event.seq} after its RESYNC`);
          } else if (event.seq !== s.last + 1) {
            fail(`socket ${index}: event ${event.seq} after ${s.last} (${event.seq <= s.last ? 'repeated or out of order' : 'missing'})`);
          } else {
            s.last = event.seq;
            s.lastAt = performance.now();
          }
        } else {
          fail(`socket ${index}: ${JSON.stringify(message).slice(0, 200)}`);
        }
        onProgress?.();
      });
    });

  const window = Math.min(options.window ?? 250, n);
  let next = 0;
  await Promise.all(
    Array.from({ length: window }, async () => {
      while (next < n) await open(next++);
    }),
  );
  log(`${n} sockets subscribed`);
  const start = Math.max(...subscribers.map((s) => s.last));
  if (subscribers.some((s) => s.last !== start)) fail(`acknowledged at different positions: ${start} and lower`);

  /** A socket that should have the event of `seq` by now: it reads and is neither closed nor told to resume. */
  const reading = (s: Subscriber) => !(s.paused && s.ws.isPaused) && s.closeCode === undefined && s.resyncedAt === undefined;
  const waitUntil = (done: () => boolean, ms: number) =>
    new Promise<boolean>((resolve) => {
      if (done()) return resolve(true);
      const timer = setTimeout(() => {
        onProgress = undefined;
        resolve(done());
      }, ms);
      onProgress = () => {
        if (!done()) return;
        clearTimeout(timer);
        onProgress = undefined;
        resolve(true);
      };
    });

  const rounds: StressResult['rounds'] = [];
  const cpuBefore = process.cpuUsage();
  const wallBefore = performance.now();
  let seq = start;
  let resumedAt: number | undefined;
  let lastRound = options.rounds;
  const { pauseUntil } = options;
  for (let round = 0; round < lastRound; round++) {
    if (round === options.pauseFrom) for (const s of subscribers) if (s.paused) s.ws.pause();
    const pausedNow = round > (options.pauseFrom ?? 0) && resumedAt === undefined;
    if (pausedNow && (typeof pauseUntil === 'function' ? await pauseUntil() : round === pauseUntil)) {
      for (const s of subscribers) if (s.paused) s.ws.resume();
      resumedAt = round;
      if (typeof pauseUntil === 'function') lastRound = Math.min(lastRound, round + (options.roundsAfterResume ?? 5));
    }
    const triggeredAt = performance.now();
    seq = await options.trigger(round);
    const complete = () => subscribers.every((s) => !reading(s) || s.last >= seq);
    await waitUntil(complete, lateMs);
    const missing = subscribers.filter((s) => reading(s) && s.last < seq);
    const lastMs = Math.max(0, ...subscribers.filter((s) => reading(s) && s.last >= seq).map((s) => s.lastAt - triggeredAt));
    rounds.push({ seq, lastMs, missingAtBound: missing.length });
    if (missing.length > 0) {
      fail(
        `round ${round}: ${missing.length} reading sockets lack event ${seq} ${lateMs} ms after its commit (e.g. socket ${missing[0].index} at ${missing[0].last})`,
      );
    }
    // One lost event would make every later round fail for the same sockets: stop after the first.
    if (missing.length > 0) break;
    if (round % 10 === 0) log(`round ${round}: event ${seq} on every reading socket ${lastMs.toFixed(0)} ms after its commit`);
  }
  const cpu = process.cpuUsage(cpuBefore);
  const clientCpu = (cpu.user + cpu.system) / 1000 / (performance.now() - wallBefore);

  // The readers that paused read again (if the rounds ended first): each must catch up, be told to resume, or be closed.
  for (const s of subscribers) if (s.paused && s.ws.isPaused) s.ws.resume();
  const pausedSubscribers = subscribers.filter((s) => s.paused);
  // With `resubscribe` a resynced socket has settled once its new subscription caught up.
  const settled = (s: Subscriber) =>
    (s.last >= seq && s.resyncedAt === undefined) ||
    (!options.resubscribe && s.resyncedAt !== undefined && s.completed) ||
    s.closeCode !== undefined;
  await waitUntil(() => pausedSubscribers.every(settled), lateMs);
  const paused: StressResult['paused'] = { caughtUp: 0, resynced: 0, closed: {} };
  for (const s of pausedSubscribers) {
    if (s.closeCode !== undefined) {
      paused.closed[s.closeCode] = (paused.closed[s.closeCode] ?? 0) + 1;
      if (!options.allowedSlowCloses?.includes(s.closeCode)) fail(`paused socket ${s.index}: closed with ${s.closeCode}`);
    } else if (s.resyncedAt !== undefined) {
      paused.resynced++;
      if (!s.completed) fail(`paused socket ${s.index}: RESYNC without complete`);
      if (options.resubscribe) fail(`paused socket ${s.index}: still resubscribing after its RESYNC at ${s.resyncedAt}`);
    } else if (s.last >= seq && s.resyncs > 0) {
      paused.resynced++;
    } else if (s.last >= seq) {
      paused.caughtUp++;
    } else {
      fail(`paused socket ${s.index}: at ${s.last} of ${seq} ${lateMs} ms after it read again`);
    }
  }
  // Sockets that kept reading were never to be closed or resynced.
  for (const s of subscribers) {
    if (s.paused) continue;
    if (s.closeCode !== undefined) fail(`socket ${s.index}: closed with ${s.closeCode}`);
    if (s.resyncedAt !== undefined || s.resyncs > 0) fail(`socket ${s.index}: RESYNC at ${s.resyncedAt} though it kept reading`);
  }
  for (const s of subscribers) s.ws.terminate();
  return { rounds, failures, failureCount, paused, resumedAt, clientCpu };
}
