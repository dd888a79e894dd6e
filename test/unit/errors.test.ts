import { GraphQLError } from 'graphql';
import { ErrorCode, formatError, notFound } from '../../src/errors';

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
