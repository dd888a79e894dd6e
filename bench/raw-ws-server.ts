import './support';
import { createServer } from 'node:http';
import { WebSocketServer } from 'ws';
import { report } from './support';

/*
 * The fan-out baseline: a bare ws server that sends one payload to every socket when POSTed to,
 * the least work any WebSocket broadcast can do. The payload is the size and shape of one of our
 * graphql-ws `next` messages for a job event.
 */
const message = (at: number) =>
  JSON.stringify({
    id: '1',
    type: 'next',
    payload: {
      data: {
        jobProgress: {
          seq: 12,
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
    const payload = message(performance.timeOrigin + performance.now());
    for (const socket of wss.clients) socket.send(payload);
    res.writeHead(200).end('{}');
    return;
  }
  res.writeHead(404).end();
});
const wss = new WebSocketServer({ server, path: '/raw' });
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as { port: number };
  report('READY', { url: `http://127.0.0.1:${port}/raw`, pid: process.pid });
});
