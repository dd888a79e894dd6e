import {
  context,
  isSpanContextValid,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  TraceFlags,
  type Attributes,
  type SpanContext,
} from '@opentelemetry/api';
import type { IncomingMessage } from 'node:http';
import { tracingRequested } from '../config';

/*
 * OpenTelemetry tracing, off by default and switched on by the standard OTEL_* variables (see
 * tracingRequested). The SDK and its instrumentations are loaded only when it is on, and only
 * from startTracing, which main.ts runs before it loads anything the instrumentations patch
 * (http, graphql, the AWS SDK, ioredis): a server without tracing loads none of them, and every
 * helper below is a single boolean test when it is off.
 *
 * What the helpers add to the standard instrumentations:
 * - the W3C trace context of the change that wrote an event is stored on the event item
 *   (`traceparent`), so it travels with the event through the outbox and Redis;
 * - each delivery of an event to a subscriber is a span linked to that change's trace;
 * - the outbox sweeper's polls are not traced (an idle poll would start a new trace every
 *   OUTBOX_SWEEP_MS); an event it does publish gets a span linked to the change's trace.
 */

/** Tracing as it runs in this process; undefined until startTracing turned it on. */
let active:
  | {
      tracer: ReturnType<typeof trace.getTracer>;
      suppressTracing: typeof import('@opentelemetry/core')['suppressTracing'];
    }
  | undefined;

/** The running SDK, to flush and stop at shutdown. */
export interface Tracing {
  shutdown(): Promise<void>;
}

/** Requests whose spans would only be noise: probes and scrapes that arrive every few seconds. */
const UNTRACED_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

function untracedRequest(request: IncomingMessage): boolean {
  return UNTRACED_PATHS.has((request.url ?? '').split('?')[0]);
}

/**
 * The packages tracing loads: optional dependencies, which a lean production install leaves out
 * (`npm ci --omit=dev --omit=optional`, the Docker image's default), so that a server that never
 * traces does not carry them. `@opentelemetry/api`, which the helpers below and the logger use, is
 * a plain dependency: without an SDK it is a no-op.
 */
export const TRACING_PACKAGES = [
  '@opentelemetry/sdk-node',
  '@opentelemetry/core',
  '@opentelemetry/instrumentation-http',
  '@opentelemetry/instrumentation-graphql',
  '@opentelemetry/instrumentation-aws-sdk',
  '@opentelemetry/instrumentation-ioredis',
];

/** Which of TRACING_PACKAGES cannot be resolved from here. */
export function missingTracingPackages(resolve: (name: string) => string = require.resolve): string[] {
  return TRACING_PACKAGES.filter((name) => {
    try {
      resolve(name);
      return false;
    } catch {
      return true;
    }
  });
}

/** The OTEL_* variables set in `env`, to name what switched tracing on. */
function otelVariables(env: Record<string, string | undefined>): string[] {
  return Object.keys(env).filter((name) => name.startsWith('OTEL_') && env[name]);
}

/** Tracing is switched on, but its packages were left out of the install; the message says both ways out. */
export class TracingNotInstalledError extends Error {
  constructor(missing: string[], env: Record<string, string | undefined>) {
    super(
      `Tracing is on (${otelVariables(env).join(', ')}) but ${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} not installed: ` +
        'the OpenTelemetry SDK is an optional dependency, left out of a lean install (npm ci --omit=optional, and the Docker image ' +
        'unless built with --build-arg TRACING=true). Install without --omit=optional, or turn tracing off (unset the OTEL_* ' +
        'variables or set OTEL_SDK_DISABLED=true).',
    );
    this.name = 'TracingNotInstalledError';
  }
}

