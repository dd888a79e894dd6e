import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { Role } from '../../src/auth/principal';
import { startTestServer, type TestServer } from '../support/server';
import { processFixture } from '../support/processes';
import { waitFor } from '../support/wait';

/*
 * The Apollo Client example (examples/apollo-client/watch-job.mjs), run as a frontend developer
 * would run it: it cuts its own connection after 3 events, graphql-ws reconnects, and it resumes
 * from the last position. Every event must be printed once, in order, and the cache must end with
 * the finished job.
 */
describe('examples/apollo-client/watch-job.mjs', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });

  it('follows a job across a dropped connection with every event once, and leaves the finished job in the cache', async () => {
    const token = await server.token('example-apollo', [Role.EDITOR, Role.WORKER]);
    const gql = async (query: string) => (await server.raw({ query }, token)).body.data;
    const { projectId } = (await gql('mutation { createProject(input: { title: "Watched" }) { projectId } }')).createProject;
    const { jobId } = (await gql(`mutation { createJob(input: { projectId: "${projectId}", kind: "K", steps: ["render"] }) { jobId } }`))
      .createJob;
    const child = spawn(
      process.execPath,
      [join(__dirname, '../../examples/apollo-client/watch-job.mjs'), server.url, token, jobId, '--drop-after', '3'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    processFixture(child);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    // It renders the job first, then follows from that snapshot's seq.
    await waitFor(
      async () => stdout.includes('"snapshot"'),
      () => `the example's snapshot line (it printed ${JSON.stringify(stdout + stderr)})`,
      {
        ms: 20_000,
        everyMs: 50,
      },
    );
    await gql(`mutation { startStep(jobId: "${jobId}", stepName: "render") { seq } }`);
    for (let i = 1; i <= 5; i++) {
      await gql(`mutation { reportStepProgress(jobId: "${jobId}", stepName: "render", progress: ${i / 10}) { seq } }`);
      // Part of the scenario, not a wait for anything: a worker's pace rather than a burst, as a job
      // that a frontend follows runs. The example's resumption, which the assertions check, must
      // hold whatever the pace.
      await new Promise((r) => setTimeout(r, 150));
    }
    await gql(`mutation { completeStep(jobId: "${jobId}", stepName: "render") { seq } }`);
    expect({ code: await exited, stderr }).toEqual({ code: 0, stderr: '' });
    const lines = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    const events = lines.filter((l) => l.position !== undefined);
    // The job was created (seq 1) before the snapshot; 2 … 8 arrive once each, in order.
    expect(lines[0].snapshot).toMatchObject({ seq: 1, status: 'QUEUED' });
    expect(events.map((e) => e.position)).toEqual([2, 3, 4, 5, 6, 7, 8]);
    // It did lose its connection after 3 events, and resumed after the third.
    expect(lines.filter((l) => l.reconnected)).toEqual([{ reconnected: 1, resumeAfter: 4 }]);
    expect(events[events.length - 1]).toEqual({ position: 8, type: 'STEP_COMPLETED', status: 'COMPLETED' });
    expect(lines[lines.length - 1].cached).toMatchObject({ seq: 8, status: 'COMPLETED', progress: 1 });
  }, 60_000);
});
