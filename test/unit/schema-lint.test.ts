import { spawn } from 'node:child_process';
import { join } from 'node:path';

/*
 * schema.graphql passes @graphql-eslint's schema rules (eslint.config.js: the recommended set,
 * with every type, field, argument and enum value described, and the rules turned off or narrowed
 * there said why). ESLint runs as its own process, as `npx eslint schema.graphql` would.
 */
const ROOT = join(__dirname, '../..');

interface LintMessage {
  ruleId: string | null;
  line: number;
  message: string;
}

describe('schema.graphql under @graphql-eslint', () => {
  it('has no error and no warning', async () => {
    const child = spawn(process.execPath, [join(ROOT, 'node_modules/eslint/bin/eslint.js'), '--format', 'json', 'schema.graphql'], {
      cwd: ROOT,
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (err += c));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(err).toBe('');
    const [result]: Array<{ messages: LintMessage[] }> = JSON.parse(out);
    // Each problem as rule, line and message, so a failure names what to describe or fix.
    expect(result.messages.map((m) => `${m.ruleId} line ${m.line}: ${m.message.split('\n')[0]}`)).toEqual([]);
    expect(code).toBe(0);
  }, 60_000);

  it('would catch a missing description (the check can fail)', async () => {
    const child = spawn(
      process.execPath,
      [join(ROOT, 'node_modules/eslint/bin/eslint.js'), '--format', 'json', '--stdin', '--stdin-filename', 'schema.graphql'],
      { cwd: ROOT },
    );
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    child.stdin.end('"""A type."""\ntype Query {\n  """Described."""\n  described: String\n  undescribed(arg: Int): String\n}\n');
    await new Promise((resolve) => child.once('exit', resolve));
    const [result]: Array<{ messages: LintMessage[] }> = JSON.parse(out);
    const rules = result.messages.map((m) => m.ruleId);
    expect(rules.filter((r) => r === '@graphql-eslint/require-description')).toHaveLength(2);
  }, 60_000);
});
