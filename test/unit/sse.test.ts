import 'reflect-metadata';
import { parse, print } from 'graphql';
import { JOB_STATUS_SHARDS } from '../../src/common/streams';
import { encodeCursor } from '../../src/events/shard-cursor';
import { resumeDocumentAt, wantsEventStream } from '../../src/http/sse';
import { buildAppSchema } from '../../src/schema';

describe('which requests are event streams', () => {
  it('takes what EventSource, graphql-sse and urql’s subscriptions send, and leaves JSON-first clients to Apollo', () => {
    // EventSource and graphql-sse's client.
    expect(wantsEventStream('text/event-stream')).toBe(true);
    // urql's subscriptions over fetch.
    expect(wantsEventStream('text/event-stream, multipart/mixed')).toBe(true);
    // urql's queries list event streams too, after the JSON types: they get JSON.
    expect(
      wantsEventStream('application/graphql-response+json, application/graphql+json, application/json, text/event-stream, multipart/mixed'),
    ).toBe(false);
    // Apollo Client, curl, a browser's address bar, none at all.
    expect(wantsEventStream('application/graphql-response+json,application/json;q=0.9')).toBe(false);
    expect(wantsEventStream('*/*')).toBe(false);
    expect(wantsEventStream('text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8')).toBe(false);
    expect(wantsEventStream(undefined)).toBe(false);
  });
});

describe('resuming at a Last-Event-ID', () => {
  const schema = buildAppSchema();
  const resume = (query: string, position: number | string) => {
    const document = resumeDocumentAt(schema, parse(query), position);
    return document && print(document).replace(/\s+/g, ' ').trim();
  };

  it('sets the declared resume argument, whatever the client wrote there', () => {
    expect(resume('subscription($j: ID!, $a: Int) { jobProgress(jobId: $j, afterSeq: $a) { seq } }', 7)).toBe(
      'subscription ($j: ID!, $a: Int) { jobProgress(jobId: $j, afterSeq: 7) { seq } }',
    );
    expect(resume('subscription { jobProgress(jobId: "job_1", afterSeq: 2) { seq } }', 7)).toBe(
      'subscription { jobProgress(jobId: "job_1", afterSeq: 7) { seq } }',
    );
    expect(resume('subscription { projectActivity(projectId: "proj_1") { position } }', 0)).toBe(
      'subscription { projectActivity(projectId: "proj_1", after: 0) { position } }',
    );
    expect(resume('subscription { jobStatusChanges { position } }', 3)).toBe('subscription { jobStatusChanges(after: 3) { position } }');
    // Through a fragment on the subscription type too; a nested field of the same name is left alone.
    expect(resume('subscription { ...F } fragment F on Subscription { jobStatusChanges { position } }', 4)).toBe(
      'subscription { ...F } fragment F on Subscription { jobStatusChanges(after: 4) { position } }',
    );
  });

  it("sets a sharded stream's cursor argument for a cursor, and drops the position argument beside it", () => {
    const cursor = encodeCursor(Array.from({ length: JOB_STATUS_SHARDS }, (_, shard) => shard));
    // (The printer breaks a long argument list onto lines of its own: its spaces are taken out.)
    expect(resume('subscription($a: Int) { jobStatusChanges(after: $a) { cursor } }', cursor)?.replace(/\( | \)/g, (m) => m.trim())).toBe(
      `subscription ($a: Int) { jobStatusChanges(afterCursor: "${cursor}") { cursor } }`,
    );
    // A field with no cursor argument has nothing a cursor resumes.
    expect(resume('subscription { jobProgress(jobId: "job_1") { seq } }', cursor)).toBeUndefined();
  });

  it('has nothing to resume in a query or mutation', () => {
    expect(resume('{ viewer { tenantId } }', 1)).toBeUndefined();
  });
});
