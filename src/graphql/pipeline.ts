import type { ApolloServerPlugin } from '@apollo/server';
import {
  getOperationAST,
  GraphQLError,
  type ExecutionArgs,
  type ExecutionResult,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import type { Principal } from '../auth/principal';
import type { Config } from '../config';
import { Context } from '../context';
import { subscriptionNeedsStream } from '../errors';
import { isRecord } from '../guards';
import { inBudget, runWithBudget } from '../infra/deadline';
import type { Metrics } from '../infra/metrics';
import type { RateBudgets } from '../infra/rate-limits';
import { tracingActive } from '../infra/tracing';
import { createContext, type ContextDeps } from '../wiring';
import { COMPILE_AFTER, CompiledQueries } from './compiled-queries';
import { costOf, Documents } from './documents';
import { currentRequest, noteOperation, OperationRecords, type RequestRecord } from './record';
import { SharedSubscriptions, type DeliveryStream, type SubscriptionArgs } from './shared-subscriptions';
import { TenantBudgets } from './tenant-budgets';
import type { DocumentRequest } from './trusted-documents';
import { tooDeepVariables, variableErrors } from './variables';

export interface PipelineDeps extends ContextDeps {
  config: Config;
  schema: GraphQLSchema;
  metrics?: Metrics;
  /** The tenants' rate budgets (in Redis or in this process); without them nothing is rate limited. */
  budgets?: RateBudgets;
}

/** What a client sends to run an operation, over any transport (graphql-ws's subscribe payload, an SSE request). */
export interface OperationRequest extends DocumentRequest {
  operationName?: unknown;
  variables?: unknown;
}

/** An admitted operation's execution args and its operation, or the errors that refuse it (see `admit`). */
export type Admission =
  | { args: ExecutionArgs; operation: OperationDefinitionNode; errors?: undefined }
  | { errors: readonly GraphQLError[]; args?: undefined; operation?: undefined };

/**
 * The GraphQL operation pipeline that every transport runs: HTTP through Apollo's hooks,
 * WebSocket and SSE through `admit`, `execute` and `stream`. Each concern is a part, defined once:
 * - documents (documents.ts): trusted documents, the query limits, parsing and validation with one
 *   document cache, which Apollo uses as its documentStore;
 * - variables (variables.ts): checked for absurd nesting before anything walks them, then coerced;
 * - the context from the verified principal (wiring.ts);
 * - records and errors (record.ts): one record per operation with its log line and metrics
 *   sample; known codes pass, anything else is masked as INTERNAL, every error carries its
 *   request's id, and no stack trace leaves;
 * - the tenants' rate budgets (tenant-budgets.ts): each operation of a verified caller draws on
 *   its tenant's plan before it runs, and is refused with RATE_LIMITED (429) past it;
 * - the request budget (infra/deadline.ts) around every query and mutation;
 * - execution (compiled-queries.ts): a query that ran before runs compiled by graphql-jit, the
 *   rest on graphql-js, with the same results and errors;
 * - subscriptions (shared-subscriptions.ts): each event is executed once per share key with a
 *   fresh context, shared by every subscriber of that key, its payload serialized once.
 */
export class OperationPipeline {
  readonly documents: Documents;
  readonly records: OperationRecords;
  readonly subscriptions: SharedSubscriptions;
  readonly budgets?: TenantBudgets;
  readonly queries: CompiledQueries;
  /** Throws, naming the file, when a configured trusted documents manifest cannot be read. */
  constructor(private readonly deps: PipelineDeps) {
    this.documents = new Documents(deps.schema, deps.config);
    if (deps.budgets)
      this.budgets = new TenantBudgets({ config: deps.config, store: deps.store, budgets: deps.budgets, metrics: deps.metrics });
    this.records = new OperationRecords(deps.config.env, deps.metrics);
    // OpenTelemetry's GraphQL instrumentation makes each operation's span by wrapping graphql-js's
    // execute, which a compiled query does not call: with tracing on, every query runs on
    // graphql-js and keeps its span (test/e2e/tracing.test.ts).
    this.queries = new CompiledQueries(deps.schema, tracingActive() ? Number.POSITIVE_INFINITY : COMPILE_AFTER);
    this.subscriptions = new SharedSubscriptions((principal) => this.context(principal), deps.config.requestBudgetMs);
  }

  /** The schema every operation runs against. */
  get schema(): GraphQLSchema {
    return this.deps.schema;
  }

  /** The Apollo plugins that apply this pipeline's parts to HTTP requests: the limits, the variables check and the record. */
  apolloPlugins(): ApolloServerPlugin<Context>[] {
    const budgets = this.budgets;
    return [
      ...this.documents.apolloPlugins,
      {
        async requestDidStart() {
          return {
            async didResolveOperation({ request, operation, operationName, contextValue }) {
              // Noted as soon as it is known, so that a request cut off before its response (see
              // request-log.ts) is still logged with its operation; willSendResponse notes it again.
              const record = currentRequest();
              if (record && operation) noteOperation(record, operation.operation, operationName ?? operation.name?.value, true);
              // Every subscription that reaches Apollo came as a plain HTTP request (an event stream
              // is SSE's, a socket graphql-ws's), which answers once: it is refused before it runs,
              // naming the transports that carry it. Apollo would execute it as a query, and its
              // field would resolve to null (an INTERNAL "Cannot return null" error).
              if (operation?.operation === 'subscription') throw subscriptionNeedsStream();
              const error = tooDeepVariables(request.variables);
              if (error) {
                // A request error like Apollo's own variable errors: nothing ran. Apollo drops `http` from the response.
                error.extensions.http = { status: 400 };
                throw error;
              }
              // Apollo sends the refusal's `http` (429 and Retry-After) as the response's status and headers.
              const refused = operation && (await budgets?.check(contextValue.principal ?? null, operation, costOf(operation)));
              if (refused) throw refused;
            },
            async willSendResponse({ document, operation, operationName, request, response, contextValue }) {
              // As execute() does for the other transports (see Context.undoUnlessAnswered).
              if (response.body.kind === 'single') await contextValue.settleAnswers(response.body.singleResult);
              const record = currentRequest();
              if (!record) return;
              // A document that parsed but failed validation has no resolved operation; its type and
              // name still go to the log line, read from the parsed document, never from the raw request.
              const resolved = operation ?? (document ? (getOperationAST(document, request.operationName) ?? undefined) : undefined);
              noteOperation(record, resolved?.operation, operationName ?? resolved?.name?.value, operation != null);
            },
          };
        },
      },
    ];
  }

  /**
   * Admits one operation a transport that runs operations itself (WebSocket, SSE, the HTTP POST
   * route of graphql-post.ts) received, in the
   * order Apollo runs the same parts for HTTP: its document (trusted documents, parsing and
   * validation), the operation it names (noted in `record`), its variables, and the context for
   * `principal`. Gives the execution args and the operation to run, or the errors that refuse it
   * (client mistakes, each with a stable code). Never throws for a client's input.
   */
  async admit(request: OperationRequest, principal: Principal | null, record: RequestRecord): Promise<Admission> {
    const prepared = await this.documents.resolve(request);
    if (!prepared.document) return { errors: prepared.errors };
    const operationName = typeof request.operationName === 'string' ? request.operationName : undefined;
    const operation = getOperationAST(prepared.document, operationName);
    if (!operation) {
      const message = operationName ? `Unknown operation named "${operationName}".` : 'Name the operation to run with operationName.';
      return { errors: [new GraphQLError(message, { extensions: { code: 'OPERATION_RESOLUTION_FAILURE' } })] };
    }
    this.records.note(record, operation);
    // Checked (depth first, then coercion) before anything else walks the variables (the share key, execution).
    const errors = variableErrors(this.deps.schema, operation, request.variables);
    if (errors.length) return { errors };
    const refused = await this.budgets?.check(principal, operation, costOf(operation));
    if (refused) return { errors: [refused] };
    return {
      operation,
      args: {
        schema: this.deps.schema,
        document: prepared.document,
        operationName,
        variableValues: isRecord(request.variables) ? request.variables : undefined,
        contextValue: this.context(principal),
      },
    };
  }

  /** The context of one request (or one subscription's source stream) for a verified principal. */
  context(principal: Principal | null): Context {
    return createContext(this.deps, principal);
  }

  /**
   * Runs a query or mutation within the request budget (REQUEST_BUDGET_MS), as over HTTP: the
   * caller's own budget when it runs in one (the HTTP route's), else a new one.
   */
  execute(args: ExecutionArgs): Promise<ExecutionResult> {
    const run = async () => {
      const result = await this.queries.execute(args);
      // What a mutation did that its answer failed to carry is undone before the answer goes.
      if (args.contextValue instanceof Context) await args.contextValue.settleAnswers(result);
      return result;
    };
    return inBudget() ? run() : runWithBudget(this.deps.config.requestBudgetMs, run);
  }

  /**
   * Runs a subscription (see SharedSubscriptions.stream): its results, or an ExecutionResult with
   * errors when the source stream cannot be created.
   */
  stream(args: SubscriptionArgs): Promise<DeliveryStream | ExecutionResult> {
    return this.subscriptions.stream(args);
  }
}
