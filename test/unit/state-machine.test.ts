import { entities, entityNames } from '../../src/common/entities';

/** Every move a model's machine allows, as `from>to`, by asking it about every pair of its states. */
function allowedMoves(name: (typeof entityNames)[number]): string[] {
  const model = entities[name];
  const all: string[] = model.states;
  return all.flatMap((from) =>
    all.flatMap((to) => {
      try {
        model.assertTransition('x', from, to);
        return [`${from}>${to}`];
      } catch {
        return [];
      }
    }),
  );
}

describe('status machines', () => {
  it('moves a project planning → production → complete and nowhere else', () => {
    expect(allowedMoves('Project')).toEqual(['planning>production', 'production>complete']);
  });

  it('moves a milestone pending → in_progress → complete and nowhere else', () => {
    expect(allowedMoves('Milestone')).toEqual(['pending>in_progress', 'in_progress>complete']);
  });

  it('settles a log attribution once: pending → confirmed | rejected', () => {
    expect(allowedMoves('Log')).toEqual(['pending>confirmed', 'pending>rejected']);
  });

  it('allows exactly the declared transitions of every machine, and refuses moves to unknown states', () => {
    const withMachines = entityNames.filter((name) => entities[name].status);
    expect(withMachines).toEqual(expect.arrayContaining(['Project', 'Milestone', 'Log']));
    for (const name of withMachines) {
      const transitions: Record<string, readonly string[]> = entities[name].status?.transitions ?? {};
      const declared = Object.entries(transitions).flatMap(([from, targets]) => targets.map((to) => `${from}>${to}`));
      expect({ name, moves: allowedMoves(name) }).toEqual({ name, moves: declared });
      expect(() => entities[name].assertTransition('x', entities[name].states[0], 'no_such_state')).toThrow();
    }
  });

  it('names the state, the target and where it may go in the INVALID_TRANSITION error', () => {
    expect(() => entities.Project.assertTransition('proj_1', 'complete', 'planning')).toThrow(
      expect.objectContaining({
        message: 'Project proj_1 cannot go from complete to planning: complete is final.',
        extensions: expect.objectContaining({ code: 'INVALID_TRANSITION', from: 'complete', to: 'planning', allowed: [] }),
      }),
    );
    expect(() => entities.Milestone.assertTransition('ms_1', 'pending', 'complete')).toThrow(
      expect.objectContaining({
        message: 'Milestone ms_1 cannot go from pending to complete: from pending it can go to in_progress.',
        extensions: expect.objectContaining({ from: 'pending', to: 'complete', allowed: ['in_progress'] }),
      }),
    );
  });

  it('describes the transitions for the GraphQL enum', () => {
    expect(entities.Log.describeTransitions()).toBe('pending → confirmed | rejected; confirmed (final); rejected (final)');
  });
});
