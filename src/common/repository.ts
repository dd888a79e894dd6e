import type { AnyModel, ItemOf, TenantModel, WriteValues } from '../infra/dynamo/entity';
import type { Page, PageRequest, QuerySpec } from '../infra/dynamo/store';
import type { Write } from '../infra/dynamo/write';
import type { IdempotentRequest } from './idempotency';
import { create, type KeyValues, mutate, remove, type Target } from './mutate';
import type { BoundTenant } from './bound-tenant';
import type { Scope } from './scope';
import { checkFields } from './fields';
import { applyPatch } from './validate';
import type { Selection } from './projection';

/**
 * An item of a list read for a query's selection (EntityRepository.page): its key values, its
 * version and the attributes the selection reads; any other may be missing. It is for GraphQL
 * to answer from, not for code that reads more of it.
 */
export type Listed<M extends AnyModel> = Partial<ItemOf<M>> & Pick<ItemOf<M>, 'PK' | 'SK' | 'entityType'>;

/** The attributes a client's `input` gives an entity, checked against its declaration (see checkFields), as its write values. */
export function inputAttributes<M extends AnyModel>(
  model: M,
  input: object,
  mode: 'create' | 'update',
  tenant: BoundTenant,
): WriteValues<M> {
  return model.writeOf(checkFields(model.attributes, input, { mode, tenant }));
}

/**
 * The standard repository of one declared entity, for one request: typed reads through the
 * request's loaders, and the standard writes (create, update with optimistic locking, status
 * transitions by the declared machine, delete), each with its event, in one unit of work. A
 * feature's repository extends it where its entity needs more.
 */
export class EntityRepository<M extends AnyModel> {
  /** The entity's keys, queries and writes in the caller's tenant. */
  protected readonly keys: TenantModel<M>;

  constructor(
    protected readonly scope: Scope,
    readonly model: M,
  ) {
    this.keys = scope.tenant.of(model);
  }

  protected target(values: KeyValues<M>): Target<M> {
    return { model: this.model, values };
  }

  /** The entity, or null when the caller's tenant has none with these key values. */
  protected async load(values: KeyValues<M>): Promise<ItemOf<M> | null> {
    return this.model.found(await this.scope.items.load(this.keys.keyOf(values)));
  }

  /**
   * Many entities in one batched read, in the order asked; missing ones are left out. A failed
   * read throws (DataLoader's own loadMany would hand back the error in the item's place, and
   * leaving that out would make a timeout look like an empty list).
   */
  protected async loadMany(values: KeyValues<M>[]): Promise<ItemOf<M>[]> {
    const items = await Promise.all(values.map((v) => this.scope.items.load(this.keys.keyOf(v))));
    return this.model.itemsOf(items);
  }

  /**
   * One page of a query of the caller's tenant, as this entity's items. With `selection` (what a
   * query's fields read of them, src/common/projection.ts), DynamoDB returns only those attributes
   * and the keys (EntityModel.projectionOf), and the items are typed as such (Listed).
   */
  protected page(spec: QuerySpec, request: PageRequest): Promise<Page<ItemOf<M>>>;
  protected page(spec: QuerySpec, request: PageRequest, selection: Selection | undefined): Promise<Page<Listed<M>>>;
  protected async page(spec: QuerySpec, request: PageRequest, selection?: Selection): Promise<Page<ItemOf<M>>> {
    return this.model.pageOf(await this.scope.page(spec, request, this.model.projectionOf(selection)));
  }

  /**
   * Creates the entity (status at the machine's first state) with the standard event; once per
   * idempotency key when the request carries one (see idempotency.ts).
   */
  protected createItem(
    attributes: WriteValues<M>,
    derived: Write[] = [],
    event?: { action?: string; data?: Record<string, unknown> },
    request?: IdempotentRequest,
  ) {
    const status = this.model.status;
    // The machine's first state, by the name its declaration gives the status: checked as the entity's (writeOf).
    const initial = status ? { [status.attribute]: status.initial } : {};
    const created = this.model.writeOf({ ...initial, ...attributes });
    return create(
      this.scope,
      { model: this.model, attributes: created, event: { action: this.model.events.created, ...event }, derived },
      request,
    );
  }

  /** A create request of this entity as the client sent it, for `createItem`: its key and arguments. */
  protected createRequest(idempotencyKey: string | null | undefined, args: { projectId?: string; input: object }): IdempotentRequest {
    // A field sent as null is the same request as one that omits it (docs/api.md), as createJob's
    // are: a retry may spell an omitted field either way. Only the input's own fields: a null inside
    // a JSON value is that value's data.
    const input = Object.fromEntries(Object.entries(args.input).filter(([, value]) => value != null));
    return { key: idempotencyKey, operation: `create${this.model.type}`, input: { ...args, input } };
  }

  /** Applies a client's patch (see inputAttributes) with optimistic locking; the event names the fields changed. */
  protected updateItem(values: KeyValues<M>, expectedVersion: number | null | undefined, input: object, derived: Write[] = []) {
    const patch = inputAttributes(this.model, input, 'update', this.scope.tenant);
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
