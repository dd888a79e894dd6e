import { logger, redirectLogs } from '../../src/logger';
import { registerFixture } from './fixtures';

/**
 * Captures the shared logger's lines at info until `stop()` is called, or until the test file
 * ends: the fixture registry puts the logger back then.
 */
export function captureLogs() {
  const lines: string[] = [];
  const restore = redirectLogs({ write: (line: string) => void lines.push(line) });
  const level = logger.level;
  logger.level = 'info';
  const stop = registerFixture('log capture', () => {
    restore();
    logger.level = level;
  });
  return {
    lines,
    entries: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>),
    stop,
  };
}
