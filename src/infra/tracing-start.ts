import { startTracing, type Tracing } from './tracing';

/*
 * Starts tracing when the environment asks for it, as a side effect of being imported. main.ts
 * imports this module first, before anything else, because the instrumentations can only patch
 * the modules (http, graphql, the AWS SDK, ioredis) that are loaded after the SDK started.
 */

/** The running tracing SDK, or undefined when tracing is off (the default). */
export const tracing: Tracing | undefined = startTracing();
