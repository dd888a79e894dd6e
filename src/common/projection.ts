import {
  type FieldNode,
  type FragmentDefinitionNode,
  getNamedType,
  type GraphQLObjectType,
  type GraphQLResolveInfo,
  isObjectType,
  Kind,
  type SelectionSetNode,
} from 'graphql';
import { createParameterDecorator, Extensions } from 'type-graphql';

/*
 * What a list read asks DynamoDB for: only the attributes its query's fields read of the items
 * (a projection), derived from the schema and the query's selection, never listed by hand per
 * query. A field of an entity's object type without a resolver of its own reads the attribute of
 * its name (the declaration made both, src/common/model-types.ts); a field resolver says what it
 * reads with `@Reads`; a field resolver that says nothing makes the read take every attribute.
 * The model adds its key values and version, the store the key, type, expiry and index key
 * (EntityModel.projectionOf, Projection in src/infra/dynamo/store.ts).
 */

/**
 * The attributes a query's fields read of the items a list field returns, sorted, each once.
 * The same array for the same field of the same document, so what is built from it is kept.
 */
export type Selection = readonly string[];

/** The extension of a field resolver's field that says which attributes of its parent item it reads. */
const READS = 'reads';

/**
 * Says which attributes of its parent item a field resolver reads, besides the item's key values
 * and version, which every item read for a selection carries: `@Reads('linkedLogId')`. Without
 * it, a query that selects the field reads its items whole.
 */
export function Reads(...attributes: string[]) {
  return Extensions({ [READS]: attributes });
}

/**
 * A resolver parameter: the attributes its query's fields read of the items it returns (see
 * selectionOf), for a repository's list read to ask for no more.
 */
export function Selected() {
  return createParameterDecorator(({ info }) => selectionOf(info));
}

/** A field's selection as derived for its field nodes (the nodes one response key merges). */
interface Derived {
  nodes: readonly FieldNode[];
  selection: Selection | undefined;
}

/**
 * Selections derived so far, by the field's first node: one for each set of nodes it was merged
 * with (an @include that held or not), at most MAX_MERGES. Documents are cached (and a compiled
 * query keeps its nodes), so a field's nodes are the same objects each time its document runs.
 */
const derived = new WeakMap<FieldNode, Derived[]>();
const MAX_MERGES = 8;

/**
 * The attributes the field `info` resolves reads of its items: the fields selected on its type
 * when that is an entity's object type or a list of it, or on its connection's `nodes` and
 * `edges { node }` (src/common/connection.ts); their fragments included, whatever their
 * directives say (reading more than an @skip leaves out costs nothing worse). Undefined when that
 * cannot be told (a field resolver that does not say what it reads, another return type): then
 * the read takes every attribute. Derived once per field of a document, and the same array each
 * time.
 */
export function selectionOf(info: Pick<GraphQLResolveInfo, 'fieldNodes' | 'returnType' | 'fragments'>): Selection | undefined {
  const nodes = info.fieldNodes;
  let known = derived.get(nodes[0]);
  const found = known?.find((entry) => entry.nodes.length === nodes.length && entry.nodes.every((node, i) => node === nodes[i]));
  if (found) return found.selection;
  const selection = derive(info);
  if (!known) derived.set(nodes[0], (known = []));
  if (known.length < MAX_MERGES) known.push({ nodes: [...nodes], selection });
  return selection;
}

function derive({ fieldNodes, returnType, fragments }: Pick<GraphQLResolveInfo, 'fieldNodes' | 'returnType' | 'fragments'>) {
  const type = getNamedType(returnType);
  if (!isObjectType(type)) return undefined;
  const sets = fieldNodes.flatMap((node) => (node.selectionSet ? [node.selectionSet] : []));
  const fields = type.getFields();
  if (!(fields.edges && fields.nodes && fields.pageInfo)) return attributesRead(type, sets, fragments);
  // A connection: its items are its nodes and its edges' nodes; its page info reads nothing of them.
  const itemType = getNamedType(fields.nodes.type);
  if (!isObjectType(itemType)) return undefined;
  const itemSets: SelectionSetNode[] = [];
  for (const field of fieldsIn(sets, fragments)) {
    if (field.name.value === 'nodes' && field.selectionSet) itemSets.push(field.selectionSet);
    if (field.name.value !== 'edges' || !field.selectionSet) continue;
    for (const edgeField of fieldsIn([field.selectionSet], fragments)) {
      if (edgeField.name.value === 'node' && edgeField.selectionSet) itemSets.push(edgeField.selectionSet);
    }
  }
  return attributesRead(itemType, itemSets, fragments);
}

/** The attributes the fields selected in `sets` on `type` read of its items (see selectionOf). */
function attributesRead(type: GraphQLObjectType, sets: SelectionSetNode[], fragments: Record<string, FragmentDefinitionNode>) {
  const fields = type.getFields();
  const names = new Set<string>();
  for (const node of fieldsIn(sets, fragments)) {
    const name = node.name.value;
    // GraphQL answers __typename from the type; an interface's type comes from entityType, which every read returns.
    if (name === '__typename') continue;
    const field = fields[name];
    if (!field) return undefined;
    if (!field.resolve) {
      names.add(name);
      continue;
    }
    const reads: unknown = field.extensions[READS];
    if (!Array.isArray(reads)) return undefined;
    for (const attribute of reads) names.add(String(attribute));
  }
  return Object.freeze([...names].sort());
}

/** The fields selected in `sets`, through their fragments (spread or inline), in order. */
function fieldsIn(sets: readonly SelectionSetNode[], fragments: Record<string, FragmentDefinitionNode>): FieldNode[] {
  const out: FieldNode[] = [];
  const walk = (set: SelectionSetNode) => {
    for (const selection of set.selections) {
      if (selection.kind === Kind.FIELD) out.push(selection);
      else if (selection.kind === Kind.INLINE_FRAGMENT) walk(selection.selectionSet);
      else {
        // Validation refuses a spread of an unknown fragment and fragment cycles.
        const fragment = fragments[selection.name.value];
        if (fragment) walk(fragment.selectionSet);
      }
    }
  };
  for (const set of sets) walk(set);
  return out;
}
