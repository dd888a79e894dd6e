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
  @Field(() => ID)
  logId!: string;

  @Field(() => ID)
  projectId!: string;

  @Field(() => String, { nullable: true, description: 'The original transcription.' })
  rawText?: string;

  @Field(() => JSONObject, { nullable: true, description: 'Audio metadata of the transcription.' })
  transcriptMeta?: Record<string, unknown>;

  @Field(() => JSONObject, { nullable: true, description: 'Structured AI extraction results.' })
  extracted?: Record<string, unknown>;

  @Field(() => JSONValue, { nullable: true, description: 'AI confidence scores.' })
  confidence?: unknown;

  @Field(() => AttributionStatus)
  attributionStatus!: AttributionStatus;

  @Field(() => [String], { description: 'S3 object keys of linked media.' })
  mediaRefs!: string[];

  @Field(() => [String], { description: 'Materials used, as extracted.' })
  materials!: string[];

  @Field(() => Int, { nullable: true })
  timeSpentMinutes?: number;

  @Field(() => [String])
  tags!: string[];

  /** Ids of assets linked to this log, kept in step by the asset writes. */
  assetIds?: Set<string>;
}

@ObjectType({ simpleResolvers: true, description: 'A page of logs, with the cursor to the next page.' })
export class LogConnection extends Connection(Log) {}

@ObjectType({ simpleResolvers: true, description: 'Where a material was used: the logs and the minutes they add up to.' })
export class MaterialUsage {
  @Field()
  material!: string;

  @Field(() => Int)
  logCount!: number;

  @Field(() => Int)
  totalMinutes!: number;

  @Field(() => [Log], { description: 'The logs that used it, oldest first.' })
  logs!: Log[];
}

@InputType({ description: 'A new work log: what was said or written, and what was used for how long.' })
export class CreateLogInput {
  @Field(() => String, { nullable: true })
  rawText?: string | null;

  @Field(() => JSONObject, { nullable: true })
  transcriptMeta?: Record<string, unknown> | null;

  @Field(() => JSONObject, { nullable: true })
  extracted?: Record<string, unknown> | null;

  @Field(() => JSONValue, { nullable: true })
  confidence?: unknown;

  @Field(() => [String], { nullable: true })
  mediaRefs?: string[] | null;

  @Field(() => [String], { nullable: true })
  materials?: string[] | null;

  @Field(() => Int, { nullable: true })
  timeSpentMinutes?: number | null;

  @Field(() => [String], { nullable: true })
  tags?: string[] | null;
}

@InputType({ description: 'New extraction results; an omitted field is kept, a null clears it.' })
export class UpdateLogExtractionInput {
  @Field(() => JSONObject, { nullable: true })
  extracted?: Record<string, unknown> | null;

  @Field(() => JSONValue, { nullable: true })
  confidence?: unknown;

  @Field(() => [String], { nullable: true })
  materials?: string[] | null;

  @Field(() => Int, { nullable: true })
  timeSpentMinutes?: number | null;

  @Field(() => [String], { nullable: true })
  tags?: string[] | null;

  @Field(() => [String], { nullable: true })
  mediaRefs?: string[] | null;
}

@ArgsType()
export class LogRef {
  @Field(() => ID)
  projectId!: string;

  @Field(() => ID)
  logId!: string;
}

@ArgsType()
export class LogsArgs extends PageArgs {
  @Field(() => ID)
  projectId!: string;
}

@ArgsType()
export class LogsByAttributionArgs extends PageArgs {
  @Field(() => AttributionStatus)
  status!: AttributionStatus;
}
