import './support';
import { createInterface } from 'node:readline';
import WebSocket from 'ws';
import { median, quantile, report } from './support';

/*
 * Subscribers for the fan-out and memory benchmarks, in their own process:
 *   node dist/bench/fanout-client.js ours <graphqlUrl> <n> <rounds> <token> <workerToken> <jobId>
 *   node dist/bench/fanout-client.js raw  <rawUrl>     <n> <rounds>
 *   node dist/bench/fanout-client.js burst <graphqlUrl> <n> 0 <token> - <jobId>
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
 * mode `burst`: opens n sockets and initialises them all, reports READY, and on "go" sends every
 * socket's subscribe at once; reports how long until every subscription was acknowledged (its
 * first `next`) and how many failed.
 */
async function burst() {
  const acknowledged: Array<() => void> = [];
  let failures = 0;
  const init = () =>
    new Promise<WebSocket>((resolve, reject) => {
      const ws = new WebSocket(url.replace(/^http/, 'ws'), 'graphql-transport-ws');
      ws.on('error', reject);
      ws.on('open', () => ws.send(JSON.stringify({ type: 'connection_init', payload: { authorization: `Bearer ${token}` } })));
      let answered = false;
      ws.on('message', (data) => {
        const text = data.toString();
        if (text.includes('"connection_ack"')) return resolve(ws);
        if (answered) return;
        answered = true;
        if (!text.includes('"SUBSCRIBED"')) failures++;
        acknowledged.pop()?.();
      });
    });
  const sockets: WebSocket[] = [];
  for (let i = 0; i < n; i += 250) sockets.push(...(await Promise.all(Array.from({ length: Math.min(250, n - i) }, init))));
  report('READY', { connected: sockets.length });
  const lines = createInterface({ input: process.stdin });
  await new Promise<void>((resolve) => lines.once('line', () => resolve()));
  const all = Promise.all(sockets.map(() => new Promise<void>((resolve) => acknowledged.push(resolve))));
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const subscribe = JSON.stringify({
    id: '1',
    type: 'subscribe',
    payload: { query: `subscription { jobProgress(jobId: "${jobId}") { seq type } }` },
  });
  for (const ws of sockets) ws.send(subscribe);
  await all;
  const ms = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  report('RESULT', { ms, failures, clientCpuMs: (cpu.user + cpu.system) / 1000 });
  for (const ws of sockets) ws.terminate();
  process.exit(0);
}

async function main() {
  if (mode === 'burst') return burst();
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
