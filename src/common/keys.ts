/**
 * The primitives keys are made of. Entity keys are derived from the declarations in
 * entities.ts (the tenant prefix is added by src/infra/dynamo/entity.ts); the index attributes in
 * the `*.keys.ts` files compose these.
 *
 * Every partition key a tenant's request touches starts with `TENANT#<tenantId>`.
 */

export type { Key } from '../infra/dynamo/table';
export { tenantPk } from '../infra/dynamo/entity';

/** Zero-pads a number so that string order equals numeric order (v10 after v9). */
export const pad = (n: number, width: number) => String(n).padStart(width, '0');

/**
 * Normalizes free text (a title, a material, a tag) for use inside a key: lower case, trimmed,
 * inner white space collapsed, and `#` (the key separator) replaced by a space.
 */
export function normalizeText(text: string): string {
  return text.replace(/#/g, ' ').trim().toLowerCase().replace(/\s+/g, ' ');
}
