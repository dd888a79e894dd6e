import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import { boundPort } from '../../src/infra/free-port';
import { registerFixture } from './fixtures';

export interface StallProxy {
  url: string;
  /** Requests held unanswered right now. */
  readonly stalled: number;
  /** Requests held so far. */
  readonly held: number;
  stop(): Promise<void>;
}

/**
 * An HTTP proxy on 127.0.0.1 to DynamoDB at `target` that never answers the operations in
 * `stall` (by their X-Amz-Target, e.g. 'BatchGetItem') and passes every other call through: the
 * reads it names time out as on a stalled network, while the rest of the table works. It injects a
 * fault the real DynamoDB Local cannot be made to produce for one kind of call only. With
 * `delayMs`, every call passed through is sent on that much later: a slow DynamoDB. The fixture
 * registry closes it after the test file.
 */
export async function startStallProxy(target: string, stall: string[], delayMs = 0): Promise<StallProxy> {
  const { hostname, port } = new URL(target);
  const open = new Set<ServerResponse>();
  let held = 0;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const operation =
      String(req.headers['x-amz-target'] ?? '')
        .split('.')
        .pop() ?? '';
    if (stall.includes(operation)) {
      held++;
      open.add(res);
      res.once('close', () => open.delete(res));
      req.resume();
      return;
    }
    const forward = () => {
      const upstream = request({ host: hostname, port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      upstream.on('error', () => res.destroy());
      req.pipe(upstream);
    };
    if (delayMs > 0) {
      req.pause();
      const timer = setTimeout(forward, delayMs);
      res.once('close', () => clearTimeout(timer));
    } else forward();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${boundPort(server)}`;
  const stop = registerFixture(
    `stall proxy ${url}`,
    () =>
      new Promise<void>((resolve) => {
        for (const res of open) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return {
    url,
    get stalled() {
      return open.size;
    },
    get held() {
      return held;
    },
    stop,
  };
}
