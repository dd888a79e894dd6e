import { type AnyModel, SEARCH_SLOTS_ATTRIBUTE, type SearchDeclaration } from '../infra/dynamo/entity';
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

/** Stored words are cut to this many characters; a longer query word is cut the same way. */
export const MAX_WORD_LENGTH = 40;

/**
 * The words of `text`, in order: Unicode compatibility decomposition with the combining marks
 * removed (é → e, ﬁ → fi), lower case, split at every character that is no letter or digit, each
 * cut to MAX_WORD_LENGTH characters.
 */
export function wordsOf(text: string): string[] {
  return text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word !== '')
    .map((word) => Array.from(word).slice(0, MAX_WORD_LENGTH).join(''));
}

/** The text of one attribute value: a text, or the texts of a list; nothing else is searchable. */
function textOf(value: unknown): string {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.filter((entry) => typeof entry === 'string').join(' ');
  return '';
}

/**
 * The indexed words of an entity's item, each with the searchable attributes it occurs in: the
 * first `maxWords` distinct words, taking the attributes in their declared order. A word kept
 * also counts for a later attribute it occurs in.
 */
export function indexedWords(search: SearchDeclaration, item: Record<string, unknown>): Map<string, string[]> {
  const words = new Map<string, string[]>();
  for (const field of search.fields) {
    for (const word of wordsOf(textOf(item[field]))) {
      const fields = words.get(word);
      if (fields) {
        if (!fields.includes(field)) fields.push(field);
      } else if (words.size < search.maxWords) {
        words.set(word, [field]);
      }
    }
  }
  return words;
}

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
 * an entity that declares no search, or a change that leaves its words as they were.
 */
export function searchChange(
  tenant: BoundTenant,
  model: AnyModel,
  before: Record<string, unknown> | null,
  after: Record<string, unknown> | null,
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
  return { attributes: after ? { [SEARCH_SLOTS_ATTRIBUTE]: next } : {}, writes };
}

/** The entities that declare a search, by type (Project, Log, Asset, Inspiration). */
export const searchableModels: ReadonlyMap<string, AnyModel> = new Map(
  entityNames.map((name): AnyModel => entities[name]).flatMap((model) => (model.search ? [[model.type, model] as const] : [])),
);

/** The query partition and prefix of the words that start with `word` (one of a query's words). */
export function wordQuery(tenant: BoundTenant, word: string) {
  return tenant.of(entities.SearchWord).query('byWord', { initial: initialOf(word), word }, { open: true });
}
