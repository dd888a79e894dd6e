import { createHash } from 'node:crypto';
import type { ApolloServerPlugin } from '@apollo/server';
import { InMemoryLRUCache } from '@apollo/utils.keyvaluecache';
import { ApolloArmor } from '@escape.tech/graphql-armor';
import {
  getEnterLeaveForKind,
  GraphQLError,
  Kind,
  NoSchemaIntrospectionCustomRule,
  parse,
  specifiedRules,
  TypeInfo,
  validate,
  visit,
  visitWithTypeInfo,
  type DocumentNode,
  type OperationDefinitionNode,
  type GraphQLSchema,
  type ParseOptions,
  type ValidationContext,
  type ValidationRule,
} from 'graphql';
import type { Config } from '../config';
import { MAX_PAGE_SIZE } from '../infra/dynamo/page';
import { TrustedDocuments, type DocumentRequest } from './trusted-documents';

/** A document ready to run, or the errors that keep it from running. */
export type Prepared = { document: DocumentNode; errors?: undefined } | { document?: undefined; errors: readonly GraphQLError[] };

/**
 * The documents part of the operation pipeline: which document a request runs and whether it may
 * run. Trusted documents (a hash becomes its document; with TRUSTED_DOCUMENTS_ONLY nothing else
 * runs), the query limits (graphql-js's token limit; graphql-armor's depth, cost, alias and
 * directive rules) and one cache of validated documents, bounded by size, that Apollo uses as its
 * documentStore and WebSocket and SSE under keys of their own.
 */
export class Documents {
  /** Validated documents; Apollo's documentStore too. Bounded by approximate size (Apollo's default, 30 MiB). */
  readonly cache = new InMemoryLRUCache<DocumentNode>();
  /**
   * The last RECENT_DOCUMENTS valid documents prepared for WebSocket and SSE, by their text, in
   * front of `cache`: a burst of subscribes sends one text thousands of times, and looking it
   * up by the text itself saves hashing it for each. Only short texts are kept (RECENT_QUERY_MAX),
   * so the texts held stay small whatever clients send; each document is the cache's own object,
   * so subscribers of one text still share one document.
   */
  private readonly recentDocuments = new Map<string, DocumentNode>();
  /** The trusted documents manifest, when one is configured (see trusted-documents.ts); every transport asks it. */
  readonly trusted: TrustedDocuments;
  readonly parseOptions: ParseOptions;
  /** The rules beyond graphql-js's own (Apollo adds those itself). */
  readonly validationRules: ValidationRule[];
  /** Armor's Apollo plugins (its limits' hooks for HTTP). */
  readonly apolloPlugins: ApolloServerPlugin[];
  private readonly allRules: ValidationRule[];

  /** Throws, naming the file, when a configured trusted documents manifest cannot be read. */
  constructor(
    private readonly schema: GraphQLSchema,
    config: Config,
  ) {
    const { manifestPath, only } = config.trustedDocuments;
    this.trusted = manifestPath ? TrustedDocuments.fromFile(manifestPath, only) : TrustedDocuments.none();
    const { maxDepth, maxCost, maxAliases, maxDirectives } = config.limits;
    const armor = new ApolloArmor({
      maxDepth: { n: maxDepth, ...reportedAs('depth', LIMIT_HINTS.depth) },
      // The cost rule is made apart (below), so that it runs only on documents whose page sizes are in range.
      costLimit: { enabled: false },
      // Every alias counts, `__typename` ones too: armor lets those through by default, and a
      // thousand aliased __typename fields are as much work to answer as any others.
      maxAliases: { n: maxAliases, allowList: [], ...reportedAs('aliases', LIMIT_HINTS.aliases) },
      maxDirectives: { n: maxDirectives, ...reportedAs('directives', LIMIT_HINTS.directives) },
      // The token limit is graphql-js's own (parseOptions), not armor's: armor's Apollo plugin parses
      // the document a second time inside Apollo's parsing hook, where a syntax error escapes as a 500.
      maxTokens: { enabled: false },
      blockFieldSuggestion: { enabled: config.env === 'production' },
    }).protect();
    // Armor with its cost rule alone, which gives that rule and nothing else.
    const costRules = new ApolloArmor({
      costLimit: { maxCost, ...reportedAs('cost', LIMIT_HINTS.cost), onAccept: [noteCost] },
      maxDepth: { enabled: false },
      maxAliases: { enabled: false },
      maxDirectives: { enabled: false },
      maxTokens: { enabled: false },
      blockFieldSuggestion: { enabled: false },
    }).protect().validationRules;
    this.parseOptions = { maxTokens: config.limits.maxTokens };
    this.validationRules = [...armor.validationRules, ...costRules.map(pageSizesBeforeCost)];
    // Apollo refuses introspection itself when it is off (its `introspection` option); every
    // document this part prepares for the other transports gets the same refusal from this rule.
    this.allRules = [...specifiedRules, ...this.validationRules, ...(config.introspection ? [] : [NoSchemaIntrospectionCustomRule])];
    this.apolloPlugins = armor.plugins;
  }