/**
 * Starts the OpenTelemetry SDK when the environment asks for tracing (see tracingRequested);
 * returns undefined, having loaded nothing, when it does not. Throws TracingNotInstalledError,
 * having loaded nothing, when tracing is asked for but its packages are not installed. Call it before the modules the
 * instrumentations patch are loaded. Exporter, endpoint, protocol, sampler, propagators,
 * resource attributes and batching all come from the standard OTEL_* variables; the server's
 * metrics and logs keep their own paths (Prometheus, JSON lines on stdout), so the SDK exports
 * neither unless OTEL_METRICS_EXPORTER or OTEL_LOGS_EXPORTER asks for it.
 */
export function startTracing(env: Record<string, string | undefined> = process.env): Tracing | undefined {
  if (!tracingRequested(env)) return undefined;
  const missing = missingTracingPackages();
  if (missing.length) throw new TracingNotInstalledError(missing, env);
  // Loaded here, not at the top: a server without tracing must not load (or pay for) any of it.
  const { NodeSDK }: typeof import('@opentelemetry/sdk-node') = require('@opentelemetry/sdk-node');
  const { HttpInstrumentation }: typeof import('@opentelemetry/instrumentation-http') = require('@opentelemetry/instrumentation-http');
  const {
    GraphQLInstrumentation,
  }: typeof import('@opentelemetry/instrumentation-graphql') = require('@opentelemetry/instrumentation-graphql');
  const { AwsInstrumentation }: typeof import('@opentelemetry/instrumentation-aws-sdk') = require('@opentelemetry/instrumentation-aws-sdk');
  const {
    IORedisInstrumentation,
  }: typeof import('@opentelemetry/instrumentation-ioredis') = require('@opentelemetry/instrumentation-ioredis');
  const sdk = new NodeSDK({
    ...(env.OTEL_SERVICE_NAME ? {} : { serviceName: 'artissist-graphql' }),
    ...(env.OTEL_METRICS_EXPORTER ? {} : { metricReaders: [] }),
    ...(env.OTEL_LOGS_EXPORTER ? {} : { logRecordProcessors: [] }),
    instrumentations: [
      new HttpInstrumentation({
        // Probes and scrapes are neither traced nor parents: what they call (the readiness check's
        // DynamoDB probe, the outbox gauges' queries) stays untraced with them.
        ignoreIncomingRequestHook: untracedRequest,
        // An outgoing request with no trace around it (the SDK's credential lookups at start-up)
        // would be a trace of one span.
        requireParentforOutgoingSpans: true,
      }),
      // One span per operation (parse, validate, execute, with graphql.operation.name and
      // .type) and per resolver that does work; fields that only read a property are left out,
      // and list items share their field's span.
      new GraphQLInstrumentation({ ignoreTrivialResolveSpans: true, mergeItems: true }),
      // One span per DynamoDB or S3 call; its HTTP request is not a span of its own.
      new AwsInstrumentation({ suppressInternalInstrumentation: true }),
      // Redis commands only inside a trace: the bus's readiness PINGs and subscriptions alone are noise.
      new IORedisInstrumentation({ requireParentSpan: true }),
    ],
  });
  sdk.start();
  const { suppressTracing }: typeof import('@opentelemetry/core') = require('@opentelemetry/core');
  active = { tracer: trace.getTracer('artissist-graphql'), suppressTracing };
  return { shutdown: () => sdk.shutdown() };
}

/** True once startTracing turned tracing on in this process. */
export function tracingActive(): boolean {
  return active !== undefined;
}

/** The W3C `traceparent` of a span context: version 00, trace id, span id and flags. */
function traceparentOf(span: SpanContext): string {
  return `00-${span.traceId}-${span.spanId}-${(span.traceFlags & TraceFlags.SAMPLED).toString(16).padStart(2, '0')}`;
}

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** The span context a `traceparent` value names, or undefined when it is not a valid one. */
export function spanContextOf(traceparent: unknown): SpanContext | undefined {
  if (typeof traceparent !== 'string') return undefined;
  const match = TRACEPARENT.exec(traceparent);
  if (!match) return undefined;
  const span: SpanContext = { traceId: match[1], spanId: match[2], traceFlags: Number.parseInt(match[3], 16), isRemote: true };
  return isSpanContextValid(span) ? span : undefined;
}

