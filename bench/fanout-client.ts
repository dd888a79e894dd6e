import './support';
import { createInterface } from 'node:readline';
import WebSocket from 'ws';
import { median, quantile, report } from './support';

/*
 * Subscribers for the fan-out and memory benchmarks, in their own process:
 *   node dist/bench/fanout-client.js ours <graphqlUrl> <n> <rounds> <token> <workerToken> <jobId>
 *   node dist/bench/fanout-client.js raw  <rawUrl>     <n> <rounds>
 *   node dist/bench/fanout-client.js burst <graphqlUrl> <n> 0 <token> - <jobId>
 *   node dist/bench/fanout-client.js burst-raw <rawUrl> <n>
 * Opens n sockets (ours: graphql-transport-ws, each with one jobProgress subscription), reports
 * READY, waits for "go" on stdin, then per round triggers one event and times until the last
 * socket has it.
 */
const [mode, url, nText, roundsText, token, workerToken, jobId] = process.argv.slice(2);
const n = Number(nText);
const rounds = Number(roundsText);
let received = 0;
let first: string | undefined;
let onAll: (() => void) | undefined;

function open(): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url.replace(/^http/, 'ws'), mode === 'ours' ? 'graphql-transport-ws' : undefined);
    ws.on('error', reject);
    ws.on('message', (data) => {
      const text = data.toString();
      if (mode === 'ours' && text.includes('"connection_ack"')) {
        // BENCH_NO_SUBSCRIBE=1: connections only, to tell a connection's memory from a subscription's.
        if (process.env.BENCH_NO_SUBSCRIBE === '1') return resolve(ws);
        ws.send(
          JSON.stringify({
            id: '1',
            type: 'subscribe',
            payload: {
              query: `subscription { jobProgress(jobId: "${jobId}") { seq type job { status currentStep progress } step { name attempt status progress } } }`,
            },
          }),
        );
        resolve(ws);
        return;
      }
      if (!text.includes('"next"')) return;
      // A subscription's first message acknowledges it; only the events are timed.
      if (text.includes('"SUBSCRIBED"')) return;
      if (received === 0) first = text;
      if (++received === n) onAll?.();
    });
    ws.on('open', () => {
      if (mode === 'ours') ws.send(JSON.stringify({ type: 'connection_init', payload: { authorization: `Bearer ${token}` } }));
      else resolve(ws);
    });
  });
}

