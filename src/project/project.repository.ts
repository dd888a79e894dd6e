import { jsonInputError, storableNumber } from '../common/json-limits';
import { entities } from '../common/entities';
import type { Selection } from '../common/projection';
import { tenantOfPk } from '../infra/dynamo/entity';
import { assertId } from '../common/ids';
import { mustExist, mutate } from '../common/mutate';
import { EntityRepository } from '../common/repository';
import { applyPatch, boundedJson, optionalText, requireText } from '../common/validate';
import { badInput, invalidTransition, notFound } from '../errors';
import type { PageRequest, Write } from '../infra/dynamo/store';
import { projectKey, projectsByStatus, projectsByTitle } from './project.keys';
import type { ProjectStatus } from './project.type';

type CreateProjectInput = typeof entities.Project.createInput;
type UpdateProjectInput = typeof entities.Project.updateInput;

function checkBudget(budget: CreateProjectInput['budget']) {
  // Past what the table stores, the write would fail as INTERNAL.
  if (budget && Number.isFinite(budget.amount) && !storableNumber(budget.amount))
    throw jsonInputError('budget', { reason: 'NUMBER_OUT_OF_RANGE', value: budget.amount });
  if (budget && (!Number.isFinite(budget.amount) || budget.amount < 0)) throw badInput('budget.amount must be 0 or more.', 'budget');
  if (budget && !/^[A-Z]{3}$/.test(budget.currency))
    throw badInput('budget.currency must be a 3-letter ISO 4217 code such as EUR.', 'budget');
}

/** The longest title (requireText's default bound, which create and update hold it to). */
const MAX_TITLE = 200;

function checkFields(input: CreateProjectInput | UpdateProjectInput) {
  optionalText(input.medium, 'medium', 100);
  optionalText(input.client, 'client', 200);
  checkBudget(input.budget);
  boundedJson(input.customFields, 'customFields');
}

/** Projects of one tenant. Every key it builds starts with the scope's tenant. */
export class ProjectRepository extends EntityRepository<typeof entities.Project> {
  private values(projectId: string) {
    return { projectId: assertId(projectId, 'proj', 'projectId') };
  }

  /** The project, or null when this tenant has none with that id. */
  get(projectId: string) {
    return this.load(this.values(projectId));
  }

  /**
   * True when this tenant has the project, read with Scope.shared: a burst of subscribes to one
   * project's streams checks it a few times, not once each.
   */
  async exists(projectId: string): Promise<boolean> {
    return this.model.is(await this.scope.shared.get(this.keys.keyOf(this.values(projectId))));
  }

  /**
   * Lists projects through the indexes, never through the projects' children: by status (newest
   * first) when a status is given, else by title (optionally by title prefix).
   */
  list(
    args: { status?: ProjectStatus | null; titlePrefix?: string | null; archived: boolean },
    page: PageRequest,
    selection: Selection | undefined,
  ) {
    const { tenant } = this.scope;
    if (args.status && args.titlePrefix) throw badInput('Filter by status or by titlePrefix, not both.', 'titlePrefix');
    // No title is longer, and the index refuses a key past 1 KB (INTERNAL) long before the text would matter.
    if ((args.titlePrefix?.length ?? 0) > MAX_TITLE)
      throw badInput(`titlePrefix must be at most ${MAX_TITLE} characters, as a title is; got ${args.titlePrefix?.length}.`, 'titlePrefix');
    const spec = args.status
      ? projectsByStatus(tenant, args.status, args.archived)
      : projectsByTitle(tenant, args.titlePrefix ?? undefined, args.archived);
    return this.page(spec, page, selection);
  }

  /**
   * Projects in one status across all tenants (operators only; the resolver checks the role): the
   * shards of GSI3 read merged, most recently changed first, each with its tenant.
   */
  async acrossTenants(status: ProjectStatus, archived: boolean, page: PageRequest) {
    const model = this.model;
    const spec = model.query('', 'acrossTenants', { archived, status }, { descending: true });
    return model.pageOf(await this.scope.page(spec, page)).map((item) => ({ ...item, tenantId: tenantOfPk(item.PK) }));
  }

  create(input: CreateProjectInput, idempotencyKey?: string | null) {
    checkFields(input);
    const projectId = this.scope.newId('proj');
    const title = requireText(input.title, 'title');
    return this.createItem(
      {
        projectId,
        title,
        medium: input.medium ?? undefined,
        client: input.client ?? undefined,
        deadline: input.deadline ?? undefined,
        budget: input.budget ? { amount: input.budget.amount, currency: input.budget.currency } : undefined,
        customFields: input.customFields ?? undefined,
        archived: false,
      },
      [],
      { data: { title, status: this.model.status?.initial } },
      this.createRequest(idempotencyKey, { input }),
    );
  }

  update(projectId: string, expectedVersion: number, input: UpdateProjectInput) {
    checkFields(input);
    if (input.title !== undefined) {
      if (input.title === null) throw badInput('title cannot be cleared.', 'title');
      input.title = requireText(input.title, 'title');
    }
    const patch = { ...input, budget: input.budget ? { amount: input.budget.amount, currency: input.budget.currency } : input.budget };
    return mutate(this.scope, this.target(this.values(projectId)), expectedVersion, (current) => ({
      item: applyPatch(current, patch),
      event: { action: this.model.events.updated, data: { fields: Object.keys(input) } },
    }));
  }

  setStatus(projectId: string, status: ProjectStatus, expectedVersion?: number | null) {
    return this.moveStatus(this.values(projectId), status, expectedVersion, {
      guard: (current) => {
        if (current.archived) throw invalidTransition('Project', projectId, 'archived', status);
      },
    });
  }

  archive(projectId: string, expectedVersion?: number | null) {
    return mutate(this.scope, this.target(this.values(projectId)), expectedVersion, (current) => {
      if (current.archived) throw invalidTransition('Project', projectId, 'archived', 'archived');
      return {
        item: { ...current, archived: true, archivedAt: this.scope.now().toISOString() },
        event: { action: 'project.archived' },
      };
    });
  }

  /**
   * A transaction condition that the project exists and is not archived, for writes that add a
   * child to it. Fails the transaction with NOT_FOUND when there is no such project, and with
   * INVALID_TRANSITION when it is archived (project() still reads it, so "not found" would be false).
   */
  activeProjectCheck(projectId: string): Write {
    assertId(projectId, 'proj', 'projectId');
    return mustExist(projectKey(this.scope.tenant, projectId), 'Project', projectId, { archived: false }).orFail((now) =>
      now
        ? invalidTransition('Project', projectId, 'archived', 'given new work', {
            action: 'add to',
            allowed: [],
            hint: 'An archived project takes no new logs, milestones, assets or inspiration links.',
          })
        : notFound('Project', projectId),
    );
  }
}
