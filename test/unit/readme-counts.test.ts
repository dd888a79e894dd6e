import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/*
 * Every count the README states about the test suite is computed here from the files themselves,
 * so a test file added or removed without the README following fails. A count that cannot be
 * computed from the files (how many tests jest reports, with one per docs snippet) is not stated.
 */
const ROOT = join(__dirname, '../..');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8').replace(/\s+/g, ' ');

const testFiles = (folder: string) =>
  readdirSync(join(ROOT, 'test', folder))
    .filter((name) => name.endsWith('.test.ts'))
    .map((name) => join(ROOT, 'test', folder, name));

/** `it(` and `test(` calls, not methods of that name (`.it(`) nor words ending in it (`submit(`). */
const itBlocks = (file: string) => readFileSync(file, 'utf8').match(/(^|[^.\w])(it|test)\(/g)?.length ?? 0;

describe('the counts the README states', () => {
  const unit = testFiles('unit');
  const integration = testFiles('integration');
  const e2e = testFiles('e2e');
  const all = [...unit, ...integration, ...e2e];

  it('states how many test files there are, by kind, and how many it blocks they hold', () => {
    const stated = /The suite is (\d+) test files \((\d+) unit, (\d+) integration, (\d+) end-to-end\) with (\d+) `it` blocks/.exec(README);
    expect(stated).not.toBeNull();
    expect(stated!.slice(1).map(Number)).toEqual([
      all.length,
      unit.length,
      integration.length,
      e2e.length,
      all.reduce((sum, file) => sum + itBlocks(file), 0),
    ]);
  });

  it('states no other count of suites or tests, which nothing would keep true', () => {
    expect(README.match(/\b\d+ (suites?|tests)\b/g) ?? []).toEqual([]);
  });

  it('counts it blocks and nothing that only looks like one', () => {
    expect("it('a'); test('b'); x.it(1); submit(2); describe.each([])('c', () => it('d'));".match(/(^|[^.\w])(it|test)\(/g)).toHaveLength(
      3,
    );
  });
});
