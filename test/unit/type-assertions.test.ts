import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import * as ts from 'typescript';

const SRC = join(__dirname, '../../src');

/** Every hand-written .ts file under src/ (the generated client is left out). */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return path.endsWith(join('client', 'gql')) ? [] : sources(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** The type assertions of a file (`x as T`, `<T>x`; `as const` is no assertion), by line. */
function assertionsIn(file: string): number[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const lines: number[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isAsExpression(node) || ts.isTypeAssertionExpression(node)) {
      const isConst = ts.isTypeReferenceNode(node.type) && node.type.typeName.getText(source) === 'const';
      if (!isConst) lines.push(source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return lines;
}

describe('type assertions in src/', () => {
  it('stay few: reads narrow items by their declaration, boundaries check with guards', () => {
    const found = sources(SRC).flatMap((file) => assertionsIn(file).map((line) => `${relative(SRC, file)}:${line}`));
    // Each one left is explained where it stands (a library that types a value as any, a
    // declaration's literal types that Object.keys cannot keep); 108 before the entity model.
    expect(found.length).toBeLessThanOrEqual(10);
  });
});
