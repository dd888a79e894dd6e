import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApolloServer, type ApolloServerPlugin } from '@apollo/server';
import { ApolloServerPluginDrainHttpServer } from '@apollo/server/plugin/drainHttpServer';
import { ApolloServerPluginCacheControlDisabled, ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import { expressMiddleware } from '@as-integrations/express5';
import { ApolloArmor } from '@escape.tech/graphql-armor';
import cors from 'cors';
import express from 'express';
import type { GraphQLSchema } from 'graphql';
import type { TokenVerifier } from '../auth/jwt';
import type { Config } from '../config';
import { createContext, type Context, type ContextDeps } from '../context';
import { formatError } from '../errors';
import { logger } from '../logger';
import { graphiqlRouter, type GraphiQLHints } from './graphiql';

export interface HttpDeps extends ContextDeps {
  config: Config;
  schema: GraphQLSchema;
  verifier: TokenVerifier;
  /** What GraphiQL prefills (token, example ids); asked on each page load. */
  graphiqlHints?: () => GraphiQLHints;
  /** Routes served before GraphQL: /healthz, /readyz, /metrics (see app.ts). */
  routers?: express.RequestHandler[];
  /** Runs first for each GraphQL HTTP request (the request budget, see infra/deadline.ts). */
  beforeGraphQL?: express.RequestHandler[];
  /** Apollo plugins of the caller (metrics). */
  plugins?: ApolloServerPlugin<Context>[];
}

export interface HttpServer {
  url: string;
  server: Server;
  /** Stops accepting requests, lets in-flight ones finish, and closes the port. */
  stop(): Promise<void>;
}

/**
 * The query limits shared by HTTP and (later) WebSocket: graphql-armor's depth, cost, alias,
 * directive and token limits, and no field suggestions outside development.
 */
export function queryLimits(config: Config) {
  return new ApolloArmor({
    maxDepth: { n: config.limits.maxDepth },
    costLimit: { maxCost: config.limits.maxCost },
    maxAliases: { n: config.limits.maxAliases },
    maxDirectives: { n: config.limits.maxDirectives },
    maxTokens: { n: config.limits.maxTokens },
    blockFieldSuggestion: { enabled: config.env === 'production' },
  }).protect();
}

/**
 * Starts the HTTP server: POST (and CSRF-safe GET) GraphQL at `/graphql`, and the `routers` (health,
 * readiness, metrics; a bare `/healthz` without them). Listens
 * on `config.host:config.port` (port 0 picks a free one). Throws when the port is taken.
 */
export async function startHttpServer(deps: HttpDeps): Promise<HttpServer> {
  const { config } = deps;
  const app = express();
  app.disable('x-powered-by');
  const server = createServer(app);
  const development = config.env !== 'production';
  const armor = queryLimits(config);

  const apollo = new ApolloServer<Context>({
    schema: deps.schema,
    introspection: config.introspection,
    csrfPrevention: true,
    allowBatchedHttpRequests: false,
    includeStacktraceInErrorResponses: false,
    // main.ts owns shutdown (it also stops DynamoDB Local); Apollo's own signal handlers would race it.
    stopOnTerminationSignals: false,
    formatError: formatError(development),
    validationRules: armor.validationRules,
    // GraphiQL is served by graphiqlRouter from installed packages; Apollo's landing page would load a CDN.
    // No cache-control hints are used, and Apollo's default cache-control plugin wraps every field.
    plugins: [
      ...armor.plugins,
      ApolloServerPluginDrainHttpServer({ httpServer: server }),
      ApolloServerPluginLandingPageDisabled(),
      ApolloServerPluginCacheControlDisabled(),
      ...(deps.plugins ?? []),
    ],
    logger: {
      debug: (m) => logger.debug(m),
      info: (m) => logger.info(m),
      warn: (m) => logger.warn(m),
      error: (m) => logger.error(m),
    },
  });
  await apollo.start();

  if (deps.routers?.length) app.use(...deps.routers);
  else app.get('/healthz', (_req, res) => void res.json({ status: 'ok' }));
  if (config.graphiql) app.use(graphiqlRouter(deps.graphiqlHints ?? (() => ({}))));
  app.use(
    '/graphql',
    ...(deps.beforeGraphQL ?? []),
    cors({ origin: config.corsOrigins, credentials: false }),
    express.json({ limit: config.limits.bodyLimitBytes }),
    expressMiddleware(apollo, {
      context: async ({ req }) => createContext(deps, await deps.verifier.fromHeader(req.headers.authorization)),
    }),
  );
  // A malformed or oversized body gets a JSON error rather than Express's HTML page.
  app.use((error: Error & { status?: number; type?: string }, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
    const status = error.status ?? 500;
    if (status >= 500) logger.error({ err: error }, 'request failed');
    res.status(status).json({
      errors: [
        {
          message: error.type === 'entity.too.large' ? `The request body is larger than ${config.limits.bodyLimitBytes} bytes.` : status >= 500 ? 'Internal server error.' : 'The request body is not valid JSON.',
          extensions: { code: status >= 500 ? 'INTERNAL' : 'BAD_REQUEST' },
        },
      ],
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const host = config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host;
  return {
    url: `http://${host}:${port}/graphql`,
    server,
    stop: () => apollo.stop(),
  };
}
