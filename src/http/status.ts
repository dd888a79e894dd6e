import type { ApolloServerPlugin } from '@apollo/server';
import Negotiator from 'negotiator';
import type { GraphQLFormattedError } from 'graphql';
import { ErrorCode, subscriptionNeedsStream } from '../errors';
import { currentRequest } from '../graphql/record';

/** The media types of a single GraphQL response, in the order Apollo Server prefers them. */
export const JSON_TYPE = 'application/json; charset=utf-8';
export const GRAPHQL_RESPONSE_TYPE = 'application/graphql-response+json; charset=utf-8';
const CALLBACK_TYPE = 'application/json; callbackSpec=1.0; charset=utf-8';

/**
 * Error codes of a GraphQL request that was well-formed HTTP but could not run: the document
 * did not parse or validate (graphql-armor's depth, cost and alias limits are validation rules),
 * the operation could not be picked, the variables could not be coerced (BAD_USER_INPUT), or the
 * operation is a subscription, which a plain HTTP request cannot carry (SUBSCRIPTION_NEEDS_STREAM).
 */
const REQUEST_ERROR_CODES = new Set([
  'GRAPHQL_PARSE_FAILED',
  'GRAPHQL_VALIDATION_FAILED',
  'OPERATION_RESOLUTION_FAILURE',
  'BAD_USER_INPUT',
  ErrorCode.SUBSCRIPTION_NEEDS_STREAM,
]);

/**
 * The media type Apollo Server answers with for this Accept header (application/json when there
 * is none), or undefined when the client accepts none of them (Apollo then answers 406).
 */
export function responseMediaType(accept: string | undefined): string | undefined {
  if (!accept) return JSON_TYPE;
  return new Negotiator({ headers: { accept } }).mediaType([JSON_TYPE, GRAPHQL_RESPONSE_TYPE, CALLBACK_TYPE]);
}

/**
 * Gives request errors the status codes of the GraphQL-over-HTTP spec. Apollo answers every
 * parse, validation and variable error with 400, whatever the media type. The spec asks for 200
 * under application/json (a legacy client reads the errors from the body, and some proxies hide
 * 4xx bodies) and 400 under application/graphql-response+json. The plugin settles the media type
 * itself, from the same Accept header and with the same negotiation as Apollo, so the status and
 * the content-type always agree. Errors during execution (with `data`) and other statuses
 * (401, 405, 406, 413, 503 …) are left alone.
 *
 * A subscription sent by GET gets the answer a POST gets (SUBSCRIPTION_NEEDS_STREAM, see
 * OperationPipeline.apolloPlugins): Apollo refuses every GET that is not a query before any plugin
 * sees the operation, with a 405 that says to use POST, which cannot run a subscription either.
 * Its errors are replaced here, formatted with `formatError` like any other error.
 */
export function graphqlOverHttpStatus<TContext extends object>(
  formatError: (formatted: GraphQLFormattedError, error: unknown) => GraphQLFormattedError,
): ApolloServerPlugin<TContext> {
  return {
    async requestDidStart({ request }) {
      return {
        async willSendResponse({ response, operation }) {
          if (response.body.kind !== 'single') return;
          const result = response.body.singleResult;
          if (result.data !== undefined || !result.errors?.length) return;
          if (operation?.operation === 'subscription' && request.http?.method === 'GET') {
            const error = subscriptionNeedsStream();
            const record = currentRequest();
            if (record) record.outcome = error.code;
            result.errors = [formatError(error.toJSON(), error)];
            response.http.headers.delete('allow');
          }
          if (!result.errors.every((e) => REQUEST_ERROR_CODES.has(String(e.extensions?.code)))) return;
          const mediaType = responseMediaType(request.http?.headers.get('accept'));
          if (!mediaType) return;
          response.http.headers.set('content-type', mediaType);
          response.http.status = mediaType.startsWith('application/graphql-response+json') ? 400 : 200;
        },
      };
    },
  };
}
