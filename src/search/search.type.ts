import { Field, Int, ObjectType, registerEnumType } from 'type-graphql';
import { argsType, connectionOf, registerApiType } from '../common/model-types';
import { attr } from '../infra/dynamo/entity';
import { Node } from '../common/node.type';
import { PageArgs } from '../common/pagination';
import { searchableModels } from '../common/search';

/** The searchable entity types, as a GraphQL enum: `PROJECT: 'Project'`, derived from the declarations. */
export const SearchType: Record<string, string> = Object.fromEntries(
  [...searchableModels.keys()].map((type) => [type.toUpperCase(), type]),
);

// Registered with type-graphql here (its values are the searchable types, not a declaration's), and by name for the arguments.
registerApiType('SearchType', SearchType);
registerEnumType(SearchType, {
  name: 'SearchType',
  description: 'The kinds of entity that search(text) finds.',
  valuesConfig: Object.fromEntries(
    [...searchableModels].map(([type, model]) => [type.toUpperCase(), { description: `Its words: ${model.search?.fields.join(', ')}.` }]),
  ),
});

@ObjectType({ simpleResolvers: true, description: 'One entity that search(text) found, and how well it matched.' })
export class SearchHit {
  // Read when asked for, as a promise: resolved by a resolver of its own so compiled queries await it.
  @Field(() => Node, {
    simple: false,
    description: 'The entity found: a Project, Log, Asset or Inspiration (ask with `... on Log { … }`).',
  })
  entity!: object;

  @Field(() => SearchType, { description: 'Which kind of entity it is.' })
  type!: string;

  @Field(() => Int, { description: 'How many of its searchable fields a query word matched: hits are ranked by it, then newest first.' })
  score!: number;

  @Field(() => [String], { description: 'The searchable fields a query word matched (title, rawText, materials, alt, ocr, text, tags).' })
  matchedFields!: string[];
}

export const SearchConnection = connectionOf(
  SearchHit,
  'A page of search hits, best first, with the cursors to read on.',
  'SearchConnection',
);

export const SearchArgs = argsType(
  'SearchArgs',
  {
    text: attr.string({
      required: true,
      description:
        'Words to find, in any order: each must start a word of the entity (prefix match), case and accents ignored, every word required. At most 8 words, 500 characters.',
    }),
    types: attr.json<string[]>()({ apiType: '[SearchType]', description: 'Only these kinds of entity; all of them when omitted.' }),
  },
  PageArgs,
);
export type SearchArgs = InstanceType<typeof SearchArgs>;
