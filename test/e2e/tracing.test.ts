import { randomBytes, randomUUID } from 'node:crypto';
import { signDevToken } from '../../src/auth/jwt';
import { Role } from '../../src/auth/principal';
import { testEndpoint } from '../support/dynamo';
import { startInstance, type Instance } from '../support/instances';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../support/otlp';
import { sample, scrape } from '../support/prometheus';
import { startRedis, type RedisServer } from '../support/redis';
import { TEST_SECRET } from '../support/server';
import { eventually, metricValue, subscribe, wsClient } from '../support/ws';

/** A W3C traceparent for a new trace of our own, sampled, so the test knows the trace id in advance. */
function newTraceparent() {
  const traceId = randomBytes(16).toString('hex');
  return { traceId, traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01` };
}

async function gqlTraced(url: string, token: string, traceparent: string, query: string, variables: Record<string, unknown> = {}) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, traceparent },
    body: JSON.stringify({ query, variables }),
    signal: AbortSignal.timeout(30_000),
  });
  return { requestId: res.headers.get('x-request-id'), body: (await res.json()) as { data?: any; errors?: unknown[] } };
}

describe('OpenTelemetry tracing (OTEL_* variables, an OTLP/HTTP receiver, two instances and Redis)', () => {
  let receiver: OtlpReceiver;
  let redis: RedisServer;
  let one: Instance;
  let two: Instance;
  let editor: string;

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    redis = await startRedis();
    const env = {
      DYNAMODB_ENDPOINT: testEndpoint(),
      TABLE_NAME: `t_${randomUUID().slice(0, 8)}`,
      REDIS_URL: redis.url,
      LOG_LEVEL: 'info',
      // Sweeps often, so the test sees many idle polls, none of which may start a trace.
      OUTBOX_SWEEP_MS: '200',
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      // Spans are exported a tenth of a second after they end instead of five seconds.
      OTEL_BSP_SCHEDULE_DELAY: '100',
    };
    one = await startInstance({ ...env, OTEL_SERVICE_NAME: 'instance-one' });
    two = await startInstance({ ...env, OTEL_SERVICE_NAME: 'instance-two' });
    editor = await signDevToken(new TextEncoder().encode(TEST_SECRET), { sub: 'e', tenantId: 'traced', roles: [Role.EDITOR] });
  });

  const inTrace = (traceId: string) => receiver.spans.filter((s) => s.traceId === traceId);
  const waitForSpans = (what: string, find: () => ReceivedSpan[]) =>
    eventually(find, (found) => found.length > 0, 20_000).catch(() => {
      throw new Error(`no ${what}; spans received: ${JSON.stringify(receiver.spans.map((s) => [s.service, s.name]))}`);
    });

  it('traces a query: its operation span, its DynamoDB calls as descendants, and its log lines carry the trace id', async () => {
    const { traceId, traceparent } = newTraceparent();
    // The query ran once before: without tracing it would now run compiled (compiled-queries.ts),
    // past the GraphQL instrumentation's hook; with tracing it keeps its operation span.
    await gqlTraced(one.url, editor, newTraceparent().traceparent, 'query ListProjects { projects { nodes { projectId } } }');
    const { requestId, body } = await gqlTraced(one.url, editor, traceparent, 'query ListProjects { projects { nodes { projectId } } }');
    expect(body.errors).toBeUndefined();
    const operation = (
      await waitForSpans('operation span', () => inTrace(traceId).filter((s) => s.attributes['graphql.operation.name'] === 'ListProjects'))
    )[0];
    expect(operation.attributes['graphql.operation.type']).toBe('query');
    const dynamo = await waitForSpans('DynamoDB span', () => inTrace(traceId).filter((s) => s.attributes['rpc.service'] === 'DynamoDB'));
    // Each DynamoDB call descends from the request's server span, which the caller's traceparent parents.
    const byId = new Map(inTrace(traceId).map((s) => [s.spanId, s]));
    const ancestors = (span: ReceivedSpan) => {
      const names: string[] = [];
      for (let at = span.parentSpanId && byId.get(span.parentSpanId); at; at = at.parentSpanId && byId.get(at.parentSpanId))
        names.push(at.name);
      return names;
    };
    expect(ancestors(dynamo[0]).length).toBeGreaterThan(0);
    expect(dynamo[0].service).toBe('instance-one');
    const lines = one
      .output()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l));
    const logged = lines.filter((l) => l.requestId === requestId);
    expect(logged.length).toBeGreaterThan(0);
    for (const line of logged) expect(line.trace_id).toBe(traceId);
  });

  it('traces an S3 call of a mutation as a child span of its request', async () => {
    const created = await gqlTraced(
      one.url,
      editor,
      newTraceparent().traceparent,
      'mutation { createProject(input: { title: "Files" }) { projectId } }',
    );
    const projectId = created.body.data.createProject.projectId;
    const upload = await gqlTraced(
      one.url,
      editor,
      newTraceparent().traceparent,
      `mutation { requestAssetUpload(projectId: "${projectId}", input: { type: IMAGE, fileName: "a.png", contentType: "image/png", size: 3 }) { asset { assetId } } }`,
    );
    const assetId = upload.body.data.requestAssetUpload.asset.assetId;
    // Confirming asks S3 for the object (HeadObject); nothing was uploaded, so the answer is UPLOAD_MISSING.
    const { traceId, traceparent } = newTraceparent();
    const confirmed = await gqlTraced(
      one.url,
      editor,
      traceparent,
      `mutation ConfirmUpload { confirmAssetUpload(projectId: "${projectId}", assetId: "${assetId}") { assetId } }`,
    );
    expect(confirmed.body.errors?.[0]).toMatchObject({ extensions: { reason: 'UPLOAD_MISSING' } });
    const s3 = await waitForSpans('S3 span', () => inTrace(traceId).filter((s) => s.attributes['rpc.service'] === 'S3'));
    expect(s3.map((s) => s.attributes['rpc.method'])).toContain('HeadObject');
    const byId = new Map(inTrace(traceId).map((s) => [s.spanId, s]));
    const head = s3.find((s) => s.attributes['rpc.method'] === 'HeadObject');
    let root = head;
    while (root?.parentSpanId && byId.get(root.parentSpanId)) root = byId.get(root.parentSpanId);
    // It descends from the request's server span (whose parent is the caller's own span, not exported).
    expect(root?.kind).toBe(2);
    expect(inTrace(traceId).some((s) => s.attributes['graphql.operation.name'] === 'ConfirmUpload')).toBe(true);
  });

  it("carries a mutation's trace through its outbox event and Redis to a subscriber's delivery on another instance", async () => {
    const created = await gqlTraced(
      one.url,
      editor,
      newTraceparent().traceparent,
      'mutation { createProject(input: { title: "Traced" }) { projectId } }',
    );
    const projectId = created.body.data.createProject.projectId;
    const client = wsClient(two.url, editor);
    const activity = subscribe(client, `subscription Follow { projectActivity(projectId: "${projectId}") { action } }`);
    await activity.ack;
    await eventually(
      () => metricValue(two.url, 'artissist_event_bus_listeners'),
      (n) => n === 1,
      10_000,
    );
    const { traceId, traceparent } = newTraceparent();
    await gqlTraced(
      one.url,
      editor,
      traceparent,
      `mutation AddLog { createLog(projectId: "${projectId}", input: { rawText: "x" }) { logId } }`,
    );
    expect((await activity.waitFor(1))[0].action).toBe('log.created');
    const delivery = await waitForSpans('delivery span', () =>
      receiver.spans.filter((s) => s.service === 'instance-two' && s.links.some((l) => l.traceId === traceId)),
    );
    expect(delivery[0].name).toBe('subscription delivery');
    expect(delivery[0].attributes['graphql.operation.name']).toBe('Follow');
    // The link names a span of the mutation's trace on instance one.
    const linkedTo = delivery[0].links.find((l) => l.traceId === traceId)!;
    const mutationSpans = await waitForSpans('mutation spans', () => inTrace(traceId));
    expect(mutationSpans.every((s) => s.service === 'instance-one')).toBe(true);
    await eventually(
      () => inTrace(traceId).some((s) => s.spanId === linkedTo.spanId),
      (found) => found,
      20_000,
    );
  });

  it('starts no trace for idle outbox sweeps', async () => {
    // Both instances sweep every 200 ms and nothing else happens. A traced request to each
    // instance marks a point in its export: its spans end after those of everything before it, and
    // an instance exports its spans in the order they end, within OTEL_BSP_SCHEDULE_DELAY (100 ms).
    const markers = new Set<string>();
    const mark = async () => {
      const traces = await Promise.all(
        [one, two].map(async (instance) => {
          const { traceId, traceparent } = newTraceparent();
          markers.add(traceId);
          await gqlTraced(instance.url, editor, traceparent, 'query Marker { __typename }');
          return traceId;
        }),
      );
      for (const traceId of traces) await waitForSpans('marker span', () => inTrace(traceId));
    };
    // The idle instances' DynamoDB queries: their sweeps (nothing else queries meanwhile).
    const queries = () =>
      Promise.all(
        [one, two].map(async (instance) =>
          sample((await scrape(instance.url.replace(/\/graphql$/, '/metrics'))).exposition, 'artissist_dynamodb_calls_total', {
            command: 'Query',
            outcome: 'ok',
          }),
        ),
      );
    // The spans of the tests before have arrived once the first markers have.
    await mark();
    const before = receiver.spans.length;
    // Five more sweep queries on each instance, then the second markers: a span any of those
    // sweeps had started ended before the markers' spans, so it would have arrived before them.
    const swept = await queries();
    await eventually(queries, (now) => now.every((n, i) => n >= swept[i] + 5), 20_000);
    await mark();
    expect(
      receiver.spans
        .slice(before)
        .filter((s) => !markers.has(s.traceId))
        .map((s) => [s.service, s.name]),
    ).toEqual([]);
    expect(receiver.spans.filter((s) => s.attributes['aws.dynamodb.index_name'] === 'OUTBOX')).toEqual([]);
  });
});
