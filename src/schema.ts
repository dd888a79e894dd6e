import 'reflect-metadata';
import { lexicographicSortSchema, printSchema, type GraphQLSchema } from 'graphql';
import { createPubSub } from '@graphql-yoga/subscription';
import { buildSchemaSync } from 'type-graphql';
import { ActivityResolver } from './activity/activity.resolver';
import { AssetResolver, AssetVersionResolver } from './asset/asset.resolver';
import { authChecker } from './auth/auth-checker';
import { BriefResolver } from './brief/brief.resolver';
import { LiveResolver } from './events/live.resolver';
import { InspirationResolver } from './inspiration/inspiration.resolver';
import { JobResolver, StepResolver } from './job/job.resolver';
import { LogResolver } from './log/log.resolver';
import { MilestoneResolver } from './milestone/milestone.resolver';
import { ProjectResolver } from './project/project.resolver';
import { TenantResolver } from './tenant/tenant.resolver';

export const resolvers = [
  TenantResolver,
  ProjectResolver,
  BriefResolver,
  MilestoneResolver,
  LogResolver,
  AssetResolver,
  AssetVersionResolver,
  InspirationResolver,
  ActivityResolver,
  JobResolver,
  StepResolver,
  LiveResolver,
] as const;

let schema: GraphQLSchema | undefined;

/** The executable schema, built once from the type-graphql classes. */
export function buildAppSchema(): GraphQLSchema {
  schema ??= buildSchemaSync({
    resolvers: [...resolvers],
    authChecker,
    authMode: 'error',
    validate: false,
    // Every subscription brings its own `subscribe` (replay, then live from the EventBus), so this
    // pub/sub is never used; type-graphql only refuses to build a schema with subscriptions without one.
    pubSub: createPubSub(),
  });
  return schema;
}

/** The schema as committed in schema.graphql: printed in a stable (sorted) order. */
export function printAppSchema(): string {
  return `${printSchema(lexicographicSortSchema(buildAppSchema()))}\n`;
}
