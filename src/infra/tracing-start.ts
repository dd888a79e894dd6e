import { startTracing, type Tracing, TracingNotInstalledError } from './tracing';

/*
 * Starts tracing when the environment asks for it, as a side effect of being imported. main.ts
 * imports this module first, before anything else, because the instrumentations can only patch
 * the modules (http, graphql, the AWS SDK, ioredis) that are loaded after the SDK started.
 */

/**
 * Why tracing was asked for but could not start: its optional packages are not installed. main.ts
 * reports it as a start-up error (exit code 1) instead of a stack trace from an import.
 */
export let tracingFailure: TracingNotInstalledError | undefined;

function start(): Tracing | undefined {
  try {
    return startTracing();
  } catch (error) {
    if (!(error instanceof TracingNotInstalledError)) throw error;
    tracingFailure = error;
    return undefined;
  }
}

/** The running tracing SDK, or undefined when tracing is off (the default) or could not start. */
export const tracing: Tracing | undefined = start();
