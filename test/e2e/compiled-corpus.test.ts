import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  getNamedType,
  GraphQLEnumType,
  GraphQLInputObjectType,
  GraphQLList,
  GraphQLNonNull,
  GraphQLScalarType,
  isInputType,
  Kind,
  parse,
  print,
  typeFromAST,
  type GraphQLInputType,
  type OperationDefinitionNode,
} from 'graphql';
import { COMPILE_AFTER } from '../../src/graphql/compiled-queries';
import { Role, startTestServer, type TestServer } from '../support/server';

/*
 * Every query of the example corpus (src/client/operations/*.graphql and the operations written
 * in examples/) runs over HTTP twice on one server: the first time on graphql-js, the second
 * compiled by graphql-jit (src/graphql/compiled-queries.ts compiles a query on its second run).
 * The two answers must be the same, status and body byte for byte, errors included: resolver
 * errors (ids that name nothing, roles that may not read), abstract types (search's entity, node),
 * every variable each operation declares, and, with no token, the auth check of every field. The
 * server's counter shows that each second run that executed was the compiled query's.
 * A second server on the same table reads whole items (projectReads: false), as every read did
 * before list reads were projected (src/common/projection.ts): each query answers there with the
 * same status and bytes too.
 * Mutations and subscriptions are not compiled (test/unit/compiled-queries.test.ts shows that);
 * the corners of execution (null bubbling, coercion errors) are held there too, on a schema made
 * to reach them.
 */

const root = join(__dirname, '../..');

/** Every operation of the corpus, each as a document of its own, with where it came from. */
function corpus(): Array<{ source: string; operation: OperationDefinitionNode }> {
  const texts: Array<[string, string]> = [];
  const operations = join(root, 'src/client/operations');
  for (const file of readdirSync(operations).filter((f) => f.endsWith('.graphql')))
    texts.push([`src/client/operations/${file}`, readFileSync(join(operations, file), 'utf8')]);
  const examples = join(root, 'examples');
  for (const entry of readdirSync(examples, { recursive: true, encoding: 'utf8' }).filter((f) => /\.(mjs|ts)$/.test(f))) {
    const text = readFileSync(join(examples, entry), 'utf8');
    // Operations in examples are template literals (gql`…` or a plain string) that start with their keyword.
    for (const match of text.matchAll(/`\s*((?:query|mutation|subscription)\s+\w+[^`]*)`/g)) texts.push([`examples/${entry}`, match[1]]);
  }
  return texts.flatMap(([source, text]) =>
    parse(text)
      .definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION)
      .map((operation) => ({ source, operation })),
  );
}

describe('compiled queries answer as graphql-js does, over the whole example corpus', () => {
  let server: TestServer;
  let whole: TestServer;
  const tokens: Record<string, string | null> = { anonymous: null };
  const ids: Record<string, string> = {};
  const operations = corpus();
  const queries = operations.filter((o) => o.operation.operation === 'query');

  beforeAll(async () => {
    server = await startTestServer();
    whole = await startTestServer({ projectReads: false, env: { TABLE_NAME: server.config.tableName } });
    const tenant = 'compiled';
    tokens.editor = await server.token(tenant, [Role.EDITOR]);
    tokens.viewer = await server.token(tenant, [Role.VIEWER]);
    const run = async (query: string, variables: Record<string, unknown> = {}) => {
      const { body } = await server.raw({ query, variables }, tokens.editor);
      if (body.errors) throw new Error(JSON.stringify(body.errors));
      return body.data;
    };
    ids.projectId = (await run('mutation { createProject(input: { title: "Compiled corpus" }) { projectId } }')).createProject.projectId;
    for (let i = 0; i < 3; i++) {
      ids.logId = (
        await run('mutation($p: ID!, $i: CreateLogInput!) { createLog(projectId: $p, input: $i) { logId } }', {
          p: ids.projectId,
          i: { rawText: `oil study ${i}`, materials: ['oil', 'canvas'], timeSpentMinutes: 10 + i },
        })
      ).createLog.logId;
    }
    ids.assetId = (
      await run('mutation($p: ID!, $i: CreateAssetInput!) { createAsset(projectId: $p, input: $i) { assetId } }', {
        p: ids.projectId,
        i: { type: 'IMAGE', s3Key: `tenants/${tenant}/oil.png`, linkedLogId: ids.logId },
      })
    ).createAsset.assetId;
    ids.milestoneId = (
      await run('mutation($p: ID!) { createMilestone(projectId: $p, input: { name: "Underpainting" }) { milestoneId } }', {
        p: ids.projectId,
      })
    ).createMilestone.milestoneId;
    await run(
      'mutation($p: ID!) { createBriefVersion(projectId: $p, input: { changelogEntry: "first", deliverables: ["a"], requirements: ["b"] }) { version } }',
      { p: ids.projectId },
    );
    ids.inspirationId = (
      await run(
        'mutation($p: ID!) { createInspiration(input: { type: IMAGE, text: "oil light", tags: ["oil"], linkedProjectId: $p }) { inspirationId } }',
        {
          p: ids.projectId,
        },
      )
    ).createInspiration.inspirationId;
    ids.jobId = (
      await run('mutation($p: ID!) { createJob(input: { projectId: $p, kind: "BENCH", steps: ["render"] }) { jobId } }', {
        p: ids.projectId,
      })
    ).createJob.jobId;
  });

  /** A value for each variable `operation` declares: the seeded id it names, else a plain value of its type. */
  function variablesOf(operation: OperationDefinitionNode): Record<string, unknown> {
    const variables: Record<string, unknown> = {};
    for (const definition of operation.variableDefinitions ?? []) {
      const name = definition.variable.name.value;
      const type = typeFromAST(server.app.pipeline.schema, definition.type);
      if (!type || !isInputType(type)) throw new Error(`${name}: not an input type`);
      const value = ids[name] ?? plainValue(name, type);
      if (value !== undefined) variables[name] = value;
    }
    return variables;
  }

  it('covers every query of the corpus, and the corpus has queries, mutations and a subscription', () => {
    expect(queries.length).toBeGreaterThanOrEqual(30);
    expect(operations.some((o) => o.operation.operation === 'mutation')).toBe(true);
    expect(operations.some((o) => o.operation.operation === 'subscription')).toBe(true);
    expect(operations.some((o) => o.source.startsWith('examples/') && o.operation.operation === 'query')).toBe(true);
  });

  it.each(['editor', 'viewer', 'anonymous'])(
    'each query answers the same compiled as on graphql-js, and with whole items read, as %s',
    async (who) => {
      expect(COMPILE_AFTER).toBe(1);
      let executed = 0;
      for (const { source, operation } of queries) {
        // A text of its own per operation and caller, so its first run here is its first run anywhere.
        const query = `${print(operation)}\n# ${who}`;
        const body = { query, variables: variablesOf(operation) };
        const requestId = `compiled-${operation.name?.value}-${who}`;
        const first = await server.raw(body, tokens[who], { 'x-request-id': requestId });
        const runs = server.app.pipeline.queries.counts.runs;
        const second = await server.raw(body, tokens[who], { 'x-request-id': requestId });
        const unprojected = await whole.raw(body, tokens[who], { 'x-request-id': requestId });
        const label = `${source} ${operation.name?.value} as ${who}`;
        const answer = { label, status: first.status, body: comparable(first.body) };
        expect({ label, status: second.status, body: comparable(second.body) }).toEqual(answer);
        expect({ label, status: unprojected.status, body: comparable(unprojected.body) }).toEqual(answer);
        // An answer with data was executed, and its second run was the compiled query's.
        if (first.body.data !== undefined) {
          executed++;
          expect({ label, compiledRuns: server.app.pipeline.queries.counts.runs - runs }).toEqual({ label, compiledRuns: 1 });
        }
      }
      expect(executed).toBeGreaterThanOrEqual(queries.length - 2);
      expect(server.app.pipeline.queries.counts.uncompilable).toBe(0);
    },
  );
});

