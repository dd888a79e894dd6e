import './support';
import { createServer, request } from 'node:http';
import { report } from './support';

/*
 * A probe for CPU per request (bench/run.ts --cache-reads): an HTTP proxy in front of DynamoDB
 * Local that answers every Query after the first of its kind with the first real answer, byte
 * for byte (headers included, so the SDK's CRC32 check passes), and forwards everything else.
 * DynamoDB Local shares the two cores with the servers and moves a window's CPU per request by
 * ±30 %; with its Queries answered here the servers' figures hold within a few percent, so parts
 * of a server can be measured one at a time. A Query's kind is its body without the
 * `:now` value the expiry filter sends (it changes every second).
 *   node dist/bench/caching-proxy.js <DynamoDB endpoint>
 */
const target = new URL(process.argv[2]);
const answers = new Map<string, { status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }>();

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const body = Buffer.concat(chunks);
    const isQuery = req.headers['x-amz-target'] === 'DynamoDB_20120810.Query';
    const kind = isQuery ? body.toString('utf8').replace(/":now":\{"N":"\d+"\}/, '') : undefined;
    const known = kind === undefined ? undefined : answers.get(kind);
    if (known) {
      res.writeHead(known.status, known.headers).end(known.body);
      return;
    }
    const forwarded = request(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        const parts: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => parts.push(chunk));
        answer.on('end', () => {
          const reply = { status: answer.statusCode ?? 500, headers: answer.headers, body: Buffer.concat(parts) };
          if (kind !== undefined && reply.status === 200) answers.set(kind, reply);
          res.writeHead(reply.status, reply.headers).end(reply.body);
        });
      },
    );
    forwarded.on('error', (error) => res.writeHead(502).end(String(error)));
    forwarded.end(body);
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  const port = address && typeof address === 'object' ? address.port : 0;
  report('READY', { url: `http://127.0.0.1:${port}`, pid: process.pid });
});
process.on('SIGTERM', () => process.exit(0));
