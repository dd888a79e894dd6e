import { Field, ObjectType, type ClassType } from 'type-graphql';

/*
 * The GraphQL Cursor Connections spec (what Relay's @connection, urql's Graphcache and Apollo
 * Client's relayStylePagination read), made once for every list: `Connection(Node)` gives a
 * connection type with `edges { cursor node }`, `nodes` and `pageInfo`. Its values are the pages
 * of src/infra/dynamo/page.ts, which carry each node's cursor. The page arguments are in
 * pagination.ts.
 */

@ObjectType({
  simpleResolvers: true,
  description:
    'Where a page stands in its list (GraphQL Cursor Connections). Pass endCursor as `after` with `first` for the next page, startCursor as `before` with `last` for the previous one.',
})
export class PageInfo {
  // The cursors are promises (made when read, src/infra/dynamo/page.ts): a field with a resolver
  // of its own (simple: false) is awaited by compiled queries too (graphql-jit does not await a
  // plain property), so a query that reads them runs compiled instead of twice.
  @Field(() => String, {
    nullable: true,
    simple: false,
    description: 'The cursor of the first edge; null for an empty page. Opaque; valid only for the same list and tenant.',
  })
  startCursor!: string | null;

  @Field(() => String, {
    nullable: true,
    simple: false,
    description: 'The cursor of the last edge; null for an empty page. Opaque; valid only for the same list and tenant.',
  })
  endCursor!: string | null;

  @Field({ description: 'True when items follow this page.' })
  hasNextPage!: boolean;

  @Field({
    description: 'True when items precede this page: a backward page found more before it, or a forward page started after a cursor.',
  })
  hasPreviousPage!: boolean;
}

/**
 * A connection type for `node` (Cursor Connections spec): its page as `edges` (each node with its
 * cursor) and as `nodes` (for clients that need no per-item cursor), and the page info. The edge
 * type is `<Node>Edge`, named after `node`'s GraphQL name (`name`, the class's name by default).
 */
export function Connection<T extends object>(node: ClassType<T>, name: string = node.name) {
  @ObjectType(`${name}Edge`, { simpleResolvers: true, description: `One ${name} of a list, with its cursor.` })
  class EdgeClass {
    // A promise, made when read: resolved by a resolver of its own, as PageInfo's cursors are.
    @Field(() => String, { simple: false, description: 'Opaque: pass it as `after` or `before` to page on from this item.' })
    cursor!: string;

    @Field(() => node, { description: 'The item.' })
    node!: T;
  }

  // Abstract and never returned itself, so only the concrete subclasses (`ProjectConnection`, …)
  // are emitted: type-graphql 2 emits only the types reachable from resolvers.
  @ObjectType({ simpleResolvers: true })
  abstract class ConnectionClass {
    @Field(() => [EdgeClass], { description: 'The page’s items in list order, each with its cursor.' })
    edges!: EdgeClass[];

    @Field(() => [node], { description: 'The page’s items in list order (the nodes of edges, for clients that need no cursors).' })
    nodes!: T[];

    @Field(() => PageInfo, { description: 'Where the page stands in its list.' })
    pageInfo!: PageInfo;
  }
  return ConnectionClass;
}
