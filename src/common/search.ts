import { type AnyModel, SEARCH_SLOTS_ATTRIBUTE } from '../infra/dynamo/entity';
import { indexedWords } from '../infra/words';
import type { Write } from '../infra/dynamo/write';
import type { BoundTenant } from './bound-tenant';
import { entities, entityNames, initialOf } from './entities';

/*
 * The full-text word index, derived from each entity's `search` declaration (src/common/entities.ts).
 *
 * A searchable entity keeps one SearchWord item per distinct word of its searchable attributes
 * (folded: accents stripped, lower case), at most `maxWords` of them. The items are numbered
 * slots of the entity (`SEARCH#<id>` / `WORD#<slot>`), and the entity records which word is in
 * which slot (`searchSlots`), so a change rewrites only the slots whose word changed: a kept word
 * keeps its slot, a new word takes a freed one, a slot no word needs any more is deleted. The word
 * index (GSI2, `TENANT#t#WORD#<first letter>` / `<word>#<entity id>`) follows the slots.
 * mutate.ts puts these writes into the entity's own transaction on every create, change and delete.
 */

export { indexedWords, MAX_WORD_LENGTH, wordsOf } from '../infra/words';

/** The slots an item records ('' for a free one); none for an item written before it was searchable. */
function slotsOf(item: Record<string, unknown> | null): string[] {
  const slots = item?.[SEARCH_SLOTS_ATTRIBUTE];
  return Array.isArray(slots) ? slots.map((word) => (typeof word === 'string' ? word : '')) : [];
}

/**
 * The slots of `words` after `before`: a word already in a slot stays there, a new word takes the
 * first free slot (or a new one at the end), and trailing free slots are dropped. So the slots that
 * differ are as few as the words that changed, and there are never more than `words.length` slots
 * in use nor more slots than max(before, words).
 */
export function assignSlots(before: readonly string[], words: readonly string[]): string[] {
  const wanted = new Set(words);
  const next = before.map((word) => (wanted.has(word) ? word : ''));
  const placed = new Set(next);
  let free = 0;
  for (const word of words) {
    if (placed.has(word)) continue;
    while (free < next.length && next[free] !== '') free++;
    next[free] = word;
    placed.add(word);
  }
  while (next.length > 0 && next[next.length - 1] === '') next.pop();
  return next;
}

/** What a write of a searchable entity adds: the slots to store on it and the word items' writes. */
export interface SearchChange {
  attributes: Record<string, unknown>;
  writes: Write[];
}

/**
 * The word-index writes of one change of an entity of `model`, from its stored item `before`
 * (null on create) to the attributes `after` (null on delete): a put for every slot whose word
 * changed, a delete for every slot freed, and `searchSlots` for the entity's new item. Nothing for
 * an entity that declares no search, or a change that leaves its words as they were. With
 * `wordItems: false` (a store that indexes text itself) no word item is written, only the slots.
 */
export function searchChange(
  tenant: BoundTenant,
  model: AnyModel,
  before: Record<string, unknown> | null,
  after: Record<string, unknown> | null,
  options: { wordItems?: boolean } = {},
): SearchChange {
  const search = model.search;
  const subject = after ?? before;
  if (!search || !subject) return { attributes: {}, writes: [] };
  const old = slotsOf(before);
  const next = after ? assignSlots(old, [...indexedWords(search, after).keys()]) : [];
  const subjectId = String(subject[model.idField]);
  const projectId = typeof subject.projectId === 'string' ? subject.projectId : undefined;
  const writes: Write[] = [];
  const words = tenant.of(entities.SearchWord);
  for (let slot = 0; slot < Math.max(old.length, next.length); slot++) {
    const word = next[slot] ?? '';
    if ((old[slot] ?? '') === word) continue;
    writes.push(word ? words.put({ subjectId, slot, word, subjectType: model.type, projectId }) : words.delete({ subjectId, slot }));
  }
  // A store that indexes the text itself (PostgreSQL's tsvector, StoreApi.indexesText) keeps no word
  // items; the slots are still recorded, so the drift check reads the same words on either store.
  return { attributes: after ? { [SEARCH_SLOTS_ATTRIBUTE]: next } : {}, writes: options.wordItems === false ? [] : writes };
}

/** The entities that declare a search, by type (Project, Log, Asset, Inspiration). */
export const searchableModels: ReadonlyMap<string, AnyModel> = new Map(
  entityNames.map((name): AnyModel => entities[name]).flatMap((model) => (model.search ? [[model.type, model] as const] : [])),
);

/** The query partition and prefix of the words that start with `word` (one of a query's words). */
export function wordQuery(tenant: BoundTenant, word: string) {
  return tenant.of(entities.SearchWord).query('byWord', { initial: initialOf(word), word }, { open: true });
}
