import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';

/** A graphql-ws client authenticated with `token` in connection_init. Dispose it in the test. */
export function wsClient(httpUrl: string, token: string): Client {
  return createClient({
    url: httpUrl.replace(/^http/, 'ws'),
    webSocketImpl: WebSocket,
    connectionParams: { authorization: `Bearer ${token}` },
    retryAttempts: 0,
    lazy: true,
  });
}

export interface Subscription<T> {
  /** Every `data` payload received so far. */
  received: T[];
  errors: unknown[];
  /** Resolves once `count` payloads have arrived (or rejects after `timeoutMs`). */
  waitFor(count: number, timeoutMs?: number): Promise<T[]>;
  done: Promise<void>;
  stop(): void;
}

/** Subscribes and collects payloads (the first root field of each `data`). */
export function subscribe<T = any>(client: Client, query: string, variables: Record<string, unknown> = {}): Subscription<T> {
  const received: T[] = [];
  const errors: unknown[] = [];
  const waiters: Array<{ count: number; resolve: () => void }> = [];
  let finish!: () => void;
  const done = new Promise<void>((r) => (finish = r));
  const notify = () => {
    for (const w of [...waiters]) if (received.length >= w.count) w.resolve();
  };
  const stop = client.subscribe<Record<string, T>>(
    { query, variables },
    {
      next: (result) => {
        if (result.errors) errors.push(...result.errors);
        if (result.data) received.push(Object.values(result.data)[0] as T);
        notify();
      },
      error: (error) => {
        errors.push(error);
        finish();
      },
      complete: () => finish(),
    },
  );
  return {
    received,
    errors,
    done,
    stop,
    waitFor(count, timeoutMs = 15_000) {
      if (received.length >= count) return Promise.resolve(received);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`got ${received.length} of ${count} events: ${JSON.stringify(received.slice(-3))} errors: ${JSON.stringify(errors)}`)), timeoutMs);
        waiters.push({
          count,
          resolve: () => {
            clearTimeout(timer);
            resolve(received);
          },
        });
      });
    },
  };
}

export const JOB_PROGRESS = `subscription($jobId: ID!, $afterSeq: Int) {
  jobProgress(jobId: $jobId, afterSeq: $afterSeq) { eventId seq prevSeq type actor job { status currentStep progress completedSteps failedSteps } step { name attempt status progress } resumeAfterSeq }
}`;
