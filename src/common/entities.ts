import { entity, keyShape, type EntityDeclaration } from '../infra/dynamo/entity';
import { normalizeText, pad } from './keys';

/*
 * Every entity of the table, declared as data in one place: the layout of README's "Data
 * model" table. Each `*.keys.ts` derives its keys from the declaration here; the tests enumerate
 * `entities` to check properties of every key shape (all start with the caller's tenant).
 * Adding an entity is one entry here (plus its index attributes, where it has any).
 */

/** Brief versions are zero-padded (`v000010`) so that key order is version order. */
export const briefVersionLabel = (version: number) => `v${pad(version, 6)}`;

/** Stream positions are zero-padded so that key order is position order. */
export const positionLabel = (position: number) => pad(position, 12);

export const entities = {
  Tenant: entity({ type: 'Tenant', idPrefix: undefined, key: keyShape({ pk: '', sk: 'TENANT' }) }),
  Project: entity({ type: 'Project', idPrefix: 'proj', key: keyShape({ pk: '', sk: 'PROJECT#{projectId}' }), indexes: ['GSI1', 'GSI2'] }),
  Brief: entity({
    type: 'Brief',
    idPrefix: undefined,
    parent: 'Project',
    key: keyShape({ pk: '', sk: 'PROJECT#{projectId}#BRIEF#{version}', format: { version: briefVersionLabel } }),
  }),
  Milestone: entity({
    type: 'Milestone',
    idPrefix: 'ms',
    parent: 'Project',
    key: keyShape({ pk: '', sk: 'PROJECT#{projectId}#MILESTONE#{milestoneId}' }),
  }),
  Log: entity({
    type: 'Log',
    idPrefix: 'log',
    parent: 'Project',
    key: keyShape({ pk: '', sk: 'PROJECT#{projectId}#LOG#{logId}' }),
    indexes: ['GSI1'],
  }),
  /** Written in its log's transaction, so "where and how long did I use X" is one query. */
  MaterialUse: entity({
    type: 'MaterialUse',
    idPrefix: undefined,
    parent: 'Log',
    key: keyShape({ pk: '', sk: 'MATERIAL#{material}#LOG#{logId}', format: { material: normalizeText } }),
  }),
  Asset: entity({
    type: 'Asset',
    idPrefix: 'asset',
    parent: 'Project',
    key: keyShape({ pk: '', sk: 'PROJECT#{projectId}#ASSET#{assetId}' }),
    ttl: true,
  }),
  Inspiration: entity({ type: 'Inspiration', idPrefix: 'insp', key: keyShape({ pk: '', sk: 'INSPIRATION#{inspirationId}' }) }),
  /** Written in its inspiration's transaction, so listing by tag is one query. */
  InspirationTag: entity({
    type: 'InspirationTag',
    idPrefix: undefined,
    parent: 'Inspiration',
    key: keyShape({ pk: '', sk: 'TAG#{tag}#INSPIRATION#{inspirationId}', format: { tag: normalizeText } }),
  }),
  /**
   * The activity of one project, keyed by its position in the stream: allocated at commit from
   * the stream's head (ProjectEventsHead), so key order is commit order without gaps.
   */
  ProjectEvent: entity({
    type: 'Event',
    idPrefix: 'evt',
    parent: 'Project',
    key: keyShape({ pk: 'PROJECT#{projectId}#EVENTS', sk: 'EVENT#{position}', format: { position: positionLabel } }),
    indexes: ['OUTBOX'],
    ttl: true,
  }),
  /** The last position of a project's activity stream (no TTL: positions are never reused). */
  ProjectEventsHead: entity({
    type: 'StreamHead',
    idPrefix: undefined,
    parent: 'Project',
    key: keyShape({ pk: 'PROJECT#{projectId}#EVENTS', sk: 'HEAD' }),
  }),
  /** The status changes of a project's jobs, by position (see ProjectEvent). */
  ProjectJobStatusEvent: entity({
    type: 'Event',
    idPrefix: undefined,
    parent: 'Project',
    key: keyShape({ pk: 'PROJECT#{projectId}#JOBSTATUS', sk: 'EVENT#{position}', format: { position: positionLabel } }),
    indexes: ['OUTBOX'],
    ttl: true,
  }),
  ProjectJobStatusHead: entity({
    type: 'StreamHead',
    idPrefix: undefined,
    parent: 'Project',
    key: keyShape({ pk: 'PROJECT#{projectId}#JOBSTATUS', sk: 'HEAD' }),
  }),
  /** The status changes of all the tenant's jobs, by position (see ProjectEvent). */
  TenantJobStatusEvent: entity({
    type: 'Event',
    idPrefix: undefined,
    key: keyShape({ pk: 'JOBSTATUS', sk: 'EVENT#{position}', format: { position: positionLabel } }),
    indexes: ['OUTBOX'],
    ttl: true,
  }),
  TenantJobStatusHead: entity({
    type: 'StreamHead',
    idPrefix: undefined,
    key: keyShape({ pk: 'JOBSTATUS', sk: 'HEAD' }),
  }),
  /** The activity that belongs to no project (tenant, inspiration). */
  TenantEvent: entity({
    type: 'Event',
    idPrefix: 'evt',
    key: keyShape({ pk: 'EVENTS', sk: 'EVENT#{ulid}' }),
    indexes: ['OUTBOX'],
    ttl: true,
  }),
  /** A job lives in its own partition, so a busy tenant's step updates spread over many partitions. */
  Job: entity({
    type: 'Job',
    idPrefix: 'job',
    key: keyShape({ pk: 'JOB#{jobId}', sk: 'JOB' }),
    indexes: ['GSI1', 'GSI2', 'GSI3', 'GSI4'],
    ttl: true,
  }),
  Step: entity({
    type: 'Step',
    idPrefix: undefined,
    parent: 'Job',
    key: keyShape({
      pk: 'JOB#{jobId}',
      sk: 'STEP#{order}#{name}#{attempt}',
      format: { order: (n: number) => pad(n, 2), attempt: (n: number) => pad(n, 2) },
    }),
    indexes: ['GSI1'],
  }),
  /** A job event's `seq` is the job's version after the change, so the stream is gapless. */
  JobEvent: entity({
    type: 'Event',
    idPrefix: undefined,
    parent: 'Job',
    key: keyShape({ pk: 'JOB#{jobId}', sk: 'EVENT#{seq}', format: { seq: (n: number) => pad(n, 10) } }),
    indexes: ['OUTBOX'],
    ttl: true,
  }),
  Idempotency: entity({
    type: 'Idempotency',
    idPrefix: undefined,
    key: keyShape({ pk: 'IDEMPOTENCY#{key}', sk: 'IDEMPOTENCY' }),
    ttl: true,
  }),
};

