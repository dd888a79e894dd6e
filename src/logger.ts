import pino, { type DestinationStream } from 'pino';

/** Where log lines go: standard output, written synchronously so a crash loses none. */
let destination: DestinationStream = pino.destination({ dest: 1, sync: true });

/** The process-wide structured logger. Level from LOG_LEVEL; JSON lines on stdout. */
export const logger = pino(
  {
    level: process.env.LOG_LEVEL ?? (process.env.NODE_ENV === 'test' ? 'silent' : 'info'),
    base: undefined,
  },
  // Lines pass through this forwarder rather than straight to stdout, so redirectLogs can swap
  // the destination of the one shared logger without rebuilding it.
  { write: (line: string) => destination.write(line) },
);

/**
 * Sends the logger's lines to `to` instead of stdout until the returned function is called. Tests
 * use it to read the lines a request wrote; the server itself never calls it.
 */
export function redirectLogs(to: DestinationStream): () => void {
  const previous = destination;
  destination = to;
  return () => {
    destination = previous;
  };
}
