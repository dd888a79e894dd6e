import './support';
import { createInterface } from 'node:readline';
import WebSocket from 'ws';
import { report } from './support';

/*
 * One process of the scale benchmark's load generator (bench/fanout-scale.ts):
 *   node dist/bench/scale-client.js ours <url,url,…> <n> <token> <jobId>
 *   node dist/bench/scale-client.js raw  <url,url,…> <n>
 * A process may hold at most as many sockets as its descriptor limit allows (20,000 on the
 * machine these figures come from), so the generator is several of these, each holding at most
 * 18,000. Its sockets are spread over the given servers in turn. Commands on stdin, a line each:
 * - `open`: opens the n sockets, at most BENCH_OPEN_WINDOW (250) being opened at once; ours does
 *   what a client following a job does (connection_init with its token once open, subscribe to
 *   jobProgress once acknowledged) and a socket counts once its subscription's first message
 *   (SUBSCRIBED) arrived; raw counts a socket once open. Answers `RESULT {startedAt, endedAt, …}`.
 * - `done`: answers `RESULT {counts, repeated, outOfOrder, …}`: how many sockets had each seq.
 * From then on, every event (ours: a job event with its `seq`; raw: a broadcast with its `seq`)
 * that has reached every socket that opened is reported at once as `ROUND {seq, lastAt, at}`: when the last
 * socket had it (epoch ms) and, for raw, when the earliest broadcast of it started.
 */
const [mode, urlList, nText, token, jobId] = process.argv.slice(2);
const urls = urlList.split(',').map((u) => u.replace(/^http/, 'ws'));
const n = Number(nText);
/*
 * BENCH_HOSTS=k: socket i goes to its server on loopback address 127.0.0.(1 + its turn mod k), not
 * always 127.0.0.1 (the servers listen on every address). Linux picks a connection's ephemeral
 * port from the even half of ip_local_port_range first (the odd half is bind()'s), per destination
 * address and port; past that half (14,116 ports of the default 32768–60999) every further connect
 * scans it before trying an odd port, and opening 19,000 sockets to one address took 13.4 s of
 * which the clients' CPU was 8 s, against 1.8 s for 12,000.
 */
const hosts = Number(process.env.BENCH_HOSTS ?? 1);
function urlOf(index: number): string {
  const url = new URL(urls[index % urls.length]);
  url.hostname = `127.0.0.${1 + (Math.floor(index / urls.length) % hosts)}`;
  return url.toString();
}
const ours = mode === 'ours';
const window = Number(process.env.BENCH_OPEN_WINDOW ?? 250);

const init = JSON.stringify({ type: 'connection_init', payload: { authorization: `Bearer ${token}` } });
// The same selection as the fan-out line's subscribers, so the frames match raw-ws-server's in shape.
const subscribe = JSON.stringify({
  id: '1',
  type: 'subscribe',
  payload: {
    query: `subscription { jobProgress(jobId: "${jobId}") { seq type job { status currentStep progress } step { name attempt status progress } } }`,
  },
});

const sockets: WebSocket[] = [];
/** Per socket, the last event's seq it had (-1: none yet), to tell a missing, repeated or reordered event. */
const lastSeq = new Int32Array(n).fill(-1);
/** Sockets that count as acknowledged: the ones every event must reach. */
let subscribed = 0;
/** Per seq: how many sockets have it, when the last did, and (raw) the earliest broadcast start. */
const events = new Map<number, { count: number; lastAt: number; at: number }>();
let repeated = 0;
let outOfOrder = 0;
let unexpected: string | undefined;
const SEQ = /"seq":(\d+)/;
const AT = /"at":([\d.]+)/;

function received(index: number, text: string): void {
  const match = SEQ.exec(text);
  if (!match) {
    unexpected ??= text.slice(0, 300);
    return;
  }
  const seq = Number(match[1]);
  if (seq === lastSeq[index]) repeated++;
  else if (seq < lastSeq[index]) outOfOrder++;
  lastSeq[index] = Math.max(lastSeq[index], seq);
  let event = events.get(seq);
  if (!event) {
    event = { count: 0, lastAt: 0, at: Number.POSITIVE_INFINITY };
    events.set(seq, event);
  }
  if (!ours) event.at = Math.min(event.at, Number(AT.exec(text)?.[1] ?? Number.POSITIVE_INFINITY));
  if (++event.count === subscribed) {
    event.lastAt = performance.timeOrigin + performance.now();
    report('ROUND', { seq, lastAt: event.lastAt, at: Number.isFinite(event.at) ? event.at : undefined });
  }
}

let failures = 0;
let failure: string | undefined;
let closedEarly = 0;

/** Opens socket `index`, resolving once it counts as acknowledged (or failed). */
function open(index: number): Promise<void> {
  return new Promise<void>((resolve) => {
    const ws = new WebSocket(urlOf(index), ours ? 'graphql-transport-ws' : undefined);
    sockets.push(ws);
    let settled = false;
    const settle = (failed: boolean) => {
      if (settled) return;
      settled = true;
      if (failed) failures++;
      resolve();
    };
    ws.on('error', (error) => {
      failure ??= String(error);
      settle(true);
    });
    ws.on('close', (code, reason) => {
      if (!settled) {
        closedEarly++;
        failure ??= `closed with ${code} ${reason.toString()}`;
      }
      settle(true);
    });
    ws.on('open', () => (ours ? ws.send(init) : settle(false)));
    ws.on('message', (data) => {
      const text = data.toString();
      if (!settled && ours) {
        if (text.includes('"connection_ack"')) {
          ws.send(subscribe);
          return;
        }
        const subscribed = text.includes('"SUBSCRIBED"');
        if (!subscribed) failure ??= text.slice(0, 300);
        settle(!subscribed);
        return;
      }
      received(index, text);
    });
  });
}

async function openAll() {
  const cpuBefore = process.cpuUsage();
  const startedAt = performance.timeOrigin + performance.now();
  let next = 0;
  const lane = async () => {
    while (next < n) await open(next++);
  };
  await Promise.all(Array.from({ length: Math.min(window, n) }, lane));
  const endedAt = performance.timeOrigin + performance.now();
  subscribed = n - failures;
  const cpu = process.cpuUsage(cpuBefore);
  report('RESULT', { startedAt, endedAt, subscribed, failures, failure, closedEarly, clientCpuMs: (cpu.user + cpu.system) / 1000 });
}

function done() {
  // Missed events are counted by the caller, which knows every seq it triggered.
  report('RESULT', {
    counts: Object.fromEntries([...events].map(([seq, event]) => [seq, event.count])),
    repeated,
    outOfOrder,
    unexpected,
    open: sockets.filter((s) => s.readyState === WebSocket.OPEN).length,
  });
}

report('READY', { pid: process.pid, n });
createInterface({ input: process.stdin }).on('line', (line) => {
  if (line === 'open') void openAll();
  if (line === 'done') done();
});
process.on('SIGTERM', () => {
  for (const ws of sockets) ws.terminate();
  process.exit(0);
});
