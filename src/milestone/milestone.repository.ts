import { create, mutate, remove } from '../common/mutate';
import { StateMachine } from '../common/state-machine';
import { applyPatch, maxItems, requireText } from '../common/validate';
import { badInput } from '../errors';
import { ProjectChildRepository } from '../project/project-child.repository';
import { MilestoneStatus, type CreateMilestoneInput, type Milestone, type UpdateMilestoneInput } from './milestone.type';

export const milestoneStatus = new StateMachine<MilestoneStatus>('Milestone', {
  [MilestoneStatus.PENDING]: [MilestoneStatus.IN_PROGRESS],
  [MilestoneStatus.IN_PROGRESS]: [MilestoneStatus.COMPLETE],
  [MilestoneStatus.COMPLETE]: [],
});

function criteriaOf(list: string[] | null | undefined): string[] | undefined {
  return maxItems(list, 'criteria', 50)?.map((c) => requireText(c, 'criteria', 1000)) ?? undefined;
}

/** Milestones of a project; `get` and `list` (in creation order) come from ProjectChildRepository. */
export class MilestoneRepository extends ProjectChildRepository<Milestone> {
  protected readonly kind = 'Milestone';

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
    return create(
      this.scope,
      item,
      { action: 'milestone.created', entityType: 'Milestone', entityId: milestoneId, projectId, data: { name } },
      [this.projects.activeProjectCheck(projectId)],
    );
  }

  async update(projectId: string, milestoneId: string, expectedVersion: number, input: UpdateMilestoneInput): Promise<Milestone> {
    if (input.name === null) throw badInput('name cannot be cleared.', 'name');
    const patch = {
      name: input.name == null ? undefined : requireText(input.name, 'name'),
      due: input.due,
      criteria: input.criteria === null ? [] : criteriaOf(input.criteria),
    };
    return mutate(this.scope, this.subject(projectId, milestoneId), expectedVersion, (current) => ({
      item: applyPatch(current, patch),
      event: {
        action: 'milestone.updated',
        entityType: 'Milestone',
        entityId: milestoneId,
        projectId,
        data: { fields: Object.keys(input) },
      },
    }));
  }

  async setStatus(projectId: string, milestoneId: string, status: MilestoneStatus, expectedVersion?: number | null): Promise<Milestone> {
    return mutate(this.scope, this.subject(projectId, milestoneId), expectedVersion, (current) => {
      milestoneStatus.assert(milestoneId, current.status, status);
      return {
        item: { ...current, status },
        event: {
          action: 'milestone.status_changed',
          entityType: 'Milestone',
          entityId: milestoneId,
          projectId,
          data: { from: current.status, to: status },
        },
      };
    });
  }

  async delete(projectId: string, milestoneId: string, expectedVersion?: number | null): Promise<Milestone> {
    return remove(this.scope, this.subject(projectId, milestoneId), expectedVersion, () => ({
      event: { action: 'milestone.deleted', entityType: 'Milestone', entityId: milestoneId, projectId },
    }));
  }
}
