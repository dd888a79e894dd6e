import { badInput } from '../errors';
import type { AnyModel, Attribute, ItemOf } from '../infra/dynamo/entity';
import type { Page, PageRequest, QuerySpec } from '../infra/dynamo/store';
import type { Write } from '../infra/dynamo/write';
import type { IdempotentRequest } from './idempotency';
import { create, type KeyValues, mutate, remove, type Target } from './mutate';
import type { Scope } from './scope';
import { validateS3Key } from './s3-key';
import { applyPatch, boundedJson, maxItems, nonNegativeInt, requireText } from './validate';

/**
 * The checks a declared attribute's kind implies for a client's value (text length, list length,
 * JSON size, whole numbers, S3 keys under the caller's tenant). Throws BAD_USER_INPUT naming the attribute.
 */
function checked(attribute: Attribute, name: string, value: unknown, tenantId: string): unknown {
  const text = (entry: unknown, max: number) => {
    if (typeof entry !== 'string') return entry;
    return attribute.s3Key ? validateS3Key(entry, tenantId, name) : requireText(entry, name, max);
  };
  switch (attribute.kind) {
    case 'string':
      return text(value, attribute.max ?? 2000);
    case 'strings':
      return Array.isArray(value) ? maxItems(value, name, attribute.max ?? 100)?.map((entry) => text(entry, 1000)) : value;
    case 'int':
      return typeof value === 'number' ? nonNegativeInt(value, name) : value;
    case 'float':
      if (typeof value === 'number' && !Number.isFinite(value)) throw badInput(`${name} must be a finite number.`, name);
      return value;
    case 'json':
      return boundedJson(value, name);
    default:
      return value;
  }
}

/**
 * The attributes a client's `input` gives an entity, checked against the declaration. On create,
 * a missing attribute takes its default, and a required one without a default is refused. On
 * update, an omitted attribute is kept (undefined), a null one is cleared (or reset to its
 * default; a required one without a default cannot be cleared). Internal attributes, and
 * read-only ones on update, are never taken from a client.
 */
export function inputAttributes(model: AnyModel, input: object, mode: 'create' | 'update', tenantId: string): Record<string, unknown> {
  const given = new Map(Object.entries(input));
  const out: Record<string, unknown> = {};
  const attributes: Record<string, Attribute> = model.attributes;
  for (const [name, attribute] of Object.entries(attributes)) {
    if (attribute.internal || (mode === 'update' && attribute.readOnly)) continue;
    const value = given.get(name);
    if (value == null) {
      if (mode === 'update' && value === undefined) continue;
      if (attribute.default !== undefined) out[name] = attribute.default;
      else if (attribute.required) throw badInput(mode === 'create' ? `${name} is required.` : `${name} cannot be cleared.`, name);
      else out[name] = mode === 'update' ? null : undefined;
      continue;
    }
    out[name] = checked(attribute, name, value, tenantId);
  }
  return out;
}

/**
 * The standard repository of one declared entity, for one request: typed reads through the
 * request's loaders, and the standard writes (create, update with optimistic locking, status
 * transitions by the declared machine, delete), each with its event, in one unit of work. A
 * feature's repository extends it where its entity needs more.
 */
export class EntityRepository<M extends AnyModel> {
  constructor(
    protected readonly scope: Scope,
    readonly model: M,
  ) {}

  protected target(values: KeyValues<M>): Target<M> {
    return { model: this.model, values };
  }

  /** The entity, or null when the caller's tenant has none with these key values. */
  protected async load(values: KeyValues<M>): Promise<ItemOf<M> | null> {
    const item = await this.scope.items.load(this.model.keyOf(this.scope.tenantId, values));
    return this.model.is(item) ? item : null;
  }

  /** Many entities in one batched read, in the order asked; missing ones are left out. */
  protected async loadMany(values: KeyValues<M>[]): Promise<ItemOf<M>[]> {
    const items = await this.scope.items.loadMany(values.map((v) => this.model.keyOf(this.scope.tenantId, v)));
    return items.filter((item): item is ItemOf<M> => !(item instanceof Error) && this.model.is(item));
  }

  /** One page of a query of the caller's tenant, as this entity's items. */
  protected async page(spec: QuerySpec, request: PageRequest): Promise<Page<ItemOf<M>>> {
    return this.model.pageOf(await this.scope.page(spec, request));
  }

  /**
   * Creates the entity (status at the machine's first state) with the standard event; once per
   * idempotency key when the request carries one (see idempotency.ts).
   */
  protected createItem(
    attributes: Record<string, unknown>,
    derived: Write[] = [],
    event?: { action?: string; data?: Record<string, unknown> },
    request?: IdempotentRequest,
  ) {
    const status = this.model.status;
    const initial = status ? { [status.attribute]: status.initial } : {};
    return create(this.scope, this.model, { ...initial, ...attributes }, { action: this.model.events.created, ...event }, derived, request);
  }

  /** A create request of this entity as the client sent it, for `createItem`: its key and arguments. */
  protected createRequest(idempotencyKey: string | null | undefined, input: unknown): IdempotentRequest {
    return { key: idempotencyKey, operation: `create${this.model.type}`, input };
  }

  /** Applies a client's patch (see inputAttributes) with optimistic locking; the event names the fields changed. */
  protected updateItem(values: KeyValues<M>, expectedVersion: number | null | undefined, input: object, derived: Write[] = []) {
    const patch = inputAttributes(this.model, input, 'update', this.scope.tenantId);
    return mutate(this.scope, this.target(values), expectedVersion, (current) => ({
      item: applyPatch(current, patch),
      derived,
      event: { action: this.model.events.updated, data: { fields: Object.keys(input) } },
    }));
  }

  /**
   * Moves the entity's status along its declared machine: INVALID_TRANSITION naming the status it
   * is in, the target and where it may go instead. The event carries from and to.
   */
  protected moveStatus(
    values: KeyValues<M>,
    to: string,
    expectedVersion: number | null | undefined,
    options: { action?: string; guard?: (current: ItemOf<M>) => void } = {},
  ) {
    const machine = this.model.status;
    if (!machine) throw new Error(`${this.model.type} has no status machine.`);
    return mutate(this.scope, this.target(values), expectedVersion, (current) => {
      options.guard?.(current);
      const from = String(current[machine.attribute]);
      this.model.assertTransition(String(current[this.model.idField]), from, to);
      return {
        item: { ...current, [machine.attribute]: to },
        event: { action: options.action ?? this.model.events.statusChanged, data: { from, to } },
      };
    });
  }

  /** Deletes the entity (CONFLICT when `expectedVersion` is given and stale) and returns it as it was. */
  protected removeItem(values: KeyValues<M>, expectedVersion: number | null | undefined, derived: Write[] = []) {
    return remove(this.scope, this.target(values), expectedVersion, () => ({ derived, event: { action: this.model.events.deleted } }));
  }
}
