import { badInput } from '../errors';
import { checkJsonInput, jsonInputError, storableNumber } from './json-limits';
import type { Attribute, AttributeMap, AttributeValues } from '../infra/dynamo/entity';
import type { BoundTenant } from './bound-tenant';
import { assertId } from './ids';
import { boundedJson, intInRange, maxItems, requireText } from './validate';

/** How a client's values are checked against declared attributes (see checkFields). */
export interface FieldCheck {
  mode: 'create' | 'update';
  /** The caller's tenant: S3-key fields must lie under its prefix. */
  tenant: BoundTenant;
  /** Put before each field's name in errors, e.g. `inputs.` for a job's inputs. */
  prefix?: string;
  /**
   * Check each value's type too: for values that arrive as JSON (a job's inputs, a step's
   * outputs), which GraphQL does not type. Values of typed GraphQL inputs need no such check.
   */
  typed?: boolean;
  /** Refuse fields that no attribute declares (JSON values again). */
  closed?: boolean;
}

const TYPE_NAMES: Record<Attribute['kind'], string> = {
  string: 'a text',
  id: 'an id',
  int: 'a whole number',
  float: 'a number',
  boolean: 'true or false',
  date: 'a date (YYYY-MM-DD)',
  dateTime: 'a date and time (ISO 8601)',
  json: 'a JSON value',
  strings: 'a list of texts',
  enum: 'one of the listed values',
};

/** True when `value` has the type the attribute's kind names. */
function hasType(attribute: Attribute, value: unknown): boolean {
  switch (attribute.kind) {
    case 'int':
      return typeof value === 'number' && Number.isInteger(value);
    case 'float':
      return typeof value === 'number' && Number.isFinite(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'strings':
      return Array.isArray(value) && value.every((entry) => typeof entry === 'string');
    case 'json':
      return true;
    case 'enum':
      return typeof value === 'string' && (attribute.values ?? []).includes(value);
    case 'date':
      return typeof value === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value);
    case 'dateTime':
      return typeof value === 'string' && !Number.isNaN(Date.parse(value));
    default:
      return typeof value === 'string';
  }
}

/**
 * A client's `value` for a declared reference (an id attribute with `ref`): returned when it has
 * the form of the referred entity's ids, else BAD_USER_INPUT naming `field`. For the repositories
 * that take such a value outside checkFields, so that the prefix is said once, in the declaration.
 * Throws a plain Error when the attribute declares no reference (a mistake in the caller).
 */
export function checkedRef(attribute: Attribute, value: string, field: string): string {
  if (!attribute.ref) throw new Error(`${field} is not a declared reference (its attribute has no ref).`);
  return assertId(value, attribute.ref, field);
}

/**
 * A whole number `value` within its int attribute's declared range (`min`, 0 unless declared, to
 * `max`, if any), else BAD_USER_INPUT naming `field`: for a value the caller works out itself (a
 * default of its own), so that the range is said once, in the declaration.
 */
export function wholeNumber(attribute: Attribute, value: number, field: string): number {
  return intInRange(value, field, attribute.min ?? 0, attribute.max);
}

/**
 * The checks a declared attribute's kind implies for a client's value (its type where asked, text
 * length, list length, JSON size, whole numbers in range, S3 keys under the caller's tenant). Throws
 * BAD_USER_INPUT naming the field.
 */
function checked(attribute: Attribute, field: string, value: unknown, check: FieldCheck): unknown {
  if (check.typed && !hasType(attribute, value)) {
    const values = attribute.kind === 'enum' ? ` (${(attribute.values ?? []).join(', ')})` : '';
    throw badInput(`${field} must be ${TYPE_NAMES[attribute.kind]}${values}.`, field);
  }
  const text = (entry: unknown, max: number) => {
    if (typeof entry !== 'string') return entry;
    return attribute.s3Key ? check.tenant.objectKey(entry, field) : requireText(entry, field, max);
  };
  // A number the table cannot store would fail the write as INTERNAL: it is the client's to change.
  if (
    (attribute.kind === 'int' || attribute.kind === 'float') &&
    typeof value === 'number' &&
    Number.isFinite(value) &&
    !storableNumber(value)
  )
    throw jsonInputError(field, { reason: 'NUMBER_OUT_OF_RANGE', value });
  // So would one inside a declared object (a project's budget amount), or a field name the table refuses.
  if (typeof value === 'object' && value !== null && !Array.isArray(value) && attribute.kind !== 'json') {
    const violation = checkJsonInput(value, { storable: true });
    if (violation) throw jsonInputError(field, violation);
  }
  switch (attribute.kind) {
    case 'string':
      return text(value, attribute.max ?? 2000);
    case 'strings':
      return Array.isArray(value) ? maxItems(value, field, attribute.max ?? 100)?.map((entry) => text(entry, 1000)) : value;
    case 'int':
      return typeof value === 'number' ? wholeNumber(attribute, value, field) : value;
    case 'float':
      if (typeof value === 'number' && !Number.isFinite(value)) throw badInput(`${field} must be a finite number.`, field);
      return value;
    case 'json':
      return boundedJson(value, field);
    case 'id':
      return attribute.ref && typeof value === 'string' ? checkedRef(attribute, value, field) : value;
    default:
      return value;
  }
}

/**
 * The values a client's `input` gives declared attributes, checked. On create, a missing attribute
 * takes its default, and a required one without a default is refused. On update, an omitted
 * attribute is kept (undefined), a null one is cleared (or reset to its default; a required one
 * without a default cannot be cleared). Internal attributes, and read-only ones on update, are
 * never taken from a client. Throws BAD_USER_INPUT naming the field (with `check.prefix`).
 */
export function checkFields<As extends AttributeMap>(
  attributes: As,
  input: object,
  check: FieldCheck & { mode: 'create' },
): AttributeValues<As>;
export function checkFields(attributes: AttributeMap, input: object, check: FieldCheck): Record<string, unknown>;
// A create's values are typed as the declaration's: each attribute a client gives has its checked value or
// default (the value of a typed GraphQL input, or one checked with `typed`).
export function checkFields(attributes: AttributeMap, input: object, check: FieldCheck): Record<string, unknown> {
  const given = new Map(Object.entries(input));
  const prefix = check.prefix ?? '';
  if (check.closed) {
    for (const name of given.keys()) {
      if (!(name in attributes)) {
        const known = Object.keys(attributes).join(', ') || 'none';
        throw badInput(`${prefix}${name} is not one of the declared fields; they are ${known}.`, `${prefix}${name}`);
      }
    }
  }
  const out: Record<string, unknown> = {};
  for (const [name, attribute] of Object.entries(attributes)) {
    if (attribute.internal || (check.mode === 'update' && attribute.readOnly)) continue;
    const field = `${prefix}${name}`;
    const value = given.get(name);
    if (value == null) {
      if (check.mode === 'update' && value === undefined) continue;
      if (attribute.default !== undefined) out[name] = attribute.default;
      else if (attribute.required) throw badInput(check.mode === 'create' ? `${field} is required.` : `${field} cannot be cleared.`, field);
      else out[name] = check.mode === 'update' ? null : undefined;
      continue;
    }
    out[name] = checked(attribute, field, value, check);
  }
  return out;
}
