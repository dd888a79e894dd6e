import './support';
import { createServer } from 'node:http';
import { WebSocketServer } from 'ws';
import { report } from './support';

/*
 * The fan-out baseline: a bare ws server that sends one payload to every socket when POSTed to,
 * the least work any WebSocket broadcast can do. The payload is the size and shape of one of our
 * graphql-ws `next` messages for a job event.
 */
const message = (at: number, seq: number) =>
  JSON.stringify({
    id: '1',
    type: 'next',
    payload: {
      data: {
        jobProgress: {
          seq,
          type: 'STEP_PROGRESS',
          job: { status: 'RUNNING', currentStep: 'render', progress: 0.5 },
          step: { name: 'render', attempt: 1, status: 'RUNNING', progress: 0.5 },
        },
      },
    },
    // When the broadcast started (epoch ms): the counterpart of our commit time.
    at,
  });

const server = createServer((req, res) => {
  if (req.method === 'POST') {
    // `?seq=n` numbers the broadcast (12 when absent), so a client can tell rounds apart.
    const seq = Number(new URL(req.url ?? '/', 'http://raw').searchParams.get('seq') ?? 12);
    const payload = message(performance.timeOrigin + performance.now(), seq);
    for (const socket of wss.clients) socket.send(payload);
    res.writeHead(200).end('{}');
    return;
  }
  res.writeHead(404).end();
});
const wss = new WebSocketServer({ server, path: '/raw' });
// RAW_HOST=0.0.0.0 serves every loopback address, for a load generator that spreads over them (bench/scale-client.ts).
server.listen(0, process.env.RAW_HOST ?? '127.0.0.1', () => {
  const { port } = server.address() as { port: number };
  report('READY', { url: `http://127.0.0.1:${port}/raw`, pid: process.pid });
});
