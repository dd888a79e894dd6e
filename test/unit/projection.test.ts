import {
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  GraphQLList,
  GraphQLObjectType,
  type GraphQLOutputType,
  GraphQLSchema,
  GraphQLString,
  Kind,
  type OperationDefinitionNode,
  parse,
} from 'graphql';
import { selectionOf } from '../../src/common/projection';
import { buildAppSchema } from '../../src/schema';

/*
 * What a list field's selection reads of its items (src/common/projection.ts), on the app's own
 * schema: the resolve info a resolver is handed is its field nodes (those its response key
 * merges), its return type and the document's fragments.
 */

/** The resolve info of the root field `responseKey` of `document`'s operation, as graphql-js hands it. */
function infoOf(schema: GraphQLSchema, document: DocumentNode, responseKey: string) {
  const operation = document.definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  const fieldNodes = (operation?.selectionSet.selections ?? []).filter(
    (s): s is FieldNode => s.kind === Kind.FIELD && (s.alias ?? s.name).value === responseKey,
  );
  const returnType: GraphQLOutputType | undefined = schema.getQueryType()?.getFields()[fieldNodes[0].name.value].type;
  if (!returnType) throw new Error(`No root field ${responseKey}.`);
  const fragments: Record<string, FragmentDefinitionNode> = {};
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments[d.name.value] = d;
  return { fieldNodes, returnType, fragments };
}

describe('the attributes a query reads of a list’s items', () => {
  const schema = buildAppSchema();

  it('are the fields selected on the items of a list, each an attribute of its name', () => {
    const document = parse('query($p: ID!) { logs(projectId: $p) { logId materials timeSpentMinutes __typename } }');
    expect(selectionOf(infoOf(schema, document, 'logs'))).toEqual(['logId', 'materials', 'timeSpentMinutes']);
  });

  it('are those of a connection’s nodes and edges’ nodes, through fragments, with what field resolvers say they read', () => {
    const document = parse(`query($p: ID!) {
      logsConnection(projectId: $p) {
        edges { cursor node { ...Card __typename } }
        nodes { ... on Log { rawText } }
        pageInfo { endCursor hasNextPage }
      }
    }
    fragment Card on Log { id assets { assetId } tags }`);
    // id reads the key values (always read); assets reads assetIds (@Reads).
    expect(selectionOf(infoOf(schema, document, 'logsConnection'))).toEqual(['assetIds', 'rawText', 'tags']);
  });

  it('are derived again when a response key merges other nodes (an @include that held this time)', () => {
    const document = parse(`query($p: ID!, $more: Boolean!) {
      logs(projectId: $p) { logId }
      logs(projectId: $p) @include(if: $more) { rawText }
    }`);
    const both = infoOf(schema, document, 'logs');
    const first = selectionOf({ ...both, fieldNodes: both.fieldNodes.slice(0, 1) });
    expect(first).toEqual(['logId']);
    expect(selectionOf(both)).toEqual(['logId', 'rawText']);
    // The same nodes give the same array, which the caches built from it are keyed by.
    expect(selectionOf({ ...both, fieldNodes: both.fieldNodes.slice(0, 1) })).toBe(first);
  });

  it('are every attribute (undefined) when a selected field resolver does not say what it reads', () => {
    const Item = new GraphQLObjectType({
      name: 'Item',
      fields: { name: { type: GraphQLString }, computed: { type: GraphQLString, resolve: () => 'x' } },
    });
    const small = new GraphQLSchema({
      query: new GraphQLObjectType({ name: 'Query', fields: { items: { type: new GraphQLList(Item) } } }),
    });
    expect(selectionOf(infoOf(small, parse('{ items { name } }'), 'items'))).toEqual(['name']);
    expect(selectionOf(infoOf(small, parse('{ items { name computed } }'), 'items'))).toBeUndefined();
  });
});
