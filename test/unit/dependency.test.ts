import { createServer, type Server, type Socket } from 'node:net';
import { Readable } from 'node:stream';
import {
  ConditionalCheckFailedException,
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  TransactionCanceledException,
  TransactWriteItemsCommand,
} from '@aws-sdk/client-dynamodb';
import { ErrorCode } from '../../src/errors';
import { createDynamo } from '../../src/infra/dynamo/client';
import { getEventListeners } from 'node:events';
import { budgetLeft, budgetOptions, runWithBudget, sendWithinBudget } from '../../src/infra/deadline';
import { classify, instrumentClient, isServiceUnavailable } from '../../src/infra/dependency';
import { LabelCap, Metrics } from '../../src/infra/metrics';
import { OutageLog } from '../../src/infra/outage';
import { Readiness } from '../../src/http/health';
import { registerFixture, stoppedAfter } from '../support/fixtures';

const counter = async (metrics: Metrics, name: string, labels: Record<string, string>) => {
  const metric = metrics.registry.getSingleMetric(name);
  const values = (await metric!.get()).values;
  return values.find((v) => Object.entries(labels).every(([k, l]) => v.labels[k] === l))?.value ?? 0;
};

/*
 * DynamoDB Local never throttles and never answers 5xx, so these tests give the real SDK client
 * (serializers, retry strategy, deserializers, our middlewares) a fake transport that answers
 * with DynamoDB's own error responses. Timeouts are tested against a real socket instead.
 */
function clientAnswering(answers: Array<{ status: number; type?: string; extra?: object }>, maxAttempts: number) {
  let sent = 0;
  const requestHandler = {
    handle: async () => {
      const answer = answers[Math.min(sent++, answers.length - 1)];
      const body = answer.type
        ? JSON.stringify({ __type: `com.amazonaws.dynamodb.v20120810#${answer.type}`, message: 'refused', ...answer.extra })
        : '{}';
      return {
        response: {
          statusCode: answer.status,
          headers: { 'content-type': 'application/x-amz-json-1.0' },
          body: Readable.from([Buffer.from(body)]),
        },
      };
    },
    updateHttpClientConfig: () => {},
    httpHandlerConfigs: () => ({}),
  };
  const client = new DynamoDBClient({
    region: 'us-east-1',
    endpoint: 'http://127.0.0.1:1',
    credentials: { accessKeyId: 'a', secretAccessKey: 'b' },
    maxAttempts,
    requestHandler: requestHandler as never,
  });
  const metrics = new Metrics({ processMetrics: false });
  const logged: Array<[string, object, string]> = [];
  const outage = stoppedAfter(
    'outage log',
    new OutageLog(60_000, {
      warn: (o: object, m: string) => logged.push(['warn', o, m]),
      info: (o: object, m: string) => logged.push(['info', o, m]),
    } as never),
  );
  instrumentClient(client.middlewareStack, { dependency: 'dynamodb', metrics, outage });
  return { client, metrics, outage, logged, sent: () => sent };
}

const get = new GetItemCommand({ TableName: 't', Key: { PK: { S: 'a' }, SK: { S: 'b' } } });

