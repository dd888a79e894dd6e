import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { CreateLogDocument, CreateProjectDocument } from '../../src/client/gql/graphql';
import { until, processFixture } from '../support/processes';
import { dataOf, startTestServer, type TestServer } from '../support/server';

/*
 * The runnable example of docs/streams.md (examples/follow-stream.mjs), run as a client author would run
 * it: it cuts its own connection every 3 events and resumes from the last position, while logs
 * are written. It must print every event once, in position order.
 */
describe('examples/follow-stream.mjs', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });

  it('prints every event once, in order, across the connections it drops', async () => {
    const token = await server.token('example');
    const projectId = dataOf(await server.request(CreateProjectDocument, { input: { title: 'Followed' } }, token)).createProject.projectId;
    const child = spawn(
      process.execPath,
      [join(__dirname, '../../examples/follow-stream.mjs'), server.url, token, projectId, '--drop-every', '3', '--stop-after', '10'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    processFixture(child);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(await until(() => stderr.includes('subscribed'), 15_000)).toBe(true);
    for (let i = 0; i < 10; i++) {
      dataOf(await server.request(CreateLogDocument, { projectId, input: { rawText: `entry ${i}` } }, token));
      // Part of the scenario, not a wait for anything: an artist's pace rather than a burst, so
      // that the example's drops fall while logs are still being written. Every event once, in
      // order, must hold whatever the pace.
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(await exited).toBe(0);
    const events = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    // The project's own creation is position 1; the example started after it.
    expect(events.map((e) => e.position)).toEqual(Array.from({ length: 10 }, (_, i) => i + 2));
    expect(events.every((e) => e.action === 'log.created')).toBe(true);
    // It resumed: one acknowledgement per connection (every 3 events), each at the last position seen.
    expect(stderr.match(/subscribed: covered from position \d+/g)).toEqual(
      [1, 4, 7, 10].map((position) => `subscribed: covered from position ${position}`),
    );
  }, 60_000);
});
