import { GraphQLError } from 'graphql';
import { AppError, asGraphQLError, ErrorCode, formatError, invalidTransition, notFound } from '../../src/errors';
import { OperationRecords } from '../../src/graphql/record';

describe('formatError', () => {
  const unknownError = {
    message: 'ValidationException: one or more parameter values were invalid: PK secret',
    extensions: { code: 'INTERNAL_SERVER_ERROR', stacktrace: ['at x'] },
  };

  it('masks unknown errors outside development and drops stack traces', () => {
    const formatted = formatError(false)(unknownError, new Error('x'));
    expect(formatted).toEqual({
      message: 'Internal server error.',
      locations: undefined,
      path: undefined,
      extensions: { code: 'INTERNAL' },
    });
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
    expect(formatError(false)({ message: validation.message, extensions: validation.extensions }, validation).message).toBe(
      'Cannot query field',
    );
  });
});

describe('AppError', () => {
  it('is made without a stack trace (an answer, not a fault), leaves the limit as it was, and keeps its code', () => {
    const before = Error.stackTraceLimit;
    const refused = invalidTransition('Job', 'j', 'RUNNING', 'RUNNING');
    expect(refused).toBeInstanceOf(AppError);
    expect(refused).toBeInstanceOf(GraphQLError);
    expect(refused.code).toBe(ErrorCode.INVALID_TRANSITION);
    expect(refused.extensions.code).toBe(ErrorCode.INVALID_TRANSITION);
    // No frame: the stack is the error's first line alone.
    expect(refused.stack?.split('\n')).toEqual([`GraphQLError: ${refused.message}`]);
    expect(Error.stackTraceLimit).toBe(before);
    // A fault made after it still carries its frames.
    expect(new Error('fault').stack?.split('\n').some((line) => line.trim().startsWith('at '))).toBe(true);
  });
});

describe('a subscription that fails midway (asGraphQLError, then OperationRecords.formatErrors)', () => {
  const records = new OperationRecords('production');
  const record = records.begin('req-1');

  it('masks a raw error as INTERNAL, with the request id and no detail', () => {
    const [formatted] = records.formatErrors(record, [asGraphQLError(new Error('ECONNRESET dynamodb secret-table'))]);
    expect(formatted).toEqual({ message: 'Internal server error.', extensions: { code: 'INTERNAL', requestId: 'req-1' } });
  });

  it('keeps a coded error as it is, with the request id', () => {
    const unavailable = new GraphQLError('The database is not answering; retry.', { extensions: { code: 'SERVICE_UNAVAILABLE' } });
    expect(asGraphQLError(unavailable)).toBe(unavailable);
    const [formatted] = records.formatErrors(record, [asGraphQLError(unavailable)]);
    expect(formatted).toMatchObject({ message: unavailable.message, extensions: { code: 'SERVICE_UNAVAILABLE', requestId: 'req-1' } });
  });
});
