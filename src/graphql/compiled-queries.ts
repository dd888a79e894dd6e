import {
  execute,
  getOperationAST,
  GraphQLError,
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  type GraphQLSchema,
} from 'graphql';
import type { CompiledQuery } from 'graphql-jit';

/** What the part knows of one operation of one document: how often it ran, and its compiled query once it has one. */
interface Entry {
  runs: number;
  /**
   * The compiled query; null when graphql-jit could not compile it, or once one of its results
   * had to be answered by graphql-js (see CompiledQueries.checked): graphql-js runs it then.
   */
  compiled?: CompiledQuery | null;
}

/**
 * The execution part of the operation pipeline for queries: a query whose document has run
 * COMPILE_AFTER times before runs from then on as a function graphql-jit compiled for it (as
 * Mercurius with `jit: 1` and Envelop's graphql-jit plugin do), which skips graphql-js's walk of
 * the document on every request; for a 50-item list that walk was most of graphql-js's share of a
 * request. Everything else runs on graphql-js:
 * - mutations and subscriptions (their cost is their writes and their streams, not execution;
 *   subscription events keep graphql-js's exact semantics);
 * - a document graphql-jit cannot compile (its errors are not the client's: the document has
 *   passed validation, so graphql-js runs it and answers as it always did);
 * - documents other than those of the pipeline's own schema.
 * Compiled queries are kept with their document (a WeakMap), so they go when the document cache
 * lets the document go, and a one-off document is never compiled. Errors of a compiled query are
 * made graphql-js GraphQLErrors (message, locations, path, original error, extensions), so every
 * later part (formatError, the record, the answer) sees what graphql-js would have given it;
 * test/unit/compiled-queries.test.ts and test/e2e/compiled-corpus.test.ts hold both ways equal.
 */
export class CompiledQueries {
  private readonly entries = new WeakMap<DocumentNode, Map<string, Entry>>();
  /**
   * Queries compiled; runs of compiled queries; documents graphql-jit could not compile (graphql-js
   * runs those); runs answered by graphql-js after all (see `checked`).
   */
  readonly counts = { compiled: 0, runs: 0, uncompilable: 0, rerun: 0 };

  constructor(
    private readonly schema: GraphQLSchema,
    private readonly compileAfter = COMPILE_AFTER,
  ) {}

  /**
   * Executes `args` as graphql-js's `execute` does (same result, same errors), compiled where
   * it can (see the class). Throws only where graphql-js's `execute` throws (args it refuses).
   */
  execute(args: ExecutionArgs): Promise<ExecutionResult> | ExecutionResult {
    const entry = this.entryFor(args);
    const compiled = entry?.compiled;
    if (!entry || !compiled) return execute(args);
    this.counts.runs++;
    let result: Promise<ExecutionResult> | ExecutionResult;
    try {
      result = compiled.query(args.rootValue, args.contextValue, args.variableValues ?? {});
    } catch {
      // graphql-jit throws where graphql-js answers with an error (an abstract type no type claims).
      return this.again(args, entry);
    }
    return isPromise(result)
      ? result.then(
          (r) => this.checked(r, args, entry),
          () => this.again(args, entry),
        )
      : this.checked(result, args, entry);
  }

  /**
   * A compiled query's result as graphql-js would have given it. Errors a resolver threw are the
   * same in both (the same message, path, locations, original error and extensions), made
   * graphql-js GraphQLErrors. Errors graphql-jit makes itself (those with no original error) are
   * worded differently by it, lack graphql-js's original error, or are not errors in graphql-js:
   * null for a non-null field, a value a scalar or enum refuses, no list where one is due,
   * variables that fail coercion, and a plain property that holds a promise (graphql-js awaits
   * it; graphql-jit awaits only what a resolver returns: our pages' cursors, search's entities).
   * A result with one of those is answered by graphql-js instead, which runs the query again, and
   * that operation runs on graphql-js from then on, so the second run happens once per document.
   * A query's resolvers read, but for one write: the audit record of each download URL handed
   * out. The request's FilesService hands the second run the URLs the first one made, so each is
   * recorded once (test/e2e/audit.test.ts).
   */
  private checked(result: ExecutionResult, args: ExecutionArgs, entry: Entry): Promise<ExecutionResult> | ExecutionResult {
    if (!result.errors?.length) return result;
    if (result.errors.some((e) => !e.originalError)) return this.again(args, entry);
    return { ...result, errors: result.errors.map(asGraphqlJsError) };
  }

