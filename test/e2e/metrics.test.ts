import { spawnPort } from '../support/ports';
import { labelSets, parseExposition, sample, scrape } from '../support/prometheus';
import { startTestServer, type TestServer } from '../support/server';
import { eventually } from '../support/ws';
import { stopOnPurpose } from '../support/fixtures';

const metricsUrl = (server: TestServer) => new URL('/metrics', server.url).toString();

describe('/metrics', () => {
  let server: TestServer;
  let token: string;

  beforeAll(async () => {
    server = await startTestServer();
    token = await server.token('metrics');
  });

  it('is Prometheus text (every line checked, then parsed) with process defaults and every metric the server defines', async () => {
    const { status, contentType, exposition } = await scrape(metricsUrl(server));
    expect(status).toBe(200);
    expect(contentType).toMatch(/^text\/plain; version=0\.0\.4/);
    const names = [...exposition.types.keys()];
    expect(names).toEqual(
      expect.arrayContaining([
        'process_cpu_user_seconds_total',
        'process_resident_memory_bytes',
        'nodejs_eventloop_lag_seconds',
        'artissist_graphql_operations_total',
        'artissist_graphql_operation_duration_seconds',
        'artissist_http_server_request_duration_seconds',
        'artissist_dynamodb_calls_total',
        'artissist_dynamodb_call_duration_seconds',
        'artissist_dynamodb_throttles_total',
        'artissist_s3_calls_total',
        'artissist_s3_call_duration_seconds',
        'artissist_s3_throttles_total',
        'artissist_postgres_calls_total',
        'artissist_postgres_call_duration_seconds',
        'artissist_events_published_total',
        'artissist_events_replayed_total',
        'artissist_subscription_resyncs_total',
        'artissist_event_bus_listeners',
        'artissist_outbox_backlog',
        'artissist_outbox_oldest_event_age_seconds',
      ]),
    );
  });

  it('counts operations by type, name and outcome code, DynamoDB and S3 calls by command, and published events', async () => {
    const before = (await scrape(metricsUrl(server))).exposition;
    for (let i = 0; i < 3; i++) {
      expect((await server.raw({ query: 'query WhoAmI { viewer { tenantId } }' }, token)).status).toBe(200);
    }
    const created = await server.raw({ query: 'mutation MakeOne { createProject(input: { title: "Counted" }) { projectId } }' }, token);
    expect(created.body.data.createProject.projectId).toMatch(/^proj_/);
    await server.raw({ query: 'query WhoAmI { viewer { tenantId } }' }, null); // UNAUTHENTICATED
    await server.raw({ query: '{ viewer { noSuchField } }' }, token); // does not validate
    await fetch(new URL('/readyz', server.url)); // HeadBucket on S3, GetItem on DynamoDB
    // The writer publishes after the commit, without the client waiting for it: the scrape is
    // repeated until the event is counted.
    const after = await eventually(
      async () => (await scrape(metricsUrl(server))).exposition,
      (exposition) => sample(exposition, 'artissist_events_published_total') > sample(before, 'artissist_events_published_total'),
    );

    const delta = (name: string, labels: Record<string, string>) => sample(after, name, labels) - sample(before, name, labels);
    expect(delta('artissist_graphql_operations_total', { type: 'query', name: 'WhoAmI', code: 'OK' })).toBe(3);
    expect(delta('artissist_graphql_operations_total', { type: 'query', name: 'WhoAmI', code: 'UNAUTHENTICATED' })).toBe(1);
    expect(delta('artissist_graphql_operations_total', { type: 'mutation', name: 'MakeOne', code: 'OK' })).toBe(1);
    expect(delta('artissist_graphql_operations_total', { type: 'unknown', name: 'unknown', code: 'GRAPHQL_VALIDATION_FAILED' })).toBe(1);
    expect(delta('artissist_graphql_operation_duration_seconds_count', { type: 'query', name: 'WhoAmI' })).toBe(4);
    expect(delta('artissist_dynamodb_calls_total', { command: 'TransactWriteItems', outcome: 'ok' })).toBeGreaterThanOrEqual(1);
    expect(delta('artissist_dynamodb_call_duration_seconds_count', { command: 'TransactWriteItems' })).toBeGreaterThanOrEqual(1);
    expect(delta('artissist_s3_calls_total', { command: 'HeadBucket', outcome: 'ok' })).toBe(1);
    expect(delta('artissist_events_published_total', {})).toBeGreaterThanOrEqual(1);
    // Labels never carry ids.
    const text = (await scrape(metricsUrl(server))).text;
    expect(text).not.toContain(created.body.data.createProject.projectId);
  });

  it("names the server's own metrics with one prefix and their unit: only Node's process metrics go without it", async () => {
    const { exposition } = await scrape(metricsUrl(server));
    const unprefixed = [...exposition.types.keys()].filter((name) => !/^(artissist|process|nodejs)_/.test(name));
    expect(unprefixed).toEqual([]);
    const durations = [...exposition.types].filter(([name, type]) => name.startsWith('artissist_') && type === 'histogram');
    for (const [name] of durations) expect(name).toMatch(/_seconds$/);
  });

  it('times every HTTP request by method, route and status, whatever answered it (unknown paths as other)', async () => {
    const before = (await scrape(metricsUrl(server))).exposition;
    await fetch(new URL('/healthz', server.url));
    await fetch(new URL('/healthz', server.url));
    await fetch(new URL('/no/such/path', server.url));
    await fetch(new URL('/another/unknown', server.url), { method: 'DELETE' });
    expect((await server.raw({ query: 'query Timed { viewer { tenantId } }' }, token)).status).toBe(200);
    const after = (await scrape(metricsUrl(server))).exposition;
    const delta = (labels: Record<string, string>) =>
      sample(after, 'artissist_http_server_request_duration_seconds_count', labels) -
      sample(before, 'artissist_http_server_request_duration_seconds_count', labels);
    expect(delta({ http_request_method: 'GET', http_route: '/healthz', http_response_status_code: '200' })).toBe(2);
    expect(delta({ http_request_method: 'GET', http_route: 'other', http_response_status_code: '404' })).toBe(1);
    expect(delta({ http_request_method: 'other', http_route: 'other', http_response_status_code: '404' })).toBe(1);
    expect(delta({ http_request_method: 'POST', http_route: '/graphql', http_response_status_code: '200' })).toBe(1);
  });

  it('caps operation names: at most 100 distinct, each at most 64 characters, the rest counted as other', async () => {
    const long = `Q${'x'.repeat(200)}`;
    await server.raw({ query: `query ${long} { viewer { tenantId } }` }, token);
    await Promise.all(Array.from({ length: 110 }, (_, i) => server.raw({ query: `query Name${i} { viewer { tenantId } }` }, token)));
    const { exposition } = await scrape(metricsUrl(server));
    const names = new Set(labelSets(exposition, 'artissist_graphql_operations_total').map((l) => l.name));
    expect(names.has('other')).toBe(true);
    expect(names.size).toBeLessThanOrEqual(100 + 3); // + other, unknown, anonymous
    expect(Math.max(...[...names].map((n) => n.length))).toBeLessThanOrEqual(64);
    expect(names.has(long.slice(0, 64))).toBe(true);
  });
});

