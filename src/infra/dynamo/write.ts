import type { TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { TTL_ATTRIBUTE, type Key } from './table';
import { traceContextAttributes } from '../tracing';
import { isRecord } from '../../guards';

/*
 * The writes of a transaction, as data. Domain code says what it writes and under which
 * condition (`put(item).ifNew()`, `check(key).exists()`); this file alone turns that into
 * DynamoDB expressions, and `transactRequest` into the request the store sends. Building is pure,
 * so a unit of work can be inspected and tested without a database.
 */

/**
 * An item as the table holds it: its key, and attributes whose types only its entity's
 * declaration knows. Code that reads one narrows it with the entity's model (`EntityModel.is`,
 * `pageOf`) to the item type derived from the declaration; until then an attribute is `unknown`,
 * so no attribute is used untyped.
 */
export type Item = { PK: string; SK: string } & Record<string, unknown>;

/**
 * `raw` (what the table returned) as an item: every item the table holds, and every projection
 * the store asks for, has its string key. Throws (a broken table or a programming error) naming
 * what came back when it has none.
 */
export function keyedItem(raw: Record<string, unknown>): Item {
  if (hasKey(raw)) return raw;
  throw new Error(`The table returned an item without a string PK and SK (attributes: ${Object.keys(raw).join(', ')}).`);
}

const hasKey = (raw: Record<string, unknown>): raw is Item => typeof raw.PK === 'string' && typeof raw.SK === 'string';

/**
 * What a failed condition means, given the item as it is now (undefined when it does not
 * exist). The returned error is what the whole transaction throws.
 */
export type ConditionFailure = (current: Item | undefined) => Error;

type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** One part of a condition; the parts of a write's condition must all hold. */
export type ConditionPart =
  | { kind: 'exists' }
  | { kind: 'absent' }
  | { kind: 'absentOrExpired'; nowSeconds: number }
  /** `attribute` is a top-level name, or the path to a nested one (`['target', 'PK']`). */
  | { kind: 'equals'; attribute: string | readonly string[]; value: unknown }
  | { kind: 'absentOrAtMost'; attribute: string; max: number };

/** One action of an update expression. */
export type UpdateAction =
  | { kind: 'addToSet'; attribute: string; values: Set<string> }
  | { kind: 'deleteFromSet'; attribute: string; values: Set<string> }
  | { kind: 'appendToList'; attribute: string; values: unknown[] }
  | { kind: 'addNumber'; attribute: string; value: number }
  | { kind: 'remove'; attribute: string };

/** What a write does to its item. */
export type Operation = { op: 'Put'; item: Item } | { op: 'Delete' } | { op: 'ConditionCheck' } | { op: 'Update'; actions: UpdateAction[] };

/**
 * One write of a unit of work: immutable, so a builder method returns a new write. Its key is
 * the item's key; its condition and failure mapping travel with it into the transaction.
 */
export class Write {
  private constructor(
    readonly key: Key,
    private readonly operation: Operation,
    private readonly conditions: readonly ConditionPart[] = [],
    /** Called when this write's condition fails; without one the transaction fails with CONFLICT. */
    readonly onConditionFailed?: ConditionFailure,
    /** True for an event item: the commit publishes it once the transaction succeeded. */
    readonly isEvent = false,
  ) {}

  /** @internal The builders below are the only way to make a write. */
  static make(key: Key, operation: Operation): Write {
    return new Write({ PK: key.PK, SK: key.SK }, operation);
  }

  /** True when the write holds only under a condition (so a transaction can fail on it). */
  get conditional(): boolean {
    return this.conditions.length > 0;
  }

  /** What the write does (a put, delete, condition check or update), for a store that carries it out itself. */
  get action(): Operation {
    return this.operation;
  }

  /**
   * True when every part of the write's condition holds for `current` (the item as it is now,
   * undefined when there is none), as DynamoDB evaluates them: an expired item not yet removed still
   * exists, a missing attribute equals nothing, and `absentOrAtMost` holds for a missing item. What a
   * store that checks conditions itself (the PostgreSQL store, on rows it has locked) decides by.
   */
  holdsFor(current: Item | undefined): boolean {
    return this.conditions.every((part) => {
      switch (part.kind) {
        case 'exists':
          return current !== undefined;
        case 'absent':
          return current === undefined;
        case 'absentOrExpired': {
          const expires = current?.[TTL_ATTRIBUTE];
          return current === undefined || (typeof expires === 'number' && expires <= part.nowSeconds);
        }
        case 'equals': {
          const path = typeof part.attribute === 'string' ? [part.attribute] : part.attribute;
          let value: unknown = current;
          for (const name of path) value = isRecord(value) ? value[name] : undefined;
          return value !== undefined && value === part.value;
        }
        case 'absentOrAtMost': {
          const value = current?.[part.attribute];
          return value === undefined || (typeof value === 'number' && value <= part.max);
        }
      }
    });
  }

  /**
   * The item once this write is made on `current` (undefined when there is none), as DynamoDB makes
   * it: a put's item; undefined for a delete; `current` for a condition check; for an update, the
   * item (made from the key when there is none) with each action applied: a set emptied is removed,
   * a number added to from 0. Throws (as DynamoDB refuses it) when a list is appended to that the
   * item lacks. Pure.
   */
  applyTo(current: Item | undefined): Item | undefined {
    const operation = this.operation;
    switch (operation.op) {
      case 'Put':
        return operation.item;
      case 'Delete':
        return undefined;
      case 'ConditionCheck':
        return current;
      case 'Update': {
        const next: Record<string, unknown> = { ...(current ?? {}), PK: this.key.PK, SK: this.key.SK };
        for (const action of operation.actions) {
          const had = next[action.attribute];
          if (action.kind === 'remove') delete next[action.attribute];
          else if (action.kind === 'addNumber') next[action.attribute] = (typeof had === 'number' ? had : 0) + action.value;
          else if (action.kind === 'appendToList') {
            if (!Array.isArray(had)) throw new Error(`${action.attribute} is not a list to append to.`);
            next[action.attribute] = [...had, ...action.values];
          } else {
            const set = new Set<string>(had instanceof Set || Array.isArray(had) ? had : []);
            for (const value of action.values) {
              if (action.kind === 'addToSet') set.add(value);
              else set.delete(value);
            }
            if (set.size === 0) delete next[action.attribute];
            else next[action.attribute] = set;
          }
        }
        return keyedItem(next);
      }
    }
  }

  /** The item a put writes; undefined for other writes. */
  get item(): Item | undefined {
    return this.operation.op === 'Put' ? this.operation.item : undefined;
  }

  private with(part: ConditionPart, onFailed?: ConditionFailure): Write {
    return new Write(this.key, this.operation, [...this.conditions, part], onFailed ?? this.onConditionFailed, this.isEvent);
  }

  /** Only if no item has this key yet. */
  ifNew(onFailed?: ConditionFailure): Write {
    return this.with({ kind: 'absent' }, onFailed);
  }

  /** Only if no item has this key, or the one there has expired (its TTL passed, not yet deleted). */
  ifNewOrExpired(nowSeconds: number, onFailed?: ConditionFailure): Write {
    return this.with({ kind: 'absentOrExpired', nowSeconds }, onFailed);
  }

  /** Only if the item exists. */
  ifExists(onFailed?: ConditionFailure): Write {
    return this.with({ kind: 'exists' }, onFailed);
  }

  /** Only if the item is still at `version` (optimistic locking); a missing item fails too. */
  ifVersion(version: number, onFailed?: ConditionFailure): Write {
    return this.with({ kind: 'equals', attribute: 'version', value: version }, onFailed);
  }

  /** Only if the item's `status` is still `status` (a state transition from it). */
  ifStatus(status: string, onFailed?: ConditionFailure): Write {
    return this.with({ kind: 'equals', attribute: 'status', value: status }, onFailed);
  }

  /** Only if the number `attribute` is absent or at most `max` (a counter kept under a limit). */
  ifAtMost(attribute: string, max: number, onFailed?: ConditionFailure): Write {
    return this.with({ kind: 'absentOrAtMost', attribute, max }, onFailed);
  }

  /** Only if each named attribute has the given value (e.g. `{ archived: false }`). */
  where(values: Record<string, string | number | boolean>, onFailed?: ConditionFailure): Write {
    let write: Write = this;
    for (const [attribute, value] of Object.entries(values)) write = write.with({ kind: 'equals', attribute, value }, onFailed);
    return write;
  }

  /** Only if the nested attribute at `path` (e.g. `['target', 'PK']`) has the value `value`; a missing item fails too. */
  whereAt(path: readonly [string, ...string[]], value: string | number | boolean, onFailed?: ConditionFailure): Write {
    return this.with({ kind: 'equals', attribute: path, value }, onFailed);
  }

  /** Names what a failed condition of this write means. */
  orFail(onFailed: ConditionFailure): Write {
    return new Write(this.key, this.operation, this.conditions, onFailed, this.isEvent);
  }

  /**
   * The same put with its item replaced by `f(item)`, its key, condition and failure mapping kept
   * (`f` must keep the key): how a unit's events get the tenant's retention at commit.
   */
  mapItem(f: (item: Item) => Item): Write {
    if (this.operation.op !== 'Put') throw new Error('mapItem applies to puts only.');
    return new Write(this.key, { op: 'Put', item: f(this.operation.item) }, this.conditions, this.onConditionFailed, this.isEvent);
  }

  /** @internal Marks a put as an event (see `event`). */
  asEvent(): Write {
    return new Write(this.key, this.operation, this.conditions, this.onConditionFailed, true);
  }

  private withAction(action: UpdateAction): Write {
    if (this.operation.op !== 'Update') throw new Error(`${action.kind} applies to update(key) only.`);
    return new Write(
      this.key,
      { op: 'Update', actions: [...this.operation.actions, action] },
      this.conditions,
      this.onConditionFailed,
      this.isEvent,
    );
  }

  /** Adds `values` to the string set `attribute` (creating the set). Update writes only. */
  addToSet(attribute: string, values: Iterable<string>): Write {
    return this.withAction({ kind: 'addToSet', attribute, values: new Set(values) });
  }

  /** Removes `values` from the string set `attribute`. Update writes only. */
  deleteFromSet(attribute: string, values: Iterable<string>): Write {
    return this.withAction({ kind: 'deleteFromSet', attribute, values: new Set(values) });
  }

  /** Adds `value` (which may be negative) to the number `attribute` (from 0 when absent). Update writes only. */
  addNumber(attribute: string, value: number): Write {
    return this.withAction({ kind: 'addNumber', attribute, value });
  }

  /** Removes `attribute` from the item (nothing when it has none). Update writes only. */
  remove(attribute: string): Write {
    return this.withAction({ kind: 'remove', attribute });
  }

  /** Appends `values` to the list `attribute`, which must exist. Update writes only. */
  appendToList(attribute: string, values: unknown[]): Write {
    return this.withAction({ kind: 'appendToList', attribute, values });
  }

  /**
   * The TransactWriteItems element for this write on `tableName`. Conditional writes ask for the
   * current item on failure, so the failure mapping can name, e.g., the current version.
   */
  toRequest(tableName: string): TransactItem {
    const names: Record<string, string> = {};
    const values: Record<string, unknown> = {};
    const name = (attribute: string) => {
      const placeholder = `#n${Object.keys(names).length}`;
      names[placeholder] = attribute;
      return placeholder;
    };
    const value = (v: unknown) => {
      const placeholder = `:v${Object.keys(values).length}`;
      values[placeholder] = v;
      return placeholder;
    };
    const condition = this.conditions
      .map((part) => {
        switch (part.kind) {
          case 'exists':
            return `attribute_exists(${name('PK')})`;
          case 'absent':
            return `attribute_not_exists(${name('PK')})`;
          case 'absentOrExpired':
            return `(attribute_not_exists(${name('PK')}) OR ${name(TTL_ATTRIBUTE)} <= ${value(part.nowSeconds)})`;
          case 'equals': {
            const path = typeof part.attribute === 'string' ? [part.attribute] : part.attribute;
            return `${path.map(name).join('.')} = ${value(part.value)}`;
          }
          case 'absentOrAtMost': {
            const n = name(part.attribute);
            return `(attribute_not_exists(${n}) OR ${n} <= ${value(part.max)})`;
          }
        }
      })
      .join(' AND ');
    let update: string | undefined;
    if (this.operation.op === 'Update') {
      const add: string[] = [];
      const del: string[] = [];
      const set: string[] = [];
      const remove: string[] = [];
      for (const action of this.operation.actions) {
        const n = name(action.attribute);
        if (action.kind === 'remove') remove.push(n);
        else if (action.kind === 'addToSet') add.push(`${n} ${value(action.values)}`);
        else if (action.kind === 'addNumber') add.push(`${n} ${value(action.value)}`);
        else if (action.kind === 'deleteFromSet') del.push(`${n} ${value(action.values)}`);
        else set.push(`${n} = list_append(${n}, ${value(action.values)})`);
      }
      update = [
        set.length ? `SET ${set.join(', ')}` : '',
        add.length ? `ADD ${add.join(', ')}` : '',
        del.length ? `DELETE ${del.join(', ')}` : '',
        remove.length ? `REMOVE ${remove.join(', ')}` : '',
      ]
        .filter(Boolean)
        .join(' ');
    }
    const common = {
      TableName: tableName,
      ...(condition ? { ConditionExpression: condition, ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const } : {}),
      ...(Object.keys(names).length ? { ExpressionAttributeNames: names } : {}),
      ...(Object.keys(values).length ? { ExpressionAttributeValues: values } : {}),
    };
    switch (this.operation.op) {
      case 'Put':
        return { Put: { ...common, Item: this.operation.item } };
      case 'Delete':
        return { Delete: { ...common, Key: this.key } };
      case 'ConditionCheck':
        if (!condition) throw new Error('A condition check needs a condition.');
        return { ConditionCheck: { ...common, ConditionExpression: condition, Key: this.key } };
      case 'Update':
        return { Update: { ...common, Key: this.key, UpdateExpression: update } };
    }
  }
}

/** Writes `item` (replacing any item with its key); the item carries its own PK and SK. */
export function put(item: Item): Write {
  if (typeof item.PK !== 'string' || typeof item.SK !== 'string') throw new Error('put(item) needs an item with string PK and SK.');
  return Write.make({ PK: item.PK, SK: item.SK }, { op: 'Put', item });
}

/** Deletes the item at `key` (a no-op when it is missing, unless a condition says otherwise). */
export function del(key: Key): Write {
  return Write.make(key, { op: 'Delete' });
}

/** A condition on another item that must hold for the transaction to commit; writes nothing. */
export function check(key: Key): {
  exists(onFailed?: ConditionFailure): Write;
  /** The item's number `attribute` is absent (as is a missing item's) or at most `max`. */
  atMost(attribute: string, max: number, onFailed?: ConditionFailure): Write;
} {
  return {
    exists: (onFailed) => Write.make(key, { op: 'ConditionCheck' }).ifExists(onFailed),
    atMost: (attribute, max, onFailed) => Write.make(key, { op: 'ConditionCheck' }).ifAtMost(attribute, max, onFailed),
  };
}

/** Changes attributes of the item at `key` in place (see addToSet, deleteFromSet, appendToList). */
export function update(key: Key): Write {
  return Write.make(key, { op: 'Update', actions: [] });
}

/**
 * The number of OUTBOX index partitions events are spread over, for the whole table: each takes
 * DynamoDB's 1,000 write units a second, and a job status change puts and removes three events
 * (about 20 units on the outbox in all), so 4 shards capped the table at about 200 status changes
 * a second across tenants (docs/scaling.md, "DynamoDB's partition limits"); 16 spread them below
 * the job item's own index partitions. Every sweep reads all of them (in parallel). Shards 0–3
 * were the shards of before, so an outbox written by an older server is still swept.
 */
export const OUTBOX_SHARDS = 16;

/** The OUTBOX index partition of one shard. */
export const outboxPartition = (shard: number) => `OUTBOX#${shard}`;

/**
 * The outbox attributes of a new event: it stays in the OUTBOX index until it is published. The
 * shard is chosen by the event's partition (its stream), so a stream's waiting events are in one
 * shard, in time order.
 */
export function outboxAttributes(partition: string, eventId: string, at: string) {
  let hash = 0;
  for (const char of partition) hash = (hash * 31 + char.charCodeAt(0)) | 0;
  return { OUTBOXPK: outboxPartition(Math.abs(hash) % OUTBOX_SHARDS), OUTBOXSK: `${at}#${eventId}` };
}

/** The entity type of a unit's one outbox entry (see withOneOutboxEntry). */
export const OUTBOX_ENTRY = 'OutboxEntry';

/** DynamoDB's limit on the actions of one TransactWriteItems. */
export const MAX_TRANSACTION_ITEMS = 100;

/**
 * The one outbox entry that stands for `events`, a unit's event writes (two or more; undefined
 * otherwise): in the first event's partition (so its key begins with the event's tenant), naming
 * them (`outboxEvents`), expiring with the first event. Publishing the unit's events then takes
 * one removal from the outbox instead of one an event, and the outbox index takes one entry's
 * units instead of every event's (a job's status change writes three events: docs/scaling.md).
 */
function outboxEntryOf(events: readonly Write[]): Write | undefined {
  const first = events.length >= 2 ? events[0].item : undefined;
  if (!first) return undefined;
  const { PK, SK } = first;
  return put({
    PK,
    SK: `OUTBOX#${SK}`,
    entityType: OUTBOX_ENTRY,
    outboxEvents: events.map((w) => ({ PK: w.key.PK, SK: w.key.SK })),
    ...(first.expiresAt !== undefined ? { expiresAt: first.expiresAt } : {}),
    ...outboxAttributes(PK, String(first.eventId), String(first.at)),
  }).ifNew();
}

/** An event write out of the outbox index: its unit's entry stands for it. */
const withoutOutbox = (w: Write): Write => w.mapItem(({ OUTBOXPK: _pk, OUTBOXSK: _sk, ...item }) => item);

/**
 * A unit's writes with the outbox entries of its events made one (see outboxEntryOf), when it has
 * two events or more: the events are written without outbox attributes, and the entry goes last.
 * The group of one unit and no stream (placeGroup). Pure; `entry` is the entry's key (undefined
 * when the writes are returned as they are).
 */
export function withOneOutboxEntry(writes: readonly Write[]): { writes: Write[]; entry?: Key } {
  const { writes: placed, entries } = placeGroup([writes], new Map());
  return { writes: placed, entry: entries[0] };
}

/**
 * An event item, put only if new, placed in the outbox (so a crash after the commit cannot lose
 * it) and marked so that the commit publishes it. `item` needs `eventId` and `at` (ISO time).
 */
export function event(item: Item & { eventId: string; at: string }): Write {
  // With tracing on, the event carries the trace context of the change that writes it (see tracing.ts).
  return put({ ...item, ...traceContextAttributes(), ...outboxAttributes(item.PK, item.eventId, item.at) })
    .ifNew()
    .asEvent();
}

/**
 * An event appended to a positioned stream (a project's activity, a project's or a tenant's job
 * status changes). Its position is allocated at commit: the stream's head item holds the last
 * position, and the unit of work writes the event at head + 1 together with the head moved to it,
 * on condition that the head is still where it was read. Two writers of one stream therefore
 * commit in position order, and a position is taken only by an event that committed: the stream
 * is gapless in commit order, which is what lets a subscriber resume "after position n".
 */
export class StreamEvent {
  constructor(
    /** The key of the stream's head item. */
    readonly head: Key,
    /** The event item at `position`; it must carry its own key (built from the position), `eventId` and `at`. */
    readonly make: (position: number) => Item & { eventId: string; at: string },
  ) {}
}

/** An event for the stream whose head item is at `head`; see StreamEvent. */
export function streamEvent(head: Key, make: (position: number) => Item & { eventId: string; at: string }): StreamEvent {
  return new StreamEvent({ PK: head.PK, SK: head.SK }, make);
}

/** What a unit of work holds: plain writes, and events whose position is allocated at commit. */
export type UnitWrite = Write | StreamEvent;

/** The attribute of a stream's head item that holds the stream's last position. */
export const HEAD_POSITION = 'position';

/** Thrown by a commit whose stream head moved since it was read: another writer took the position. */
export class HeadMoved extends Error {
  constructor() {
    super('A stream head moved since it was read.');
  }
}

export const headKeyString = (key: Key) => `${key.PK}\u0000${key.SK}`;

/**
 * The plain writes of `writes` with every stream event placed at the position after the head
 * read (`heads`, by headKeyString; 0 for a stream without a head yet), and each head moved on
 * with a condition that it is still where it was read. Stream writes go last, so a failed
 * condition of the change itself is the one a cancelled transaction reports first. Pure.
 */
export function placeStreamEvents(writes: readonly UnitWrite[], heads: ReadonlyMap<string, number>): Write[] {
  return placeGroup([writes], heads).writes;
}

/** Several units of work placed for one transaction (see placeGroup). */
export interface PlacedGroup {
  /**
   * Every write of the transaction: the units' plain writes in unit order, then their events, then
   * the heads moved, then the units' outbox entries.
   */
  writes: Write[];
  /** For each unit, in the order given, its event items as placed (what it publishes once committed). */
  events: Item[][];
  /** For each unit, the key of the one outbox entry that stands for its events, when it has one (see withOneOutboxEntry). */
  entries: (Key | undefined)[];
}

/**
 * Places the stream events of several units in one transaction: each unit's events take the
 * positions after those of the units before it, so the group commits as if the units had
 * committed one after another in the order given, and each head is moved once, from where it was
 * read to its last position. A unit of two events or more waits in the outbox as one entry
 * (withOneOutboxEntry), as long as the entries fit in the transaction; else each event waits as
 * itself. The caller keeps the units' plain writes apart (no item written twice in one
 * transaction). Pure; placeStreamEvents is the group of one.
 */
export function placeGroup(units: readonly (readonly UnitWrite[])[], heads: ReadonlyMap<string, number>): PlacedGroup {
  const plain: Write[] = [];
  const events: Write[] = [];
  const eventWritesOf: Write[][] = [];
  const moved = new Map<string, { key: Key; from: number; to: number }>();
  for (const writes of units) {
    const own: Write[] = [];
    for (const write of writes) {
      if (write instanceof Write) {
        plain.push(write);
        if (write.isEvent && write.item) own.push(write);
        continue;
      }
      const id = headKeyString(write.head);
      const at = moved.get(id) ?? { key: write.head, from: heads.get(id) ?? 0, to: heads.get(id) ?? 0 };
      at.to += 1;
      moved.set(id, at);
      // The event's own key is taken too when another writer placed its event there first.
      const placed = event({ ...write.make(at.to), [HEAD_POSITION]: at.to }).orFail(() => new HeadMoved());
      events.push(placed);
      own.push(placed);
    }
    eventWritesOf.push(own);
  }
  const headWrites = [...moved.values()].map(({ key, from, to }) => {
    const head = put({ ...key, entityType: 'StreamHead', [HEAD_POSITION]: to });
    const onMoved = () => new HeadMoved();
    return from === 0 ? head.ifNew(onMoved) : head.where({ [HEAD_POSITION]: from }, onMoved);
  });
  const writes = [...plain, ...events, ...headWrites];
  const entryWrites = eventWritesOf.map(outboxEntryOf);
  const placedEvents = eventWritesOf.map((own) => own.flatMap((w) => (w.item ? [w.item] : [])));
  const entries = entryWrites.filter((w) => w !== undefined);
  if (entries.length === 0 || writes.length + entries.length > MAX_TRANSACTION_ITEMS)
    return { writes, events: placedEvents, entries: units.map(() => undefined) };
  // The events an entry stands for leave the outbox index (the same writes, without its attributes).
  const covered = new Set(eventWritesOf.filter((_, unit) => entryWrites[unit]).flat());
  return {
    writes: [...writes.map((w) => (covered.has(w) ? withoutOutbox(w) : w)), ...entries],
    events: placedEvents.map((items, unit) => (entryWrites[unit] ? items.map(({ OUTBOXPK: _pk, OUTBOXSK: _sk, ...item }) => item) : items)),
    entries: entryWrites.map((w) => w?.key),
  };
}

/** The TransactWriteItems request for `writes` on `tableName`, in their order. Pure. */
export function transactRequest(tableName: string, writes: readonly Write[]): TransactWriteCommandInput {
  return { TransactItems: writes.map((w) => w.toRequest(tableName)) };
}
