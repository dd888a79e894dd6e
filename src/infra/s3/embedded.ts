import { mkdirSync } from 'node:fs';
import { Server } from 'node:http';
import S3rver from 's3rver';
import { Supervisor, type PartState, type Running, type SupervisorReport } from '../supervisor';

export interface EmbeddedS3 {
  /** Stays the same across restarts: a restart listens on the same port. */
  endpoint: string;
  credentials: { accessKeyId: string; secretAccessKey: string };
  /** `up`, `restarting` or `down`; readiness reports it. */
  readonly state: PartState;
  /** Where a death, a restart and a final failure are reported (main.ts prints them). */
  report(report: SupervisorReport): void;
  stop(): Promise<void>;
}

/**
 * The HTTP server a running s3rver listens with. s3rver's types leave `httpServer` out (its
 * `close()` uses it), so it is looked up and checked here rather than assumed.
 */
function httpServerOf(s3rver: S3rver): Server {
  const http = 'httpServer' in s3rver ? s3rver.httpServer : undefined;
  if (!(http instanceof Server)) throw new Error('s3rver is running without an HTTP server of its own.');
  return http;
}

/** Runs one s3rver on `port` (0: a free one) and resolves once it listens. */
async function run(directory: string, port: number): Promise<Running & { port: number }> {
  const server = new S3rver({ port, address: '127.0.0.1', silent: true, directory, resetOnClose: false });
  const address = await server.run();
  const http = httpServerOf(server);
  const exited = new Promise<string>((resolve) => {
    http.once('close', () => resolve('its HTTP server closed'));
    // An error on a listening server (none is expected) leaves it unusable: close it and restart.
    http.once('error', (error) => {
      resolve(`error: ${error.message}`);
      http.close();
    });
  });
  return {
    port: address.port,
    exited,
    stop: async () => {
      if (http.listening) await server.close();
    },
  };
}

/**
 * Starts a local S3-compatible server (s3rver) on a free 127.0.0.1 port, keeping objects under
 * `directory` so they survive a restart. It runs in this process, so it stops with it. Should its
 * HTTP server ever close without `stop()`, it is restarted on the same port and folder (see
 * Supervisor), so the S3 client's endpoint stays valid.
 */
export async function startEmbeddedS3(directory: string, restartBackoffMs?: number[]): Promise<EmbeddedS3> {
  mkdirSync(directory, { recursive: true });
  const first = await run(directory, 0);
  const supervisor = new Supervisor(first, {
    name: 'The local S3',
    backoffMs: restartBackoffMs,
    restart: () => run(directory, first.port),
  });
  return {
    endpoint: `http://127.0.0.1:${first.port}`,
    // s3rver's fixed development credentials.
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    get state() {
      return supervisor.state;
    },
    report: (report) => supervisor.report(report),
    stop: () => supervisor.stop(),
  };
}
