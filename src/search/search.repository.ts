import { entities } from '../common/entities';
import { indexedWords, searchableModels, wordQuery, wordsOf } from '../common/search';
import type { Scope } from '../common/scope';
import { requireText } from '../common/validate';
import { AppError, badInput, ErrorCode } from '../errors';
import { type AnyModel, attr, type SearchDeclaration, type ShapeValues } from '../infra/dynamo/entity';
import type { Item, Page, PageRequest } from '../infra/dynamo/store';

/** The most words a query may have. */
export const MAX_QUERY_WORDS = 8;

/**
 * The most word items one query word may match (the entities whose words start with it, one item
 * per such word): past it the query is refused as too broad, so a search never reads more.
 */
export const MAX_SEARCH_CANDIDATES = 1000;

/** The searchable fields over every searchable entity, in declaration order. */
const searchedFields = [...new Set([...searchableModels.values()].flatMap((model) => model.search?.fields ?? []))];

/**
 * One entity found, with the fields its words matched in (the API's SearchHit): what the search
 * answers with, and what its view shows. The entity is shown by a resolver of its own (SearchHitResolver).
 */
export const SEARCH_HIT = {
  name: 'SearchHit',
  description: 'One entity that search(text) found, and how well it matched.',
  fields: {
    /** The item of whichever searchable entity it is (`type`), as stored: the SearchHit's `entity` field resolver shows it as a Node. */
    entity: attr.json<object>()({ required: true, hidden: true }),
    type: attr.json<string>()({ required: true, apiType: 'SearchType', description: 'Which kind of entity it is.' }),
    score: attr.int({
      required: true,
      description: 'How many of its searchable fields a query word matched: hits are ranked by it, then newest first.',
    }),
    matchedFields: attr.strings({
      required: true,
      description: `The searchable fields a query word matched (${searchedFields.join(', ')}).`,
    }),
    /** Its place among hits of one score: the id's time-ordered part, then the id (newest first). */
    order: attr.string({ required: true, hidden: true }),
  },
} as const;
export type SearchHitItem = ShapeValues<typeof SEARCH_HIT>;

/**
 * The searchable fields in which `query`'s words match the entity's indexed words (each query
 * word the start of one of its words), in declared order; null unless every query word matches.
 */
export function matchedFields(search: SearchDeclaration, item: Record<string, unknown>, query: readonly string[]): string[] | null {
  const words = indexedWords(search, item);
  const matched = new Set<string>();
  for (const wanted of query) {
    let found = false;
    for (const [word, fields] of words) {
      if (!word.startsWith(wanted)) continue;
      found = true;
      for (const field of fields) matched.add(field);
    }
    if (!found) return null;
  }
  return search.fields.filter((field) => matched.has(field));
}

/** The ranking: more fields matched first, then newer first (negative when `a` ranks before `b`). */
function rank(a: Record<string, unknown>, b: Record<string, unknown>): number {
  const [sa, sb] = [Number(a.score), Number(b.score)];
  if (sa !== sb) return sb - sa;
  const [oa, ob] = [String(a.order), String(b.order)];
  return oa === ob ? 0 : oa > ob ? -1 : 1;
}

/** A hit's place in the ranking, which its cursor carries. */
const positionOf = (hit: SearchHitItem) => ({ score: hit.score, order: hit.order });

/**
 * Full-text search over the tenant's searchable entities (see src/common/search.ts), through the
 * word index only: never a scan.
 */
export class SearchRepository {
  constructor(private readonly scope: Scope) {}

