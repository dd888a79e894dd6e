import { assertId } from '../common/ids';
import { create, mutate, remove, type Subject } from '../common/mutate';
import type { Scope } from '../common/scope';
import { StateMachine } from '../common/state-machine';
import { applyPatch, maxItems, requireText } from '../common/validate';
import { badInput } from '../errors';
import type { Page, PageRequest } from '../infra/dynamo/store';
import { projectChildren } from '../project/project.keys';
import type { ProjectRepository } from '../project/project.repository';
import { milestoneKey } from './milestone.keys';
import { MilestoneStatus, type CreateMilestoneInput, type Milestone, type UpdateMilestoneInput } from './milestone.type';

export const milestoneStatus = new StateMachine<MilestoneStatus>('Milestone', {
  [MilestoneStatus.PENDING]: [MilestoneStatus.IN_PROGRESS],
  [MilestoneStatus.IN_PROGRESS]: [MilestoneStatus.COMPLETE],
  [MilestoneStatus.COMPLETE]: [],
});

function criteriaOf(list: string[] | null | undefined): string[] | undefined {
  return maxItems(list, 'criteria', 50)?.map((c) => requireText(c, 'criteria', 1000)) ?? undefined;
}

export class MilestoneRepository {
  constructor(
    private readonly scope: Scope,
    private readonly projects: ProjectRepository,
  ) {}

  private subject(projectId: string, milestoneId: string): Subject {
    assertId(projectId, 'proj', 'projectId');
    assertId(milestoneId, 'ms', 'milestoneId');
    return { entity: 'Milestone', id: milestoneId, key: milestoneKey(this.scope.tenantId, projectId, milestoneId) };
  }

  async get(projectId: string, milestoneId: string): Promise<Milestone | null> {
    return (await this.scope.items.load(this.subject(projectId, milestoneId).key)) as Milestone | null;
  }

  /** A project's milestones in creation order. */
  list(projectId: string, page: PageRequest): Promise<Page<Milestone>> {
    assertId(projectId, 'proj', 'projectId');
    return this.scope.page(projectChildren(this.scope.tenantId, projectId, 'Milestone'), page) as Promise<Page<Milestone>>;
  }

  async create(projectId: string, input: CreateMilestoneInput): Promise<Milestone> {
    const milestoneId = this.scope.newId('ms');
    const { key } = this.subject(projectId, milestoneId);
    const name = requireText(input.name, 'name');
    const item = {
      ...key,
      entityType: 'Milestone',
      milestoneId,
      projectId,
      name,
      due: input.due ?? undefined,
      criteria: criteriaOf(input.criteria) ?? [],
      status: MilestoneStatus.PENDING,
    };
    return (await create(
      this.scope,
      item,
      { action: 'milestone.created', entityType: 'Milestone', entityId: milestoneId, projectId, data: { name } },
      [this.projects.activeProjectCheck(projectId)],
    )) as Milestone;
  }

  async update(projectId: string, milestoneId: string, expectedVersion: number, input: UpdateMilestoneInput): Promise<Milestone> {
    if (input.name === null) throw badInput('name cannot be cleared.', 'name');
    const patch = {
      name: input.name == null ? undefined : requireText(input.name, 'name'),
      due: input.due,
      criteria: input.criteria === null ? [] : criteriaOf(input.criteria),
    };
    return (await mutate(this.scope, this.subject(projectId, milestoneId), expectedVersion, (current) => ({
      item: applyPatch(current, patch),
      event: { action: 'milestone.updated', entityType: 'Milestone', entityId: milestoneId, projectId, data: { fields: Object.keys(input) } },
    }))) as Milestone;
  }

  async setStatus(projectId: string, milestoneId: string, status: MilestoneStatus, expectedVersion?: number | null): Promise<Milestone> {
    return (await mutate(this.scope, this.subject(projectId, milestoneId), expectedVersion, (current) => {
      milestoneStatus.assert(milestoneId, current.status, status);
      return {
        item: { ...current, status },
        event: { action: 'milestone.status_changed', entityType: 'Milestone', entityId: milestoneId, projectId, data: { from: current.status, to: status } },
      };
    })) as Milestone;
  }

  async delete(projectId: string, milestoneId: string, expectedVersion?: number | null): Promise<Milestone> {
    return (await remove(this.scope, this.subject(projectId, milestoneId), expectedVersion, () => ({
      event: { action: 'milestone.deleted', entityType: 'Milestone', entityId: milestoneId, projectId },
    }))) as Milestone;
  }
}
