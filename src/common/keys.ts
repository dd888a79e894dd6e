/**
 * The primitives every key is made of. Each entity's `*.keys.ts` composes these and is the only
 * place that entity's keys are built; nothing else concatenates `#`.
 *
 * Every partition key a tenant's request touches starts with `TENANT#<tenantId>`.
 */

export interface Key {
  PK: string;
  SK: string;
}

export const tenantPk = (tenantId: string) => `TENANT#${tenantId}`;

/** Zero-pads a number so that string order equals numeric order (v10 after v9). */
export const pad = (n: number, width: number) => String(n).padStart(width, '0');

/**
 * Normalizes free text (a title, a material, a tag) for use inside a key: lower case, trimmed,
 * inner white space collapsed, and `#` (the key separator) replaced by a space.
 */
export function normalizeText(text: string): string {
  return text.replace(/#/g, ' ').trim().toLowerCase().replace(/\s+/g, ' ');
}
