import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

describe('generated client types', () => {
  it('match schema.graphql and the operations (run `npm run codegen` when this fails)', () => {
    // The codegen CLI's --check mode compares what it would write with what is committed.
    const root = join(__dirname, '../..');
    const result = spawnSync(join(root, 'node_modules/.bin/graphql-codegen'), ['--config', 'codegen.ts', '--check'], {
      cwd: root,
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect({ status: result.status, output: result.status === 0 ? '' : `${result.stdout}${result.stderr}` }).toEqual({
      status: 0,
      output: '',
    });
  });
});
