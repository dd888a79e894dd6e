import { registerDeclaredEnum } from '../common/model-types';
import { enumObject } from '../infra/dynamo/entity';
import { JOB_EVENT_TYPES, JobEventType } from '../job/job.machine';
import type { JobEvent } from '../job/job.type';

/**
 * The messages a job stream (jobProgress, jobStatusChanges) makes itself, besides the job's stored
 * events, each with what the API's JobEventType says of it. They belong to the stream, not to the
 * job: no decision makes them and none is stored, so they are listed here, with the streams.
 */
export const STREAM_MESSAGE_TYPES = {
  RESYNC: 'Not stored: this slow subscriber missed events; resubscribe after this position.',
  SUBSCRIBED: 'Not stored: the first message of every subscription; its position is where it starts.',
  HISTORY_LOST: 'Not stored: the resume position is older than the stored history; nothing is replayed: re-query, then read on from here.',
} as const;

/** A stream's own messages, by name: `StreamMessageType.SUBSCRIBED`. */
export const StreamMessageType = enumObject(
  Object.keys(STREAM_MESSAGE_TYPES).filter((type): type is StreamMessageType => type in STREAM_MESSAGE_TYPES),
);
export type StreamMessageType = keyof typeof STREAM_MESSAGE_TYPES;

/** A message of a job stream: one of the job's stored events, or one of the stream's own messages (then its type says which). */
export type JobMessage = Omit<JobEvent, 'type'> & { type: JobEventType | StreamMessageType };

// The API's JobEventType is what a job stream's message may say: the stored events' types, then the
// stream's own messages, in that order. JobEvent's `type` names it (src/job/job.type.ts); it is
// registered here, with the streams, before the schema is built from the features.
registerDeclaredEnum(
  { ...JobEventType, ...StreamMessageType },
  {
    name: 'JobEventType',
    description: 'What a jobProgress or jobStatusChanges message says happened.',
    values: { ...JOB_EVENT_TYPES, ...STREAM_MESSAGE_TYPES },
  },
);
