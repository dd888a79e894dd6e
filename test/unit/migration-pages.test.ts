import { nextPageSize } from '../../src/migrations/migration.segment';

/**
 * A migration segment's page sizes (src/migrations/migration.segment.ts): a page of rows that all
 * need a rewrite holds the rewrites its budget allows in a few seconds, and the rows a migration
 * leaves alone are read in larger pages, up to 500, so they cost fewer checkpoints.
 */
describe('a migration segment sizes its next page by how many rows of the last one it rewrote', () => {
  it('keeps the budget’s page while every row needs a rewrite', () => {
    expect(nextPageSize(100, 100, 100)).toBe(100);
    expect(nextPageSize(25, 25, 25)).toBe(25);
  });

  it('reads more rows the fewer of them need a rewrite, about a page’s rewrites at that share, up to 500', () => {
    expect(nextPageSize(100, 100, 50)).toBe(200);
    expect(nextPageSize(25, 100, 10)).toBe(250);
    expect(nextPageSize(100, 100, 1)).toBe(500);
    expect(nextPageSize(100, 500, 0)).toBe(500);
  });

  it('never reads fewer rows than the budget’s page', () => {
    // A page that read fewer rows than it asked (the segment's end) and rewrote them all.
    expect(nextPageSize(100, 40, 40)).toBe(100);
  });
});
