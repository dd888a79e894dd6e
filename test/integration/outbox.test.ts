import { Outbox } from '../../src/events/outbox';
import { del, event, withOneOutboxEntry } from '../../src/infra/dynamo/write';
import { createEventBus } from '../../src/infra/pubsub';
import { freshTable, type TestTable } from '../support/dynamo';
import { fixture, stopOnPurpose, stoppedAfter } from '../support/fixtures';
import { captureLogs } from '../support/logs';

describe('Outbox against DynamoDB Local', () => {
  let table: TestTable;

  beforeAll(async () => {
    table = await freshTable();
  });

  /**
   * `count` events of job `jobId`'s stream, written as a commit writes them: each in the outbox, or
   * with `oneEntry` one outbox entry standing for them all (withOneOutboxEntry). Returns them, the
   * entry's key, and a read of the job's rows in the outbox.
   */
  const committed = async (jobId: string, count: number, oneEntry = false) => {
    const at = new Date(Date.now() - 1000).toISOString();
    const events = Array.from({ length: count }, (_, i) => ({
      PK: `TENANT#o#JOB#${jobId}`,
      SK: `EVENT#${String(i).padStart(4, '0')}`,
      eventId: `${jobId}-e${i}`,
      at,
      stream: 'job',
      tenantId: 'o',
      jobId,
      position: i + 1,
    }));
    const each = events.map((e) => event(e));
    const { writes, entry } = oneEntry ? withOneOutboxEntry(each) : { writes: each, entry: undefined };
    await table.store.transact(writes);
    const outboxed = async () =>
      (await table.store.queryFirst({ index: 'OUTBOX', pk: String(writes.at(-1)?.item?.OUTBOXPK) }, 100)).filter(
        (row) => row.PK === events[0].PK,
      );
    return { events, entry, outboxed };
  };

  it('takes 40 events published together out of the outbox in two calls, not 40, and every one is delivered', async () => {
    const bus = fixture('event bus', createEventBus(), (b) => b.close());
    const { events, outboxed } = await committed('j1', 40);
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

  it('leaves published events in the outbox when their removal fails, says so in the log, and the sweeper delivers and removes them', async () => {
    const bus = fixture('event bus', createEventBus(), (b) => b.close());
    const { events, outboxed } = await committed('j2', 5);
    const delivered: { eventId?: string }[] = [];
    fixture(
      'bus listener',
      bus.listen('JOB:o:j2', (payload) => delivered.push(payload as { eventId?: string })),
      (l) => l.close(),
    );
    const logs = captureLogs();
    // DynamoDB Local cannot be made to fail one call and answer the next, so the removal's failure
    // is injected (once): everything else is the real table.
    const removal = jest.spyOn(table.store, 'removeAttributesOfEach').mockRejectedValueOnce(new Error('injected: removal failed'));
    const outbox = stoppedAfter('outbox', new Outbox(table.store, bus, { sweepIntervalMs: 60_000, graceMs: 0 }));
    outbox.afterCommit(events);
    await stopOnPurpose(outbox);
    expect(removal).toHaveBeenCalled();
    removal.mockRestore();
    // Delivered once, but the first removal failed: those events are still in the outbox, and the log says so.
    expect(delivered.length).toBeGreaterThanOrEqual(5);
    const left = await outboxed();
    expect(left.length).toBeGreaterThan(0);
    const warned = logs.entries().filter((e) => e.msg === 'publish failed; the sweeper will retry');
    expect(warned.map((e) => e.eventId).sort()).toEqual(left.map((row) => row.eventId).sort());
    // The sweeper publishes what the outbox still holds again (at least once) and takes it out.
    const sweeper = stoppedAfter('sweeper', new Outbox(table.store, bus, { sweepIntervalMs: 60_000, graceMs: 0 }));
    expect(await sweeper.sweep()).toBeGreaterThanOrEqual(left.length);
    await stopOnPurpose(sweeper);
    expect(await outboxed()).toEqual([]);
    for (const row of left) expect(delivered.filter((d) => d.eventId === row.eventId).length).toBe(2);
  });

  it("takes a commit's events out of the outbox with one removal of the entry that stands for them, and a sweep after a crash delivers them in order", async () => {
    const bus = fixture('event bus', createEventBus(), (b) => b.close());
    const commit = async (jobId: string) => {
      const written = await committed(jobId, 20, true);
      // One row in the outbox for the 20 events.
      expect((await written.outboxed()).map((row) => row.SK)).toEqual([written.entry?.SK]);
      return written;
    };
    const heard = (jobId: string) => {
      const delivered: number[] = [];
      fixture(
        'bus listener',
        bus.listen(`JOB:o:${jobId}`, (payload) => delivered.push(Number((payload as { position?: number }).position))),
        (l) => l.close(),
      );
      return delivered;
    };

    // The writer publishes them all, then removes the one entry: one call.
    const first = await commit('j3');
    const firstHeard = heard('j3');
    const outbox = stoppedAfter('outbox', new Outbox(table.store, bus, { sweepIntervalMs: 60_000, graceMs: 0 }));
    table.dynamo.calls.reset();
    outbox.afterCommit(first.events, first.entry);
    await stopOnPurpose(outbox);
    expect(firstHeard).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(Object.fromEntries(table.dynamo.calls.byCommand)).toEqual({ BatchWriteItemCommand: 1 });
    expect(await first.outboxed()).toEqual([]);

    // A crash between commit and publish: the sweeper reads the entry's events, publishes them in
    // position order (passing over one that is gone since) and then takes the entry out.
    const second = await commit('j4');
    await table.store.transact([del({ PK: second.events[5].PK, SK: second.events[5].SK })]);
    const secondHeard = heard('j4');
    const sweeper = stoppedAfter('sweeper', new Outbox(table.store, bus, { sweepIntervalMs: 60_000, graceMs: 0 }));
    expect(await sweeper.sweep()).toBeGreaterThanOrEqual(19);
    await stopOnPurpose(sweeper);
    expect(secondHeard).toEqual(Array.from({ length: 20 }, (_, i) => i + 1).filter((p) => p !== 6));
    expect(await second.outboxed()).toEqual([]);
  });
});
