import type { SearchDeclaration } from './dynamo/entity';

/*
 * The words of the searchable entities' text, as every store indexes them: the DynamoDB word items
 * (src/common/search.ts) and PostgreSQL's tsvector column (src/infra/postgres/items.ts).
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