export type EntityName = keyof typeof entities;

/**
 * The entities clients refetch and cache by a global id (GraphQL's Node interface): their
 * GraphQL type has the entity's name, and the id carries the values of its key template (see
 * global-id.ts). A feature says how to read each of its own (Feature.nodes).
 */
export const NODE_ENTITIES = [
  'Tenant',
  'Project',
  'Brief',
  'Milestone',
  'Log',
  'Asset',
  'Inspiration',
  'Job',
  'Step',
] as const satisfies readonly EntityName[];

/** The id prefixes of the entities the server creates; ids are `<prefix>_<ULID>`. */
export type IdPrefix = NonNullable<(typeof entities)[EntityName]['idPrefix']>;

/** The entities whose items nest under a project's sort key (`PROJECT#p#<KIND>#…`) in the tenant's partition. */
export type ProjectChild = {
  [N in EntityName]: (typeof entities)[N] extends EntityDeclaration<infer PK, string, string | undefined, infer Parent>
    ? Parent extends 'Project'
      ? PK extends ''
        ? N
        : never
      : never
    : never;
}[EntityName];

/** The project children with ids of their own (a brief is keyed by its version instead). */
export type IdentifiedProjectChild = { [N in ProjectChild]: (typeof entities)[N]['idPrefix'] extends string ? N : never }[ProjectChild];

/** The project children, derived from the declarations. */
export const projectChildren = (Object.keys(entities) as EntityName[]).filter(
  (name): name is ProjectChild => entities[name].parent === 'Project' && entities[name].key.shape.pk === '',
);
