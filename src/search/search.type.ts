import { registerEnumType } from 'type-graphql';
import { argsType, connectionOf, registerApiType, shapeObjectType } from '../common/model-types';
import { attr } from '../infra/dynamo/entity';
import { PageArgs } from '../common/pagination';
import { searchableModels } from '../common/search';
import { SEARCH_HIT } from './search.repository';

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

/** A search hit as the API shows it, from its declaration (SEARCH_HIT, src/search/search.repository.ts); its entity is SearchHitResolver's. */
export const SearchHit = shapeObjectType(SEARCH_HIT);
export type SearchHit = InstanceType<typeof SearchHit>;

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
