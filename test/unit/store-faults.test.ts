import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { AppError, conflict } from '../../src/errors';
import { CursorCodec } from '../../src/infra/cursor';
import { DynamoStore } from '../../src/infra/dynamo/store';
import { put as putItem } from '../../src/infra/dynamo/write';

/*
 * These tests replace the document client with a fake, on purpose: they inject cancellation
 * reasons (a TransactionConflict that clears on retry, an unknown reason) that DynamoDB Local
 * cannot be made to produce on demand. Real conditional failures are tested against DynamoDB Local.
 */
function storeAnswering(...answers: Array<Error | 'ok' | object>) {
  const sent: unknown[] = [];
  const doc = {
    send: async (command: unknown) => {
      sent.push(command);
      const next = answers.shift() ?? 'ok';
      if (next instanceof Error) throw next;
      return next === 'ok' ? {} : next;
    },
  } as unknown as DynamoDBDocumentClient;
  return { store: new DynamoStore(doc, 'table', new CursorCodec('s')), sent };
}

const cancelled = (reasons: Array<{ Code: string; Item?: Record<string, any> }>) =>
  new TransactionCanceledException({ message: 'cancelled', $metadata: {}, CancellationReasons: reasons });

const put = putItem({ PK: 'a', SK: 'b' }).ifVersion(3);

describe('mapping transaction cancellations', () => {
  it('turns a failed condition into the error its write names, given the current item', async () => {
    const { store } = storeAnswering(
      cancelled([{ Code: 'None' }, { Code: 'ConditionalCheckFailed', Item: marshall({ PK: 'a', SK: 'b', version: 4 }) }]),
    );
    const error = await store
      .transact([putItem({ PK: 'x', SK: 'y' }), put.orFail((current) => conflict('Project', 'p', 3, Number(current?.version)))])
      .catch((e) => e);
    expect(error).toBeInstanceOf(AppError);
    expect(error.extensions).toMatchObject({ code: 'CONFLICT', currentVersion: 4, expectedVersion: 3 });
  });

  it('retries a TransactionConflict and succeeds when the other writer is gone', async () => {
    const { store, sent } = storeAnswering(cancelled([{ Code: 'TransactionConflict' }]), 'ok');
    await expect(store.transact([put])).resolves.toBeUndefined();
    expect(sent).toHaveLength(2);
  });

  it('reports CONFLICT, not an internal error, when conflicts persist', async () => {
    const { store, sent } = storeAnswering(...Array.from({ length: 8 }, () => cancelled([{ Code: 'TransactionConflict' }])));
    await expect(store.transact([put])).rejects.toMatchObject({ extensions: { code: 'CONFLICT' } });
    expect(sent).toHaveLength(8);
  });

  it('defaults to CONFLICT for a failed condition without a handler', async () => {
    const { store } = storeAnswering(cancelled([{ Code: 'ConditionalCheckFailed' }]));
    await expect(store.transact([put])).rejects.toMatchObject({ extensions: { code: 'CONFLICT' } });
  });
});

describe('BatchGetItem with UnprocessedKeys', () => {
  it('retries the unprocessed keys until all are read and returns them in key order', async () => {
    const k = (n: number) => ({ PK: 'TENANT#t', SK: `I#${n}` });
    const { store, sent } = storeAnswering(
      { Responses: { table: [{ ...k(3), n: 3 }] }, UnprocessedKeys: { table: { Keys: [k(1), k(2)] } } },
      { Responses: { table: [{ ...k(2), n: 2 }] }, UnprocessedKeys: { table: { Keys: [k(1)] } } },
      { Responses: { table: [{ ...k(1), n: 1 }] } },
    );
    const got = await store.batchGet([k(1), k(2), k(4), k(3)]);
    expect(got.map((i) => i?.n ?? null)).toEqual([1, 2, null, 3]);
    expect(sent).toHaveLength(3);
    expect((sent[1] as BatchGetCommand).input.RequestItems!.table.Keys).toEqual([k(1), k(2)]);
    expect((sent[2] as BatchGetCommand).input.RequestItems!.table.Keys).toEqual([k(1)]);
  });
});