describe('the strict Prometheus reader used here', () => {
  it('refuses what is not the text format', () => {
    expect(() => parseExposition('# TYPE a counter\na 1\n')).not.toThrow();
    expect(() => parseExposition('a 1\n')).toThrow(/no TYPE line/);
    expect(() => parseExposition('# TYPE a counter\na{x="1} 1\n')).toThrow(/not Prometheus/);
    expect(() => parseExposition('# TYPE a counter\na one\n')).toThrow(/not Prometheus/);
    expect(() => parseExposition('# TYPE h histogram\nh_bucket{le="1"} 2\nh_bucket{le="+Inf"} 1\nh_sum 1\nh_count 1\n')).toThrow(
      /out of order/,
    );
  });
});

describe('metrics settings', () => {
  it('METRICS=off serves no /metrics', async () => {
    const server = await startTestServer({ env: { METRICS: 'off' } });
    expect((await fetch(new URL('/metrics', server.url))).status).toBe(404);
    expect((await fetch(new URL('/healthz', server.url))).status).toBe(200);
  });

  it('METRICS_PORT serves them on a port of their own, not on the API port', async () => {
    const port = await spawnPort();
    const server = await startTestServer({ env: { METRICS_PORT: String(port) } });
    expect(server.app.metricsUrl).toBe(`http://127.0.0.1:${port}/metrics`);
    expect((await fetch(new URL('/metrics', server.url))).status).toBe(404);
    const own = await scrape(server.app.metricsUrl!);
    expect(own.status).toBe(200);
    expect(own.exposition.types.get('artissist_graphql_operations_total')).toBe('counter');
    // Stopping the app closes that port too.
    await stopOnPurpose(server);
    await expect(fetch(`http://127.0.0.1:${port}/metrics`)).rejects.toThrow();
  });

  it('shows the outbox backlog and the age of its oldest event', async () => {
    // Every publish "fails" and the sweeper waits ten minutes: the event stays in the outbox.
    const server = await startTestServer({ env: { OUTBOX_SWEEP_MS: '600000' }, failPublish: () => true });
    const token = await server.token('backlog');
    await server.raw({ query: 'mutation { createProject(input: { title: "Waiting" }) { projectId } }' }, token);
    // Scraped until the oldest event is a second old (an age in whole seconds); then it stays counted.
    const exposition = await eventually(
      async () => (await scrape(new URL('/metrics', server.url).toString())).exposition,
      (e) => sample(e, 'artissist_outbox_oldest_event_age_seconds') >= 1,
    );
    expect(sample(exposition, 'artissist_outbox_backlog')).toBeGreaterThanOrEqual(1);
    expect(sample(exposition, 'artissist_outbox_oldest_event_age_seconds')).toBeGreaterThanOrEqual(1);
    expect(sample(exposition, 'artissist_events_published_total')).toBe(0);
  });
});
