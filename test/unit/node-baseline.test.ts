import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../support/processes';

const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');

/**
 * Node 26 is the baseline and Node 24 is still supported; Node 20 and 22 are not. The places that
 * say so (engines, CI, the image, the README) must agree, so a change to one shows here.
 */
describe('the Node baseline', () => {
  it('engines allows Node 24 and newer, nothing older', () => {
    expect(JSON.parse(read('package.json')).engines).toEqual({ node: '>=24' });
  });

  it('CI runs the suite on Node 26 first, then the quick tests again on Node 24, and on no older Node', () => {
    const ci = read('.ci/run');
    expect(ci).toMatch(/^BASELINE=26$/m);
    expect(ci).toMatch(/^ALSO=24$/m);
    expect(ci).toMatch(/^PATH="\$also_dir:\$PATH" npm run test:quick$/m);
    expect(ci).not.toMatch(/node@?(20|22)\b|BASELINE=2[02]|ALSO=2[02]/);
  });

  it('the image builds and runs on Node 26', () => {
    const froms = read('Dockerfile').match(/^FROM \S+/gm) ?? [];
    expect(froms.length).toBeGreaterThan(0);
    for (const from of froms) expect(from).toMatch(/^FROM node:26-/);
  });

  it('the README names Node 26 as the baseline and Node 24 as still working', () => {
    const prerequisites = read('README.md').split('## Prerequisites')[1].split('\n## ')[0].replace(/\s+/g, ' ');
    expect(prerequisites).toContain('**Node.js 26** (the active LTS');
    expect(prerequisites).toContain('Node 24 (in maintenance');
    expect(prerequisites).toContain('Node 20 and 22 are not supported');
  });
});

/**
 * npm 11 warns on every install about each dependency whose install script `allowScripts` in
 * package.json neither allows nor denies (and a later npm blocks them). Every package the lock
 * marks as having one must be named there, so an install prints no such warning.
 */
describe('the install', () => {
  it("every dependency with an install script is named in package.json's allowScripts", () => {
    const lock: { packages: Record<string, { hasInstallScript?: boolean }> } = JSON.parse(read('package-lock.json'));
    const withScripts = Object.entries(lock.packages)
      .filter(([, entry]) => entry.hasInstallScript)
      .map(([path]) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length));
    expect(withScripts.length).toBeGreaterThan(0);
    const allowScripts: Record<string, boolean> = JSON.parse(read('package.json')).allowScripts ?? {};
    // Entries may pin a version (`name@1.2.3`); the name is what must match.
    const named = new Set(Object.keys(allowScripts).map((key) => key.replace(/(?<=.)@.*$/, '')));
    expect(withScripts.filter((name) => !named.has(name))).toEqual([]);
  });
});