describe('SDK instrumentation (fake transport: faults DynamoDB Local cannot produce)', () => {
  it('counts throttled attempts that a retry outlasted, and the call as ok', async () => {
    const { client, metrics, outage, sent } = clientAnswering(
      [{ status: 400, type: 'ProvisionedThroughputExceededException' }, { status: 400, type: 'ThrottlingException' }, { status: 200 }],
      3,
    );
    await client.send(get);
    expect(sent()).toBe(3);
    expect(await counter(metrics, 'artissist_dynamodb_throttles_total', { command: 'GetItem' })).toBe(2);
    expect(await counter(metrics, 'artissist_dynamodb_calls_total', { command: 'GetItem', outcome: 'ok' })).toBe(1);
    expect(outage.failing()).toEqual([]);
  });

  it('turns throttling the retries did not outlast, and 5xx, into SERVICE_UNAVAILABLE, logged once', async () => {
    const throttled = clientAnswering([{ status: 400, type: 'ProvisionedThroughputExceededException' }], 2);
    const error = await throttled.client.send(get).catch((e) => e);
    expect(isServiceUnavailable(error)).toBe(true);
    expect(error.extensions).toMatchObject({ code: ErrorCode.SERVICE_UNAVAILABLE, retryAfterSeconds: 5, http: { status: 503 } });
    expect(error.extensions.http.headers.get('retry-after')).toBe('5');
    expect(error.message).not.toMatch(/Throughput|refused|127\.0\.0\.1/);
    expect(classify(error)).toBe('throttled');
    expect(await counter(throttled.metrics, 'artissist_dynamodb_calls_total', { command: 'GetItem', outcome: 'throttled' })).toBe(1);
    expect(throttled.outage.failing()).toEqual(['dynamodb']);

    const failing = clientAnswering([{ status: 500, type: 'InternalServerError' }], 2);
    const again = await failing.client.send(get).catch((e) => e);
    expect(again.extensions.code).toBe(ErrorCode.SERVICE_UNAVAILABLE);
    expect(failing.sent()).toBe(2);
    expect(await counter(failing.metrics, 'artissist_dynamodb_calls_total', { command: 'GetItem', outcome: 'server_error' })).toBe(1);
  });

  it('passes a failed condition through as the SDK error it is: the dependency answered', async () => {
    const { client, metrics, outage } = clientAnswering([{ status: 400, type: 'ConditionalCheckFailedException' }], 3);
    const error = await client
      .send(new PutItemCommand({ TableName: 't', Item: { PK: { S: 'a' } }, ConditionExpression: 'attribute_not_exists(PK)' }))
      .catch((e) => e);
    expect(error).toBeInstanceOf(ConditionalCheckFailedException);
    expect(await counter(metrics, 'artissist_dynamodb_calls_total', { command: 'PutItem', outcome: 'conditional_failed' })).toBe(1);
    expect(outage.failing()).toEqual([]);
  });

  it('takes a transaction a partition throttled (cancelled with ThrottlingError) for an outage, and one with a failed condition for an answer', async () => {
    const transaction = new TransactWriteItemsCommand({ TransactItems: [{ Put: { TableName: 't', Item: { PK: { S: 'a' } } } }] });
    const cancelled = (codes: string[]) => ({
      status: 400,
      type: 'TransactionCanceledException',
      extra: { CancellationReasons: codes.map((Code) => ({ Code })) },
    });
    // DynamoDB's answer to a throttled transaction, which the SDK does not retry: SERVICE_UNAVAILABLE, not a failed condition.
    const throttled = clientAnswering([cancelled(['ThrottlingError', 'None'])], 3);
    const error = await throttled.client.send(transaction).catch((e) => e);
    expect(isServiceUnavailable(error)).toBe(true);
    expect(classify(error)).toBe('throttled');
    // A failed condition beside a throttled item is still an answer: the caller reads its reasons.
    const refused = clientAnswering([cancelled(['ConditionalCheckFailed', 'ThrottlingError'])], 3);
    expect(await refused.client.send(transaction).catch((e) => e)).toBeInstanceOf(TransactionCanceledException);
  });
});

