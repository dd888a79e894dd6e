import { AppError, ErrorCode } from '../../src/errors';
import { commitUnit, committerOf } from '../../src/infra/dynamo/committer';
import { check, put, streamEvent, type Item } from '../../src/infra/dynamo/write';
import { freshTable, type TestTable } from '../support/dynamo';

/** Units of work appending to one stream, committed at once against DynamoDB Local. */
describe('the group committer of stream writes', () => {
  let table: TestTable;

  beforeAll(async () => {
    table = await freshTable();
  });

  const head = { PK: 'TENANT#g#STREAM', SK: 'HEAD' };
  const eventAt = (n: number) => (position: number) => ({
    PK: head.PK,
    SK: `EVENT#${String(position).padStart(6, '0')}`,
    eventId: `e${n}`,
    at: new Date().toISOString(),
    n,
  });

  it('commits 40 concurrent units in far fewer transactions, answers a unit whose condition fails alone, and keeps the stream gapless', async () => {
    const published: Item[][] = [];
    const missing = new Set([5, 17, 33]);
    const units = Array.from({ length: 40 }, (_, n) => [
      put({ PK: 'TENANT#g', SK: `THING#${n}`, n }).ifNew(),
      // Three units depend on an item that does not exist: they must fail with their own error.
      ...(missing.has(n) ? [check({ PK: 'TENANT#g', SK: 'NOTHING' }).exists(() => new AppError(ErrorCode.NOT_FOUND, `unit ${n}`))] : []),
      streamEvent(head, eventAt(n)),
    ]);
    const before = committerOf(table.store).stats();
    table.dynamo.calls.reset();
    const outcomes = await Promise.allSettled(
      units.map((writes) =>
        commitUnit(table.store, writes, { invalidate: () => {}, publisher: { afterCommit: (e) => published.push(e) } }),
      ),
    );

    const failed = outcomes.flatMap((o, n) => (o.status === 'rejected' ? [[n, (o.reason as AppError).message]] : []));
    expect(failed).toEqual([...missing].map((n) => [n, `unit ${n}`]));
    // Each committed unit published its own event, once.
    expect(published.map((events) => events.map((e) => Number(e.n))).sort((a, b) => a[0] - b[0])).toEqual(
      [...Array(40).keys()].filter((n) => !missing.has(n)).map((n) => [n]),
    );
    const stream = await table.store.queryAll({ pk: head.PK, skPrefix: 'EVENT#' });
    expect(stream.map((e) => e.position)).toEqual(Array.from({ length: 37 }, (_, i) => i + 1));
    expect(stream.map((e) => Number(e.n)).sort((a, b) => a - b)).toEqual([...Array(40).keys()].filter((n) => !missing.has(n)));
    // One unit at a time would have taken at least 37 transactions.
    const after = committerOf(table.store).stats();
    expect(after.groups - before.groups).toBeLessThan(20);
    expect(table.dynamo.calls.byCommand.get('TransactWriteItemsCommand')).toBeLessThan(37);
    // Nothing is held once every unit is answered.
    expect(after).toMatchObject({ queues: 0, waiting: 0 });
  });

  it('never puts two units that write one item into one transaction: the second is judged after the first committed', async () => {
    const key = { PK: 'TENANT#g', SK: 'SHARED' };
    const outcomes = await Promise.allSettled(
      [1, 2, 3].map((n) =>
        commitUnit(
          table.store,
          [put({ ...key, n }).ifNew(() => new AppError(ErrorCode.CONFLICT, `taken before ${n}`)), streamEvent(head, eventAt(100 + n))],
          {
            invalidate: () => {},
          },
        ),
      ),
    );
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'rejected']);
    expect(committerOf(table.store).stats()).toMatchObject({ queues: 0, waiting: 0 });
  });
});
