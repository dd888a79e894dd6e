import { Node } from '../common/node.type';
import { ArgsType, Field, ID, InputType, Int, ObjectType } from 'type-graphql';
import { entities } from '../common/entities';
import { enumOf } from '../common/model-types';
import { Versioned } from '../common/versioned.type';
import { Connection, PageArgs } from '../common/pagination';
import { JSONObject, JSONValue } from '../common/scalars';

/** A log's attribution statuses and their GraphQL enum, from the declaration's status machine. */
export const AttributionStatus = enumOf(entities.Log, 'attributionStatus', entities.Log.states, 'AttributionStatus');
export type AttributionStatus = (typeof AttributionStatus)[keyof typeof AttributionStatus];

@ObjectType({
  simpleResolvers: true,
  implements: Node,
  description: 'A work log: a transcription and what AI extracted from it (materials, time, tags).',
})
export class Log extends Versioned {
  @Field(() => ID, { description: "The log's id (log_…)." })
  logId!: string;

  @Field(() => ID, { description: 'The project it belongs to.' })
  projectId!: string;

  @Field(() => String, { nullable: true, description: 'The original transcription.' })
  rawText?: string;

  @Field(() => JSONObject, { nullable: true, description: 'Audio metadata of the transcription.' })
  transcriptMeta?: Record<string, unknown>;

  @Field(() => JSONObject, { nullable: true, description: 'Structured AI extraction results.' })
  extracted?: Record<string, unknown>;

  @Field(() => JSONValue, { nullable: true, description: 'AI confidence scores.' })
  confidence?: unknown;

  @Field(() => AttributionStatus, { description: 'Whether a person confirmed the extraction: PENDING, CONFIRMED or REJECTED.' })
  attributionStatus!: AttributionStatus;

  @Field(() => [String], { description: 'S3 object keys of linked media.' })
  mediaRefs!: string[];

  @Field(() => [String], { description: 'Materials used, as extracted.' })
  materials!: string[];

  @Field(() => Int, { nullable: true, description: 'Minutes spent on the work logged.' })
  timeSpentMinutes?: number;

  @Field(() => [String], { description: 'Tags of the log.' })
  tags!: string[];

  /** Ids of assets linked to this log, kept in step by the asset writes. */
  assetIds?: Set<string>;
}

@ObjectType({ simpleResolvers: true, description: 'A page of logs, with the cursor to the next page.' })
export class LogConnection extends Connection(Log) {}

@ObjectType({ simpleResolvers: true, description: 'Where a material was used: the logs and the minutes they add up to.' })
export class MaterialUsage {
  @Field({ description: 'The material asked for, normalized (lower case, single spaces).' })
  material!: string;

  @Field(() => Int, { description: 'How many logs used it.' })
  logCount!: number;

  @Field(() => Int, { description: 'The minutes of those logs, added up.' })
  totalMinutes!: number;

  @Field(() => [Log], { description: 'The logs that used it, oldest first.' })
  logs!: Log[];
}

@InputType({ description: 'A new work log: what was said or written, and what was used for how long.' })
export class CreateLogInput {
  @Field(() => String, { nullable: true, description: 'What was said or written (a voice transcription, say).' })
  rawText?: string | null;

  @Field(() => JSONObject, { nullable: true, description: "The transcription's metadata (engine, language, duration …), as JSON." })
  transcriptMeta?: Record<string, unknown> | null;

  @Field(() => JSONObject, { nullable: true, description: 'What AI extracted from the text, as JSON.' })
  extracted?: Record<string, unknown> | null;

  @Field(() => JSONValue, { nullable: true, description: "The extraction's confidence, as JSON." })
  confidence?: unknown;

  @Field(() => [String], { nullable: true, description: 'S3 keys of recordings or photos under tenants/<your tenant>/ (no URLs).' })
  mediaRefs?: string[] | null;

  @Field(() => [String], { nullable: true, description: 'Materials used; each becomes findable with materialUsage.' })
  materials?: string[] | null;

  @Field(() => Int, { nullable: true, description: 'Minutes spent on the work logged.' })
  timeSpentMinutes?: number | null;

  @Field(() => [String], { nullable: true, description: 'Tags of the log.' })
  tags?: string[] | null;
}

@InputType({ description: 'New extraction results; an omitted field is kept, a null clears it.' })
export class UpdateLogExtractionInput {
  @Field(() => JSONObject, { nullable: true, description: 'What AI extracted from the text, as JSON.' })
  extracted?: Record<string, unknown> | null;

  @Field(() => JSONValue, { nullable: true, description: "The extraction's confidence, as JSON." })
  confidence?: unknown;

  @Field(() => [String], { nullable: true, description: 'Materials used (replaces the old list).' })
  materials?: string[] | null;

  @Field(() => Int, { nullable: true, description: 'Minutes spent on the work logged.' })
  timeSpentMinutes?: number | null;

  @Field(() => [String], { nullable: true, description: 'Tags of the log (replaces the old ones).' })
  tags?: string[] | null;

  @Field(() => [String], { nullable: true, description: 'S3 keys of recordings or photos under tenants/<your tenant>/.' })
  mediaRefs?: string[] | null;
}

@ArgsType()
export class LogRef {
  @Field(() => ID, { description: "The project's id." })
  projectId!: string;

  @Field(() => ID, { description: "The log's id." })
  logId!: string;
}

@ArgsType()
export class LogsArgs extends PageArgs {
  @Field(() => ID, { description: "The project's id." })
  projectId!: string;
}

@ArgsType()
export class LogsByAttributionArgs extends PageArgs {
  @Field(() => AttributionStatus, { description: 'The status to list.' })
  status!: AttributionStatus;
}
