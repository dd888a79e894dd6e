import { randomUUID } from 'node:crypto';
import { signDevToken } from '../../src/auth/jwt';
import { Role } from '../../src/auth/principal';
import { testEndpoint } from '../support/dynamo';
import { gqlAt as gql, startInstance, type Instance } from '../support/instances';
import { startRedis, type RedisServer } from '../support/redis';
import { TEST_SECRET } from '../support/server';
import { eventually, JOB_PROGRESS, metricValue, subscribe, wsClient } from '../support/ws';

describe('several instances sharing DynamoDB and Redis', () => {
  let redis: RedisServer;
  let one: Instance;
  let two: Instance;

  beforeAll(async () => {
    redis = await startRedis();
    const env = { DYNAMODB_ENDPOINT: testEndpoint(), TABLE_NAME: `t_${randomUUID().slice(0, 8)}`, REDIS_URL: redis.url };
    // Started at once: each makes the shared table if it is missing, and a second CreateTable is answered as done.
    [one, two] = await Promise.all([startInstance(env), startInstance(env)]);
  });

  it('delivers a change committed through one instance to a subscriber on the other', async () => {
    const secret = new TextEncoder().encode(TEST_SECRET);
    const editor = await signDevToken(secret, { sub: 'e', tenantId: 'multi', roles: [Role.EDITOR] });
    const worker = await signDevToken(secret, { sub: 'w', tenantId: 'multi', roles: [Role.WORKER] });
    expect(one.url).not.toBe(two.url);
    const projectId = (await gql(one.url, editor, 'mutation { createProject(input: { title: "Across" }) { projectId } }')).data
      .createProject.projectId;
    const jobId = (
      await gql(one.url, editor, `mutation { createJob(input: { projectId: "${projectId}", kind: "K", steps: ["a", "b"] }) { jobId } }`)
    ).data.createJob.jobId;

    const client = wsClient(two.url, editor);
    const progress = subscribe(client, JOB_PROGRESS, { jobId, afterSeq: 1 });
    const activity = subscribe(client, `subscription { projectActivity(projectId: "${projectId}") { action } }`);
    // Both listen on instance two before anything is written (a fixed pause could lose that race).
    await eventually(
      () => metricValue(two.url, 'artissist_event_bus_listeners'),
      (n) => n === 2,
      10_000,
    );
    for (const step of ['a', 'b']) {
      await gql(one.url, worker, `mutation { startStep(jobId: "${jobId}", stepName: "${step}") { seq } }`);
      await gql(one.url, worker, `mutation { completeStep(jobId: "${jobId}", stepName: "${step}") { seq } }`);
    }
    await gql(one.url, editor, `mutation { createLog(projectId: "${projectId}", input: { rawText: "x" }) { logId } }`);
    const events = await progress.waitFor(4);
    expect(events.map((e) => [e.seq, e.type])).toEqual([
      [2, 'STEP_STARTED'],
      [3, 'STEP_COMPLETED'],
      [4, 'STEP_STARTED'],
      [5, 'STEP_COMPLETED'],
    ]);
    expect(events[3].job.status).toBe('COMPLETED');
    expect((await activity.waitFor(1))[0].action).toBe('log.created');
  });
});
