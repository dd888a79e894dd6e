import { attributionStatus } from '../../src/log/log.repository';
import { AttributionStatus } from '../../src/log/log.type';
import { milestoneStatus } from '../../src/milestone/milestone.repository';
import { MilestoneStatus } from '../../src/milestone/milestone.type';
import { projectStatus } from '../../src/project/project.repository';
import { ProjectStatus } from '../../src/project/project.type';

describe('status machines', () => {
  it('moves a project planning → production → complete and nowhere else', () => {
    const all = Object.values(ProjectStatus);
    const allowed = all.flatMap((from) => all.filter((to) => projectStatus.can(from, to)).map((to) => `${from}>${to}`));
    expect(allowed).toEqual(['planning>production', 'production>complete']);
  });

  it('moves a milestone pending → in_progress → complete and nowhere else', () => {
    const all = Object.values(MilestoneStatus);
    const allowed = all.flatMap((from) => all.filter((to) => milestoneStatus.can(from, to)).map((to) => `${from}>${to}`));
    expect(allowed).toEqual(['pending>in_progress', 'in_progress>complete']);
  });

  it('settles a log attribution once: pending → confirmed | rejected', () => {
    const all = Object.values(AttributionStatus);
    const allowed = all.flatMap((from) => all.filter((to) => attributionStatus.can(from, to)).map((to) => `${from}>${to}`));
    expect(allowed).toEqual(['pending>confirmed', 'pending>rejected']);
  });

  it('names from and to in the INVALID_TRANSITION error', () => {
    expect(() => projectStatus.assert('proj_1', ProjectStatus.COMPLETE, ProjectStatus.PLANNING)).toThrow(
      expect.objectContaining({
        message: 'Project proj_1 cannot go from complete to planning.',
        extensions: expect.objectContaining({ code: 'INVALID_TRANSITION', from: 'complete', to: 'planning' }),
      }),
    );
  });
});
