import { getVariableValues, GraphQLError, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import { checkVariables, jsonVariablesError } from '../common/json-limits';
import { isRecord } from '../guards';

/**
 * The variables part of the operation pipeline: BAD_USER_INPUT naming the variable when
 * `variables` nest absurdly deep, checked without recursion, so that nothing walks them
 * recursively first (HTTP checks this in Apollo's didResolveOperation; see `variableErrors`).
 */
export function tooDeepVariables(variables: Readonly<Record<string, unknown>> | null | undefined): GraphQLError | undefined {
  const tooDeep = checkVariables(variables);
  return tooDeep ? jsonVariablesError(tooDeep.variable, tooDeep.violation) : undefined;
}

/**
 * The variables step of a transport that runs operations itself (WebSocket, SSE), as Apollo runs
 * it for HTTP: `variables` are first checked for absurd nesting (before anything walks them
 * recursively), then coerced against `operation`'s variable definitions. A value that is not an
 * object, a missing required variable or a value of the wrong type is the client's mistake:
 * BAD_USER_INPUT errors naming it (an empty list when all is well), so no transport answers
 * INTERNAL for it. Never throws.
 */
export function variableErrors(schema: GraphQLSchema, operation: OperationDefinitionNode, variables: unknown): GraphQLError[] {
  if (variables != null && (!isRecord(variables) || Array.isArray(variables))) {
    return [new GraphQLError('variables must be a JSON object.', { extensions: { code: 'BAD_USER_INPUT' } })];
  }
  const values = variables ?? {};
  const tooDeep = tooDeepVariables(values);
  if (tooDeep) return [tooDeep];
  // Without variable definitions there is nothing to coerce (graphql-js ignores variables no definition names).
  if (!operation.variableDefinitions?.length) return [];
  const coerced = getVariableValues(schema, operation.variableDefinitions, values, { maxErrors: 50 });
  if (!coerced.errors) return [];
  return coerced.errors.map(
    (e) => new GraphQLError(e.message, { nodes: e.nodes, extensions: { ...e.extensions, code: 'BAD_USER_INPUT' } }),
  );
}