  /** Runs `args` on graphql-js after its compiled query could not answer as graphql-js would, and from then on. */
  private again(args: ExecutionArgs, entry: Entry): Promise<ExecutionResult> | ExecutionResult {
    this.counts.rerun++;
    entry.compiled = null;
    return execute(args);
  }

  /**
   * What the part knows of the operation `args` runs, with its compiled query once it has one
   * (compiled on its COMPILE_AFTER+1-th run); undefined for what always runs on graphql-js.
   */
  private entryFor(args: ExecutionArgs): Entry | undefined {
    if (args.schema !== this.schema || args.fieldResolver || args.typeResolver || args.subscribeFieldResolver) return undefined;
    const operationName = args.operationName ?? undefined;
    let byName = this.entries.get(args.document);
    const key = operationName ?? '';
    const known = byName?.get(key);
    if (known && known.compiled !== undefined) return known;
    const operation = getOperationAST(args.document, operationName);
    if (operation?.operation !== 'query') return undefined;
    if (!byName) {
      byName = new Map();
      this.entries.set(args.document, byName);
    }
    const entry = known ?? { runs: 0 };
    byName.set(key, entry);
    if (entry.runs++ < this.compileAfter) return entry;
    entry.compiled = compile(this.schema, args.document, operationName);
    if (!entry.compiled) this.counts.uncompilable++;
    else this.counts.compiled++;
    return entry;
  }
}

/** How many times a query runs on graphql-js before it is compiled: once, as Mercurius's `jit: 1`. */
export const COMPILE_AFTER = 1;

let jit: typeof import('graphql-jit') | undefined;

/**
 * graphql-jit, loaded with the first query compiled: it brings fast-json-stringify and ajv with
 * it, about a tenth of the server's module load (100–250 ms of each jest test file's), which a
 * process that never runs a query twice (a script, most test files' first moments) need not pay.
 */
function graphqlJit(): typeof import('graphql-jit') {
  const loaded: typeof import('graphql-jit') = jit ?? require('graphql-jit');
  jit = loaded;
  return loaded;
}

/** graphql-jit's compiled query for one operation of a validated document, or null where it cannot compile it. */
function compile(schema: GraphQLSchema, document: DocumentNode, operationName: string | undefined): CompiledQuery | null {
  try {
    const { compileQuery, isCompiledQuery } = graphqlJit();
    // Errors are masked or logged by formatError from their original error, never by the stack
    // of graphql-jit's own null errors, so capturing those stacks would be work for nothing.
    const compiled = compileQuery(schema, document, operationName, { disablingCapturingStackErrors: true });
    return isCompiledQuery(compiled) ? compiled : null;
  } catch {
    // graphql-jit refuses what it cannot compile by throwing as well as by returning errors;
    // either way graphql-js runs the document, so nothing is lost but the speed.
    return null;
  }
}

/** graphql-jit's compiled queries answer with a native promise when a resolver was asynchronous. */
function isPromise<T>(value: T | Promise<T>): value is Promise<T> {
  return value instanceof Promise;
}

/**
 * A resolver's error as graphql-js locates it: graphql-jit's errors carry the same message,
 * locations, path, original error and extensions, but are objects of its own (no `toJSON`, no
 * `nodes`).
 */
function asGraphqlJsError(error: GraphQLError): GraphQLError {
  if (Object.getPrototypeOf(error) === GraphQLError.prototype) return error;
  const converted = new GraphQLError(error.message, {
    path: error.path,
    originalError: error.originalError,
    extensions: error.extensions,
  });
  // graphql-js derives locations from nodes, which graphql-jit does not keep; its locations are
  // the same line and column graphql-js would have derived.
  if (error.locations) Object.defineProperty(converted, 'locations', { value: error.locations, enumerable: true, writable: true });
  return converted;
}
