import { logger, redirectLogs } from '../../src/logger';

/** Captures the shared logger's lines at info until stop() is called. */
export function captureLogs() {
  const lines: string[] = [];
  const restore = redirectLogs({ write: (line: string) => void lines.push(line) });
  const level = logger.level;
  logger.level = 'info';
  return {
    lines,
    entries: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>),
    stop() {
      restore();
      logger.level = level;
    },
  };
}