async function trigger(round: number): Promise<number> {
  const started = performance.now();
  if (mode === 'ours') {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${workerToken}` },
      body: JSON.stringify({
        query: `mutation { reportStepProgress(jobId: "${jobId}", stepName: "render", progress: ${(round % 100) / 100}) { seq } }`,
      }),
    });
    await res.text();
  } else {
    await (await fetch(url, { method: 'POST' })).text();
  }
  return performance.now() - started;
}

/**
 * mode `burst` (line 8): on "go", opens n sockets and, per socket, does what a client of ours does
 * to follow a job: `connection_init` with its token once the socket is open, `subscribe` once the
 * `connection_ack` arrives. A socket counts as acknowledged when its subscription's first `next`
 * arrives (the SUBSCRIBED message, which carries the position it starts from); the figure is the
 * time from the first socket's start to the last acknowledgement. mode `burst-raw` does the same
 * with raw `ws` sockets to raw-ws-server.ts, where a socket counts as acknowledged once it is open.
 * At most `window` sockets are being opened at once (BENCH_BURST_WINDOW, 250 by default), in both
 * modes: the same client opened its sockets 250 at a time before; all 10,000 at once overflow the
 * listen queue (511 by default), whose dropped SYNs are retried after 1 s, 3 s … and then time the kernel. Reports the
 * time, the failures, and the client's own CPU over the burst, to show that it was not the bound.
 */
async function burst(raw: boolean, window: number) {
  const subscribe = JSON.stringify({
    id: '1',
    type: 'subscribe',
    payload: { query: `subscription { jobProgress(jobId: "${jobId}") { seq type } }` },
  });
  const init = JSON.stringify({ type: 'connection_init', payload: { authorization: `Bearer ${token}` } });
  const sockets: WebSocket[] = [];
  let failures = 0;
  let closedEarly = 0;
  /** The first failure's error or message, to say what failed. */
  let failure: string | undefined;
  const open = () =>
    new Promise<void>((resolve) => {
      const ws = new WebSocket(url.replace(/^http/, 'ws'), raw ? undefined : 'graphql-transport-ws');
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
      ws.on('close', () => {
        if (!settled) closedEarly++;
        settle(true);
      });
      ws.on('open', () => (raw ? settle(false) : ws.send(init)));
      if (raw) return;
      ws.on('message', (data) => {
        const text = data.toString();
        if (text.includes('"connection_ack"')) {
          ws.send(subscribe);
          return;
        }
        const subscribed = text.includes('"SUBSCRIBED"');
        if (!subscribed) failure ??= text.slice(0, 300);
        settle(!subscribed);
      });
    });
  report('READY', { n, window });
  const lines = createInterface({ input: process.stdin });
  await new Promise<void>((resolve) => lines.once('line', () => resolve()));
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  let next = 0;
  const lane = async () => {
    while (next < n) {
      next++;
      await open();
    }
  };
  await Promise.all(Array.from({ length: Math.min(window, n) }, lane));
  const ms = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  const clientCpuMs = (cpu.user + cpu.system) / 1000;
  report('RESULT', { ms, failures, failure, closedEarly, clientCpuMs, clientCpuShare: clientCpuMs / ms });
  for (const ws of sockets) ws.terminate();
  process.exit(0);
}

async function main() {
  if (mode === 'burst' || mode === 'burst-raw') return burst(mode === 'burst-raw', Number(process.env.BENCH_BURST_WINDOW ?? 250));
  const sockets: WebSocket[] = [];
  for (let i = 0; i < n; i += 250) sockets.push(...(await Promise.all(Array.from({ length: Math.min(250, n - i) }, open))));
  // Let every subscription finish setting up on the server.
  await new Promise((r) => setTimeout(r, 1500));
  report('READY', { connected: sockets.length });
  const lines = createInterface({ input: process.stdin });
  await new Promise<void>((resolve) => lines.once('line', () => resolve()));

  const delays: number[] = [];
  const triggers: number[] = [];
  // The client's own CPU over the rounds: a saturated client would make the figures its own.
  let cpuBefore = process.cpuUsage();
  let measuredFrom = performance.now();
  // Per round: when the last socket had the event (epoch ms), and which event it was.
  const lasts: Array<{ eventId?: string; at?: number; lastAt: number }> = [];
  for (let round = 0; round < rounds + 3; round++) {
    received = 0;
    const all = new Promise<void>((resolve) => (onAll = resolve));
    const started = performance.now();
    const triggerMs = await trigger(round);
    await all;
    const lastAt = performance.timeOrigin + performance.now();
    // The first rounds warm up both sides and are not counted.
    if (round === 2) {
      cpuBefore = process.cpuUsage();
      measuredFrom = performance.now();
    }
    if (round >= 3) {
      delays.push(performance.now() - started);
      triggers.push(triggerMs);
      const message = JSON.parse(first!);
      lasts.push(mode === 'ours' ? { eventId: `${jobId}:${message.payload.data.jobProgress.seq}`, lastAt } : { at: message.at, lastAt });
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  const cpu = process.cpuUsage(cpuBefore);
  const clientCpu = (cpu.user + cpu.system) / 1000 / (performance.now() - measuredFrom);
  report('RESULT', { p50: median(delays), p95: quantile(delays, 0.95), triggerP50: median(triggers), lasts, clientCpu });
  for (const ws of sockets) ws.terminate();
  process.exit(0);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
