import { inSlices } from '../../src/http/slices';

/**
 * The keep-alive's round walks every socket in slices (src/http/ws-transport.ts), so that a round
 * over tens of thousands of sockets lets the event loop read and write between slices instead of
 * holding it for the whole walk.
 */
describe('inSlices', () => {
  it('visits every member once, a slice per turn of the event loop, letting callbacks queued meanwhile run between slices', async () => {
    const members = new Set(Array.from({ length: 2500 }, (_, i) => i));
    const visited: number[] = [];
    // Where the visits stood each time a callback queued from a visit got to run.
    const between: number[] = [];
    await new Promise<void>((resolve) =>
      inSlices(
        members,
        1000,
        (member) => {
          visited.push(member);
          if (member % 1000 === 0) setImmediate(() => between.push(visited.length));
        },
        resolve,
      ),
    );
    // The last slice's callback runs in the turn after the walk ended.
    await new Promise((resolve) => setImmediate(resolve));
    expect(visited).toEqual([...members]);
    // Held in one turn, the walk would have visited all 2,500 before any of them ran.
    expect(between).toEqual([1000, 2000, 2500]);
  });

  it('follows the set as it changes between slices: a member added is visited, one deleted is not', async () => {
    const members = new Set([1, 2, 3, 4]);
    const visited: number[] = [];
    const done = new Promise<void>((resolve) => inSlices(members, 2, (member) => visited.push(member), resolve));
    // The first slice ran at once; the rest runs in a later turn.
    expect(visited).toEqual([1, 2]);
    members.delete(3);
    members.add(5);
    await done;
    expect(visited).toEqual([1, 2, 4, 5]);
  });
});
