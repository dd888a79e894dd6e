import type { AttributeValue } from '@aws-sdk/client-dynamodb';

/*
 * The downstream contract: what the deploy template's EventBridge Pipe sends to the event bus for
 * each event item the table's stream carries, and what `npm run events:tail` prints locally. One
 * declaration (ENVELOPE_FIELDS) makes both the Pipe's input template and the pure mapping
 * `envelopeOf`, so the two cannot say different things; docs/operations.md documents it.
 *
 * Versioned: a field is never renamed, retyped or removed within a version. Adding a field is
 * allowed; anything else is a new DETAIL_TYPE (`artissist.event.v2`), sent beside the old one for
 * as long as consumers need it.
 */

/** The envelope's version, also the suffix of its detail type. */
export const ENVELOPE_VERSION = '1';
/** EventBridge's `source` of every event the Pipe sends. */
export const DOWNSTREAM_SOURCE = 'artissist.graphql';
/** EventBridge's `detail-type`: one per envelope version, so a rule matches the version it reads. */
export const DOWNSTREAM_DETAIL_TYPE = `artissist.event.v${ENVELOPE_VERSION}`;

/**
 * The streams whose event items go downstream: a job's own events, a project's activity, and the
 * tenant's own activity and audit records. The job status streams of a project and of the tenant
 * (`projectJobs`, `tenantJobs`) hold copies of job events with the same event id, so they stay
 * home: each event leaves the table once.
 */
export const DOWNSTREAM_STREAMS = ['job', 'activity', 'audit'] as const;

/** The sort-key prefix of every event item. */
const EVENT_SK_PREFIX = 'EVENT#';

/**
 * The attribute (an ISO time) that marks an event item put back from cold storage by
 * restoreProject. Such an item is an old event written again, not a new one: it left the table
 * once when it was committed, so the filter drops its second INSERT.
 */
export const RESTORED_ATTRIBUTE = 'restoredAt';

/**
 * The Pipe's filter (an EventBridge event pattern over the stream record): only new items
 * (INSERT: the outbox's later update of an event and a TTL deletion are MODIFY and REMOVE), only
 * event items, only the streams above, and none put back by a restore (`exists: false` matches
 * only a leaf, so it names the string inside the attribute).
 */
export const DOWNSTREAM_FILTER = {
  eventName: ['INSERT'],
  dynamodb: {
    Keys: { SK: { S: [{ prefix: EVENT_SK_PREFIX }] } },
    NewImage: {
      entityType: { S: ['Event'] },
      stream: { S: [...DOWNSTREAM_STREAMS] },
      [RESTORED_ATTRIBUTE]: { S: [{ exists: false }] },
    },
  },
};

/** A string attribute of the new image, named by the attribute. */
interface StringField {
  attribute: string;
}
/** The whole new image, in DynamoDB's attribute-value JSON (as the stream carries it). */
interface ImageField {
  image: true;
}
type EnvelopeField = StringField | ImageField | { [name: string]: EnvelopeField };

/**
 * The envelope's `detail`, field by field: each a string attribute every downstream event item
 * carries (so no path of the template is ever missing), or the whole image.
 */
const ENVELOPE_FIELDS: Record<string, EnvelopeField> = {
  /** The event's id: the same for every delivery of one event, so consumers deduplicate on it. */
  id: { attribute: 'eventId' },
  tenant: { attribute: 'tenantId' },
  /** What happened: `<entity>.<verb>` (`project.created`, `job.step_completed`). */
  action: { attribute: 'action' },
  subject: { type: { attribute: 'subjectType' }, id: { attribute: 'subjectId' } },
  stream: { attribute: 'stream' },
  /** The event's place in its stream; see docs/operations.md. */
  position: { attribute: 'SK' },
  at: { attribute: 'at' },
  actor: { attribute: 'actor' },
  item: { image: true },
};

/** The envelope's `detail` as a consumer receives it (version 1). */
export interface EnvelopeDetail {
  version: string;
  id: string;
  tenant: string;
  action: string;
  subject: { type: string; id: string };
  stream: string;
  position: string;
  at: string;
  actor: string;
  /** The event item as stored, in DynamoDB's attribute-value JSON. */
  item: Record<string, AttributeValue>;
}

/** An EventBridge event as the Pipe puts it on the bus (the fields this contract fixes). */
export interface Envelope {
  source: string;
  'detail-type': string;
  detail: EnvelopeDetail;
}

/** The part of a DynamoDB stream record the mapping reads (the SDK's and the Pipe's records have it). */
export interface StreamRecordLike {
  eventName?: string;
  dynamodb?: { Keys?: Record<string, AttributeValue>; NewImage?: Record<string, AttributeValue> };
}

const isImage = (field: EnvelopeField): field is ImageField => 'image' in field && field.image === true;
const isString = (field: EnvelopeField): field is StringField => 'attribute' in field && typeof field.attribute === 'string';

/**
 * The Pipe's input template for the envelope's detail: each string field a quoted JSON path into
 * the new image, the image itself unquoted (EventBridge quotes nothing it substitutes, so strings
 * are quoted here and objects are not).
 */
export function envelopeTemplate(): string {
  const render = (fields: Record<string, EnvelopeField>): string =>
    `{${Object.entries(fields)
      .map(([name, field]) => {
        if (isImage(field)) return `"${name}": <$.dynamodb.NewImage>`;
        if (isString(field)) return `"${name}": "<$.dynamodb.NewImage.${field.attribute}.S>"`;
        return `"${name}": ${render(field)}`;
      })
      .join(', ')}}`;
  const inner = render(ENVELOPE_FIELDS);
  return `{"version": "${ENVELOPE_VERSION}", ${inner.slice(1)}`;
}

/** True when the record passes DOWNSTREAM_FILTER: a new event item of a downstream stream, not one a restore put back. */
export function goesDownstream(record: StreamRecordLike): boolean {
  const image = record.dynamodb?.NewImage;
  const sk = record.dynamodb?.Keys?.SK?.S;
  const stream = image?.stream?.S;
  return (
    record.eventName === 'INSERT' &&
    typeof sk === 'string' &&
    sk.startsWith(EVENT_SK_PREFIX) &&
    image?.entityType?.S === 'Event' &&
    DOWNSTREAM_STREAMS.some((name) => name === stream) &&
    image[RESTORED_ATTRIBUTE] === undefined
  );
}

/**
 * The envelope the Pipe sends for `record`, or null when its filter drops the record. Pure: the
 * same record always gives the same envelope. Throws when an event item lacks a field of the
 * contract (a writer broke it; the Pipe would send an empty string there).
 */
export function envelopeOf(record: StreamRecordLike): Envelope | null {
  if (!goesDownstream(record)) return null;
  const image = record.dynamodb?.NewImage ?? {};
  const read = (attribute: string): string => {
    const value = image[attribute]?.S;
    if (typeof value !== 'string') throw new Error(`An event item lacks the string attribute "${attribute}" of the downstream envelope.`);
    return value;
  };
  return {
    source: DOWNSTREAM_SOURCE,
    'detail-type': DOWNSTREAM_DETAIL_TYPE,
    detail: {
      version: ENVELOPE_VERSION,
      id: read('eventId'),
      tenant: read('tenantId'),
      action: read('action'),
      subject: { type: read('subjectType'), id: read('subjectId') },
      stream: read('stream'),
      position: read('SK'),
      at: read('at'),
      actor: read('actor'),
      item: image,
    },
  };
}
