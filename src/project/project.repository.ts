import { assertId } from '../common/ids';
import { create, mustExist, mutate, type Subject } from '../common/mutate';
import type { Scope } from '../common/scope';
import { StateMachine } from '../common/state-machine';
import { applyPatch, boundedJson, optionalText, requireText } from '../common/validate';
import { badInput, invalidTransition } from '../errors';
import type { Item, Page, PageRequest, Write } from '../infra/dynamo/store';
import type { BudgetInput, CreateProjectInput, UpdateProjectInput } from './project.input';
import { projectIndexKeys, projectKey, projectsByStatus, projectsByTitle } from './project.keys';
import { ProjectStatus, type Project } from './project.type';

export const projectStatus = new StateMachine<ProjectStatus>('Project', {
  [ProjectStatus.PLANNING]: [ProjectStatus.PRODUCTION],
  [ProjectStatus.PRODUCTION]: [ProjectStatus.COMPLETE],
  [ProjectStatus.COMPLETE]: [],
});

function checkBudget(budget: BudgetInput | null | undefined) {
  if (budget && (!Number.isFinite(budget.amount) || budget.amount < 0)) throw badInput('budget.amount must be 0 or more.', 'budget');
  if (budget && !/^[A-Z]{3}$/.test(budget.currency))
    throw badInput('budget.currency must be a 3-letter ISO 4217 code such as EUR.', 'budget');
}

function checkFields(input: CreateProjectInput | UpdateProjectInput) {
  optionalText(input.medium, 'medium', 100);
  optionalText(input.client, 'client', 200);
  checkBudget(input.budget);
  boundedJson(input.customFields, 'customFields');
}

/** Projects of one tenant. Every key it builds starts with the scope's tenant. */
export class ProjectRepository {
  constructor(private readonly scope: Scope) {}

  private subject(projectId: string): Subject<Project> {
    assertId(projectId, 'proj', 'projectId');
    return { entity: 'Project', id: projectId, key: projectKey(this.scope.tenantId, projectId) };
  }

  private withIndexes(item: Item): Item {
    return { ...item, ...projectIndexKeys(this.scope.tenantId, item as Project & { createdAt: string }) };
  }

  /** The project, or null when this tenant has none with that id. */
  async get(projectId: string): Promise<Project | null> {
    assertId(projectId, 'proj', 'projectId');
    return (await this.scope.items.load(projectKey(this.scope.tenantId, projectId))) as Project | null;
  }

  /**
   * Lists projects through the indexes, never through the projects' children: by status (newest
   * first) when a status is given, else by title (optionally by title prefix).
   */
  list(args: { status?: ProjectStatus | null; titlePrefix?: string | null; archived: boolean }, page: PageRequest): Promise<Page<Project>> {
    const { tenantId } = this.scope;
    if (args.status && args.titlePrefix) throw badInput('Filter by status or by titlePrefix, not both.', 'titlePrefix');
    const spec = args.status
      ? projectsByStatus(tenantId, args.status, args.archived)
      : projectsByTitle(tenantId, args.titlePrefix ?? undefined, args.archived);
    return this.scope.page(spec, page) as Promise<Page<Project>>;
  }

  async create(input: CreateProjectInput): Promise<Project> {
    checkFields(input);
    const projectId = this.scope.newId('proj');
    const createdAt = this.scope.now().toISOString();
    const fields = {
      projectId,
      title: requireText(input.title, 'title'),
      medium: input.medium ?? undefined,
      client: input.client ?? undefined,
      deadline: input.deadline ?? undefined,
      budget: input.budget ? { amount: input.budget.amount, currency: input.budget.currency } : undefined,
      customFields: input.customFields ?? undefined,
      status: ProjectStatus.PLANNING,
      archived: false,
    };
    const item = {
      ...projectKey(this.scope.tenantId, projectId),
      entityType: 'Project',
      ...fields,
      ...projectIndexKeys(this.scope.tenantId, { ...fields, createdAt }),
    };
    return create(this.scope, item, {
      action: 'project.created',
      entityType: 'Project',
      entityId: projectId,
      projectId,
      data: { title: fields.title, status: fields.status },
    });
  }

  async update(projectId: string, expectedVersion: number, input: UpdateProjectInput): Promise<Project> {
    checkFields(input);
    if (input.title !== undefined) {
      if (input.title === null) throw badInput('title cannot be cleared.', 'title');
      input.title = requireText(input.title, 'title');
    }
    const patch = { ...input, budget: input.budget ? { amount: input.budget.amount, currency: input.budget.currency } : input.budget };
    return mutate(this.scope, this.subject(projectId), expectedVersion, (current) => ({
      item: this.withIndexes(applyPatch(current, patch)),
      event: { action: 'project.updated', entityType: 'Project', entityId: projectId, projectId, data: { fields: Object.keys(input) } },
    }));
  }

  async setStatus(projectId: string, status: ProjectStatus, expectedVersion?: number | null): Promise<Project> {
    return mutate(this.scope, this.subject(projectId), expectedVersion, (current) => {
      if (current.archived) throw invalidTransition('Project', projectId, 'archived', status);
      projectStatus.assert(projectId, current.status, status);
      return {
        item: this.withIndexes({ ...current, status }),
        event: {
          action: 'project.status_changed',
          entityType: 'Project',
          entityId: projectId,
          projectId,
          data: { from: current.status, to: status },
        },
      };
    });
  }

  async archive(projectId: string, expectedVersion?: number | null): Promise<Project> {
    return mutate(this.scope, this.subject(projectId), expectedVersion, (current) => {
      if (current.archived) throw invalidTransition('Project', projectId, 'archived', 'archived');
      return {
        item: this.withIndexes({ ...current, archived: true, archivedAt: this.scope.now().toISOString() }),
        event: { action: 'project.archived', entityType: 'Project', entityId: projectId, projectId },
      };
    });
  }

  /**
   * A transaction condition that the project exists and is not archived, for writes that add a
   * child to it. Fails the transaction with NOT_FOUND otherwise.
   */
  activeProjectCheck(projectId: string): Write {
    assertId(projectId, 'proj', 'projectId');
    return mustExist(projectKey(this.scope.tenantId, projectId), 'Project', projectId, { archived: false });
  }
}
