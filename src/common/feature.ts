import type { PlanLimits, PlanName } from '../config';
import type { Repositories } from '../context';
import { type AnyModel, attr, type AttributeValues, type ShapeValues } from '../infra/dynamo/entity';
import type { Metrics } from '../infra/metrics';
import type { EventBus } from '../infra/pubsub';
import type { NodeType } from './global-id';
import type { Scope } from './scope';

/** What a feature's repositories may need besides the scope and the repositories made before them. */
export interface FeatureDeps {
  /** Carries live events to subscriptions. */
  bus: EventBus;
  /** How many live events a subscription buffers for a slow client before it sends RESYNC. */
  subscriptionBuffer: number;
  /** The most events a resume replays (REPLAY_MAX_EVENTS); the replay's default when absent. */
  replayMaxEvents?: number;
  /** How long a worker's hold on a step lasts without a report, in seconds. */
  jobLeaseSeconds: number;
  metrics?: Metrics;
  /** What each plan allows (Config.plans); the defaults when absent. */
  plans?: Record<PlanName, PlanLimits>;
  /** The server's cold-storage runs (src/archive), for an operator's command; none in offline tools. */
  archive?: ArchiveRuns;
}

/**
 * What one archive run did (src/archive/archive.service.ts), declared once: its type here, and the
 * fields of the API's ArchiveRun (src/archive/archive.type.ts), which shows them with the run's job.
 */
export const ARCHIVE_RUN_COUNTS = {
  jobs: attr.int({ required: true, description: 'Finished jobs past the retention, exported and removed.' }),
  projects: attr.int({ required: true, description: 'Archived projects past the retention, exported and removed.' }),
  resumed: attr.int({
    required: true,
    description: 'Of those, how many an earlier run had exported but not removed: finished without writing again.',
  }),
  rows: attr.int({ required: true, description: 'Table rows removed.' }),
  // A Float, as the quotas' byte counts are: a run over a large backlog can write more than a
  // 32-bit Int holds (2 GiB), and a whole number of bytes is exact in a Float up to 2^53.
  bytes: attr.float({ required: true, description: 'Bytes written to cold storage (gzip), a whole number.' }),
  failed: attr.int({ required: true, description: 'Jobs and projects that failed: each stays in the table whole, for the next run.' }),
};

/** What one archive run did: its counts (see ARCHIVE_RUN_COUNTS). */
export type ArchiveRunResult = AttributeValues<typeof ARCHIVE_RUN_COUNTS>;

/**
 * Where an archive run's system job stands, with its result (final once COMPLETED, else so far),
 * declared once: its type here (ArchiveRunOutcome), and the API's ArchiveRun (src/archive/archive.type.ts).
 */
export const ARCHIVE_RUN = {
  name: 'ArchiveRun',
  description:
    'What one archive run did: jobs and projects moved to cold storage, rows removed, bytes written. The run is a system job of kind ARCHIVE (follow it with jobProgress(jobId, system: true)); the counts are final once its status is COMPLETED, and so far before.',
  fields: {
    jobId: attr.id({ required: true, description: "The run's system job (kind ARCHIVE, in the system partition)." }),
    // A JobStatus: this layer names it by its GraphQL name, without importing the job feature.
    status: attr.json<string>()({
      required: true,
      apiType: 'JobStatus',
      description: "The run's job status: COMPLETED once it finished; RUNNING or QUEUED when the wait ended first.",
    }),
    progress: attr.float({ required: true, description: 'The share of the run done, 0 to 1.' }),
    ...ARCHIVE_RUN_COUNTS,
  },
} as const;

/** Where an archive run's system job stands, with its result (see ARCHIVE_RUN). */
export type ArchiveRunOutcome = ShapeValues<typeof ARCHIVE_RUN>;

/** An operator's archive run: the archive's system job, started or joined (src/archive/archive.jobs.ts). */
export interface ArchiveRuns {
  /**
   * Starts a run, or joins the one running (or follows `jobId`), and waits for it within the
   * request's budget; null when `jobId` names no archive job.
   */
  runNow(jobId?: string): Promise<ArchiveRunOutcome | null>;
}

/**
 * One feature as the API is put together from it: its resolvers (for the schema) and how a
 * request's repositories of it are made (for the context). Each feature declares itself next to
 * its resolver; src/features.ts lists them in dependency order, and the schema and the wiring
 * are derived from that list, so adding an entity adds one line there.
 */
/** How node(id:) reads one Node type of a feature (see src/node/node.resolver.ts). */
export interface NodeSource {
  // biome-ignore lint/complexity/noBannedTypes: type-graphql takes object type classes as plain constructors.
  type: Function;
  /**
   * The entity with the key values of its global id (strings, as they come out of the id), or
   * null when the caller's tenant has none. Throws BAD_USER_INPUT for values that are no ids.
   */
  load(repos: Repositories, values: Record<string, string>): Promise<object | null>;
}

export interface Feature<R extends Partial<Repositories> = Partial<Repositories>> {
  // biome-ignore lint/complexity/noBannedTypes: type-graphql takes resolver classes as plain constructors.
  resolvers: readonly Function[];
  /**
   * The feature's repositories for one request. `repos` holds those of the features listed
   * before it (a project child uses `repos.projects`).
   */
  repositories(scope: Scope, repos: Repositories, deps: FeatureDeps): R;
  /** The feature's Node types (see NODE_ENTITIES) and how to read each by its global id. */
  nodes?: Partial<Record<NodeType, NodeSource>>;
  /**
   * The declared entity whose standard API this feature is (see project-child.feature.ts), so
   * that tests can derive its cases (tenant isolation above all) from the declaration.
   */
  standard?: { model: AnyModel; names: StandardNames };
}

/** The names of a standard project child's fields (`milestone`, `milestones`, `createMilestone`, …). */
export interface StandardNames {
  single: string;
  plural: string;
  create: string;
  update: string;
  /** Absent without a status machine. */
  setStatus?: string;
  delete: string;
  /** The queries that list a declared index (see IndexDeclaration.list). */
  lists: string[];
}

/** Declares a feature (see Feature); the type of its repositories is kept for the wiring's completeness check. */
export function feature<R extends Partial<Repositories>>(declaration: Feature<R>): Feature<R> {
  return declaration;
}
