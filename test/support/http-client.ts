import { Agent, request } from 'node:http';
import { registerFixture } from './fixtures';

/**
 * An HTTP client for tests that send requests by the thousand (the 10,000-item stage, the pools'
 * 2,460 claims): node:http with a keep-alive agent of its own. fetch (undici) spent 2.7–3.5 CPU-s
 * on 3,000 small GraphQL requests to a test server in the same process, node:http 1.15 (client
 * and server together), and took half as long again; pools.test took 54 and 81 CPU-s with it
 * against 67 and 98 with fetch (two back-to-back pairs on a busy machine). The agent closes its
 * sockets once the test file (or the block or test that made it) is done; it does not reuse a
 * socket idle for more than 1 s (see below). Rejects on a network error.
 */
export function keepAliveClient(): (
  url: string,
  body: string,
  headers: Record<string, string>,
) => Promise<{ status: number; text: string }> {
  // An idle socket is closed by the client after 1 s, well before the server's keep-alive timeout
  // (5 s): client and server share one event loop here, and when it stalls past the socket's idle
  // end, a request could go out on a socket the server's own timer then closes ("socket hang up",
  // seen once at load 15 in jobs.test, whose requests came 4–5 s apart). node:http's Agent
  // destroys a free socket at its `timeout`; a socket in use is left to its request.
  const agent = new Agent({ keepAlive: true, timeout: 1_000 });
  registerFixture('keep-alive HTTP agent', () => agent.destroy());
  return (url, body, headers) =>
    new Promise((resolve, reject) => {
      const req = request(url, { method: 'POST', agent, headers }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(body);
    });
}