describe('timeouts against a server that accepts connections and never answers', () => {
  let server: Server;
  let endpoint: string;
  const sockets = new Set<Socket>();
  let connections = 0;

  beforeAll(async () => {
    server = createServer((socket) => {
      connections++;
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.resume(); // reads the request, never writes a byte: like a frozen DynamoDB
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    registerFixture('never-answering server', async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    });
    endpoint = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });

  it('ends each attempt at DYNAMODB_TIMEOUT_MS (throwOnRequestTimeout) and gives up after the attempts', async () => {
    const dynamo = createDynamo({ endpoint, region: 'us-east-1', requestTimeoutMs: 300, maxAttempts: 2 });
    connections = 0;
    const started = Date.now();
    const error = await dynamo.client.send(get).catch((e) => e);
    const elapsed = Date.now() - started;
    dynamo.client.destroy();
    expect(error.extensions?.code).toBe(ErrorCode.SERVICE_UNAVAILABLE);
    expect(classify(error)).toBe('timeout');
    expect(connections).toBe(2);
    expect(elapsed).toBeGreaterThanOrEqual(600);
    expect(elapsed).toBeLessThan(2500);
  });

  it('within a request budget, stops the call — retries included — when the budget ends', async () => {
    const dynamo = createDynamo({ endpoint, region: 'us-east-1', requestTimeoutMs: 400, maxAttempts: 10 });
    const started = Date.now();
    const error = await runWithBudget(1000, () => dynamo.doc.send(get)).catch((e) => e);
    const elapsed = Date.now() - started;
    // A call started after the budget has ended fails at once.
    const late = Date.now();
    const after = await runWithBudget(1, async () => {
      // Part of the scenario: the call starts well past the 1 ms budget's end.
      await new Promise((r) => setTimeout(r, 20));
      return dynamo.client.send(get).catch((e) => e);
    });
    const lateMs = Date.now() - late;
    dynamo.client.destroy();
    expect(error.extensions?.code).toBe(ErrorCode.SERVICE_UNAVAILABLE);
    expect(elapsed).toBeGreaterThanOrEqual(950);
    expect(elapsed).toBeLessThan(1500);
    expect(classify(after)).toBe('deadline');
    // Before one attempt's timeout (400 ms), the least a call not stopped at once would take: a
    // quiet machine takes about 25 ms (the 20 ms wait included); a clean-clone run beside other
    // work took 203 ms, against a bound of 200 then.
    expect(lateMs).toBeLessThan(400);
  });
});

describe('the request budget', () => {
  it('gives calls outside a request no options, and inside one a signal and the smaller timeout', async () => {
    expect(budgetOptions(3000)).toEqual({});
    // The smaller of the two: the per-attempt bound, or what is left of the budget (the budget less
    // the time since it started, however long a busy machine took to get here).
    const started = Date.now();
    await runWithBudget(10_000, async () => {
      const options = budgetOptions(3000);
      expect(options.abortSignal?.aborted).toBe(false);
      expect(options.requestTimeout).toBe(3000);
      const left = budgetOptions(20_000).requestTimeout;
      expect(left).toBeLessThanOrEqual(10_000);
      expect(left).toBeGreaterThanOrEqual(10_000 - (Date.now() - started));
    });
    await runWithBudget(100, async () => {
      // A call's signal aborts when the budget runs out: that is what this waits for.
      const call = budgetOptions(3000).abortSignal!;
      if (!call.aborted) await new Promise((r) => call.addEventListener('abort', r, { once: true }));
      // A timer may fire a millisecond before the wall clock reaches the budget's end: wait for the end itself.
      const rest = budgetLeft() ?? 0;
      if (rest > 0) await new Promise((r) => setTimeout(r, rest + 1));
      expect(budgetOptions(3000)).toEqual({ abortSignal: expect.objectContaining({ aborted: true }) });
    });
  });
  it('gives each call a signal of its own, so concurrent calls do not pile listeners on one shared signal', async () => {
    // A stand-in for the SDK's HTTP handler, which is what adds the listener: it listens for
    // `abort` on the signal of each call in flight and stops listening when the call ends. Each
    // call here runs until its signal aborts, so every one is still in flight when the budget ends.
    const seen = new Set<AbortSignal>();
    let most = 0;
    const client = {
      send: async (_command: unknown, options?: unknown) => {
        const signal = (options as { abortSignal?: AbortSignal }).abortSignal!;
        seen.add(signal);
        const aborted = new Promise((r) => signal.addEventListener('abort', r, { once: true }));
        most = Math.max(most, ...[...seen].map((s) => getEventListeners(s, 'abort').length));
        await aborted;
        return signal.reason;
      },
    };
    sendWithinBudget(client, 1000);
    const started = Date.now();
    const reasons = await runWithBudget(100, () => Promise.all(Array.from({ length: 30 }, () => client.send({}))));
    expect(seen.size).toBe(30);
    expect(most).toBe(1);
    // Each ended with the budget, as a timeout.
    expect(Date.now() - started).toBeGreaterThanOrEqual(95);
    expect(reasons.every((r) => r instanceof DOMException && r.name === 'TimeoutError')).toBe(true);
  });
  it('stops the budget timer of each call once the call is over, in the promise and the callback form', async () => {
    const signals: AbortSignal[] = [];
    const client = {
      send: (_command: unknown, options?: unknown, callback?: unknown) => {
        signals.push((options as { abortSignal: AbortSignal }).abortSignal);
        if (typeof callback === 'function') return void setImmediate(() => callback(null, 'done'));
        return Promise.resolve('done');
      },
    };
    sendWithinBudget(client, 1000);
    // The clock is the test's, so however slow the machine, the calls end within the budget and
    // the clock then moves past its end without waiting.
    jest.useFakeTimers();
    const calls = runWithBudget(50, async () => {
      await client.send({});
      await new Promise((resolve) => client.send({}, {}, resolve));
      await new Promise((resolve) => client.send({}, resolve));
    });
    await jest.advanceTimersByTimeAsync(1);
    await calls;
    // Past the budget's end, the signals of calls that were over before it have not aborted: their
    // timers were stopped when the calls ended, rather than each running out the whole budget.
    await jest.advanceTimersByTimeAsync(100);
    jest.useRealTimers();
    expect(signals).toHaveLength(3);
    expect(signals.filter((s) => s.aborted)).toHaveLength(0);
  });
});

describe('LabelCap', () => {
  it('keeps the first values, cut to length, and calls the rest other', () => {
    const cap = new LabelCap(2, 5);
    expect(cap.value('alpha-long')).toBe('alpha');
    expect(cap.value('beta')).toBe('beta');
    expect(cap.value('gamma')).toBe('other');
    expect(cap.value('alpha-again')).toBe('alpha');
  });
});

describe('OutageLog', () => {
  it('logs the start, one summary per interval with counts, and the recovery after a quiet interval', () => {
    const lines: Array<{ level: string; fields: any; msg: string }> = [];
    const log = {
      warn: (fields: object, msg: string) => lines.push({ level: 'warn', fields, msg }),
      info: (fields: object, msg: string) => lines.push({ level: 'info', fields, msg }),
    };
    const outage = stoppedAfter('outage log', new OutageLog(10_000, log as never));
    for (let i = 0; i < 500; i++) outage.failure('dynamodb', i % 5 ? 'timeout' : 'unreachable');
    expect(lines).toHaveLength(1);
    outage.summarize();
    expect(lines).toHaveLength(2);
    expect(lines[1].fields).toMatchObject({ dependency: 'dynamodb', failures: 500, byKind: { timeout: 400, unreachable: 100 } });
    outage.success('dynamodb');
    outage.failure('dynamodb', 'timeout'); // flapping: still failing in this interval
    outage.summarize();
    expect(lines[2].fields).toMatchObject({ failures: 1 });
    outage.success('dynamodb');
    outage.summarize();
    expect(lines[3]).toMatchObject({ level: 'info', msg: 'dynamodb answers again', fields: { totalFailures: 501 } });
    outage.summarize();
    expect(lines).toHaveLength(4);
    expect(outage.failing()).toEqual([]);
  });
});

describe('Readiness', () => {
  it('shares one check among concurrent probes, reuses it for cacheMs, bounds a hung check, and is 503 while draining', async () => {
    let runs = 0;
    let hang = false;
    let draining = false;
    let clock = Date.now();
    const readiness = new Readiness(
      {
        dynamodb: async () => {
          runs++;
          if (hang) await new Promise(() => {}); // ignores its signal: the timeout still ends it
          // A check that takes a while, as a real one does: the 50 probes below are all asked while it runs.
          await new Promise((r) => setTimeout(r, 20));
        },
      },
      { timeoutMs: 200, cacheMs: 300, isDraining: () => draining, now: () => clock },
    );
    const reports = await Promise.all(Array.from({ length: 50 }, () => readiness.report()));
    expect(runs).toBe(1);
    expect(reports.every((r) => r.status === 'ok')).toBe(true);
    await readiness.report();
    expect(runs).toBe(1);
    // Just inside cacheMs the result is still reused; at cacheMs it is checked again.
    clock += 299;
    await readiness.report();
    expect(runs).toBe(1);
    clock += 1;
    hang = true;
    const started = Date.now();
    const down = await readiness.report();
    expect(Date.now() - started).toBeLessThan(400);
    expect(down).toMatchObject({ status: 'unavailable', checks: { dynamodb: { status: 'down', error: 'timeout' } } });
    draining = true;
    expect(await readiness.report()).toMatchObject({ status: 'unavailable', checks: { shutdown: { status: 'draining' } } });
    expect(runs).toBe(2);
  });
});
