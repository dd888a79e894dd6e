import { mkdirSync } from 'node:fs';
import S3rver from 's3rver';

export interface EmbeddedS3 {
  endpoint: string;
  credentials: { accessKeyId: string; secretAccessKey: string };
  stop(): Promise<void>;
}

/**
 * Starts a local S3-compatible server (s3rver) on a free 127.0.0.1 port, keeping objects under
 * `directory` so they survive a restart. It runs in this process, so it stops with it.
 */
export async function startEmbeddedS3(directory: string): Promise<EmbeddedS3> {
  mkdirSync(directory, { recursive: true });
  const server = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory, resetOnClose: false });
  const { port } = (await server.run()) as { port: number };
  return {
    endpoint: `http://127.0.0.1:${port}`,
    // s3rver's fixed development credentials.
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    stop: async () => {
      await server.close();
    },
  };
}
