import { entities, type IdentifiedProjectChild } from '../common/entities';
import { assertId } from '../common/ids';
import type { Subject } from '../common/mutate';
import type { Scope } from '../common/scope';
import type { Page, PageRequest } from '../infra/dynamo/store';
import { projectChildren } from './project.keys';
import type { ProjectRepository } from './project.repository';

/**
 * What every project child with an id of its own shares, derived from its declaration in
 * entities.ts: the subject of a write (both ids checked, BAD_USER_INPUT when malformed), a
 * batched read, and the project's list of that kind in creation order. One instance per request,
 * like the scope it holds.
 */
export abstract class ProjectChildRepository<T> {
  /** The declared entity this repository stores. */
  protected abstract readonly kind: IdentifiedProjectChild;

  constructor(
    protected readonly scope: Scope,
    protected readonly projects: ProjectRepository,
  ) {}

  protected subject(projectId: string, id: string): Subject<T> {
    const { type, idPrefix, key } = entities[this.kind];
    // The child's id is the last value of its sort key (`PROJECT#{projectId}#LOG#{logId}`).
    const idField = /\{(\w+)\}$/.exec(key.shape.sk)![1];
    assertId(projectId, 'proj', 'projectId');
    assertId(id, idPrefix, idField);
    return { entity: type, id, key: key.keyOf(this.scope.tenantId, { projectId, [idField]: id } as never) };
  }

  /** The child, or null when this tenant's project has none with that id. */
  async get(projectId: string, id: string): Promise<T | null> {
    return (await this.scope.items.load(this.subject(projectId, id).key)) as T | null;
  }

  /** A project's children of this kind, oldest first (ids are time-ordered). */
  list(projectId: string, page: PageRequest): Promise<Page<T>> {
    assertId(projectId, 'proj', 'projectId');
    return this.scope.page(projectChildren(this.scope.tenantId, projectId, this.kind), page) as Promise<Page<T>>;
  }
}
