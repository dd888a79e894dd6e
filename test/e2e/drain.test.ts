import { testEndpoint } from '../support/dynamo';
import { captureLogs } from '../support/logs';
import { startTestServer, type TestServer } from '../support/server';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy';
import { eventually } from '../support/ws';
import { stopOnPurpose } from '../support/fixtures';

describe('the shutdown drain', () => {
  let proxy: TcpProxy;
  let server: TestServer;
  beforeAll(async () => {
    // DynamoDB through a proxy the test can stall, so a mutation is still running when the drain ends.
    proxy = await startTcpProxy(testEndpoint());
    server = await startTestServer({ env: { SHUTDOWN_DRAIN_MS: '500', DYNAMODB_ENDPOINT: proxy.url } });
  });

  it('logs a mutation it cuts off as CUT_AT_SHUTDOWN, not as answered OK 200', async () => {
    const token = await server.token('drain');
    const logs = captureLogs();
    proxy.hold();
    const response = fetch(server.app.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ query: 'mutation Slow { createProject(input: { title: "cut" }) { projectId } }' }),
    }).then(
      (res) => `answered ${res.status}`,
      () => 'reset',
    );
    // The mutation waits on DynamoDB when the stop begins. The server's own sweeps may hang on the
    // proxy before it does (a CI run stopped the server before the mutation had arrived), so the
    // wait is for a call about the mutation's tenant.
    await proxy.stalled('TENANT#drain');
    const stopping = stopOnPurpose(server.app);
    expect(await response).toBe('reset');
    // DynamoDB answers again (refusing), so the stop's last steps (the outbox sweep) do not wait on it.
    await stopOnPurpose(proxy);
    await stopping;
    // The line is written when the cut response closes, just after the stop destroyed its socket.
    const lines = await eventually(
      () => logs.entries().filter((l) => l.msg === 'graphql request'),
      (found) => found.length > 0,
      5000,
    );
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ operationType: 'mutation', operationName: 'Slow', outcome: 'CUT_AT_SHUTDOWN' });
    // No status was sent before the cut, so none is logged.
    expect(lines[0]).not.toHaveProperty('status');
    expect(logs.entries().some((l) => l.msg === 'requests still running at the end of the drain time were cut off')).toBe(true);
  });
});