  /**
   * The document `request` runs, resolved through the trusted documents and prepared (see
   * `prepare`), or the errors that refuse it. Never throws.
   */
  async resolve(request: DocumentRequest): Promise<Prepared> {
    const trusted = this.trusted.resolve(request);
    if (trusted.error) return { errors: [trusted.error] };
    const query = trusted.query ?? request.query;
    if (typeof query !== 'string') {
      return { errors: [new GraphQLError('The request has no query.', { extensions: { code: 'BAD_REQUEST' } })] };
    }
    return this.prepare(query);
  }

  /**
   * Parses and validates `query` with the same options, rules and cache as HTTP. Never throws:
   * a syntax error is GRAPHQL_PARSE_FAILED, a rule's error GRAPHQL_VALIDATION_FAILED.
   */
  async prepare(query: string): Promise<Prepared> {
    const recent = this.recentDocuments.get(query);
    if (recent) return { document: recent };
    const key = `ws:${createHash('sha256').update(query).digest('hex')}`;
    const cached = await this.cache.get(key);
    if (cached) {
      this.remember(query, cached);
      return { document: cached };
    }
    let document: DocumentNode;
    try {
      document = parse(query, this.parseOptions);
    } catch (error) {
      return {
        errors: [
          new GraphQLError(error instanceof GraphQLError ? error.message : String(error), { extensions: { code: 'GRAPHQL_PARSE_FAILED' } }),
        ],
      };
    }
    const errors = validate(this.schema, document, this.allRules);
    if (errors.length)
      return {
        // A rule's own extensions (a limit's numbers, a page size's field) stay, as Apollo keeps them.
        errors: errors.map(
          (e) => new GraphQLError(e.message, { nodes: e.nodes, extensions: { ...e.extensions, code: 'GRAPHQL_VALIDATION_FAILED' } }),
        ),
      };
    // Only valid documents are kept, as Apollo does, so invalid ones cannot fill the cache.
    await this.cache.set(key, document);
    this.remember(query, document);
    return { document };
  }

  /** Keeps `document` among the recent ones under its text, when the text is short enough (see recentDocuments). */
  private remember(query: string, document: DocumentNode): void {
    if (query.length > RECENT_QUERY_MAX) return;
    this.recentDocuments.set(query, document);
    // The oldest goes first: a document still in use comes back from the cache, which keeps it longer.
    if (this.recentDocuments.size > RECENT_DOCUMENTS) this.recentDocuments.delete(this.recentDocuments.keys().next().value ?? '');
  }
}

type Limit = 'cost' | 'depth' | 'aliases' | 'directives';

/** What a client can do about each limit, after armor's own "… limit of N exceeded, found M." */
const LIMIT_HINTS: Record<Limit, string> = {
  cost: 'A list field multiplies the cost of what it selects by its first or last when the query writes the number out: ask for smaller pages, fewer nested lists or fewer fields.',
  depth: 'Nest fewer selections, or read the deeper part with a query of its own.',
  aliases: 'Every alias counts, __typename ones too: send fewer, or split the query.',
  directives: 'Use fewer directives, or split the query.',
};

