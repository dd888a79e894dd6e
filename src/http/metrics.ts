import { createServer, type Server } from 'node:http';
import { Router } from 'express';
import { boundPort } from '../infra/free-port';
import type { Metrics } from '../infra/metrics';
import { logger } from '../logger';

async function respond(metrics: Metrics): Promise<{ status: number; contentType: string; body: string }> {
  try {
    const { contentType, body } = await metrics.expose();
    return { status: 200, contentType, body };
  } catch (err) {
    logger.warn({ err }, 'metrics could not be collected');
    return { status: 500, contentType: 'text/plain; charset=utf-8', body: 'metrics could not be collected\n' };
  }
}

/** `GET /metrics` on the API's port. */
export function metricsRouter(metrics: Metrics): Router {
  const router = Router();
  router.get('/metrics', async (_req, res) => {
    const out = await respond(metrics);
    res.status(out.status).set('content-type', out.contentType).set('cache-control', 'no-store').send(out.body);
  });
  return router;
}

/** `GET /metrics` on a port of its own (METRICS_PORT), so it can stay off the public listener. */
export async function startMetricsServer(metrics: Metrics, host: string, port: number): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found\n');
      return;
    }
    void respond(metrics).then((out) =>
      res.writeHead(out.status, { 'content-type': out.contentType, 'cache-control': 'no-store' }).end(out.body),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const bound = boundPort(server);
  const shown = host === '0.0.0.0' || host === '::' ? 'localhost' : host;
  return {
    url: `http://${shown}:${bound}/metrics`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
