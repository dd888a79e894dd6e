import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildSchema, getNamedType, type GraphQLObjectType, isLeafType, isNonNullType, isObjectType } from 'graphql';
import { tempDir } from '../support/fixtures';

/*
 * Relay is the strictest of the client caches: its compiler refuses a schema whose connections do
 * not follow the Cursor Connections spec, and @refetchable needs every Node type to be readable
 * through node(id:). The small app in test/fixtures/relay is compiled here against the committed
 * schema.graphql with the real relay-compiler (its Linux binary ships in the npm package), plus a
 * @refetchable fragment made here for every type that implements Node, so a new Node type is
 * covered without touching the fixture.
 */

const root = join(__dirname, '../..');
const schemaText = readFileSync(join(root, 'schema.graphql'), 'utf8');
const schema = buildSchema(schemaText);

const nodeTypes = Object.values(schema.getTypeMap()).filter(
  (type): type is GraphQLObjectType => isObjectType(type) && type.getInterfaces().some((i) => i.name === 'Node'),
);

/** A refetchable fragment on `type` selecting every leaf field that needs no argument. */
function refetchableFragment(type: GraphQLObjectType): string {
  const fields = Object.values(type.getFields())
    .filter(
      (field) =>
        isLeafType(getNamedType(field.type)) && !field.args.some((arg) => isNonNullType(arg.type) && arg.defaultValue === undefined),
    )
    .map((field) => field.name);
  const module = `Refetch${type.name}`;
  return [
    'const graphql = String.raw;',
    `export const fragment = graphql\`fragment ${module}_node on ${type.name} @refetchable(queryName: "${module}Query") { ${fields.join(' ')} }\`;`,
    '',
  ].join('\n');
}

function compile(dir: string) {
  // cli.js picks the binary of this platform from the package and runs it.
  return spawnSync(process.execPath, [join(root, 'node_modules/relay-compiler/cli.js')], { cwd: dir, encoding: 'utf8', timeout: 120_000 });
}

describe('relay-compiler', () => {
  let dir: string;

  beforeAll(() => {
    dir = tempDir('relay-app-');
    cpSync(join(root, 'test/fixtures/relay/src'), join(dir, 'src'), { recursive: true });
    writeFileSync(join(dir, 'schema.graphql'), schemaText);
    writeFileSync(join(dir, 'relay.config.json'), JSON.stringify({ src: './src', schema: './schema.graphql', language: 'typescript' }));
    for (const type of nodeTypes) writeFileSync(join(dir, 'src', `Refetch${type.name}.ts`), refetchableFragment(type));
  });

  it('compiles @connection over projects, logsConnection and jobs, a subscription and a @refetchable fragment on every Node type', () => {
    expect(nodeTypes.map((t) => t.name)).toEqual(expect.arrayContaining(['Project', 'Log', 'Job', 'Step', 'Asset', 'Tenant']));
    const result = compile(dir);
    expect({ status: result.status, output: result.status === 0 ? '' : `${result.stdout}${result.stderr}` }).toEqual({
      status: 0,
      output: '',
    });

    const generated = (name: string) => join(dir, 'src/__generated__', `${name}.graphql.ts`);
    for (const name of ['ProjectListPaginationQuery', 'LogListPaginationQuery', 'JobListPaginationQuery', 'JobListSubscription']) {
      expect(existsSync(generated(name))).toBe(true);
    }
    for (const type of nodeTypes) {
      // The refetch query reads the fragment's type back through node(id:).
      expect(readFileSync(generated(`Refetch${type.name}Query`), 'utf8')).toContain('node(id: $id)');
    }
    // logsConnection pages both ways: Relay made it a bidirectional connection.
    expect(readFileSync(generated('LogList_query'), 'utf8')).toMatch(/"direction":\s*"bidirectional"/);
  });
});
