import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/*
 * Every runtime dependency is one the server's own code loads: a package nothing imports is one
 * more thing every production install downloads and every audit reads for nothing.
 */
const ROOT = join(__dirname, '../..');

/** The text of every TypeScript and CommonJS file under `folder`. */
function sources(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.(ts|cjs)$/.test(entry.name))
    .map((entry) => readFileSync(join(entry.parentPath, entry.name), 'utf8'));
}

describe('runtime dependencies', () => {
  it('are each imported or required by the server', () => {
    const { dependencies } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    const code = sources(join(ROOT, 'src')).join('\n');
    const loaded = (name: string) =>
      new RegExp(`(from |import |require\\(|import\\()'${name.replace(/[/.]/g, '\\$&')}(/[^']*)?'`).test(code);
    expect(Object.keys(dependencies).filter((name) => !loaded(name))).toEqual([]);
  });
});
