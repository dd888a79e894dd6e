import { shapeObjectType } from '../common/model-types';
import { attr } from '../infra/dynamo/entity';
import { InputType } from 'type-graphql';
import { entities, type EntityItem } from '../common/entities';
import { argsType, enumOf, modelTypes } from '../common/model-types';
import { keyArgsOf } from '../common/standard-resolver';
import { PageArgs } from '../common/pagination';

/** A log's attribution statuses and their GraphQL enum, from the declaration's status machine. */
export const AttributionStatus = enumOf(entities.Log, 'attributionStatus', entities.Log.states, 'AttributionStatus');
export type AttributionStatus = (typeof AttributionStatus)[keyof typeof AttributionStatus];

/**
 * A log's GraphQL types, from its declaration (src/common/entities.ts); made after its status enum
 * above, which they take by name. Its assets are a field resolver in src/asset.
 */
export const { type: Log, connection: LogConnection, createInput: CreateLogInput, updateInput } = modelTypes(entities.Log);
export type Log = EntityItem<'Log'>;

/** What a log's update changes is what was extracted from it, hence its name. */
@InputType('UpdateLogExtractionInput', { description: 'New extraction results; an omitted field is kept, a null clears it.' })
export class UpdateLogExtractionInput extends updateInput {}

export const MaterialUsage = shapeObjectType({
  name: 'MaterialUsage',
  description: 'Where a material was used: the logs and the minutes they add up to.',
  fields: {
    material: attr.string({ required: true, description: 'The material asked for, normalized (lower case, single spaces).' }),
    logCount: attr.int({ required: true, description: 'How many logs used it.' }),
    totalMinutes: attr.int({ required: true, description: 'The minutes of those logs, added up.' }),
    logs: attr.json<Log[]>()({ required: true, apiType: '[Log]', description: 'The logs that used it, oldest first.' }),
  },
});
export type MaterialUsage = InstanceType<typeof MaterialUsage>;

/** The arguments that name one log: its project's id and its own, from its key template. */
export const LogRef = keyArgsOf(entities.Log);
export type LogRef = InstanceType<typeof LogRef>;

export const LogsByAttributionArgs = argsType(
  'LogsByAttributionArgs',
  { status: attr.json<AttributionStatus>()({ required: true, apiType: 'AttributionStatus', description: 'The status to list.' }) },
  PageArgs,
);
export type LogsByAttributionArgs = InstanceType<typeof LogsByAttributionArgs>;
