import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { ROOT } from '../support/processes';
import { tempDir } from '../support/fixtures';

/*
 * A newcomer's machine often has an older Node (a fresh Debian has Node 20). On it, `npm ci` and
 * `npm install` must stop at once, before downloading anything, and `npm start`, `npm run demo`
 * and `npm test` must say in one line which Node is needed and how to run npm on Node 26, rather
 * than fail later with TS2307 errors from a build without the optional OpenTelemetry packages.
 * Each runs as a real process under a real older Node: OLD_NODE, or the first `node` older than
 * 24 on PATH or in /usr/bin or /usr/local/bin (CI's machine has Debian's).
 */
const major = (node: string) => Number(spawnSync(node, ['-p', 'process.versions.node'], { encoding: 'utf8' }).stdout.split('.')[0]);

function olderNode(): string {
  const candidates = [
    process.env.OLD_NODE,
    ...(process.env.PATH ?? '').split(delimiter).map((dir) => join(dir, 'node')),
    '/usr/bin/node',
    '/usr/local/bin/node',
  ].filter((path): path is string => !!path && existsSync(path));
  const found = candidates.find((node) => major(node) < 24);
  if (!found) throw new Error('No Node older than 24 found on PATH, in /usr/bin or /usr/local/bin: set OLD_NODE to one to run this test.');
  return found;
}

const CHECK = join(ROOT, 'src/scripts/check-node.cjs');
const REFUSAL =
  /^Node (\d+\.\d+\.\d+) is not supported: this project needs Node 24 or newer \(26 recommended\); without installing it, run npm on Node 26: npx -y node@26 "\$\(command -v npm\)" (\S.*)\n$/;

