import { createHash } from 'node:crypto';
import type { ApolloServerPlugin } from '@apollo/server';
import { InMemoryLRUCache } from '@apollo/utils.keyvaluecache';
import { ApolloArmor } from '@escape.tech/graphql-armor';
import {
  GraphQLError,
  NoSchemaIntrospectionCustomRule,
  parse,
  specifiedRules,
  validate,
  type DocumentNode,
  type GraphQLSchema,
  type ParseOptions,
  type ValidationRule,
} from 'graphql';
import type { Config } from '../config';
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
    const armor = new ApolloArmor({
      maxDepth: { n: config.limits.maxDepth },
      costLimit: { maxCost: config.limits.maxCost },
      // Every alias counts, `__typename` ones too: armor lets those through by default, and a
      // thousand aliased __typename fields are as much work to answer as any others.
      maxAliases: { n: config.limits.maxAliases, allowList: [] },
      maxDirectives: { n: config.limits.maxDirectives },
      // The token limit is graphql-js's own (parseOptions), not armor's: armor's Apollo plugin parses
      // the document a second time inside Apollo's parsing hook, where a syntax error escapes as a 500.
      maxTokens: { enabled: false },
      blockFieldSuggestion: { enabled: config.env === 'production' },
    }).protect();
    this.parseOptions = { maxTokens: config.limits.maxTokens };
    this.validationRules = armor.validationRules;
    // Apollo refuses introspection itself when it is off (its `introspection` option); every
    // document this part prepares for the other transports gets the same refusal from this rule.
    this.allRules = [...specifiedRules, ...armor.validationRules, ...(config.introspection ? [] : [NoSchemaIntrospectionCustomRule])];
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
        errors: errors.map((e) => new GraphQLError(e.message, { nodes: e.nodes, extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } })),
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

/** How many documents `prepare` keeps by their text, and the longest text it keeps (see recentDocuments). */
const RECENT_DOCUMENTS = 64;
const RECENT_QUERY_MAX = 4096;
