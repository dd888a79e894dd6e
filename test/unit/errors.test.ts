import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { GraphQLError } from 'graphql';
import { AppError, conflict, ErrorCode, formatError, notFound } from '../../src/errors';
import { CursorCodec } from '../../src/infra/cursor';
import { Store } from '../../src/infra/dynamo/store';

/*
 * These tests replace the document client with a fake, on purpose: they inject cancellation
 * reasons (a TransactionConflict that clears on retry, an unknown reason) that DynamoDB Local
 * cannot be made to produce on demand. Real conditional failures are tested against DynamoDB Local.
 */
function storeAnswering(...answers: Array<Error | 'ok'>) {
  const sent: unknown[] = [];
  const doc = {
    send: async (command: unknown) => {
      sent.push(command);
      const next = answers.shift() ?? 'ok';
      if (next !== 'ok') throw next;
      return {};
    },
  } as unknown as DynamoDBDocumentClient;
  return { store: new Store(doc, 'table', new CursorCodec('s')), sent };
}

const cancelled = (reasons: Array<{ Code: string; Item?: Record<string, any> }>) =>
  new TransactionCanceledException({ message: 'cancelled', $metadata: {}, CancellationReasons: reasons });

const put = { Put: { TableName: '', Item: { PK: 'a', SK: 'b' }, ConditionExpression: 'version = :v' } };

describe('mapping transaction cancellations', () => {
  it('turns a failed condition into the error its write names, given the current item', async () => {
    const { store } = storeAnswering(cancelled([{ Code: 'None' }, { Code: 'ConditionalCheckFailed', Item: marshall({ PK: 'a', SK: 'b', version: 4 }) }]));
    const error = await store
      .transact([{ Put: { TableName: '', Item: { PK: 'x', SK: 'y' } } }, { ...put, onConditionFailed: (current) => conflict('Project', 'p', 3, current?.version) }])
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

describe('formatError', () => {
  const unknownError = { message: 'ValidationException: one or more parameter values were invalid: PK secret', extensions: { code: 'INTERNAL_SERVER_ERROR', stacktrace: ['at x'] } };

  it('masks unknown errors outside development and drops stack traces', () => {
    const formatted = formatError(false)(unknownError, new Error('x'));
    expect(formatted).toEqual({ message: 'Internal server error.', locations: undefined, path: undefined, extensions: { code: 'INTERNAL' } });
  });

  it('keeps the message of unknown errors in development, coded INTERNAL', () => {
    expect(formatError(true)(unknownError, new Error('x')).extensions?.code).toBe('INTERNAL');
    expect(formatError(true)(unknownError, new Error('x')).message).toContain('ValidationException');
  });

  it('passes our codes and graphql-js validation codes through unchanged, without stacks', () => {
    const ours = notFound('Project', 'p');
    const formatted = formatError(false)({ message: ours.message, extensions: { ...ours.extensions, stacktrace: ['x'] } }, ours);
    expect(formatted.extensions).toEqual({ code: ErrorCode.NOT_FOUND, entity: 'Project', id: 'p' });
    const validation = new GraphQLError('Cannot query field', { extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } });
    expect(formatError(false)({ message: validation.message, extensions: validation.extensions }, validation).message).toBe('Cannot query field');
  });
});