  /**
   * The entities of `types` (all searchable ones when none) whose indexed words include, for
   * every word of `text`, one that starts with it; ranked by the number of fields matched, then
   * newest first. The entities with a word that starts with the longest query word (`candidates`:
   * on DynamoDB one Query of the word index, paged past 1 MB, and one batched read of the entities
   * it names, 100 a call), then the other words are checked against each entity's own words, which
   * also drops an index entry that lags behind its entity.
   * Throws BAD_USER_INPUT for text without words, more than MAX_QUERY_WORDS words, a query word
   * that matches more than MAX_SEARCH_CANDIDATES words, or a cursor of another search or tenant.
   */
  async search(text: string, types: readonly string[] | null | undefined, page: PageRequest): Promise<Page<SearchHitItem>> {
    const query = [...new Set(wordsOf(requireText(text, 'text', 500)))].sort();
    if (query.length === 0) throw badInput('text has no word to search for: give it letters or digits.', 'text');
    if (query.length > MAX_QUERY_WORDS) throw badInput(`text may hold at most ${MAX_QUERY_WORDS} words, got ${query.length}.`, 'text');
    const wanted = new Set(types?.length ? types : searchableModels.keys());
    // The longest word is the likeliest to start the fewest words.
    const leading = query.reduce((a, b) => (Array.from(b).length > Array.from(a).length ? b : a));
    const candidates = await this.candidates(leading, wanted).catch((error: unknown) => {
      // Both stores refuse more than the bound with BAD_USER_INPUT: say which word and what to do.
      if (error instanceof AppError && error.code === ErrorCode.BAD_USER_INPUT) {
        throw badInput(`"${leading}" starts more than ${MAX_SEARCH_CANDIDATES} words of your tenant: search with a longer word.`, 'text');
      }
      throw error;
    });
    const hits: SearchHitItem[] = [];
    for (const { model, item } of candidates) {
      if (!model.is(item) || !model.search) continue;
      const fields = matchedFields(model.search, item, query);
      if (!fields) continue;
      const id = String(item[model.idField]);
      hits.push({
        entity: item,
        type: model.type,
        score: fields.length,
        matchedFields: fields,
        order: `${id.slice(id.indexOf('_') + 1)}#${id}`,
      });
    }
    hits.sort((a, b) => rank(positionOf(a), positionOf(b)));
    return this.scope.pageOfList(
      { listId: `search:${JSON.stringify([query, [...wanted].sort()])}`, list: hits, positionOf, compare: rank },
      page,
    );
  }

  /**
   * The entities of the `wanted` types with a word that starts with `leading`, each with its model:
   * on DynamoDB the word items of that word (one Query, bounded by MAX_SEARCH_CANDIDATES) and a
   * batched read of the entities they name; on a store that indexes text itself, its own read
   * (StoreApi.searchByWord, bounded alike). Either throws BAD_USER_INPUT past the bound.
   */
  private async candidates(leading: string, wanted: ReadonlySet<string>): Promise<{ model: AnyModel; item: Item | null }[]> {
    const { tenant, store } = this.scope;
    if (store.searchByWord) {
      const items = await store.searchByWord(tenant.id, [...searchableModels.keys()], leading, MAX_SEARCH_CANDIDATES);
      return items.flatMap((item) => {
        const model = searchableModels.get(String(item.entityType));
        return model && wanted.has(model.type) ? [{ model, item }] : [];
      });
    }
    const found = await store.queryAll(wordQuery(tenant, leading), MAX_SEARCH_CANDIDATES);
    const words = entities.SearchWord.itemsOf(found);
    const subjects = new Map<string, { model: AnyModel; values: Record<string, unknown> }>();
    for (const word of words) {
      const model = searchableModels.get(word.subjectType);
      if (!model || !wanted.has(model.type)) continue;
      subjects.set(word.subjectId, { model, values: { projectId: word.projectId, [model.idField]: word.subjectId } });
    }
    const named = [...subjects.values()];
    // Promise.all of load, not loadMany: a failed read must fail the search, not drop its hits.
    const items = await Promise.all(named.map(({ model, values }) => this.scope.items.load(tenant.of(model).keyFrom(values))));
    return items.map((item, i) => ({ model: named[i].model, item }));
  }
}
