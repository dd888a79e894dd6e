import { AppError, ErrorCode } from '../../errors';

/*
 * One page of a list, in the shape of the GraphQL Cursor Connections spec (what Relay, urql's
 * Graphcache and Apollo Client's relayStylePagination expect): the nodes, an edge with a cursor
 * for each, and the page info. The store makes pages; repositories filter and map them with
 * `filter` and `map`, which keep each node with its own cursor, so every connection of the API
 * gets its edges and page info from here rather than each type building them.
 */

/** What a client asks of a list: forward (`first`, `after`) or backward (`last`, `before`). */
export interface PageRequest {
  first?: number | null;
  after?: string | null;
  last?: number | null;
  before?: string | null;
}

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

/** A page request checked: its size, its direction and the cursor it starts from. */
export interface PageShape {
  size: number;
  /** True for `last`/`before`: the page ends just before the cursor (or at the list's end). */
  backward: boolean;
  cursor: string | null;
  /** The argument that carried the cursor, for the error that a bad cursor gets. */
  cursorArgument: 'after' | 'before';
}

const badPage = (message: string, field: string) => new AppError(ErrorCode.BAD_USER_INPUT, message, { field });

/**
 * Checks a page request. Throws BAD_USER_INPUT when it mixes directions (`first` or `after` with
 * `last` or `before`), or when the size is not between 1 and 100. `before` without `last` reads
 * the 20 items before it; `last` without `before` reads the list's last items.
 */
export function pageShape(request: PageRequest): PageShape {
  const forward = request.first != null || request.after != null;
  const backward = request.last != null || request.before != null;
  if (forward && backward) {
    throw badPage(
      'Page forward with first and after, or backward with last and before, not both.',
      request.last != null ? 'last' : 'before',
    );
  }
  const argument = backward ? 'last' : 'first';
  const size = (backward ? request.last : request.first) ?? DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(size) || size < 1 || size > MAX_PAGE_SIZE) {
    throw badPage(`${argument} must be between 1 and ${MAX_PAGE_SIZE}, got ${size}.`, argument);
  }
  return {
    size,
    backward,
    cursor: (backward ? request.before : request.after) ?? null,
    cursorArgument: backward ? 'before' : 'after',
  };
}

/** A cursor made on first use: encrypting costs a little, and most clients read only endCursor. */
export type LazyCursor = () => Promise<string>;

/** Makes `encode` lazy and memoized, so an edge's cursor and endCursor share one encryption. */
export function lazyCursor(encode: () => Promise<string>): LazyCursor {
  let made: Promise<string> | undefined;
  return () => {
    made ??= encode();
    return made;
  };
}

/** An edge: a node and the cursor of its position (GraphQL resolves the promise when selected). */
export interface Edge<T> {
  node: T;
  readonly cursor: Promise<string>;
}

/** Where a page stands in its list; the cursors are made when read. */
export interface PageInfo {
  hasNextPage: boolean;
  hasPreviousPage: boolean;
  readonly startCursor: Promise<string | null>;
  readonly endCursor: Promise<string | null>;
}

export class Page<T> {
  /**
   * `cursors[i]` is the cursor of `nodes[i]`. `hasNextPage` and `hasPreviousPage` are what the
   * read that made the page found out, as the Cursor Connections spec defines them.
   */
  constructor(
    readonly nodes: readonly T[],
    private readonly cursors: readonly LazyCursor[],
    private readonly more: { hasNextPage: boolean; hasPreviousPage: boolean },
  ) {
    if (cursors.length !== nodes.length) throw new Error('A page needs one cursor per node.');
  }

  /** Each node with its cursor, in list order. */
  get edges(): Edge<T>[] {
    return this.nodes.map((node, i) => {
      const cursor = this.cursors[i];
      return {
        node,
        get cursor() {
          return cursor();
        },
      };
    });
  }

  get pageInfo(): PageInfo {
    const first = this.cursors[0];
    const last = this.cursors[this.cursors.length - 1];
    return {
      ...this.more,
      get startCursor() {
        return first ? first() : Promise.resolve(null);
      },
      get endCursor() {
        return last ? last() : Promise.resolve(null);
      },
    };
  }

  /** The page with each node replaced by `fn(node)`; cursors and page info stay. */
  map<U>(fn: (node: T) => U): Page<U> {
    return new Page(this.nodes.map(fn), this.cursors, this.more);
  }

  /**
   * The page with only the nodes `keep` accepts, each with its cursor (the page info stays: the
   * list goes on where it did).
   */
  filter<U extends T>(keep: (node: T) => node is U): Page<U> {
    const nodes: U[] = [];
    const cursors: LazyCursor[] = [];
    this.nodes.forEach((node, i) => {
      if (keep(node)) {
        nodes.push(node);
        cursors.push(this.cursors[i]);
      }
    });
    return new Page(nodes, cursors, this.more);
  }

  /**
   * The page with each node replaced by what `load` gives for it, in one call (a batched read);
   * a node for which `load` gives null is left out with its cursor.
   */
  async mapMany<U>(load: (nodes: readonly T[]) => Promise<readonly (U | null)[]>): Promise<Page<U>> {
    const loaded = await load(this.nodes);
    const nodes: U[] = [];
    const cursors: LazyCursor[] = [];
    loaded.forEach((node, i) => {
      if (node != null) {
        nodes.push(node);
        cursors.push(this.cursors[i]);
      }
    });
    return new Page(nodes, cursors, this.more);
  }
}