describe('an unsupported Node', () => {
  let old: string;
  /** The environment of a shell whose `node` and `npm` are the older Node's (npm ships with it). */
  let oldShell: NodeJS.ProcessEnv;
  beforeAll(() => {
    old = olderNode();
    oldShell = { PATH: [dirname(old), '/usr/bin', '/bin'].join(delimiter), HOME: process.env.HOME };
  });

  it('is refused by the check in one line that names the Node needed and how to get it, with exit code 1; this Node passes it', () => {
    const refused = spawnSync(old, [CHECK], { encoding: 'utf8', timeout: 30_000 });
    expect(refused.status).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toMatch(REFUSAL);
    expect(REFUSAL.exec(refused.stderr)?.[1]).toBe(spawnSync(old, ['-p', 'process.versions.node'], { encoding: 'utf8' }).stdout.trim());

    const passed = spawnSync(process.execPath, [CHECK], { encoding: 'utf8', timeout: 30_000 });
    expect({ status: passed.status, stdout: passed.stdout, stderr: passed.stderr }).toEqual({ status: 0, stdout: '', stderr: '' });
  });

  it('npm start, npm run demo, npm test and npm run token refuse at once with that line, naming the command to run again with its arguments', () => {
    if (!existsSync(join(dirname(old), 'npm'))) throw new Error(`No npm next to ${old}: the older Node's npm runs these.`);
    for (const [args, again] of [
      [['start'], 'start'],
      [['run', 'demo'], 'run demo'],
      [['test'], 'test'],
      // The arguments after `--`, quoted for the shell as npm passed them on (a tool runs after the check, which never sees them).
      [['run', 'token', '--', '--tenant', 'acme studio', "it's"], "run token -- --tenant 'acme studio' 'it'\\''s'"],
      // A silent run stays silent (its output is often captured: TOKEN=$(npm run -s token …)).
      [['run', '-s', 'token', '--', '--tenant', 'demo'], '-s run token -- --tenant demo'],
      // npm start execs its node (no shell to read them from): they are the check's own process's.
      [['start', '--', '--port', '4999', 'a b'], "start -- --port 4999 'a b'"],
      // A pre script is given none: they are npm's own (its process title shows them unquoted).
      [['test', '--', 'test/unit/quota.test.ts'], 'test -- test/unit/quota.test.ts'],
    ] as const) {
      const started = Date.now();
      const run = spawnSync('npm', [...args], { cwd: ROOT, env: oldShell, encoding: 'utf8', timeout: 60_000 });
      expect({ args, status: run.status }).toEqual({ args, status: 1 });
      const lines = run.stderr.split('\n').filter((line) => line && !line.startsWith('npm error'));
      expect({ args, lines }).toEqual({ args, lines: [expect.stringMatching(/^Node \S+ is not supported/)] });
      expect(REFUSAL.exec(`${lines[0]}\n`)?.[2]).toBe(again);
      // Nothing was built or started first: no TypeScript errors, no DynamoDB Local.
      expect(run.stdout).not.toMatch(/TS\d{4}|DynamoDB Local/);
      expect(Date.now() - started).toBeLessThan(20_000);
    }
  });

  it('in a fresh clone (nothing installed), npm start and npm run token say to install with Node 26 first; on Node 26 the build says to install', () => {
    if (!existsSync(join(dirname(old), 'npm'))) throw new Error(`No npm next to ${old}: the older Node's npm runs these.`);
    // A clone as git gives it: the sources, the manifest, the lock and .npmrc, and no node_modules (the install was refused).
    const clone = tempDir('artissist-fresh-clone-');
    for (const file of ['package.json', 'package-lock.json', '.npmrc', 'tsconfig.json', 'tsconfig.build.json'])
      cpSync(join(ROOT, file), join(clone, file));
    // The folders the build compiles (tsconfig.build.json): the server's sources and the TypeScript worker SDK.
    for (const folder of ['src', 'sdk/typescript']) cpSync(join(ROOT, folder), join(clone, folder), { recursive: true });
    const npm26 = 'npx -y node@26 "$(command -v npm)"';
    for (const [args, again] of [
      [['start'], 'start'],
      [['run', 'token'], 'run token'],
    ] as const) {
      const run = spawnSync('npm', [...args], { cwd: clone, env: oldShell, encoding: 'utf8', timeout: 60_000 });
      expect({ args, status: run.status }).toEqual({ args, status: 1 });
      const lines = run.stderr.split('\n').filter((line) => line && !line.startsWith('npm error'));
      expect({ args, lines }).toEqual({
        args,
        lines: [
          `Node ${spawnSync(old, ['-p', 'process.versions.node'], { encoding: 'utf8' }).stdout.trim()} is not supported: this project needs Node 24 or newer (26 recommended); without installing it, install and run with npm on Node 26: ${npm26} ci && ${npm26} ${again}`,
        ],
      });
      expect(run.stdout).not.toMatch(/TS\d{4}|DynamoDB Local|Cannot find module/);
    }
    // On Node 26 in the same clone, the build step names the install instead of a resolver's stack trace.
    const built = spawnSync(process.execPath, [join(clone, 'src/scripts/ensure-built.cjs')], {
      cwd: clone,
      env: { ...oldShell, npm_lifecycle_event: 'token' },
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect({ status: built.status, stderr: built.stderr }).toEqual({
      status: 1,
      stderr: 'TypeScript is not installed, so nothing can be built: run npm ci first, then npm run token.\n',
    });
  });

  it('npm ci and npm install stop before installing anything, saying that Node 24 or newer is required', () => {
    // In a copy of the project's manifest, lock and .npmrc: a real `npm ci` here would first empty node_modules.
    const dir = tempDir('artissist-old-node-');
    for (const file of ['package.json', 'package-lock.json', '.npmrc']) cpSync(join(ROOT, file), join(dir, file));
    for (const command of ['ci', 'install']) {
      const started = Date.now();
      const run = spawnSync('npm', [command, '--no-audit', '--no-fund'], { cwd: dir, env: oldShell, encoding: 'utf8', timeout: 120_000 });
      expect({ command, status: run.status }).toEqual({ command, status: 1 });
      expect(run.stderr).toContain('npm error code EBADENGINE');
      expect(run.stderr).toContain('Required: {"node":">=24"}');
      // At once: before a single package is fetched or unpacked.
      expect(Date.now() - started).toBeLessThan(20_000);
      expect(readdirSync(dir).sort()).toEqual(['.npmrc', 'package-lock.json', 'package.json']);
    }
  });
});

/** What the build step says before it runs tsc. */
const COMPILING = 'Compiling the TypeScript into dist/ (tsc; the first build takes longest) …\n';

describe('the build before a first start', () => {
  it('says on stderr that it compiles, since a first build is silent for seconds; an up-to-date dist/ says nothing', () => {
    // A project of one file with the real scripts, the real tsc (through a link to the installed
    // packages) and the real compiler options: the whole project's first build costs 15 s of CPU.
    const dir = tempDir('artissist-first-build-');
    for (const script of ['ensure-built.cjs', 'check-node.cjs'])
      cpSync(join(ROOT, 'src/scripts', script), join(dir, 'src/scripts', script));
    writeFileSync(join(dir, 'src/one.ts'), 'export const one: number = 1;\n');
    mkdirSync(join(dir, 'sdk/typescript'), { recursive: true });
    for (const file of ['package.json', 'tsconfig.json']) cpSync(join(ROOT, file), join(dir, file));
    writeFileSync(join(dir, 'tsconfig.build.json'), JSON.stringify({ extends: './tsconfig.json', include: ['src/one.ts'] }));
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
    const build = () =>
      spawnSync(process.execPath, [join(dir, 'src/scripts/ensure-built.cjs')], { cwd: dir, encoding: 'utf8', timeout: 60_000 });

    const first = build();
    expect({ status: first.status, stdout: first.stdout }).toEqual({ status: 0, stdout: '' });
    expect(first.stderr).toBe(COMPILING);
    expect(existsSync(join(dir, 'dist/.build-stamp'))).toBe(true);

    const again = build();
    expect({ status: again.status, stdout: again.stdout, stderr: again.stderr }).toEqual({ status: 0, stdout: '', stderr: '' });
  });
});
