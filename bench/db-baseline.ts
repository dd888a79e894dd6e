import { createServer } from 'node:http';
import { createInterface } from 'node:readline';
import './support';
import { buildSchema as buildSdlSchema, type DocumentNode, execute, parse, validate } from 'graphql';
import { createDynamo } from '../src/infra/dynamo/client';
import { LOGS_SDL, logsQuery } from './logs-query';
import { cpuMsOf, median, quantile, report } from './support';

/*
 * The database-bound baselines: the raw SDK Query that GetProjectLogs(first: 50) makes (same key
 * condition, filter, limit and consistency), measured as bench/run.ts measures our server, and the
 * GraphQL-over-HTTP floor: the least a server answering GetProjectLogs over HTTP must do around
 * that Query. Commands on stdin, a line each, answered with `RESULT {…}`:
 * - `run <concurrency> <ms>`: that many query loops at once for that long, with the p50 and p95
 *   latency, queries per second, and this process's CPU per query, read from /proc (cpuMsOf)
 *   before and after the window, as for the server;
 * - `one`: a single Query, and how long it took (`ms`), for the bench's turns one at a time.
 * The floor is a `node:http` server (its URL in the READY line) that runs graphql-js over a
 * three-field schema, with each distinct document parsed and validated once (as any server's
 * document cache does), its resolver the same Query on the same client.
 *   node dist/bench/db-baseline.js <endpoint> <table> <tenant> <projectId>
 */
const [endpoint, table, tenant, projectId] = process.argv.slice(2);

async function main() {
  const { doc } = createDynamo({ endpoint, region: 'us-east-1', requestTimeoutMs: 10_000 });
  const query = () => logsQuery(doc, table, tenant, projectId);
  const run = async (concurrency: number, ms: number) => {
    const latencies: number[] = [];
    const cpuBefore = cpuMsOf(process.pid);
    const until = Date.now() + ms;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (Date.now() < until) {
          const started = performance.now();
          const out = await query();
          latencies.push(performance.now() - started);
          if ((out.Items?.length ?? 0) !== 50) throw new Error(`expected 50 logs, got ${out.Items?.length}`);
        }
      }),
    );
    return {
      p50: median(latencies),
      p95: quantile(latencies, 0.95),
      rps: latencies.length / (ms / 1000),
      cpuMsPerQuery: (cpuMsOf(process.pid) - cpuBefore) / latencies.length,
    };
  };
  const one = async () => {
    const started = performance.now();
    const out = await query();
    return { ms: performance.now() - started, items: out.Items?.length };
  };
  createInterface({ input: process.stdin }).on('line', (line) => {
    const [command, concurrency, ms] = line.split(' ');
    if (command === 'one') one().then((result) => report('RESULT', result), fail);
    else if (command === 'run') run(Number(concurrency), Number(ms)).then((result) => report('RESULT', result), fail);
  });
  // Exits on SIGTERM (the bench's stop) through process.exit, so that --cpu-prof writes its profile.
  process.on('SIGTERM', () => process.exit(0));
  const url = await serveFloor(async () => (await query()).Items ?? []);
  report('READY', { pid: process.pid, url });
}

/** Starts the GraphQL-over-HTTP floor on a free port of 127.0.0.1 and returns its URL. */
async function serveFloor(logs: () => Promise<Record<string, unknown>[]>): Promise<string> {
  const schema = buildSdlSchema(LOGS_SDL);
  const documents = new Map<string, DocumentNode>();
  const rootValue = { logs };
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      const answer = async () => {
        const { query, variables } = JSON.parse(body);
        let document = documents.get(query);
        if (!document) {
          document = parse(query);
          const errors = validate(schema, document);
          if (errors.length) throw new Error(`floor: ${errors[0].message}`);
          documents.set(query, document);
        }
        const result = await execute({ schema, document, variableValues: variables, rootValue });
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(result));
      };
      // The floor serves only the bench's own request: anything else is a fault of the bench.
      answer().catch(fail);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as { port: number }).port}/graphql`;
}

/** A fault of the baseline ends it, printed: the bench then fails with this child's output. */
function fail(error: unknown): never {
  console.error(error);
  process.exit(1);
}

main().catch(fail);