/**
 * How a limit of armor's refuses a document: armor reports its limits as "Syntax Error: Query Cost
 * limit of 5000 exceeded, found 725000." with code BAD_USER_INPUT, though the document parsed.
 * Here the message is armor's without that prefix, with what the client can do, and the error
 * carries `limit`, `max` and `found` (the code is GRAPHQL_VALIDATION_FAILED, as for every rule).
 */
function reportedAs(limit: Limit, hint: string) {
  return {
    propagateOnRejection: false,
    onReject: [
      (context: ValidationContext | null, error: GraphQLError) => {
        const text = error.message.replace(/^Syntax Error: /, '');
        // A cost is fractional as often as not (armor weighs each level by 1.5), and armor ends its
        // message with a full stop: the number is digits with at most one decimal point inside.
        const numbers = /limit of (\d+) exceeded, found (\d+(?:\.\d+)?)/.exec(text);
        const extensions = numbers ? { limit, max: Number(numbers[1]), found: Number(numbers[2]) } : { limit };
        context?.reportError(new GraphQLError(`${text} ${hint}`, { extensions }));
      },
    ],
  };
}

/**
 * Checks every `first` and `last` that a document writes out as a number against the page bound
 * (1 to MAX_PAGE_SIZE), with the message a variable of the same value gets from the list itself
 * (infra/dynamo/page.ts), and runs the cost rule `cost` only when all are in range: a page size of
 * 100000 is the mistake to name, not the cost it would have. Every `first` and `last` of the
 * schema is a page size (test/unit/schema-lint.test.ts holds that).
 */
function pageSizesBeforeCost(cost: ValidationRule): ValidationRule {
  return (context) => {
    // Armor's cost rule works on each operation as it enters it, and on nothing else.
    const costVisitor = cost(context);
    const costOfOperation = getEnterLeaveForKind(costVisitor, Kind.OPERATION_DEFINITION).enter;
    let outOfRange = false;
    return {
      Document(document) {
        const typeInfo = new TypeInfo(context.getSchema());
        visit(
          document,
          visitWithTypeInfo(typeInfo, {
            Argument(node) {
              const argument = typeInfo.getArgument();
              if (!argument || !PAGE_SIZE_ARGUMENTS.has(argument.name) || node.value.kind !== Kind.INT) return;
              const size = Number.parseInt(node.value.value, 10);
              if (size >= 1 && size <= MAX_PAGE_SIZE) return;
              outOfRange = true;
              context.reportError(
                new GraphQLError(`${argument.name} must be between 1 and ${MAX_PAGE_SIZE}, got ${node.value.value}.`, {
                  nodes: node,
                  extensions: { field: argument.name },
                }),
              );
            },
          }),
        );
      },
      OperationDefinition: {
        enter(...args) {
          if (outOfRange) return;
          // Armor tells its cost to noteCost, synchronously, while this operation is the one costed.
          costing = args[0];
          try {
            costOfOperation?.apply(costVisitor, args);
          } finally {
            costing = undefined;
          }
        },
      },
    };
  };
}

/** Each validated operation's cost as armor's cost rule computed it (the tenants' cost budgets draw it). */
const operationCosts = new WeakMap<OperationDefinitionNode, number>();

/** The operation armor's cost rule is computing right now (see pageSizesBeforeCost). */
let costing: OperationDefinitionNode | undefined;

/** Armor's onAccept: the cost of the operation being validated, kept with it. */
function noteCost(_context: ValidationContext | null, details: { n: number }): void {
  if (costing) operationCosts.set(costing, details.n);
}

/**
 * The cost of a validated operation, as the cost limit computed it when its document was
 * validated (documents are validated once and kept, so this is the same object); 1 for one the
 * cost rule did not see.
 */
export function costOf(operation: OperationDefinitionNode): number {
  return operationCosts.get(operation) ?? 1;
}

/** The arguments that size a page of a list, everywhere in the schema. */
export const PAGE_SIZE_ARGUMENTS: ReadonlySet<string> = new Set(['first', 'last']);

/** How many documents `prepare` keeps by their text, and the longest text it keeps (see recentDocuments). */
const RECENT_DOCUMENTS = 64;
const RECENT_QUERY_MAX = 4096;
