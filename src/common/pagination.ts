import { ArgsType, Field, Int, ObjectType, type ClassType } from 'type-graphql';

@ObjectType({ simpleResolvers: true, description: 'Where a page ends. Pass endCursor as `after` to read the next page.' })
export class PageInfo {
  @Field(() => String, { nullable: true, description: 'Opaque; valid only for the same list and tenant.' })
  endCursor!: string | null;

  @Field({ description: 'True when another page follows: pass endCursor as `after` to read it.' })
  hasNextPage!: boolean;
}

@ArgsType()
export class PageArgs {
  @Field(() => Int, { nullable: true, description: 'Page size: 20 when omitted, at most 100.' })
  first?: number | null;

  @Field(() => String, { nullable: true, description: 'The endCursor of the previous page.' })
  after?: string | null;
}

/** A connection type for `node`: its page of nodes and where the page ends. */
export function Connection<T extends object>(node: ClassType<T>) {
  // Abstract and never returned itself, so only the concrete subclasses (`ProjectConnection`, …)
  // are emitted: type-graphql 2 emits only the types reachable from resolvers.
  @ObjectType({ simpleResolvers: true })
  abstract class ConnectionClass {
    @Field(() => [node], { description: "The page's items, in the list's order." })
    nodes!: T[];

    @Field(() => PageInfo, { description: 'Where this page ends, and whether another follows.' })
    pageInfo!: PageInfo;
  }
  return ConnectionClass;
}
