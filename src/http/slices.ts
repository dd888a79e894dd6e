/**
 * Visits every member of `members` in slices of at most `size`, one slice per turn of the event
 * loop (each in the check phase, via setImmediate), so that a walk over tens of thousands of
 * sockets never holds the loop for more than one slice: reads, writes and timers run between
 * slices. `members` is iterated live: a member added before the walk reaches it is visited, one
 * deleted before is not (a Set's iterator). `done` is called once, after the last slice. The first
 * slice runs at once, in the caller's turn.
 */
export function inSlices<T>(members: Iterable<T>, size: number, visit: (member: T) => void, done: () => void): void {
  const iterator = members[Symbol.iterator]();
  const slice = () => {
    for (let i = 0; i < size; i++) {
      const next = iterator.next();
      if (next.done) {
        done();
        return;
      }
      visit(next.value);
    }
    setImmediate(slice);
  };
  slice();
}
