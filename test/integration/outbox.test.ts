import { Outbox } from '../../src/events/outbox';
import { event } from '../../src/infra/dynamo/write';
import { createEventBus } from '../../src/infra/pubsub';
import { freshTable, type TestTable } from '../support/dynamo';
import { fixture, stopOnPurpose, stoppedAfter } from '../support/fixtures';

describe('Outbox against DynamoDB Local', () => {
  let table: TestTable;

  beforeAll(async () => {
    table = await freshTable();
  });

  it('takes 40 events published together out of the outbox in two calls, not 40, and every one is delivered', async () => {
    const bus = fixture('event bus', createEventBus(), (b) => b.close());
    const at = new Date().toISOString();
    const events = Array.from({ length: 40 }, (_, i) => ({
      PK: 'TENANT#o#JOB#j1',
      SK: `EVENT#${String(i).padStart(4, '0')}`,
      eventId: `e${i}`,
      at,
      stream: 'job',
      tenantId: 'o',
      jobId: 'j1',
      position: i + 1,
    }));
    const writes = events.map((e) => event(e));
    await table.store.transact(writes);
    const outboxed = () => table.store.queryFirst({ index: 'OUTBOX', pk: writes[0].item?.OUTBOXPK }, 100);
    expect(await outboxed()).toHaveLength(40);
    const delivered: unknown[] = [];
    fixture(
      'bus listener',
      bus.listen('JOB:o:j1', (payload) => delivered.push(payload)),
      (l) => l.close(),
    );
    const outbox = stoppedAfter('outbox', new Outbox(table.store, bus, { sweepIntervalMs: 60_000, graceMs: 60_000 }));
    table.dynamo.calls.reset();
    // As a group commit's writer does: every event of the transaction at once.
    outbox.afterCommit(events);
    expect(outbox.held).toBeGreaterThan(0);
    // stop() returns once the removals under way have ended.
    await stopOnPurpose(outbox);
    expect(outbox.held).toBe(0);
    expect(delivered).toHaveLength(40);
    // The first removal goes at once on its own; the 39 asked for while it was under way go together.
    expect(Object.fromEntries(table.dynamo.calls.byCommand)).toEqual({ UpdateItemCommand: 1, TransactWriteItemsCommand: 1 });
    expect(await outboxed()).toEqual([]);
    // The events themselves stay, without their outbox attributes.
    const stored = await table.store.batchGet(events.map(({ PK, SK }) => ({ PK, SK })));
    expect(stored.map((item) => [item?.eventId, item?.OUTBOXPK])).toEqual(events.map((e) => [e.eventId, undefined]));
  });
});
