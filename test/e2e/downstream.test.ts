import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { ScanCommand } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { Dynamo } from '../../src/infra/dynamo/client';
import { DOWNSTREAM_STREAMS, envelopeOf, type Envelope } from '../../src/infra/dynamo/downstream';
import { StreamReader } from '../../src/infra/dynamo/stream-reader';
import { testDynamo, testEndpoint } from '../support/dynamo';
import { fixture } from '../support/fixtures';
import { ROOT } from '../support/processes';
import { Role, startTestServer, type TestServer } from '../support/server';

/*
 * Every event downstream (issue 34, part 3): the table's stream carries each committed event item,
 * and the envelopes the deploy template's Pipe would make of it (the same filter and mapping,
 * src/infra/dynamo/downstream.ts) hold each event exactly once, against DynamoDB Local's stream.
 */

const TENANT = 'downstream';

describe('events downstream from the table stream', () => {
  let server: TestServer;
  let editor: string;
  let worker: string;
  let reader: StreamReader;
  let dynamo: Dynamo;

  const run = async (query: string, variables: Record<string, unknown> = {}, as = editor) => {
    const res = await server.raw({ query, variables }, as);
    expect(res.body.errors).toBeUndefined();
    return res.body.data;
  };

  /** The event items the table holds for the tenant, of the streams that go downstream (a scan: a fresh table of one test). */
  const storedEvents = async () => {
    const items: Record<string, unknown>[] = [];
    let start: Record<string, any> | undefined;
    do {
      const page = await dynamo.client.send(new ScanCommand({ TableName: server.config.tableName, ExclusiveStartKey: start }));
      items.push(...(page.Items ?? []).map((i) => unmarshall(i)));
      start = page.LastEvaluatedKey;
    } while (start);
    return items.filter(
      (i) =>
        String(i.PK).startsWith(`TENANT#${TENANT}#`) &&
        i.entityType === 'Event' &&
        DOWNSTREAM_STREAMS.some((s) => s === i.stream) &&
        String(i.SK).startsWith('EVENT#'),
    );
  };

  beforeAll(async () => {
    // This file reads the change stream, which test tables otherwise go without.
    server = await startTestServer({ env: { TABLE_STREAM: 'on' } });
    editor = await server.token(TENANT, [Role.EDITOR], 'editor-1');
    worker = await server.token(TENANT, [Role.WORKER], 'worker-1');
    dynamo = fixture('DynamoDB client', testDynamo(), (d) => d.client.destroy());
    const opened = await StreamReader.open(dynamo.client, server.config.tableName, 'TRIM_HORIZON', testEndpoint());
    reader = fixture('stream reader', opened, (r) => r.close());
  });

  it('holds every event a burst of mixed mutations committed, once each, in the documented envelope', async () => {
    const projects = await Promise.all(
      [1, 2, 3].map(
        async (n) =>
          (await run('mutation($i: CreateProjectInput!) { createProject(input: $i) { projectId } }', { i: { title: `P${n}` } }))
            .createProject.projectId,
      ),
    );
    // Logs, milestones and inspiration on the projects at once, a project updated, a job run to its end.
    await Promise.all(
      projects.flatMap((projectId, n) => [
        run('mutation($p: ID!, $i: CreateLogInput!) { createLog(projectId: $p, input: $i) { logId } }', {
          p: projectId,
          i: { rawText: `Worked on ${n}`, materials: ['oil'], timeSpentMinutes: 30 + n },
        }),
        run('mutation($p: ID!, $i: CreateMilestoneInput!) { createMilestone(projectId: $p, input: $i) { milestoneId } }', {
          p: projectId,
          i: { name: `M${n}` },
        }),
        run('mutation($i: CreateInspirationInput!) { createInspiration(input: $i) { inspirationId } }', {
          i: { type: 'TEXT', text: `Idea ${n}` },
        }),
        run('mutation($p: ID!) { updateProject(projectId: $p, expectedVersion: 1, input: { medium: "oil" }) { version } }', {
          p: projectId,
        }),
      ]),
    );
    const job = (
      await run('mutation($i: CreateJobInput!) { createJob(input: $i) { jobId } }', {
        i: { projectId: projects[0], kind: 'STREAMED', steps: ['one', 'two'] },
      })
    ).createJob.jobId;
    for (const step of ['one', 'two']) {
      await run('mutation($j: ID!, $s: String!) { startStep(jobId: $j, stepName: $s) { seq } }', { j: job, s: step }, worker);
      await run('mutation($j: ID!, $s: String!) { completeStep(jobId: $j, stepName: $s) { seq } }', { j: job, s: step }, worker);
    }

    const stored = await storedEvents();
    // Project, log, milestone, inspiration, update and job events: every kind of stream is in the burst.
    expect(new Set(stored.map((e) => e.stream))).toEqual(new Set(['job', 'activity']));
    // 3 × (project created, log, milestone, inspiration, project updated), and the job's 5 (created, 2 × started and completed).
    expect(stored).toHaveLength(20);

    // The stream is read until it holds every stored event (or the test's time runs out).
    const envelopes: Envelope[] = [];
    const wanted = new Set(stored.map((e) => String(e.eventId)));
    const seen = () => new Set(envelopes.map((e) => e.detail.id));
    while ([...wanted].some((id) => !seen().has(id))) {
      const records = await reader.poll();
      for (const record of records) {
        const envelope = envelopeOf(record);
        if (envelope?.detail.tenant === TENANT) envelopes.push(envelope);
      }
      // Nothing new yet: DynamoDB Local publishes to its stream a moment after the commit.
      if (records.length === 0) await new Promise((resolve) => setTimeout(resolve, 200));
    }

    // Once each: no event twice, none that the table does not hold.
    expect(envelopes.map((e) => e.detail.id).sort()).toEqual([...wanted].sort());
    const byId = new Map(stored.map((e) => [String(e.eventId), e]));
    for (const { source, 'detail-type': detailType, detail } of envelopes) {
      const item = byId.get(detail.id)!;
      expect({ source, detailType, ...detail, item: unmarshall(detail.item) }).toEqual({
        source: 'artissist.graphql',
        detailType: 'artissist.event.v1',
        version: '1',
        id: item.eventId,
        tenant: TENANT,
        action: item.action,
        subject: { type: item.subjectType, id: item.subjectId },
        stream: item.stream,
        position: item.SK,
        at: item.at,
        actor: item.actor,
        // The item as committed: the outbox clears its index attributes later, which the stream
        // shows as a MODIFY the filter drops.
        item: expect.objectContaining({ PK: item.PK, SK: item.SK, eventId: item.eventId }),
      });
    }
    const actions = new Set(envelopes.map((e) => e.detail.action));
    for (const action of ['project.created', 'project.updated', 'log.created', 'milestone.created', 'inspiration.created'])
      expect(actions).toContain(action);
    // The job's stream in its order (the last completion finishes the job in the same event).
    expect(envelopes.filter((e) => e.detail.stream === 'job').map((e) => e.detail.action)).toEqual([
      'job.job_created',
      'job.step_started',
      'job.step_completed',
      'job.step_started',
      'job.step_completed',
    ]);
    // A job's events come in its order, as positions say.
    const jobPositions = envelopes.filter((e) => e.detail.subject.id === job).map((e) => e.detail.position);
    expect(jobPositions).toEqual([...jobPositions].sort());
  });

  it('prints the same envelopes with `npm run events:tail -- --from-start --once`', async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['dist/src/scripts/events-tail.js', '--from-start', '--once', '--endpoint', testEndpoint(), '--table', server.config.tableName],
      { cwd: ROOT, timeout: 60_000 },
    );
    const printed: Envelope[] = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    const ids = printed.filter((e) => e.detail.tenant === TENANT).map((e) => e.detail.id);
    expect(ids.sort()).toEqual((await storedEvents()).map((e) => String(e.eventId)).sort());
  });
});
