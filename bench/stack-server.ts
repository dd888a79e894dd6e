import 'reflect-metadata';
import './support';
import { createServer } from 'node:http';
import { buildSchema as buildSdlSchema, graphql } from 'graphql';
import { Arg, Authorized, Field, FieldResolver, ID, Int, ObjectType, Query, Resolver, Root, buildSchemaSync } from 'type-graphql';
import { authChecker } from '../src/auth/auth-checker';
import { TokenVerifier } from '../src/auth/jwt';
import { loadConfig } from '../src/config';
import type { Store } from '../src/infra/dynamo/store';
import { OperationPipeline } from '../src/graphql/pipeline';
import { startHttpServer } from '../src/http/server';
import { report } from './support';

/*
 * Stack overhead: one schema shape, in-memory data, served two ways.
 *   node dist/bench/stack-server.js ours   — our HTTP stack (Express, Apollo, graphql-armor, JWT auth, type-graphql)
 *   node dist/bench/stack-server.js bare   — graphql-js execute on node:http
 */
const PROJECTS = 10;
const LOGS = 10;
const data = Array.from({ length: PROJECTS }, (_, p) => ({
  projectId: `proj_${p}`,
  title: `Project ${p}`,
  logs: Array.from({ length: LOGS }, (_, l) => ({ logId: `log_${p}_${l}`, materials: ['oil', 'canvas'], timeSpentMinutes: l * 5 })),
}));

@ObjectType('BenchLog')
class BenchLog {
  @Field(() => ID) logId!: string;
  @Field(() => [String]) materials!: string[];
  @Field(() => Int) timeSpentMinutes!: number;
}

@ObjectType('BenchProject')
class BenchProject {
  @Field(() => ID) projectId!: string;
  @Field() title!: string;
  logs?: BenchLog[];
}

@Resolver(() => BenchProject)
class BenchResolver {
  @Authorized()
  @Query(() => [BenchProject])
  projects(@Arg('first', () => Int, { nullable: true }) first: number | null) {
    return data.slice(0, first ?? PROJECTS);
  }

  @FieldResolver(() => [BenchLog])
  logs(@Root() project: BenchProject) {
    return data.find((p) => p.projectId === project.projectId)!.logs;
  }
}

// Exits on SIGTERM (the bench's stop) through process.exit, so that --cpu-prof writes its profile.
process.on('SIGTERM', () => process.exit(0));

async function main() {
  const mode = process.argv[2];
  if (mode === 'ours') {
    const config = loadConfig({
      NODE_ENV: 'production',
      PORT: '0',
      DYNAMODB_ENDPOINT: 'http://127.0.0.1:9',
      S3_BUCKET: 'unused',
      AUTH_JWT_SECRET: process.env.BENCH_SECRET!,
      CURSOR_SECRET: 'c',
    });
    const schema = buildSchemaSync({ resolvers: [BenchResolver], authChecker, authMode: 'error', validate: false });
    const pipeline = new OperationPipeline({ config, schema, store: {} as Store, eventRetentionDays: 1 });
    const http = await startHttpServer({ config, schema, verifier: new TokenVerifier(config.auth), pipeline });
    report('READY', { url: http.url, pid: process.pid });
    return;
  }
  const schema = buildSdlSchema(`
    type BenchLog { logId: ID! materials: [String!]! timeSpentMinutes: Int! }
    type BenchProject { projectId: ID! title: String! logs: [BenchLog!]! }
    type Query { projects(first: Int): [BenchProject!]! }
  `);
  const rootValue = { projects: ({ first }: { first?: number }) => data.slice(0, first ?? PROJECTS) };
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', async () => {
      const { query, variables } = JSON.parse(body);
      const result = await graphql({ schema, source: query, variableValues: variables, rootValue });
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(result));
    });
  });
  server.listen(0, '127.0.0.1', () =>
    report('READY', { url: `http://127.0.0.1:${(server.address() as { port: number }).port}/graphql`, pid: process.pid }),
  );
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
