import { entities, type IdentifiedProjectChild } from '../common/entities';
import { assertId, type IdPrefix } from '../common/ids';
import type { KeyValues } from '../common/mutate';
import type { Selection } from '../common/projection';
import { EntityRepository, inputAttributes } from '../common/repository';
import type { Scope } from '../common/scope';
import type { PageRequest } from '../infra/dynamo/store';
import type { ProjectRepository } from './project.repository';

/** The model of a project child with an id of its own (a milestone, a log, an asset). */
export type ChildModel = (typeof entities)[IdentifiedProjectChild];

/**
 * The standard repository of a project child with an id of its own, derived from its declaration
 * in entities.ts: both ids checked (BAD_USER_INPUT when malformed), a batched read, the project's
 * list of that kind in creation order, and the standard writes, each conditioned on an active
 * project where it adds a child. A feature extends it where its entity needs more. One instance
 * per request, like the scope it holds.
 */
export class ProjectChildRepository<M extends ChildModel> extends EntityRepository<M> {
  constructor(
    scope: Scope,
    protected readonly projects: ProjectRepository,
    model: M,
  ) {
    super(scope, model);
  }

  private get prefix(): IdPrefix {
    return this.model.idPrefix;
  }

  /** The key values of one child; both ids are checked first. */
  protected valuesOf(projectId: string, id: string): KeyValues<M> {
    assertId(projectId, 'proj', 'projectId');
    assertId(id, this.prefix, this.model.idField);
    return { projectId, [this.model.idField]: id };
  }

  /** The child, or null when this tenant's project has none with that id. */
  get(projectId: string, id: string) {
    return this.load(this.valuesOf(projectId, id));
  }

  /** Many children of one project in one batched read; missing ones are left out. */
  getMany(projectId: string, ids: Iterable<string>) {
    return this.loadMany([...ids].map((id) => this.valuesOf(projectId, id)));
  }

  /**
   * A project's children of this kind, oldest first (ids are time-ordered), with the attributes
   * `selection` reads (see EntityRepository.page).
   */
  list(projectId: string, page: PageRequest, selection: Selection | undefined) {
    assertId(projectId, 'proj', 'projectId');
    return this.page(this.keys.prefixOf({ projectId }), page, selection);
  }

  /** One page of a declared index of this child (`values` fill its partition key), newest first, as `list` reads. */
  listIndex(indexName: string, values: Record<string, unknown>, page: PageRequest, selection: Selection | undefined) {
    return this.page(this.keys.query(indexName, values, { descending: true }), page, selection);
  }

  /**
   * Creates a child from a client's input (see inputAttributes), only in an active project; once
   * per `idempotencyKey` when one is given.
   */
  create(projectId: string, input: object, idempotencyKey?: string | null) {
    const id = this.scope.newId(this.prefix);
    const values = this.valuesOf(projectId, id);
    return this.createItem(
      { ...inputAttributes(this.model, input, 'create', this.scope.tenant), ...values },
      [this.projects.activeProjectCheck(projectId)],
      undefined,
      this.createRequest(idempotencyKey, { projectId, input }),
    );
  }

  /** Applies a client's patch with optimistic locking (CONFLICT naming the current version). */
  update(projectId: string, id: string, expectedVersion: number | null | undefined, input: object) {
    return this.updateItem(this.valuesOf(projectId, id), expectedVersion, input);
  }

  /** Moves the child's status along its declared machine (INVALID_TRANSITION otherwise). */
  setStatus(projectId: string, id: string, status: string, expectedVersion?: number | null) {
    return this.moveStatus(this.valuesOf(projectId, id), status, expectedVersion);
  }

  /** Deletes the child and returns it as it was. */
  delete(projectId: string, id: string, expectedVersion?: number | null) {
    return this.removeItem(this.valuesOf(projectId, id), expectedVersion);
  }
}

/**
 * A request's standard repositories of project children, one per model: what the standard
 * resolvers (project-child.feature.ts) read and write through. A repository holds only the
 * request's scope, so making one per use costs nothing worth caching.
 */
export class ChildRepositories {
  constructor(
    private readonly scope: Scope,
    private readonly projects: ProjectRepository,
  ) {}

  of<M extends ChildModel>(model: M): ProjectChildRepository<M> {
    return new ProjectChildRepository(this.scope, this.projects, model);
  }
}
