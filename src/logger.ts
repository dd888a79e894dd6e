import pino from 'pino';

/** The process-wide structured logger. Level from LOG_LEVEL; JSON lines on stdout. */
export const logger = pino({
  level: process.env.LOG_LEVEL ?? (process.env.NODE_ENV === 'test' ? 'silent' : 'info'),
  base: undefined,
});