/**
 * The trace context to store on an event item written now: `{ traceparent }` of the active span
 * (the change that writes the event), or nothing when tracing is off or no span is active. The
 * event carries it through the outbox and the bus to every delivery, which links back to it.
 */
export function traceContextAttributes(): { traceparent?: string } {
  if (!active) return {};
  const span = trace.getSpanContext(context.active());
  return span && isSpanContextValid(span) ? { traceparent: traceparentOf(span) } : {};
}

/**
 * Runs `fn` with tracing suppressed: nothing it calls starts a span, so work that repeats on a
 * timer (the outbox sweeper's polls) does not make a trace each time. A no-op when tracing is off.
 */
export function untraced<T>(fn: () => T): T {
  if (!active) return fn();
  return context.with(active.suppressTracing(context.active()), fn);
}

/** A span started by startLinkedSpan: run work inside it, then end it once. */
export interface LinkedSpan {
  /** Runs `fn` with this span active, so the spans of what it calls are its children. */
  run<T>(fn: () => T): T;
  /** Marks the span failed with `error`'s message. */
  fail(error: unknown): void;
  end(): void;
}

/**
 * Starts a span of a new trace, linked to the span that `traceparent` names (the change that
 * wrote an event), for work that the event causes later and elsewhere: its delivery to a
 * subscriber, its publication by the sweeper. The span starts from the root context, so it is
 * traced even where the caller's context suppresses tracing. Returns undefined, having done
 * nothing, when tracing is off or `traceparent` is not a valid one.
 */
export function startLinkedSpan(
  name: string,
  traceparent: unknown,
  options: { kind: SpanKind; attributes?: Attributes },
): LinkedSpan | undefined {
  if (!active) return undefined;
  const linked = spanContextOf(traceparent);
  if (!linked) return undefined;
  const span = active.tracer.startSpan(
    name,
    { kind: options.kind, root: true, links: [{ context: linked }], attributes: options.attributes },
    ROOT_CONTEXT,
  );
  const spanContext = trace.setSpan(ROOT_CONTEXT, span);
  return {
    run: (fn) => context.with(spanContext, fn),
    fail: (error) => span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) }),
    end: () => span.end(),
  };
}

/**
 * Runs `fn` in a span linked to `traceparent` (see startLinkedSpan) and ends the span when `fn`
 * settles; without tracing, or without a valid `traceparent`, it only runs `fn`.
 */
export function inLinkedSpan<T>(
  name: string,
  traceparent: unknown,
  options: { kind: SpanKind; attributes?: Attributes },
  fn: () => Promise<T>,
): Promise<T> {
  const span = startLinkedSpan(name, traceparent, options);
  // Without a span the caller gets fn's own promise, with no extra step.
  if (!span) return fn();
  return span.run(fn).then(
    (value) => {
      span.end();
      return value;
    },
    (error: unknown) => {
      span.fail(error);
      span.end();
      throw error;
    },
  );
}

/**
 * Runs `fn` in a new span, a child of the active one (or the root of a new trace), and ends the
 * span when `fn` settles. Without tracing it only runs `fn`.
 */
export function inSpan<T>(name: string, options: { kind: SpanKind; attributes?: Attributes }, fn: () => Promise<T>): Promise<T> {
  if (!active) return fn();
  return active.tracer.startActiveSpan(name, options, (span) =>
    fn().then(
      (value) => {
        span.end();
        return value;
      },
      (error: unknown) => {
        span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
        span.end();
        throw error;
      },
    ),
  );
}

/** The `traceparent` an event carries (see traceContextAttributes), if any. */
export function traceparentOfEvent(event: unknown): string | undefined {
  if (typeof event !== 'object' || event === null || !('traceparent' in event)) return undefined;
  return typeof event.traceparent === 'string' ? event.traceparent : undefined;
}

export { SpanKind };
