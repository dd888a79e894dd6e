import 'reflect-metadata';
import { lexicographicSortSchema, printSchema, type GraphQLSchema } from 'graphql';
import { createPubSub } from '@graphql-yoga/subscription';
import { buildSchemaSync } from 'type-graphql';
import { authChecker } from './auth/auth-checker';
import { features } from './features';

/** Every resolver class, from the features (see src/features.ts). */
export const resolvers = features.flatMap((f) => f.resolvers);

let schema: GraphQLSchema | undefined;

/** The executable schema, built once from the type-graphql classes. */
export function buildAppSchema(): GraphQLSchema {
  const [first, ...rest] = resolvers;
  if (!first) throw new Error('No feature has a resolver.');
  schema ??= buildSchemaSync({
    resolvers: [first, ...rest],
    authChecker,
    authMode: 'error',
    validate: false,
    // Every subscription brings its own `subscribe` (replay, then live from the EventBus), so this
    // pub/sub is never used; type-graphql only refuses to build a schema with subscriptions without one.
    pubSub: createPubSub(),
  });
  describeRootTypes(schema);
  return schema;
}

/**
 * type-graphql makes the root types itself and takes no description for them, so they are given
 * theirs here, once, before the schema is used.
 */
function describeRootTypes(built: GraphQLSchema): void {
  const query = built.getQueryType();
  const mutation = built.getMutationType();
  const subscription = built.getSubscriptionType();
  if (query) query.description = "Reads. Everything is your tenant's (the token's), except the operators' *AcrossTenants lists.";
  if (mutation) mutation.description = "Writes: each is one DynamoDB transaction that also records the change's event.";
  if (subscription)
    subscription.description =
      'Live streams: each message carries its position; resume with the last one you received (see docs/streams.md).';
}

/** The schema as committed in schema.graphql: printed in a stable (sorted) order. */
export function printAppSchema(): string {
  return `${printSchema(lexicographicSortSchema(buildAppSchema()))}\n`;
}
