import { marshall } from '@aws-sdk/util-dynamodb';
import {
  DOWNSTREAM_DETAIL_TYPE,
  DOWNSTREAM_FILTER,
  DOWNSTREAM_SOURCE,
  envelopeOf,
  envelopeTemplate,
  goesDownstream,
  RESTORED_ATTRIBUTE,
  type StreamRecordLike,
} from '../../src/infra/dynamo/downstream';

/*
 * The downstream contract has two spellings: the Pipe's filter and input template (which AWS
 * evaluates) and envelopeOf (which `npm run events:tail` runs). These tests evaluate the first as
 * EventBridge documents it and require the second to say the same for every kind of record.
 */

/** Evaluates a Pipe input template over `record`: a quoted `<$.path>` becomes the string there, a bare one the JSON there. */
function renderTemplate(template: string, record: unknown): unknown {
  const at = (path: string): unknown =>
    path
      .replace(/^\$\./, '')
      .split('.')
      .reduce<unknown>((value, name) => (value && typeof value === 'object' ? Reflect.get(value, name) : undefined), record);
  const text = template
    .replace(/"<(\$[^>]*)>"/g, (_, path: string) => JSON.stringify(String(at(path) ?? '')))
    .replace(/<(\$[^>]*)>/g, (_, path: string) => JSON.stringify(at(path) ?? null));
  return JSON.parse(text);
}

/** Matches an EventBridge event pattern of the forms the filter uses: value lists, `prefix` and `exists`. */
function matches(pattern: unknown, value: unknown): boolean {
  if (Array.isArray(pattern))
    return pattern.some((p) => {
      if (p && typeof p === 'object' && 'exists' in p) return (value !== undefined) === p.exists;
      return p && typeof p === 'object' && 'prefix' in p ? typeof value === 'string' && value.startsWith(p.prefix) : p === value;
    });
  if (!pattern || typeof pattern !== 'object') return false;
  return Object.entries(pattern).every(([key, inner]) =>
    matches(inner, value && typeof value === 'object' ? Reflect.get(value, key) : undefined),
  );
}

const record = (eventName: string, item: Record<string, unknown>): StreamRecordLike => ({
  eventName,
  dynamodb: { Keys: marshall({ PK: item.PK, SK: item.SK }), NewImage: marshall(item, { removeUndefinedValues: true }) },
});

const jobEvent = {
  PK: 'TENANT#acme#JOB#job_01',
  SK: 'EVENT#0000000003',
  entityType: 'Event',
  stream: 'job',
  position: 3,
  eventId: 'job_01:3',
  tenantId: 'acme',
  jobId: 'job_01',
  type: 'STEP_COMPLETED',
  action: 'job.step_completed',
  subjectType: 'Job',
  subjectId: 'job_01',
  actor: 'worker-1',
  at: '2026-11-26T11:00:00.000Z',
  job: { status: 'RUNNING', progress: 50 },
};
const activity = {
  PK: 'TENANT#acme#PROJECT#proj_01#EVENTS',
  SK: 'EVENT#000000000012',
  entityType: 'Event',
  stream: 'activity',
  position: 12,
  eventId: 'evt_01',
  tenantId: 'acme',
  projectId: 'proj_01',
  action: 'log.created',
  subjectType: 'Log',
  subjectId: 'log_01',
  actor: 'alice',
  at: '2026-11-26T11:00:01.000Z',
  data: { minutes: 30 },
};

describe('the downstream envelope', () => {
  it("is what the Pipe's input template makes of a stream record, for a job's event and a project's activity", () => {
    for (const item of [jobEvent, activity]) {
      const r = record('INSERT', item);
      const envelope = envelopeOf(r);
      expect(envelope).toEqual({
        source: DOWNSTREAM_SOURCE,
        'detail-type': DOWNSTREAM_DETAIL_TYPE,
        detail: {
          version: '1',
          id: item.eventId,
          tenant: 'acme',
          action: item.action,
          subject: { type: item.subjectType, id: item.subjectId },
          stream: item.stream,
          position: item.SK,
          at: item.at,
          actor: item.actor,
          item: r.dynamodb?.NewImage,
        },
      });
      expect(renderTemplate(envelopeTemplate(), r)).toEqual(envelope?.detail);
    }
  });

  it('passes exactly the records the Pipe filter passes: new event items of the job, activity and audit streams', () => {
    const cases: [StreamRecordLike, boolean][] = [
      [record('INSERT', jobEvent), true],
      [record('INSERT', activity), true],
      [record('INSERT', { ...activity, stream: 'audit' }), true],
      // An old event put back by restoreProject: it left the table when it was committed.
      [record('INSERT', { ...activity, [RESTORED_ATTRIBUTE]: '2027-03-01T00:00:00.000Z' }), false],
      // The outbox's removal of its attributes, and a TTL deletion.
      [record('MODIFY', jobEvent), false],
      [record('REMOVE', jobEvent), false],
      // Copies of a job's event in the status streams: the job's own event goes downstream.
      [record('INSERT', { ...jobEvent, PK: 'TENANT#acme#JOBSTATUS', stream: 'tenantJobs' }), false],
      [record('INSERT', { ...jobEvent, PK: 'TENANT#acme#PROJECT#proj_01#JOBSTATUS', stream: 'projectJobs' }), false],
      // Not events: a job, a stream's head.
      [record('INSERT', { PK: 'TENANT#acme#JOB#job_01', SK: 'JOB', entityType: 'Job', status: 'RUNNING' }), false],
      [record('INSERT', { PK: 'TENANT#acme#PROJECT#proj_01#EVENTS', SK: 'HEAD', entityType: 'StreamHead', position: 12 }), false],
    ];
    for (const [r, expected] of cases) {
      expect({ image: r.dynamodb?.NewImage?.SK, stream: r.dynamodb?.NewImage?.stream, goes: goesDownstream(r) }).toEqual({
        image: r.dynamodb?.NewImage?.SK,
        stream: r.dynamodb?.NewImage?.stream,
        goes: expected,
      });
      expect(matches(DOWNSTREAM_FILTER, r)).toBe(expected);
      expect(envelopeOf(r) !== null).toBe(expected);
    }
  });

  it('refuses an event item that lacks a field of the contract, instead of sending an empty one', () => {
    const { action: _action, ...withoutAction } = activity;
    expect(() => envelopeOf(record('INSERT', withoutAction))).toThrow('lacks the string attribute "action"');
  });
});