/**
 * The answer as text, with what differs between two runs a second apart whoever executes them
 * replaced: a presigned URL's time and signature, cursors (encrypted with a new nonce each time),
 * and the port of the server's embedded S3 (each test server starts its own).
 */
function comparable(body: unknown): string {
  return JSON.stringify(body)
    .replace(/http:\/\/127\.0\.0\.1:\d+\//g, 'http://127.0.0.1:…/')
    .replace(/eyJhbGciOiJkaXIi[\w-]*\.\.[\w-]+\.[\w-]+\.[\w-]+/g, 'cursor…')
    .replace(/X-Amz-Date=\d+T\d+Z/g, 'X-Amz-Date=…')
    .replace(/X-Amz-Signature=[0-9a-f]+/g, 'X-Amz-Signature=…');
}

/** A value of `type` for a variable named `name` that names no seeded id: small page sizes, an enum's first value, plain text. */
function plainValue(name: string, type: GraphQLInputType): unknown {
  if (type instanceof GraphQLNonNull) return plainValue(name, type.ofType);
  if (type instanceof GraphQLList) return [plainValue(name, type.ofType)];
  const named = getNamedType(type);
  if (named instanceof GraphQLEnumType) return named.getValues()[0].name;
  if (named instanceof GraphQLInputObjectType) return undefined;
  if (!(named instanceof GraphQLScalarType)) return undefined;
  switch (named.name) {
    case 'Int':
      return name === 'version' ? 1 : 2;
    case 'Boolean':
      return false;
    case 'String':
      return name === 'after' || name === 'before' ? undefined : 'oil';
    case 'ID':
      // An id that names nothing: the resolver's not-found answer, compared too.
      return 'log_01ARZ3NDEKTSV4RRFFQ69G5FAV';
    default:
      return undefined;
  }
}
