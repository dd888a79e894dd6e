import { entities } from '../../src/common/entities';
import { AppError, notFound } from '../../src/errors';
import { itemsOfModels } from '../../src/infra/dynamo/entity';
import {
  check,
  del,
  event,
  HeadMoved,
  headKeyString,
  keyedItem,
  OUTBOX_SHARDS,
  placeGroup,
  placeStreamEvents,
  MAX_TRANSACTION_ITEMS,
  put,
  streamEvent,
  transactRequest,
  update,
  withOneOutboxEntry,
} from '../../src/infra/dynamo/write';

/* Building a unit of work is pure: these tests read the request without a database. */
describe('write builders', () => {
  const key = { PK: 'TENANT#t', SK: 'PROJECT#p' };

  it('fills in the table name and asks for the current item when a condition fails', () => {
    const [request] = transactRequest('T', [put({ ...key, title: 'x' }).ifNew()]).TransactItems!;
    expect(request.Put).toEqual({
      TableName: 'T',
      Item: { ...key, title: 'x' },
      ConditionExpression: 'attribute_not_exists(#n0)',
      ExpressionAttributeNames: { '#n0': 'PK' },
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    });
  });

  it('writes an unconditional put without any expression', () => {
    expect(put(key).toRequest('T')).toEqual({ Put: { TableName: 'T', Item: key } });
  });

  it('locks a change to the version read, and a delete likewise', () => {
    expect(put(key).ifVersion(4).toRequest('T').Put).toMatchObject({
      ConditionExpression: '#n0 = :v0',
      ExpressionAttributeNames: { '#n0': 'version' },
      ExpressionAttributeValues: { ':v0': 4 },
    });
    expect(del(key).ifVersion(4).toRequest('T').Delete).toMatchObject({ Key: key, ConditionExpression: '#n0 = :v0' });
  });

  it('checks that a parent exists and is active, failing with the error it names', () => {
    const write = check(key)
      .exists(() => notFound('Project', 'p'))
      .where({ archived: false });
    expect(write.toRequest('T').ConditionCheck).toMatchObject({
      Key: key,
      ConditionExpression: 'attribute_exists(#n0) AND #n1 = :v0',
      ExpressionAttributeNames: { '#n0': 'PK', '#n1': 'archived' },
      ExpressionAttributeValues: { ':v0': false },
    });
    expect(write.onConditionFailed?.(undefined)).toBeInstanceOf(AppError);
  });

  it('states a transition from a status', () => {
    expect(put(key).ifStatus('PENDING').toRequest('T').Put).toMatchObject({
      ConditionExpression: '#n0 = :v0',
      ExpressionAttributeNames: { '#n0': 'status' },
    });
  });

  it('conditions a write on a nested attribute through its path', () => {
    expect(put(key).whereAt(['target', 'PK'], 'TENANT#t#JOB#j').toRequest('T').Put).toMatchObject({
      ConditionExpression: '#n0.#n1 = :v0',
      ExpressionAttributeNames: { '#n0': 'target', '#n1': 'PK' },
      ExpressionAttributeValues: { ':v0': 'TENANT#t#JOB#j' },
    });
  });

  it('accepts an expired idempotency record as absent', () => {
    expect(put(key).ifNewOrExpired(100).toRequest('T').Put?.ConditionExpression).toBe('(attribute_not_exists(#n0) OR #n1 <= :v0)');
  });

  it('updates sets and lists in place', () => {
    expect(update(key).addToSet('assetIds', ['a']).ifExists().toRequest('T').Update).toMatchObject({
      UpdateExpression: 'ADD #n1 :v0',
      ConditionExpression: 'attribute_exists(#n0)',
      ExpressionAttributeValues: { ':v0': new Set(['a']) },
    });
    expect(update(key).deleteFromSet('assetIds', ['a']).toRequest('T').Update?.UpdateExpression).toBe('DELETE #n0 :v0');
    expect(update(key).appendToList('approvals', [1]).toRequest('T').Update?.UpdateExpression).toBe('SET #n0 = list_append(#n0, :v0)');
  });

  it('refuses an update action on a put', () => {
    expect(() => put(key).addToSet('a', ['b'])).toThrow(/update\(key\)/);
  });

  it('declares an event: new only, in an outbox shard, and marked for publishing', () => {
    const write = event({ PK: 'TENANT#t#EVENTS', SK: 'EVENT#1', eventId: 'evt_1', at: '2026-01-01T00:00:00.000Z' });
    expect(write.isEvent).toBe(true);
    expect(put(key).isEvent).toBe(false);
    expect(write.item).toMatchObject({
      OUTBOXPK: expect.stringMatching(/^OUTBOX#\d+$/),
      OUTBOXSK: '2026-01-01T00:00:00.000Z#evt_1',
    });
    expect(Number(String(write.item?.OUTBOXPK).slice('OUTBOX#'.length))).toBeLessThan(OUTBOX_SHARDS);
    expect(write.toRequest('T').Put?.ConditionExpression).toBe('attribute_not_exists(#n0)');
  });

  it("puts one outbox entry for a unit's several events, naming them, in the first event's partition; a single event stays its own", () => {
    const at = '2026-01-01T00:00:00.000Z';
    const events = [1, 2, 3].map((n) => event({ PK: 'TENANT#t#JOB#j', SK: `EVENT#${n}`, eventId: `e${n}`, at, expiresAt: 99 }));
    const change = put(key).ifNew();
    const { writes, entry } = withOneOutboxEntry([change, ...events]);
    expect(entry).toEqual({ PK: 'TENANT#t#JOB#j', SK: 'OUTBOX#EVENT#1' });
    expect(writes).toHaveLength(5);
    for (const w of writes.slice(1, 4)) {
      expect(w.isEvent).toBe(true);
      expect(w.item?.OUTBOXPK).toBeUndefined();
      expect(w.toRequest('T').Put?.ConditionExpression).toBe('attribute_not_exists(#n0)');
    }
    expect(writes[4].item).toMatchObject({
      ...entry,
      entityType: 'OutboxEntry',
      outboxEvents: [1, 2, 3].map((n) => ({ PK: 'TENANT#t#JOB#j', SK: `EVENT#${n}` })),
      expiresAt: 99,
      OUTBOXPK: events[0].item?.OUTBOXPK,
      OUTBOXSK: `${at}#e1`,
    });
    const single = withOneOutboxEntry([change, events[0]]);
    expect(single.entry).toBeUndefined();
    expect(single.writes).toEqual([change, events[0]]);
  });
});

describe('stream events placed at commit', () => {
  const head = { PK: 'TENANT#t#PROJECT#p#EVENTS', SK: 'HEAD' };
  const make = (position: number) => ({ PK: head.PK, SK: `EVENT#${position}`, eventId: `e${position}`, at: '2026-01-01T00:00:00.000Z' });

  it('places events after the head read, moves the head with a condition on where it was, and puts stream writes last', () => {
    const change = put({ PK: 'TENANT#t', SK: 'PROJECT#p#LOG#l', version: 1 }).ifNew();
    const placed = placeStreamEvents([streamEvent(head, make), change, streamEvent(head, make)], new Map([[headKeyString(head), 7]]));
    const request = transactRequest('T', placed).TransactItems!;
    expect(request[0].Put!.Item).toMatchObject({ SK: 'PROJECT#p#LOG#l' });
    expect(request.slice(1, 3).map((r) => [r.Put!.Item!.SK, r.Put!.Item!.position, r.Put!.ConditionExpression])).toEqual([
      ['EVENT#8', 8, 'attribute_not_exists(#n0)'],
      ['EVENT#9', 9, 'attribute_not_exists(#n0)'],
    ]);
    expect(request[3].Put).toMatchObject({
      Item: { ...head, entityType: 'StreamHead', position: 9 },
      ConditionExpression: '#n0 = :v0',
      ExpressionAttributeNames: { '#n0': 'position' },
      ExpressionAttributeValues: { ':v0': 7 },
    });
    // Losing the race on the head or on the event's key means "read the head again", not a client error.
    expect(placed[1].onConditionFailed!(undefined)).toBeInstanceOf(HeadMoved);
    expect(placed[3].onConditionFailed!(undefined)).toBeInstanceOf(HeadMoved);
    // The unit's two events wait in the outbox as one entry, last, that names them.
    expect(request.slice(1, 3).map((r) => r.Put!.Item!.OUTBOXPK)).toEqual([undefined, undefined]);
    expect(request[4].Put).toMatchObject({
      Item: {
        PK: head.PK,
        SK: 'OUTBOX#EVENT#8',
        entityType: 'OutboxEntry',
        outboxEvents: [8, 9].map((n) => ({ PK: head.PK, SK: `EVENT#${n}` })),
      },
      ConditionExpression: 'attribute_not_exists(#n0)',
    });
    expect(request).toHaveLength(5);
  });

  it('gives each unit of a group of several its own outbox entry, and none when the entries would not fit in the transaction', () => {
    const job = (n: number) => event({ PK: 'TENANT#t#JOB#j', SK: `EVENT#${n}`, eventId: `j${n}`, at: '2026-01-01T00:00:00.000Z' });
    const units = [[job(1), streamEvent(head, make)], [job(2)], [job(3), job(4), streamEvent(head, make)]];
    const group = placeGroup(units, new Map([[headKeyString(head), 7]]));
    expect(group.entries).toEqual([
      { PK: 'TENANT#t#JOB#j', SK: 'OUTBOX#EVENT#1' },
      undefined,
      { PK: 'TENANT#t#JOB#j', SK: 'OUTBOX#EVENT#3' },
    ]);
    // The published items of a unit with an entry are out of the outbox index; the lone event is its own entry.
    expect(group.events.map((items) => items.map((item) => [item.SK, item.OUTBOXPK !== undefined]))).toEqual([
      [
        ['EVENT#1', false],
        ['EVENT#8', false],
      ],
      [['EVENT#2', true]],
      [
        ['EVENT#3', false],
        ['EVENT#4', false],
        ['EVENT#9', false],
      ],
    ]);
    expect(group.writes.slice(-2).map((w) => w.item?.outboxEvents)).toEqual([
      [
        { PK: 'TENANT#t#JOB#j', SK: 'EVENT#1' },
        { PK: head.PK, SK: 'EVENT#8' },
      ],
      [3, 4].map((n) => ({ PK: 'TENANT#t#JOB#j', SK: `EVENT#${n}` })).concat({ PK: head.PK, SK: 'EVENT#9' }),
    ]);
    // A group at the transaction's limit keeps each event in the outbox itself.
    const full = Array.from({ length: MAX_TRANSACTION_ITEMS / 2 }, (_, i) => [job(2 * i + 1), job(2 * i + 2)]);
    const crowded = placeGroup(full, new Map());
    expect(crowded.writes).toHaveLength(MAX_TRANSACTION_ITEMS);
    expect(crowded.entries.every((entry) => entry === undefined)).toBe(true);
    expect(crowded.writes.every((w) => w.item?.OUTBOXPK !== undefined)).toBe(true);
  });

  it('creates the head of a new stream only if no other writer created it first', () => {
    const placed = placeStreamEvents([streamEvent(head, make)], new Map());
    const request = transactRequest('T', placed).TransactItems!;
    expect(request[0].Put!.Item).toMatchObject({ SK: 'EVENT#1', position: 1 });
    expect(request[1].Put).toMatchObject({ Item: { position: 1 }, ConditionExpression: 'attribute_not_exists(#n0)' });
  });
});

describe('stored item types', () => {
  it('types a read item only through its model: a raw attribute is unknown, a misspelt typed one a compile error, a row without its key refused', () => {
    const raw = keyedItem({ PK: 'TENANT#t', SK: 'TENANT', entityType: 'Tenant', name: 'T', plan: 'studio' });
    // @ts-expect-error: an attribute of an item no model has typed is unknown, not a string.
    const plan: string = raw.plan;
    expect(plan).toBe('studio');
    const tenant = entities.Tenant.found(raw);
    expect(tenant?.plan).toBe('studio');
    // @ts-expect-error: Tenant declares no attribute `plann`.
    expect(tenant?.plann).toBeUndefined();
    expect(entities.Project.found(raw)).toBeNull();
    const step = keyedItem({ PK: 'TENANT#t#JOB#j', SK: 'STEP#01', entityType: 'Step' });
    const job = keyedItem({ PK: 'TENANT#t#JOB#j', SK: 'JOB', entityType: 'Job' });
    // Of several entities, in the order read; another entity's row and a miss are left out.
    expect(itemsOfModels([entities.Step, entities.Job], [step, raw, null, job])).toEqual([step, job]);
    expect(() => keyedItem({ SK: 'TENANT' })).toThrow('The table returned an item without a string PK and SK (attributes: SK).');
  });
});
