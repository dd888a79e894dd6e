import './support';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { ApolloServer } from '@apollo/server';
import { expressMiddleware } from '@as-integrations/express5';
import cors from 'cors';
import express from 'express';
import Fastify from 'fastify';
import mercurius from 'mercurius';
import { jwtVerify } from 'jose';
import { postgraphile } from 'postgraphile';
import { makePgService } from 'postgraphile/adaptors/pg';
import { grafserv } from 'postgraphile/grafserv/node';
import { PostGraphileAmberPreset } from 'postgraphile/presets/amber';
import { createDynamo } from '../src/infra/dynamo/client';
import { LOGS_SDL, logsQuery } from './logs-query';
import { report, SECRET } from './support';

/*
 * The servers a user would pick instead of ours, each serving GetProjectLogs over the same
 * DynamoDB Local table with the same SDK Query (logs-query.ts), set up as their documentation's
 * first example sets them up, with nothing added:
 *   node dist/bench/peer-server.js apollo    <endpoint> <table> <tenant>  Apollo Server 5 on Express (cors, express.json, expressMiddleware)
 *   node dist/bench/peer-server.js yoga      <endpoint> <table> <tenant>  GraphQL Yoga 5 on node:http, defaults
 *   node dist/bench/peer-server.js mercurius <endpoint> <table> <tenant>  Mercurius on Fastify with graphql-jit (jit: 1)
 * and, for the PostgreSQL row, PostGraphile 5 over the tables our server wrote (see postgraphilePeer):
 *   node dist/bench/peer-server.js postgraphile <DATABASE_URL> <schema>   the Amber preset on node:http (grafserv)
 * Each prints `READY {"url", "pid"}` once it listens on a free port of 127.0.0.1.
 */
const [peer, endpoint, table, tenant] = process.argv.slice(2);

/**
 * The part of graphql-yoga this file uses. Yoga is loaded with `require` and typed here because
 * its type declarations pull the DOM library into every file the project compiles (through
 * @whatwg-node/fetch's `reference lib="dom"`), which changes the type of `fetch` in the tests.
 */
interface Yoga {
  createSchema(options: { typeDefs: string; resolvers: unknown }): unknown;
  createYoga(options: { schema: unknown }): (req: IncomingMessage, res: ServerResponse) => void;
}

async function main() {
  const { doc } = createDynamo({ endpoint, region: 'us-east-1', requestTimeoutMs: 10_000 });
  const resolvers = {
    Query: { logs: async (_: unknown, args: { projectId: string }) => (await logsQuery(doc, table, tenant, args.projectId)).Items ?? [] },
  };
  const ready = (port: number) => report('READY', { url: `http://127.0.0.1:${port}/graphql`, pid: process.pid });
  if (peer === 'apollo') {
    const apollo = new ApolloServer({ typeDefs: LOGS_SDL, resolvers });
    await apollo.start();
    const app = express();
    app.use('/graphql', cors<cors.CorsRequest>(), express.json(), expressMiddleware(apollo));
    const server = app.listen(0, '127.0.0.1', () => ready(portOf(server.address())));
  } else if (peer === 'yoga') {
    const { createSchema, createYoga }: Yoga = require('graphql-yoga');
    const yoga = createYoga({ schema: createSchema({ typeDefs: LOGS_SDL, resolvers }) });
    const server = createServer(yoga);
    server.listen(0, '127.0.0.1', () => ready(portOf(server.address())));
  } else if (peer === 'mercurius') {
    const app = Fastify();
    await app.register(mercurius, { schema: LOGS_SDL, resolvers, jit: 1 });
    await app.listen({ port: 0, host: '127.0.0.1' });
    ready(portOf(app.server.address()));
  } else if (peer === 'postgraphile') {
    await postgraphilePeer(endpoint, table, ready);
  } else {
    throw new Error(`peer-server: unknown peer ${peer} (apollo, yoga, mercurius or postgraphile)`);
  }
  // Exits on SIGTERM (the bench's stop) through process.exit, so that --cpu-prof writes its profile.
  process.on('SIGTERM', () => process.exit(0));
}

/**
 * PostGraphile 5 as its documentation's first example sets it up (the Amber preset, one pg
 * service, grafserv on node:http), over the schema our server derived and wrote, connected as our
 * server's own role (`artissist_app`), which row-level security binds to the tenant in the
 * transaction's `app.tenant_id`. Its tenant is set the way our store sets it: each request's bearer
 * token is verified (HS256, the bench's secret, as our server verifies it) and its `tenantId` claim
 * becomes the request's `pgSettings`, which PostGraphile applies with `set_config(…, true)` in the
 * transaction it wraps the request's SQL in, as our store's `withTenant` does. A request without a
 * token gets no setting and sees no row; one with an invalid token is refused.
 */
async function postgraphilePeer(databaseUrl: string, schema: string, ready: (port: number) => void) {
  const key = new TextEncoder().encode(SECRET);
  const pgl = postgraphile({
    extends: [PostGraphileAmberPreset],
    pgServices: [makePgService({ connectionString: databaseUrl, schemas: [schema] })],
    grafast: {
      async context(ctx) {
        const bearer = /^Bearer (.+)$/.exec(ctx.node?.req.headers.authorization ?? '')?.[1];
        if (!bearer) return {};
        const { payload } = await jwtVerify(bearer, key, { algorithms: ['HS256'] });
        return typeof payload.tenantId === 'string' ? { pgSettings: { 'app.tenant_id': payload.tenantId } } : {};
      },
    },
  });
  const serv = pgl.createServ(grafserv);
  const server = createServer();
  await serv.addTo(server);
  server.listen(0, '127.0.0.1', () => ready(portOf(server.address())));
}

function portOf(address: unknown): number {
  if (address && typeof address === 'object' && 'port' in address && typeof address.port === 'number') return address.port;
  throw new Error(`peer-server: not listening on a port (${String(address)})`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
