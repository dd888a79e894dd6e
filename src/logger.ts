import { context, isSpanContextValid, trace } from '@opentelemetry/api';
import pino, { type DestinationStream } from 'pino';
import { tracingRequested } from './config';

/** Where log lines go: standard output, written synchronously so a crash loses none. */
let destination: DestinationStream = pino.destination({ dest: 1, sync: true });

/**
 * The trace and span ids of the span active where a line is written (a request's, a delivery's),
 * as `trace_id` and `span_id`, so a line can be found from its trace and the trace from its line.
 */
function traceFields(): { trace_id?: string; span_id?: string } {
  const span = trace.getSpanContext(context.active());
  return span && isSpanContextValid(span) ? { trace_id: span.traceId, span_id: span.spanId } : {};
}

/**
 * The process-wide structured logger. Level from LOG_LEVEL; JSON lines on stdout. Only a server
 * with tracing on (see tracingRequested) looks up the active span for each line.
 */
export const logger = pino(
  {
    level: process.env.LOG_LEVEL ?? (process.env.NODE_ENV === 'test' ? 'silent' : 'info'),
    base: undefined,
    ...(tracingRequested() ? { mixin: traceFields } : {}),
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
