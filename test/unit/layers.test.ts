import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { checkLayers, folderCircles, importedNames, importsOf, LAYERS } from '../../src/scripts/layers';
import { tempDir } from '../support/fixtures';

const src = join(__dirname, '../../src');

/** A made-up src/ in a temporary folder: each file (path relative to it) with its text. */
function tree(prefix: string, files: Record<string, string>): string {
  const root = tempDir(prefix);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

/**
 * Imports that still run up the layers, each waiting for later work on issue 11 to remove it. The list may only shrink: a new upward import fails the first test, and
 * an entry whose import is gone fails the second, so that it is deleted here.
 */
const KNOWN_UPWARD: string[] = [
  // The pipeline keeps its per-operation records in the HTTP folder's request log.
];

describe('the layers of src/', () => {
  const { upward, unassigned } = checkLayers(src);
  const found = upward.map((u) => `${u.from} → ${u.to}`);

  it('has no import from a lower layer into a higher one, beyond the known ones', () => {
    expect(found.filter((f) => !KNOWN_UPWARD.includes(f))).toEqual([]);
  });

  it('lists no known upward import that is gone (delete it from KNOWN_UPWARD)', () => {
    expect(KNOWN_UPWARD.filter((k) => !found.includes(k))).toEqual([]);
  });

  it('puts every source file in a layer', () => {
    expect(unassigned).toEqual([]);
  });

  it('keeps the request context a leaf: it imports no feature, event or wiring module', () => {
    const context = upward.filter((u) => u.from === 'context.ts');
    expect(context).toEqual([]);
    expect(LAYERS.find((l) => l.paths.includes('context.ts'))?.name).toBe('common');
  });

  it('has no circle of folders: no two rooms of src/ import each other, however far round', () => {
    expect(folderCircles(src)).toEqual([]);
  });

  it('keeps the job kinds data: job.kinds.ts imports nothing of migrations or the archive, which register their kinds themselves', () => {
    const imports = importsOf(src, 'job/job.kinds.ts');
    expect(imports.filter((to) => to.startsWith('migrations/') || to.startsWith('archive/') || to === 'common/feature.ts')).toEqual([]);
  });

  it('keeps the job decider pure: job.decider.ts imports no store, committer, scope or the aggregate’s IO', () => {
    const io = ['job/job.aggregate.ts', 'infra/dynamo/store.ts', 'infra/dynamo/committer.ts', 'common/scope.ts', 'context.ts'];
    expect(importsOf(src, 'job/job.decider.ts').filter((to) => io.includes(to) || to.startsWith('infra/postgres/'))).toEqual([]);
  });

  it('keeps the pool scheduler apart from GraphQL: job.pool.ts imports neither the request context nor a GraphQL package', () => {
    expect(importsOf(src, 'job/job.pool.ts')).not.toContain('context.ts');
    expect(importedNames(src, 'job/job.pool.ts').filter((name) => /graphql|apollo/i.test(name))).toEqual([]);
  });

  it('finds a circle of folders and top files, and the imports that tie it', () => {
    const root = tree('circles-', {
      'a/one.ts': "import type { B } from '../b/two';\nimport { C } from '../c/three';\n",
      'b/two.ts': "export type B = string;\ndeclare module '../top' { interface T { b: string } }\n",
      'top.ts': "import '../outside';\nconst a = require('./a/one');\n",
      'c/three.ts': 'export const C = 1;\n',
    });
    expect(folderCircles(root)).toEqual([
      { rooms: ['a/', 'b/', 'top.ts'], imports: ['a/one.ts → b/two.ts', 'b/two.ts → top.ts', 'top.ts → a/one.ts'] },
    ]);
  });

  it('counts a type-only import of a higher layer, and a require, as upward', () => {
    const root = tree('layers-', {
      'infra/a.ts': "import type { B } from '../common/b';\nimport { logger } from '../logger';\n",
      'common/b.ts': "export type B = string;\nconst a = require('../infra/a');\n",
      'errors.ts': "const c = require('./context');\n",
      'stray.ts': '',
    });
    expect(checkLayers(root)).toEqual({
      upward: [
        { from: 'errors.ts', fromLayer: 'base', to: 'context.ts', toLayer: 'common' },
        { from: 'infra/a.ts', fromLayer: 'infra', to: 'common/b.ts', toLayer: 'common' },
      ],
      unassigned: ['stray.ts'],
    });
  });
});
